"""Ruleset flows: Gejiu 报听, 塘子烂糊 and 斗地主; Shangrao 宝吊头 / 偷机, 接宝 and 四个宝;
Yichun lighters and 天糊 / 地糊 timing; and the fast 报听 test against a plain one."""

from __future__ import annotations

import random

import pytest

from engine.actions import Action, ActionType
from engine.hands import can_win
from engine.rulesets import Gejiu, find_ruleset
from engine.simulate import play_hand
from engine.situation import BaoDiao, WinMethod
from engine.table import Hand, Phase
from engine.tiles import parse_tile, parse_tiles
from engine.view import View
from testkit.scenario import play, rigged_hand

E, S, W, N = 0, 1, 2, 3


class Scripted:
    """Discards the first tile of ``order`` it holds (else the drawn tile); passes claims."""

    def __init__(self, order: str = "", win: bool = False) -> None:
        self.order = parse_tiles(order)
        self.win = win

    def choose(self, view: View) -> Action:
        if self.win and Action.win() in view.legal:
            return Action.win()
        if Action.pass_() in view.legal:
            return Action.pass_()
        held = [*view.hand, *([view.drawn] if view.drawn is not None else [])]
        for k in self.order:
            if k in held and Action.discard(k) in view.legal:
                self.order.remove(k)
                return Action.discard(k)
        if view.drawn is not None and Action.discard(view.drawn) in view.legal:
            return Action.discard(view.drawn)
        return next(
            a for a in view.legal if a.type in (ActionType.DISCARD, ActionType.BUY) and not a.ting
        )


# --- Gejiu ------------------------------------------------------------------------------------


def test_gejiu_pond_win_at_the_14th_discard() -> None:
    pond = "147m 258p 369s ESWNZ"  # 烂牌 (m class 1, p class 2, s class 0)
    hand = rigged_hand("gejiu", {S: "147m 258p 369s ESWN"}, draws="Z")
    players = [Scripted(), Scripted("Z 147m 258p 369s ESWN"), Scripted(), Scripted()]
    while not (hand.phase is Phase.DECLARE or hand.is_over):
        seat = hand.to_act()[0]
        from engine.view import build_view

        hand.apply(seat, players[seat].choose(build_view(hand, seat)))
    assert hand.phase is Phase.DECLARE and hand.current == S
    assert len(hand.seats[S].discards) == 14
    assert sorted(p.kind for p in hand.seats[S].discards) == sorted(parse_tiles(pond))
    assert {str(a) for a in hand.legal_actions(S)} == {"pond_win", "pass"}
    hand.apply(S, Action(ActionType.POND_WIN))
    assert hand.wins[0].how is WinMethod.POND
    s = hand.settlement
    assert s is not None and s.wins[0].seat == S
    # 烂牌 1 fan + 自摸 1 for every payer; the dealer E pays one more
    assert s.seats[E] == -8 and s.seats[W] == -4 and s.seats[N] == -4 and s.seats[S] == 16


def test_gejiu_ting_locks_the_hand() -> None:
    hands = {E: "123m 456p 789s 11s 55m E"}
    hand = rigged_hand("gejiu", hands, draws="N W S 2p 7p")
    ting = {str(a) for a in hand.legal_actions(E) if a.ting}
    assert ting == {"discard E ting"}  # only without E is the hand one tile from winning
    play(hand, "E: discard E ting")
    assert hand.seats[E].ting
    # the others play on; at E's next turn only a win or discarding the drawn tile is offered
    while not (hand.current == E and hand.phase is Phase.TURN) and not hand.is_over:
        seat = hand.to_act()[0]
        a = hand.legal_actions(seat)
        hand.apply(seat, Action.pass_() if Action.pass_() in a else next(
            x for x in a if x.type is ActionType.DISCARD and not x.ting))
    assert hand.drawn is not None and hand.drawn // 4 == parse_tile("2p")
    assert hand.legal_actions(E) == [Action.discard(parse_tile("2p"))]


def test_gejiu_doudizhu_circuits() -> None:
    # E leads 9m; S and W follow, N does not: N (地主) pays 1 to each of the others
    hands = {
        E: "9m 123p 456p 789p 11s 22s",
        S: "9m 234s 567s 88s 123m E",
        W: "9m 345m 345p 33s 44p S F",
        N: "9m 456s 777s 55p 66p W B",
    }
    hand = rigged_hand("gejiu", hands, draws="Z Z Z F")
    play(hand, "E: discard 9m; S: discard 9m; W: discard 9m; N: discard W")
    assert hand.ddz_circuits == [tuple(parse_tiles("9m 9m 9m W"))]
    # circuit 2: E leads F (drawn), nobody follows -> 斗地主 ends
    play(hand, "E: discard F")
    for _ in range(3):
        seat = hand.to_act()[0]
        a = hand.legal_actions(seat)
        hand.apply(seat, Action.pass_() if Action.pass_() in a else a[0])
    assert hand.ddz_circuits[1] is not None and len(hand.ddz_circuits) == 2
    assert not hand.ddz_active


def test_gejiu_doudizhu_void_on_claim() -> None:
    hands = {
        E: "9m 123p 456p 789p 11s 22s",
        S: "9m 99m 34s 567s 88s 12m E",
        W: "345m 678m 33p 44p SSF",
    }
    hand = rigged_hand("gejiu", hands)
    play(hand, "E: discard 9m; S: peng 9m")
    assert hand.ddz_circuits == [None] and not hand.ddz_active


