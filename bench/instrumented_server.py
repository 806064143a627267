"""``mahjong-ssh serve`` with two probes for the server benchmark, written as JSON on exit to
the file named by ``MJ_BENCH_STATS``: the garbage collector's pauses (per generation) and the
event loop's lag (how late a 5 ms sleep wakes up), both from the moment ``MJ_BENCH_MARK``'s
file appears (the start of the measuring window) so start-up and connecting are left out.
With ``MJ_BENCH_SLOW=1`` it also records the loop's turns that ran longer than 30 ms: the CPU
they took, how many callbacks were ready, and which of them took more than 4 ms (for a session
task, its name) — what a latency spike was made of — and every callback over 4 ms by kind
(count and total time). With ``MJ_BENCH_GARBAGE=1`` it counts
the cyclic garbage found while measuring, by type. ``MJ_BENCH_GC=A,B,C`` sets the collector's
thresholds instead of the server's own; ``MJ_BENCH_FULLGC=S`` times one full collection S s
(``1``: 5 s) into the window (``full_gc``: objects collected, seconds, objects tracked, objects
frozen), then collects the frozen generation too (objects it freed, seconds);
``MJ_BENCH_FREEZE=0`` leaves out ``net.serve.freeze_survivors``;
``MJ_BENCH_YOUNG=1`` counts by type what the first five middle-generation collections scan
(``MJ_BENCH_YOUNG=0``: young collections), weighing a container by its length + 1 (its pauses
are then longer: for finding out what to cut, not for timing). The expert players' thinking
pool's counts over the window (decisions in the pool and by ``hard`` instead) are in
``thinking``.

Run as ``python -m bench.instrumented_server serve ...`` (the same arguments as ``serve``).
With ``--workers N`` the supervisor starts each worker as this same module (``-m`` of its own
``__main__``), so every worker is probed too, each writing a file of its own (``stats_path``).
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import cli.main
import net.serve

STATS: dict[str, Any] = {"gc": {"0": [], "1": [], "2": []}, "gc_cpu": {"0": [], "1": [], "2": []},
                         "gc_collected": [], "lag": []}
_started: list[float] = []
_in_burst: list[tuple[float, str]] = []


_MARK = os.environ.get("MJ_BENCH_MARK")
_mark_seen: list[float] = [0.0, 0.0]  # (checked at, found) of the last look at the file


def _measuring() -> bool:
    """Whether the measuring window is open (its mark file exists), looked up at most every
    0.2 s: a ``stat`` at every probe tick and collection would add to the CPU it measures."""
    if _MARK is None:
        return False
    now = time.monotonic()
    if now - _mark_seen[0] > 0.2:
        _mark_seen[:] = [now, float(Path(_MARK).exists())]
    return bool(_mark_seen[1])


def _gc_probe(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _started[:] = [time.perf_counter(), time.thread_time()]
    elif _started and _measuring():
        gen = str(info["generation"])
        STATS["gc"][gen].append(time.perf_counter() - _started[0])
        STATS["gc_cpu"][gen].append(time.thread_time() - _started[1])
        STATS["gc_collected"].append(info["collected"])


async def _lag_probe() -> None:
    full_at = None
    while True:
        t0 = time.perf_counter()
        await asyncio.sleep(0.005)
        if _measuring():
            STATS["lag"].append(time.perf_counter() - t0 - 0.005)
            after = float(os.environ.get("MJ_BENCH_FULLGC") or 0)
            if after and full_at is None:
                full_at = t0 + (5.0 if after == 1 else after)
            if full_at is not None and t0 > full_at:  # one full collection, timed
                full_at = float("inf")
                c0 = time.perf_counter()
                collected = gc.collect()
                took = time.perf_counter() - c0
                frozen = gc.get_freeze_count()
                # what the frozen generation holds that only a collection of it would free:
                # the garbage a server that freezes its survivors keeps (net.serve)
                gc.unfreeze()
                gc.set_debug(gc.DEBUG_SAVEALL)  # what it is, by type
                c1 = time.perf_counter()
                kept = gc.collect()
                took_kept = time.perf_counter() - c1
                gc.set_debug(0)
                kinds: dict[str, int] = {}
                for o in gc.garbage:
                    name = f"{type(o).__module__}.{type(o).__qualname__}"
                    kinds[name] = kinds.get(name, 0) + 1
                gc.garbage.clear()
                nodes = [(k, n) for k, n in kinds.items() if not k.startswith(
                    ("builtins.", "weakref.", "_weakrefset.", "collections.", "asyncio."))]
                STATS["full_gc"] = (collected, took, len(gc.get_objects()), frozen, kept,
                                    took_kept, sorted(kinds.items(), key=lambda kv: -kv[1])[:12]
                                    + sorted(nodes, key=lambda kv: -kv[1])[12:40])
                gc.freeze()


_serve = net.serve.serve


THINKING = ("pooled", "cpu_seconds", "over_budget", "queue_full", "failed", "timed_out",
            "restarts")


async def _thinking_probe(config: Any) -> None:
    """The thinking pool's counts (host.thinking) over the measuring window: the first and last
    look while it is open, a difference in ``STATS["thinking"]``."""
    first = None
    while True:
        await asyncio.sleep(0.2)
        pool = config.table.thinking
        if pool is None or not _measuring():
            continue
        now = {k: getattr(pool.stats, k) for k in THINKING}
        first = first or now
        STATS["thinking"] = {k: now[k] - first[k] for k in THINKING}


async def _serve_probed(*args: Any, **kwargs: Any) -> None:
    thresholds = os.environ.get("MJ_BENCH_GC")  # e.g. "10000,5,100": try other thresholds
    if thresholds:
        gc.set_threshold(*(int(x) for x in thresholds.split(",")))
    tasks = [asyncio.create_task(_lag_probe()),
             asyncio.create_task(_thinking_probe(args[0] if args else kwargs["config"]))]
    try:
        await _serve(*args, **kwargs)
    finally:
        for task in tasks:
            task.cancel()


def _garbage_probe() -> None:
    """Keep what the collector finds while measuring (``gc.DEBUG_SAVEALL``) and count it by
    type on exit: where cyclic garbage comes from."""
    saving = False

    def probe(phase: str, info: dict[str, int]) -> None:
        nonlocal saving
        if phase == "start" and _measuring() != saving:
            saving = not saving
            gc.set_debug(gc.DEBUG_SAVEALL if saving else 0)

    gc.callbacks.append(probe)

    def count() -> None:
        gc.set_debug(0)
        kinds: dict[str, int] = {}
        for o in gc.garbage:
            name = type(o).__qualname__
            kinds[name] = kinds.get(name, 0) + 1
        STATS["garbage"] = sorted(kinds.items(), key=lambda kv: -kv[1])[:40]

    atexit.register(count)


def _young_probe() -> None:
    """What a collection has to scan: at the start of up to 5 of them while measuring, the
    objects of the generations it collects, by type, each container weighed by its length + 1
    (``MJ_BENCH_YOUNG=1``: middle-generation collections, ``0``: young ones)."""
    kinds: dict[str, int] = {}
    seen = [0, 0, 0]  # collections sampled, objects seen, of which in generation 0
    which = int(os.environ.get("MJ_BENCH_YOUNG", "1"))  # 1: middle collections; 0: young

    def probe(phase: str, info: dict[str, int]) -> None:
        if phase != "start" or info["generation"] != which or seen[0] >= 5 or not _measuring():
            return
        seen[0] += 1
        for gen in range(which + 1):
            for o in gc.get_objects(generation=gen):
                name = type(o).__qualname__
                if type(o) is tuple:  # by what they hold
                    name = f"tuple{len(o)}({','.join(type(x).__name__ for x in o[:3])})"
                elif type(o) is list:
                    name = f"list[{type(o[0]).__name__ if o else ''}]"
                elif type(o) is dict:  # by its first key: a name, or the keys' type
                    try:  # (a computer player's thread may be changing it)
                        first = next(iter(o), None)
                    except RuntimeError:
                        first = None
                    name = f"dict[{first[:24] if isinstance(first, str) else type(first).__name__}]"
                weight = 1 + len(o) if isinstance(o, (list, tuple, dict, set)) else 1
                kinds[name] = kinds.get(name, 0) + weight
                seen[1] += 1
                seen[2] += gen == 0
        STATS["young"] = [seen[0], seen[1], seen[2],
                          sorted(kinds.items(), key=lambda kv: -kv[1])[:30]]

    gc.callbacks.insert(0, probe)  # before the pause probe starts its clock


def stats_path(path: str, argv: list[str], pid: int) -> Path:
    """Where this process writes its probes: ``path`` itself for the single server, with the
    pid in the name for each process of a server with workers (its supervisor, ``--workers``,
    and each worker, ``--worker K``), which all write; the benchmark merges them."""
    if any(a == "--workers" or a.startswith(("--workers=", "--worker")) for a in argv):
        p = Path(path)
        return p.with_name(f"{p.stem}-{pid}{p.suffix}")
    return Path(path)


def _write() -> None:
    path = os.environ.get("MJ_BENCH_STATS")
    if path:
        stats_path(path, sys.argv[1:], os.getpid()).write_text(json.dumps(STATS))


def _slow_callbacks(limit: float = 0.03) -> None:
    """Record the loop callbacks that ran longer than ``limit`` (what made the lag)."""
    run = asyncio.events.Handle._run
    STATS["slow"] = []
    kinds: dict[str, tuple[int, float]] = {}
    STATS["slow_kinds"] = kinds  # callbacks over 4 ms while measuring: label → (count, s)

    def timed(self: asyncio.events.Handle) -> None:
        t0 = time.perf_counter()
        run(self)
        took = time.perf_counter() - t0
        if took > 0.004:
            what = repr(self)[:160]
            task = getattr(self._callback, "__self__", None)  # type: ignore[attr-defined]
            if isinstance(task, asyncio.Task):
                coro = task.get_coro()
                what = f"{getattr(coro, '__qualname__', coro)} [{task.get_name()}]"
            _in_burst.append((round(took * 1000, 1), what))
            if _measuring():  # by kind: the label without the object's own name
                kind = re.sub(r"\[.*?\]|\(.*?\)|<|>| at 0x[0-9a-f]+", "", what)[:60]
                n, total = kinds.get(kind, (0, 0.0))
                kinds[kind] = (n + 1, total + took)
        if took > limit and _measuring():
            STATS["slow"].append((took, repr(self)[:300]))

    asyncio.events.Handle._run = timed  # type: ignore[method-assign]
    once = asyncio.base_events.BaseEventLoop._run_once  # type: ignore[attr-defined]
    STATS["bursts"] = []

    def timed_once(self: asyncio.AbstractEventLoop) -> None:
        _in_burst.clear()
        ready = len(self._ready)  # type: ignore[attr-defined]
        t0, c0 = time.perf_counter(), time.thread_time()
        once(self)
        took = time.perf_counter() - t0
        if took > limit and _measuring():
            STATS["bursts"].append((took, time.thread_time() - c0, ready, list(_in_burst)))

    asyncio.base_events.BaseEventLoop._run_once = timed_once  # type: ignore[attr-defined]


if __name__ == "__main__":
    atexit.register(_write)  # runs last: after the probes' own exit handlers
    if os.environ.get("MJ_BENCH_SLOW"):
        _slow_callbacks()
    if os.environ.get("MJ_BENCH_GARBAGE"):
        _garbage_probe()
    gc.callbacks.append(_gc_probe)
    if os.environ.get("MJ_BENCH_YOUNG"):
        _young_probe()
    if os.environ.get("MJ_BENCH_FREEZE") == "0":  # the server as before it froze survivors
        net.serve.freeze_survivors = lambda: None
    net.serve.serve = _serve_probed
    sys.exit(cli.main.main(sys.argv[1:]))
