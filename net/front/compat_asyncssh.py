"""Every use of asyncssh's internals (and of asyncio's socket transport), in one place.

Each patch checks, when it is applied, that what it replaces is there with the parameters it
was written for; when not, it leaves the library's stock behaviour and logs one warning naming
the patch (``FELL_BACK`` lists them, for ``make compat-check``). Each names the upstream issue
it works around, or the section of ``docs/upstream.md`` with the report we would file.
Checked against asyncssh 2.24 (the pin in ``requirements.lock``).
"""

from __future__ import annotations

import asyncio
import asyncio.selector_events
import inspect
import logging
from collections.abc import Callable, Sequence
from typing import Any

import asyncssh.channel
import asyncssh.connection
import asyncssh.constants
import asyncssh.logging
import asyncssh.packet

from net.limits import Limits
from tui.compat import compat_guard, compat_textual, stdout_redirects

log = logging.getLogger("net.compat")

# patch name -> why it fell back to the library's stock behaviour, in this process
FELL_BACK: dict[str, str] = {}
_FIXED = "_mj_fixed"


def _fall_back(patch: str, why: str) -> None:
    """Leave ``patch`` out (the stock behaviour stays), said once per process in the log."""
    compat_guard.fall_back(FELL_BACK, log, patch, why)


def _method(patch: str, owner: type, name: str, params: Sequence[str]) -> Any | None:
    """``owner.name`` if it is a function whose parameters are ``params``, else None after
    falling back."""
    return compat_guard.method(_fall_back, patch, owner, name, params)


# --- failed logins counted as MaxAuthTries counts them --------------------------------------
# Upstream: asyncssh has no limit on authentication attempts per connection (only
# login_timeout); not reported yet: docs/upstream.md, "No MaxAuthTries".
def count_auth_failures(conn: asyncssh.SSHServerConnection,
                        failed: Callable[[], bool]) -> None:
    """Call ``failed()`` for every failed authentication attempt of ``conn`` (asyncssh answers
    each with ``send_userauth_failure``); the failure is sent only if it returns True (False:
    the caller disconnected). Without that method the attempts are not counted (asyncssh's
    stock behaviour: its login timeout still ends the connection), said once in the log."""
    patch = "auth_failures_counted"
    if _method(patch, asyncssh.connection.SSHServerConnection, "send_userauth_failure",
               ("self", "partial_success")) is None:
        return
    real = conn.send_userauth_failure

    def counted(partial_success: bool) -> None:
        if failed():
            real(partial_success)

    conn.send_userauth_failure = counted  # type: ignore[method-assign]


# --- AcceptEnv ------------------------------------------------------------------------------
# Upstream: asyncssh accepts every environment variable a client sends, with no bound on their
# number or size; not reported yet: docs/upstream.md, "No bound on environment requests".
def bound_env(chan: Any, limits: Limits) -> None:
    """AcceptEnv for one channel: only ``limits.env_names``, at most ``env_max`` of them, each
    at most ``env_value_bytes`` long; past ``env_requests`` requests every one is refused.
    asyncssh keeps whatever a client sends (``SSHServerChannel._process_env_request`` into
    ``_env``): this takes that request over on this channel. Without that method asyncssh's
    stock handling stays (said once in the log); with it but no ``_env`` dict on the channel,
    every environment request is refused (the session then uses its defaults)."""
    patch = "env_requests_bounded"
    if _method(patch, asyncssh.channel.SSHServerChannel, "_process_env_request",
               ("self", "packet")) is None:
        return
    if not compat_guard.init_sets(asyncssh.channel.SSHChannel, "_env"):
        _fall_back(patch + "_store", "SSHChannel sets no _env: environment requests refused")
    env = getattr(chan, "_env", None)
    names = frozenset(n.encode("ascii") for n in limits.env_names)
    seen = [0]

    def env_request(packet: Any) -> bool:
        key = packet.get_string()
        value = packet.get_string()
        packet.check_end()
        seen[0] += 1
        if (not isinstance(env, dict) or seen[0] > limits.env_requests or key not in names
                or len(value) > limits.env_value_bytes
                or (key not in env and len(env) >= limits.env_max)):
            return False
        env[key] = value
        return True

    chan._process_env_request = env_request


