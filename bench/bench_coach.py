"""The coach's answer time at a server (issue 56): how long a player waits after the coach's key.

A server is started as ``serve`` starts one (its thinking pool, ``--think-workers`` or one per
core but one), and each question goes through a session's coach as the SSH front makes it
(:func:`net.front.commands_run.session_coach`: the server's pool, one session's CPU share and
time limit from ``net.limits``). The decisions are real: seat E's decisions of more than one
action in games of four ``basic`` players at a coach table (every ruleset in turn), asked one
at a time (``--concurrent 1``, one player waiting) or several at once (players of several
tables asking together), each by a session of its own (a player asks about his own decisions;
one session asking N in a row would meet its own CPU share).

Reported: the median and the 99th percentile of the wall time from the ask to the answer, the
questions not answered (late, or refused as busy: the pool's queue holds two a worker, its
computer players' decisions and the coaches' together), the CPU the assessments took in the
workers (as the pool counts it) and the pool's processes' CPU as the kernel counts it (from
after their start), and that CPU as a share of the wall time of the run and of the machine's
cores. Run by hand::

    .venv/bin/python -m bench.bench_coach --n 200 --concurrent 1
    .venv/bin/python -m bench.bench_coach --n 200 --concurrent 4
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench import proctree
from engine.bots.basic import BasicPlayer
from engine.game import Game
from engine.rulesets import RULESETS
from engine.view import View, build_view
from host.coach import Advice
from net.front.commands_run import session_coach
from testkit.ssh import fast_config, start_server


def decisions(n: int, seed: int) -> list[View]:
    """``n`` decisions of seat E (more than one legal action) at coach tables, the rulesets
    in turn, one game after another from ``seed``."""
    out: list[View] = []
    player = BasicPlayer()
    rules = sorted(RULESETS)
    game_no = 0
    while len(out) < n:
        game = Game(rules[game_no % len(rules)], seed + game_no,
                    {"hands_per_game": 1, "coach": True})
        game_no += 1
        game.new_hand()
        hand = game.hand
        assert hand is not None
        while not hand.is_over and len(out) < n:
            view = build_view(hand, 0)
            if view.my_move and len(view.legal) > 1:
                out.append(view)
            seat = hand.to_act()[0]
            game.apply(seat, player.choose(build_view(hand, seat)))
    return out


def pct(xs: Sequence[float], p: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


async def run(n: int, concurrent: int, seed: int, workers: int | None) -> None:
    views = decisions(n, seed)
    with tempfile.TemporaryDirectory() as tmp:
        srv = await start_server(fast_config(Path(tmp), think_workers=workers))
        try:
            pool = srv.registry.config.thinking
            assert pool is not None, "the server runs no thinking pool"
            pool.warm()
            await asyncio.sleep(3.0)  # the workers started (their start is not an answer's)
            pids = pool.worker_pids()
            before = {pid: p for pid in pids if (p := proctree._read(pid)) is not None}
            cpu0 = pool.stats.coach_cpu_seconds
            waits: list[float] = []
            missed: dict[str, int] = {}
            started = time.monotonic()

            async def ask(view: View) -> None:
                coach = session_coach(srv)  # each player's own session
                assert coach is not None
                t0 = time.monotonic()
                advice: Advice = await coach.advise(view, None)
                if advice.assessment is None:  # refused or late: counted, not timed
                    missed[advice.why] = missed.get(advice.why, 0) + 1
                else:
                    waits.append(time.monotonic() - t0)

            for i in range(0, len(views), concurrent):
                await asyncio.gather(*(ask(v) for v in views[i:i + concurrent]))
            wall = time.monotonic() - started
            after = {pid: p for pid in pids if (p := proctree._read(pid)) is not None}
            kernel = sum(after[pid].cpu - before[pid].cpu for pid in after if pid in before)
            worker_cpu = pool.stats.coach_cpu_seconds - cpu0
        finally:
            await srv.close()
    cores = os.cpu_count() or 1
    print(f"{len(views)} coach questions, {concurrent} at a time, pool of {len(pids)} "
          f"worker(s), {cores} cores: {len(waits)} answered")
    if not waits:
        return
    print(f"  wait: median {statistics.median(waits) * 1000:.0f} ms, "
          f"p99 {pct(waits, 99) * 1000:.0f} ms, max {max(waits) * 1000:.0f} ms")
    print(f"  not answered: {missed or 'none'} (coach_busy: the pool's queue, shared with the "
          "computer players, was full)")
    print(f"  CPU in the workers: {worker_cpu:.1f} s ({worker_cpu / len(waits) * 1000:.0f} ms "
          f"an answer); the pool's processes (kernel): {kernel:.1f} s over {wall:.1f} s wall "
          f"= {kernel / wall:.2f} cores, {kernel / wall / cores:.0%} of the machine")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_coach",
                                 description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--n", type=int, default=100, help="decisions asked about")
    ap.add_argument("--concurrent", type=int, default=1, help="asked at once")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--think-workers", type=int, default=None,
                    help="the server's pool (default: one per core but one)")
    args = ap.parse_args(argv)
    asyncio.run(run(args.n, max(1, args.concurrent), args.seed, args.think_workers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
