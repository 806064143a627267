"""Sessions that come and go leave nothing behind (``net/front/reclaim.py``): an ended
session's apps, their nodes and its SSH connection are freed by reference counting, with the
garbage collector switched off, so the server's rare full collections (``net.serve.main``) are
not needed."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import asyncssh
import pytest
from textual import events
from textual._styles_cache import StylesCache  # what tui.compat.inner_outer_shared patches
from textual.app import App, ComposeResult
from textual.cache import LRUCache
from textual.color import Color
from textual.containers import Vertical
from textual.geometry import Size
from textual.widgets import Input, Static

from net.front import reclaim
from net.front.lobby import LobbyApp
from net.front.remote_app import RemoteApp
from net.front.server import MahjongServer
from net.limits import Limits
from testkit.fakes import rss_mb
from testkit.ssh import MakeServer, PtyClient
from tests.support.waiting import until
from tui.compat import app_release, compat_textual, internals

# seconds for an ended session to be gone: its apps are taken apart on the loop's next turn,
# and Textual's stopped timers (a cancelled sleep holds the app's context) let go within 1 s
SETTLE = 1.5
GROWTH_MB = 6.0  # RSS growth allowed over 100 sessions, the collector off (old code: 53; now 0.4)
# every client comes from 127.0.0.1: the per-address login and connection rates would refuse
# the churn itself
CHURN_LIMITS = replace(Limits(), logins_per_address_minute=10**6,
                       connects_per_address_minute=10**6)


@pytest.fixture
async def server(make_server: MakeServer) -> MahjongServer:
    """The shared ``server`` with ``CHURN_LIMITS``."""
    return await make_server(limits=CHURN_LIMITS)


@contextlib.contextmanager
def no_collector() -> Iterator[None]:
    """The garbage collector off: what is freed is freed by reference counting. What earlier
    tests left for the collector (apps they ran without a server) is collected first, so
    that only this test's own objects are counted."""
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def live_apps() -> list[Any]:
    return [o for o in gc.get_objects() if isinstance(o, LobbyApp | RemoteApp)]


async def session(srv: MahjongServer, i: int, kind: str) -> None:
    """One session opened, seen and closed: the lobby, a table's waiting screen, or the lobby
    then a table then the lobby again, quit with Ctrl-Q."""
    c = PtyClient(light=True)
    try:
        if kind == "lobby":
            await c.connect(srv.port, f"m{i}", None, command=None)
            await c.wait_for("welcome", 20)
        elif kind == "table":
            await c.connect(srv.port, f"m{i}", None, command=f"join mem{i % 8}")
            await c.wait_for(f"牌桌 mem{i % 8}", 20)
        else:
            await c.connect(srv.port, f"m{i}", None, command=None)
            await c.wait_for("welcome", 20)
            c.send(f"roam{i % 8}\r")
            await c.wait_for(lambda t: "press S" in t or "Enter again" in t, 20)
            if "press S" not in c.text():  # no such table yet: a second Enter creates it
                c.send("\r")
                await c.wait_for("press S", 20)
            c.send("q")
            await c.wait_for(f"left roam{i % 8}", 20)
            c.send("\x11")
            await c.wait_for(lambda _: c.exit_status is not None or c.closed.is_set(), 20)
    finally:
        await c.close()


async def churn(srv: MahjongServer, n: int, kind: str, start: int = 0, at_once: int = 4) -> None:
    numbers = iter(range(start, start + n))

    async def worker() -> None:
        for i in numbers:
            await session(srv, i, kind)

    await asyncio.gather(*(worker() for _ in range(at_once)))
    await until(lambda: not srv.sessions, 10, "the sessions to end")


def loop_errors() -> list[dict[str, Any]]:
    """Record what the event loop's exception handler is given (a late callback failing)."""
    errors: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: errors.append(ctx))
    return errors


