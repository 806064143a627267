"""``simulate``'s text histogram: how the points a seat makes in a hand are spread, per
computer level, in bins that widen away from zero (a hand's points run from a few to thousands,
most hands near zero), one column of bars per level so the levels compare row by row."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from engine.simulate import ROTATIONS, SimulationReport, rotation_levels

MAX_ROWS = 15  # the finest bins that keep the histogram this short are used
BAR = 12  # cells of the longest bar
EIGHTHS = " ▏▎▍▌▋▊▉"
STEPS = ((1, 2, 5), (1, 3), (1,))  # bin edges: 1 2 5 10 20 50 …, 1 3 10 30 …, 1 10 100 …


@dataclass(frozen=True)
class Bin:
    low: int
    high: int  # inclusive

    def label(self) -> str:
        if self.low == self.high:
            return f"{self.low:+d}" if self.low else "0"
        return f"{self.low:+d} … {self.high:+d}"

    def holds(self, value: int) -> bool:
        return self.low <= value <= self.high


def level_points(report: SimulationReport) -> dict[str, list[int]]:
    """Every (hand, seat) net of the run by the level that played it, levels in seat order;
    a run without levels is one group, ``all seats``."""
    if not report.labels:
        return {"all seats": [v for nets in report.seat_hand_net for v in nets]}
    out: dict[str, list[int]] = {}
    for label in sorted(set(report.labels), key=report.labels.index):
        name = f"{label} x{report.labels.count(label)}"
        values: list[int] = []
        for i in range(report.hands):
            seated = (rotation_levels(report.labels, i % ROTATIONS) if report.duplicate
                      else report.labels)
            values.extend(report.seat_hand_net[s][i] for s in range(4) if seated[s] == label)
        out[name] = values
    return out


def magnitudes(steps: Sequence[int], top: int) -> list[int]:
    """The bins' lower edges 1, 2, 5, 10, 20 … (for ``steps`` 1, 2, 5) up to past ``top``."""
    out: list[int] = []
    scale = 1
    while not out or out[-1] <= top:
        out.extend(edge for edge in (scale * s for s in steps)
                   if not out or out[-1] <= top)
        scale *= 10
    return out


def make_bins(values: Sequence[int]) -> list[Bin]:
    """Bins covering ``values``: zero alone, then ranges of growing width on each side, the
    finest :data:`STEPS` that gives at most :data:`MAX_ROWS` bins holding a value."""
    if not values:
        return []
    top = max(abs(v) for v in values)
    bins: list[Bin] = []
    for steps in STEPS:
        edges = magnitudes(steps, top)
        side = [Bin(lo, hi - 1) for lo, hi in pairwise(edges)]
        bins = ([Bin(-b.high, -b.low) for b in reversed(side)] + [Bin(0, 0)] + side)
        bins = [b for b in bins if any(b.holds(v) for v in values)]
        if len(bins) <= MAX_ROWS:
            break
    return bins


def bar(share: float, biggest: float, cells: int = BAR) -> str:
    """A horizontal bar ``share / biggest`` of ``cells`` long, in eighths of a cell."""
    if biggest <= 0 or share <= 0:
        return ""
    eighths = max(1, round(share / biggest * cells * 8))  # a share above nought shows
    return "█" * (eighths // 8) + EIGHTHS[eighths % 8].strip()


def percent(share: float) -> str:
    """``share`` as a percentage six characters wide; a share too small for 0.1% says so."""
    return " <0.1%" if 0 < share < 0.0005 else f"{share:6.1%}"


def histogram_lines(groups: Mapping[str, Sequence[int]], indent: str = "    ") -> list[str]:
    """The histogram of each group's values (a column per group: its share of the values in
    each bin, and a bar), bins as rows; no line for no values."""
    values = [v for vs in groups.values() for v in vs]
    bins = make_bins(values)
    if not bins:
        return []
    shares = {name: [sum(1 for v in vs if b.holds(v)) / len(vs) if vs else 0.0 for b in bins]
              for name, vs in groups.items()}
    biggest = max(max(s) for s in shares.values())
    label_w = max(len(b.label()) for b in bins)
    col_w = max(7 + BAR, *(len(name) for name in groups))
    out = [indent + " " * label_w + "".join(f"  {name:<{col_w}}" for name in groups).rstrip()]
    for i, b in enumerate(bins):
        cells = "".join(f"  {f'{percent(s[i])} {bar(s[i], biggest)}':<{col_w}}"
                        for s in shares.values())
        out.append(f"{indent}{b.label():>{label_w}}{cells}".rstrip())
    return out


def points_histogram(report: SimulationReport) -> list[str]:
    """``simulate``'s histogram of points per hand per level, with its heading."""
    lines = histogram_lines(level_points(report))
    if not lines:
        return []
    return ["  points per hand, share of each level's seat-hands:", *lines]
