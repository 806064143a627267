"""The status line at the top: ruleset, hand, dealer, wall, whose turn, and the timer bar."""

from __future__ import annotations

from rich.cells import cell_len

from engine.table import Phase
from host.client import TableUpdate
from tui.view.canvas import Canvas
from tui.view.timer_text import TIMER_BAR
from tui.view.ui_state import UiState
from tui.words.ruleset_title import rules_title
from words import seat_label, seat_wind, tr


def draw_status_row(c: Canvas, update: TableUpdate, ui: UiState, me: int,
                timer: tuple[int, int, bool] | None) -> None:
    """The top row: ruleset, hand, dealer, wall and whose turn, with the timer bar at the right."""
    view, lang = update.view, ui.lang
    parts = [
        rules_title(view.rules, lang),
        tr(lang, "hand_no", n=view.hand_no, of=update.hands_per_game or "?"),
        tr(lang, "dealer", seat=seat_wind(view.dealer, lang)),
        tr(lang, "wall", n=view.remaining),
    ]
    if view.phase is Phase.ENDED:
        # the others the next hand waits for (one's own Enter is what the result asks for)
        waiting = sum(1 for s in update.waiting_for if s != view.viewer)
        turn = tr(lang, "ended_waiting", n=waiting) if waiting else tr(lang, "ended")
    elif view.my_move and view.phase in (Phase.TURN, Phase.DECLARE):
        turn = tr(lang, "your_turn")
    elif view.phase in (Phase.TURN, Phase.DECLARE) and view.current is not None:
        turn = tr(lang, "turn_of", who=seat_label(view.viewer, view.current, lang))
    elif view.phase is Phase.CLAIM:
        turn = tr(lang, "claims")
    elif view.phase is Phase.ROB:
        turn = tr(lang, "rob")
    else:
        turn = tr(lang, "buy_phase")
    x = 0
    for text in parts:
        x = c.put(x, 0, " " + text + " ", "status")
        x = c.put(x, 0, "│", "status-dim")
    x = c.put(x, 0, " " + turn + " ", "status-em" if view.my_move else "status")
    # timer bar at the right end
    right = c.width
    if timer is not None:
        full, left_s, low = timer
        bar_w = TIMER_BAR
        secs = f" {left_s:>2d}s "
        start = right - bar_w - cell_len(secs) - 2
        x2 = c.put(start, 0, "⏱ ", "status")
        x2 = c.put(x2, 0, "█" * full, "timer-low" if low else "timer")
        x2 = c.put(x2, 0, "░" * (bar_w - full), "timer-empty")
        x2 = c.put(x2, 0, secs, "status")
        right = start
    if x < right:
        c.put(x, 0, " " * (right - x), "status")
