"""Scale-out: the most tables ``serve --workers N`` holds at p99 ≤ 50 ms, for N = 1, 2, 4, 8,
on a machine with the cores for it, in ten minutes all told.

``.venv/bin/python -m bench.scale_out`` (16 cores: the server's process tree, supervisor, 8
workers and NATS, on cores 0-8, the load generator's client processes on 9-15) runs
``bench.bench_server``'s run (``MJ_BENCH_SERVER_CPUS`` and ``MJ_BENCH_CLIENT_CPUS`` pin the
two sides) at each worker count and looks for the most tables held at p99 ≤ 50 ms (a
timed-out key counted as slower than any): a first probe at a guess (``--guess`` tables a
worker for one worker; for the next count, what the last one held times the workers' ratio
times 0.8), then up or down by ``--step`` (×1.3) until one probe holds and one does not, then
halving the gap while it is over a tenth (at most ``--probes`` probes a count). Each probe is
a short run: ``MJ_BENCH_WARMUP`` (5) s of play, then ``MJ_BENCH_SECONDS`` (10) s measured
(``MJ_BENCH_STAGGER`` 5 s: the tables start over the warm-up); other ``MJ_BENCH_*`` settings of
``bench_server`` apply as there.

The time: ``--budget`` (600 s) for everything. A probe starts only if, by the probes so far
(a fixed part plus a part per table), it ends within the budget, and each worker count gets
an equal share of what is left; at the budget an alarm ends the probe running (its clients
killed, the server stopped) and what was found is reported.

Reported: a table (workers, tables held, p50 / p99 at that count, server CPU per key and as
cores, the clients' CPU as cores and the busiest client process's share of one core: near 1
would mean the load generator, not the server, was the limit; and the first count that was
not held), the ratios against one worker with the goals (2 workers ≥ 1.6 ×, 8 workers ≥ 5 ×),
and a JSON file of all of it and every probe (``--json``; by default in the temporary folder).

On fewer cores than it needs (twice the most workers: the workers + 1 for the server, the
rest for the clients) it refuses with one line. ``--dry-run`` runs it end to end at tiny sizes
on 2 cores: 1 and 2 workers, 5 tables first, at most 2 probes each, 5 s windows.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import multiprocessing as mp
import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

GOALS = {2: 1.6, 8: 5.0}  # tables held against one worker (issue 57)
NEXT_GUESS = 0.8  # the next count's first probe: last held × workers' ratio × this
MARGIN = 15.0  # s kept at the budget's end to stop a probe and report
# s a probe takes beyond its window and warm-up whatever its size (starting the server and
# the client processes, stopping them), assumed: the rest is counted per table
START_STOP = 10.0


class OutOfTime(BaseException):
    """The budget ran out during a probe (not an Exception: no ``except Exception`` of the
    run's may take it for a failed run)."""


@dataclass
class Count:
    """One worker count's search: every probe, the most tables held and the least not held."""

    workers: int
    probes: list[dict[str, Any]] = field(default_factory=list)
    held: dict[str, Any] | None = None  # the probe at the most tables held
    missed: dict[str, Any] | None = None  # the probe at the fewest tables not held

    @property
    def tables(self) -> int:
        return int(self.held["tables"]) if self.held else 0


def _plan(args: argparse.Namespace) -> tuple[list[int], list[int]] | str:
    """(server cores, client cores), or why not: from ``MJ_BENCH_SERVER_CPUS`` and
    ``MJ_BENCH_CLIENT_CPUS`` if given, else the workers + 1 cores first for the server and the
    rest for the clients (``--dry-run``: half and half)."""
    from bench.bench_server import cpu_list

    have = sorted(os.sched_getaffinity(0))
    top = max(args.workers)
    need = 2 if args.dry_run else 2 * top
    if len(have) < need:
        return (f"scale_out: needs {need} cores ({top + 1} for the server: {top} workers, the "
                f"supervisor and NATS; {need - top - 1} for the clients), this machine gives "
                f"{len(have)}; --dry-run runs 1 and 2 workers at 5 tables on 2")
    given = os.environ.get("MJ_BENCH_SERVER_CPUS"), os.environ.get("MJ_BENCH_CLIENT_CPUS")
    if all(given):
        server, clients = (sorted(cpu_list(str(g))) for g in given)
        if set(server) & set(clients) or not set(server + clients) <= set(have):
            return (f"scale_out: MJ_BENCH_SERVER_CPUS and MJ_BENCH_CLIENT_CPUS must be apart and "
                    f"among this process's cores {have}")
        return server, clients
    split = len(have) // 2 if args.dry_run else top + 1
    return have[:split], have[split:]


def _cpus_text(cpus: list[int]) -> str:
    """``0-8`` for 0..8, ``0,2,5-7`` otherwise (``taskset -c``'s form)."""
    runs: list[list[int]] = []
    for c in cpus:
        if runs and c == runs[-1][-1] + 1:
            runs[-1].append(c)
        else:
            runs.append([c])
    return ",".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)