# --- Shangrao ---------------------------------------------------------------------------------


def test_shangrao_baodiao_state_and_touji() -> None:
    # wild 5m. E (dealer) discards 9p leaving 5m + 123p 456p 789s EEE: 宝吊头 state
    hands = {E: "5m 123p 456p 789s EEE 9p"}
    hand = rigged_hand("shangrao", hands, wild="5m", draws="1m 2m 3m 2s 4m 6m 7m 3s")
    play(hand, "E: discard 9p")
    assert hand.seats[E].baodiao and not hand.seats[E].touji
    for _ in range(3):  # S, W, N draw and discard
        seat = hand.to_act()[0]
        hand.apply(seat, next(a for a in hand.legal_actions(seat)
                              if a.type is ActionType.DISCARD and not a.ting)
                   if hand.phase is Phase.TURN else Action.pass_())
    assert hand.current == E and Action.win() in hand.legal_actions(E)  # any tile wins
    play(hand, "E: discard 2s")  # decline the 宝吊头 win: 偷机
    assert hand.seats[E].baodiao and hand.seats[E].touji
    while not (hand.current == E and hand.phase is Phase.TURN):
        seat = hand.to_act()[0]
        a = hand.legal_actions(seat)
        hand.apply(seat, Action.pass_() if Action.pass_() in a else next(
            x for x in a if x.type is ActionType.DISCARD))
    play(hand, "E: win")
    assert hand.wins[0].baodiao is BaoDiao.TOUJI


def test_shangrao_flown_jiebao_and_four_wilds() -> None:
    hands = {E: "5m 5m 5m 123p 456p 789s EE", S: "5m 19m 19p 19s SWNZFB"}
    hand = rigged_hand("shangrao", hands, wild="5m")
    assert hand.seats[E].got == 3 and hand.seats[S].got == 1
    play(hand, "E: discard E")
    seat = hand.current
    assert seat == S
    play(hand, "S: discard 5m")
    assert hand.seats[S].flown == 1 and hand.jiebao == [E]
    assert hand.situation().jiebao == (E,)


# --- Yichun -----------------------------------------------------------------------------------


def test_yichun_lighters_are_limited() -> None:
    hand = Hand(find_ruleset("yichun", {"max_lighters": 1}), seed=4, dealer=0)
    first = hand.to_act()[0]
    hand.apply(first, Action(ActionType.BUY, lighter=True))
    while hand.phase is Phase.BUY:
        seat = hand.to_act()[0]
        assert not any(a.lighter for a in hand.legal_actions(seat))
        hand.apply(seat, hand.legal_actions(seat)[0])
    assert hand.lighters == 1 and hand.situation().lighters == 1


def test_heavenly_hand_and_its_timing() -> None:
    dealt = "123m 456m 789p 111s 99s"
    hand = rigged_hand("yichun", {E: dealt})
    assert Action.win() in hand.legal_actions(E)
    play(hand, "E: win")
    assert hand.wins[0].how is WinMethod.HEAVENLY
    # Gejiu has no 天糊: the same hand is an ordinary self-draw
    hand = rigged_hand("gejiu", {E: dealt})
    play(hand, "E: win")
    assert hand.wins[0].how is WinMethod.SELF_DRAW


def test_shangrao_earthly_is_a_first_draw_self_draw() -> None:
    hand = rigged_hand("shangrao", {S: "123m 456m 789p 111s 9s"}, wild="B", draws="9s")
    play(hand, "E: discard " + next(str(a).split()[1] for a in hand.legal_actions(E)
                                    if a.type is ActionType.DISCARD))
    if hand.phase is Phase.CLAIM:
        for seat in hand.to_act():
            hand.apply(seat, Action.pass_())
    play(hand, "S: win")
    assert hand.wins[0].how is WinMethod.EARTHLY


# --- the fast 报听 test agrees with a plain one -------------------------------------------------


def plain_ready_discards(hand: list[int], melds: tuple[()] = ()) -> list[int]:
    out = []
    for t in sorted(set(hand)):
        rest = list(hand)
        rest.remove(t)
        if any(rest.count(k) < 4 and can_win(Gejiu.shapes, [*rest, k], melds) for k in range(34)):
            out.append(t)
    return out


def test_fast_ready_discards_agree_with_plain() -> None:
    gejiu = find_ruleset("gejiu")
    rng = random.Random(5)
    wall = [k for k in range(34) for _ in range(4)]
    checked = ready = 0
    for _ in range(600):
        rng.shuffle(wall)
        hand = sorted(wall[:14])
        if rng.random() < 0.7:  # bias toward near-winning hands: copy tiles into pairs/runs
            for i in range(0, 12, 3):
                k = hand[i]
                if k < 27 and k % 9 <= 6:
                    hand[i + 1], hand[i + 2] = k + 1, k + 2
            hand = sorted(hand)
        if any(hand.count(k) > 4 for k in hand):
            continue
        fast = gejiu.ready_discards(hand, ())
        assert fast == plain_ready_discards(hand), hand
        checked += 1
        ready += bool(fast)
    assert checked > 400 and ready > 20


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_passive_whole_hand(rules: str) -> None:
    hand = Hand(find_ruleset(rules), seed=8, dealer=1)
    play_hand(hand, [Scripted()] * 4)
    assert hand.is_over
