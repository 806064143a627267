"""Wall layout, breaking and dealing against common.md §6-8 and the ruleset files."""

from __future__ import annotations

import random

import pytest

from engine.rulesets import find_ruleset
from engine.table import Hand, Phase
from engine.wall import Wall, count_seat, live_sequence, shuffle_tiles, stack_tiles, tail_position


def test_count_seat() -> None:
    """common.md §3: n in {1,5,9} -> from; {2,6,10} -> 下家; {3,7,11} -> 对家; {4,8,12} -> 上家."""
    for n in (1, 5, 9):
        assert count_seat(2, n) == 2
    for n in (2, 6, 10):
        assert count_seat(2, n) == 3
    for n in (3, 7, 11):
        assert count_seat(2, n) == 0
    for n in (4, 8, 12):
        assert count_seat(2, n) == 1


def test_live_sequence_geometry() -> None:
    perm = list(range(136))
    seq = live_sequence(perm, owner=1, skip=5)
    # first live stack: owner's stack 6 (upper, lower)
    assert (seq[0], seq[1]) == stack_tiles(perm, 1, 6)
    # after the owner's stacks 6..17 (12 stacks) comes the owner's 上家 (seat 0) stack 1
    assert (seq[24], seq[25]) == stack_tiles(perm, 0, 1)
    # the tail is the owner's stack 5
    assert (seq[134], seq[135]) == stack_tiles(perm, 1, 5)
    assert sorted(seq) == perm


def test_tail_order() -> None:
    assert [tail_position(n) for n in range(5)] == [134, 135, 132, 133, 130]


def test_wall_head_and_tail_meet() -> None:
    wall = Wall(list(range(136)))
    got = [wall.draw_tail() for _ in range(3)] + [wall.draw_head() for _ in range(133)]
    assert sorted(got) == list(range(136))
    assert wall.remaining == 0
    with pytest.raises(IndexError):
        wall.draw_head()


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_dealing(rules: str, seed: int) -> None:
    """Dealer holds 14 incl. T[48] and T[52]; 下家 T[49], 对家 T[50], 上家 T[51]."""
    dealer = seed % 4
    hand = Hand(find_ruleset(rules), seed=seed, dealer=dealer)
    while hand.phase is Phase.BUY:
        seat = hand.to_act()[0]
        hand.apply(seat, hand.legal_actions(seat)[0])
    rng = random.Random(seed)
    perm = shuffle_tiles(rng)
    roll = rng.randint(1, 6) + rng.randint(1, 6)
    owner = dealer if rules == "gejiu" else count_seat(dealer, roll)
    assert hand.break_owner == owner
    t = live_sequence(perm, owner, roll)
    seats = hand.seats
    assert len(seats[dealer].concealed) == 14
    assert t[48] in seats[dealer].concealed and t[52] in seats[dealer].concealed
    for k, pos in ((1, 49), (2, 50), (3, 51)):
        s = (dealer + k) % 4
        assert len(seats[s].concealed) == 13
        assert t[pos] in seats[s].concealed
    # rounds: the dealer's first 4 tiles are T[0..3], 下家 T[4..7]
    assert set(t[0:4]) <= set(seats[dealer].concealed)
    assert set(t[4:8]) <= set(seats[(dealer + 1) % 4].concealed)
    assert set(t[16:20]) <= set(seats[dealer].concealed)
    if rules == "gejiu":
        assert hand.kong_slots == [t[134], t[135]]
        assert hand.remaining() == 83
    elif rules == "shangrao":
        assert hand.wild_dice is not None
        d = hand.wild_dice.total
        assert hand.indicator == t[2 * (68 - d)] // 4
    else:
        assert hand.remaining() == 136 - 53
    hand.check_invariants()


@pytest.mark.parametrize("lighters", [0, 1])
def test_yichun_compelled_buyers(lighters: int) -> None:
    """yichun.md §7.3: the dealer and count(dealer, s) must buy; the others choose, in play
    order from the dealer's 下家. With no lighter to throw a compelled seat is not asked."""
    for seed in range(20):
        hand = Hand(find_ruleset("yichun", {"max_lighters": lighters}), seed=seed, dealer=0)
        compelled = {0, count_seat(0, hand.dice.total)}
        assert hand.compelled == compelled
        asked = []
        while hand.phase is Phase.BUY:
            seat = hand.to_act()[0]
            asked.append(seat)
            legal = hand.legal_actions(seat)
            if seat in compelled:
                assert lighters and all(a.type.value == "buy" for a in legal)
            plain = [a for a in legal if not a.lighter]
            hand.apply(seat, plain[-1])  # NO_BUY where allowed, else the compulsory BUY
        assert asked == sorted(asked, key=lambda s: (s - 1) % 4)
        assert all(hand.seats[s].bought for s in compelled)
        assert not any(hand.seats[s].bought for s in set(range(4)) - compelled)
