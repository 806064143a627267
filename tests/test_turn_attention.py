"""Your turn while you look away (issue 53): the terminal's title says that the table waits for
you and is set back when it no longer does; a desktop notification (OSC 9) once a turn, only
while you are away; nothing of either with the settings off (their default); nothing of a
table's name reaches the terminal raw. The app runs on the SSH driver over a fake channel, so
the bytes checked are those a client's terminal would get."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Checkbox

from engine.game import Game
from engine.table import Phase
from host.local import LocalTable
from net.front.driver import SSHDriver
from net.front.remote_app import RemoteSettings
from net.front.server import MahjongServer
from testkit.fakes import FakeChannel, driver_factory
from testkit.scenario import rigged_hand
from testkit.ssh import PtyClient, new_key
from tests.support.tui import DrawDiscard
from tests.support.waiting import until
from tui.apps.app import MahjongApp
from tui.apps.attention import (
    AWAY_SECONDS,
    OSC_TEXT_MAX,
    TITLE_POP,
    TITLE_PUSH,
    Attention,
    osc_text,
)
from tui.apps.screens import SettingsScreen
from tui.plain.front import PlainTable
from tui.plain.terminal import TerminalOutput
from tui.settings import Settings

ME = "3456m 99p 111s 78s EE F"
DRAWS = "2p 3p 5m 9p 4p E 2p 1s"
TURN_TITLE = "\x1b]0;▶ your move — mahjong-ssh\x07"
BACK_TITLE = "\x1b]0;mahjong-ssh\x07"
NOTIFY = "\x1b]9;mahjong-ssh: your move\x07"
BLUR, FOCUS = b"\x1b[O", b"\x1b[I"  # the terminal's focus reports


class NamedTableApp(MahjongApp):
    """A table whose name is hostile (a shared table's names are checked where they are made:
    this is the screen's own guard)."""

    def table_name(self) -> str:
        return "t1\x1b]0;evil\x07\x9b2J\x1b[31m\u202eX\n"


@asynccontextmanager
async def table_app(tmp_path: Path, *, title: bool, notify: bool,
                    app_class: type[MahjongApp] = MahjongApp
                    ) -> AsyncIterator[tuple[MahjongApp, LocalTable, Game, SSHDriver]]:
    """An app on a rigged hand (the table's first move is ours) on the SSH driver; the test
    starts the hand."""
    hand = rigged_hand("gejiu", {0: ME}, draws=DRAWS, tail="", dealer=0, seed=3,
                       options={"turn_seconds": 0, "claim_seconds": 0}, kong_tiles="9s 2m")
    game = Game("gejiu", 3, {"turn_seconds": 0, "claim_seconds": 0})
    game.hand = hand
    table = LocalTable(bot_delay=0, timers=False, players={s: DrawDiscard() for s in (1, 2, 3)})
    settings = Settings.load(tmp_path / "settings.json")
    settings.tiles, settings.lang = "ascii", "en"
    settings.turn_title, settings.notify = title, notify
    app = app_class(table, settings, table_ready=True)
    made: list[SSHDriver] = []
    app.driver_class = driver_factory(made)  # type: ignore[assignment]
    task = asyncio.get_running_loop().create_task(app.run_async(size=(80, 24)))
    await until(lambda: bool(made) and app.table_screen is not None
                and app.table_screen.is_mounted, what="the table screen")
    (driver,) = made
    try:
        yield app, table, game, driver
    finally:
        app.exit()
        await task


def out(driver: SSHDriver) -> str:
    driver.flush()
    channel = driver.channel
    assert isinstance(channel, FakeChannel)
    return bytes(channel.out).decode("utf-8")


def my_move(app: MahjongApp) -> bool:
    return app.update is not None and app.update.view.my_move


async def test_title_while_the_table_waits_and_back_after(tmp_path: Path) -> None:
    async with table_app(tmp_path, title=True, notify=False) as (app, table, game, driver):
        assert game.hand is not None
        table.start_hand(game, game.hand)
        await until(lambda: my_move(app), what="our turn")
        text = out(driver)
        assert text.count(TITLE_PUSH + TURN_TITLE) == 1
        assert TITLE_POP not in text
        update = app.update
        assert update is not None
        for _ in range(3):  # more updates and redraws of the same turn: no title again
            app.apply_table_update(update)
        driver.feed(b"\x1b[D\x1b[C")  # the cursor moves: the table drawn again
        await asyncio.sleep(0.05)
        assert out(driver).count("\x1b]0;") == 1
        driver.feed(b"\r")  # the discard: the table turns to the others
        await until(lambda: TITLE_POP in out(driver), what="the title set back")
        text = out(driver)
        assert text.count(BACK_TITLE + TITLE_POP) == 1
        # the next time the table waits for us (a claim or the turn), the title again
        await until(lambda: out(driver).count(TITLE_PUSH) == 2, what="the title again")
        assert out(driver).count(TITLE_POP) == 1
        app.exit()  # leaving during a wait: the title as it was
        await until(lambda: out(driver).count(TITLE_POP) == 2, what="the title back at exit")


async def test_a_notification_once_a_turn_only_while_away(tmp_path: Path) -> None:
    async with table_app(tmp_path, title=False, notify=True) as (app, table, game, driver):
        assert game.hand is not None
        driver.feed(BLUR)  # the player is in another window
        await until(lambda: app.attention.focus_said is False, what="the blur")
        table.start_hand(game, game.hand)
        await until(lambda: my_move(app), what="our turn")
        await until(lambda: NOTIFY in out(driver), what="the notification")
        update = app.update
        assert update is not None
        for _ in range(3):  # redraws and updates of the same turn: one notification
            app.apply_table_update(update)
        await asyncio.sleep(0.05)
        text = out(driver)
        assert text.count("\x1b]9;") == 1
        assert "\x1b]0;" not in text and TITLE_PUSH not in text  # the title is off
        driver.feed(FOCUS)  # back, and looking: the next turn tells nothing
        await until(lambda: app.attention.focus_said is True, what="the focus")
        driver.feed(b"\r")
        await until(lambda: not my_move(app), what="the discard")
        await until(lambda: my_move(app), what="the table back at this seat")
        await asyncio.sleep(0.05)
        assert out(driver).count("\x1b]9;") == 1


async def test_nothing_with_the_settings_off(tmp_path: Path) -> None:
    assert (Settings().turn_title, Settings().notify) == (False, False)
    async with table_app(tmp_path, title=False, notify=False) as (app, table, game, driver):
        assert game.hand is not None
        driver.feed(BLUR)
        await until(lambda: app.attention.focus_said is False, what="the blur")
        table.start_hand(game, game.hand)
        await until(lambda: my_move(app), what="our turn")
        driver.feed(b"\r")
        await until(lambda: not my_move(app), what="the discard")
        await until(lambda: my_move(app), what="the table back at this seat")
        app.exit()
        await asyncio.sleep(0.05)
        text = out(driver)
        for sequence in ("\x1b]0;", "\x1b]9;", "\x1b]777;", TITLE_PUSH, TITLE_POP):
            assert sequence not in text


async def test_a_table_name_never_reaches_the_terminal_raw(tmp_path: Path) -> None:
    async with table_app(tmp_path, title=True, notify=True,
                         app_class=NamedTableApp) as (app, table, game, driver):
        assert game.hand is not None
        driver.feed(BLUR)
        await until(lambda: app.attention.focus_said is False, what="the blur")
        table.start_hand(game, game.hand)
        await until(lambda: "\x1b]9;" in out(driver), what="the notification")
        text = out(driver)
        # every OSC but Textual's pointer shape (OSC 22)
        oscs = [osc for osc in re.findall(r"\x1b\][^\x07]*\x07", text)
                if not osc.startswith("\x1b]22;")]
        assert oscs == [
            "\x1b]0;▶ your move — mahjong-ssh t1]0;evil2J[31mX\x07",
            "\x1b]9;mahjong-ssh t1]0;evil2J[31mX: your move\x07",
        ]
        assert "\x9b" not in text and "\u202e" not in text and "\x1b]0;evil" not in text


def test_osc_text_keeps_no_control() -> None:
    hostile = "a\x1b\\b\x07c\x9c\x9dd\u202ee\u2028f\x00\x7f" + "x" * 200
    kept = osc_text(hostile)
    assert kept.startswith("a\\bcdef")
    assert len(kept) == OSC_TEXT_MAX
    assert all(ch.isprintable() for ch in kept)


def test_away_without_focus_reports_means_no_key_for_a_while() -> None:
    """A terminal that never reports its focus: away once no key came for AWAY_SECONDS; one
    notification for the whole absence, another only after the player came back."""
    clock = [0.0]
    written: list[str] = []
    settings = Settings()
    settings.notify = True
    attention = Attention(settings, written.append, lambda: "t1", now=lambda: clock[0])

    def turn() -> None:
        attention.table_waits(True)
        attention.table_waits(False)

    clock[0] = AWAY_SECONDS - 1
    turn()
    assert written == []  # watching without a key: no notification
    clock[0] = AWAY_SECONDS + 1
    turn()
    turn()
    assert written == ["\x1b]9;mahjong-ssh t1: your move\x07"]  # once while away
    attention.key()
    turn()
    assert len(written) == 1  # looking
    clock[0] += AWAY_SECONDS + 1
    turn()
    assert len(written) == 2


def test_the_title_follows_the_setting_at_once() -> None:
    written: list[str] = []
    settings = Settings()
    attention = Attention(settings, written.append)
    attention.table_waits(True)
    assert written == []
    settings.turn_title = True
    attention.settings_changed()  # turned on during a wait: up now
    assert written == [TITLE_PUSH + TURN_TITLE]
    settings.turn_title = False
    attention.settings_changed()  # turned off: back now, and not again at the wait's end
    attention.table_waits(False)
    assert written == [TITLE_PUSH + TURN_TITLE, BACK_TITLE + TITLE_POP]


def test_the_words_follow_the_language() -> None:
    written: list[str] = []
    settings = Settings()
    settings.lang, settings.turn_title, settings.notify = "zh", True, True
    attention = Attention(settings, written.append, lambda: "周五")
    attention.focus(False)
    attention.table_waits(True)
    assert written == [TITLE_PUSH + "\x1b]0;▶ 轮到你 — mahjong-ssh 周五\x07",
                       "\x1b]9;mahjong-ssh 周五：轮到你了\x07"]


def test_title_and_notification_go_out_while_frames_are_dropped() -> None:
    """A slow client gets no frames until it drains (a repaint brings them back), but the
    title and a notification are sent: nothing would bring them back."""
    channel = FakeChannel()

    async def run() -> None:
        driver = SSHDriver(object(), channel=channel, high_water=100)
        channel.buffered = 1000
        driver.write("a frame")
        driver.write_control(TITLE_PUSH + TURN_TITLE)
        driver.flush()
        assert driver.dropping
        driver.write("another frame")
        driver.write_control(BACK_TITLE + TITLE_POP)
        driver.flush()

    asyncio.run(run())
    assert bytes(channel.out).decode() == TITLE_PUSH + TURN_TITLE + BACK_TITLE + TITLE_POP


def test_kept_with_the_key_and_in_the_settings_file(tmp_path: Path) -> None:
    kept: list[dict[str, object]] = []
    remote = RemoteSettings(saver=kept.append)
    remote.turn_title, remote.notify = True, True
    remote.save()
    assert kept[-1]["turn_title"] is True and kept[-1]["notify"] is True
    again = RemoteSettings.from_data(kept[-1])
    assert (again.turn_title, again.notify) == (True, True)
    local = Settings.load(tmp_path / "s.json")
    local.turn_title = True
    local.save()
    assert Settings.load(tmp_path / "s.json").turn_title is True


@pytest.mark.parametrize(("box", "setting"), [("turn-title", "turn_title"),
                                              ("notify", "notify")])
async def test_each_is_a_setting_on_the_settings_screen(box: str, setting: str,
                                                        tmp_path: Path) -> None:
    async with table_app(tmp_path, title=False, notify=False) as (app, _table, _game, driver):
        driver.feed(b"s")
        await until(lambda: isinstance(app.screen, SettingsScreen)
                    and bool(app.screen.query(f"#{box}")), what="the settings")
        app.call_later(app.screen.query_one(f"#{box}", Checkbox).toggle)
        await until(lambda: getattr(app.settings, setting) is True, what="the setting on")
        assert getattr(Settings.load(tmp_path / "settings.json"), setting) is True


class Rings:
    """A plain-mode output that keeps its prompts and when the bell rang (after which)."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        self.rings: list[str] = []

    def say(self, lines: Sequence[str], prompt: str) -> None:
        self.prompts.append(prompt)

    def ring(self) -> None:
        self.rings.append(self.prompts[-1])

    def close(self) -> None:
        pass


@pytest.mark.parametrize("bell", [False, True])
async def test_plain_mode_rings_the_bell_once_a_question(bell: bool) -> None:
    """Plain mode has the bell alone (no title, no notification): once each time the table
    asks this player, after the question."""
    out = Rings()
    settings = Settings()
    settings.bell = bell
    table = LocalTable(bot_delay=0.0, timers=False)
    plain = PlainTable(table, "en", out, settings=settings)
    plain.start()
    assert table.new_game("shangrao", {}, 4) is None

    def asked() -> bool:
        return (plain.update is not None and plain.update.view.my_move
                and bool(out.prompts) and out.prompts[-1] == plain.prompt() and plain.written)

    await until(asked, 5.0, "the first question")
    first = plain.prompt()
    plain.handle("hand")  # said again on request: no bell
    await until(lambda: plain.written, 5.0, "the hand")
    assert out.rings == ([first] if bell else [])
    plain.close()


def test_plain_mode_bell_goes_to_a_terminal_only() -> None:
    written: list[str] = []
    TerminalOutput(written.append).ring()
    TerminalOutput(written.append, terminal=False).ring()
    assert written == ["\a"]


async def test_over_ssh_the_title_follows_the_turn(server: MahjongServer) -> None:
    """A real session: a key whose kept settings turn the title on, at a table with computers;
    the client's terminal gets the title as the table turns to it and back after its move.

    The dice draw the dealer: the first wait may be a claim on the discard of the player
    before, and passing it (or taking it) gives the player the turn at once: one wait, the
    title up throughout, which only the discard that follows ends. So each key answers the
    wait the app shows: Enter discards on a turn, x passes a claim (an Enter alone waited in
    vain for the title back with 5 of the seeds 1 to 60)."""
    key = new_key()
    account = server.store.account_for_key(key.get_fingerprint("sha256"), "ann")
    server.store.save_settings(account.id, {"turn_title": True, "lang": "en"})
    c = PtyClient(80, 24)
    await c.connect(server.port, "ann", key, command="join att1 --rules gejiu")
    try:
        await c.wait_for("press S to start")
        c.send("s")
        table = server.registry.tables["att1"]
        await until(lambda: table.game is not None, what="the start key")
        turn = "\x1b]0;▶ your move — mahjong-ssh att1\x07".encode()
        back = b"\x1b]0;mahjong-ssh att1\x07\x1b[23;0t"
        await until(lambda: turn in c.raw, what="the title: our move")
        assert c.raw.count(TITLE_PUSH.encode()) == 1 and back not in c.raw
        (session,) = server.sessions
        app: Any = session.app
        for _ in range(4):  # a claim offered, the turn it may bring, the discard
            shown = app.update  # the view the wait began with (or a later one of it)
            assert shown is not None and shown.view.my_move
            c.send("\r" if shown.view.phase is Phase.TURN else "x")  # discard, or pass

            def moved_on(shown: Any = shown) -> bool:
                now = app.update
                return back in c.raw or (now is not shown and now.view.my_move)

            await until(moved_on, what="the title back (or the turn the pass gave)")
            if back in c.raw:
                break
        assert back in c.raw and c.raw.count(TITLE_PUSH.encode()) == 1
        assert b"\x1b]9;" not in c.raw  # the notification is off
    finally:
        await c.close()