async def test_ended_sessions_are_freed_without_the_collector(server: MahjongServer) -> None:
    """100 lobby sessions opened and closed, the collector off: no app is left and RSS comes
    back to where it was (the old code kept every app, and grew about 50 MB a hundred; a
    hostile tester's 3,200 sessions took the server from 59 MB to 1.95 GB). Then table and
    roaming sessions (lobby, table, lobby): no app and no SSH connection is left."""
    errors = loop_errors()
    with no_collector():
        await churn(server, 20, "lobby")  # the first sessions' own (caches filled once)
        await asyncio.sleep(SETTLE)
        before = rss_mb()
        await churn(server, 100, "lobby", start=20)
        await asyncio.sleep(SETTLE)
        grown = rss_mb() - before
        assert grown < GROWTH_MB, f"RSS grew {grown:.1f} MB over 100 sessions"
        await until(lambda: not live_apps(), 10, "no lobby app alive")
        await churn(server, 24, "table", start=200)
        await churn(server, 8, "roam", start=300)
        await until(lambda: not live_apps(), 10, "no lobby or table app alive")
        conns = [o for o in gc.get_objects() if isinstance(o, asyncssh.SSHServerConnection)]
        assert conns == []
    stats = reclaim.stats()
    assert stats.released >= 100 + 24 + 3 * 8 and stats.nodes > 1000
    assert errors == []  # no late callback found an app taken apart


async def test_sessions_leave_no_cyclic_garbage(server: MahjongServer) -> None:
    """What the collector would find after sessions came and went: none of the server's
    objects (nodes, apps, SSH connections and their transports, the server's connection and
    session objects)."""
    await churn(server, 4, "roam")  # start-up's own: the first sessions, the tables
    with no_collector():
        gc.collect()
        await churn(server, 12, "lobby", start=10)
        await churn(server, 12, "table", start=30)
        await churn(server, 4, "roam", start=50)
        await asyncio.sleep(SETTLE)
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            found = [o for o in gc.garbage if type(o).__module__.startswith(
                ("textual.", "net.", "tui.")) or isinstance(o, asyncssh.SSHServerConnection
                                                             | asyncio.Transport)]
            kinds = sorted({type(o).__qualname__ for o in found})
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
    assert kinds == []


async def test_an_app_that_failed_is_freed_by_reference_counting() -> None:
    """``release_app`` on an app that ended with an error (its traceback's frames held it):
    the app and every node it made are freed once let go of, the collector off."""
    compat_textual.apply()

    class Failing(App[None]):
        def compose(self) -> ComposeResult:
            with Vertical():
                yield Static("one", id="one")
                yield Input()

        def on_mount(self) -> None:
            raise ValueError("a handler failed")

    with no_collector():
        app = Failing()
        app_release.track_nodes(app)
        await app.run_async(headless=True, size=(40, 10))
        assert isinstance(internals.app_exception(app), ValueError)
        nodes = [weakref.ref(n) for n in app.__dict__["_mj_nodes"]]
        assert len(nodes) >= 4  # the screen, the container, the two widgets (and more)
        released = app_release.release_app(app)
        assert released >= len(nodes)
        error = internals.app_exception(app)
        assert isinstance(error, ValueError) and error.__traceback__ is None  # kept, for the log
        del error
        whole = weakref.ref(app)
        del app
        assert whole() is None
        assert [n() for n in nodes] == [None] * len(nodes)


def test_an_lru_cache_dropped_or_cleared_frees_its_entries() -> None:
    compat_textual.apply()

    class Value:
        pass

    with no_collector():
        for drop in (True, False):
            cache: LRUCache[int, Value] = LRUCache(4)
            values = [Value() for _ in range(6)]  # two evicted
            refs = [weakref.ref(v) for v in values]
            for i, v in enumerate(values):
                cache[i] = v
            cache.get(3)  # reordered
            del values, v
            if drop:
                del cache
            else:
                cache.clear()
                assert len(cache) == 0 and cache.get(3) is None
                cache[9] = Value()  # usable again
                assert cache.get(9) is not None
            assert [r() for r in refs] == [None] * 6


def test_a_widgets_style_cache_is_not_kept_by_the_shared_colour_cache() -> None:
    compat_textual.apply()
    with no_collector():
        styles = StylesCache()
        inner, outer = styles.get_inner_outer(Color(10, 20, 30), Color(0, 0, 0, 0.5))
        ref = weakref.ref(styles)
        del styles
        assert ref() is None
        again = StylesCache().get_inner_outer(Color(10, 20, 30), Color(0, 0, 0, 0.5))
        assert again == (inner, outer)


