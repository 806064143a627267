"""The status line at the top: ruleset, hand, dealer, wall, whose turn, and the timer bar."""

from __future__ import annotations

from rich.cells import cell_len

from engine.table import Phase
from host.client import TableUpdate
from tui.view.canvas import Canvas
from tui.view.timer_text import TIMER_BAR, bank_shown
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
    # the timer's text: its seconds, and the bank's where the table has one (in words where
    # the line has room, else short); the auto toggles after whose turn it is, likewise
    secs: list[str] = []
    if timer is not None:
        bank = bank_shown(update, ui.now)
        secs = [f" {timer[1]:>2d}s "] if bank is None else [
            " " + tr(lang, "timer_bank", s=timer[1], b=bank) + " ",
            " " + tr(lang, "timer_bank_short", s=timer[1], b=bank) + " "]
    autos = ["", ""]
    if ui.auto:
        autos = [" " + tr(lang, "auto_on", what=", ".join(tr(lang, f"auto_{a}")
                                                        for a in ui.auto)) + " ",
                 " " + tr(lang, "auto_short", what="".join(tr(lang, f"auto_{a}_mark")
                                                          for a in ui.auto)) + " "]
    if ui.away:  # the timer plays this seat at once until a key: said here, not over a seat
        autos = [" " + tr(lang, "away_on") + " ", " " + tr(lang, "away_short") + " "]
    # The line must hold every part it shows whole at any width from 80 columns: the first
    # of these that fits is drawn, each a step shorter than the one before it, the least
    # useful part shortened or dropped first (the seats show the dealer; the hand's number
    # is on the result screen); whose turn it is, the toggles and the timer stay.
    forms = secs or [""]
    title, zh_title = parts[0], rules_title(view.rules, "zh")
    steps = [(title, parts[1:], autos[0], forms[0]), (title, parts[1:], autos[1], forms[0]),
             (title, parts[1:], autos[1], forms[-1]), (zh_title, parts[1:], autos[1], forms[-1]),
             (zh_title, [parts[1], parts[3]], autos[1], forms[-1]),
             (zh_title, [parts[3]], autos[1], forms[-1]), (zh_title, [], autos[1], forms[-1]),
             (zh_title, [], "", forms[-1])]
    for title, rest, auto, sec in steps:
        need = sum(cell_len(" " + text + " ") + 1 for text in [title, *rest])
        need += cell_len(" " + turn + " ") + (cell_len(auto) + 1 if auto else 0)
        if timer is not None:
            need += TIMER_BAR + 2 + cell_len(sec)  # "⏱ ", the bar, the seconds
        if need <= c.width:
            break
    parts = [title, *rest]
    x = 0
    for text in parts:
        x = c.put(x, 0, " " + text + " ", "status")
        x = c.put(x, 0, "│", "status-dim")
    x = c.put(x, 0, " " + turn + " ", "status-em" if view.my_move else "status")
    if auto:
        x = c.put(x, 0, "│", "status-dim")
        x = c.put(x, 0, auto, "status-em")
    # timer bar at the right end
    right = c.width
    if timer is not None:
        full, _left_s, low = timer
        bar_w = TIMER_BAR
        start = right - bar_w - cell_len(sec) - 2
        x2 = c.put(start, 0, "⏱ ", "status")
        x2 = c.put(x2, 0, "█" * full, "timer-low" if low else "timer")
        x2 = c.put(x2, 0, "░" * (bar_w - full), "timer-empty")
        x2 = c.put(x2, 0, sec, "status")
        right = start
    if x < right:
        c.put(x, 0, " " * (right - x), "status")
