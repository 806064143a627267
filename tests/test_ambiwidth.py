"""East Asian ambiguous width (``tui.compat.ambiwidth``): the probe at a session's start, the narrow
glyph set, the setting kept with the account, ``--ambiwidth`` for ``join`` / ``watch`` and
``play``, over real SSH sessions on test terminals that draw ambiguous characters wide
(``testkit.terminal.CjkScreen``) or narrow."""

from __future__ import annotations

import asyncio
import io
import os
import pty
import sys
import threading
import unicodedata

import pytest
from rich.cells import cell_len

from cli.main import build_parser
from net.commands import CommandError, parse_command
from net.front.remote_app import RemoteSettings
from net.front.server import MahjongServer
from net.front.session import Session
from testkit.ssh import PtyClient, new_key
from testkit.terminal import CjkScreen, cjk_width
from tests.support.waiting import until
from tui.compat.ambiwidth import (
    PROBE,
    PROBE_CHAR,
    REVERSE_SPACE,
    AmbiWidth,
    is_ambiguous,
    narrow_table,
    probe_answer,
    to_narrow,
)
from tui.settings import Settings

# --- the probe's answer and the glyph set ----------------------------------------------------


def test_the_probe_answer_says_wide_or_narrow_and_keeps_the_keys_around_it() -> None:
    assert probe_answer(b"\x1b[12;3R") == (True, b"")
    assert probe_answer(b"\x1b[1;2R") == (False, b"")
    assert probe_answer(b"ab\x1b[40;3Rc\r") == (True, b"abc\r")
    assert probe_answer(b"abc") == (None, b"abc")
    assert probe_answer(b"\x1b[A") == (None, b"\x1b[A")  # an arrow key is no answer
    assert unicodedata.east_asian_width(PROBE_CHAR) == "A" and PROBE.startswith("\r")


def test_every_ambiguous_character_has_a_narrow_replacement_of_one_cell() -> None:
    table = narrow_table()
    for code in range(0x80, 0x10000):
        ch = chr(code)
        if is_ambiguous(ch):
            assert code in table, hex(code)
    for code, text in table.items():
        if text == REVERSE_SPACE:
            continue
        assert len(text) == 1 and cell_len(text) == 1, (hex(code), text)
        assert unicodedata.east_asian_width(text) != "A" and cjk_width(text) == 1


def test_the_glyph_set_keeps_every_span_its_width_and_other_text_as_it_is() -> None:
    text = "╭──┤ 一万 │ ·→ × … ▶ █▁ \x1b[38;2;1;2;3m五筒\x1b[0m 中 A1 \U000f0001"
    narrow = to_narrow(text)
    assert not any(is_ambiguous(ch) for ch in narrow)
    assert "一万" in narrow and "五筒" in narrow and "\x1b[38;2;1;2;3m" in narrow
    assert narrow.startswith("+--+ 一万 | .► x . » ")
    assert REVERSE_SPACE in narrow  # a block keeps its colour: a reversed space
    plain = narrow.replace(REVERSE_SPACE, "#")
    assert cell_len(plain) == cell_len(text)
    assert sum(cjk_width(ch) for ch in plain if ch != "\x1b") == sum(
        max(cjk_width(ch), 0) for ch in plain if ch != "\x1b")
    assert to_narrow("plain ascii") == "plain ascii"


def test_the_setting_reads_auto_narrow_and_wide() -> None:
    assert AmbiWidth.parse("wide") is AmbiWidth.WIDE and AmbiWidth.parse("x") is None
    assert AmbiWidth.AUTO.wide(True) and not AmbiWidth.AUTO.wide(None)
    assert AmbiWidth.WIDE.wide(False) and not AmbiWidth.NARROW.wide(True)
    s = Settings.from_data({"ambiwidth": "wide"})
    assert s.ambiwidth == "wide" and s.ambiwide()
    assert Settings.from_data({"ambiwidth": "huge"}).ambiwidth == "auto"
    s = Settings()
    s.detected = True
    assert s.ambiwide()


