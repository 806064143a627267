"""Group keys: the fastest win test and the waits, for callers that keep their hand as four numbers.

A hand's concealed tiles as four integer **group keys** (manzu, pinzu, souzu, honours; a key is
Σ count × 5^position), each mapped to its group facts by a table filled lazily from
``engine.hands``'s per-group tables: ``can_win_keys`` is four look-ups, and ``completing_kinds``
(the kinds one more tile of which wins) looks up again only the group a tile joins. Per group
key the positions that complete it are cached too, so the standard shape's waits without wilds
take no win test per kind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from engine.hands import (
    _HON_FACTS,
    _HONOURS_PLAIN,
    _HONOURS_YICHUN,
    _SUIT_FACTS,
    HandShapes,
    _hon_facts,
    _HonFacts,
    _other_shapes,
    _suit_facts,
    _SuitFacts,
)
from engine.melds import Meld
from engine.tiles import NUM_KINDS, Kind

POW5: Final = tuple(5 ** r for r in range(9))  # a group's key: Σ count × 5^position
_SUIT_BY_KEY: dict[int, _SuitFacts] = {}
_HON_BY_KEY: dict[int, dict[int, _HonFacts]] = {_HONOURS_PLAIN: {}, _HONOURS_YICHUN: {}}


def group_keys(counts: Sequence[int]) -> list[int]:
    """The four group keys (manzu, pinzu, souzu, honours) of a 34-entry count array."""
    keys = [0, 0, 0, 0]
    for k in range(NUM_KINDS):
        if counts[k]:
            g, r = (k // 9, k % 9) if k < 27 else (3, k - 27)
            keys[g] += counts[k] * POW5[r]
    return keys


def key_of(kind: Kind) -> tuple[int, int]:
    """(group, the amount one tile of ``kind`` adds to that group's key)."""
    return (kind // 9, POW5[kind % 9]) if kind < 27 else (3, POW5[kind - 27])


def _digits(key: int, n: int) -> tuple[int, ...]:
    out = []
    for _ in range(n):
        key, d = divmod(key, 5)
        out.append(d)
    return tuple(out)


def _suit_by_key(key: int) -> _SuitFacts:
    c = _digits(key, 9)
    facts = _SUIT_FACTS.get(c) or _suit_facts(c)
    _SUIT_BY_KEY[key] = facts
    return facts


def _hon_by_key(group: int, key: int) -> _HonFacts:
    c = _digits(key, 7)
    facts = _HON_FACTS[group].get(c) or _hon_facts(group, c)
    _HON_BY_KEY[group][key] = facts
    return facts


def can_win_keys(shapes: HandShapes, keys: Sequence[int], melds: Sequence[Meld] = (),
                 wilds: int = 0) -> bool:
    """:func:`can_win_counts` over the four group keys (:func:`group_keys`; the wild tiles
    left out of them and counted in ``wilds``): four integer look-ups, no slicing. The tile
    count is not checked: the keys must hold 14 - 3 × len(melds) - wilds tiles."""
    m = _SUIT_BY_KEY.get(keys[0]) or _suit_by_key(keys[0])
    p = _SUIT_BY_KEY.get(keys[1]) or _suit_by_key(keys[1])
    s = _SUIT_BY_KEY.get(keys[2]) or _suit_by_key(keys[2])
    table = _HON_BY_KEY[shapes.honour_group]
    h = table.get(keys[3]) or _hon_by_key(shapes.honour_group, keys[3])
    if wilds == 0:
        if m[0] + p[0] + s[0] + h[0] == 1:
            return True
    elif m[1] + p[1] + s[1] + h[1] + min(m[2], p[2], s[2], h[2], 2) <= wilds:
        return True
    return _other_shapes(shapes, m, p, s, h, wilds, melds)


# Per group key, the positions (ranks, or honours 0-6) one more tile at which leaves the group
# complete as sets (code 0) or as sets and the pair (code 1): the standard shape's waits without
# wilds are then a few look-ups, not one win test per kind.
_SUIT_ADDS: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}
_HON_ADDS: dict[int, dict[int, tuple[tuple[int, ...], tuple[int, ...]]]] = {
    _HONOURS_PLAIN: {}, _HONOURS_YICHUN: {},
}


def _adds(key: int, n: int, facts: Callable[[int], tuple[int, ...]]
          ) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The positions of a group of ``n`` (key ``key``) one more tile at which leaves its code
    at 0, and at 1; ``facts``: the group's facts by key."""
    c = _digits(key, n)
    codes: tuple[list[int], list[int]] = ([], [])
    for r in range(n):
        if c[r] < 4:
            code = facts(key + POW5[r])[0]
            if code < 2:
                codes[code].append(r)
    return (tuple(codes[0]), tuple(codes[1]))


def _suit_adds(key: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    out = _SUIT_ADDS[key] = _adds(key, 9, lambda k: _SUIT_BY_KEY.get(k) or _suit_by_key(k))
    return out


def _hon_adds(group: int, key: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    table = _HON_BY_KEY[group]
    out = _HON_ADDS[group][key] = _adds(key, 7, lambda k: table.get(k) or _hon_by_key(group, k))
    return out


def _completing_plain(shapes: HandShapes, counts: Sequence[int], melds: Sequence[Meld],
                      keys: Sequence[int], m: _SuitFacts, p: _SuitFacts, s: _SuitFacts,
                      h: _HonFacts) -> list[Kind]:
    """:func:`completing_kinds` without wilds: the standard shape's kinds from the group tables
    (a tile in group g wins when g's new code and the others' codes add up to 1); the other
    shapes are tested kind by kind only where they can hold (seven pairs: the one odd count;
    the knitted and 烂牌 families: thirteen distinct tiles; 九幺: no middle rank; 字一色: no
    suit)."""
    total = m[0] + p[0] + s[0] + h[0]
    found: set[Kind] = set()
    for g, f in ((0, m), (1, p), (2, s)):
        need = 1 - total + f[0]
        if 0 <= need <= 1:
            adds = _SUIT_ADDS.get(keys[g]) or _suit_adds(keys[g])
            found.update(9 * g + r for r in adds[need])
    need = 1 - total + h[0]
    if 0 <= need <= 1:
        group = shapes.honour_group
        adds = _HON_ADDS[group].get(keys[3]) or _hon_adds(group, keys[3])
        found.update(27 + r for r in adds[need])
    slow = False
    if not melds:
        if m[3] + p[3] + s[3] + h[3] == 1:  # seven pairs: the one kind held an odd number
            found.update(k for k in range(NUM_KINDS) if counts[k] & 1)
        slow = (shapes.lanpai or shapes.knitted) and max(counts) <= 1
    if shapes.jiuyao and m[6] and p[6] and s[6]:
        slow = True
    if shapes.zi_free and m[7] and p[7] and s[7]:
        slow = True
    if slow:
        group = shapes.honour_group
        hon = _HON_BY_KEY[group]
        for k in range(NUM_KINDS):
            if counts[k] >= 4 or k in found:
                continue
            if k < 27:
                g = k // 9
                key = keys[g] + POW5[k - 9 * g]
                f = _SUIT_BY_KEY.get(key) or _suit_by_key(key)
                if _other_shapes(shapes, f if g == 0 else m, f if g == 1 else p,
                                 f if g == 2 else s, h, 0, melds):
                    found.add(k)
            else:
                key = keys[3] + POW5[k - 27]
                if _other_shapes(shapes, m, p, s, hon.get(key) or _hon_by_key(group, key), 0,
                                 melds):
                    found.add(k)
    return sorted(found)


def completing_kinds(shapes: HandShapes, counts: Sequence[int], melds: Sequence[Meld] = (),
                     wilds: int = 0, wild: Kind | None = None) -> list[Kind]:
    """The kinds one more tile of which makes a winning hand of the 3n+1 tiles ``counts`` (a
    34-entry count array, the ``wilds`` wild tiles left out of it) and ``melds``, in kind
    order: :func:`can_win_keys` for each kind, but only the group the tile joins is looked up
    again. ``wild`` (Shangrao's 宝, whose count must be 0 in ``counts``) completes the hand as
    one more wild. A kind of which four are held is never one (there is no fifth)."""
    keys = group_keys(counts)
    group = shapes.honour_group
    hon = _HON_BY_KEY[group]
    m = _SUIT_BY_KEY.get(keys[0]) or _suit_by_key(keys[0])
    p = _SUIT_BY_KEY.get(keys[1]) or _suit_by_key(keys[1])
    s = _SUIT_BY_KEY.get(keys[2]) or _suit_by_key(keys[2])
    h = hon.get(keys[3]) or _hon_by_key(group, keys[3])
    if wilds == 0 and wild is None:
        return _completing_plain(shapes, counts, melds, keys, m, p, s, h)

    def wins(m: _SuitFacts, p: _SuitFacts, s: _SuitFacts, h: _HonFacts, w: int) -> bool:
        if w == 0:
            if m[0] + p[0] + s[0] + h[0] == 1:
                return True
        elif m[1] + p[1] + s[1] + h[1] + min(m[2], p[2], s[2], h[2], 2) <= w:
            return True
        return _other_shapes(shapes, m, p, s, h, w, melds)

    out: list[Kind] = []
    for k in range(NUM_KINDS):
        if k == wild:
            if wins(m, p, s, h, wilds + 1):
                out.append(k)
            continue
        if counts[k] >= 4:
            continue
        if k < 27:
            g = k // 9
            key = keys[g] + POW5[k - 9 * g]
            f = _SUIT_BY_KEY.get(key) or _suit_by_key(key)
            if (wins(f, p, s, h, wilds) if g == 0 else wins(m, f, s, h, wilds) if g == 1
                    else wins(m, p, f, h, wilds)):
                out.append(k)
        else:
            key = keys[3] + POW5[k - 27]
            if wins(m, p, s, hon.get(key) or _hon_by_key(group, key), wilds):
                out.append(k)
    return out
