"""Win detection for the three rulesets: which hands win, and the facts scoring needs.

Encoding: tiles are **kinds** 0–33 (``engine.tiles``); a hand is held as a 34-entry count array.

How it works (fast enough to run inside every computer player's decision and every hint):

* The concealed hand is split into four independent **groups**: the three suits (9 counts each)
  and the honours (7 counts). For each group a cached table answers, for the group's count
  vector, the **fewest wild tiles** needed to complete it into sets (``need0``) and into sets plus
  the one pair (``need1``). The tables are filled lazily by a memoised search over the group
  alone (never over the whole hand) and are shared by every call.
* A standard hand (4 sets + 1 pair, melds counted as sets) with ``w`` wilds wins iff
  ``sum(need0) + min(need1 - need0 over groups, 2) <= w`` — the ``2`` is a pair made of two
  wilds; wilds left over always come in threes (the tile count is 3n+2) and form pungs of any
  kind, because a Shangrao wild may stand for any kind with no copy limit [A-S15].
* Seven pairs, the knitted families and 九幺 are closed-form count tests; wilds fill gaps.

Nothing here substitutes every wild with every kind: a hand with four wilds costs the same few
table look-ups as a hand with none.

Sets per ruleset (``rules/yichun.md`` §3, ``shangrao.md`` §4, ``gejiu.md`` §4): chows of one suit
and pungs everywhere; Yichun also counts any three different winds (风阙) and 中發白 (箭阙) as
sets; honours form only pungs in Shangrao and Gejiu.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, pairwise
from typing import Final

from engine.melds import Meld, MeldType
from engine.tiles import NUM_KINDS, Kind, is_terminal_or_honour

# --- group tables ---------------------------------------------------------------------------

# Group types: the windows (other positions) a set containing position i may use.
_SUIT: Final = 0
_HONOURS_PLAIN: Final = 1
_HONOURS_YICHUN: Final = 2


def _windows(group: int, size: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each position i: the other positions of every non-pung set that contains i."""
    out: list[tuple[tuple[int, ...], ...]] = []
    for i in range(size):
        wins: list[tuple[int, ...]] = []
        if group == _SUIT:
            for start in (i - 2, i - 1, i):
                if 0 <= start <= 6:
                    wins.append(tuple(j for j in range(start, start + 3) if j != i))
        elif group == _HONOURS_YICHUN:
            if i < 4:  # winds: any three different winds
                for trio in combinations(range(4), 3):
                    if i in trio:
                        wins.append(tuple(j for j in trio if j != i))
            else:  # dragons: exactly 中發白
                wins.append(tuple(j for j in (4, 5, 6) if j != i))
        out.append(tuple(wins))
    return tuple(out)


_WINDOWS: Final = {
    _SUIT: _windows(_SUIT, 9),
    _HONOURS_PLAIN: _windows(_HONOURS_PLAIN, 7),
    _HONOURS_YICHUN: _windows(_HONOURS_YICHUN, 7),
}
# Public names for other engine modules (the computer players' distance tables).
GROUP_SUIT: Final = _SUIT
GROUP_HONOURS_PLAIN: Final = _HONOURS_PLAIN
GROUP_HONOURS_YICHUN: Final = _HONOURS_YICHUN
SET_WINDOWS: Final = _WINDOWS


