"""A winning-shape check that only the tests read: the shapes other than the standard one,
answered from tile counts, the reference ``tests/test_hands.py`` checks the wild detector by."""

from __future__ import annotations

from collections.abc import Sequence

from engine.hands import (
    HandShapes,
    _zi_free_ok,
    jiuyao_ok,
    knitted_gap,
    lanpai_family,
    seven_pairs_quads,
)
from engine.melds import Meld
from engine.tiles import NUM_KINDS


def special_win(
    shapes: HandShapes, counts: list[int], wilds: int, melds: Sequence[Meld], n: int
) -> bool:
    """Whether ``counts`` (``n`` concealed tiles with ``wilds`` wilds) win by seven pairs,
    a knitted family, 九幺 or 字一色 free form."""
    if n == 14:  # no melds: seven pairs and the knitted families
        if seven_pairs_quads(counts, wilds) is not None:
            return True
        if shapes.lanpai:
            if wilds == 0 and all(c <= 1 for c in counts):
                kinds = [k for k in range(NUM_KINDS) if counts[k]]
                return lanpai_family(kinds) is not None
        elif shapes.knitted and knitted_gap(counts, wilds) is not None:
            return True
    if shapes.jiuyao:
        return jiuyao_ok(counts, melds)
    if shapes.zi_free:
        return _zi_free_ok(counts, melds)
    return False