def _summary(r: dict[str, Any], tables: int, took: float) -> dict[str, Any]:
    """What the report keeps of one probe's run."""
    keys = ("p50_ms", "p99_ms", "p99_all_ms", "max_ms", "samples", "timeouts", "keys_per_s",
            "server_cpu", "server_ms_per_key", "server_parts", "client_cpu",
            "client_ms_per_key", "client_cpu_max", "lag_ms")
    return {"tables": tables, "took_s": round(took, 1), **{k: r.get(k) for k in keys},
            "client_processes": r.get("workers")}


class Search:
    """The probes of all worker counts, within one time budget."""

    def __init__(self, args: argparse.Namespace, seconds: float, warmup: float) -> None:
        self.args = args
        self.seconds = seconds
        self.fixed = warmup + seconds + 1.0  # a probe's play, whatever its size
        self.started = time.monotonic()
        self.deadline = self.started + args.budget - MARGIN
        self.per_table = 0.0  # s a probe took per table beyond the fixed part, at most
        self.stopped = ""  # why the search stopped early, if it did

    def estimate(self, tables: int) -> float:
        """How long a probe at ``tables`` takes, by the probes so far (a first guess before)."""
        return self.fixed + START_STOP + (self.per_table or 0.1) * tables

    def probe(self, workers: int, tables: int) -> dict[str, Any]:
        """One run at ``tables`` tables, ``workers`` server workers, cut off at the budget."""
        from bench.bench_server import _run

        t0 = time.monotonic()
        print(f"  {workers} worker{'s' if workers > 1 else ''}, {tables} tables ...", end="",
              flush=True)
        try:
            r = _run(tables, self.seconds, self.args.clients, workers)
        except Exception as exc:  # a run that fails (a server that fell over) holds nothing
            took = time.monotonic() - t0
            print(f" failed in {took:.0f} s: {exc}", flush=True)
            return {"tables": tables, "took_s": round(took, 1), "error": repr(exc)[:300],
                    "p99_all_ms": math.inf}
        took = time.monotonic() - t0
        self.per_table = max(self.per_table, max(0.0, took - self.fixed - START_STOP) / tables)
        s = _summary(r, tables, took)
        print(f" p50 {s['p50_ms']:.1f} / p99 {s['p99_ms']:.1f} ms, {s['timeouts']} timed out, "
              f"server {s['server_ms_per_key']:.2f} ms/key, clients {s['client_cpu']:.2f} cores "
              f"(busiest {s['client_cpu_max'] * 100:.0f}%) ({took:.0f} s)", flush=True)
        return s

    def count(self, found: Count, guess: int, counts_left: int) -> None:
        """The most tables ``found.workers`` holds at p99 ≤ the limit, within this count's
        share of the time left, into ``found`` probe by probe (an alarm may end it)."""
        a = self.args
        workers = found.workers
        share_end = time.monotonic() + (self.deadline - time.monotonic()) / counts_left
        n = max(a.unit, guess)
        tried: set[int] = set()
        while len(found.probes) < a.probes and n not in tried:
            end = time.monotonic() + self.estimate(n)
            if end > self.deadline or (found.probes and end > share_end):
                self.stopped = self.stopped or (
                    f"the budget: {workers} worker{'s' if workers > 1 else ''} stopped after "
                    f"{len(found.probes)} probe(s)")
                break
            tried.add(n)
            s = self.probe(workers, n)
            found.probes.append(s)
            if s["p99_all_ms"] <= a.p99:
                if found.held is None or n > found.tables:
                    found.held = s
            elif found.missed is None or n < found.missed["tables"]:
                found.missed = s
            lo = found.tables if found.held else None
            hi = int(found.missed["tables"]) if found.missed else None
            if lo is None:  # nothing held yet: down
                assert hi is not None
                n = min(hi - a.unit, a.unit * math.floor(hi / a.step / a.unit))
                if n < a.unit:
                    break
            elif hi is None:  # all held so far: up
                n = max(lo + a.unit, a.unit * math.ceil(lo * a.step / a.unit))
            else:  # between: halve the gap while it is over a tenth
                if hi - lo <= max(a.unit, lo / 10):
                    break
                n = a.unit * round((lo + hi) / 2 / a.unit)
                if n in (lo, hi):
                    break


