"""What the auto toggles play for a seat (no calls, auto-win, auto-discard the drawn tile), as
Tenhou's and Mahjong Soul's tables have them; the table screen sends it.

Each toggle plays only where the player has nothing else to decide: auto-win takes a win when
one is offered (the win is legal as offered; 塘子烂糊 is a declaration of its own and stays the
player's); no calls passes a claim window that offers no win (chi, pung, kong); auto-discard
throws the drawn tile in a turn that offers no win, no kong and no 报听. A pass waits a
player's thinking time first (:data:`AUTO_PASS_PAUSE`, in :mod:`tui.apps.table_screen`).
"""

from __future__ import annotations

from collections.abc import Collection

from engine.actions import Action, ActionType
from engine.table import Phase
from engine.view import View

KONGS = frozenset({ActionType.ANGANG, ActionType.BUGANG, ActionType.MINGGANG})


def auto_action(view: View, auto: Collection[str]) -> Action | None:
    """The move the toggles in ``auto`` (of ``"pass"``, ``"win"``, ``"discard"``) make for
    the viewer now, or None (the player decides)."""
    if not auto or not view.my_move:
        return None
    legal = view.legal
    win = next((a for a in legal if a.type is ActionType.WIN), None)
    if win is not None:
        return win if "win" in auto else None
    if view.phase in (Phase.CLAIM, Phase.ROB):
        if "pass" not in auto:
            return None
        return next((a for a in legal if a.type is ActionType.PASS), None)
    if view.phase is not Phase.TURN or "discard" not in auto or view.drawn is None:
        return None
    if any(a.type in KONGS or a.ting or a.type is ActionType.POND_WIN for a in legal):
        return None
    return next((a for a in legal if a.type is ActionType.DISCARD and a.tile == view.drawn
                 and not a.ting), None)


def decision_stamp(view: View) -> tuple[int, str, int, int, int]:
    """What tells one decision of the viewer from the next (an auto move is sent once each):
    every move discards, draws or melds."""
    return (view.hand_no, view.phase.value, sum(len(p.pond) for p in view.seats),
            view.remaining, sum(len(p.melds) for p in view.seats))
