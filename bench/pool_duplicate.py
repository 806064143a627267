"""Pool duplicate runs made in pieces: ``simulate --duplicate --json`` outputs, one a file.

A 4,000-deal run against three ``hard`` takes hours; made as several runs with distinct seeds
(each deal's seed is drawn from its run's seed, so the deals of two runs are independent), it
can be stopped between pieces and its figures pooled. Per level: the mean a hand weighted by
each piece's deals, its 95% interval from the pieces' intervals (the variance of a weighted
mean of independent means: the interval the whole run would have had, to sampling noise), and
the win and deal-in rates weighted by hands. Run by hand::

    .venv/bin/python -m bench.pool_duplicate runs/yichun-hard-*.json

Pieces of different rulesets, levels or modes are refused, as is a seed given twice; the
outputs do not name the table options, so pool only runs made with the same ``--option`` values.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Pooled:
    name: str
    deals: int
    hands: int
    mean: float
    ci95: float
    win_rate: float
    deal_in_rate: float


@dataclass(frozen=True)
class Pool:
    rules: str
    seeds: tuple[int, ...]
    deals: int
    violations: int
    seconds: float
    levels: tuple[Pooled, ...]


def _level_key(run: dict[str, Any]) -> tuple[str, ...]:
    return tuple(lv["name"] for lv in run["levels"])


def pool(runs: Sequence[dict[str, Any]]) -> Pool:
    """The pooled figures of ``runs`` (parsed ``simulate --duplicate --json`` outputs).
    Raises ValueError for runs that cannot be pooled."""
    if not runs:
        raise ValueError("no runs to pool")
    first = runs[0]
    seeds: list[int] = []
    for run in runs:
        if not isinstance(run, dict):
            raise ValueError("not a simulate --json output (a JSON object)")
        if "duplicate" not in run or not run.get("levels"):
            raise ValueError(f"seed {run.get('seed')}: not a duplicate run with --seats")
        if run["rules"] != first["rules"]:
            raise ValueError(f"rulesets differ: {first['rules']} and {run['rules']}")
        if _level_key(run) != _level_key(first):
            raise ValueError(f"levels differ: {_level_key(first)} and {_level_key(run)}")
        if run["seed"] in seeds:
            raise ValueError(f"seed {run['seed']} given twice: its deals would count twice")
        seeds.append(run["seed"])
    levels: list[Pooled] = []
    for i, name in enumerate(_level_key(first)):
        parts = [run["levels"][i] for run in runs]
        deals = sum(p["deals"] for p in parts)
        hands = sum(p["hands"] for p in parts)
        if deals <= 0 or hands <= 0:
            raise ValueError(f"{name}: no deals played")
        mean = sum(p["mean"] * p["deals"] for p in parts) / deals
        ci = math.sqrt(sum((p["deals"] / deals) ** 2 * p["ci95"] ** 2 for p in parts))
        win = sum(p["win_rate"] * p["hands"] for p in parts) / hands
        deal_in = sum(p["deal_in_rate"] * p["hands"] for p in parts) / hands
        levels.append(Pooled(name, deals, hands, mean, ci, win, deal_in))
    return Pool(first["rules"], tuple(seeds), levels[0].deals,
                sum(int(run.get("violations", 0)) for run in runs),
                sum(float(run.get("seconds", 0.0)) for run in runs), tuple(levels))


def report(p: Pool) -> str:
    lines = [f"{p.rules}: {p.deals} deals in {len(p.seeds)} runs (seeds "
             f"{', '.join(map(str, p.seeds))}), {p.violations} violations, "
             f"{p.seconds:,.0f} s of play"]
    for lv in p.levels:
        lines.append(f"  {lv.name:<12} {lv.mean:+.3f} ± {lv.ci95:.3f} a hand  "
                     f"win {lv.win_rate:.1%}  deal-in {lv.deal_in_rate:.1%}  "
                     f"({lv.hands} hands)")
    if len(p.levels) == 2:
        a, b = p.levels
        gap = (a.mean - a.ci95) - (b.mean + b.ci95)
        lines.append(f"  intervals {'clear' if gap > 0 else 'overlap'}: {a.name}'s low end "
                     f"{a.mean - a.ci95:+.3f}, {b.name}'s high end {b.mean + b.ci95:+.3f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.pool_duplicate", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args(argv)
    runs = []
    for f in args.files:
        try:
            runs.append(json.loads(f.read_text()))
        except (OSError, ValueError) as e:
            print(f"{f}: {e}", file=sys.stderr)
            return 2
    try:
        print(report(pool(runs)))
    except (ValueError, KeyError, TypeError) as e:
        print(f"cannot pool: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
