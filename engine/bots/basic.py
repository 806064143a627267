"""The basic computer player (``easy``): always legal, plays sensibly, fast.

It keeps pairs, pungs and near-runs, throws isolated honours and terminals first, never throws
a Shangrao wild, takes every win (and Gejiu's 塘子烂糊), makes kongs, pengs honours and isolated
pairs, declares 报听 when the discard it chose allows it, and buys only when compelled.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import Action, ActionType
from engine.hands import HandShapes, shapes_named
from engine.tiles import DRAGONS, WINDS, Kind, is_honour, is_terminal, to_counts
from engine.view import View


def tile_keep_value(
    counts: Sequence[int], kind: Kind, rules: HandShapes | str, wild: Kind | None
) -> float:
    """How much a tile is worth keeping: higher = more connected to the rest of the hand."""
    if wild is not None and kind == wild:
        return 100.0
    c = counts[kind]
    value = 0.0
    if c >= 3:
        value += 9.0
    elif c == 2:
        value += 5.0
    if is_honour(kind):
        if shapes_named(rules).honour_sets:  # wind sets and 中發白: different honours
            group = WINDS if kind in WINDS else DRAGONS
            value += 1.5 * sum(1 for k in group if k != kind and counts[k] > 0)
        return value - 0.5
    rank = kind % 9
    for d, w in ((1, 3.0), (2, 1.5)):
        if rank - d >= 0 and counts[kind - d] > 0:
            value += w
        if rank + d <= 8 and counts[kind + d] > 0:
            value += w
    if is_terminal(kind):
        value -= 0.3
    return value


class BasicPlayer:
    """``choose(view)`` → an action from ``view.legal``; deterministic for a given view."""

    level = "easy"

    def choose(self, view: View) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError("the table is not waiting for this seat")
        discards: list[Action] = []
        kong: Action | None = None
        peng: Action | None = None
        buying = False
        for a in legal:
            t = a.type
            if t is ActionType.WIN or t is ActionType.POND_WIN:
                return a
            if t is ActionType.DISCARD:
                discards.append(a)
            elif t is ActionType.ANGANG or t is ActionType.BUGANG or t is ActionType.MINGGANG:
                kong = kong or a
            elif t is ActionType.PENG:
                peng = peng or a
            elif t is ActionType.BUY or t is ActionType.NO_BUY:
                buying = True
        if buying:
            plain = [a for a in legal if not a.lighter]
            no_buy = [a for a in plain if a.type is ActionType.NO_BUY]
            return no_buy[0] if no_buy else plain[0]
        if kong is not None:
            return kong
        if discards:
            return self._discard(view, discards)
        if peng is not None and self._wants_peng(view, peng):
            return peng
        return Action.pass_()

    def _discard(self, view: View, discards: list[Action]) -> Action:
        tiles = list(view.hand) + ([view.drawn] if view.drawn is not None else [])
        counts = to_counts(tiles)
        plain = [a for a in discards if not a.ting]
        choice = plain[0]
        if len(plain) > 1:
            best: tuple[float, int, int] | None = None
            for a in plain:
                k = a.tile
                assert k is not None
                order = 0 if k >= 27 else (1 if k % 9 in (0, 8) else 2)
                key = (tile_keep_value(counts, k, view.rules, view.wild), order, k)
                if best is None or key < best:
                    best, choice = key, a
        if choice.tile is not None and discards[-1].ting:
            ting = Action.discard(choice.tile, ting=True)
            if ting in discards:
                return ting
        return choice

    def _wants_peng(self, view: View, peng: Action) -> bool:
        """Peng honours and pairs that have no neighbours to make a run with."""
        k = peng.tile
        assert k is not None
        if is_honour(k):
            return True
        counts = to_counts(view.hand)
        return all(not (0 <= k % 9 + d <= 8 and counts[k + d] > 0) for d in (-2, -1, 1, 2))
