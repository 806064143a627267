"""What a player's timer plays when it runs out, the same at a local table and a shared one."""

from __future__ import annotations

from engine.actions import Action, ActionType
from engine.table import Phase
from engine.view import View


def expiry_action(view: View) -> Action:
    """What a timer's expiry plays: discard the drawn tile (after a claim: the rightmost
    tile), pass a claim, decline to buy; never a win. ``view`` is the seat's own, with the
    seat to move."""
    legal = view.legal
    if view.phase is Phase.TURN:
        discards = [a for a in legal if a.type is ActionType.DISCARD and not a.ting]
        for kind in ([view.drawn] if view.drawn is not None else []) + list(view.hand[::-1]):
            if Action.discard(kind) in discards:
                return Action.discard(kind)
        return discards[0]
    if view.phase is Phase.BUY:
        for a in legal:
            if a.type is ActionType.NO_BUY and not a.lighter:
                return a
        return next(a for a in legal if not a.lighter)
    return Action.pass_()
