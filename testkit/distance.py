"""The distance of a hand from winning written out whole (``engine.bots.shape``'s module
docstring defines it), the reference the tests check :class:`~engine.bots.shape.HandEval`'s
incremental figures against; the computer players use HandEval alone."""

from __future__ import annotations

from collections.abc import Sequence

from engine.bots.shape import (
    MeldFacts,
    group_vecs,
    knitted_kept,
    seven_pairs_jokers,
    standard_jokers,
)
from engine.hands import HandShapes, shapes_named


def distance(
    rules: HandShapes | str, counts: Sequence[int], wilds: int, melds: MeldFacts, total: int
) -> int:
    """Fewest useful tiles still to receive to win (see the module docstring).

    ``counts``: concealed tiles without the wilds; ``total``: concealed tiles with the wilds
    (3n+1 or 3n+2)."""
    rules = shapes_named(rules)
    sets = 4 - melds.count
    best = standard_jokers(group_vecs(counts, rules), sets)
    if melds.count == 0:
        best = min(best, seven_pairs_jokers(counts), 14 - knitted_kept(counts, rules))
    full = 3 * sets + 2
    if rules.jiuyao and melds.all_terminal_pungs:
        best = min(best, full - sum(counts[k] for k in range(27) if k % 9 in (0, 8))
                   - sum(counts[27:34]))
    elif rules.zi_free and melds.only_honour_angang:
        best = min(best, full - sum(counts[27:34]))
    return max(best - wilds, 0 if total % 3 == 2 else 1)
