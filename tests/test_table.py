"""The table state machine: claims and their priority, robbing, several winners, exhaustive
draws, and precise errors for bad input. Situations are rigged with testkit.scenario."""

from __future__ import annotations

import pytest

from engine.actions import Action, ActionType, IllegalActionError
from engine.melds import MeldType
from engine.situation import WinMethod
from engine.table import Hand, Phase
from engine.tiles import TileParseError, parse_tile
from engine.view import View, build_view
from testkit.scenario import play, rigged_hand

E, S, W, N = 0, 1, 2, 3

# E (dealer) discards 5p: S (下家) can chi 46p, W can peng 55p, N wins (34p + 5p).
PRIORITY = {
    E: "5p 123m 789m 111s 999s E",
    S: "46p 234s 99p 568s W N F",
    W: "55p 19p 369m 369s S F Z",
    N: "34p 678p 456m 777s BB",
}


def claims(hand: Hand, seat: int) -> set[str]:
    return {str(a) for a in hand.legal_actions(seat)}


def test_claim_window_offers_each_option() -> None:
    hand = rigged_hand("yichun", PRIORITY)
    play(hand, "E: discard 5p")
    assert hand.phase is Phase.CLAIM
    assert claims(hand, S) == {"chi 5p 46p", "pass"}
    assert claims(hand, W) == {"peng 5p", "pass"}
    assert claims(hand, N) == {"win", "pass"}
    assert hand.legal_actions(E) == []


def test_win_beats_peng_beats_chi() -> None:
    hand = rigged_hand("yichun", PRIORITY)
    play(hand, "E: discard 5p; S: chi 5p 46p; W: peng 5p; N: win")
    assert hand.is_over and [w.seat for w in hand.wins] == [N]
    assert hand.wins[0].how is WinMethod.EARTHLY  # the dealer's first discard (地糊)

    hand = rigged_hand("yichun", PRIORITY)
    play(hand, "E: discard 5p; S: chi 5p 46p; N: pass; W: peng 5p")
    assert hand.phase is Phase.TURN and hand.current == W and hand.after_claim
    assert hand.seats[W].melds[0].type is MeldType.PENG
    assert hand.seats[W].melds[0].source == E
    # after a peng: discard at once, no win, no kong
    assert {a.type for a in hand.legal_actions(W)} == {ActionType.DISCARD}

    hand = rigged_hand("yichun", PRIORITY)
    play(hand, "E: discard 5p; W: pass; N: pass; S: chi 5p 46p")
    assert hand.current == S and hand.seats[S].melds[0].tiles == (12, 13, 14)
    assert hand.seats[E].discards[-1].claimed_by == S


def test_claims_wait_for_everyone_offered() -> None:
    hand = rigged_hand("yichun", PRIORITY)
    play(hand, "E: discard 5p; W: peng 5p")
    assert hand.phase is Phase.CLAIM and set(hand.to_act()) == {S, N}
    view = build_view(hand, S)
    assert view.window_tile == parse_tile("5p") and view.window_from == E


def test_several_winners_on_one_yichun_discard() -> None:
    hands = dict(PRIORITY)
    hands[W] = "5p 456s 678p 345m 222m"
    hand = rigged_hand("yichun", hands)
    play(hand, "E: discard 5p; S: pass; W: win; N: win")
    assert hand.is_over and sorted(w.seat for w in hand.wins) == [W, N]
    assert all(w.from_seat == E for w in hand.wins)
    s = hand.settlement
    assert s is not None and s.next_dealer == E  # several winners: the discarder deals (买庄)
    assert s.seats[W] > 0 and s.seats[N] > 0 and s.seats[E] < 0
    hand.check_invariants()


def test_gejiu_first_claimant_in_play_order_wins() -> None:
    hands = dict(PRIORITY)
    hands[W] = "5p 456s 678p 345m 222m"
    hand = rigged_hand("gejiu", hands)
    play(hand, "E: discard 5p; S: pass; N: win; W: win")
    assert [w.seat for w in hand.wins] == [W]


def test_shangrao_has_no_discard_wins_by_default() -> None:
    hands = dict(PRIORITY)
    hand = rigged_hand("shangrao", hands, wild="B")
    play(hand, "E: discard 5p")
    assert "win" not in claims(hand, N)
    hand = rigged_hand("shangrao", hands, wild="B", options={"discard_wins": True})
    play(hand, "E: discard 5p")
    assert "win" in claims(hand, N)


