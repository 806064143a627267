"""The decision bench's reshuffle moves only tiles nobody has seen, and judges a decision
against itself as no gain at all."""

from __future__ import annotations

import copy
import random

import pytest

from bench.bench_decisions import reshuffle, true_gain
from engine.bots.hard import HardPlayer
from engine.game import Game
from engine.table import Hand
from engine.view import build_view


def mid_hand(rules: str, seed: int, moves: int) -> Hand:
    hard = HardPlayer()
    hand = Game(rules, seed, {"hands_per_game": 1}).new_hand()
    for _ in range(moves):
        if hand.is_over:
            break
        s = hand.to_act()[0]
        hand.apply(s, hard.choose(build_view(hand, s)))
    assert not hand.is_over
    return hand


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_reshuffle_changes_the_wall_and_no_view(rules: str) -> None:
    hand = mid_hand(rules, 3, 20)
    before = [build_view(hand, s) for s in range(4)]
    undrawn = sorted(hand.wall.undrawn())
    order = list(hand.wall.seq)
    indicator = hand.wall.seq[hand.indicator_pos] if hand.indicator_pos is not None else None
    reshuffle(hand, random.Random(1))
    hand.check_invariants()
    assert sorted(hand.wall.undrawn()) == undrawn
    assert hand.wall.seq != order  # the undrawn tiles did move
    for i in hand.wall.taken:
        assert hand.wall.seq[i] == order[i]  # the drawn ones did not
    if indicator is not None:
        assert hand.indicator_pos is not None
        assert hand.wall.seq[hand.indicator_pos] == indicator
    assert [build_view(hand, s) for s in range(4)] == before


def test_an_action_against_itself_gains_nothing() -> None:
    hand = mid_hand("yichun", 5, 12)
    seat = hand.to_act()[0]
    action = HardPlayer().choose(build_view(hand, seat))
    kept = copy.deepcopy(hand)
    mean, half = true_gain(hand, seat, action, action, 3, random.Random(2), HardPlayer())
    assert (mean, half) == (0.0, 0.0)
    assert hand.actions == kept.actions and hand.wall.seq == kept.wall.seq  # not played on
