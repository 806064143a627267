"""Session churn against the server's memory: sessions opened and closed by the thousand, and
the server's RSS, which should come back to where it started (``net/front/reclaim.py``).

For each kind of session, a fresh server in a process of its own (``testkit.ssh.start_server``
on a loopback port, temporary data folder, the collector set as ``mahjong-ssh serve`` sets it:
thresholds ``net.serve.GC_THRESHOLDS`` (``MJ_BENCH_GC=A,B,C``: others), what survives a middle
collection frozen (``net.serve.freeze_survivors``; ``MJ_BENCH_FREEZE=0`` leaves it out) and
``gc.freeze()`` after start-up; the per-address login and connection limits raised, since
every client comes from 127.0.0.1), and keyless PTY clients (``testkit.ssh.PtyClient(light=True)``)
in this process, ``--concurrency`` at a time:

  lobby   connect, see the lobby ("welcome"), close the connection
  table   ``join churnN`` (N = the session's number modulo the tables, never two sessions at
          once at one table, so no game starts), see the table's waiting screen, close

``--idle K`` keeps K lobby sessions open throughout (connected before the start figure), and
the server's CPU with them alone is measured first, over 5 s.

Reported per kind: the server's RSS (``/proc/PID/status``) at the start (after start-up and
the idle sessions), every ``--every`` sessions and at the end (3 s after the last one closed);
then, in the server, the longest stall of its event loop (how late a task sleeping 5 ms woke,
over the whole churn), the collector's pauses by generation (count and longest), the apps
``net.front.reclaim`` took apart (the mean and longest time, a turn of the loop each), and what a
full collection still finds at the end (objects, time) with RSS after it and after
``malloc_trim(0)`` (whether glibc keeps freed memory). The idle sessions are still open then:
that collection's time is the pause one would cost with them live. Loopback only; stops by
itself (each session has 20 s, the whole run ``--sessions`` x 1 s at most).

Run: ``.venv/bin/python -m bench.bench_churn --sessions 5000`` (the goal: within 20 MB of the
start after 5,000), ``--kind lobby``, ``--idle 100``; ``python -m bench churn`` runs 1,000 of
each kind. The machine may be shared: quote the figures with the load.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import dataclasses
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import RAISED_LIMITS, proctree
from net.serve import GC_THRESHOLDS
from testkit.fakes import rss_mb
from testkit.ssh import PtyClient, fast_config, start_server

KINDS = ("lobby", "table")
SESSION_TIMEOUT = 20.0
SETTLE = 3.0  # seconds after the last session before the end figure
IDLE_WINDOW = 5.0  # seconds the server's CPU is measured with the idle sessions alone
ROOT = Path(__file__).resolve().parent.parent


# --- the server's process ----------------------------------------------------------------
def _limits() -> Any:
    """The default limits with ``RAISED_LIMITS`` (those this version of the server has)."""
    try:
        from net.limits import Limits
    except ImportError:
        return None
    names = {f.name for f in dataclasses.fields(Limits)}
    raised: dict[str, Any] = {k: 10**6 for k in RAISED_LIMITS if k in names}
    return dataclasses.replace(Limits(), **raised)


class _Probes:
    """The event loop's stalls and the collector's pauses, in the server's process."""

    def __init__(self) -> None:
        self.longest_stall = 0.0
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._started = 0.0
        self._task: asyncio.Task[None] | None = None

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        elif self._started:
            self.pauses[info["generation"]].append(time.perf_counter() - self._started)

    async def _lag(self) -> None:
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(0.005)
            self.longest_stall = max(self.longest_stall, time.perf_counter() - t0 - 0.005)

    def start(self) -> None:
        gc.callbacks.append(self._gc)
        self._task = asyncio.get_running_loop().create_task(self._lag())

    def stop(self) -> None:
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)
        if self._task is not None:
            self._task.cancel()


def _reclaim_stats() -> dict[str, Any]:
    try:
        from net.front import reclaim
    except ImportError:
        return {}
    stats = getattr(reclaim, "stats", None)
    return dataclasses.asdict(stats()) if stats is not None else {}


