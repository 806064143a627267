"""``serve --metrics HOST:PORT``: the server's figures in the Prometheus text format.

The figures are counted where they happen, on the event loop, as plain numbers in
:data:`FIGURES` (an ``int`` added to, a list of bucket counts): nothing there locks, allocates
much or knows of Prometheus, so the counting hooks in the front, the runtime and the bus cost
an attribute lookup and an addition, and count whether or not metrics are served. What the
loop owns and changes (the sessions, the tables, the thinking pool, the bus's client, the
store's fault counts) is read by :class:`Sampler`, a task on the loop that once a second
copies it into one immutable :class:`Snapshot` and measures the loop's lag while it sleeps.

``prometheus_client``'s HTTP server runs in a thread of its own (:func:`serve_metrics`): a
scrape never runs on the event loop, and its collector (:class:`Collector`) reads only the
snapshot (one reference, swapped whole) and copies of the counters (``dict.copy`` and
``list`` of ints, each one step under the GIL), never a structure the loop is changing. It
answers ``/metrics`` alone (404 for any other path) and binds 127.0.0.1 unless told.

Under ``serve --workers N`` each worker serves its own figures on a port of its own
(``PORT + K - 1`` for worker K; see docs/operating.md for why not a supervisor's aggregate),
each line labelled with ``worker``.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary, WeakSet

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

SESSION_KINDS = ("bot", "plain", "screen")  # mahjong_sessions' kinds, each shown (0: none)
SAMPLE_SECONDS = 1.0  # the sampler's period: the gauges are at most this old
WAVE_SECONDS = 10.0  # a move's wave not answered by every screen by then is given up
WAVES_KEPT = 1_000  # tables with a wave open at once (one a table; beyond it, not measured)

# histogram bounds, seconds
LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
LAG_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
PAUSE_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1.0)


class Histogram:
    """Bucket counts (not cumulative), a sum and a count: ``observe`` is a few additions."""

    __slots__ = ("bounds", "counts", "total")

    def __init__(self, bounds: Sequence[float]) -> None:
        self.bounds = tuple(bounds)
        self.counts = [0] * (len(self.bounds) + 1)  # the last: above every bound
        self.total = 0.0

    def observe(self, value: float) -> None:
        i = 0
        for bound in self.bounds:
            if value <= bound:
                break
            i += 1
        self.counts[i] += 1
        self.total += value

    def copy(self) -> tuple[list[tuple[str, float]], float]:
        """Cumulative ``(le, count)`` pairs, ``+Inf`` last, and the sum: what a scrape shows."""
        counts, total = list(self.counts), self.total
        out, running = [], 0
        for bound, n in zip((*map(str, self.bounds), "+Inf"), counts, strict=True):
            running += n
            out.append((bound, float(running)))
        return out, total


@dataclass
class Figures:
    """What the server counts as it goes (each updated on the event loop, except the
    collector's pauses, counted by the thread that collects)."""

    actions: int = 0  # moves applied at this process's tables
    limits_hit: dict[str, int] = field(default_factory=dict)  # refusals, by the limit's name
    key_to_screens: Histogram = field(default_factory=lambda: Histogram(LATENCY_BUCKETS))
    loop_lag: Histogram = field(default_factory=lambda: Histogram(LAG_BUCKETS))
    gc_pauses: tuple[Histogram, ...] = field(
        default_factory=lambda: tuple(Histogram(PAUSE_BUCKETS) for _ in range(3)))

    def limit(self, name: str) -> None:
        """A refusal by the limit ``name`` (a field of :class:`net.limits.Limits`)."""
        self.limits_hit[name] = self.limits_hit.get(name, 0) + 1


FIGURES = Figures()


def limit_hit(name: str) -> None:
    """Count a refusal by the limit ``name`` (net/limits.py's field): the hooks' one call."""
    FIGURES.limit(name)


def action() -> None:
    FIGURES.actions += 1


# --- key → every screen ------------------------------------------------------------------------
# A move's latency as the server sees it: from the bytes of the key that made it arriving on
# the mover's channel to the frame of every screen the move changed being written to its
# channel. The driver stamps a client's first unanswered key (key_arrived); the seat's send
# opens a wave for its table (move_sent); the table's delivery names each client it updated
# (delivered); each driver's frame answers its client (frame_written); the last one closes the
# wave. Only clients with a screen on this process are waited for (a program's seat, or a
# session at another worker, has none here). One wave a table at a time: a move while one is
# open is not measured.

@dataclass
class _Wave:
    started: float
    waiting: set[int] = field(default_factory=set)  # id() of the clients still to draw
    delivered: bool = False


_keys: WeakKeyDictionary[Any, float] = WeakKeyDictionary()  # client -> its first key's time
_screens: WeakSet[Any] = WeakSet()  # clients that draw on a channel here
_waves: dict[int, _Wave] = {}  # id(table) -> its open wave
_client_wave: dict[int, int] = {}  # id(client) -> id(table) of the wave waiting for it


def key_arrived(client: Any) -> None:
    """A key's bytes for ``client``'s screen (the first one not yet answered by a frame)."""
    if client is None:
        return
    try:
        _screens.add(client)
        if client not in _keys:
            _keys[client] = time.perf_counter()
    except TypeError:  # a client that cannot be weakly referred to: not measured
        pass


def move_sent(client: Any, table: Any) -> None:
    """``client``'s seat sends a move to ``table``: its wave opens at the key's time."""
    try:
        started = _keys.pop(client, None)
    except TypeError:
        return
    if started is None:
        return
    now = time.perf_counter()
    key = id(table)
    wave = _waves.get(key)
    if wave is not None and now - wave.started < WAVE_SECONDS:
        return
    if wave is not None:
        _close(key, measured=False)
    if len(_waves) >= WAVES_KEPT:
        return
    _waves[key] = _Wave(started)


def move_refused(table: Any) -> None:
    """The move was refused: no wave."""
    if id(table) in _waves:
        _close(id(table), measured=False)


def delivered(table: Any, client: Any) -> None:
    """``table`` sent ``client`` an update: a wave open there waits for its screen."""
    wave = _waves.get(id(table))
    if wave is None:
        return
    wave.delivered = True
    try:
        drawn = client in _screens
    except TypeError:
        drawn = False
    if drawn:
        wave.waiting.add(id(client))
        _client_wave[id(client)] = id(table)


def frame_written(client: Any) -> None:
    """``client``'s screen was written to its channel."""
    if client is None:
        return
    try:
        _keys.pop(client, None)  # the key is answered on its own screen
    except TypeError:
        return
    key = _client_wave.pop(id(client), None)
    if key is None:
        return
    wave = _waves.get(key)
    if wave is None:
        return
    wave.waiting.discard(id(client))
    if wave.delivered and not wave.waiting:
        _close(key, measured=True)


def _close(key: int, measured: bool) -> None:
    wave = _waves.pop(key)
    for client in wave.waiting:
        _client_wave.pop(client, None)
    if measured:
        FIGURES.key_to_screens.observe(time.perf_counter() - wave.started)


# --- the collector's pauses -----------------------------------------------------------------

_gc_started: list[float] = []


def _gc_callback(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_started[:] = [time.perf_counter()]
    elif _gc_started:
        gen = min(2, max(0, int(info.get("generation", 0))))
        FIGURES.gc_pauses[gen].observe(time.perf_counter() - _gc_started[0])


def watch_collector() -> Callable[[], None]:
    """Time every collection; returns what stops it."""
    if _gc_callback not in gc.callbacks:
        gc.callbacks.append(_gc_callback)

    def stop() -> None:
        if _gc_callback in gc.callbacks:
            gc.callbacks.remove(_gc_callback)
    return stop


# --- what the loop owns, copied once a second ---------------------------------------------------

@dataclass(frozen=True)
class Snapshot:
    sessions: tuple[tuple[str, int], ...] = ()  # (kind, count)
    tables: tuple[tuple[str, str, int], ...] = ()  # (rules, state, count)
    thinking: tuple[tuple[str, float], ...] = ()  # the pool's figures, by name
    bus: tuple[tuple[str, float], ...] = ()  # the NATS client's counts, by name
    failovers: int = 0
    store_failures: int = 0
    store_fenced: int = 0
    store_dropped: int = 0


class Sampler:
    """On the loop: every :data:`SAMPLE_SECONDS`, the loop's lag (how late its sleep woke)
    into :attr:`Figures.loop_lag` and the server's state into :attr:`snapshot` (``read``
    returns it; an exception in ``read`` keeps the last one)."""

    def __init__(self, read: Callable[[], Snapshot], period: float = SAMPLE_SECONDS) -> None:
        self.read = read
        self.period = period
        self.snapshot = Snapshot()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.snapshot = self._read()
        self.task = asyncio.get_running_loop().create_task(self._run(), name="metrics")

    def _read(self) -> Snapshot:
        try:
            return self.read()
        except Exception:  # a structure in a state the read did not expect: next time
            return self.snapshot

    async def _run(self) -> None:
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(self.period)
            FIGURES.loop_lag.observe(max(0.0, time.perf_counter() - t0 - self.period))
            self.snapshot = self._read()

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.task = None


class Collector:
    """``prometheus_client``'s custom collector: called in the HTTP server's thread, it reads
    the sampler's snapshot and copies of :data:`FIGURES`, nothing else."""

    def __init__(self, sampler: Sampler, worker: str) -> None:
        self.sampler = sampler
        self.worker = worker

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import (
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )

        w = self.worker
        snap = self.sampler.snapshot
        figures = FIGURES

        sessions = GaugeMetricFamily("mahjong_sessions", "open sessions, by kind",
                                     labels=["worker", "kind"])
        for kind, n in snap.sessions:
            sessions.add_metric([w, kind], n)
        yield sessions
        tables = GaugeMetricFamily("mahjong_tables", "open tables, by ruleset and state",
                                   labels=["worker", "rules", "state"])
        for rules, state, n in snap.tables:
            tables.add_metric([w, rules, state], n)
        yield tables

        actions = CounterMetricFamily("mahjong_actions", "moves applied at this worker's "
                                      "tables (rate() of it: actions a second)",
                                      labels=["worker"])
        actions.add_metric([w], figures.actions)
        yield actions

        hits = CounterMetricFamily("mahjong_limit_hits", "refusals, by the limit's name "
                                   "(net/limits.py)", labels=["worker", "limit"])
        for name, n in sorted(figures.limits_hit.copy().items()):
            hits.add_metric([w, name], n)
        yield hits

        def histogram(name: str, doc: str, hist: Histogram, extra: tuple[str, ...] = (),
                      values: tuple[str, ...] = ()) -> HistogramMetricFamily:
            family = HistogramMetricFamily(name, doc, labels=["worker", *extra])
            buckets, total = hist.copy()
            family.add_metric([w, *values], buckets, total)
            return family

        yield histogram("mahjong_key_to_screens_seconds", "from a move's key arriving to the "
                        "frame of every screen it changed written", figures.key_to_screens)
        yield histogram("mahjong_loop_lag_seconds", "how late the event loop woke from a "
                        "sleep (sampled once a second)", figures.loop_lag)
        pauses = HistogramMetricFamily("mahjong_gc_pause_seconds", "the garbage collector's "
                                       "pauses, by generation", labels=["worker", "generation"])
        for gen, hist in enumerate(figures.gc_pauses):
            buckets, total = hist.copy()
            pauses.add_metric([w, str(gen)], buckets, total)
        yield pauses

        store = CounterMetricFamily("mahjong_store_write_failures", "store statements that "
                                    "failed (failed), writes refused to a stale owner "
                                    "(fenced), writes given up (dropped)",
                                    labels=["worker", "kind"])
        store.add_metric([w, "failed"], snap.store_failures)
        store.add_metric([w, "fenced"], snap.store_fenced)
        store.add_metric([w, "dropped"], snap.store_dropped)
        yield store

        thinking = GaugeMetricFamily("mahjong_thinking", "the computer players' pool: its "
                                     "queue (in_flight, max_queue) and decisions (pooled, "
                                     "and those handed to hard: over_budget, queue_full, "
                                     "failed, timed_out; counts since start)",
                                     labels=["worker", "figure"])
        for name, value in snap.thinking:
            thinking.add_metric([w, name], value)
        yield thinking

        bus = CounterMetricFamily("mahjong_bus", "the bus (NATS) client's counts: in_msgs, "
                                  "out_msgs, in_bytes, out_bytes, reconnects",
                                  labels=["worker", "figure"])
        for name, value in snap.bus:
            bus.add_metric([w, name], value)
        yield bus
        failovers = CounterMetricFamily("mahjong_failovers", "tables this worker took over "
                                        "from another", labels=["worker"])
        failovers.add_metric([w], snap.failovers)
        yield failovers


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``PORT`` alone (127.0.0.1), or ``[V6]:PORT``: ValueError saying what is
    wrong."""
    text = text.strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--metrics {text!r}: give HOST:PORT (a port 0-65535)")
    return host, int(port)


class MetricsServer:
    """The HTTP server in its thread: ``/metrics`` alone, 404 for every other path."""

    def __init__(self, httpd: WSGIServer, thread: threading.Thread) -> None:
        self.httpd = httpd
        self.thread = thread

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=2.0)


def serve_metrics(host: str, port: int, collector: Collector) -> MetricsServer:
    """Start the HTTP server for ``collector`` in a daemon thread (OSError: the address
    cannot be bound)."""
    import socket
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from prometheus_client import CollectorRegistry, make_wsgi_app
    from prometheus_client.exposition import ThreadingWSGIServer

    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    exposition = make_wsgi_app(registry, disable_compression=True)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if environ.get("PATH_INFO") != "/metrics" or environ.get("REQUEST_METHOD") not in (
                "GET", "HEAD"):
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not found: the figures are at /metrics\n"]
        return exposition(environ, start_response)

    class Quiet(WSGIRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass  # a scrape every few seconds is not a log line

    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                flags=socket.AI_PASSIVE)[0][0]
    server_class = type("MetricsHTTP", (ThreadingWSGIServer,), {"address_family": family})
    httpd: WSGIServer = make_server(host, port, app, server_class, handler_class=Quiet)
    thread = threading.Thread(target=httpd.serve_forever, name="metrics", daemon=True)
    thread.start()
    return MetricsServer(httpd, thread)


def snapshot_reader(server: Any) -> Callable[[], Snapshot]:
    """What the sampler reads of a :class:`net.front.server.MahjongServer` (duck-typed: the
    metrics know no SSH), on the loop."""

    # a gauge's series once shown stays, at 0 when nothing is counted there, so that a
    # scrape sees the sessions and tables fall to none rather than a series gone stale
    tables_seen: set[tuple[str, str]] = set()

    def read() -> Snapshot:
        sessions: dict[str, int] = dict.fromkeys(SESSION_KINDS, 0)
        for session in list(server.sessions):
            if getattr(session, "bot", None) is not None or getattr(session, "bot_channel",
                                                                      False):
                kind = "bot"
            elif getattr(session, "plain", None) is not None:
                kind = "plain"
            else:
                kind = "screen"
            sessions[kind] = sessions.get(kind, 0) + 1
        tables: dict[tuple[str, str], int] = dict.fromkeys(tables_seen, 0)
        for table in list(server.registry.tables.values()):
            state = getattr(table.state, "value", str(table.state))
            key = (str(table.rules), str(state).replace(" ", "_"))
            tables[key] = tables.get(key, 0) + 1
        tables_seen.update(tables)
        thinking: list[tuple[str, float]] = []
        pool = server.registry.config.thinking
        if pool is not None:
            stats = pool.stats
            thinking = [("in_flight", pool.in_flight), ("max_queue", pool.max_queue),
                        ("pooled", stats.pooled), ("over_budget", stats.over_budget),
                        ("queue_full", stats.queue_full), ("failed", stats.failed),
                        ("timed_out", stats.timed_out)]
        bus: list[tuple[str, float]] = []
        failovers = 0
        node = server.node
        if node is not None:
            failovers = int(getattr(node, "takeovers", 0))
            nc_stats = getattr(getattr(node, "nc", None), "stats", None)
            if isinstance(nc_stats, dict):
                bus = [(k, float(v)) for k, v in nc_stats.items()
                       if k in ("in_msgs", "out_msgs", "in_bytes", "out_bytes", "reconnects")]
        store = server.store
        return Snapshot(
            sessions=tuple(sorted(sessions.items())),
            tables=tuple(sorted((r, s, n) for (r, s), n in tables.items())),
            thinking=tuple(thinking), bus=tuple(bus), failovers=failovers,
            store_failures=int(getattr(store, "failures", 0)),
            store_fenced=int(getattr(store, "fenced", 0)),
            store_dropped=int(getattr(store, "dropped", 0)))
    return read
