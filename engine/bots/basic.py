"""The basic computer player (``easy``): always legal, plays sensibly, fast.

It keeps pairs, pungs and near-runs, throws isolated honours and terminals first, never throws
a Shangrao wild, takes every win (and Gejiu's 塘子烂糊), makes kongs, pengs honours and isolated
pairs, declares 报听 when the discard it chose allows it, and buys only when compelled.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import Action, ActionType
from engine.tiles import DRAGONS, WINDS, Kind, is_honour, is_terminal, to_counts
from engine.view import View


def tile_keep_value(counts: Sequence[int], kind: Kind, rules: str, wild: Kind | None) -> float:
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
        if rules == "yichun":  # wind sets and 中發白 make sets of different honours
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
        legal = list(view.legal)
        if not legal:
            raise ValueError("the table is not waiting for this seat")
        by_type: dict[ActionType, list[Action]] = {}
        for a in legal:
            by_type.setdefault(a.type, []).append(a)
        for wanted in (ActionType.WIN, ActionType.POND_WIN):
            if wanted in by_type:
                return by_type[wanted][0]
        if ActionType.BUY in by_type or ActionType.NO_BUY in by_type:
            plain = [a for a in legal if not a.lighter]
            no_buy = [a for a in plain if a.type is ActionType.NO_BUY]
            return no_buy[0] if no_buy else plain[0]
        if ActionType.DISCARD in by_type:
            for kong in (ActionType.ANGANG, ActionType.BUGANG):
                if kong in by_type:
                    return by_type[kong][0]
            return self._discard(view, by_type[ActionType.DISCARD])
        return self._claim(view, by_type)

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

    def _claim(self, view: View, by_type: dict[ActionType, list[Action]]) -> Action:
        if ActionType.MINGGANG in by_type:
            return by_type[ActionType.MINGGANG][0]
        if ActionType.PENG in by_type:
            a = by_type[ActionType.PENG][0]
            assert a.tile is not None
            counts = to_counts(view.hand)
            k = a.tile
            isolated = is_honour(k) or all(
                not (0 <= k % 9 + d <= 8 and counts[k + d] > 0) for d in (-2, -1, 1, 2)
            )
            if isolated:
                return a
        return Action.pass_()
