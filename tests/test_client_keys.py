"""The keys of common SSH clients (``tests/support/client_keys.py``, from their documentation)
reach the same Textual keys, and so the same table actions, through the SSH driver: each row's
bytes alone, then a key typed after them (never eaten by a sequence held too long); a few at a
real table on the driver; and a few over SSH from a PTY client."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual import constants, events

import net.front.driver
from bench.bench_tui import ScriptedClient
from net.front.driver import SSHDriver
from net.front.server import MahjongServer
from testkit.fakes import FakeApp, FakeChannel, driver_factory
from testkit.ssh import PtyClient, new_key
from tests.support.client_keys import CLIENT_KEYS, ClientKey, table_actions
from tests.support.waiting import until
from tui.apps.app import MahjongApp
from tui.apps.screens import HelpScreen
from tui.compat import term_keys
from tui.settings import Settings


class Keys(FakeApp):
    """Takes every key at once, as the table does (``key_now``), and records its name."""

    def __init__(self) -> None:
        super().__init__()
        self.taken: list[str] = []

    def key_now(self, event: events.Key) -> bool:
        self.taken.append(event.key)
        return True


@pytest.fixture
def esc_times_out_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone Esc, an Alt prefix, is decided on the loop's next turn instead of after the
    parser's timeout (``textual.constants.ESCAPE_DELAY``) and the driver's check
    (``ESC_TIMEOUT``): the same decision, with no real time spent waiting for it."""
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 0.0)
    monkeypatch.setattr(net.front.driver, "ESC_TIMEOUT", 0.0)


async def keys_of(data: bytes, keys: int) -> list[str]:
    """The Textual keys the driver reads for ``data`` followed by ``l``, typed once the
    ``keys`` keys expected of ``data`` have come (a lone Esc, an Alt prefix: once its timeout
    has passed, at once under ``esc_times_out_at_once``)."""
    app = Keys()
    driver = SSHDriver(app, channel=FakeChannel())
    driver.start_application_mode()
    driver.feed(data)
    await until(lambda: len(app.taken) >= keys, 2.0, f"the keys of {data!r}")
    driver.feed(b"l")
    await until(lambda: "l" in app.taken, 2.0, f"the key after {data!r}")
    driver.close()
    return app.taken


@pytest.mark.parametrize("row", CLIENT_KEYS, ids=lambda r: f"{r.client}: {r.key}")
@pytest.mark.usefixtures("esc_times_out_at_once")
async def test_each_client_key_reaches_its_key(row: ClientKey) -> None:
    expected = ([row.textual] if row.textual else []) + ["l"]
    assert await keys_of(row.data, len(expected) - 1) == expected


# what the table does for each key the clients send (the table screen's bindings)
EXPECTED_ACTIONS = {
    "left": "cursor-left", "right": "cursor-right", "up": "result-up", "down": "result-down",
    "pageup": "result-page-up", "pagedown": "result-page-down", "home": "result-top",
    "end": "result-end", "enter": "confirm", "space": "confirm", "f1": "help",
    "question_mark": "help", "q": "quit", "l": "cursor-right", "1": "pick-1",
    "minus": "pick-11", "equals_sign": "pick-12", "left_square_bracket": "pick-13",
    "right_square_bracket": "pick-14", **{str(d): f"pick-{d or 10}" for d in range(10)},
}
UNBOUND = {"insert", "delete", "backspace", "escape", "tab", "shift+tab", "ctrl+s", "ctrl+q",
           "alt+q", "œ", "full_stop", *(f"f{i}" for i in range(2, 13))}


def test_every_client_key_is_a_table_action_or_none() -> None:
    actions = table_actions()
    for row in CLIENT_KEYS:
        if row.textual is None:
            continue
        if row.textual in UNBOUND:  # not a table key (Ctrl-S and Ctrl-Q: the app's own)
            assert row.textual not in actions, row
        else:
            assert actions.get(row.textual) == EXPECTED_ACTIONS[row.textual], row
    # every table action a player needs is reached from every client's rows
    for client in {r.client for r in CLIENT_KEYS if "," not in r.client}:
        reached = {actions.get(r.textual or "") for r in CLIENT_KEYS if r.client == client}
        assert {"cursor-left", "cursor-right", "help"} <= reached, client