# --- no log line formatted per packet -------------------------------------------------------
# Upstream: not reported yet; docs/upstream.md, "Every packet's log line is formatted before
# the debug level is checked".
def quiet_packet_log() -> None:
    """asyncssh formats a log line for every SSH packet sent or received (its name, a plural
    byte count) before its logger checks whether packets are logged at all (debug level 3), a
    share of every session's writes worth saving. This skips the formatting unless
    that level is on (``asyncssh.set_debug_level(3)`` still logs them). Once per process."""
    patch = "packet_log_quiet"
    logger_cls = asyncssh.packet.SSHPacketLogger
    log_packet = _method(patch, logger_cls, "_log_packet",
                         ("self", "msg", "pkttype", "pktid", "packet", "note"))
    if log_packet is None or getattr(log_packet, "_quiet", False):
        return
    ssh_logger = asyncssh.logging.SSHLogger
    if not isinstance(getattr(ssh_logger, "_debug_level", None), int):
        _fall_back(patch, "SSHLogger._debug_level is gone")
        return

    def quiet(self: Any, msg: str, pkttype: int, pktid: int | None,
              packet: Any, note: str) -> None:
        if ssh_logger._debug_level >= 3:
            log_packet(self, msg, pkttype, pktid, packet, note)

    quiet._quiet = True  # type: ignore[attr-defined]
    logger_cls._log_packet = quiet  # type: ignore[method-assign]


# --- every message a client sends counted against a rate ------------------------------------
# Upstream: asyncssh reads and dispatches whatever a client sends as fast as it comes, with no
# bound on any kind of message (ignore, debug, global and channel requests, public-key
# queries, window changes); not reported yet: docs/upstream.md, "No rate on a client's
# messages". The server's policy (how many, and what then) is in net/front/server.py; these
# patches are where asyncssh lets it be applied. Each reads its per-connection (or
# per-channel) state from the instance, so a connection the server did not set up (a
# client's, in the tests) keeps the stock behaviour.

PAUSE = 0.25  # seconds a connection over its packet rate stops reading


class MessageFlood(asyncssh.DisconnectError):
    """A client sent more of a kind of message than the server allows: the connection is
    closed with ``reason`` (said to the client), which the server's log line names."""

    def __init__(self, reason: str) -> None:
        super().__init__(asyncssh.DISC_BY_APPLICATION, reason)


def rate_packets(conn: asyncssh.SSHServerConnection, allow: Callable[[], bool]) -> None:
    """``allow()`` is asked before each packet ``conn`` receives is read, of any kind; when it
    says no, the connection stops reading for ``PAUSE`` seconds (what the client sends
    meanwhile waits in the socket: TCP flow control) and then reads on, from what it had
    buffered. A connection whose transport is closing reads nothing more (asyncssh would
    answer every packet still buffered, each answer a write to a lost socket that asyncio
    logs). Without the methods this hooks, packets are not rated (said once in the log)."""
    if _rated_packets_patch():
        conn._mj_packets = allow  # type: ignore[attr-defined]


def _rated_packets_patch() -> bool:
    """``SSHConnection._recv_pkthdr`` (where asyncssh starts reading each packet) wrapped,
    once per process; False if it fell back."""
    patch = "packets_rated"
    conn_cls = asyncssh.connection.SSHConnection
    recv_pkthdr = _method(patch, conn_cls, "_recv_pkthdr", ("self",))
    if recv_pkthdr is None:
        return False
    if getattr(recv_pkthdr, _FIXED, False):
        return True
    if _method(patch, conn_cls, "_recv_data", ("self",)) is None:
        return False
    for name in ("_inpbuf", "_recv_blocksize", "_transport", "_recv_handler", "_loop"):
        if not compat_guard.init_sets(conn_cls, name):
            _fall_back(patch, f"SSHConnection sets no {name}")
            return False

    def resume(conn: Any) -> None:
        conn._mj_paused = None
        transport = conn._transport
        if transport is None or transport.is_closing():
            return
        transport.resume_reading()
        if conn._inpbuf and conn._recv_handler == conn._recv_pkthdr:
            conn._recv_data()  # what was buffered when reading stopped

    def rated(self: Any) -> bool:
        state = self.__dict__
        allow = state.get("_mj_packets")
        if allow is None:
            return bool(recv_pkthdr(self))
        transport = self._transport
        if transport is None or transport.is_closing() or state.get("_mj_paused") is not None:
            return False
        if len(self._inpbuf) >= self._recv_blocksize and not allow():
            transport.pause_reading()
            self._mj_paused = self._loop.call_later(PAUSE, resume, self)
            return False
        return bool(recv_pkthdr(self))

    rated._mj_fixed = True  # type: ignore[attr-defined]
    conn_cls._recv_pkthdr = rated  # type: ignore[method-assign]
    return True


