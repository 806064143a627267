"""Whole hands per second with the basic computer player, per ruleset, on one core.

Each run plays the same seeded hands without the per-action invariant checks (that is what
`mahjong-ssh simulate` adds); the figure quoted is the median of several runs.
Run: `make bench` or `.venv/bin/python -m bench engine`.
"""

from __future__ import annotations

import statistics
import time

from engine.simulate import simulate

HANDS = 300
RUNS = 5


def main() -> None:
    print(f"{'ruleset':10} {'hands/s (median)':>17} {'min':>8} {'max':>8}  "
          f"({RUNS} runs x {HANDS} hands, basic player, checks off)")
    for rules in ("yichun", "shangrao", "gejiu"):
        simulate(rules, 20, 1000, check=False)  # warm the win-detection caches
        rates = []
        for run in range(RUNS):
            started = time.perf_counter()
            simulate(rules, HANDS, 1 + run, check=False)
            rates.append(HANDS / (time.perf_counter() - started))
        print(f"{rules:10} {statistics.median(rates):17.1f} {min(rates):8.1f} {max(rates):8.1f}")
    started = time.perf_counter()
    report = simulate("yichun", 100, 1, check=True)
    rate = report.hands / (time.perf_counter() - started)
    print(f"(with every per-action check, as `simulate` runs: yichun {rate:.1f} hands/s)")


if __name__ == "__main__":
    main()