@functools.cache
def _fill(counts: tuple[int, ...], pair: bool, group: int) -> int:
    """Fewest wilds that complete ``counts`` (one group) into sets, plus one pair if ``pair``.

    Exhaustive over the set holding the lowest remaining tile i: a pung or pair using 1–3 (1–2)
    real copies of i, or a chow / honour set whose other members are each real or wild.
    """
    i = 0
    n = len(counts)
    while i < n and counts[i] == 0:
        i += 1
    if i == n:
        return 2 if pair else 0
    best = 99
    c = list(counts)
    ci = c[i]
    for real in range(1, min(ci, 3) + 1):  # pung of i
        c[i] = ci - real
        best = min(best, 3 - real + _fill(tuple(c), pair, group))
    if pair:
        for real in range(1, min(ci, 2) + 1):
            c[i] = ci - real
            best = min(best, 2 - real + _fill(tuple(c), False, group))
    c[i] = ci - 1
    for others in _WINDOWS[group][i]:
        # each other member: real (if held) or wild
        options: list[list[tuple[int, int]]] = [[]]
        for j in others:
            nxt: list[list[tuple[int, int]]] = []
            for opt in options:
                nxt.append([*opt, (j, 0)])  # wild
                if c[j] > 0:
                    nxt.append([*opt, (j, 1)])  # real
            options = nxt
        for opt in options:
            d = list(c)
            wilds = 0
            for j, real in opt:
                if real:
                    d[j] -= 1
                else:
                    wilds += 1
            best = min(best, wilds + _fill(tuple(d), pair, group))
    return best


_NEED_SUIT: dict[tuple[int, ...], tuple[int, int]] = {}
_NEED_HON: dict[tuple[int, tuple[int, ...]], tuple[int, int]] = {}


def _suit_need(key: tuple[int, ...]) -> tuple[int, int]:
    r = _NEED_SUIT.get(key)
    if r is None:
        r = (_fill(key, False, _SUIT), _fill(key, True, _SUIT))
        _NEED_SUIT[key] = r
    return r


def _honour_need(group: int, key: tuple[int, ...]) -> tuple[int, int]:
    r = _NEED_HON.get((group, key))
    if r is None:
        r = (_fill(key, False, group), _fill(key, True, group))
        _NEED_HON[(group, key)] = r
    return r