async def _serve(data: Path) -> None:
    # as net.serve.main sets them, or ``MJ_BENCH_GC=A,B,C`` (as bench server takes it)
    wanted = os.environ.get("MJ_BENCH_GC")
    gc.set_threshold(*(tuple(int(x) for x in wanted.split(",")) if wanted else GC_THRESHOLDS))
    if os.environ.get("MJ_BENCH_FREEZE") != "0":  # as net.serve.main does (0: as before it)
        with contextlib.suppress(ImportError):
            from net.serve import freeze_survivors
            freeze_survivors()
    limits = _limits()
    config = fast_config(data, limits=limits) if limits is not None else fast_config(data)
    server = await start_server(config)
    gc.collect()
    gc.freeze()  # as net.serve.serve does after start-up
    probes = _Probes()
    loop = asyncio.get_running_loop()
    commands: asyncio.Queue[str] = asyncio.Queue()
    loop.add_reader(sys.stdin.fileno(), lambda: commands.put_nowait(sys.stdin.readline()))
    print(json.dumps({"port": server.port}), flush=True)
    try:
        while True:
            command = (await commands.get()).strip()
            if command == "start":
                probes.start()
                print(json.dumps({"started": True}), flush=True)
            elif command == "report" or not command:  # "" : the parent went away
                probes.stop()
                report: dict[str, Any] = {
                    "longest_stall": probes.longest_stall,
                    "pauses": {g: [len(p), max(p, default=0.0)] for g, p in probes.pauses.items()},
                    "reclaim": _reclaim_stats(), "rss": rss_mb()}
                t0 = time.perf_counter()
                report["collected"] = gc.collect()
                report["collect_seconds"] = time.perf_counter() - t0
                report["rss_collected"] = rss_mb()
                gc.unfreeze()  # what the frozen objects held that a collection frees
                report["frozen_collected"] = gc.collect()
                report["rss_collected"] = rss_mb()
                with contextlib.suppress(OSError, AttributeError):
                    ctypes.CDLL("libc.so.6").malloc_trim(0)
                report["rss_trimmed"] = rss_mb()
                print(json.dumps(report), flush=True)
                return
    finally:
        loop.remove_reader(sys.stdin.fileno())
        await server.close()


def _serve_main() -> int:
    with tempfile.TemporaryDirectory(prefix="mj-churn-") as tmp:
        asyncio.run(_serve(Path(tmp)))
    return 0


# --- the clients (this process) ----------------------------------------------------------
async def _session(port: int, kind: str, i: int, tables: int) -> None:
    client = PtyClient(light=True)
    client.keep_raw = False
    try:
        if kind == "lobby":
            await client.connect(port, f"churn{i}", None, command=None)
            await client.wait_for("welcome", SESSION_TIMEOUT)
        else:
            table = f"churn{i % tables}"
            await client.connect(port, f"churn{i}", None, command=f"join {table}")
            await client.wait_for(f"牌桌 {table}", SESSION_TIMEOUT)
    finally:
        await client.close()


