"""Glyph tiles where the terminal can draw them (issue 53, glyph tiles): tmux and many terminals
draw the mahjong tiles two cells wide, shifting every border, and a VT needs ASCII whatever
face was saved. The session's probe asks after a glyph tile as it asks after an ambiguous
character (``tui.compat.ambiwidth``); the face falls back where the terminal cannot show the
one chosen, and says so once a session, keeping the saved choice."""

from __future__ import annotations

import asyncio
from typing import Any

from net.front.remote_app import RemoteApp
from net.front.server import MahjongServer
from net.front.session import Session
from testkit.ssh import PtyClient, new_key
from tests.support.waiting import until
from tui.compat.ambiwidth import PROBE, glyph_cells, probe_answers
from tui.settings import Settings
from tui.view.faces import Face


def session_of(server: MahjongServer, name: str) -> Session:
    for session in server.sessions:
        account = session.conn.account
        if account is not None and account.nickname.startswith(name):
            return session
    raise AssertionError(f"no session for {name}")


def notes(app: Any) -> list[str]:
    """The app's notifications shown now (Textual keeps them in ``_notifications``)."""
    return [str(n.message) for n in app._notifications]


async def saved(server: MahjongServer, name: str, key: Any, settings: dict[str, Any]) -> None:
    """An account for ``key`` (a first visit), with ``settings`` kept for it."""
    first = PtyClient(80, 24)
    await first.connect(server.port, name, key, command="join first-" + name)
    await first.wait_for("S / Enter")
    account = session_of(server, name).conn.account
    assert account is not None
    await first.close()
    server.store.save_settings(account.id, settings)
    await until(lambda: not server.sessions, 5.0, "the first session to end")


async def table_of(server: MahjongServer, client: PtyClient, name: str) -> tuple[Session,
                                                                                   RemoteApp]:
    await client.wait_for("S / Enter")
    session = session_of(server, name)
    app = session.app
    assert isinstance(app, RemoteApp)
    return session, app


def test_the_probe_asks_after_a_glyph_tile_too() -> None:
    assert PROBE.count("\x1b[6n") == 2 and "\U0001f007" in PROBE
    assert probe_answers(b"a\x1b[3;2Rb\x1b[3;3Rc") == ([2, 3], b"abc")
    assert probe_answers(b"\x1b[3;2R\x1b[3;3R", 1) == ([2], b"\x1b[3;3R")
    assert probe_answers(b"\x1b[A") == ([], b"\x1b[A")
    assert [glyph_cells(c) for c in (2, 3, 1)] == [1, 2, 0]


def test_the_face_shown_for_the_one_chosen() -> None:
    s = Settings()
    assert [s.face_shown(f) for f in Face] == list(Face)  # a terminal that did not say
    s.glyph_cells = 1
    assert s.face_shown(Face.GLYPH) is Face.GLYPH
    s.glyph_cells = 2
    assert s.face_shown(Face.GLYPH) is Face.CJK
    assert s.next_usable(Face.GLYPH) is Face.ASCII  # the face key passes over it
    s.tiles = "glyph"
    assert s.face_fallback() == "face_glyph_wide"
    s.ascii_only = True
    assert [s.face_shown(f) for f in Face] == [Face.ASCII] * 3
    assert s.face_fallback() == "face_ascii_only"
    s.tiles = "ascii"
    assert s.face_fallback() is None


async def test_a_terminal_drawing_glyph_tiles_wide_gets_cjk_tiles(server: MahjongServer) -> None:
    key = new_key()
    await saved(server, "tmuxer", key, {"tiles": "glyph"})
    client = PtyClient(80, 24, tiles_wide=True)
    await client.connect(server.port, "tmuxer", key, command="join gw --rules gejiu")
    session, app = await table_of(server, client, "tmuxer")
    assert session.glyph_cells == 2
    assert app.face is Face.CJK
    assert notes(app) == []  # said on the table, not over the waiting screen
    client.send("S")  # computer players fill the seats: the table shows
    await until(lambda: any("two cells wide" in n for n in notes(app)), 5.0, "the note")
    assert app.settings.tiles == "glyph"  # the saved choice is kept for other terminals
    await client.close()


async def test_a_terminal_drawing_glyph_tiles_in_one_cell_gets_them(
        server: MahjongServer) -> None:
    key = new_key()
    await saved(server, "glyphy", key, {"tiles": "glyph"})
    client = PtyClient(80, 24)
    await client.connect(server.port, "glyphy", key, command="join gn --rules gejiu")
    session, app = await table_of(server, client, "glyphy")
    assert session.glyph_cells == 1
    assert app.face is Face.GLYPH
    assert notes(app) == []
    await client.close()


async def test_a_vt100_gets_ascii_whatever_was_saved_and_is_told_once(
        server: MahjongServer) -> None:
    key = new_key()
    await saved(server, "decvt", key, {"tiles": "glyph"})
    client = PtyClient(80, 24)
    await client.connect(server.port, "decvt", key, command="lobby", term="vt100")
    await client.wait_for("welcome")
    client.send("vt1 gejiu\r\r")
    session, app = await table_of(server, client, "decvt")
    assert app.face is Face.ASCII
    client.send("S")  # computer players fill the seats: the table shows, and says it
    await until(lambda: any("ASCII only" in n for n in notes(app)), 5.0, "the note")
    client.send("qq")  # back to the lobby, then another table: not said again
    await client.wait_for("welcome")
    await asyncio.sleep(0.2)
    client.send("vt2 gejiu\r\r")
    await client.wait_for("S / Enter")
    await until(lambda: isinstance(session.app, RemoteApp) and session.app is not app, 5.0,
                "the second table")
    second = session.app
    assert isinstance(second, RemoteApp) and second.face is Face.ASCII
    client.send("S")
    await until(lambda: second.table_screen is not None, 5.0, "the second table's screen")
    await asyncio.sleep(0.3)
    assert not any("ASCII only" in n for n in notes(second))
    await client.close()


async def test_the_settings_screen_keeps_a_face_the_terminal_cannot_show_off(
        tmp_path: Any) -> None:
    """Glyph tiles picked on a terminal that draws them wide: said, and the face shown stays
    (and stays pressed)."""
    from textual.widgets import RadioButton

    from host.local import LocalTable
    from tui.apps.app import MahjongApp
    from tui.apps.screens import SettingsScreen

    settings = Settings.load(tmp_path / "settings.json")
    settings.tiles, settings.glyph_cells = "cjk", 2
    app = MahjongApp(LocalTable(bot_delay=0, timers=False), settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.show_settings()
        for _ in range(3):
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        screen.query_one("#tiles-glyph", RadioButton).value = True
        for _ in range(3):
            await pilot.pause()
        assert app.face is Face.CJK and settings.tiles == "cjk"
        assert screen.query_one("#tiles-cjk", RadioButton).value
        assert not screen.query_one("#tiles-glyph", RadioButton).value
        assert any("cannot show glyph" in n for n in notes(app))
        screen.query_one("#tiles-ascii", RadioButton).value = True
        for _ in range(3):
            await pilot.pause()
        assert app.face is Face.ASCII and settings.tiles == "ascii"