def test_local_settings_keep_the_choice_not_the_detection(tmp_path) -> None:  # type: ignore[no-untyped-def]
    s = Settings.load(tmp_path / "s.json")
    s.ambiwidth, s.detected = "narrow", True
    s.save()
    again = Settings.load(tmp_path / "s.json")
    assert again.ambiwidth == "narrow" and again.detected is None
    assert "detected" not in (tmp_path / "s.json").read_text()


def test_remote_settings_keep_a_visit_value_only_once_picked() -> None:
    kept: list[dict[str, object]] = []
    s = RemoteSettings(saver=kept.append)
    s.kept_ambiwidth, s.ambiwidth, s.visit_ambiwidth = "auto", "wide", "wide"
    s.save()  # another setting changed: --ambiwidth wide lasts for this visit only
    assert kept[-1]["ambiwidth"] == "auto"
    s.ambiwidth = "narrow"  # picked in the settings screen: kept
    s.save()
    assert kept[-1]["ambiwidth"] == "narrow"
    s.save()
    assert kept[-1]["ambiwidth"] == "narrow"


def test_ambiwidth_on_the_command_lines() -> None:
    assert parse_command("join t --ambiwidth wide").ambiwidth == "wide"
    assert parse_command("join t --ambiwidth=narrow --lang zh").ambiwidth == "narrow"
    assert parse_command("watch t --ambiwidth wide").ambiwidth == "wide"
    assert parse_command("join t").ambiwidth is None
    assert parse_command("lobby --ambiwidth wide --lang zh").ambiwidth == "wide"
    assert parse_command("lobby --plain").ambiwidth is None
    with pytest.raises(CommandError, match="narrow or wide"):
        parse_command("join t --ambiwidth huge")
    args = build_parser().parse_args(["play", "--ambiwidth", "wide"])
    assert args.ambiwidth == "wide"
    assert build_parser().parse_args(["play"]).ambiwidth is None
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--ambiwidth", "huge"])


# --- over SSH --------------------------------------------------------------------------------


def session_of(server: MahjongServer, name: str) -> Session:
    for session in server.sessions:
        account = session.conn.account
        if account is not None and account.nickname.startswith(name):
            return session
    raise AssertionError(f"no session for {name}")


def ambiguous_on(client: PtyClient) -> set[str]:
    return {ch for ch in client.text() if is_ambiguous(ch)}


async def connect(server: MahjongServer, name: str, command: str, *, width: int = 80,
                  height: int = 24, ambiwide: bool = False, answers: bool = True,
                  key: object = None) -> PtyClient:
    client = PtyClient(width, height, ambiwide=ambiwide, answers=answers)
    await client.connect(server.port, name, key or new_key(), command=command)  # type: ignore[arg-type]
    return client


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
async def test_a_wide_terminal_is_found_and_its_lobby_and_table_line_up(
        server: MahjongServer, lang: str, size: tuple[int, int]) -> None:
    lobby = await connect(server, "wide", f"lobby --lang {lang}", width=size[0],
                          height=size[1], ambiwide=True)
    await lobby.wait_for(lambda t: "welcome" in t or "欢迎" in t)
    session = session_of(server, "wide")
    assert session.ambi_detected is True and session.ambiwide()
    screen = lobby.screen
    assert isinstance(screen, CjkScreen)
    await asyncio.sleep(0.2)  # a frame or two more
    assert screen.problems() == []
    assert PROBE_CHAR not in lobby.text()  # the probe erased
    # a new table from the lobby (Enter twice): the same session, the same width
    lobby.send("wt shangrao\r\r")
    await lobby.wait_for("S / Enter")
    await asyncio.sleep(0.2)
    assert screen.problems() == []  # the waiting room
    lobby.send("S")  # computer players fill the seats: the hand starts
    await lobby.wait_for(lambda t: "五" in t or "萬" in t or "万" in t, timeout=15)
    await asyncio.sleep(0.3)
    assert screen.problems() == []
    assert not ambiguous_on(lobby)
    await lobby.close()


