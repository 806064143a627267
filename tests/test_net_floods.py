"""Floods of SSH messages a hostile client can send, each counted against a rate
(net/limits.py, "SSH messages"), a total cap on sessions, and every log line through the
server's budget, the event loop's own included: each against a real server on port 0."""

from __future__ import annotations

import asyncio
import logging
import socket
import struct
from collections.abc import Iterator
from typing import Any

import asyncssh
import asyncssh.auth
import asyncssh.channel
import asyncssh.connection
import pytest
from asyncssh.constants import MSG_GLOBAL_REQUEST, MSG_IGNORE, MSG_REQUEST_SUCCESS
from asyncssh.packet import Boolean, String
from textual.app import App

from net.front import compat_asyncssh
from net.front.login import Connection
from net.front.server import MahjongServer
from net.front.session import Session
from net.limits import Limits, LogGate
from testkit.ssh import MakeServer, PtyClient, new_key, run_command
from tests.support.waiting import until
from tui.compat import internals


def app_sessions(srv: MahjongServer) -> list[Session]:
    return [s for s in srv.sessions if s.app is not None]


async def serving(srv: MahjongServer, name: str = "check") -> None:
    """The server still serves a newcomer: a key login, a command, its answer."""
    r = await run_command(srv.port, name, "help", key=new_key())
    assert r.exit_status == 0 and "join NAME" in str(r.stdout)


async def key_connection(port: int, name: str) -> asyncssh.SSHClientConnection:
    return await asyncssh.connect("127.0.0.1", port, username=name, known_hosts=None,
                                  client_keys=[new_key()], agent_path=None)


def server_side(srv: MahjongServer) -> list[Connection]:
    """The server's connection objects, found through its sessions' and the waiting ones."""
    conns = {s.conn for s in srv.sessions}
    for waiting in srv.gate.unauth.values():
        conns.update(waiting)
    return list(conns)


# --- window changes ---------------------------------------------------------------------------
async def test_a_storm_of_window_changes_costs_a_redraw_an_interval(
        make_server: MakeServer) -> None:
    """100,000 window changes on a spectator's session once drew 11.6 MB of redraws: the
    last size of a storm wins, applied at most ``resizes_per_second``."""
    limits = Limits(channel_requests_burst=100_000)  # the storm is not closed here
    server = await make_server(limits=limits)
    c = PtyClient(80, 24)
    await c.connect(server.port, "stormy", new_key(), command="lobby")
    await c.wait_for("welcome")
    session = app_sessions(server)[0]
    driver = session.driver
    assert driver is not None and c.chan is not None
    applied: list[tuple[int, int]] = []
    real = driver.resize

    def counted(width: int, height: int) -> None:
        applied.append((width, height))
        real(width, height)

    driver.resize = counted  # type: ignore[method-assign]
    storm = 1000
    for i in range(storm):
        c.chan.change_terminal_size(81 + i % 50, 25 + i % 20)
    c.chan.change_terminal_size(100, 30)  # the last one wins
    await until(lambda: session.size == (100, 30), 30, "the storm received")
    await until(lambda: applied and applied[-1] == (100, 30), 10, "the last size applied")
    assert len(applied) <= storm // 10, f"{len(applied)} of {storm + 1} sizes redrawn"
    await until(lambda: session.app is not None and tuple(session.app.size) == (100, 30))
    c.resize(100, 30)
    await c.wait_for("welcome")
    await c.close()


async def test_a_flood_of_channel_requests_closes_the_connection(
        server: MahjongServer) -> None:
    c = PtyClient(80, 24)
    await c.connect(server.port, "resizer", new_key(), command="lobby")
    await c.wait_for("welcome")
    assert c.chan is not None
    for i in range(5000):
        c.chan.change_terminal_size(81 + i % 50, 25 + i % 20)
    await asyncio.wait_for(c.closed.wait(), 30)
    await until(lambda: not server.sessions, what="the session ended")
    await serving(server)


async def test_an_app_whose_client_left_while_it_started_ends_quietly(
        server: MahjongServer) -> None:
    """A connection closed for a flood while its session's app was starting: Textual asks for
    the driver after the channel is gone. It gets one that takes nothing, and the app ends;
    it once failed there, and Textual printed the traceback with its locals (a tenth of a
    second of the loop each, outside the log budget)."""
    c = PtyClient(80, 24)
    await c.connect(server.port, "gone", new_key(), command="lobby")
    await c.wait_for("welcome")
    session = app_sessions(server)[0]
    late = Session(server, session.conn)  # its channel already gone
    app: App[None] = App()
    assert await asyncio.wait_for(late.run_app(app), 10.0) is None  # it drew, and ended
    assert internals.app_exception(app) is None
    await c.close()