def test_win32_input_mode_reports() -> None:
    assert term_keys.win32_key("\x1b[37;75;0;1;0;3_") == term_keys.ExtraKey((("left", None),) * 3)
    assert term_keys.win32_key("\x1b[37;75;0;1;0;999_") == term_keys.ExtraKey(
        (("left", None),) * term_keys.REPEAT_MAX)  # a repeat count is bounded
    assert term_keys.win32_key("\x1b[65;30;228;1;0;1_") == term_keys.ExtraKey(((None, "ä"),))
    assert term_keys.win32_key("\x1b[0;0;55357;1;0;1_") == term_keys.DROP  # half a pair
    assert term_keys.win32_key("\x1b[65;30;97;1;0_") is None  # not one: five fields
    assert term_keys.win32_key("\x1b[A") is None


def test_complete_unknown_sequences_and_what_is_left_to_textual() -> None:
    done = term_keys.is_complete_unknown
    for seq in ("\x1b[N", "\x1b[X", "\x1b[99~", "\x1b[1;9Z", "\x1bOl", "\x1bO[", "\x1b[[Z"):
        assert done(seq), seq
    for seq in ("\x1b[", "\x1b[1", "\x1b[1;", "\x1b[[", "\x1bO", "\x1b[M", "\x1b[M !",
                "\x1b[<0;3;4M", "\x1b[<0;3;4m", "\x1b[32;3;4M", "\x1b[?2026;2$y"):
        assert not done(seq), seq


@asynccontextmanager
async def table_on_driver(rules: str = "gejiu", seed: int = 9
                          ) -> AsyncIterator[tuple[MahjongApp, SSHDriver]]:
    """A table app on the SSH driver (a fake channel), its table screen shown."""
    client = ScriptedClient(rules, seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        app = MahjongApp(client, Settings.load(Path(tmp) / "s.json"), table_ready=True)
        made: list[SSHDriver] = []
        app.driver_class = driver_factory(made)  # type: ignore[assignment]
        task = asyncio.get_running_loop().create_task(app.run_async(size=(80, 24)))
        await until(lambda: bool(made) and app.table_screen is not None
                    and app.table_screen.update is not None, what="the table")
        (driver,) = made
        try:
            yield app, driver
        finally:
            app.exit()
            await task


@pytest.mark.parametrize(("left", "right", "help_key"), [
    (b"\x1bOD", b"\x1bOC", b"\x1b[11~"),  # PuTTY: application cursor keys, ESC[n~ F1
    (b"\x1b[D", b"\x1b[C", b"\x1b[[A"),  # the Linux console (and PuTTY's Linux mode)
    (b"\x1b[D", b"\x1b[C", b"\x1bOP"),  # the Windows console, Windows Terminal, xterm
    (b"\x1b[37;75;0;1;0;1_\x1b[37;75;0;0;0;1_", b"\x1b[39;77;0;1;0;1_",
     b"\x1b[112;59;0;1;0;1_"),  # Windows Terminal in win32-input-mode (press and release)
])
async def test_client_keys_move_the_cursor_and_open_help_at_a_real_table(
        left: bytes, right: bytes, help_key: bytes) -> None:
    async with table_on_driver() as (app, driver):
        screen = app.table_screen
        assert screen is not None
        start = screen.ui.cursor
        driver.feed(left)
        await until(lambda: screen.ui.cursor != start, what="the cursor to move left")
        moved = screen.ui.cursor
        driver.feed(b"\x1b[N" + right)  # an SCO F2 first: dropped, the key after it read
        await until(lambda: screen.ui.cursor != moved, what="the cursor to move right")
        assert screen.ui.cursor == start
        driver.feed(help_key)
        await until(lambda: isinstance(app.screen, HelpScreen), what="the help screen")


async def test_keys_over_ssh_from_putty_and_the_windows_console(server: MahjongServer) -> None:
    """PuTTY's defaults (TERM=xterm, F1 as ESC[11~, Home ESC[1~) and the Windows console's
    (F1 ESC OP), typed into a real session: the table's cursor moves, help opens."""
    c = PtyClient(80, 24)
    await c.connect(server.port, "putty", new_key(), command="join keys1 --rules gejiu",
                    term="xterm")
    await c.wait_for("press S to start")
    c.send("s")
    t = server.registry.tables["keys1"]
    await until(lambda: t.game is not None, what="the start key")
    await c.wait_for("个旧")
    c.send(b"\x1b[11~")  # PuTTY's F1
    await c.wait_for("Keys 按键")
    c.send(b"\x1b")
    await c.wait_for("个旧")
    c.send(b"\x1bOP")  # the Windows console's F1
    await c.wait_for("Keys 按键")
    await c.close()