def _gate_requests(patch: str, owner: type, name: str, kind: int) -> bool:
    """``owner.name``, asyncssh's handler of ``kind`` packets (``owner._packet_handlers``),
    wrapped once per process to ask the instance's ``_mj_requests()`` first: a reason (a
    string) closes the connection with it (:class:`MessageFlood`). False if it fell back."""
    handler = _method(patch, owner, name, ("self", "_pkttype", "_pktid", "packet"))
    if handler is None:
        return False
    process: Callable[..., Any] = handler
    if getattr(handler, _FIXED, False):
        return True
    table = getattr(owner, "_packet_handlers", None)
    if not isinstance(table, dict) or table.get(kind) is not handler:
        _fall_back(patch, f"{owner.__name__}._packet_handlers[{kind}] is not {name}")
        return False

    def gated(self: Any, _pkttype: int, _pktid: int, packet: Any) -> Any:
        check = self.__dict__.get("_mj_requests")
        if check is not None:
            why = check()
            if why:
                raise MessageFlood(why)
        return process(self, _pkttype, _pktid, packet)

    gated._mj_fixed = True  # type: ignore[attr-defined]
    setattr(owner, name, gated)
    table[kind] = gated
    return True


def rate_global_requests(conn: asyncssh.SSHServerConnection,
                         check: Callable[[], str | None]) -> None:
    """``check()`` before each global request ``conn`` receives (keepalives, forwarding
    requests, anything): a reason closes the connection with it. Without the handler this
    hooks, global requests are not rated (said once in the log)."""
    if _gate_requests("global_requests_rated", asyncssh.connection.SSHConnection,
                      "_process_global_request", asyncssh.constants.MSG_GLOBAL_REQUEST):
        conn._mj_requests = check  # type: ignore[attr-defined]


def rate_channel_requests(chan: Any, check: Callable[[], str | None]) -> None:
    """``check()`` before each request on ``chan`` (window changes, signals, breaks,
    environment, anything): a reason closes the connection with it. Without the handler this
    hooks, channel requests are not rated (said once in the log). ``check`` must not hold the
    channel (it is kept on it)."""
    if _gate_requests("channel_requests_rated", asyncssh.channel.SSHChannel,
                      "_process_request", asyncssh.constants.MSG_CHANNEL_REQUEST):
        chan._mj_requests = check


def count_key_queries(conn: asyncssh.SSHServerConnection,
                      check: Callable[[], str | None]) -> None:
    """``check()`` before each public key ``conn``'s client asks about without a signature
    ("would this key do?", which asyncssh answers with PK_OK, unsigned and never counted as
    a failure): a reason closes the connection with it. Without the method this hooks, the
    queries are not counted (said once in the log; the login timeout still ends the
    connection)."""
    if _key_queries_patch():
        conn._mj_key_queries = check  # type: ignore[attr-defined]


def _key_queries_patch() -> bool:
    patch = "key_queries_counted"
    conn_cls = asyncssh.connection.SSHServerConnection
    validate = _method(patch, conn_cls, "validate_public_key",
                       ("self", "username", "key_data", "msg", "signature"))
    if validate is None:
        return False
    if getattr(validate, _FIXED, False):
        return True

    async def counted(self: Any, username: str, key_data: bytes, msg: bytes,
                      signature: bytes) -> bool:
        check = self.__dict__.get("_mj_key_queries")
        if check is not None and not msg:
            why = check()
            if why:
                raise MessageFlood(why)  # in asyncssh's auth task: it disconnects with it
        return bool(await validate(self, username, key_data, msg, signature))

    counted._mj_fixed = True  # type: ignore[attr-defined]
    conn_cls.validate_public_key = counted  # type: ignore[method-assign]
    return True


# --- a closed connection's and its transport's cycles let go of -----------------------------
def _stopped() -> bool:
    """A closed connection's packet reader: nothing more to read."""
    return False