async def test_an_app_taken_apart_reads_as_ended(server: MahjongServer) -> None:
    """A late callback on a released app finds it exited, detached and closed, not broken;
    what the server reads of it after its end is kept."""
    c = PtyClient(light=True)
    await c.connect(server.port, "late", None, command="join late")
    await c.wait_for("牌桌 late", 20)
    (session,) = server.sessions
    app = session.app
    assert isinstance(app, RemoteApp)
    screen = app.screen
    c.send("q")
    await until(lambda: not server.sessions, 10, "the session to end")
    assert app.is_running is False
    await until(lambda: app.__dict__.get(app_release.RELEASED) is True, 2.0,
                "the ended app taken apart")
    assert app.return_code == 0 and app.ends_session is False
    assert internals.exiting(app) and not app.is_running and not screen.is_attached
    assert screen.post_message(events.Resize(Size(80, 24), Size(80, 24))) is False
    app._deliver()  # a late table update: nothing
    app._show_result(None, (1, 1))  # type: ignore[arg-type]  # a hand's result, paced: nothing
    await c.close()


async def test_a_live_table_restyled_leaves_no_cyclic_garbage(server: MahjongServer) -> None:
    """A player's table stays open while its waiting room closes and its widgets' styles are
    applied again (the help opened and closed: the table screen resumes, and Textual makes
    the table widget's component-class nodes anew): the nodes it drops are freed by
    reference counting (``tui.compat.component_nodes``, ``app_release.screens_released``),
    not left for a full collection — which a server that freezes what outlives its middle
    collections would never make (``net.serve``)."""
    c = PtyClient(light=True)
    try:
        await c.connect(server.port, "restyled", None, command="join restyle")
        await c.wait_for("牌桌 restyle", 20)
        with no_collector():
            gc.collect()
            c.send("S")  # the hand starts, computer players in the other seats: the
            await c.wait_for("Wall", 20)  # waiting room closes
            for _ in range(3):
                c.send("?")
                await c.wait_for(lambda t: "Wall" not in t, 20)
                c.send("\x1b")
                await c.wait_for("Wall", 20)
            await asyncio.sleep(app_release.SCREEN_RELEASE_AFTER + 0.5)  # taken apart
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                gc.collect()
                kinds = sorted({type(o).__qualname__ for o in gc.garbage
                                if type(o).__module__.startswith(("textual.", "tui."))})
            finally:
                gc.set_debug(0)
                gc.garbage.clear()
        assert kinds == []
    finally:
        await c.close()


def test_what_outlives_a_middle_collection_is_frozen() -> None:
    """``net.serve.freeze_survivors``: after a middle collection what survived it is frozen,
    so a full collection scans none of it (with 100 sessions one took 400 ms: 8 ms frozen);
    a young collection freezes nothing."""
    from net import serve

    assert serve._freeze_after not in gc.callbacks
    kept = []
    try:
        serve.freeze_survivors()
        serve.freeze_survivors()  # once only
        assert gc.callbacks.count(serve._freeze_after) == 1
        gc.unfreeze()
        gc.collect()
        gc.unfreeze()  # the collection above froze what start-up left
        kept = [[i] for i in range(5_000)]  # tracked containers, alive
        gc.collect(0)
        assert gc.get_freeze_count() == 0
        gc.collect(1)
        assert gc.get_freeze_count() >= len(kept)
        scanned = {id(o) for o in gc.get_objects()}  # what a full collection would scan
        assert not any(id(k) in scanned for k in kept)
    finally:
        if serve._freeze_after in gc.callbacks:
            gc.callbacks.remove(serve._freeze_after)
        gc.unfreeze()
    assert len(kept) == 5_000


async def test_the_frozen_objects_are_swept_when_the_server_empties() -> None:
    """``net.serve.sweep_when_idle``: cyclic garbage frozen while sessions were open is
    collected once the server has no session, and not before."""
    from net import serve

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    class Server:
        def __init__(self) -> None:
            self.sessions: set[object] = {object()}

    server = Server()
    garbage = Cycle()
    gone = weakref.ref(garbage)
    gc.freeze()
    del garbage
    task = asyncio.get_running_loop().create_task(
        serve.sweep_when_idle(server, every=0.01))  # type: ignore[arg-type]
    try:
        await asyncio.sleep(0.1)
        assert gone() is not None  # sessions open: frozen, not collected
        server.sessions = set()
        await until(lambda: gone() is None, 5, "the frozen garbage collected")
    finally:
        task.cancel()
        gc.unfreeze()
