"""Keys pressed as the settings screen opens are never lost: the one handled at the first moment
the screen takes keys (its rows mounted, the language row focused) keeps its effect, and so do
keys typed after ``s`` in the same packet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import RadioButton, RadioSet

from engine.game import Game
from host.local import LocalTable
from net.front.server import MahjongServer
from testkit.scenario import rigged_hand
from testkit.ssh import new_key
from tests.support.tui import DrawDiscard
from tests.test_net import join
from tui.apps.app import MahjongApp
from tui.apps.screens import SettingsScreen
from tui.settings import Settings


def make_app(tmp_path: Path) -> tuple[MahjongApp, LocalTable, Game]:
    hand = rigged_hand("shangrao", {0: "3456m 99p 111s 78s BB F"}, draws="2p 3p 5m 9p",
                       tail="9s", dealer=0, seed=3, wild="B",
                       options={"turn_seconds": 0, "claim_seconds": 0})
    game = Game("shangrao", 3, {"turn_seconds": 0, "claim_seconds": 0})
    table = LocalTable(bot_delay=0, timers=False, players={s: DrawDiscard() for s in (1, 2, 3)})
    settings = Settings.load(tmp_path / "settings.json")
    settings.lang = "en"
    app = MahjongApp(table, settings, table_ready=True)
    game.hand = hand
    return app, table, game


async def test_a_key_taken_as_the_settings_screen_takes_keys_keeps_its_effect(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A → handled right after the screen's mount (the earliest a key reaches the focused
    row) moves the highlight for good: the screen's own setting of the rows' highlights
    (on the chosen button) is done by then, where it came after the first refresh and put the
    highlight back on English, so the Enter that followed took English again (CI, one run
    in five of test_net's settings test)."""
    mount = SettingsScreen.on_mount

    def mount_then_right(screen: SettingsScreen) -> None:
        mount(screen)
        screen.query_one("#lang", RadioSet).action_next_button()  # what → runs there

    monkeypatch.setattr(SettingsScreen, "on_mount", mount_then_right)
    app, table, game = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        await pilot.pause()
        app.show_settings()
        for _ in range(4):  # the screen drawn, and whatever it left for after that
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        lang = screen.query_one("#lang", RadioSet)
        assert lang.has_focus
        marks = [b.render().plain for b in lang.query(RadioButton)]
        assert marks == [" (*) English ", ">( ) 中文 "], marks
        await pilot.press("enter")
        await pilot.pause()
        assert app.settings.lang == "zh"


async def test_keys_typed_after_s_in_one_packet_reach_the_settings_screen(
        server: MahjongServer) -> None:
    """``s`` is handled at once by the table screen (``MahjongApp.key_now``), which opens the
    settings; the → and Enter behind it in the same packet reach that screen as soon as it is
    mounted (Textual queues them on it until then), and the → was undone by the highlight set
    after the screen's first refresh: English taken again, every run."""
    c = await join(server, "typist", new_key(), "join typed1")
    await c.wait_for("press S")
    c.send("s")
    await c.wait_for("Hand 1/")
    c.send("s\x1b[C\r")  # settings, → 中文, take it: one packet
    await c.wait_for(lambda t: "语言" in t and "Language" not in t)
    (session,) = server.sessions
    app: Any = session.app
    assert app.settings.lang == "zh"
    await c.close()