# --- global requests ----------------------------------------------------------------------------
def send_global(conn: asyncssh.SSHClientConnection, name: str, reply: bool) -> None:
    conn.send_packet(MSG_GLOBAL_REQUEST, String(name), Boolean(reply))


async def test_a_flood_of_global_requests_closes_the_connection(
        server: MahjongServer) -> None:
    c = PtyClient(80, 24)  # a session open: the connection is not closed for want of one
    await c.connect(server.port, "global", new_key(), command="lobby")
    await c.wait_for("welcome")
    assert c.conn is not None
    for _ in range(2000):
        send_global(c.conn, "flood@example.com", False)
    await asyncio.wait_for(c.closed.wait(), 10)
    await serving(server)


async def test_keepalives_at_a_clients_pace_are_answered(server: MahjongServer) -> None:
    conn = await key_connection(server.port, "alive")
    for _ in range(server.limits.global_requests_burst // 2):
        pkttype, _ = await conn._make_global_request(b"keepalive@openssh.com")
        assert pkttype == MSG_REQUEST_SUCCESS
    assert (await conn.run("help", check=False)).exit_status == 0
    conn.close()
    await conn.wait_closed()


# --- public-key queries -------------------------------------------------------------------------
@pytest.fixture
def queries_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """The client's public-key auth asks about each of its keys (a query without a signature,
    answered PK_OK) and moves on to the next, signing only for its key number ``sign_at``
    (counted from 1; 0: never): what a hostile client, or an agent's keys, send."""
    seen = {"pk_ok": 0, "sign_at": 0}
    real = asyncssh.auth._ClientPublicKeyAuth._process_public_key_ok

    def moved_on(self: Any, pkttype: int, pktid: int, packet: Any) -> None:
        seen["pk_ok"] += 1
        if seen["pk_ok"] == seen["sign_at"]:
            real(self, pkttype, pktid, packet)
        else:
            self._conn.try_next_auth()

    handlers = dict(asyncssh.auth._ClientPublicKeyAuth._packet_handlers)
    handlers[asyncssh.auth.MSG_USERAUTH_PK_OK] = moved_on
    monkeypatch.setattr(asyncssh.auth._ClientPublicKeyAuth, "_packet_handlers", handlers)
    yield seen


async def test_public_key_queries_before_login_are_counted(
        server: MahjongServer, queries_only: dict[str, int]) -> None:
    keys = [new_key() for _ in range(3 * server.limits.key_queries)]
    with pytest.raises((asyncssh.Error, OSError)):
        await asyncssh.connect("127.0.0.1", server.port, username="prober", known_hosts=None,
                               client_keys=keys, agent_path=None, kbdint_auth=False)
    assert queries_only["pk_ok"] == server.limits.key_queries
    queries_only["sign_at"] = queries_only["pk_ok"] + 1  # the next client signs at once
    await serving(server)


async def test_an_agent_offering_its_keys_one_by_one_still_logs_in(
        server: MahjongServer, queries_only: dict[str, int]) -> None:
    keys = [new_key() for _ in range(12)]
    queries_only["sign_at"] = len(keys)  # the last key offered is the one it signs with
    conn = await asyncssh.connect("127.0.0.1", server.port, username="agent",
                                  known_hosts=None, client_keys=keys, agent_path=None,
                                  kbdint_auth=False)
    assert (await conn.run("help", check=False)).exit_status == 0
    assert queries_only["pk_ok"] == len(keys)
    conn.close()
    await conn.wait_closed()


# --- every packet -----------------------------------------------------------------------------
@pytest.fixture
def ignored_at(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The loop times at which the server's connections dispatched an SSH_MSG_IGNORE."""
    stamps: list[float] = []
    handlers = asyncssh.connection.SSHConnection._packet_handlers
    real = handlers[MSG_IGNORE]

    def ignored(self: Any, pkttype: int, pktid: int, packet: Any) -> None:
        if self.is_server():
            stamps.append(asyncio.get_running_loop().time())
        real(self, pkttype, pktid, packet)

    monkeypatch.setitem(handlers, MSG_IGNORE, ignored)
    return stamps


async def test_a_flood_of_ignored_messages_is_read_at_the_packet_rate(
        make_server: MakeServer, ignored_at: list[float]) -> None:
    """SSH_MSG_IGNORE, which asyncssh drops after decrypting it, past ``packets_per_second``:
    the connection stops reading for a moment, so that no second of the loop dispatches more
    than the rate's burst and a second's rate, whatever the client sends."""
    rate = 100
    server = await make_server(limits=Limits(packets_per_second=rate))
    conn = await key_connection(server.port, "chaff")
    sent = 5 * rate
    for _ in range(sent):
        conn.send_packet(MSG_IGNORE, String(b"x" * 16))
    # (asyncssh's client sends a few of its own)
    await until(lambda: len(ignored_at) >= sent, 30, "every ignored packet read")
    most = max(sum(1 for t in ignored_at[i:] if t < start + 1.0)
               for i, start in enumerate(ignored_at))
    assert most <= 3 * rate + rate // 10, f"{most} packets dispatched in one second"
    # the connection was held back, not closed: it still works
    assert (await conn.run("help", check=False)).exit_status == 0
    conn.close()
    await conn.wait_closed()


# --- asyncssh of another shape: the stock behaviour, said once --------------------------------
def _other(*args: Any) -> None:
    """A stand-in of another shape than any patch was written for."""


GATES: list[tuple[str, Any, Any, str]] = [
    ("packets_rated", lambda: compat_asyncssh.rate_packets(Bare(), lambda: True),  # type: ignore
     asyncssh.connection.SSHConnection, "_recv_pkthdr"),
    ("global_requests_rated",
     lambda: compat_asyncssh.rate_global_requests(Bare(), lambda: None),  # type: ignore
     asyncssh.connection.SSHConnection, "_process_global_request"),
    ("channel_requests_rated",
     lambda: compat_asyncssh.rate_channel_requests(Bare(), lambda: None),
     asyncssh.channel.SSHChannel, "_process_request"),
    ("key_queries_counted",
     lambda: compat_asyncssh.count_key_queries(Bare(), lambda: None),  # type: ignore
     asyncssh.connection.SSHServerConnection, "validate_public_key"),
]


class Bare:
    """An object a gate's state can be set on."""


@pytest.mark.parametrize(("patch", "apply", "owner", "name"), GATES, ids=[g[0] for g in GATES])
def test_a_gate_on_asyncssh_of_another_shape_keeps_stock_behaviour_and_logs_once(
        patch: str, apply: Any, owner: Any, name: str, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(compat_asyncssh, "FELL_BACK", {})
    monkeypatch.setattr(owner, name, _other)  # as a release that changed it would have it
    caplog.set_level(logging.WARNING)
    apply()
    apply()
    assert owner.__dict__[name] is _other
    said = [r for r in caplog.records if f"compat {patch}:" in r.getMessage()]
    assert len(said) == 1
    assert patch in compat_asyncssh.FELL_BACK


# --- sessions -------------------------------------------------------------------------------
async def test_the_server_has_a_total_of_sessions_and_keeps_some_for_seated_players(
        make_server: MakeServer) -> None:
    limits = Limits(sessions_total=3, sessions_reserved=1)
    server = await make_server(limits=limits)
    seated_key = new_key()
    player = PtyClient(80, 24)
    await player.connect(server.port, "seated", seated_key, command="join mine")
    await player.wait_for("press S")
    idler = PtyClient(80, 24)
    await idler.connect(server.port, "idler", new_key(), command="lobby")
    await idler.wait_for("welcome")
    # the third session is the reserved one: not for another idler
    late = PtyClient(80, 24)
    await late.connect(server.port, "late", new_key(), command="lobby")
    await late.wait_for("server is full")
    await asyncio.wait_for(late.closed.wait(), 10)
    assert late.exit_status == 1 and "服务器已满" in late.text()
    # the seated player, coming back on a second connection, gets it
    back = PtyClient(80, 24)
    await back.connect(server.port, "seated", seated_key, command="join mine")
    await back.wait_for("mine")
    assert "server is full" not in back.text()
    # and past the total nobody does
    more = PtyClient(80, 24)
    await more.connect(server.port, "seated", seated_key, command="lobby")
    await more.wait_for("server is full")
    await asyncio.wait_for(more.closed.wait(), 10)
    assert more.exit_status == 1
    for c in (player, idler, late, back, more):
        await c.close()
    await until(lambda: not server.sessions and not server.address_sessions,
                what="every session counted out")


async def test_one_address_has_its_own_cap_on_sessions(make_server: MakeServer) -> None:
    server = await make_server(limits=Limits(sessions_per_address=2))
    clients = [PtyClient(80, 24) for _ in range(3)]
    for i, c in enumerate(clients[:2]):
        await c.connect(server.port, f"near{i}", new_key(), command="lobby")
        await c.wait_for("welcome")
    await clients[2].connect(server.port, "near2", new_key(), command="lobby")
    await clients[2].wait_for("sessions are open from your address")
    await asyncio.wait_for(clients[2].closed.wait(), 10)
    assert clients[2].exit_status == 1
    await clients[0].close()
    await until(lambda: server.address_sessions["127.0.0.1"] == 1, what="one closed")
    again = PtyClient(80, 24)
    await again.connect(server.port, "near3", new_key(), command="lobby")
    await again.wait_for("welcome")
    for c in (clients[1], again):
        await c.close()


# --- the log --------------------------------------------------------------------------------
def test_the_log_gate_counts_what_it_leaves_out() -> None:
    now = [0.0]
    gate = LogGate(60, clock=lambda: now[0])
    written: list[logging.LogRecord] = []

    class Written(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            written.append(record)

    handler = Written()
    handler.addFilter(gate)
    logger = logging.getLogger("test.floods.gate")
    logger.addFilter(gate)
    logger.addHandler(handler)
    logger.propagate = False
    try:
        for i in range(1000):
            logger.warning("line %d", i)
        assert len(written) == 15  # the burst: a quarter of a minute's lines, counted once
        assert gate.take_suppressed() == 985 and gate.take_suppressed() == 0
        now[0] = 60.0
        for i in range(1000):
            logger.warning("line %d", i)
        assert len(written) == 30
    finally:
        logger.removeHandler(handler)
        logger.removeFilter(gate)


async def test_the_event_loops_own_log_lines_are_within_the_budget(
        make_server: MakeServer, caplog: pytest.LogCaptureFixture) -> None:
    limits = Limits(log_lines_per_minute=40)
    server = await make_server(limits=limits)
    # another server of this worker process not closed yet (a test's, ending) filters the
    # same loggers with its own budget and marks what it lets through: only this one counts
    others = [(name, f) for name in ("asyncio", "asyncssh")
              for f in logging.getLogger(name).filters
              if isinstance(f, LogGate) and f is not server.log_gate]
    for name, f in others:
        logging.getLogger(name).removeFilter(f)
    try:
        with caplog.at_level(logging.WARNING):
            for _ in range(1000):
                logging.getLogger("asyncio").warning("socket.send() raised exception.")
                logging.getLogger("asyncssh").warning("something")
            assert len(caplog.records) <= limits.log_lines_per_minute // 4
            server.report_log()  # what the minute's report says
    finally:
        for name, f in others:
            logging.getLogger(name).addFilter(f)
    said = caplog.records[-1].getMessage()
    assert said.startswith(f"{2000 - limits.log_lines_per_minute // 4} log lines were left out")


async def requests_then_reset(server: MahjongServer, connections: int = 10) -> None:
    """``connections`` connections that each send 3,000 global requests wanting a reply, and
    reset at once: the server reads them after the connection is lost."""
    for i in range(connections):
        conn = await key_connection(server.port, f"reset{i}")
        for _ in range(3000):
            send_global(conn, "keepalive@openssh.com", True)
        await asyncio.sleep(0)
        reset(conn)
    await until(lambda: server.gate.connections == 0, 30, "every connection lost")
    await asyncio.sleep(0.5)


def reset(conn: asyncssh.SSHClientConnection) -> None:
    """The connection dropped with a TCP reset (SO_LINGER 0), nothing said."""
    sock = conn.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.abort()


async def test_connections_that_send_requests_and_reset_write_a_bounded_log(
        make_server: MakeServer, caplog: pytest.LogCaptureFixture) -> None:
    """Ten connections that send global requests and reset once wrote 2.4 MB of asyncio's
    "socket.send() raised exception." in 15 s."""
    limits = Limits(global_requests_burst=100_000, global_requests_per_second=100_000)
    server = await make_server(limits=limits)
    with caplog.at_level(logging.WARNING):
        await requests_then_reset(server)
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) <= limits.log_lines_per_minute // 4 + 2, \
        "\n".join(r.getMessage() for r in lines[:20])
    await serving(server)


async def test_nothing_is_written_to_a_connection_once_it_is_lost(
        make_server: MakeServer, caplog: pytest.LogCaptureFixture) -> None:
    """What a lost connection had sent and the server had not read yet is not answered:
    asyncio logs a warning for each write to a lost socket past its fifth."""
    limits = Limits(global_requests_burst=100_000, global_requests_per_second=100_000,
                    packets_per_second=1_000_000, log_lines_per_minute=1_000_000)
    server = await make_server(limits=limits)
    with caplog.at_level(logging.WARNING, logger="asyncio"):
        await requests_then_reset(server)
    lost = [r for r in caplog.records if "socket.send() raised" in r.getMessage()]
    assert len(lost) <= 10, f"{len(lost)} writes to lost connections logged"
