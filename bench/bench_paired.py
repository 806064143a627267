"""Paired deals: one level against another in the same seat, the same deal, the same opponents.

Every deal (the first hand of a one-hand game with the deal's seed, as ``simulate
--duplicate`` makes them) is played four times with the ``test`` level in one seat in turn
and the ``opp`` level in the three others. While it plays, each of its decisions is compared
with what the ``base`` level would have chosen in the same view; when none differs the hand
would have gone exactly the same with ``base`` in that seat (every player is deterministic),
so the difference is 0 without playing it; otherwise the deal is replayed with ``base`` in
that seat and the difference of the seat's nets is counted. The luck of the deal cancels out
of the difference entirely, so far fewer deals measure an edge than in duplicate mode.

Run by hand (CPU-heavy with ``expert``)::

    .venv/bin/python -m bench.bench_paired --rules yichun --deals 200 --seed 11 \\
        --test expert --base hard --opp hard --jobs 2

The figures: mean difference per hand (test − base) with its 95% interval over deals, the
share of hands where a decision differed, wins and deal-ins of each in the differing hands,
and the test level's decision times.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from engine.actions import Action
from engine.bots import Player, make_player
from engine.game import Game
from engine.simulate import _dealt_in
from engine.table import Hand
from engine.view import View, build_view

if TYPE_CHECKING:
    from engine.bots.expert import ExpertPlayer

J = TypeVar("J")
R = TypeVar("R")


class Watched:
    """The test player, noting whether any decision differs from ``base``'s and timing it."""

    def __init__(self, test: Player, base: Player, times: list[float]) -> None:
        self.test, self.base, self.times = test, base, times
        self.differed = False

    def choose(self, view: View) -> Action:
        started = time.process_time()
        action = self.test.choose(view)
        self.times.append(time.process_time() - started)
        if not self.differed and action != self.base.choose(view):
            self.differed = True
        return action


def tuned_expert(samples: int, recheck: int, claims: bool = True, bao: bool = True,
                 fly: bool = False) -> ExpertPlayer:
    """An expert with the switches its experiments tried and the product left: ``claims``
    (chi, peng and pass searched), ``bao`` (a playout's self-drawn 宝吊头 win valued as a 宝吊
    win, not a plain wild hand) and ``fly`` (throwing a wild, 飞宝, searched beside hard's choice
    while the hand stays ready without it)."""
    from engine.actions import ActionType
    from engine.bots import expert, playout
    from engine.bots.normal import Seat
    from engine.situation import BaoDiao
    from engine.table import Phase

    class TunedExpert(expert.ExpertPlayer):
        search_claims, baodiao, flying = claims, bao, fly

        def candidates(self, view: View, hard: Action, force: bool = False) -> list[Action]:
            if not self.search_claims and not force and view.phase is Phase.CLAIM:
                return [hard]
            cands = super().candidates(view, hard, force)
            if self.flying and view.phase is Phase.TURN and view.current == view.viewer and (
                    (hard.type is ActionType.WIN and Action.win() in view.legal)
                    or (hard.type is ActionType.DISCARD and not hard.ting)):
                thrown = self.wild_thrown(Seat.of(view), hard)
                if thrown is not None and thrown not in cands:
                    cands.append(thrown)
            return cands

        @staticmethod
        def wild_thrown(seat: Seat, hard: Action) -> Action | None:
            """Throwing the wild when the hand is still ready without it (the seat's own wins
            then pay it twice as much, the others' cost it twice as much: a win declined for a
            later one worth twice as much); ``None``: not searched."""
            wild = seat.wild
            if wild is None or not seat.wilds or hard.tile == wild:
                return None
            action = Action.discard(wild)
            if action not in seat.view.legal:
                return None
            left = seat.evaluator().shapes(seat.counts, seat.wilds - 1)
            return action if min(left.values()) <= 1 else None  # 1: ready (a 3n+1 hand)

        def _results(self, *args: Any, **kwargs: Any) -> dict[Action, list[float]]:
            if self.baodiao:
                return super()._results(*args, **kwargs)
            real = playout._Context.baodiao_of
            playout._Context.baodiao_of = lambda _ctx, _counts: BaoDiao.NONE  # type: ignore[method-assign, assignment]
            try:
                return super()._results(*args, **kwargs)
            finally:
                playout._Context.baodiao_of = real  # type: ignore[method-assign]

    return TunedExpert(samples=samples, recheck=recheck)


