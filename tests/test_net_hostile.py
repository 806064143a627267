"""A hostile stranger against a real server: every quantity a client controls is bounded
(net/limits.py), and a keyless name belongs to whoever holds its passphrase."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from net.front.server import MahjongServer
from net.front.session import Session
from net.limits import KEYS_KEPT, Limits, early_drop
from testkit.ssh import (
    LoginClient,
    MakeServer,
    PtyClient,
    fast_config,
    new_key,
    run_command,
    start_server,
)
from tests.support.waiting import toast_says, until


def app_sessions(srv: MahjongServer) -> list[Session]:
    return [s for s in srv.sessions if s.app is not None]


async def serving(srv: MahjongServer, name: str = "check") -> None:
    """The server still serves a newcomer: a key login, a command, its answer."""
    r = await run_command(srv.port, name, "help", key=new_key())
    assert r.exit_status == 0 and "join NAME" in str(r.stdout)


# --- the terminal ---------------------------------------------------------------------------
async def test_a_huge_terminal_is_clamped_at_the_request_and_every_resize(
        server: MahjongServer) -> None:
    limits = server.limits
    c = PtyClient(100, 30)
    c.screen.columns, c.screen.lines = 65535, 65535  # what the pty request asks for
    await c.connect(server.port, "wide", new_key(), command="lobby")
    await until(lambda: app_sessions(server), what="the session")
    session = app_sessions(server)[0]
    assert session.size == (limits.max_columns, limits.max_rows)
    await until(lambda: session.app is not None and session.app.size.width > 0)
    assert tuple(session.app.size) == (limits.max_columns, limits.max_rows)
    assert c.chan is not None
    c.chan.change_terminal_size(4294967295, 4294967295)
    await until(lambda: session.size == (limits.max_columns, limits.max_rows)
                and session.driver is not None
                and session.driver.size == (limits.max_columns, limits.max_rows))
    c.chan.change_terminal_size(90, 25)
    await until(lambda: tuple(session.app.size) == (90, 25), what="an ordinary resize")
    await c.close()


# --- environment ------------------------------------------------------------------------------
async def test_only_a_few_short_known_environment_variables_are_kept(
        server: MahjongServer) -> None:
    env = {"LANG": "zh_CN.UTF-8", "COLORTERM": "truecolor", "LC_ALL": "y" * 30_000}
    env.update({f"JUNK{i}": "x" * 30_000 for i in range(200)})
    env["LC_CTYPE"] = "C"  # known and short, but past the requests one channel may make
    c = PtyClient(80, 24)
    await c.connect(server.port, "envy", new_key(), command="lobby", env=env)
    await c.wait_for("welcome")
    session = app_sessions(server)[0]
    assert session.chan is not None
    kept = session.chan.get_environment()
    assert set(kept) == {"LANG", "COLORTERM"}  # LC_ALL was too long, JUNK* unknown
    await c.close()


# --- authentication -----------------------------------------------------------------------------
class _WrongForever(LoginClient):
    """A keyless client that answers every prompt wrongly and asks again, for ever."""

    def kbdint_challenge_received(self, name: str, instructions: str, lang: str,
                                  prompts: Any) -> list[str]:
        self.challenges += 1
        return ["wrong-guess" for _ in prompts]


async def test_every_failed_attempt_counts(server: MahjongServer) -> None:
    await run_command(server.port, "guarded", "help", passphrase="s3cret-phrase")
    client = _WrongForever()
    with pytest.raises((asyncssh.Error, OSError)):
        await asyncio.wait_for(asyncssh.connect(
            "127.0.0.1", server.port, username="guarded", known_hosts=None, client_keys=None,
            agent_path=None, client_factory=lambda: client, preferred_auth="keyboard-interactive",
        ), 20)
    assert 1 <= client.challenges <= server.limits.max_auth_tries + 1


async def test_a_keyless_name_is_kept_by_its_passphrase(server: MahjongServer) -> None:
    first = await run_command(server.port, "mei", "help", passphrase="plum-blossom")
    assert first.exit_status == 0
    account = server.gate.keyless.lookup("mei")
    assert account.state.value == "protected"
    with pytest.raises(asyncssh.PermissionDenied):
        await run_command(server.port, "mei", "help", passphrase="wrong-one")
    again = await run_command(server.port, "mei", "help", passphrase="plum-blossom")
    assert again.exit_status == 0


async def test_a_second_keyless_connection_never_takes_a_seated_players_seat(
        server: MahjongServer) -> None:
    owner = PtyClient(80, 24)
    await owner.connect(server.port, "lin", command="join heist", passphrase="jade-rabbit")
    await owner.wait_for("press S")
    owner.send("S")  # computer players fill the table: the hand starts
    table = server.registry.tables["heist"]
    await until(lambda: table.game is not None and table.game.hand is not None)
    seat = next(i for i, s in enumerate(table.seats) if s.clients)
    me = table.seats[seat].occupant
    assert me is not None and me.name == "lin"
    # a stranger with the same name and no passphrase: a guest under another name
    thief = PtyClient(80, 24)
    await thief.connect(server.port, "lin", command="join heist")
    await until(lambda: len(table.clients()) == 2, what="the stranger at the table")
    stranger = next(c for c in table.clients() if c.seat_index != seat)
    assert stranger.account.nickname != "lin" and stranger.account.id != me.account_id
    assert table.seats[seat].clients and all(
        c.account.id == me.account_id for c in table.seats[seat].clients)
    # and a stranger guessing is refused
    with pytest.raises(asyncssh.PermissionDenied):
        await run_command(server.port, "lin", "help", passphrase="guess-guess")
    await thief.close()
    await owner.close()


async def test_guests_are_new_each_visit(server: MahjongServer) -> None:
    a = PtyClient(80, 24)
    await a.connect(server.port, "visitor", command="join gt")
    b = PtyClient(80, 24)
    await b.connect(server.port, "visitor", command="join gt")
    table = None
    await until(lambda: "gt" in server.registry.tables
                and sum(1 for s in server.registry.tables["gt"].seats if s.clients) == 2)
    table = server.registry.tables["gt"]
    names = sorted(s.occupant.name for s in table.seats if s.occupant is not None)
    assert names == ["visitor~", "visitor~2"]  # a guest's mark: no real name is taken
    await a.close()
    await b.close()


# --- connections ---------------------------------------------------------------------------------
async def test_silent_connections_do_not_lock_out_their_address(tmp_path: Path) -> None:
    limits = Limits(unauth_per_address=5, unauth_start=1000, unauth_full=1000)
    srv = await start_server(fast_config(tmp_path, limits=limits))
    socks = []
    try:
        for _ in range(40):  # silent TCP connects, never a byte of SSH
            socks.append(await asyncio.open_connection("127.0.0.1", srv.port))
        await until(lambda: srv.gate.unauth_total <= 5, what="the oldest silent ones dropped")
        await serving(srv)  # a real client from the same address gets in
        assert srv.gate.unauth_total <= 5
    finally:
        for _, w in socks:
            w.close()
        await srv.close()


async def test_waiting_connections_have_a_global_cap(tmp_path: Path) -> None:
    limits = Limits(unauth_per_address=1000, unauth_start=5, unauth_rate=100, unauth_full=10)
    srv = await start_server(fast_config(tmp_path, limits=limits))
    socks = []
    try:
        for _ in range(30):
            socks.append(await asyncio.open_connection("127.0.0.1", srv.port))
        await asyncio.sleep(0.2)
        assert srv.gate.unauth_total <= 10
    finally:
        for _, w in socks:
            w.close()
        await srv.close()


def test_early_drop_rises_from_start_to_full() -> None:
    import random

    limits = Limits(unauth_start=10, unauth_rate=30, unauth_full=20)
    rng = random.Random(1)
    assert not any(early_drop(9, limits, rng) for _ in range(200))
    assert all(early_drop(20, limits, rng) for _ in range(200))
    low = sum(early_drop(10, limits, rng) for _ in range(2000)) / 2000
    high = sum(early_drop(18, limits, rng) for _ in range(2000)) / 2000
    assert 0.2 < low < 0.4 and 0.8 < high < 0.95


async def test_a_connection_must_log_in_within_the_grace_time(tmp_path: Path) -> None:
    srv = await start_server(fast_config(tmp_path, limits=Limits(login_grace=0.5)))
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
        banner = await asyncio.wait_for(reader.readline(), 5)
        assert banner.startswith(b"SSH-2.0-mahjong-ssh") and b"AsyncSSH" not in banner
        rest = await asyncio.wait_for(reader.read(), 5)  # closed by the server: EOF
        assert rest is not None
        await until(lambda: srv.gate.connections == 0, what="the silent connection closed")
        writer.close()
    finally:
        await srv.close()


async def test_a_logged_in_connection_without_a_session_is_closed(tmp_path: Path) -> None:
    srv = await start_server(fast_config(tmp_path, limits=Limits(channel_grace=0.5)))
    try:
        conn = await asyncssh.connect("127.0.0.1", srv.port, username="lurk", known_hosts=None,
                                      client_keys=[new_key()], agent_path=None)
        await asyncio.wait_for(conn.wait_closed(), 5)
        assert srv.gate.connections == 0
    finally:
        await srv.close()


async def test_sessions_per_connection_and_per_account(tmp_path: Path) -> None:
    srv = await start_server(fast_config(tmp_path, limits=Limits(max_sessions=2,
                                                                 sessions_per_account=2)))
    key = new_key()
    try:
        conn = await asyncssh.connect("127.0.0.1", srv.port, username="many", known_hosts=None,
                                      client_keys=[key], agent_path=None)
        chans = []
        for _ in range(2):
            chan, _ = await conn.create_session(asyncssh.SSHClientSession, "lobby",
                                                term_type="xterm", term_size=(80, 24))
            chans.append(chan)
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_session(asyncssh.SSHClientSession, "lobby", term_type="xterm",
                                      term_size=(80, 24))
        await until(lambda: len(app_sessions(srv)) == 2)
        other = PtyClient(80, 24)  # the same key on another connection: a third session
        await other.connect(srv.port, "many", key, command="lobby")
        await other.wait_for("sessions open already")
        await other.close()
        conn.close()
    finally:
        await srv.close()


async def test_a_connection_cannot_flood_the_log(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    limits = Limits(log_lines_per_minute=100_000)  # this connection's own budget alone
    server = await start_server(fast_config(tmp_path, limits=limits))
    try:
        conn = await asyncssh.connect("127.0.0.1", server.port, username="noisy",
                                      known_hosts=None, client_keys=[new_key()],
                                      agent_path=None)
        with caplog.at_level(logging.INFO, logger="net.front.server"):
            for i in range(limits.log_lines_per_connection + 40):
                with contextlib.suppress(asyncssh.Error):
                    await conn.run(f"nonsense-{i}", check=False)
        conn.close()
        mine = [r for r in caplog.records if r.name == "net.front.server"]
        assert (limits.log_lines_per_connection <= len(mine)
                <= limits.log_lines_per_connection + 2)
        await serving(server)
    finally:
        await server.close()


def test_limits_from_flags_and_a_file(tmp_path: Path) -> None:
    import argparse

    from net.serve import limits_from_args

    path = tmp_path / "limits.toml"
    path.write_text("[limits]\nmax_columns = 200\nenv_names = ['LANG']\n", encoding="utf-8")
    args = argparse.Namespace(limits=str(path), limit=["max_rows=50", "chat_per_minute=5"],
                              max_per_address=None)
    limits = limits_from_args(args)
    assert (limits.max_columns, limits.max_rows, limits.chat_per_minute) == (200, 50, 5)
    assert limits.env_names == ("LANG",)
    with pytest.raises(ValueError, match="unknown limit"):
        limits_from_args(argparse.Namespace(limits=None, limit=["max_colums=3"],
                                            max_per_address=None))
    with pytest.raises(ValueError, match="not a int"):
        limits_from_args(argparse.Namespace(limits=None, limit=["max_rows=many"],
                                            max_per_address=None))
    path.write_text("[limits\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not TOML"):
        limits_from_args(argparse.Namespace(limits=str(path), limit=None,
                                            max_per_address=None))


# --- stopping ------------------------------------------------------------------------------------
async def test_sigterm_tells_every_session_saves_and_exits_at_once(tmp_path: Path) -> None:
    import os
    import re
    import signal
    import sys

    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cli.main", "serve", "--data", str(tmp_path), "--port", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        cwd=str(Path(__file__).resolve().parents[1]))
    assert proc.stdout is not None
    try:
        port = 0
        while not port:
            line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
            assert line, "the server ended before serving"
            m = re.search(r"serving on 127\.0\.0\.1:(\d+)", line)
            port = int(m.group(1)) if m else 0
        c = PtyClient(80, 24)
        await c.connect(port, "stayer", new_key(), command="join stopping")
        await c.wait_for("press S")
        c.send("S")
        await c.wait_for("Wall")
        started = time.monotonic()
        os.kill(proc.pid, signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 10)
        took = time.monotonic() - started
        assert code == 0
        assert took < 2.0, f"SIGTERM took {took:.2f} s"
        await asyncio.wait_for(c.closed.wait(), 5)
        assert b"The server is stopping" in bytes(c.raw)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    # the game was saved: a server on the same folder has the table in play
    srv = await start_server(fast_config(tmp_path))
    try:
        table = srv.registry.tables["stopping"]
        assert table.game is not None and table.hands_started == 1
    finally:
        await srv.close()


def test_window_counts_forget_and_saturate() -> None:
    from net.limits import WindowCount

    now = [0.0]
    w = WindowCount(60.0, clock=lambda: now[0], cap=50)
    for _ in range(80):
        w.add("a")
    assert w.count("a") == 50 and w.count("b") == 0
    now[0] = 59.0
    w.add("a")
    now[0] = 61.0
    assert w.count("a") == 1
    for i in range(KEYS_KEPT - 1):  # a flood from many addresses stays bounded: "a" is
        w.add(f"k{i}")  # remembered among KEYS_KEPT addresses,
    assert w.count("a") == 1
    w.add("one more")  # and forgotten (the oldest) rather than one more kept
    assert w.count("a") == 0


async def test_an_address_that_reconnects_too_fast_waits(tmp_path: Path) -> None:
    srv = await start_server(fast_config(tmp_path, limits=Limits(connects_per_address_minute=5)))
    try:
        for _ in range(6):
            _, w = await asyncio.open_connection("127.0.0.1", srv.port)
            w.close()
        with pytest.raises((asyncssh.Error, OSError)):
            await run_command(srv.port, "fast", "help", key=new_key())
    finally:
        await srv.close()
    # an address that logged in lately is not held back
    srv = await start_server(fast_config(tmp_path, limits=Limits(connects_per_address_minute=3)))
    try:
        for _ in range(6):
            await serving(srv)
    finally:
        await srv.close()


async def test_a_flood_of_new_connections_cannot_flood_the_log(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    limits = Limits(connects_per_address_minute=1, log_lines_per_minute=20)
    srv = await start_server(fast_config(tmp_path, limits=limits))
    try:
        with caplog.at_level(logging.INFO, logger="net.front.server"):
            for _ in range(100):  # each refused, each a connection with a budget of its own
                _, w = await asyncio.open_connection("127.0.0.1", srv.port)
                w.close()
            await until(lambda: srv.gate.connections == 0, what="the refused connections closed")
        mine = [r for r in caplog.records if r.name == "net.front.server"]
        assert 5 <= len(mine) <= 6  # the burst (a quarter of a minute's lines), then nothing
    finally:
        await srv.close()


async def test_a_flood_of_tiny_packets_is_held_back_by_flow_control(
        server: MahjongServer) -> None:
    c = PtyClient(80, 24)
    await c.connect(server.port, "drip", new_key(), command="lobby")
    await c.wait_for("welcome")
    session = app_sessions(server)[0]
    assert c.chan is not None
    rate = server.limits.input_packets_per_second
    for _ in range(3 * rate):  # one SSH packet each, at once
        c.chan.write(b"\x1b[9")
    await until(lambda: session.throttled > 0, what="the channel held back")
    started = time.monotonic()
    await until(lambda: c.chan is not None and c.chan.get_write_buffer_size() == 0, 30,
                "the flood delivered at the allowed rate")
    end = time.monotonic() + 20  # typed again while the driver still sheds the flood
    while "calm" not in c.text():
        assert time.monotonic() < end, c.text()
        c.send("\x15calm")
        with contextlib.suppress(AssertionError):
            await c.wait_for("calm", 0.5)
    assert time.monotonic() - started > 0.5  # 3 s of packets were not taken at once
    await c.close()


async def test_a_busy_chat_does_not_cover_the_table(make_server: MakeServer) -> None:
    """Chat toasts come at most one every few seconds, the lines between them counted in
    it; a line over the rate is refused to its sender, who is told."""
    # the default bursts, refilled once a minute: a slow run earns no extra line meanwhile
    server = await make_server(limits=replace(Limits(), chat_per_minute=1,
                                              chat_per_table_minute=1))
    player = PtyClient(80, 24)
    await player.connect(server.port, "reader", new_key(), command="join loud")
    await player.wait_for("press S")
    spammers = []
    for i in range(2):
        c = PtyClient(80, 24)
        await c.connect(server.port, f"loud{i}", new_key(), command="watch loud")
        await c.wait_for("spectators 旁观: " + str(i + 1))
        spammers.append(c)
    table = server.registry.tables["loud"]
    for n in range(6):  # 6 lines each: 5 within a sender's burst, the sixth refused
        for i, c in enumerate(spammers):
            c.send("/")
            await c.wait_for("Enter: send")
            c.send(f"spam{i}-{n}\r")
            await c.wait_for(lambda t: "Enter: send" not in t)
    await until(lambda: len(table.chat_log) == 10, what="ten lines said")
    await spammers[0].wait_for(toast_says("too many chat lines"))
    shown = player.text()
    assert sum("spam" in row for row in shown.splitlines()) <= 2, shown
    await player.wait_for(lambda t: "(+" in t and "spam" in t, 8)  # the rest counted
    for c in (*spammers, player):
        await c.close()
