"""The timer's expiry action (``engine.expiry``): what it plays in each phase, never a win, and
the same choices as the table loops' copy it replaces."""

from __future__ import annotations

import pytest

from engine.actions import Action, ActionType
from engine.expiry import expiry_action
from engine.game import Game
from engine.rulesets import RULESETS, find_ruleset
from engine.table import Hand, Phase
from engine.tiles import parse_tile
from engine.view import build_view
from testkit.scenario import play, rigged_hand

E, S = 0, 1


def _pass_claims(hand: Hand) -> None:
    """Every seat passes the claims open on the last discard."""
    while hand.phase is Phase.CLAIM:
        for seat in hand.to_act():
            if hand.phase is Phase.CLAIM and seat in hand.to_act():
                hand.apply(seat, Action.pass_())


DEALER = "123m 456p 789s ZZ FB N"


def test_a_turn_discards_the_drawn_tile_even_a_winning_one() -> None:
    hand = rigged_hand("gejiu", {E: DEALER, S: "123m 456p 789s WWW 5m"}, draws="5m")
    play(hand, "E: discard N")
    _pass_claims(hand)
    view = build_view(hand, S)
    assert view.phase is Phase.TURN and view.drawn == parse_tile("5m")
    assert Action.win() in view.legal
    assert expiry_action(view) == Action.discard(parse_tile("5m"))


def test_after_a_claim_the_rightmost_tile_goes() -> None:
    hand = rigged_hand("gejiu", {E: "123m 456p 789s EE SW 9m", S: "99m 12p 55s 789s ZZFB"})
    play(hand, "E: discard 9m; S: peng 9m")
    view = build_view(hand, S)
    assert view.phase is Phase.TURN and view.drawn is None
    assert expiry_action(view) == Action.discard(view.hand[-1])


def test_a_win_on_a_discard_is_passed() -> None:
    hand = rigged_hand("gejiu", {E: "123m 456p 789s EE SW 5m", S: "123m 456p 789s NNN 5m"})
    play(hand, "E: discard 5m")
    view = build_view(hand, S)
    assert view.phase is Phase.CLAIM and Action.win() in view.legal
    assert expiry_action(view) == Action.pass_()


@pytest.mark.parametrize("rules", list(RULESETS))
def test_whole_hands_on_expiry_alone_match_the_loops_copy(rules: str) -> None:
    """Every seat lets its timer run out, hand after hand: the action is always legal, never a
    win nor a lighter, a Yichun buy is declined — and it is what ``host.local``'s copy plays."""
    phases: set[Phase] = set()
    for seed in range(4):
        game = Game(find_ruleset(rules), seed)
        hand: Hand = game.new_hand()
        while not hand.is_over:
            seat = hand.to_act()[0]
            view = build_view(hand, seat)
            action = expiry_action(view)
            phases.add(view.phase)
            assert action in view.legal
            assert action.type is not ActionType.WIN and not action.lighter
            if view.phase is Phase.BUY and any(
                a.type is ActionType.NO_BUY and not a.lighter for a in view.legal
            ):
                assert action.type is ActionType.NO_BUY  # declined where it may be
            hand.apply(seat, action)
    assert Phase.TURN in phases and (Phase.BUY in phases) == RULESETS[rules].buy_phase