def player(label: str) -> Player:
    """A level, or ``expert:close=0,claims=0,read=0,recheck=0,samples=32,max=96,gap=0.5,risk=0.2``
    for an expert with parts of its search off or resized (``close=0``: close discards searched
    in no ruleset, ``close=all``: in every one, ``close=1``: in SEARCH_CLOSE's; ``read=0``: its
    sampler does not read the opponents' ponds; ``recheck=N``: a change of hard's choice is
    rechecked on N fresh samples, 0 not at all; ``samples`` / ``max``: the samples a decision
    starts with and may grow to; ``gap``: hard's best two discards within this many points are
    searched, CLOSE; ``risk``: the discards are searched when an opponent is ready with this
    chance, RISK_READY; ``z``: a change is kept when its gain on fresh samples is this many of
    its half widths, in every ruleset, ``none``: not rechecked, RECHECK_Z; ``bao=0``: its playouts
    value the seat's Shangrao 宝吊 wins as plain ones; ``fly=1``: it searches throwing a wild;
    ``claims=0``: it does not search chi, peng or pass: :func:`tuned_expert`)."""
    if label.startswith("expert:"):
        from engine.bots.expert import (
            CLOSE,
            MAX_SAMPLES,
            RECHECK,
            RECHECK_Z,
            RISK_READY,
            SAMPLES,
            SEARCH_CLOSE,
        )
        from engine.bots.playout import READ_KEEP
        from engine.rulesets import RULESETS
        try:
            flags = dict(x.split("=", 1) for x in label.split(":", 1)[1].split(","))
        except ValueError:
            raise SystemExit(f"{label!r}: expert flags are name=value, comma-separated") from None
        unknown = set(flags) - {"close", "claims", "read", "recheck", "samples", "max", "gap",
                                "risk", "z", "bao", "fly"}
        if unknown:
            raise SystemExit(f"{label!r}: unknown expert flag(s) {', '.join(sorted(unknown))}; "
                             "have close, claims, read, recheck, samples, max, gap, risk, z, bao, "
                             "fly")
        for name in ("claims", "read", "bao", "fly"):
            if flags.get(name, "1") not in ("0", "1"):
                raise SystemExit(f"{label!r}: {name} is 0 (off) or 1 (on)")
        counts = {"recheck": RECHECK, "samples": SAMPLES, "max": MAX_SAMPLES}
        for name in counts:
            value = flags.get(name, str(counts[name]))
            if not value.isdigit() or (name != "recheck" and int(value) < 2):
                raise SystemExit(f"{label!r}: {name} is a count of samples"
                                 + (" (0: none)" if name == "recheck" else " (2 or more)"))
            counts[name] = int(value)
        shares = {"gap": CLOSE, "risk": RISK_READY}
        for name in shares:
            try:
                shares[name] = float(flags.get(name, shares[name]))
            except ValueError:
                shares[name] = math.nan
            if not 0.0 <= shares[name] <= (100.0 if name == "gap" else 1.0):
                raise SystemExit(f"{label!r}: {name} is "
                                 + ("points (0 to 100)" if name == "gap" else "a chance (0 to 1)"))
        closes = {"0": frozenset(), "1": SEARCH_CLOSE, "all": frozenset(RULESETS)}
        if flags.get("close", "1") not in closes:
            raise SystemExit(f"{label!r}: close is 0 (no ruleset), 1 (SEARCH_CLOSE's) or all")
        z: dict[str, float | None] = dict(RECHECK_Z)
        if "z" in flags:
            try:
                zf = None if flags["z"] == "none" else float(flags["z"])
            except ValueError:
                zf = math.nan
            if zf is not None and not 0.0 <= zf <= 10.0:
                raise SystemExit(f"{label!r}: z is half widths (0 to 10) or none")
            z = dict.fromkeys(RECHECK_Z, zf)
        tuned = tuned_expert(counts["samples"], counts["recheck"],
                             claims=flags.get("claims", "1") == "1",
                             bao=flags.get("bao", "1") == "1", fly=flags.get("fly", "0") == "1")
        tuned.max_samples = max(counts["samples"], counts["max"])
        tuned.search_close = closes[flags.get("close", "1")]
        tuned.close, tuned.risk_ready, tuned.recheck_z = shares["gap"], shares["risk"], z
        if flags.get("read", "1") == "0":  # the ponds unread: every wait kept
            tuned.keep = dict.fromkeys(READ_KEEP, 1.0)
        return tuned
    try:
        return make_player(label)
    except ValueError as e:
        raise SystemExit(str(e)) from None


