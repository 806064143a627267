"""What a client's terminal can show (``net/front/terminals.py``): the colours per TERM and
COLORTERM of the common clients; a terminal that cannot draw the table gets a message in both
languages over SSH (pointing to --plain); a VT100 and the Linux console get the table in ASCII
faces."""

from __future__ import annotations

import pytest

import tui.apps.app
from net.front.server import MahjongServer
from net.front.terminals import TermClass, color_system, dumb_text, shows_cjk, term_class
from testkit.ssh import PtyClient, new_key
from tests.support.waiting import until
from tui.view.faces import Face


@pytest.mark.parametrize(("client", "term", "colorterm", "expected"), [
    ("PuTTY, defaults", "xterm", "", "standard"),
    ("PuTTY, terminal type xterm-256color", "xterm-256color", "", "256"),
    ("Xshell / MobaXterm, defaults", "xterm", "", "standard"),
    ("Windows Terminal / the Windows console (OpenSSH)", "xterm-256color", "", "256"),
    ("macOS Terminal.app", "xterm-256color", "", "256"),
    ("iTerm2 with SendEnv COLORTERM", "xterm-256color", "truecolor", "truecolor"),
    ("GNOME Terminal with SendEnv COLORTERM", "xterm-256color", "truecolor", "truecolor"),
    ("a 24-bit terminfo entry", "xterm-direct", "", "truecolor"),
    ("COLORTERM=24bit", "xterm-256color", "24bit", "truecolor"),
    ("tmux", "tmux-256color", "", "256"),
    ("tmux, older default", "screen-256color", "", "256"),
    ("GNU screen", "screen", "", "standard"),
    ("rxvt-unicode", "rxvt-unicode-256color", "", "256"),
    ("the Linux console", "linux", "", "standard"),
    ("the Linux console, COLORTERM set by mistake", "linux", "truecolor", "standard"),
    ("a VT100", "vt100", "", "standard"),
    ("a VT220 with COLORTERM", "vt220", "truecolor", "standard"),
    ("upper case", "XTERM-256COLOR", "TrueColor", "truecolor"),
])
def test_colours_follow_the_client(client: str, term: str, colorterm: str,
                                   expected: str) -> None:
    assert color_system(term, colorterm) == expected, client


def test_terminal_classes() -> None:
    for term in ("dumb", "DUMB", "unknown", "", "  ", "vt52", "emacs", "network"):
        assert term_class(term) is TermClass.DUMB, term
    for term in ("vt100", "vt102", "vt220", "vt320-w", "ansi"):
        assert term_class(term) is TermClass.VT, term
    for term in ("xterm", "xterm-256color", "linux", "screen", "tmux-256color", "putty",
                 "vt100-xterm", "rxvt", "cygwin", "ms-terminal", "alacritty"):
        assert term_class(term) is TermClass.FULL, term


def test_where_cjk_is_expected() -> None:
    for term in ("xterm", "xterm-256color", "screen", "tmux-256color", "putty", "ms-terminal"):
        assert shows_cjk(term), term
    for term in ("linux", "LINUX", "linux-16color", "cons25", "vt100", "vt220", "dumb"):
        assert not shows_cjk(term), term


def test_the_message_names_the_terminal_safely() -> None:
    text = dumb_text("dumb\x1b[31m")
    assert "TERM=dumb31m" in text and "\x1b" not in text
    assert "--plain" in text and "TERM=xterm-256color" in text and "此终端" in text


@pytest.mark.parametrize("term", ["dumb", "unknown", "vt52"])
async def test_a_dumb_terminal_gets_a_message_not_a_broken_screen(
        server: MahjongServer, term: str) -> None:
    c = PtyClient(80, 24)
    await c.connect(server.port, "dumbo", new_key(), command="join dumb1", term=term)
    await until(lambda: c.exit_status is not None and b"--plain" in c.raw,
                what="the message and the session's end")
    assert c.exit_status == 1
    raw = bytes(c.raw).decode()
    assert "cannot draw the mahjong table" in raw and "无法显示牌桌" in raw
    assert "--plain" in raw
    assert "\x1b[?1049h" not in raw  # no full-screen app was started
    assert "dumb1" not in server.registry.tables  # nor a table opened
    await c.close()


@pytest.mark.parametrize("term", ["vt100", "linux"])
async def test_a_vt100_or_the_linux_console_gets_the_table_in_ascii_faces(
        server: MahjongServer, monkeypatch: pytest.MonkeyPatch, term: str) -> None:
    monkeypatch.setattr(tui.apps.app, "default_face", lambda: Face.CJK)  # whatever our locale
    c = PtyClient(80, 24)
    await c.connect(server.port, "deccie", new_key(), command=f"join {term} --rules gejiu",
                    term=term)
    await c.wait_for("press S to start")
    c.send("s")
    t = server.registry.tables[term]
    await until(lambda: t.game is not None, what="the start key")
    text = await c.wait_for(lambda s: "Hand 1/" in s)
    hand_rows = "\n".join(text.splitlines()[-6:])  # the own hand and its keys
    assert not any(ch in hand_rows for ch in "萬筒条條"), hand_rows
    assert any(f"{n}{s}" in hand_rows for n in "123456789" for s in "mps"), hand_rows
    await c.close()