def _report(counts: list[Count], cores: tuple[list[int], list[int]], args: argparse.Namespace,
            search: Search, settings: dict[str, Any]) -> dict[str, Any]:
    """The table, the ratios against one worker, and what goes into the JSON file."""
    server, clients = cores
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"\nMost tables held at p99 ≤ {args.p99:g} ms ({when}; server on cores "
          f"{_cpus_text(server)}, {args.clients} client processes on "
          f"{_cpus_text(clients)}; {settings['seconds']:g} s windows after "
          f"{settings['warmup']:g} s of play):\n")
    print("| workers | tables held | p50 / p99 there | server CPU a key | server CPU "
          f"(cores, of {len(server)}) | clients' CPU (cores, of {len(clients)}; busiest "
          "process) | first not held (p99) | probes |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for c in counts:
        h = c.held
        above = (f"{c.missed['tables']} ({c.missed['p99_all_ms']:.0f} ms)"
                 if c.missed else "none tried")
        if h is None:
            tried = ", ".join(str(p["tables"]) for p in c.probes)
            print(f"| {c.workers} | {f'none of {tried}' if tried else 'not measured'} | | | | | "
                  f"{above} | {len(c.probes)} |")
            continue
        print(f"| {c.workers} | {h['tables']} | {h['p50_ms']:.1f} / {h['p99_ms']:.1f} ms | "
              f"{h['server_ms_per_key']:.2f} ms | {h['server_cpu']:.2f} | "
              f"{h['client_cpu']:.2f} ({h['client_cpu_max'] * 100:.0f}%) | {above} | "
              f"{len(c.probes)} |")
    base = next((c for c in counts if c.workers == 1 and c.held), None)
    ratios: dict[str, Any] = {}
    if base is not None:
        print()
        for c in counts:
            if c.workers == 1:
                continue
            if not c.probes:
                print(f"{c.workers} workers: not measured")
                continue
            ratio = c.tables / base.tables
            per_key = (c.held["server_ms_per_key"] / base.held["server_ms_per_key"]
                       if c.held and base.held else None)
            goal = GOALS.get(c.workers)
            ratios[str(c.workers)] = {"tables": round(ratio, 2), "goal": goal,
                                      "met": None if goal is None else ratio >= goal,
                                      "server_ms_per_key": per_key and round(per_key, 2)}
            print(f"{c.workers} workers: ×{ratio:.2f} the tables of one"
                  + (f" (goal ≥ {goal:g}: {'met' if ratio >= goal else 'missed'})" if goal else "")
                  + (f", ×{per_key:.2f} the server CPU a key" if per_key else ""))
    else:
        print("\nno ratios: one worker held no count tried")
    if search.stopped:
        print(f"stopped early by {search.stopped}")
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "cpus": len(os.sched_getaffinity(0)), "server_cpus": _cpus_text(server),
        "client_cpus": _cpus_text(clients), "client_processes": args.clients,
        "p99_limit_ms": args.p99, "settings": settings,
        "elapsed_s": round(time.monotonic() - search.started, 1),
        "stopped_early": search.stopped or None,
        "counts": [{"workers": c.workers, "tables_held": c.tables,
                    "first_not_held": c.missed["tables"] if c.missed else None,
                    "held": c.held, "probes": c.probes} for c in counts],
        "ratios": ratios,
    }


def _reap() -> None:
    """End what a probe cut short by the alarm may have left running: the server's processes
    under this one (supervisor, workers, NATS, PostgreSQL), then the data folders of its runs."""
    from bench import proctree

    left = [pid for pid, p in proctree.tree(os.getpid()).items() if pid != os.getpid() and (
        proctree.role(p) in ("nats", "postgres", "worker")
        or "bench.instrumented_server" in p.cmdline)]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        end = time.monotonic() + 10
        while left and time.monotonic() < end:
            time.sleep(0.2)
            left = [pid for pid in left if Path(f"/proc/{pid}").exists()
                    and "Z" not in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1][:3]]


