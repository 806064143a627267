"""Frictions a newcomer met at the Textual table (issue 53): keys behind the small terminal's
notice, the words of the action row and prompts, Ctrl-C, the help's key names, the Yichun buy
prompt, the review's toast, and the marks on a terminal that draws ambiguous characters wide."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from bench.bench_tui import ScriptedClient
from engine.actions import Action
from engine.table import Phase
from engine.view import build_view
from host.refusal import Refusal
from tests.support.tui import table_text
from tui.apps.app import MahjongApp
from tui.apps.screens import HelpScreen
from tui.settings import Settings
from words import tr


class AtMyTurn(ScriptedClient):
    """A scripted table advanced to seat 0's turn; what the app sends is kept, not played."""

    def __init__(self, rules: str, seed: int) -> None:
        super().__init__(rules, seed)
        self.sent: list[Action] = []
        hand = self.game.hand
        assert hand is not None
        while hand.to_act()[0] != 0 or build_view(hand, 0).phase is not Phase.TURN:
            seat = hand.to_act()[0]
            hand.apply(seat, self.players[seat].choose(build_view(hand, seat)))

    def send(self, action: Action) -> Refusal | None:
        self.sent.append(action)
        return None


async def test_keys_behind_the_small_terminal_notice_do_nothing_and_say_so() -> None:
    client = AtMyTurn("gejiu", 5)
    with tempfile.TemporaryDirectory() as tmp:
        app = MahjongApp(client, Settings.load(Path(tmp) / "s.json"), table_ready=True)
        async with app.run_test(size=(70, 20)) as pilot:
            for _ in range(5):
                await pilot.pause()
            screen = app.table_screen
            assert screen is not None and screen.small
            assert "80×24" in table_text(app)
            cursor = screen.ui.cursor
            for key in ("enter", "space", "w", "k", "x", "b", "left", "1"):
                await pilot.press(key)
                await pilot.pause()
            assert client.sent == []  # no tile the player could not see was discarded
            assert screen.ui.cursor == cursor and screen.ui.prompt is None
            text = " ".join(table_text(app).split())
            assert "80×24" in text  # the notice, and under it why the key did nothing
            assert " ".join(tr("en", "too_small_keys").split()) in text
            # help still opens, and closes back to the notice
            await pilot.press("question_mark")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is screen
            # large enough again: the table is shown, without the stale line, and Enter plays
            await pilot.resize_terminal(80, 24)
            for _ in range(3):
                await pilot.pause()
            assert not screen.small
            assert "Keys that play" not in table_text(app)
            await pilot.press("enter")
            await pilot.pause()
            assert len(client.sent) == 1 and client.sent[0].type.value == "discard"


async def test_the_opening_toast_goes_when_the_review_opens(tmp_path: Path) -> None:
    """r on the game-over screen says "Opening the review…" in a toast, which went on sitting
    over the review once it opened."""
    from dataclasses import replace

    from tests.support.tui import screen_lines
    from tests.test_replay import game_record
    from tui.apps.review import FileReviews, ReviewScreen
    from tui.apps.screens import GameResultScreen

    record, _blocks = game_record("gejiu", seed=5, hands=1)
    path = tmp_path / "game.jsonl"
    path.write_text(record, encoding="utf-8")
    reviews = FileReviews(lambda: path, samples=4)
    opening = tr("en", "rv_opening").split()[0]  # a toast wraps its words
    try:
        app = MahjongApp(ScriptedClient("gejiu", 5), Settings.load(tmp_path / "s.json"),
                         table_ready=True)
        async with app.run_test(size=(100, 30), notifications=True) as pilot:
            for _ in range(5):
                await pilot.pause()
            app.review_source = reviews
            assert app.update is not None
            app.push_screen(GameResultScreen(replace(app.update, game_over=True)))
            await pilot.pause()
            app.notify("Another toast", timeout=60)
            await pilot.press("r")
            for _ in range(200):
                await pilot.pause(0.02)
                if isinstance(app.screen, ReviewScreen):
                    break
            assert isinstance(app.screen, ReviewScreen)
            for _ in range(3):
                await pilot.pause()
            lines = screen_lines(app)
            assert not any(opening in line for line in lines)
            assert any("Another toast" in line for line in lines)  # only that one goes
    finally:
        reviews.close()


async def test_ctrl_c_says_how_to_quit_in_the_players_words(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's own answer to Ctrl-C was "Press ctrl+q to quit the app", in English only."""
    from textual.app import App

    from tests.support.tui import record_notices
    from tui.apps.quit_hint import QuitHint

    said = record_notices(monkeypatch)
    for lang in ("en", "zh"):
        with tempfile.TemporaryDirectory() as tmp:
            settings = Settings.load(Path(tmp) / "s.json")
            settings.lang = lang
            app = MahjongApp(AtMyTurn("gejiu", 5), settings, table_ready=True)
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
                await pilot.press("ctrl+c")
                await pilot.pause()
                assert said(app) == [tr(lang, "quit_how", key="Ctrl+Q")]

    class Lobbyish(QuitHint, App[None]):  # no language known yet: both
        pass

    bare = Lobbyish()
    async with bare.run_test() as pilot:
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert said(bare) == [f"{tr('en', 'quit_how', key='Ctrl+Q')}\n"
                              f"{tr('zh', 'quit_how', key='Ctrl+Q')}"]


def test_each_mark_keeps_its_own_look_on_a_wide_ambiguous_terminal() -> None:
    """On a terminal that draws ambiguous characters wide, ``<`` meant both the latest discard
    and a meld's "claimed from", and the seat to act's ▶ became ``>``, the cursor's mark."""
    from testkit.terminal import cjk_width
    from tui.compat.ambiwidth import to_narrow
    from tui.view.seat_rows import CURSOR_MARK, LAST_AFTER, LAST_BEFORE, TURN_MARK
    from tui.view.tile_pieces import SOURCE_MARK

    turn, source = to_narrow(TURN_MARK), to_narrow(SOURCE_MARK)
    latest = {to_narrow(LAST_AFTER), to_narrow(LAST_BEFORE)}
    cursor = to_narrow(CURSOR_MARK)
    assert turn not in {source, cursor, *latest}
    assert source not in {cursor, *latest}
    assert cursor == CURSOR_MARK and latest == {LAST_AFTER, LAST_BEFORE}  # ASCII already
    assert all(cjk_width(mark) == 1 for mark in (turn, source))
    # the keys' arrows go with the meld's: one pair of pointers
    assert to_narrow("←/→") == f"{source}/{to_narrow('→')}" and to_narrow("→") not in latest
