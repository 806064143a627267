"""The view-leak check: re-deal every tile a viewer cannot see and require an identical view.

If a view changed when the other seats' concealed tiles and the wall order are dealt anew
(counts kept), it would depend on hidden information — a cheat. The table is changed in place
and restored exactly, so the check is cheap enough to run after every action in `simulate`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.table import Hand, Phase
from engine.tiles import TileId
from engine.view import View, build_view


def _fresh_view(hand: Hand, viewer: int | None) -> View:
    saved, hand.view_cache = hand.view_cache, {}
    try:
        return build_view(hand, viewer)
    finally:
        hand.view_cache = saved


def view_leaks(hand: Hand, viewer: int | None, rng: random.Random,
               project: Callable[[View], Any] | None = None) -> bool:
    """Whether ``viewer``'s view changes when everything it cannot see is re-dealt; with
    ``project``, whether what it derives from the view changes (e.g. the bot protocol's
    lines: ``project`` is then called once on the view as it is and once on the re-dealt one,
    and must not keep state between the two calls)."""
    if hand.phase in (Phase.BUY, Phase.ENDED):
        return False  # nothing dealt yet / everything revealed
    before = _fresh_view(hand, viewer)
    wall = hand.wall
    public = {hand.indicator_pos} if hand.indicator_pos is not None else set()
    positions = [i for i in range(len(wall.seq)) if i not in wall.taken and i not in public]
    others = [s for s in range(4) if s != viewer]
    saved_seq = list(wall.seq)
    saved_hands = {s: list(hand.seats[s].concealed) for s in others}
    saved_drawn = hand.drawn
    saved_legal = dict(hand._legal_cache)
    drawn_at: int | None = None
    if hand.drawn is not None and hand.current in others:
        drawn_at = hand.seats[hand.current].concealed.index(hand.drawn)
    pool: list[TileId] = [wall.seq[i] for i in positions]
    for s in others:
        pool += hand.seats[s].concealed
    rng.shuffle(pool)
    try:
        for i in positions:
            wall.seq[i] = pool.pop()
        for s in others:
            hand.seats[s].set_concealed([pool.pop() for _ in saved_hands[s]])
        if drawn_at is not None:
            hand.drawn = hand.seats[hand.current].concealed[drawn_at]
        hand._legal_cache = {}
        after = _fresh_view(hand, viewer)
    finally:
        wall.seq[:] = saved_seq
        for s in others:
            hand.seats[s].set_concealed(saved_hands[s])
        hand.drawn = saved_drawn
        hand._legal_cache = saved_legal
    if project is not None:
        return bool(project(before) != project(after))
    return before != after