# --- the shapes a ruleset knows ------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """One family of interpretations of a winning hand (the facts the pattern tables need).

    ``shape``: "standard", "seven_pairs", "knitted", "jiuyao", "zi_free", "lanpai";
    ``clean``: every wild stands for its own kind (always True without wilds);
    ``pungs``: standard with every set a pung/kong (碰碰糊 / 大七对 / 大对子);
    ``terminal``: every tile of the reading is a 1, 9 or honour;
    ``quads``: seven pairs — groups of four identical tiles; ``seven_star``: knitted / 九幺 with
    all seven honours; ``family``: Gejiu 烂牌 / 一般高 / 七星一般高.
    """

    shape: str
    clean: bool = True
    pungs: bool = False
    terminal: bool = False
    quads: int = 0
    seven_star: bool = False
    family: str = ""


HintValue = Callable[[Reading, bool, bool], tuple[int, str]]
"""(reading, one suit, all honours) -> (base value, pattern name) for the hints."""


def _no_hint(r: Reading, one_suit: bool, all_honours: bool) -> tuple[int, str]:
    """Shapes without a pattern table (a test's own): every reading alike, named by shape."""
    return 1, r.shape


_NAMED: dict[str, HandShapes] = {}


@dataclass(frozen=True, slots=True)
class HandShapes:
    """Which winning shapes a ruleset has: each ``Ruleset`` subclass declares one, and every
    function here takes it, so the win test never asks which ruleset it is playing.

    Sets are chows of one suit and pungs everywhere; ``honour_sets`` adds any three different
    winds and 中發白 (Yichun). The 14-tile specials: seven pairs always, ``knitted`` (十三烂 /
    十三浪: same-suit ranks three apart) or ``lanpai`` (烂牌: one rank class per suit);
    ``jiuyao`` (Shangrao 九幺) and ``zi_free`` (Yichun 字一色 in any form) take melds too.
    ``wild``: the ruleset has a wild kind. ``hint_value`` prices readings for the hints.
    """

    name: str
    honour_sets: bool = False
    wild: bool = False
    knitted: bool = False
    lanpai: bool = False
    jiuyao: bool = False
    zi_free: bool = False
    hint_value: HintValue = field(default=_no_hint, compare=False)
    honour_group: int = field(init=False, compare=False)
    honour_facts: dict[tuple[int, ...], _HonFacts] = field(
        init=False, compare=False, repr=False
    )  # the honour group's table, shared by every shapes with that group

    def __post_init__(self) -> None:
        group = _HONOURS_YICHUN if self.honour_sets else _HONOURS_PLAIN
        object.__setattr__(self, "honour_group", group)
        object.__setattr__(self, "honour_facts", _HON_FACTS[group])
        if self.name:
            _NAMED[self.name] = self


def shapes_named(name: str | HandShapes) -> HandShapes:
    """The shapes declared under ``name`` (for callers that hold only ``View.rules``)."""
    if isinstance(name, HandShapes):
        return name
    try:
        return _NAMED[name]
    except KeyError:
        raise ValueError(f"unknown ruleset {name!r} ({', '.join(_NAMED)})") from None


def standard_need(counts: Sequence[int], shapes: HandShapes) -> tuple[int, int]:
    """(wilds to make every tile into sets, wilds to make sets + one pair) for a count array."""
    m0, m1 = _suit_need(tuple(counts[0:9]))
    p0, p1 = _suit_need(tuple(counts[9:18]))
    s0, s1 = _suit_need(tuple(counts[18:27]))
    h0, h1 = _honour_need(shapes.honour_group, tuple(counts[27:34]))
    need0 = m0 + p0 + s0 + h0
    return need0, need0 + min(m1 - m0, p1 - p0, s1 - s0, h1 - h0, 2)


def standard_ok(counts: Sequence[int], wilds: int, shapes: HandShapes) -> bool:
    """4 sets + pair (melds already removed): ``counts`` (wilds excluded) plus ``wilds`` jokers."""
    m0, m1 = _suit_need(tuple(counts[0:9]))
    p0, p1 = _suit_need(tuple(counts[9:18]))
    s0, s1 = _suit_need(tuple(counts[18:27]))
    h0, h1 = _honour_need(shapes.honour_group, tuple(counts[27:34]))
    need0 = m0 + p0 + s0 + h0
    return need0 + min(m1 - m0, p1 - p0, s1 - s0, h1 - h0, 2) <= wilds


# Pungs-only completion: wilds to make c copies of one kind into pungs, or into pungs + the pair.
_PUNG0: Final = (0, 2, 1, 0, 2)
_PUNG1: Final = (2, 1, 0, 2, 1)


def pungs_ok(counts: Sequence[int], wilds: int, pair: bool = True) -> bool:
    """All sets pungs (碰碰糊 / 大七对 shape), plus the pair if ``pair``; wilds as jokers."""
    need = 0
    delta = 2
    for c in counts:
        if c:
            need += _PUNG0[c]
            d = _PUNG1[c] - _PUNG0[c]
            if d < delta:
                delta = d
    if pair:
        need += delta
    return need <= wilds


def seven_pairs_quads(counts: Sequence[int], wilds: int) -> int | None:
    """Seven pairs (14 concealed tiles): the most groups of four identical tiles an
    interpretation can have (4 identical = two pairs), or ``None`` if no seven-pairs reading.
    Wilds first pair up odd counts, then turn pairs into fours, then pair among themselves."""
    singles = 0
    quads = 0
    pairs = 0
    for c in counts:
        if c & 1:
            singles += 1
        if c >= 3:
            quads += 1
        elif c:
            pairs += 1
    if singles > wilds:
        return None
    left = wilds - singles
    upgrades = min(left // 2, pairs)
    return quads + upgrades + (left - 2 * upgrades) // 4


# Knitted (十三烂 / 十三浪): within a suit, ranks pairwise differ by >= 3.
def _gap_ok(mask: int) -> bool:
    ranks = [r for r in range(9) if mask >> r & 1]
    return all(b - a >= 3 for a, b in pairwise(ranks))


_GAP_OK: Final = tuple(_gap_ok(m) for m in range(512))
_GAP_ROOM: Final = tuple(
    max((bin(sup).count("1") for sup in range(512) if sup & m == m and _GAP_OK[sup]), default=0)
    - bin(m).count("1")
    for m in range(512)
)


@dataclass(frozen=True)
class Knitted:
    """A knitted reading exists; ``seven_star``: one with all seven honours exists."""

    seven_star: bool


def knitted_gap(counts: Sequence[int], wilds: int) -> Knitted | None:
    """Yichun 十三烂 / Shangrao 十三浪 over 14 concealed tiles (wilds excluded from ``counts``):
    no two identical, same-suit ranks differ by >= 3 ("相隔2位" / "间隔大于等于3")."""
    room = 0
    for base in (0, 9, 18):
        mask = 0
        for r in range(9):
            c = counts[base + r]
            if c:
                if c > 1:
                    return None
                mask |= 1 << r
        if not _GAP_OK[mask]:
            return None
        room += _GAP_ROOM[mask]
    honours = 0
    for k in range(27, 34):
        if counts[k] > 1:
            return None
        honours += counts[k]
    missing = 7 - honours
    if wilds > room + missing:
        return None
    return Knitted(seven_star=missing <= wilds and wilds - missing <= room)


def lanpai_family(kinds: Sequence[Kind]) -> str | None:
    """Gejiu 烂牌 family of 14 tiles (``gejiu.md`` §6): "烂牌", "一般高", "七星一般高" or None.

    No two identical; each suit's ranks share one class r mod 3 (147 / 258 / 369, 正规烂
    [A-G5]); 一般高 when all suited tiles share one class; 七星一般高 with all seven honours.
    """
    if len(kinds) != 14 or len(set(kinds)) != 14:
        return None
    classes: set[int] = set()
    for base in (0, 9, 18):
        suit_classes = {(k - base) % 3 for k in kinds if base <= k < base + 9}
        if len(suit_classes) > 1:
            return None
        classes |= suit_classes
    if len(classes) > 1:
        return "烂牌"
    honours = sum(1 for k in kinds if k >= 27)
    return "七星一般高" if honours == 7 else "一般高"


def jiuyao_ok(counts: Sequence[int], melds: Sequence[Meld]) -> bool:
    """Shangrao 九幺: every non-wild tile a 1, a 9 or an honour; melds pungs/kongs of such
    tiles [A-S9] (wilds may stand for terminals, so they never spoil it)."""
    for m in melds:
        if m.type is MeldType.CHI or not is_terminal_or_honour(m.kind):
            return False
    return all(counts[k] == 0 for k in range(27) if k % 9 not in (0, 8))


def honours_missing(counts: Sequence[int], melds: Sequence[Meld]) -> int:
    """How many of the seven honour kinds appear nowhere in ``counts`` or ``melds``."""
    present = {k for k in range(27, 34) if counts[k]}
    present.update(m.kind for m in melds if m.kind >= 27)
    return 7 - len(present)


# --- public API -----------------------------------------------------------------------------


def _check_wild(shapes: HandShapes, wild: Kind | None) -> None:
    if wild is not None and not shapes.wild:
        raise ValueError(f"{shapes.name} has no wild tiles; pass wild=None")


def _counts(concealed: Sequence[Kind], wild: Kind | None) -> tuple[list[int], int]:
    counts = [0] * NUM_KINDS
    for k in concealed:
        counts[k] += 1
    wilds = 0
    if wild is not None:
        wilds = counts[wild]
        counts[wild] = 0
    return counts, wilds


def _expected_concealed(melds: Sequence[Meld]) -> int:
    return 3 * (4 - len(melds)) + 2


# Group facts, cached per count vector of the group (the tables grow lazily and are shared).
# Suit facts: (code, need0, need1 - need0, odd counts, knitted room or -1, 烂牌 class (3 = none)
# or -1, only 1s and 9s). code: 0 = complete as sets, 1 = complete as sets + the pair, 2 = neither
# — without wilds a standard hand wins iff the four codes add up to exactly 1.
# Honour facts, one table per ruleset: (code, need0, need1 - need0, odd counts, kinds present if
# no kind repeats else -1, no honour at all).
_SuitFacts = tuple[int, int, int, int, int, int, bool, bool]
_HonFacts = tuple[int, int, int, int, int, bool]
_SUIT_FACTS: dict[tuple[int, ...], _SuitFacts] = {}
_HON_FACTS: dict[int, dict[tuple[int, ...], _HonFacts]] = {
    _HONOURS_PLAIN: {}, _HONOURS_YICHUN: {},
}


def _code(need0: int, need1: int) -> int:
    return 0 if need0 == 0 else 1 if need1 == 0 else 2


def _suit_facts(c: tuple[int, ...]) -> _SuitFacts:
    n0, n1 = _suit_need(c)
    odd = sum(x & 1 for x in c)
    mask = sum(1 << r for r in range(9) if c[r])
    distinct = all(x <= 1 for x in c)
    room = _GAP_ROOM[mask] if distinct and _GAP_OK[mask] else -1
    classes = {r % 3 for r in range(9) if c[r]}
    lan = -1 if not distinct or len(classes) > 1 else (classes.pop() if classes else 3)
    term = all(c[r] == 0 for r in range(1, 8))
    facts = (_code(n0, n1), n0, n1 - n0, odd, room, lan, term, not any(c))
    _SUIT_FACTS[c] = facts
    return facts


def _hon_facts(group: int, c: tuple[int, ...]) -> _HonFacts:
    n0, n1 = _honour_need(group, c)
    odd = sum(x & 1 for x in c)
    present = sum(1 for x in c if x) if all(x <= 1 for x in c) else -1
    facts = (_code(n0, n1), n0, n1 - n0, odd, present, not any(c))
    _HON_FACTS[group][c] = facts
    return facts


def can_win(
    shapes: HandShapes, concealed: Sequence[Kind], melds: Sequence[Meld], wild: Kind | None = None
) -> bool:
    """Whether ``concealed`` (incl. the winning tile) plus ``melds`` is a winning hand.

    ``concealed`` must hold 3n+2 tiles, n = 4 - len(melds) (else ``ValueError``). ``wild`` is
    Shangrao's wild kind (宝): each such tile in ``concealed`` may stand for any kind.
    """
    if len(concealed) != 14 - 3 * len(melds):
        raise ValueError(
            f"{len(melds)} melds need {_expected_concealed(melds)} concealed tiles, "
            f"got {len(concealed)}"
        )
    counts = [0] * NUM_KINDS
    for k in concealed:
        counts[k] += 1
    return can_win_counts(shapes, counts, melds, wild)


def _facts(
    group: int, counts: Sequence[int]
) -> tuple[_SuitFacts, _SuitFacts, _SuitFacts, _HonFacts]:
    """The four group facts, filling the tables on a miss."""
    keys = (tuple(counts[0:9]), tuple(counts[9:18]), tuple(counts[18:27]))
    m, p, s = (_SUIT_FACTS.get(k) or _suit_facts(k) for k in keys)
    k = tuple(counts[27:34])
    return m, p, s, _HON_FACTS[group].get(k) or _hon_facts(group, k)


def can_win_counts(
    shapes: HandShapes, counts: Sequence[int], melds: Sequence[Meld] = (), wild: Kind | None = None
) -> bool:
    """:func:`can_win` over a 34-entry count array of the concealed tiles (the input the
    ``mahjong`` library's ``Agari.is_agari`` takes), for callers that keep counts up to date.
    The tile count is not checked here: ``counts`` must hold 14 - 3 × len(melds) tiles."""
    if wild is not None and not shapes.wild:
        _check_wild(shapes, wild)
    w = 0
    if wild is not None and counts[wild]:
        w = counts[wild]
        counts = list(counts)
        counts[wild] = 0
    try:
        m = _SUIT_FACTS[tuple(counts[0:9])]
        p = _SUIT_FACTS[tuple(counts[9:18])]
        s = _SUIT_FACTS[tuple(counts[18:27])]
        h = shapes.honour_facts[tuple(counts[27:34])]
    except KeyError:
        m, p, s, h = _facts(shapes.honour_group, counts)
    if w == 0:
        if m[0] + p[0] + s[0] + h[0] == 1:
            return True
    elif m[1] + p[1] + s[1] + h[1] + min(m[2], p[2], s[2], h[2], 2) <= w:
        return True
    return _other_shapes(shapes, m, p, s, h, w, melds)


def _other_shapes(shapes: HandShapes, m: _SuitFacts, p: _SuitFacts, s: _SuitFacts,
                  h: _HonFacts, w: int, melds: Sequence[Meld]) -> bool:
    """The wins other than the standard shape, from the four group facts."""
    if not melds:  # 14 concealed tiles
        if m[3] + p[3] + s[3] + h[3] <= w:  # seven pairs: every odd count takes a wild
            return True
        if shapes.lanpai:
            if m[5] >= 0 and p[5] >= 0 and s[5] >= 0 and h[4] >= 0:
                return True  # 14 distinct tiles, one class per suit: the 烂牌 family
        elif (
            shapes.knitted and m[4] >= 0 and p[4] >= 0 and s[4] >= 0 and h[4] >= 0
            and w <= m[4] + p[4] + s[4] + 7 - h[4]
        ):
            return True  # 十三烂 / 十三浪
    if shapes.jiuyao:
        return bool(m[6] and p[6] and s[6]) and all(
            md.type is not MeldType.CHI and is_terminal_or_honour(md.kind) for md in melds
        )
    if shapes.zi_free:
        no_suits = m[7] and p[7] and s[7]
        return h[5] is False and no_suits and all(
            md.type is MeldType.AGANG and md.kind >= 27 for md in melds
        )
    return False


def _zi_free_ok(counts: Sequence[int], melds: Sequence[Meld]) -> bool:
    """Yichun 字一色 free form: all honours, no chi / peng / 明杠 (only 暗杠 melds) [A-Y12]."""
    if any(m.type is not MeldType.AGANG or m.kind < 27 for m in melds):
        return False
    return all(counts[k] == 0 for k in range(27))


_PLAIN: Final = HandShapes("", wild=True)  # sets only: what 宝吊头 is made of, no registration


def is_baodiao_shape(concealed: Sequence[Kind], wild: Kind) -> bool:
    """Shangrao 宝吊头 shape: ``concealed`` (3n+1 tiles) = one wild + complete sets, other wilds
    substituting inside the sets (``shangrao.md`` §5)."""
    if len(concealed) % 3 != 1:
        return False
    counts, wilds = _counts(concealed, wild)
    if wilds == 0:
        return False
    return standard_need(counts, _PLAIN)[0] <= wilds - 1


def is_baodiao_pung_shape(concealed: Sequence[Kind], wild: Kind) -> bool:
    """宝吊头 shape whose sets can all be pungs (for 碰碰糊宝吊头 / 宝吊宝)."""
    if len(concealed) % 3 != 1:
        return False
    counts, wilds = _counts(concealed, wild)
    return wilds >= 1 and pungs_ok(counts, wilds - 1, pair=False)


# --- hand facts for scoring and hints -------------------------------------------------------


def readings(
    shapes: HandShapes, concealed: Sequence[Kind], melds: Sequence[Meld],
    wild: Kind | None = None,
) -> list[Reading]:
    """Every distinct reading of a hand (empty if it does not win). Clean readings are listed
    separately from wild ones; scoring takes the reading worth the most [A-14]."""
    _check_wild(shapes, wild)
    n = len(concealed)
    if n != _expected_concealed(melds):
        raise ValueError(
            f"{len(melds)} melds need {_expected_concealed(melds)} concealed tiles, got {n}"
        )
    out: list[Reading] = []
    natural, _ = _counts(concealed, None)
    variants: list[tuple[list[int], int, bool]] = [(natural, 0, True)]
    if wild is not None and natural[wild]:
        counts, wilds = _counts(concealed, wild)
        variants.append((counts, wilds, False))
    meld_pungs = all(m.is_pung_like for m in melds)
    meld_term = all(m.is_pung_like and is_terminal_or_honour(m.kind) for m in melds)
    for counts, wilds, clean in variants:
        if standard_ok(counts, wilds, shapes):
            pungs = meld_pungs and pungs_ok(counts, wilds)
            term = (
                pungs
                and meld_term
                and all(counts[k] == 0 for k in range(27) if k % 9 not in (0, 8))
            )
            out.append(Reading("standard", clean, pungs=pungs, terminal=term))
        if n == 14:
            quads = seven_pairs_quads(counts, wilds)
            if quads is not None:
                term = all(counts[k] == 0 for k in range(27) if k % 9 not in (0, 8))
                out.append(Reading("seven_pairs", clean, terminal=term, quads=quads))
            if shapes.lanpai:
                if all(c <= 1 for c in counts):
                    fam = lanpai_family([k for k in range(NUM_KINDS) if counts[k]])
                    if fam is not None:
                        out.append(Reading("lanpai", clean, family=fam,
                                           seven_star=fam == "七星一般高"))
            elif shapes.knitted:
                kn = knitted_gap(counts, wilds)
                if kn is not None:
                    out.append(Reading("knitted", clean, seven_star=kn.seven_star))
        if shapes.jiuyao and jiuyao_ok(counts, melds):
            missing = honours_missing(counts, melds)
            out.append(Reading("jiuyao", clean, terminal=True, seven_star=missing <= wilds))
        if shapes.zi_free and _zi_free_ok(counts, melds):
            out.append(Reading("zi_free", clean, terminal=True))
    return out


def best_pattern(
    shapes: HandShapes, concealed: Sequence[Kind], melds: Sequence[Meld],
    wild: Kind | None = None,
) -> str | None:
    """The name of the most valuable pattern of a winning hand (for hints), else None.

    Values are the rulesets' pattern values without situational modifiers (self-draw assumed
    for Shangrao's 平糊自摸); the scorer (``engine.scoring``) is the authority for payments."""
    rs = readings(shapes, concealed, melds, wild)
    if not rs:
        return None
    tiles = list(concealed) + [k for m in melds for k in m.tiles]
    natural = [k for k in tiles if k != wild] if wild is not None else tiles
    suits = {k // 9 for k in natural if k < 27}
    all_honours = all(k >= 27 for k in natural)
    one_suit = len(suits) == 1 and not any(k >= 27 for k in natural)
    value = shapes.hint_value
    return max((value(r, one_suit, all_honours) for r in rs), key=lambda t: t[0])[1]


def waits(
    shapes: HandShapes | str, concealed: Sequence[Kind], melds: Sequence[Meld],
    wild: Kind | None = None,
) -> dict[Kind, str]:
    """The kinds that would complete ``concealed`` (3n+1 tiles), each with the name of the best
    pattern it makes (see :func:`best_pattern`). Sorted by kind. A ruleset's name is taken
    for ``shapes`` too (a view knows its ruleset by name)."""
    shapes = shapes_named(shapes)
    _check_wild(shapes, wild)
    if len(concealed) + 1 != _expected_concealed(melds):
        raise ValueError(
            f"{len(melds)} melds need {_expected_concealed(melds) - 1} concealed tiles before "
            f"the winning tile, got {len(concealed)}"
        )
    out: dict[Kind, str] = {}
    hand = [*concealed, 0]
    held = Counter(concealed)
    for k in range(NUM_KINDS):
        if held[k] >= 4:
            continue  # no fifth copy: four held concealed (a kong not declared) wait on none
        hand[-1] = k
        if can_win(shapes, hand, melds, wild):
            name = best_pattern(shapes, hand, melds, wild)
            assert name is not None
            out[k] = name
    return out