async def test_the_lobby_told_wide_asks_nothing_and_draws_narrow_glyphs(
        server: MahjongServer) -> None:
    # a terminal that answers nothing, told by the command line that it draws them wide
    lobby = await connect(server, "told", "lobby --ambiwidth wide", ambiwide=True,
                          answers=False)
    await lobby.wait_for("welcome")
    session = session_of(server, "told")
    assert session.ambi_detected is None and session.ambiwide()
    await asyncio.sleep(0.2)
    screen = lobby.screen
    assert isinstance(screen, CjkScreen) and screen.problems() == []
    assert not ambiguous_on(lobby) and PROBE_CHAR not in lobby.text()
    await lobby.close()


async def test_a_narrow_terminal_is_found_and_drawn_as_before(server: MahjongServer) -> None:
    client = await connect(server, "narrow", "join nt --rules gejiu")
    await client.wait_for("S / Enter")
    session = session_of(server, "narrow")
    assert session.ambi_detected is False and not session.ambiwide()
    assert ambiguous_on(client)  # the rules and borders as they always were: │ ─ · …
    await client.close()


async def test_a_terminal_that_does_not_answer_is_taken_as_narrow(server: MahjongServer) -> None:
    client = await connect(server, "mute", "join mt", answers=False)
    await client.wait_for("S / Enter")
    session = session_of(server, "mute")
    assert session.ambi_detected is None and not session.ambiwide()
    assert ambiguous_on(client)
    await client.close()


@pytest.mark.parametrize(("command", "shown"), [("lobby", "welcome"),
                                               ("join st --rules gejiu", "S / Enter")])
async def test_an_answer_that_comes_late_redraws_the_whole_screen(
        server: MahjongServer, command: str, shown: str) -> None:
    """A slow link: the answer comes after the first frame; every row is drawn again."""
    client = await connect(server, "slow", command, ambiwide=True, answers=False)
    await client.wait_for(shown)
    await asyncio.sleep(0.3)  # the frames in flight
    session = session_of(server, "slow")
    assert session.ambi_detected is None
    screen = client.screen
    assert isinstance(screen, CjkScreen) and screen.problems()  # drawn for a narrow one
    rows = sum(1 for line in client.text().splitlines() if line.strip())
    screen.reset()
    screen.clear_record()
    client.send("\x1b[5;3R")  # where the probe's cursor was, on a wide terminal
    await until(lambda: session.ambi_detected is True, 5.0, "the late answer")
    await client.wait_for(lambda t: sum(1 for line in t.splitlines() if line.strip()) >= rows)
    await asyncio.sleep(0.3)
    assert screen.problems() == []
    assert not ambiguous_on(client)
    await client.close()


async def test_keys_typed_during_the_probe_are_kept(server: MahjongServer) -> None:
    """A player who types at once: the keys sent before the answer and after it reach the
    lobby's line in order, and the answer is not taken as keys."""
    client = PtyClient(80, 24, ambiwide=True, answers=False)
    await client.connect(server.port, "eager", new_key(), command="lobby")
    client.send("abc")
    client.send("\x1b[7;3Rdef")
    await client.wait_for("abcdef")
    session = session_of(server, "eager")
    assert session.ambi_detected is True
    await asyncio.sleep(0.2)
    assert isinstance(client.screen, CjkScreen) and client.screen.problems() == []
    assert "3R" not in client.text()
    await client.close()


