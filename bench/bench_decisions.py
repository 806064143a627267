"""The expert's decisions judged one at a time, with the hidden tiles known.

Deals are played by four ``hard`` players. At each decision the ``expert`` would search, its
search is run on the seat's view; where its best candidate (by estimated gain over ``hard``'s
choice) differs from ``hard``'s, both actions are played on from the *true* position: the
opponents' real hands, the live wall reshuffled ``--continuations`` times (the same shuffles for
both actions), ``hard`` everywhere after. The mean difference of the seat's nets is the
decision's *true gain* under ``hard``'s play (an estimate of Q_hard(s, a) − Q_hard(s, hard's
a), with its own interval), far less noisy than a whole hand replayed with one wall.

By the policy-improvement theorem, deviations whose true gain is positive make a player at
least as good as ``hard``; their sum per hand is a first-order figure of the expert's edge.
The report gives, by kind of decision (a discard searched because an opponent may be ready,
one searched because hard's figures are close, a claim), how often the expert deviates, the
estimated and the true gains, and the true gain of the deviations its gate (:meth:`pick`) takes
and of those it declines, by the estimate's size: what to change in the gate and the search.

Run by hand (CPU-heavy)::

    .venv/bin/python -m bench.bench_decisions --rules yichun --deals 60 --seed 5 --jobs 2 \\
        --out /tmp/decisions-yichun.jsonl

``--test LEVEL`` (e.g. ``normal``, or ``expert:recheck=0``: the expert without its recheck) judges
that level's choices instead, wherever they differ from ``hard``'s.

``--out`` keeps one JSON line per probed decision (``--report FILE`` re-reads such files
without playing). Each decision is judged on reshuffles of its own (seeded by the deal and the
move: :func:`continuation_rng`), so two runs on the same deals (``--rules``, ``--seed``,
``--deals``) give a change both make the same true gain, and ``--compare A B`` pairs their
edges deal by deal: the changes made alike cancel out of the difference.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from bench.bench_paired import each, player
from engine.actions import Action
from engine.bots.expert import MIN_GAIN, ExpertPlayer
from engine.bots.hard import HardPlayer
from engine.game import Game
from engine.table import Hand, Phase
from engine.view import View, build_view


@dataclass
class Probe:
    """One decision the expert searched."""

    deal: int
    seat: int
    kind: str  # "risky" | "close" | "claim"
    candidates: int
    est_gain: float  # the best candidate's estimated gain over hard's choice
    est_half: float  # its 95% half width
    taken: bool  # the expert's gate takes it (pick() returns it)
    deviates: bool  # the best candidate is not hard's choice
    true_gain: float = math.nan  # with the hidden tiles known, hard after (deviations only)
    true_half: float = math.nan
    hard_action: str = ""
    best_action: str = ""
    fresh_gain: float = math.nan  # the best candidate's gain on fresh samples (recheck())
    fresh_half: float = math.nan
    move: int = -1  # the hand's action count at the decision (-1: a file from before it)


def continuation_rng(deal_seed: int, move: int) -> random.Random:
    """The reshuffles judging the decision at ``move`` of a deal: the same for every level
    judged on the same deals, so the decisions two runs change alike get the same true gains
    and :func:`compare` sees only the decisions they change differently."""
    return random.Random(f"{deal_seed}:{move}")


def reshuffle(hand: Hand, rng: random.Random) -> None:
    """The live wall's undrawn tiles in a new order (Shangrao's face-up indicator stays)."""
    wall = hand.wall
    pos = [i for i in range(len(wall.seq)) if i not in wall.taken and i != hand.indicator_pos]
    tiles = [wall.seq[i] for i in pos]
    rng.shuffle(tiles)
    for i, t in zip(pos, tiles, strict=True):
        wall.seq[i] = t
    hand._legal_cache.clear()
    hand.view_cache.clear()


def play_out(hand: Hand, hard: HardPlayer) -> None:
    while not hand.is_over:
        s = hand.to_act()[0]
        hand.apply(s, hard.choose(build_view(hand, s)))


def true_gain(hand: Hand, seat: int, test: Action, ref: Action, continuations: int,
              rng: random.Random, hard: HardPlayer) -> tuple[float, float]:
    """Mean and 95% half width of the seat's net after ``test`` less after ``ref``, over
    shared reshuffles of the live wall, ``hard`` playing every seat after."""
    diffs: list[float] = []
    for _ in range(continuations):
        shuffle_seed = rng.getrandbits(64)
        nets: list[float] = []
        for a in (test, ref):
            h = copy.deepcopy(hand)
            reshuffle(h, random.Random(shuffle_seed))
            h.apply(seat, a)
            play_out(h, hard)
            assert h.settlement is not None
            nets.append(float(h.settlement.seats[seat]))
        diffs.append(nets[0] - nets[1])
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
    return mean, half


KINDS = ("risky", "close", "claim")


def kind_of(expert: ExpertPlayer, view: View) -> str:
    if view.phase is Phase.CLAIM:
        return "claim"
    return "risky" if expert.risky(view) else "close"


def one_deal(args: tuple[str, int, int, int, float, str | None, int]) -> list[Probe]:
    rules, index, deal_seed, continuations, declined, test_label, recheck = args
    hard, expert = HardPlayer(), ExpertPlayer()
    test = player(test_label) if test_label else None
    game = Game(rules, deal_seed, {"hands_per_game": 1})
    hand = game.new_hand()
    out: list[Probe] = []
    while not hand.is_over:
        seat = hand.to_act()[0]
        view = build_view(hand, seat)
        action = hard.choose(view)
        move = len(hand.actions)
        if test is not None and view.my_move:
            other = test.choose(view)
            if other != action:
                p = Probe(index, seat, kind_of(expert, view), 2, math.nan, math.nan, True, True,
                          hard_action=str(action), best_action=str(other), move=move)
                p.true_gain, p.true_half = true_gain(hand, seat, other, action, continuations,
                                                     continuation_rng(deal_seed, move), hard)
                out.append(p)
        elif view.my_move and view.viewer is not None:
            cands = expert.candidates(view, action)
            if len(cands) >= 2:
                values = expert.evaluate(view, cands)
                best = max(values, key=lambda v: v.gain)
                picked = expert.pick(values)
                p = Probe(index, seat, kind_of(expert, view), len(cands), best.gain,
                          best.gain_half, picked != action, best.action != action,
                          hard_action=str(action), best_action=str(best.action), move=move)
                rng = continuation_rng(deal_seed, move)
                if p.deviates and (p.taken or rng.random() < declined):
                    fresh = expert.recheck(view, action, best.action, recheck)
                    p.fresh_gain, p.fresh_half = fresh.gain, fresh.gain_half
                    p.true_gain, p.true_half = true_gain(hand, seat, best.action, action,
                                                         continuations, rng, hard)
                out.append(p)
        hand.apply(seat, action)
    return out


def _mean_half(xs: Sequence[float]) -> str:
    xs = [x for x in xs if not math.isnan(x)]
    if not xs:
        return "—"
    if len(xs) == 1:
        return f"{xs[0]:+.3f}"
    return f"{statistics.fmean(xs):+.3f} ± {1.96 * statistics.stdev(xs) / math.sqrt(len(xs)):.3f}"


def report(probes: Sequence[Probe], seat_hands: int) -> None:
    print(f"  {len(probes)} searched decisions in {seat_hands} seat-hands")
    print("  kind    searched  deviating  taken  est. gain taken  true gain taken   "
          "true gain declined")
    for kind in (*KINDS, "all"):
        ps = [p for p in probes if kind in ("all", p.kind)]
        dev = [p for p in ps if p.deviates]
        taken = [p for p in dev if p.taken]
        declined = [p for p in dev if not p.taken and not math.isnan(p.true_gain)]
        print(f"  {kind:7s} {len(ps):8d} {len(dev):10d} {len(taken):6d}  "
              f"{_mean_half([p.est_gain for p in taken]):>15s}  "
              f"{_mean_half([p.true_gain for p in taken]):>15s}  "
              f"{_mean_half([p.true_gain for p in declined]):>18s}")
    dev = [p for p in probes if p.deviates and not math.isnan(p.true_gain)]
    print("  judged deviations by estimated gain (est / half width z): n, true gain")
    bands = [(-math.inf, 0.1), (0.1, MIN_GAIN), (MIN_GAIN, 0.5), (0.5, 1.0), (1.0, 2.0),
             (2.0, math.inf)]
    for lo, hi in bands:
        ps = [p for p in dev if lo <= p.est_gain < hi]
        lo_z = [p for p in ps if p.est_gain <= p.est_half]
        hi_z = [p for p in ps if p.est_gain > p.est_half]
        print(f"    est [{lo:5.2f}, {hi:5.2f}): z ≤ 1: {len(lo_z):4d} "
              f"{_mean_half([p.true_gain for p in lo_z]):>16s};  z > 1: {len(hi_z):4d} "
              f"{_mean_half([p.true_gain for p in hi_z]):>16s}")
    fresh = [p for p in dev if p.taken and not math.isnan(p.fresh_gain)]
    if fresh:
        print("  taken deviations by their gain on fresh samples (recheck): n, true gain")
        def band(p: Probe) -> int:
            return 0 if p.fresh_gain <= 0 else 1 if p.fresh_gain <= p.fresh_half else 2

        for i, name in enumerate(("fresh gain ≤ 0", "0 < fresh gain ≤ half width",
                                  "fresh gain > half width")):
            ps = [p for p in fresh if band(p) == i]
            print(f"    {name:28s} {len(ps):4d} {_mean_half([p.true_gain for p in ps]):>16s}")
    edge = deal_edges(probes, seat_hands // 4)
    print(f"  first-order edge a seat-hand (the taken deviations' true gains): "
          f"{_mean_half(edge)} (95% over deals)")


def deal_edges(probes: Sequence[Probe], deals: int) -> list[float]:
    """Per deal, the taken deviations' true gains summed, a seat-hand (a quarter): the
    first-order edge deal by deal, whose spread gives the edge's interval."""
    out = [0.0] * deals
    for p in probes:
        if p.deviates and p.taken and not math.isnan(p.true_gain) and p.deal < deals:
            out[p.deal] += p.true_gain / 4
    return out