def test_yichun_honour_chi() -> None:
    hands = dict(PRIORITY)
    hands[E] = "W 123m 789m 111s 999s 5p"
    hands[S] = "EN 46p 234s 99p 568s F"
    hand = rigged_hand("yichun", hands)
    play(hand, "E: discard W")
    assert "chi W EN" in claims(hand, S)
    play(hand, "S: chi W EN")
    assert hand.seats[S].melds[0].tiles == (27, 29, 30)


# S pengs E's 6p, later draws the fourth 6p and adds it (补杠); W and N both wait on 6p.
ROB = {
    E: "6p 111s 999s 999m 55m 12p",
    S: "66p 147m 258s 39p E F Z",
    W: "78p 234m 567m 234s WW",
    N: "45p 123m 456m 789s NN",
}
ROB_SCRIPT = (
    "E: discard 6p; W: pass; N: pass; S: peng 6p; S: discard E; W: discard W; N: discard B;"
    " E: discard S"
)


def test_robbing_an_added_kong_yichun_all_robbers_win() -> None:
    hand = rigged_hand("yichun", ROB, draws="W B S 6p")
    play(hand, ROB_SCRIPT)
    assert hand.current == S and hand.drawn is not None and hand.drawn // 4 == parse_tile("6p")
    play(hand, "S: bugang 6p")
    assert hand.phase is Phase.ROB and set(hand.to_act()) == {W, N}
    play(hand, "W: win; N: win")
    assert sorted(w.seat for w in hand.wins) == [W, N]
    assert all(w.how is WinMethod.ROB_KONG and w.from_seat == S for w in hand.wins)
    # the robbed kong is not completed: the peng stays a peng
    assert [m.type for m in hand.seats[S].melds] == [MeldType.PENG]
    assert hand.settlement is not None and hand.settlement.next_dealer == S
    hand.check_invariants()


def test_added_kong_completes_when_nobody_robs() -> None:
    hand = rigged_hand("yichun", ROB, draws="W B S 6p", tail="9p")
    play(hand, ROB_SCRIPT + "; S: bugang 6p; W: pass; N: pass")
    assert [m.type for m in hand.seats[S].melds] == [MeldType.BGANG]
    assert hand.current == S and hand.from_replacement and hand.kongs_in_turn == 1
    assert hand.drawn is not None and hand.drawn // 4 == parse_tile("9p")  # the tail tile
    hand.check_invariants()


def test_concealed_kong_cannot_be_robbed_in_yichun() -> None:
    hands = {E: "1111m 23m 456p 789s E 5s", N: "23m 456m 789p 111s 99s"}
    hand = rigged_hand("yichun", hands)
    play(hand, "E: angang 1m")
    assert hand.phase is Phase.TURN and hand.current == E


def test_gejiu_kong_tile_robbed_by_first_in_order() -> None:
    hands = {
        E: "1111m 258p 369s EESW",
        S: "5p 456s 678p 345m 222m",
        N: "34p 678s 456m 777s BB",
    }
    hand = rigged_hand("gejiu", hands, kong_tiles="5p 9s")
    assert {str(a) for a in hand.legal_actions(E)} >= {"angang 1m slot0", "angang 1m slot1"}
    play(hand, "E: angang 1m slot0")
    assert hand.phase is Phase.ROB and set(hand.to_act()) == {S, N}
    assert hand.kong_slots[0] is not None  # refilled from the tail at once
    assert build_view(hand, W).window_tile == parse_tile("5p")
    play(hand, "N: win; S: win")
    assert [w.seat for w in hand.wins] == [S]
    assert hand.wins[0].how is WinMethod.ROB_KONG and hand.wins[0].from_seat == E
    hand.check_invariants()


def test_gejiu_kong_tile_taken_when_not_robbed() -> None:
    hands = {E: "1111m 258p 369s EESW"}
    hand = rigged_hand("gejiu", hands, kong_tiles="9s 5p")
    r_before = hand.remaining()
    play(hand, "E: angang 1m slot1")
    if hand.phase is Phase.ROB:
        for seat in hand.to_act():
            hand.apply(seat, Action.pass_())
    assert hand.current == E and hand.drawn is not None and hand.drawn // 4 == parse_tile("5p")
    assert hand.remaining() == r_before - 1  # the slot was refilled from the tail
    assert hand.kong_slots[1] is not None


