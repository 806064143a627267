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
import asyncssh.logging
import asyncssh.packet

from net.limits import Limits
from tui import compat_guard, compat_textual

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


# --- a closed connection's and its transport's cycles let go of -----------------------------
def _stopped() -> bool:
    """A closed connection's packet reader: nothing more to read."""
    return False


def release_connection(conn: Any) -> bool:
    """What a cleaned-up SSH connection holds that holds it: a method of its own as its packet
    reader (``_recv_handler``), and functions set on it in place of its class's methods (the
    server counts failed logins with a closure over its own connection object, which holds
    this one). False if there was nothing to let go of."""
    state = getattr(conn, "__dict__", None)
    if state is None:
        return False
    cls = type(conn)
    for name, value in list(state.items()):
        if name == "_recv_handler":
            state[name] = _stopped
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
    compat_textual.neutralise_redirects()
    quiet_packet_log()
    _method("auth_failures_counted", asyncssh.connection.SSHServerConnection,
            "send_userauth_failure", ("self", "partial_success"))
    _method("env_requests_bounded", asyncssh.channel.SSHServerChannel, "_process_env_request",
            ("self", "packet"))
    if not compat_guard.init_sets(asyncssh.channel.SSHChannel, "_env"):
        _fall_back("env_requests_bounded_store", "SSHChannel sets no _env")
    from net.front import reclaim  # here: net.front.reclaim imports this module

    reclaim.install()
    return {**compat_textual.FELL_BACK, **FELL_BACK}