def _finite(value: Any) -> Any:
    """``value`` with infinities and NaNs as None (a p99 with timed-out keys is infinite): JSON
    has no such numbers."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _arguments(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.scale_out", description=__doc__.split(
        "\n\n")[0])
    p.add_argument("--dry-run", action="store_true",
                   help="1 and 2 workers at 5 tables first, 2 probes each, on 2 cores")
    p.add_argument("--workers", default=None, help="worker counts (default 1,2,4,8)")
    p.add_argument("--budget", type=float, default=None, help="seconds for all (default 600)")
    p.add_argument("--guess", type=int, default=None,
                   help="one worker's first probe, tables (default 50)")
    p.add_argument("--step", type=float, default=1.3, help="factor up or down (default 1.3)")
    p.add_argument("--probes", type=int, default=None, help="most probes a count (default 4)")
    p.add_argument("--clients", type=int, default=None,
                   help="client processes (default 2 a client core)")
    p.add_argument("--p99", type=float, default=50.0, help="the p99 to hold, ms (default 50)")
    p.add_argument("--json", default=None, help="the JSON file (default: in the temp folder)")
    args = p.parse_args(argv)
    small = args.dry_run
    args.workers = [int(w) for w in (args.workers or ("1,2" if small else "1,2,4,8")).split(",")]
    args.budget = args.budget or (300.0 if small else 600.0)
    args.guess = args.guess or (5 if small else 50)
    args.probes = args.probes or (2 if small else 4)
    args.unit = 1 if small else 5  # table counts are multiples of this
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(sys.argv[1:] if argv is None else argv)
    # bench_server reads these when imported: short windows, the tables' starts spread over
    # the warm-up (their hands then end at different moments)
    small = args.dry_run
    os.environ.setdefault("MJ_BENCH_WARMUP", "2" if small else "5")
    os.environ.setdefault("MJ_BENCH_STAGGER", "2" if small else "5")
    seconds = float(os.environ.setdefault("MJ_BENCH_SECONDS", "5" if small else "10"))
    cores = _plan(args)
    if isinstance(cores, str):
        print(cores)
        return 2
    server, clients = cores
    os.environ["MJ_BENCH_SERVER_CPUS"] = _cpus_text(server)
    os.environ["MJ_BENCH_CLIENT_CPUS"] = _cpus_text(clients)
    args.clients = args.clients or 2 * len(clients)
    warmup = float(os.environ["MJ_BENCH_WARMUP"])
    settings = {"seconds": seconds, "warmup": warmup,
                "stagger": float(os.environ["MJ_BENCH_STAGGER"]), "budget_s": args.budget,
                "workers": args.workers, "dry_run": small}
    search = Search(args, seconds, warmup)
    print(f"scale_out: workers {', '.join(map(str, args.workers))}; server on cores "
          f"{_cpus_text(server)}, {args.clients} client processes on {_cpus_text(clients)}; "
          f"{args.budget:g} s in all", flush=True)

    def out_of_time(_sig: int, _frame: FrameType | None) -> None:
        for child in mp.active_children():  # the clients: nothing waits for them now
            child.kill()
        raise OutOfTime

    signal.signal(signal.SIGALRM, out_of_time)
    signal.setitimer(signal.ITIMER_REAL, max(1.0, search.deadline + MARGIN / 3 - time.monotonic()))
    counts: list[Count] = []
    try:
        guess = args.guess
        for i, w in enumerate(args.workers):
            if counts and counts[-1].held:
                last = counts[-1]
                guess = args.unit * round(last.tables * w / last.workers * NEXT_GUESS / args.unit)
            elif counts:
                guess = args.guess * w
            if small:
                guess = args.guess
            print(f"{w} worker{'s' if w > 1 else ''}: first probe at {guess} tables", flush=True)
            counts.append(Count(w))
            search.count(counts[-1], guess, len(args.workers) - i)
    except OutOfTime:
        print(" cut short", flush=True)
        search.stopped = "; ".join(filter(None, [search.stopped,
                                                 "the budget's alarm, during a probe"]))
        _reap()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    done = {c.workers for c in counts}
    counts += [Count(w) for w in args.workers if w not in done]
    result = _report(counts, cores, args, search, settings)
    path = Path(args.json or Path(tempfile.gettempdir()) / time.strftime(
        "scale-out-%Y%m%d-%H%M%S.json", time.gmtime()))
    path.write_text(json.dumps(_finite(result), indent=1) + "\n")
    print(f"JSON: {path} ({result['elapsed_s']:.0f} s all told)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
