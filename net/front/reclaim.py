"""What a closed session leaves behind is given back: by reference counting, at once.

Left to the collector, a session's objects would be freed only by a full (generation 2)
collection, which the server makes rare because it stops the loop for every session
(``net.serve.main``), so a server whose sessions come and go would grow without end. What
would hold them are reference cycles, and each is broken where it is made:

- the session's Textual apps (the lobby, the table): ``app_ended``, called as each app's
  ``run_async`` returns (``net.front.remote_app.ServerSide``), takes the app and every node it
  made apart (``tui.compat.app_release.release_app``) on the loop's next turn;
- the SSH connection: asyncssh's connection points at its own methods (the packet reader it is
  on), and the server gives it callbacks that point back at the connection; once asyncssh has
  cleaned a connection up those are let go of (``install``);
- the socket's transport (asyncio's selector transport holds its own read method): let go of
  once the connection is lost.

What is left for the collector is then nothing a session (none of a lobby, table, roaming or
played session's objects is in a cycle: tests/test_net_memory.py), so no collection is
scheduled here: the server's thresholds stay as they are, and no full collection pauses the
loop for it. Taking an app apart takes a turn of the loop (10-20 ms for a table's), with what
reference counting then frees, and apps that end together are taken apart one a turn: a
crowd of sessions leaving at once (tables made and left by the dozen) would otherwise hold
the loop, and every player's keys, for all of them in one turn (``stats()`` counts it,
``python -m bench churn`` reports it and the RSS over thousands of sessions:
docs/performance.md).
"""

from __future__ import annotations

import asyncio
import contextvars
import time
import weakref
from collections import deque
from dataclasses import dataclass
from typing import Any

from net.front import compat_asyncssh
from tui.compat import app_release


@dataclass
class ReclaimStats:
    apps: int = 0  # apps that ended
    released: int = 0  # of which taken apart (the others: on the loop's next turn)
    nodes: int = 0  # their nodes taken apart (screens, widgets, style nodes)
    release_seconds: float = 0.0  # the time it took, with what reference counting then freed
    longest_release: float = 0.0  # the longest for one app (a turn of the loop)
    sessions: int = 0  # sessions ended
    connections: int = 0  # SSH connections whose cycles were let go of


_stats = ReclaimStats()
_installed = False
_waiting: deque[weakref.ref[Any]] = deque()  # ended apps not yet taken apart, oldest first
_draining: list[asyncio.AbstractEventLoop | None] = [None]  # the loop taking them apart


def stats() -> ReclaimStats:
    return _stats


def _let_go(conn: Any) -> None:
    """A cleaned-up SSH connection's own cycles let go of (``compat_asyncssh``), counted."""
    if compat_asyncssh.release_connection(conn):
        _stats.connections += 1


def install() -> None:
    """Let go of an SSH connection's cycles once asyncssh has cleaned it up, and of a socket
    transport's once its connection is lost. Once per process (``session_ended`` and
    ``app_ended`` call it too)."""
    global _installed
    if _installed:
        return
    _installed = True
    compat_asyncssh.after_cleanup(_let_go)
    compat_asyncssh.transport_lets_go()


def _release(held: weakref.ref[Any]) -> None:
    started = time.perf_counter()
    app = held()
    if app is None:
        return
    _stats.nodes += app_release.release_app(app)
    del app  # the last reference: what it held is freed here, and timed
    took = time.perf_counter() - started
    _stats.released += 1
    _stats.release_seconds += took
    _stats.longest_release = max(_stats.longest_release, took)


def _release_next() -> None:
    """The oldest waiting app taken apart, and the next one on the loop's next turn, so
    that what the loop has to do meanwhile (a player's key) waits for one app at most."""
    try:
        if _waiting:
            _release(_waiting.popleft())
    finally:  # one that failed to come apart does not stop the others'
        if _waiting:
            asyncio.get_running_loop().call_soon(_release_next, context=contextvars.Context())
        else:
            _draining[0] = None


def app_ended(app: Any) -> None:
    """A session's app has run to its end (its ``run_async`` returned): taken apart on the
    event loop's next turn (apps that ended together: one a turn, in the order they ended), so
    that reference counting frees it, once what is read of it as
    ``run_async`` returns has been read (its return value and code, its exception,
    ``ends_session``: those stay). A callback it scheduled that comes later finds it exited,
    detached and closed (``tui.compat.app_release.release_app``); one with a handle kept in the
    app or its nodes is cancelled.

    Not later (a timer): the loop drops a cancelled timer, which holds the context it was
    made in (an ended app's, through its own stopped timers), only when it comes first in the
    queue, and a pending timer before it kept it, and the app, for as long."""
    install()
    _stats.apps += 1
    held = weakref.ref(app)  # a collection may free it before the next turn
    del app
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        _release(held)
        return
    _waiting.append(held)
    if _draining[0] is not loop:  # none taking them apart on this loop (one that closed
        # with some waiting leaves them to this one)
        _draining[0] = loop
        # in a context of its own: the app's (its active app and message pump) would hold it
        loop.call_soon(_release_next, context=contextvars.Context())


def session_ended() -> None:
    """A session (lobby or table app) has ended and its driver is closed."""
    install()
    _stats.sessions += 1
