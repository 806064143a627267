"""How far a hand is from winning, per shape: the measure the computer players decide by.

Encoding: 34-entry count arrays of tile kinds (``engine.tiles``); Shangrao wilds are taken out
of the counts and passed as a number (each may stand for any kind).

**Distance** ``D`` = the fewest useful tiles the hand still has to receive to win, i.e. the
number of jokers that complete it when any of its tiles may be thrown away (shanten + 1). A
13-tile hand (3n+1) one tile from winning has ``D = 1``; a winning 14-tile hand has ``D = 0``.

Standard shape (4 sets + pair, melds counted as sets): the concealed tiles are split into four
groups (three suits, the honours). For each group a cached table gives, for every number of
sets ``k`` (0–4) with or without the pair, the fewest jokers that turn **some** of the group's
tiles into exactly ``k`` sets (+ pair); tiles left out cost nothing. The hand's distance is the
cheapest way to share the sets still missing among the groups, minus the wilds held. The
tables fill lazily by a memoised search over one group and are shared by every call, so a
decision costs a few dictionary look-ups per candidate.

Seven pairs, the knitted families (十三烂 / 十三浪 / 烂牌 / 一般高), Shangrao 九幺 and Yichun's
free 字一色 have closed forms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise
from typing import Final

from engine.hands import (
    GROUP_HONOURS_PLAIN,
    GROUP_HONOURS_YICHUN,
    GROUP_SUIT,
    SET_WINDOWS,
    HandShapes,
    shapes_named,
)
from engine.melds import MeldType
from engine.tiles import NUM_KINDS, Kind, is_terminal_or_honour

INF: Final = 99
_SUIT: Final = GROUP_SUIT
_HON_PLAIN: Final = GROUP_HONOURS_PLAIN
_HON_YICHUN: Final = GROUP_HONOURS_YICHUN
_WINDOWS: Final = SET_WINDOWS  # the other members of every non-pung set containing a position
_EMPTY: Final = tuple(3 * k + 2 * p for k in range(5) for p in range(2))
_TABLES: Final[dict[int, dict[tuple[int, ...], tuple[int, ...]]]] = {
    _SUIT: {}, _HON_PLAIN: {}, _HON_YICHUN: {}
}

Vec = tuple[int, ...]  # index 2k + pair: jokers for k sets (+ the pair)


def group_vec(counts: tuple[int, ...], group: int) -> Vec:
    """The table entry of one group (see the module docstring)."""
    table = _TABLES[group]
    hit = table.get(counts)
    if hit is not None:
        return hit
    n = len(counts)
    i = 0
    while i < n and counts[i] == 0:
        i += 1
    if i == n:
        table[counts] = _EMPTY
        return _EMPTY
    c = list(counts)
    ci = c[i]
    c[i] = ci - 1
    best = list(group_vec(tuple(c), group))  # leave one copy of i out
    for real in range(1, min(ci, 3) + 1):  # a pung with `real` copies of i
        c[i] = ci - real
        sub = group_vec(tuple(c), group)
        cost = 3 - real
        for x in range(2, 10):
            v = sub[x - 2] + cost
            if v < best[x]:
                best[x] = v
        if real <= 2:  # the pair
            cost = 2 - real
            for x in range(0, 10, 2):
                v = sub[x] + cost
                if v < best[x + 1]:
                    best[x + 1] = v
    c[i] = ci - 1
    for others in _WINDOWS[group][i]:
        held = [j for j in others if c[j] > 0]
        for r in range(len(held) + 1):
            for used in combinations(held, r):
                d = list(c)
                for j in used:
                    d[j] -= 1
                sub = group_vec(tuple(d), group)
                cost = len(others) - r
                for x in range(2, 10):
                    v = sub[x - 2] + cost
                    if v < best[x]:
                        best[x] = v
    out = tuple(best)
    table[counts] = out
    return out


_COMBINED: Final[dict[tuple[Vec, Vec], Vec]] = {}
_COMBINED_MAX: Final = 200_000  # pairs remembered before the memo starts again


def combine(a: Vec, b: Vec) -> Vec:
    """The vector of two groups together (at most one pair); memoised, as few distinct group
    vectors occur."""
    key = (a, b)
    hit = _COMBINED.get(key)
    if hit is not None:
        return hit
    if len(_COMBINED) >= _COMBINED_MAX:
        _COMBINED.clear()
    out = _combine(a, b)
    _COMBINED[key] = out
    return out


def _combine(a: Vec, b: Vec) -> Vec:
    out = [INF] * 10
    for ka in range(5):
        a0, a1 = a[2 * ka], a[2 * ka + 1]
        for kb in range(5 - ka):
            b0, b1 = b[2 * kb], b[2 * kb + 1]
            x = 2 * (ka + kb)
            v = a0 + b0
            if v < out[x]:
                out[x] = v
            v = min(a0 + b1, a1 + b0)
            if v < out[x + 1]:
                out[x + 1] = v
    return tuple(out)


_JOINED: Final[dict[tuple[Vec, Vec, int], int]] = {}


def join(a: Vec, b: Vec, sets: int) -> int:
    """Jokers completing ``sets`` sets + the pair out of two vectors (memoised)."""
    key = (a, b, sets)
    hit = _JOINED.get(key)
    if hit is not None:
        return hit
    if len(_JOINED) >= _COMBINED_MAX:
        _JOINED.clear()
    j = INF
    for x in range(sets + 1):
        y = sets - x
        j = min(j, a[2 * x] + b[2 * y + 1], a[2 * x + 1] + b[2 * y])
    _JOINED[key] = j
    return j


def honour_group(rules: HandShapes | str) -> int:
    return shapes_named(rules).honour_group


def group_vecs(counts: Sequence[int], rules: HandShapes | str) -> list[Vec]:
    return [
        group_vec(tuple(counts[0:9]), _SUIT),
        group_vec(tuple(counts[9:18]), _SUIT),
        group_vec(tuple(counts[18:27]), _SUIT),
        group_vec(tuple(counts[27:34]), honour_group(rules)),
    ]


def standard_jokers(vecs: Sequence[Vec], sets: int) -> int:
    """Jokers completing ``sets`` sets + the pair out of the four groups."""
    return join(combine(vecs[0], vecs[1]), combine(vecs[2], vecs[3]), sets)


# --- closed forms --------------------------------------------------------------------------


def _best_gap(mask: int) -> int:
    """Most ranks of ``mask`` that pairwise differ by >= 3 (十三烂 / 十三浪 within a suit)."""
    best = 0
    ranks = [r for r in range(9) if mask >> r & 1]
    for n in range(min(3, len(ranks)), 0, -1):
        for sub in combinations(ranks, n):
            if all(b - a >= 3 for a, b in pairwise(sub)):
                return n
    return best


_GAP_BEST: Final = tuple(_best_gap(m) for m in range(512))
_CLASS_MASKS: Final = tuple(sum(1 << r for r in range(cls, 9, 3)) for cls in range(3))
# Gejiu 烂牌 family: most ranks of ``mask`` in one class (147 / 258 / 369)
_CLASS_BEST: Final = tuple(max((m & c).bit_count() for c in _CLASS_MASKS) for m in range(512))


def seven_pairs_jokers(counts: Sequence[int]) -> int:
    pairs = 0
    singles = 0
    for c in counts:
        if c:
            pairs += c // 2 if c < 4 else 2
            singles += c & 1
    need = max(0, 7 - pairs)
    return min(singles, need) + 2 * max(0, need - singles)


def knitted_kept(counts: Sequence[int], rules: HandShapes | str) -> int:
    """Tiles of the hand a knitted hand can keep: 十三烂 / 十三浪 (gaps >= 3 in a suit) or, in
    Gejiu, the 烂牌 family (one class 147 / 258 / 369 per suit)."""
    honours = sum(1 for k in range(27, 34) if counts[k])
    suited = 0
    best = _CLASS_BEST if shapes_named(rules).lanpai else _GAP_BEST
    for base in (0, 9, 18):
        mask = 0
        for r in range(9):
            if counts[base + r]:
                mask |= 1 << r
        suited += best[mask]
    return min(14, honours + suited)


@dataclass(frozen=True)
class MeldFacts:
    """What the distance needs to know of a seat's declared melds."""

    count: int
    all_terminal_pungs: bool  # Shangrao 九幺 still possible
    only_honour_angang: bool  # Yichun free 字一色 still possible
    all_pungs: bool
    suits: frozenset[int]  # suits (0–2) and 3 for honours that the melds use
    exposed: bool  # a chi / peng / 明杠 (ends 门清 and the concealed-only shapes)


