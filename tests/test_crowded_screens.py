"""Screens a tester found crowded at 80×24 (issue 53, G3): the status line cut its own
toggles with the timer, notices were drawn over screens they were not about (the chat toast
over the chat history, the tile face's note over the settings' rows in the other language),
and the review named figures that were below the fold."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rich.cells import cell_len

from engine.game import Game
from engine.table import Phase
from engine.view import build_view
from host.client import TableUpdate
from host.table_info import ChatLine
from tests.test_chat_history import PlayingTable, app_for, hand_update
from tui.apps.chat import ChatLogScreen
from tui.apps.screens import SettingsScreen
from tui.view.canvas import Canvas
from tui.view.status_row import draw_status_row
from tui.view.timer_text import timer_state
from tui.view.ui_state import UiState
from words import tr


def status_text(update: TableUpdate, ui: UiState, width: int) -> str:
    """The status line as its cells read (a span drawn later over an earlier one wins)."""
    canvas = Canvas(width, 1)
    draw_status_row(canvas, update, ui, 0, timer_state(update, ui.now))
    cells = [" "] * (width + 2)
    for x, text, _style in canvas.rows[0]:
        for ch in text:
            cells[x] = ch
            if cell_len(ch) == 2:
                cells[x + 1] = ""
            x += cell_len(ch)
    return "".join(cells[:width])


def test_the_status_line_shows_each_part_whole_at_80_columns() -> None:
    tried = 0
    for rules in ("gejiu", "yichun", "shangrao"):
        for bank in (0.0, 12.0):
            game = Game(rules, 1, {"time_bank": 20} if bank else {})
            game.new_hand()
            assert game.hand is not None
            base = build_view(game.hand, 0)
            for phase, turn in ((Phase.CLAIM, "claims"), (Phase.TURN, "your_turn")):
                view = replace(base, phase=phase, my_move=phase is Phase.TURN)
                update = TableUpdate(view=view, deadline=100.0, timer_seconds=10.0,
                                     bank_seconds=bank, hands_per_game=16)
                for lang in ("en", "zh"):
                    for auto in ((), ("pass",), ("pass", "win", "discard")):
                        for away in (False, True):
                            ui = UiState(lang=lang, now=93.0, auto=auto, away=away)
                            line = status_text(update, ui, 80)
                            tried += 1
                            assert tr(lang, turn) in line, line
                            marks = "".join(tr(lang, f"auto_{a}_mark") for a in auto)
                            if away:
                                assert tr(lang, "away_short") in line, line
                            elif auto:
                                assert (tr(lang, "auto_short", what=marks) in line
                                        or tr(lang, "auto_on", what=", ".join(
                                            tr(lang, f"auto_{a}") for a in auto)) in line), line
                            assert line.count("[") == line.count("]"), line
                            # the timer's seconds whole, after a space of their own
                            assert line.rstrip().endswith(("7s", "7秒")), line
                            assert "│⏱" not in line and "│ ⏱" not in line, line
    assert tried == 3 * 2 * 2 * 2 * 3 * 2


async def test_no_chat_toast_over_the_chat_history(tmp_path: Path) -> None:
    client = PlayingTable(1, hand_update("gejiu", 1, 30))
    app = app_for(client, tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        for _ in range(3):
            await pilot.pause()
        assert app.table_screen is not None and app.screen is app.table_screen
        await pilot.press("v")
        for _ in range(3):
            await pilot.pause()
        assert isinstance(app.screen, ChatLogScreen)
        client.info_callbacks[0](ChatLine("bob", "heard while the history is open"))
        for _ in range(4):
            await pilot.pause()
        assert "bob: heard while the history is open" in str(
            app.screen.query_one("#chat-log-lines").render())
        assert not app.screen.query("Toast")
        await pilot.press("escape")  # back at the table: the line is not told again
        for _ in range(4):
            await pilot.pause()
        assert app.screen is app.table_screen and not app.screen.query("Toast")
        client.info_callbacks[0](ChatLine("bob", "a later line"))
        for _ in range(4):
            await pilot.pause()
        assert [str(t.render()) for t in app.screen.query("Toast")] == ["bob: a later line"]


async def test_the_face_note_is_said_on_the_table_in_its_language_only(tmp_path: Path
                                                                      ) -> None:
    for lang in ("zh", "en"):
        client = PlayingTable(1, hand_update("gejiu", 1, 30))
        app = app_for(client, tmp_path)
        app.settings.lang = lang
        app.settings.tiles = "glyph"
        app.settings.glyph_cells = 2  # this terminal draws them two cells wide
        note = tr(lang, "face_glyph_wide", face="glyph")
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            for _ in range(3):
                await pilot.pause()
            assert app.table_screen is not None and app.screen is app.table_screen
            toasts = [str(t.render()) for t in app.screen.query("Toast")]
            assert toasts == [note], toasts
            await pilot.press("s")
            for _ in range(3):
                await pilot.pause()
            assert isinstance(app.screen, SettingsScreen)
            assert not app.screen.query("Toast")  # not over the settings' rows
            await pilot.press("escape")
            for _ in range(3):
                await pilot.pause()
            assert app.screen is app.table_screen and not app.screen.query("Toast")


async def test_the_review_shows_the_figures_its_labels_name_on_the_first_screen() -> None:
    from engine.review import Kept
    from tests.support.tui import screen_lines
    from tests.test_review import Fake, review_app, settle
    from tui.apps.review import ReviewScreen
    from tui.words.review_text import value_text

    for lang in ("en", "zh"):
        fake = Fake()
        app = review_app(fake, lang)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await settle(pilot, fake, until_all=True)
            screen = app.screen
            assert isinstance(screen, ReviewScreen)
            folded = 0  # pages longer than the screen
            for i, a in sorted(screen.results.items()):
                if not a.weighed:
                    continue
                screen.page = i
                screen.refresh_view()
                await pilot.pause()
                shown = screen_lines(app)
                folded += len(screen.body_lines(76)) > 21
                named = [a.decision.taken, a.choice]
                if a.better is not None and a.kept is not Kept.BEST:
                    named.append(a.better.action)
                for action in named:
                    v = a.value_of(action)
                    assert v is not None
                    row = f"{screen._act(action)} "
                    assert any(row in line and value_text(v.mean, v.half) in line
                               for line in shown), (lang, i, row, "\n".join(shown))
                marks = [tr(lang, "rv_mark_played"), tr(lang, "rv_mark_expert")]
                assert all(any(f"← {m}" in line or f", {m}" in line for line in shown)
                           for m in marks), "\n".join(shown)
            assert folded >= 3, folded  # a check that checks something