def compare(a: Sequence[Probe], b: Sequence[Probe], deals: int) -> list[str]:
    """Two runs' first-order edges on the same deals, and their difference deal by deal (the
    decisions both change alike, judged on the same reshuffles, cancel out of it)."""
    ea, eb = deal_edges(a, deals), deal_edges(b, deals)
    same = {(p.deal, p.move, p.best_action) for p in a if p.taken and p.deviates
            and p.deal < deals} & \
        {(p.deal, p.move, p.best_action) for p in b if p.taken and p.deviates and p.deal < deals}
    diff = [x - y for x, y in zip(ea, eb, strict=True)]
    return [f"  first run's edge a seat-hand   {_mean_half(ea)}",
            f"  second run's edge a seat-hand  {_mean_half(eb)}",
            f"  first − second, paired by deal {_mean_half(diff)}  ({len(same)} changes "
            "made alike)"]


def read(names: Sequence[str]) -> tuple[list[dict[str, object]], list[Probe], int]:
    """The runs (their settings), probes and finished deals of ``--out`` files."""
    runs: list[dict[str, object]] = []
    probes: list[Probe] = []
    deals = 0
    for name in names:
        first = deals  # a file's deals follow the previous files' in the figures
        with open(name, encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                if "run" in rec:
                    runs.append(rec["run"])
                elif "deal_done" in rec:
                    deals += 1
                else:
                    probe = Probe(**rec)
                    probe.deal += first
                    probes.append(probe)
    return runs, probes, deals


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_decisions", description=__doc__)
    ap.add_argument("--rules", default="yichun")
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--continuations", type=int, default=16)
    ap.add_argument("--declined", type=float, default=0.3,
                    help="the share of the deviations the gate declines that are judged too")
    ap.add_argument("--test", help="judge this level's choices (where they differ from "
                    "hard's; e.g. expert:recheck=0) rather than the expert's search")
    ap.add_argument("--recheck", type=int, default=64,
                    help="fresh samples that recheck each judged deviation's estimated gain")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", help="append one JSON line per probed decision to this file")
    ap.add_argument("--report", nargs="*", help="report on these --out files, no play")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"),
                    help="two --out files of runs on the same deals (--rules, --seed): their "
                    "edges and the difference, paired by deal, over the deals both finished; "
                    "no play")
    ap.add_argument("--kinds", help="with --report or --compare: only these kinds of decision "
                    "(comma-separated: risky, close, claim), as if the others were not searched")
    a = ap.parse_args(sys.argv[2:] if argv is None and sys.argv[1:2] == ["decisions"] else argv)
    kinds = set(KINDS) if a.kinds is None else set(a.kinds.split(","))
    if not kinds or kinds - set(KINDS):
        raise SystemExit(f"--kinds: some of {', '.join(KINDS)}, comma-separated")
    if a.report:
        _runs, probes, deals = read(a.report)
        probes = [p for p in probes if p.kind in kinds]
        print(f"{', '.join(a.report)}: {deals} deals"
              + (f", {', '.join(sorted(kinds))} only" if a.kinds else ""))
        report(probes, 4 * deals)
        return
    if a.compare:
        (ra, pa, da), (rb, pb, db) = read(a.compare[:1]), read(a.compare[1:])
        deals_of = [(r.get("rules"), r.get("seed"), r.get("continuations")) for r in ra + rb]
        if len(ra) != 1 or len(rb) != 1 or deals_of[0] != deals_of[1]:
            raise SystemExit("--compare: two files of one run each, on the same deals (rules, "
                             f"seed and continuations; here {deals_of})")
        both = min(da, db)  # a deal's seed is the seed's i-th draw: a shorter run is a prefix
        print(f"{a.compare[0]} ({ra[0].get('test') or 'the expert search'}) against "
              f"{a.compare[1]} ({rb[0].get('test') or 'the expert search'}): "
              f"{ra[0]['rules']}, seed {ra[0]['seed']}, {both} deals"
              + (f" (of {da} and {db})" if da != db else "")
              + (f", {', '.join(sorted(kinds))} only" if a.kinds else ""))
        print("\n".join(compare([p for p in pa if p.kind in kinds],
                                [p for p in pb if p.kind in kinds], both)))
        return
    if a.test:
        player(a.test)  # a bad label is said here, not in a worker
    draw = random.Random(a.seed)
    jobs = [(a.rules, i, draw.getrandbits(63), a.continuations, a.declined, a.test,
             a.recheck)
            for i in range(a.deals)]
    started = time.perf_counter()
    probes = []
    finished: list[int] = []
    out = open(a.out, "a", encoding="utf-8") if a.out else None  # noqa: SIM115
    if out is not None:
        out.write(json.dumps({"run": {"rules": a.rules, "seed": a.seed, "deals": a.deals,
                                      "test": a.test, "continuations": a.continuations}})
                  + "\n")
    try:
        def done(ps: list[Probe]) -> None:
            probes.extend(ps)
            finished.append(1)
            if out is not None:
                for p in ps:
                    out.write(json.dumps(asdict(p)) + "\n")
                out.write(json.dumps({"deal_done": len(finished)}) + "\n")
                out.flush()
            dev = [p for p in ps if p.deviates]
            print(f"deal {len(finished)}/{a.deals}: {len(ps)} searched, {len(dev)} "
                  f"deviating, true gains {[round(p.true_gain, 2) for p in dev]}",
                  file=sys.stderr, flush=True)

        for ps in each(one_deal, jobs, a.jobs):
            done(ps)
    finally:
        if out is not None:
            out.close()
    print(f"{a.rules}: {a.deals} deals of four hard, seed {a.seed}, {a.continuations} "
          f"continuations a deviation, judging {a.test or 'the expert search'}; "
          f"{time.perf_counter() - started:.0f} s wall")
    report(probes, 4 * a.deals)


if __name__ == "__main__":
    main()