class Passive:
    """Never wins, claims or kongs: discards the drawn tile (or its first tile)."""

    def choose(self, view: View) -> Action:
        if view.drawn is not None and Action.discard(view.drawn) in view.legal:
            return Action.discard(view.drawn)
        for a in view.legal:
            if a.type is ActionType.PASS:
                return a
        for a in view.legal:
            if a.type in (ActionType.DISCARD, ActionType.NO_BUY) and not a.ting:
                return a
        return view.legal[0]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_gejiu_hand_without_kongs_ends_after_63_draws(seed: int) -> None:
    from engine.rulesets import find_ruleset
    from engine.simulate import play_hand
    from engine.table import EventType

    hand = Hand(find_ruleset("gejiu"), seed=seed, dealer=seed % 4)
    play_hand(hand, [Passive()] * 4)
    draws = sum(1 for e in hand.events if e.type is EventType.DRAW)
    assert draws == 63
    assert hand.remaining() == 20 and not hand.wins
    assert hand.settlement is not None and hand.settlement.next_dealer == (seed % 4 + 1) % 4


@pytest.mark.parametrize("rules", ["yichun", "shangrao"])
def test_exhaustive_draw_uses_every_tile(rules: str) -> None:
    from engine.rulesets import find_ruleset
    from engine.simulate import play_hand

    hand = Hand(find_ruleset(rules), seed=5, dealer=0)
    play_hand(hand, [Passive()] * 4)
    assert hand.wall.remaining == 0 and not hand.wins
    assert hand.settlement is not None
    if rules == "yichun":  # the last drawer deals next
        assert hand.settlement.next_dealer == hand.last_drawer
    else:  # Shangrao: the dealer stays
        assert hand.settlement.next_dealer == 0


# --- bad input --------------------------------------------------------------------------------


def test_action_out_of_turn_is_refused_and_changes_nothing() -> None:
    hand = rigged_hand("yichun", PRIORITY)
    before = (hand.version, len(hand.actions), [list(s.concealed) for s in hand.seats])
    with pytest.raises(IllegalActionError, match="not your move"):
        hand.apply(S, Action.discard(parse_tile("4p")))
    assert before == (hand.version, len(hand.actions), [list(s.concealed) for s in hand.seats])


def test_claim_nobody_offered() -> None:
    hand = rigged_hand("yichun", PRIORITY)
    with pytest.raises(IllegalActionError, match="no discard to claim"):
        hand.apply(E, Action(ActionType.PENG, parse_tile("5p")))
    play(hand, "E: discard 5p")
    with pytest.raises(IllegalActionError, match="no claim was offered"):
        hand.apply(E, Action(ActionType.PENG, parse_tile("5p")))
    with pytest.raises(IllegalActionError) as err:
        hand.apply(W, Action(ActionType.CHI, parse_tile("5p"), (12, 14)))
    assert "peng 5p" in str(err.value)  # the error lists what W may do


def test_discarding_a_tile_not_held() -> None:
    hand = rigged_hand("yichun", PRIORITY)
    with pytest.raises(IllegalActionError, match="you hold no 9p"):
        hand.apply(E, Action.discard(parse_tile("9p")))


def test_winning_with_a_hand_that_does_not_win() -> None:
    hand = rigged_hand("yichun", PRIORITY)
    with pytest.raises(IllegalActionError, match="does not win"):
        hand.apply(E, Action.win())


def test_unknown_tile_in_an_action() -> None:
    with pytest.raises(TileParseError, match="ranks are 1-9"):
        Action.parse("discard 0m")
    with pytest.raises(ValueError, match="unknown action 'hu'"):
        Action.parse("hu")


def test_no_such_seat() -> None:
    hand = rigged_hand("yichun", PRIORITY)
    with pytest.raises(IllegalActionError, match="no such seat"):
        hand.apply(7, Action.pass_())


def test_after_the_hand_is_over() -> None:
    hand = rigged_hand("yichun", PRIORITY)
    play(hand, "E: discard 5p; S: pass; W: pass; N: win")
    with pytest.raises(IllegalActionError, match="the hand is over"):
        hand.apply(E, Action.discard(parse_tile("1m")))