async def _churn(kind: str, sessions: int, concurrency: int, every: int, idle: int) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.bench_churn", "--serve", cwd=ROOT,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    async def reply() -> dict[str, Any]:
        line = await asyncio.wait_for(stdout.readline(), 120)
        if not line:
            raise RuntimeError("the server's process ended")
        return dict(json.loads(line))

    async def send(command: str) -> dict[str, Any]:
        stdin.write(command.encode() + b"\n")
        await stdin.drain()
        return await reply()

    held: list[PtyClient] = []
    try:
        port = int((await reply())["port"])
        for j in range(idle):
            c = PtyClient(light=True)
            c.keep_raw = False
            await c.connect(port, f"idle{j}", None, command=None)
            await c.wait_for("welcome", SESSION_TIMEOUT)
            held.append(c)
        await asyncio.sleep(1.0)
        # the server's CPU with only the idle sessions open: what a lobby full of people who
        # do nothing costs the host
        before = proctree.tree(proc.pid)
        await asyncio.sleep(IDLE_WINDOW)
        after = proctree.tree(proc.pid)
        idle_cpu = sum(p.cpu for p in after.values()) - sum(p.cpu for p in before.values())
        start = rss_mb(proc.pid)
        await send("start")
        print(f"{kind} sessions: {sessions}, {concurrency} at a time, {idle} idle sessions "
              f"open (the server's CPU with them alone: {idle_cpu / IDLE_WINDOW * 100:.1f}% of a "
              f"core); load {os.getloadavg()[0]:.1f}", flush=True)
        print(f"{'sessions':>9} {'RSS MB':>8} {'change':>8}", flush=True)
        print(f"{0:>9} {start:>8.1f} {0:>+8.1f}", flush=True)
        tables = max(8, concurrency)
        ended = 0
        failed = 0
        deadline = time.monotonic() + max(60.0, sessions * 1.0)
        queue = iter(range(sessions))

        async def worker() -> None:
            nonlocal ended, failed
            for i in queue:
                if time.monotonic() > deadline:
                    return
                try:
                    await _session(port, kind, i, tables)
                except Exception:
                    failed += 1
                ended += 1
                if ended % every == 0 and ended < sessions:
                    rss = rss_mb(proc.pid)
                    print(f"{ended:>9} {rss:>8.1f} {rss - start:>+8.1f}", flush=True)

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        took = time.perf_counter() - t0
        await asyncio.sleep(SETTLE)
        end = rss_mb(proc.pid)
        print(f"{ended:>9} {end:>8.1f} {end - start:>+8.1f}  (end, {SETTLE:g} s after the last; "
              f"{ended / took:.0f} sessions/s; {failed} failed)", flush=True)
        report = await send("report")  # with the idle sessions still open
    finally:
        for c in held:
            await c.close()
        with contextlib.suppress(Exception):
            stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
    pauses = report["pauses"]
    print(f"longest loop stall {report['longest_stall'] * 1000:.0f} ms; collector pauses: "
          + ", ".join(f"gen {g}: {n} (longest {m * 1000:.1f} ms)"
                      for g, (n, m) in sorted(pauses.items())), flush=True)
    rec = report.get("reclaim") or {}
    if rec:
        released = rec.get("released", 0)
        mean = rec.get("release_seconds", 0.0) / released if released else 0.0
        print(f"reclaim: {released} of {rec.get('apps', 0)} apps taken apart "
              f"({rec.get('nodes', 0)} nodes), {mean * 1000:.1f} ms each, longest "
              f"{rec.get('longest_release', 0) * 1000:.1f} ms; {rec.get('connections', 0)} "
              f"connections let go of", flush=True)
    else:
        print("reclaim: none (this server has no net.front.reclaim.stats)", flush=True)
    print(f"then a full collection ({idle} idle sessions open) found {report['collected']} "
          f"objects in {report['collect_seconds'] * 1000:.0f} ms: RSS {report['rss']:.1f} -> "
          f"{report['rss_collected']:.1f} MB, after malloc_trim {report['rss_trimmed']:.1f} MB"
          f" (start {start:.1f}); the frozen objects collected then freed "
          f"{report.get('frozen_collected', 0)}", flush=True)


def _parse(argv: list[str]) -> argparse.Namespace:
    def positive(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a whole number, got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
        return value

    parser = argparse.ArgumentParser(prog="python -m bench.bench_churn",
                                     description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sessions", type=positive, default=1000,
                        help="sessions of each kind (default 1000; 5000 is the goal's figure)")
    parser.add_argument("--kind", action="append", choices=KINDS,
                        help="this kind only (repeatable; default both)")
    parser.add_argument("--concurrency", type=positive, default=4,
                        help="sessions open at once (default 4)")
    parser.add_argument("--every", type=positive, default=500,
                        help="RSS every this many sessions (default 500)")
    parser.add_argument("--idle", type=int, default=0,
                        help="lobby sessions kept open throughout (default 0)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.idle < 0 or args.idle > 500:
        parser.error("--idle takes 0 to 500")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv if argv is not None else [])
    if args.serve:
        return _serve_main()
    print(f"{os.cpu_count()} CPUs; goal: RSS within 20 MB of the start", flush=True)
    for kind in args.kind or KINDS:
        asyncio.run(_churn(kind, args.sessions, args.concurrency, args.every, args.idle))
        print(flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