NO_MELDS: Final = MeldFacts(0, True, True, True, frozenset(), False)


def meld_facts(melds: Sequence[tuple[MeldType, Kind]]) -> MeldFacts:
    """``melds``: (type, first tile) of each declared meld."""
    if not melds:
        return NO_MELDS
    return MeldFacts(
        count=len(melds),
        all_terminal_pungs=all(t is not MeldType.CHI and is_terminal_or_honour(k)
                               for t, k in melds),
        only_honour_angang=all(t is MeldType.AGANG and k >= 27 for t, k in melds),
        all_pungs=all(t is not MeldType.CHI for t, k in melds),
        suits=frozenset(min(k // 9, 3) for _, k in melds),
        exposed=any(t is not MeldType.AGANG for t, _ in melds),
    )


def near_kinds(counts: Sequence[int], rules: HandShapes | str) -> list[Kind]:
    """Kinds whose arrival can shorten the standard shape: within two ranks of a held suited
    tile, the held honours (Yichun: every wind / dragon beside a held one)."""
    honour_sets = shapes_named(rules).honour_sets
    out: set[Kind] = set()
    for k in range(27):
        if counts[k]:
            base, r = k - k % 9, k % 9
            out.update(range(base + max(0, r - 2), base + min(8, r + 2) + 1))
    for k in range(27, 34):
        if counts[k]:
            if honour_sets:
                out.update(range(27, 31) if k < 31 else range(31, 34))
            else:
                out.add(k)
    return sorted(out)


ALL_KINDS: Final = tuple(range(NUM_KINDS))


# --- the evaluation of one decision -----------------------------------------------------------


def _seven_pairs_parts(counts: Sequence[int]) -> tuple[int, int]:
    pairs = singles = 0
    for c in counts:
        if c:
            pairs += c // 2 if c < 4 else 2
            singles += c & 1
    return pairs, singles


def _seven_from(pairs: int, singles: int) -> int:
    need = max(0, 7 - pairs)
    return min(singles, need) + 2 * max(0, need - singles)


# The kinds that shorten a hand, per hand and shapes (HandEval.useful), whether unseen or not:
# the players ask again and again about the same few hands. Cleared when it reaches the bound.
_USEFUL: Final[dict[tuple[object, ...], tuple[tuple[Kind, ...], tuple[Kind, ...]]]] = {}
_USEFUL_MAX: Final = 65_536  # entries of about 400 bytes: some 25 MB
_SHAPE_NAMES: Final = ("standard", "seven_pairs", "knitted", "jiuyao", "zi")


class HandEval:
    """Distances of one seat's concealed hand, and of the hand after a discard / a draw.

    ``counts``: the concealed tiles without wilds; ``wilds``: wilds held; ``melds``: facts of
    the declared melds."""

    def __init__(self, rules: HandShapes | str, counts: Sequence[int], wilds: int,
                 melds: MeldFacts) -> None:
        self.rules = shapes_named(rules)
        self.counts = list(counts)
        self.wilds = wilds
        self.melds = melds
        self.sets = 4 - melds.count
        self.hgroup = honour_group(rules)
        self.total = sum(counts) + wilds

    def _vec(self, counts: Sequence[int], g: int) -> Vec:
        if g < 3:
            return group_vec(tuple(counts[9 * g: 9 * g + 9]), _SUIT)
        return group_vec(tuple(counts[27:34]), self.hgroup)

    def _specials(self, counts: Sequence[int]) -> list[tuple[str, int]]:
        """(shape, jokers) of the non-standard shapes still open."""
        out: list[tuple[str, int]] = []
        full = 3 * self.sets + 2
        if self.melds.count == 0:
            out.append(("seven_pairs", seven_pairs_jokers(counts)))
            out.append(("knitted", 14 - knitted_kept(counts, self.rules)))
        if self.rules.jiuyao and self.melds.all_terminal_pungs:
            kept = sum(counts[k] for k in range(27) if k % 9 in (0, 8)) + sum(counts[27:34])
            out.append(("jiuyao", full - kept))
        elif self.rules.zi_free and self.melds.only_honour_angang:
            out.append(("zi", full - sum(counts[27:34])))
        return out

    def shapes(self, counts: Sequence[int] | None = None, wilds: int | None = None
               ) -> dict[str, int]:
        """Distance per shape (``standard`` and the special shapes still open)."""
        c = self.counts if counts is None else counts
        w = self.wilds if wilds is None else wilds
        floor = 0 if (sum(c) + w) % 3 == 2 else 1
        vecs = [self._vec(c, g) for g in range(4)]
        out = {"standard": max(standard_jokers(vecs, self.sets) - w, floor)}
        for name, j in self._specials(c):
            out[name] = max(j - w, floor)
        return out

    def discards(self, unseen: Sequence[int], candidates: Sequence[Kind], wild: Kind | None,
                 uke_slack: int | None = 0) -> dict[Kind, tuple[int, int, dict[str, int]]]:
        """For each candidate discard (a held non-wild kind, or ``wild``): (distance after it,
        unseen tiles that would shorten it, distance per shape). The number of improving tiles
        is only counted for discards whose distance is within ``uke_slack`` of the best (never
        when it is ``None``; then it is -1)."""
        rows: dict[Kind, tuple[int, dict[str, int], list[int], int]] = {}
        for d in candidates:
            c = list(self.counts)
            w = self.wilds
            if wild is not None and d == wild:
                w -= 1
            else:
                c[d] -= 1
            shapes = self.shapes(c, w)
            rows[d] = (min(shapes.values()), shapes, c, w)
        if not rows:
            return {}
        best = min(r[0] for r in rows.values())
        out: dict[Kind, tuple[int, int, dict[str, int]]] = {}
        for d, (dist, shapes, c, w) in rows.items():
            uke = -1
            if uke_slack is not None and dist <= best + uke_slack:
                uke = self._ukeire(c, w, dist, shapes, unseen, wild)
            out[d] = (dist, uke, shapes)
        return out

    def _ukeire(self, c: list[int], w: int, dist: int, shapes: dict[str, int],
                unseen: Sequence[int], wild: Kind | None) -> int:
        """Unseen tiles whose arrival lowers ``dist`` (the hand ``c`` + ``w`` wilds)."""
        n = sum(unseen[k] for k in self.useful(c, w, dist, shapes, unseen, wild))
        if wild is not None:
            n += unseen[wild]
        return n

    def useful(self, c: list[int], w: int, dist: int, shapes: dict[str, int],
               unseen: Sequence[int], wild: Kind | None) -> set[Kind]:
        """The unseen kinds (not the wild) whose arrival lowers ``dist`` (the hand ``c`` + ``w``
        wilds, whose distance per shape is ``shapes``): the kinds that would, whether seen or
        not, remembered per hand (:data:`_USEFUL`), then those still unseen."""
        at = 0  # which shapes are at the distance: all that the kinds depend on besides c, w
        for i, name in enumerate(_SHAPE_NAMES):
            if shapes.get(name) == dist:
                at |= 1 << i
        key = (self.rules.name, self.sets, bytes(c), w, dist, at)
        hit = _USEFUL.get(key)
        if hit is None:
            if len(_USEFUL) >= _USEFUL_MAX:
                _USEFUL.clear()
            hit = _USEFUL[key] = self._useful(c, w, dist, shapes)
        kinds, honours = hit
        out = {k for k in kinds if unseen[k] > 0 and k != wild}
        if honours:  # 字一色's honours (the wild's kind too, as before)
            out.update(k for k in honours if unseen[k] > 0)
        return out

    def _useful(self, c: list[int], w: int, dist: int, shapes: dict[str, int]
                ) -> tuple[tuple[Kind, ...], tuple[Kind, ...]]:
        """:meth:`useful` before the unseen copies are looked at: the kinds whose arrival
        lowers ``dist``, and apart 字一色's honours (which the wild does not leave out)."""
        useful: set[Kind] = set()
        if shapes["standard"] == dist:
            vecs = [self._vec(c, g) for g in range(4)]
            # the three other groups combined, per group
            rest = []
            for g in range(4):
                o = [vecs[x] for x in range(4) if x != g]
                rest.append(combine(combine(o[0], o[1]), o[2]))
            T = self.sets
            for k in (ALL_KINDS if w else near_kinds(c, self.rules)):  # a wild head: any
                g = min(k // 9, 3)
                c[k] += 1
                v = self._vec(c, g)
                c[k] -= 1
                if join(v, rest[g], T) - w < dist:
                    useful.add(k)
        if shapes.get("seven_pairs") == dist:
            pairs, singles = _seven_pairs_parts(c)
            for k in range(NUM_KINDS):
                if k in useful:
                    continue
                n = c[k]
                if n & 1:
                    j = _seven_from(pairs + 1, singles - 1)
                else:
                    j = _seven_from(pairs, singles + 1)
                if j - w < dist:
                    useful.add(k)
        if shapes.get("knitted") == dist:
            kept = knitted_kept(c, self.rules)
            for k in range(NUM_KINDS):
                if k in useful or c[k]:
                    continue
                c[k] += 1
                if knitted_kept(c, self.rules) > kept:
                    useful.add(k)
                c[k] -= 1
        if shapes.get("jiuyao") == dist:
            useful.update(k for k in range(NUM_KINDS) if k >= 27 or k % 9 in (0, 8))
        honours: tuple[Kind, ...] = ()
        if shapes.get("zi") == dist:
            honours = tuple(range(27, 34))
        return tuple(sorted(useful)), honours
