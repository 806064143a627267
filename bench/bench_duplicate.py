"""The duplicate score against the raw score: how many deals each needs to put computer levels
in their order (issue 56's measure for duplicate tournaments).

A round of a duplicate tournament seats its tables as ``simulate --duplicate`` seats its four
plays of a deal: every table plays the same deal, each level in another seat
(``engine.simulate.rotation_levels``). A player's **duplicate score** for a deal is his net
less the mean net of everyone who held his seat of that deal (``engine.tournament``'s
duplicate scoring); his **raw score** is his net. The raw score is measured where it is used:
a tournament without ``--duplicate``, whose tables play deals of their own (``simulate``
without ``--duplicate``, the same levels).

Reported per level: the mean and the standard deviation of a hand's score, raw and duplicate;
then, for each pair of levels, the difference of their means and the hands a player of each
needs (a tournament's player holds one seat of each deal) for that difference to stand out,
its 95% interval clear of zero: ``(1.96 √(σa² + σb²) / gap)²``, the two players' scores taken
as independent.

Run by hand: ``.venv/bin/python -m bench.bench_duplicate [--rules yichun] [--deals 500]
[--levels hard,normal,easy,easy] [--seed 56]``.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import time

from engine.simulate import ROTATIONS, rotation_levels, simulate

Z95 = 1.96


def main() -> None:
    parser = argparse.ArgumentParser(prog="bench_duplicate")
    parser.add_argument("--rules", default="yichun")
    parser.add_argument("--deals", type=int, default=500)
    parser.add_argument("--levels", default="hard,normal,easy,easy")
    parser.add_argument("--seed", type=int, default=56)
    args = parser.parse_args()
    levels = tuple(args.levels.split(","))
    if len(levels) != 4:
        raise SystemExit("--levels: four levels, one a seat")
    names = sorted(set(levels), key=levels.index)
    t0 = time.perf_counter()
    dup = simulate(args.rules, args.deals * ROTATIONS, args.seed, check=False, levels=levels,
                   duplicate=True)
    raw = simulate(args.rules, args.deals * ROTATIONS, args.seed + 1, check=False,
                   levels=levels)
    took = time.perf_counter() - t0
    # raw: every hand of a level's seats, each from a deal of its own
    raw_hands = {level: [float(v) for s in range(4) if levels[s] == level
                         for v in raw.seat_hand_net[s]] for level in names}
    # duplicate, per hand: a seat-play's net less its seat's mean in the deal
    dup_hands: dict[str, list[float]] = {level: [] for level in names}
    for d in range(dup.deals):
        plays = range(d * ROTATIONS, (d + 1) * ROTATIONS)
        seat_mean = [sum(dup.seat_hand_net[s][i] for i in plays) / ROTATIONS for s in range(4)]
        for r, i in enumerate(plays):
            for s, level in enumerate(rotation_levels(levels, r)):
                dup_hands[level].append(dup.seat_hand_net[s][i] - seat_mean[s])
    print(f"{args.rules}, levels {','.join(levels)}, {args.deals} deals each way "
          f"({args.deals * ROTATIONS} hands), seed {args.seed}; {took:.0f} s")
    print("  a hand's score: mean, standard deviation (raw: its own deal; duplicate: less "
          "the mean of its seat in its deal)")
    for level in names:
        raw_h, dup_h = raw_hands[level], dup_hands[level]
        print(f"    {level:7s} raw {statistics.mean(raw_h):+6.2f} σ "
              f"{statistics.stdev(raw_h):5.2f}   duplicate {statistics.mean(dup_h):+6.2f} σ "
              f"{statistics.stdev(dup_h):5.2f}   "
              f"(σ ×{statistics.stdev(dup_h) / statistics.stdev(raw_h):.2f})")
    print("  hands each player needs for two levels' means to differ at 95% (a player holds one "
          "seat of a deal; (1.96 √(σa² + σb²) / gap)²), raw / duplicate:")
    for a, b in itertools.combinations(names, 2):
        cells = []
        for hands in (raw_hands, dup_hands):
            gap = statistics.mean(hands[a]) - statistics.mean(hands[b])
            sd = math.sqrt(statistics.variance(hands[a]) + statistics.variance(hands[b]))
            cells.append((gap, (Z95 * sd / gap) ** 2 if gap else math.inf))
        (g_raw, n_raw), (g_dup, n_dup) = cells
        print(f"    {a} − {b}: raw {g_raw:+.2f} a hand, {n_raw:,.0f} hands;  duplicate "
              f"{g_dup:+.2f}, {n_dup:,.0f} hands (×{n_dup / n_raw:.2f})")


if __name__ == "__main__":
    main()