def each(fn: Callable[[J], R], jobs: Sequence[J], workers: int) -> Iterator[R]:
    """``fn`` of each job, in order: in ``workers`` processes (one a job at a time), or here."""
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            yield from pool.map(fn, jobs, chunksize=1)
    else:
        for j in jobs:
            yield fn(j)


def play(rules: str, deal_seed: int, players: list[Player]) -> Hand:
    game = Game(rules, deal_seed, {"hands_per_game": 1})
    hand = game.new_hand()
    while not hand.is_over:
        seat = hand.to_act()[0]
        hand.apply(seat, players[seat].choose(build_view(hand, seat)))
    return hand


@dataclass
class DealResult:
    diffs: list[float] = field(default_factory=list)  # per seat: test − base
    differed: int = 0
    test_wins: int = 0
    base_wins: int = 0
    test_deal_ins: int = 0
    base_deal_ins: int = 0
    times: list[float] = field(default_factory=list)


def one_deal(args: tuple[str, int, str, str, str]) -> DealResult:
    rules, deal_seed, test, base, opp = args
    out = DealResult()
    for seat in range(4):
        watched = Watched(player(test), player(base), out.times)
        players: list[Player] = [make_player(opp) for _ in range(4)]
        players[seat] = watched
        hand = play(rules, deal_seed, players)
        assert hand.settlement is not None
        if not watched.differed:
            out.diffs.append(0.0)
            continue
        out.differed += 1
        players = [make_player(opp) for _ in range(4)]
        players[seat] = player(base)
        again = play(rules, deal_seed, players)
        assert again.settlement is not None
        out.diffs.append(float(hand.settlement.seats[seat] - again.settlement.seats[seat]))
        out.test_wins += any(w.seat == seat for w in hand.settlement.wins)
        out.base_wins += any(w.seat == seat for w in again.settlement.wins)
        out.test_deal_ins += seat in _dealt_in(hand)
        out.base_deal_ins += seat in _dealt_in(again)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_paired", description=__doc__)
    ap.add_argument("--rules", default="yichun")
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--test", default="expert")
    ap.add_argument("--base", default="hard")
    ap.add_argument("--opp", default="hard")
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args(sys.argv[2:] if argv is None and sys.argv[1:2] == ["paired"] else argv)
    for label in (a.test, a.base, a.opp):
        player(label)  # a bad label is said here, not in a worker
    draw = random.Random(a.seed)
    seeds = [draw.getrandbits(63) for _ in range(a.deals)]
    jobs = [(a.rules, s, a.test, a.base, a.opp) for s in seeds]
    started = time.perf_counter()
    results: list[DealResult] = []

    def done(r: DealResult) -> None:  # each deal on stderr as it ends: a long run can be cut
        results.append(r)
        print(f"deal {len(results)}/{a.deals} {statistics.fmean(r.diffs):+.3f} "
              f"({r.differed} of 4 differed)", file=sys.stderr, flush=True)

    for r in each(one_deal, jobs, a.jobs):
        done(r)
    wall = time.perf_counter() - started
    per_deal = [statistics.fmean(r.diffs) for r in results]
    n = len(per_deal)
    mean = statistics.fmean(per_deal)
    half = 1.96 * statistics.stdev(per_deal) / math.sqrt(n) if n > 1 else math.inf
    differed = sum(r.differed for r in results)
    times = sorted(t for r in results for t in r.times)

    def q(p: float) -> float:
        return times[min(len(times) - 1, int(p * len(times)))] * 1000

    print(f"{a.rules}: {a.test} − {a.base} in one seat, three {a.opp}; {n} deals × 4 seats, "
          f"seed {a.seed}")
    hand_sd = statistics.stdev([d for r in results for d in r.diffs]) if n > 1 else 0.0
    print(f"  mean {mean:+.3f} ± {half:.3f} points a hand (sd of a hand's difference "
          f"{hand_sd:.2f}); hands differing "
          f"{differed}/{4 * n} ({differed / (4 * n):.0%})")
    print(f"  in the differing hands: wins {sum(r.test_wins for r in results)} / "
          f"{sum(r.base_wins for r in results)}, deal-ins "
          f"{sum(r.test_deal_ins for r in results)} / {sum(r.base_deal_ins for r in results)} "
          f"({a.test} / {a.base})")
    if times:
        print(f"  {a.test} decisions: {len(times)}, CPU median {q(0.5):.1f} ms, p90 {q(0.9):.1f} "
              f"ms, p99 {q(0.99):.1f} ms, max {times[-1] * 1000:.0f} ms; {wall:.0f} s wall")


if __name__ == "__main__":
    main()
