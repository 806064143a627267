"""Benchmark of win detection and scoring (``python -m bench.bench_hands``).

One fixed seeded set of 100,000 near-winning 14-tile hands (4 sets + pair built at random, half
of them disturbed by one tile; honours only as pungs so every detector means the same thing).
Measured on the same hands in the same run: our ``can_win`` per ruleset (over tile lists, count
arrays and group keys: ``can_win_keys``, for callers that keep their hand as four numbers, the
expert's playouts), the ``mahjong`` library's ``Agari.is_agari``, ``can_win`` with four wild
tiles in every hand (Shangrao), and full scorings (``engine.rulesets.score`` of a self-drawn
win) on the winning hands. Each figure is the median of several timed passes after one warm-up
pass (the per-suit tables are filled lazily; the warm-up figure is printed too).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import TypeVar

from mahjong.agari import Agari

from engine.group_keys import can_win_keys, group_keys
from engine.hands import HandShapes, can_win, can_win_counts
from engine.rulesets import RULESETS as BY_NAME
from engine.rulesets import score
from engine.situation import Situation, Win, WinMethod
from engine.tiles import Kind, to_counts

N_HANDS = 100_000
RUNS = 5
SEED = 20240611
SCORE_HANDS = 5_000
RULESETS = ("yichun", "shangrao", "gejiu")
SHANGRAO = BY_NAME["shangrao"].shapes


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


Task = tuple[str, Callable[[], int], int, str]
T = TypeVar("T")


def _measure(tasks: list[Task]) -> list[tuple[str, float, float, int]]:
    """Time every task once as a warm-up, then RUNS passes round-robin (so load changes on the
    machine hit every measure alike); returns (name, warm-up rate, median rate, result)."""
    first: dict[str, float] = {}
    results: dict[str, int] = {}
    for name, fn, count, _ in tasks:
        t = time.perf_counter()
        results[name] = fn()
        first[name] = count / (time.perf_counter() - t)
    rates: dict[str, list[float]] = {name: [] for name, *_ in tasks}
    for _ in range(RUNS):
        for name, fn, count, _ in tasks:
            t = time.perf_counter()
            fn()
            rates[name].append(count / (time.perf_counter() - t))
    return [(name, first[name], statistics.median(rates[name]), results[name])
            for name, *_ in tasks]


def _wins(shapes: HandShapes, hand: list[Kind]) -> bool:
    return can_win(shapes, hand, [])


def _counter(test: Callable[[T], object], items: Sequence[T]) -> Callable[[], int]:
    """A task: how many of ``items`` pass ``test``."""
    return lambda: sum(1 for x in items if test(x))


def _situations(rules: str, hands: Sequence[tuple[list[Kind], Kind | None]]
                ) -> list[Situation]:
    return [
        Situation(rules=rules, dealer=0, wild=w, wins=(
            Win(seat=1, hand=tuple(h[:13]), melds=(), tile=h[13], how=WinMethod.SELF_DRAW),
        ))
        for h, w in hands
    ]


def main() -> None:
    hands = make_hands()
    counts = [to_counts(h) for h in hands]
    wild_hands = with_four_wilds(hands)
    wild_counts = [(to_counts(h), w) for h, w in wild_hands]
    agari = Agari()
    tasks: list[Task] = [
        ("mahjong Agari.is_agari", _counter(agari.is_agari, counts), len(hands), "lib"),
    ]
    for rules in RULESETS:
        shapes = BY_NAME[rules].shapes
        tasks.append((f"can_win_counts {rules}",
                      _counter(partial(can_win_counts, shapes), counts),
                      len(hands), "counts"))
    keys = [group_keys(c) for c in counts]
    for rules in RULESETS:
        shapes = BY_NAME[rules].shapes
        tasks.append((f"can_win_keys {rules}",
                      _counter(partial(can_win_keys, shapes), keys),
                      len(hands), "keys"))
    for rules in RULESETS:
        shapes = BY_NAME[rules].shapes
        tasks.append((f"can_win {rules} (tile lists)",
                      _counter(partial(_wins, shapes), hands),
                      len(hands), "kinds"))
    tasks.append(("can_win_counts shangrao, 4 wilds",
                  _counter(lambda cw: can_win_counts(SHANGRAO, cw[0], (), cw[1]), wild_counts),
                  len(hands), "wild"))
    tasks.append(("can_win shangrao, 4 wilds (tile lists)",
                  _counter(lambda hw: can_win(SHANGRAO, hw[0], [], hw[1]), wild_hands),
                  len(hands), "wild"))
    for rules in RULESETS:
        shapes = BY_NAME[rules].shapes
        winning = [(h, None) for h in hands if _wins(shapes, h)][:SCORE_HANDS]
        sits = _situations(rules, winning)
        tasks.append((f"score {rules} ({len(sits)} wins)",
                      _counter(lambda x: score(x) is not None, sits), len(sits), "score"))
    winning4 = [(h, w) for h, w in wild_hands if can_win(SHANGRAO, h, [], w)][:SCORE_HANDS]
    sits4 = _situations("shangrao", [(h, w) for h, w in winning4])
    tasks.append((f"score shangrao, 4 wilds ({len(sits4)} wins)",
                  _counter(lambda x: score(x) is not None, sits4), len(sits4), "score"))

    rows = _measure(tasks)
    rate = {name: r for name, _, r, _ in rows}
    lib = rate["mahjong Agari.is_agari"]
    print(f"{N_HANDS:,} hands (seed {SEED}); median of {RUNS} round-robin passes after a "
          "warm-up pass")
    print(f"{'measure':<42} {'warm-up /s':>11} {'median /s':>11}  note")
    for name, first, r, result in rows:
        note = f"{result} win" if "score" not in name else ""
        if name.startswith("can_win") and "wilds" not in name:
            note += f", {r / lib:.1f}× library"
        if name.startswith("can_win_keys"):
            note += f", {r / rate[name.replace('keys', 'counts')]:.2f}× can_win_counts"
        if name == "can_win_counts shangrao, 4 wilds":
            note += f", {rate['can_win_counts shangrao'] / r:.2f}× the no-wild time"
        if name == "can_win shangrao, 4 wilds (tile lists)":
            note += f", {rate['can_win shangrao (tile lists)'] / r:.2f}× the no-wild time"
        print(f"{name:<42} {first:>11,.0f} {r:>11,.0f}  {note}")


if __name__ == "__main__":
    main()
