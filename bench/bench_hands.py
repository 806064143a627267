"""Benchmark of win detection and scoring (``python -m bench.bench_hands``).

One fixed seeded set of 100,000 near-winning 14-tile hands (4 sets + pair built at random, half
of them disturbed by one tile; honours only as pungs so every detector means the same thing).
Measured on the same hands in the same run: our ``can_win`` per ruleset, the ``mahjong``
library's ``Agari.is_agari``, ``can_win`` with four wild tiles in every hand (Shangrao), and
full scorings (``engine.scoring.score`` of a self-drawn win) on the winning hands. Each figure
is the median of several timed passes after one warm-up pass (the per-suit tables are filled
lazily; the warm-up figure is printed too).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable

from mahjong.agari import Agari

from engine.hands import can_win, can_win_counts
from engine.scoring import score
from engine.situation import Situation, Win, WinMethod
from engine.tiles import Kind, to_counts

N_HANDS = 100_000
RUNS = 3
SEED = 20240611
SCORE_HANDS = 10_000


def make_hands(n: int = N_HANDS, seed: int = SEED) -> list[list[Kind]]:
    rng = random.Random(seed)
    hands: list[list[Kind]] = []
    while len(hands) < n:
        counts = [0] * 34
        hand: list[Kind] = []
        groups = 0
        while groups < 5:
            if groups == 4:
                k = rng.randrange(34)
                group = [k, k]
            elif rng.random() < 0.6:
                s, r = rng.randrange(3), rng.randrange(7)
                group = [s * 9 + r + j for j in range(3)]
            else:
                k = rng.randrange(34)
                group = [k, k, k]
            if any(counts[k] + group.count(k) > 4 for k in group):
                continue
            for k in group:
                counts[k] += 1
            hand += group
            groups += 1
        if rng.random() < 0.5:
            i = rng.randrange(14)
            k = rng.randrange(34)
            if counts[k] < 4:
                hand[i] = k
        rng.shuffle(hand)
        hands.append(hand)
    return hands


def with_four_wilds(hands: list[list[Kind]], seed: int = SEED) -> list[tuple[list[Kind], Kind]]:
    rng = random.Random(seed + 1)
    out: list[tuple[list[Kind], Kind]] = []
    for hand in hands:
        wild = rng.choice([k for k in range(34) if k not in hand])
        h = list(hand)
        for i in rng.sample(range(14), 4):
            h[i] = wild
        out.append((h, wild))
    return out


def _rate(fn: Callable[[], int], count: int) -> tuple[float, float, int]:
    """(warm-up rate, median rate over RUNS passes, result of fn) in calls per second."""
    t = time.perf_counter()
    result = fn()
    first = count / (time.perf_counter() - t)
    rates = []
    for _ in range(RUNS):
        t = time.perf_counter()
        fn()
        rates.append(count / (time.perf_counter() - t))
    return first, statistics.median(rates), result


def main() -> None:
    hands = make_hands()
    counts = [to_counts(h) for h in hands]
    wild_hands = with_four_wilds(hands)
    rows: list[tuple[str, float, float, str]] = []

    agari = Agari()
    lib_first, lib_rate, lib_wins = _rate(
        lambda: sum(1 for c in counts if agari.is_agari(c)), len(hands)
    )
    rows.append(("mahjong Agari.is_agari", lib_first, lib_rate, f"{lib_wins} win"))

    ours: dict[str, float] = {}
    for rules in ("yichun", "shangrao", "gejiu"):
        first, rate, wins = _rate(
            lambda rules=rules: sum(1 for c in counts if can_win_counts(rules, c)), len(hands)
        )
        ours[rules] = rate
        rows.append((f"can_win_counts {rules}", first, rate,
                     f"{wins} win, {rate / lib_rate:.1f}× library (same count arrays)"))
    for rules in ("yichun", "shangrao", "gejiu"):
        first, rate, wins = _rate(
            lambda rules=rules: sum(1 for h in hands if can_win(rules, h, [])), len(hands)
        )
        rows.append((f"can_win {rules} (tile lists)", first, rate,
                     f"{wins} win, {rate / lib_rate:.1f}× library (counting included)"))
    wild_counts = [(to_counts(h), w) for h, w in wild_hands]
    first, rate4, wins4 = _rate(
        lambda: sum(1 for c, w in wild_counts if can_win_counts("shangrao", c, (), w)),
        len(wild_hands),
    )
    rows.append(("can_win_counts shangrao, 4 wilds", first, rate4,
                 f"{wins4} win, {ours['shangrao'] / rate4:.2f}× the no-wild time"))
    first, rate4l, wins4 = _rate(
        lambda: sum(1 for h, w in wild_hands if can_win("shangrao", h, [], w)), len(wild_hands)
    )
    rows.append(("can_win shangrao, 4 wilds (tile lists)", first, rate4l, f"{wins4} win"))

    for rules in ("yichun", "shangrao", "gejiu"):
        winning = [h for h in hands if can_win(rules, h, [])][:SCORE_HANDS]
        situations = [
            Situation(rules=rules, dealer=0, wins=(
                Win(seat=1, hand=tuple(h[:13]), melds=(), tile=h[13], how=WinMethod.SELF_DRAW),
            ))
            for h in winning
        ]
        first, rate, _ = _rate(lambda s=situations: sum(1 for x in s if score(x)), len(situations))
        rows.append((f"score {rules} ({len(situations)} wins)", first, rate, ""))
    winning4 = [(h, w) for h, w in wild_hands if can_win("shangrao", h, [], w)][:SCORE_HANDS]
    sit4 = [
        Situation(rules="shangrao", wild=w, wins=(
            Win(seat=1, hand=tuple(h[:13]), melds=(), tile=h[13], how=WinMethod.SELF_DRAW),
        ))
        for h, w in winning4
    ]
    first, rate, _ = _rate(lambda: sum(1 for x in sit4 if score(x)), len(sit4))
    rows.append((f"score shangrao, 4 wilds ({len(sit4)} wins)", first, rate, ""))

    print(f"{N_HANDS:,} hands, seed {SEED}, median of {RUNS} passes after a warm-up pass")
    print(f"{'measure':<42} {'warm-up /s':>12} {'median /s':>12}  note")
    for name, first, rate, note in rows:
        print(f"{name:<42} {first:>12,.0f} {rate:>12,.0f}  {note}")


if __name__ == "__main__":
    main()