def release_connection(conn: Any) -> bool:
    """What a cleaned-up SSH connection holds that holds it: a method of its own as its packet
    reader (``_recv_handler``), functions set on it in place of its class's methods (the
    server counts failed logins with a closure over its own connection object, which holds
    this one), and the message gates' state (``_mj_*``: callables of the server's, a pause's
    timer). False if there was nothing to let go of."""
    state = getattr(conn, "__dict__", None)
    if state is None:
        return False
    cls = type(conn)
    for name, value in list(state.items()):
        if name == "_recv_handler":
            state[name] = _stopped
        elif name.startswith("_mj_"):  # the server's message gates (they hold its policy)
            timer = state.pop(name)
            if isinstance(timer, asyncio.TimerHandle):  # a pause over its packet rate
                timer.cancel()
        elif ((inspect.ismethod(value) and value.__self__ is conn)
              or (inspect.isfunction(value) and hasattr(cls, name))):
            del state[name]
    return True


# Upstream: not reported yet; docs/upstream.md, "A closed SSHConnection stays a reference
# cycle".
def after_cleanup(callback: Callable[[Any], None]) -> None:
    """Call ``callback(conn)`` once asyncssh has cleaned a connection up (its ``_cleanup``)."""
    conn_cls = asyncssh.connection.SSHConnection
    cleanup = _method("connection_let_go", conn_cls, "_cleanup", ("self", "exc"))
    if cleanup is None or getattr(cleanup, _FIXED, False):
        return

    def cleanup_and_let_go(self: Any, exc: Exception | None) -> None:
        try:
            cleanup(self, exc)
        finally:
            callback(self)

    cleanup_and_let_go.__doc__ = cleanup.__doc__
    cleanup_and_let_go._mj_fixed = True  # type: ignore[attr-defined]
    conn_cls._cleanup = cleanup_and_let_go  # type: ignore[method-assign]


# Upstream: CPython's selector transport keeps ``_read_ready_cb`` (a bound method of itself)
# after its connection is lost; not reported yet: docs/upstream.md, "A lost selector transport
# stays a reference cycle".
def transport_lets_go() -> None:
    """asyncio's socket transport drops its own read callback once its connection is lost."""
    patch = "transport_let_go"
    transport_cls: Any = getattr(asyncio.selector_events, "_SelectorTransport", None)
    if transport_cls is None:
        _fall_back(patch, "asyncio.selector_events._SelectorTransport is gone")
        return
    lost = _method(patch, transport_cls, "_call_connection_lost", ("self", "exc"))
    if lost is None or getattr(lost, _FIXED, False):
        return

    def lost_and_let_go(self: Any, exc: BaseException | None) -> None:
        try:
            lost(self, exc)
        finally:
            if "_read_ready_cb" in self.__dict__:  # a bound method of the transport itself
                self._read_ready_cb = None

    lost_and_let_go._mj_fixed = True  # type: ignore[attr-defined]
    transport_cls._call_connection_lost = lost_and_let_go


def check_all() -> dict[str, str]:
    """Apply (or check) every compat patch of both modules, as the server does, and return
    those that fell back to stock behaviour (name -> why): ``make compat-check`` prints it."""
    compat_textual.apply()
    stdout_redirects.neutralise_redirects()
    quiet_packet_log()
    _method("auth_failures_counted", asyncssh.connection.SSHServerConnection,
            "send_userauth_failure", ("self", "partial_success"))
    _method("env_requests_bounded", asyncssh.channel.SSHServerChannel, "_process_env_request",
            ("self", "packet"))
    if not compat_guard.init_sets(asyncssh.channel.SSHChannel, "_env"):
        _fall_back("env_requests_bounded_store", "SSHChannel sets no _env")
    _rated_packets_patch()
    _gate_requests("global_requests_rated", asyncssh.connection.SSHConnection,
                   "_process_global_request", asyncssh.constants.MSG_GLOBAL_REQUEST)
    _gate_requests("channel_requests_rated", asyncssh.channel.SSHChannel,
                   "_process_request", asyncssh.constants.MSG_CHANNEL_REQUEST)
    _key_queries_patch()
    # net.front.reclaim applies these two with its own callback: here their guards are checked
    _method("connection_let_go", asyncssh.connection.SSHConnection, "_cleanup", ("self", "exc"))
    transport_lets_go()
    return {**compat_guard.FELL_BACK, **FELL_BACK}