async def test_the_choice_is_kept_with_the_account(server: MahjongServer) -> None:
    """A player's 'wide' kept with the key holds on a terminal that answers narrow (one
    that misreports); --ambiwidth narrow overrides it for one visit, and is not kept."""
    key = new_key()
    first = await connect(server, "keeper", "join kt", key=key)
    await first.wait_for("S / Enter")
    account = session_of(server, "keeper").conn.account
    assert account is not None
    await first.close()
    server.store.save_settings(account.id, {"ambiwidth": "wide"})
    again = await connect(server, "keeper", "join kt2", key=key)
    await again.wait_for("S / Enter")
    session = session_of(server, "keeper")
    assert session.ambi_detected is False and session.ambiwide()
    await until(lambda: not ambiguous_on(again), 5.0, "the narrow glyph set")
    await again.close()
    await until(lambda: not server.sessions, 5.0, "the session to end")
    told = await connect(server, "keeper", "join kt3 --ambiwidth narrow", key=key)
    await told.wait_for("S / Enter")
    session = session_of(server, "keeper")
    assert session.ambi_detected is None  # told: the terminal was not asked
    assert not session.ambiwide() and ambiguous_on(told)
    assert PROBE_CHAR.encode() + b"\x1b[6n" not in bytes(told.raw)
    await told.close()
    assert (server.store.load_settings(account.id) or {}).get("ambiwidth") == "wide"


# --- mahjong-ssh play: its own terminal ------------------------------------------------------


def _tty_answering(monkeypatch: pytest.MonkeyPatch, reply: bytes | None,
                   before: bytes = b"") -> threading.Thread:
    """This process's stdin and stdout made a pseudo-terminal whose other end (a thread)
    types ``before``, then answers the probe with ``reply`` (None: never)."""
    master, slave = pty.openpty()
    monkeypatch.setattr(sys, "stdin", os.fdopen(slave, "r", closefd=False))
    monkeypatch.setattr(sys, "stdout", os.fdopen(slave, "w", closefd=False))

    def terminal() -> None:
        seen = b""
        os.write(master, before)
        while b"\x1b[6n" not in seen:
            seen += os.read(master, 1024)
        assert PROBE.encode() in seen
        if reply is not None:
            os.write(master, reply)

    thread = threading.Thread(target=terminal, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(("reply", "wide"), [(b"\x1b[9;3R", True), (b"\x1b[9;2R", False),
                                             (None, None)])
def test_play_asks_its_own_terminal(monkeypatch: pytest.MonkeyPatch, reply: bytes | None,
                                    wide: bool | None) -> None:
    from tui.compat.local_terminal import probe_tty

    thread = _tty_answering(monkeypatch, None if reply is None else b"k" + reply + b"\r",
                            before=b"")
    found, early = probe_tty(timeout=0.3 if reply is None else 5.0)
    thread.join(5)
    assert found is wide
    if reply is not None:
        assert early == b"k\r"  # keys typed meanwhile, the answer taken out


def test_play_without_a_terminal_does_not_ask(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui.compat.local_terminal import probe_tty

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert probe_tty() == (None, b"")


async def test_plays_driver_writes_the_narrow_glyph_set_and_gives_the_early_keys() -> None:
    from textual.drivers.headless_driver import HeadlessDriver

    from tui.compat.local_terminal import narrowing_driver

    class Recording(HeadlessDriver):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            self.out: list[str] = []
            self.got: list[object] = []

        def write(self, data: str) -> None:
            self.out.append(data)

        def process_message(self, message: object) -> None:  # type: ignore[override]
            self.got.append(message)

    class App:  # what a driver needs of an app here
        async def _post_message(self, message: object) -> bool:
            return True

    driver = narrowing_driver(Recording, wide=True, early=b"ab")(App(), debug=False,
                                                                 mouse=False, size=(80, 24))
    driver.write("│ 五筒 ·")
    assert driver.out == ["| 五筒 ."]  # type: ignore[attr-defined]
    driver.ambiwide = False  # type: ignore[attr-defined]
    driver.write("│")
    assert driver.out[-1] == "│"  # type: ignore[attr-defined]
    driver.start_application_mode()
    keys = [getattr(m, "key", None) for m in driver.got]  # type: ignore[attr-defined]
    assert keys[-2:] == ["a", "b"]
