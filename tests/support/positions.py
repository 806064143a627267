"""Positions that several test modules play from."""

from __future__ import annotations

from engine.table import Hand
from testkit.scenario import advance, rigged_hand

E, S, W, N = 0, 1, 2, 3


def gejiu_ting() -> Hand:
    """Gejiu, E to discard: S has declared 报听 (waiting on W) after E threw an E; W then threw
    F, which S let go (so F is safe against S)."""
    hands = {
        E: "123m 456m 789p 11s E E 9s",
        S: "234p 567p 345s 678s W",
        W: "111m 999m 22p 33p 44s 6s",
        N: "555m 666p 777s 88s 9p 1p",
    }
    hand = rigged_hand("gejiu", hands, draws="2m F S F", kong_tiles="7m 8m")
    advance(hand, [(E, "discard E"), (S, "discard 2m ting"), (W, "discard F"),
                    (N, "discard S")])
    assert hand.current == E and hand.seats[S].ting
    return hand
