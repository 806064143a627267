"""Audit of the table state machine against the play clauses of the rules.

Every expectation below is derived from ``/work/shared/rules`` (common.md, the three ruleset
files, ambiguities.md) or ``docs/rules-decisions.md``; the clause is cited next to it. The
situations are rigged with :mod:`testkit.scenario`; ``rig_wall`` also fixes every head draw, so
end-of-wall situations (the last tile, a kong on it, Gejiu's 顶黄) can be reached by a walk in
which every player throws the tile he drew and lets every claim go.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from engine.actions import Action, ActionType
from engine.game import Game
from engine.melds import MeldType
from engine.rulesets import find_ruleset
from engine.situation import BaoDiao, WinMethod
from engine.table import EventType, Hand, Phase
from engine.tiles import kind_to_str, next_kind, parse_tile, parse_tiles
from engine.wall import count_seat, live_sequence, shuffle_tiles
from testkit.scenario import play, rigged_hand

E, S, W, N = 0, 1, 2, 3


# --- helpers ----------------------------------------------------------------------------------


def strs(hand: Hand, seat: int) -> set[str]:
    return {str(a) for a in hand.legal_actions(seat)}


def offers(hand: Hand, seat: int) -> set[str]:
    """What ``seat`` is offered on the open claim window (nothing when no window is open)."""
    return strs(hand, seat) if hand.phase is Phase.CLAIM else set()


def spell(kinds: list[int]) -> str:
    return " ".join(kind_to_str(k) for k in kinds)


def rig_wall(
    rules: str, hands: Mapping[int, str], put: Mapping[int, str], dealer: int = 0,
    seed: int = 0, **kw: Any,
) -> Hand:
    """Like ``rigged_hand`` but every head draw is fixed: draw number i (0-based, counted from
    the first draw after the deal) is ``put[i]`` where given, the rest keep a random order."""
    base = rigged_hand(rules, hands, dealer=dealer, seed=seed, **kw)
    all_hands = {s: spell(base.seats[s].kinds()) for s in range(4)}
    if base.kong_slots and "kong_tiles" not in kw:
        kw["kong_tiles"] = spell([t // 4 for t in base.kong_slots if t is not None])
    if base.wild is not None and "wild" not in kw:
        kw["wild"] = kind_to_str(base.wild)
    positions = sorted(
        i for i in range(136) if i not in base.wall.taken and i != base.indicator_pos
    )
    seq = [base.wall.seq[i] // 4 for i in positions]
    for i, text in put.items():
        k = parse_tile(text)
        j = next(j for j in range(len(seq)) if seq[j] == k and j not in put and j != i)
        seq[i], seq[j] = seq[j], seq[i]
    hand = rigged_hand(rules, all_hands, draws=spell(seq), dealer=dealer, seed=seed, **kw)
    for i, text in put.items():
        assert hand.wall.seq[positions[i]] // 4 == parse_tile(text)
    return hand


def pass_all(hand: Hand) -> None:
    """Every seat offered a claim, a rob or a 塘子烂糊 lets it go."""
    while hand.phase in (Phase.CLAIM, Phase.ROB, Phase.DECLARE):
        seat = hand.to_act()[0]
        hand.apply(seat, Action.pass_())


def throw_drawn(hand: Hand) -> None:
    """The player to move throws the tile he drew; every claim is let go."""
    assert hand.phase is Phase.TURN and hand.drawn is not None
    hand.apply(hand.current, Action.discard(hand.drawn // 4))
    pass_all(hand)


def walk_until(hand: Hand, left: int, first: str | None = None) -> None:
    """Throw drawn tiles until R (= the wall's remaining tiles, Gejiu's kong tiles included) is
    ``left``, with the player to move holding his fresh draw. The dealer opens by throwing
    ``first`` (default: his last dealt tile)."""
    if hand.drawn is None:
        kind = parse_tile(first) if first else hand.seats[hand.current].concealed[-1] // 4
        hand.apply(hand.current, Action.discard(kind))
        pass_all(hand)
    while hand.remaining() > left:
        throw_drawn(hand)
    assert hand.phase is Phase.TURN and hand.remaining() == left


def finish_buy(hand: Hand) -> None:
    while hand.phase is Phase.BUY:
        seat = hand.to_act()[0]
        hand.apply(seat, [a for a in hand.legal_actions(seat) if not a.lighter][-1])


# --- dice, wall, dealing (common.md §4–8) -----------------------------------------------------


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
@pytest.mark.parametrize("seed", [3, 11, 29])
def test_break_and_deal_give_each_seat_exactly_its_tiles(rules: str, seed: int) -> None:
    """common.md §7: Yichun/Shangrao break count(dealer, s) after s stacks, Gejiu the dealer's
    own wall; §8: three rounds of 4 from the dealer in play order, then dealer T[48]+T[52],
    下家 T[49], 对家 T[50], 上家 T[51]; the next head draw is T[53]. Gejiu: the kong tiles are
    T[134], T[135] (gejiu.md §2)."""
    dealer = seed % 4
    hand = Hand(find_ruleset(rules), seed=seed, dealer=dealer)
    finish_buy(hand)
    import random

    rng = random.Random(seed)
    perm = shuffle_tiles(rng)
    s = rng.randint(1, 6) + rng.randint(1, 6)
    owner = dealer if rules == "gejiu" else count_seat(dealer, s)
    t = live_sequence(perm, owner, s)
    assert hand.wall.seq == t
    for k in range(4):
        seat = (dealer + k) % 4
        want = [t[16 * r + 4 * k + i] for r in range(3) for i in range(4)] + [t[48 + k]]
        if k == 0:
            want.append(t[52])
        assert sorted(hand.seats[seat].concealed) == sorted(want)
    if rules == "gejiu":
        assert hand.kong_slots == [t[134], t[135]]
    # the dealer throws; with every claim let go, his 下家 draws T[53]
    hand.apply(dealer, Action.discard(hand.seats[dealer].concealed[0] // 4))
    pass_all(hand)
    assert hand.current == (dealer + 1) % 4 and hand.drawn == t[53]


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_first_dealer_from_the_roll(rules: str) -> None:
    """common.md §5: seat E rolls, dealer = count(E, s); Gejiu: the first player seated
    (option first_roller) rolls, dealer = count(roller, s), the roller counting as 1."""
    seen = set()
    for seed in range(40):
        game = Game(rules, seed)
        s = game.first_dealer_roll.total
        assert game.dealer == count_seat(0, s)
        assert game.new_hand().dealer == game.dealer
        seen.add(game.dealer)
        if rules == "gejiu":
            g = Game(rules, seed, {"first_roller": 2})
            assert g.dealer == count_seat(2, g.first_dealer_roll.total)
    assert seen == {0, 1, 2, 3}


def test_shangrao_wild_successor_table() -> None:
    """shangrao.md §2 table: indicator -> wild."""
    table = {"1m": "2m", "5p": "6p", "9s": "1s", "E": "S", "S": "W", "W": "N", "N": "E",
             "Z": "F", "F": "B", "B": "Z", "9m": "1m"}
    for ind, wild in table.items():
        assert next_kind(parse_tile(ind)) == parse_tile(wild)


@pytest.mark.parametrize("seed", range(6))
def test_shangrao_wild_is_chosen_by_a_second_roll_counted_from_the_tail(seed: int) -> None:
    """shangrao.md §2: after the deal the dealer rolls d; the upper tile of the d-th stack from
    the tail (tail stack = 1), T[2(68-d)], is the indicator; the wild is its successor; the
    indicator stays in the wall; got(X) counts the dealt wilds."""
    hand = Hand(find_ruleset("shangrao"), seed=seed, dealer=seed % 4)
    assert hand.wild_dice is not None and hand.indicator_pos is not None
    d = hand.wild_dice.total
    assert hand.indicator_pos == 2 * (68 - d)
    assert hand.indicator == hand.wall.seq[2 * (68 - d)] // 4
    assert hand.wild == next_kind(hand.indicator)
    assert hand.indicator_pos not in hand.wall.taken
    for st in hand.seats:
        assert st.got == sum(1 for t in st.concealed if t // 4 == hand.wild)
    # the break roll and the wild roll are two rolls (A-S3): the wild dice follow the break
    # dice in the hand's random stream
    import random

    rng = random.Random(seed)
    shuffle_tiles(rng)
    rng.randint(1, 6), rng.randint(1, 6)
    assert (hand.wild_dice.a, hand.wild_dice.b) == (rng.randint(1, 6), rng.randint(1, 6))


def test_shangrao_indicator_is_drawn_normally() -> None:
    """shangrao.md §2.4 [A-S2]: the indicator stays face up in its wall position and is drawn
    normally when reached; it is an ordinary tile, not a wild."""
    hand = Hand(find_ruleset("shangrao"), seed=4, dealer=0)
    pos = hand.indicator_pos
    assert pos is not None
    walk_until(hand, 0)
    assert pos in hand.wall.taken and hand.wall.seq[pos] // 4 == hand.indicator != hand.wild


# --- claims (common.md §10) -------------------------------------------------------------------

# E (dealer) throws 5p: S (下家) can win (pair wait) or chi 67p, W can peng, N can win (34p).
TWO_WINNERS = {
    E: "5p 123m 789m 111s 999s E",
    S: "5p 456s 678p 345m 222m",
    W: "55p 19p 369m 369s S F Z",
    N: "34p 678p 456m 777s BB",
}


def test_yichun_two_winners_and_a_peng_all_claimants_win() -> None:
    """common.md §10: hu > peng > chi; Yichun 不拦胡: every seat that claims the win wins;
    yichun.md §9: several winners -> the discarder deals next. The peng waits for the winners."""
    hand = rigged_hand("yichun", TWO_WINNERS)
    play(hand, "E: discard 5p")
    assert strs(hand, S) == {"win", "chi 5p 67p", "pass"}
    assert strs(hand, W) == {"peng 5p", "pass"}
    assert strs(hand, N) == {"win", "pass"}
    play(hand, "W: peng 5p")
    assert hand.phase is Phase.CLAIM and set(hand.to_act()) == {S, N}
    play(hand, "N: win; S: win")
    assert [w.seat for w in hand.wins] == [S, N]  # in play order after the discarder
    assert all(w.from_seat == E and w.how is WinMethod.EARTHLY for w in hand.wins)
    assert hand.seats[W].melds == []
    assert hand.settlement is not None and hand.settlement.next_dealer == E


def test_yichun_one_winner_passes_the_other_wins() -> None:
    hand = rigged_hand("yichun", TWO_WINNERS)
    play(hand, "E: discard 5p; S: pass; W: peng 5p; N: win")
    assert [w.seat for w in hand.wins] == [N]
    assert hand.settlement is not None and hand.settlement.next_dealer == N  # one winner deals


@pytest.mark.parametrize(
    ("rules", "options"), [("gejiu", None), ("shangrao", {"discard_wins": True})]
)
def test_first_winner_in_play_order_wins_elsewhere(
    rules: str, options: dict[str, Any] | None
) -> None:
    """common.md §10 / [A-8] Gejiu 截胡; shangrao.md §8 discard_wins: of several claimants the
    first counter-clockwise from the discarder wins. A win still beats the peng."""
    wild = {"wild": "8s"} if rules == "shangrao" else {}
    hand = rigged_hand(rules, TWO_WINNERS, options=options, **wild)
    play(hand, "E: discard 5p; N: win; W: peng 5p; S: win")
    assert [w.seat for w in hand.wins] == [S]
    hand = rigged_hand(rules, TWO_WINNERS, options=options, **wild)
    play(hand, "E: discard 5p; S: pass; W: peng 5p; N: win")
    assert [w.seat for w in hand.wins] == [N]
    assert hand.seats[W].melds == []
    # both let the win go: the peng stands and W must discard at once
    hand = rigged_hand(rules, TWO_WINNERS, options=options, **wild)
    play(hand, "E: discard 5p; S: pass; N: pass; W: peng 5p")
    assert hand.current == W and hand.seats[W].melds[0].type is MeldType.PENG
    assert {a.type for a in hand.legal_actions(W)} == {ActionType.DISCARD}


def test_peng_beats_chi_whoever_answers_first() -> None:
    """common.md §10: 明杠 = peng > chi; the later seat's peng beats the 下家's chi."""
    hands = dict(TWO_WINNERS)
    hands[S] = "67p 456s 123m 345m 2m W"  # chi only
    hands[N] = "19m 28p 37s 46s EE SZ N"  # nothing
    hand = rigged_hand("yichun", hands)
    play(hand, "E: discard 5p")
    assert set(hand.to_act()) == {S, W}
    play(hand, "S: chi 5p 67p; W: peng 5p")
    assert hand.current == W and hand.seats[S].melds == []
    assert hand.seats[E].discards[-1].claimed_by == W


@pytest.mark.parametrize("rules", ["yichun", "gejiu", "shangrao"])
def test_chi_only_by_the_discarders_next_seat(rules: str) -> None:
    """common.md §10: chi only by the discarder's 下家; 对家 and 上家 holding 46p get nothing."""
    hands = {
        E: "5p 123m 789m 111s 999s E",
        S: "46p 234s 99p 568s W N F",
        W: "46p 11m 19s 369m SS Z F",
        N: "34p 67p 19m 258s EE B N",
    }
    wild = {"wild": "8m"} if rules == "shangrao" else {}
    hand = rigged_hand(rules, hands, **wild)
    play(hand, "E: discard 5p")
    assert hand.to_act() == [S]
    assert strs(hand, S) == {"chi 5p 46p", "pass"}
    assert hand.legal_actions(W) == [] and hand.legal_actions(N) == []


def test_no_missed_win_restriction() -> None:
    """common.md §9 [A-9]: a player who passes a win may win on a later tile."""
    hands = {E: "5p 123m 789m 111s 999s E", S: "5p 456s 678p 345m 222m"}
    hand = rigged_hand("yichun", hands, draws="N 5p")
    play(hand, "E: discard 5p; S: pass")
    assert hand.current == S
    play(hand, "S: discard N")
    pass_all(hand)
    assert hand.current == W
    play(hand, "W: discard 5p")
    assert "win" in strs(hand, S)
    play(hand, "S: win")
    assert hand.wins[0].seat == S and hand.wins[0].from_seat == W


def test_after_chi_discard_at_once_any_tile() -> None:
    """[A-6] after chi: no win, no kong, discard at once; [A-15] any tile, the claimed kind too."""
    hands = {E: "5p 123m 789m 111s 999s E", S: "46p 5p 2222s 234m 88s E"}
    hand = rigged_hand("yichun", hands)
    play(hand, "E: discard 5p; S: chi 5p 46p")
    legal = hand.legal_actions(S)
    assert {a.type for a in legal} == {ActionType.DISCARD}  # no angang 2s, no win
    assert Action.discard(parse_tile("5p")) in legal


# --- kongs, replacement draws and robbing (common.md §11–12) ----------------------------------


@pytest.mark.parametrize("rules", ["yichun", "shangrao"])
def test_concealed_kong_chain_from_the_tail_is_not_robbed(rules: str) -> None:
    """common.md §7/[A-4]: replacements are tail draws T[134], T[135], …; §12: 暗杠 cannot be
    robbed (Yichun "暗杠不能抢杠", Shangrao [A-S12]) although N waits on 2m; §11: after each
    replacement the konger continues (kong again, win = 杠开); [A-Y24] a win after a first-turn
    暗杠 is 杠开, not 天糊; kongs_in_turn counts the chain (shangrao.md §5)."""
    hands = {E: "2222m 5555m 345p 678s", N: "13m 456p 789p 111s 99s"}
    wild = {"wild": "W"} if rules == "shangrao" else {}
    hand = rigged_hand(rules, hands, tail="E E", **wild)
    play(hand, "E: angang 2m")
    assert hand.phase is Phase.TURN and hand.current == E
    assert hand.drawn == hand.wall.seq[134] and hand.from_replacement
    assert "win" not in strs(hand, E)
    play(hand, "E: angang 5m")
    assert hand.phase is Phase.TURN and hand.drawn == hand.wall.seq[135]
    assert hand.kongs_in_turn == 2
    play(hand, "E: win")
    w = hand.wins[0]
    assert w.how is WinMethod.KONG_REPLACEMENT and w.kongs_in_turn == 2
    assert w.tile == parse_tile("E")


# E throws 7s: N could win on it, W holds 777s.
MINGGANG = {
    E: "7s 123m 789m 111p 345s E",
    S: "19m 19s 28p 46m EE NN F",
    W: "777s 19p 258m 36s SS Z",
    N: "56s 123m 456m 789p 99p",
}


def test_yichun_exposed_kong_from_a_discard_is_not_robbed() -> None:
    """common.md §10: 明杠 by any player holding three; hu beats it (N is asked); yichun.md §2
    [A-Y26]: a 明杠 claimed from a discard cannot be robbed, though N's hand takes 7s; the
    replacement is the tail tile and the konger goes on at §9 2c."""
    hand = rigged_hand("yichun", MINGGANG, tail="F")
    play(hand, "E: discard 7s")
    assert strs(hand, W) == {"minggang 7s", "peng 7s", "pass"}
    assert strs(hand, N) == {"win", "pass"}
    play(hand, "W: minggang 7s")
    assert hand.phase is Phase.CLAIM  # still waiting for N's answer (hu first)
    play(hand, "N: pass")
    assert hand.phase is Phase.TURN and hand.current == W
    assert hand.seats[W].melds[0].type is MeldType.MGANG
    assert hand.drawn == hand.wall.seq[134] and hand.drawn // 4 == parse_tile("F")
    assert hand.kongs_in_turn == 1 and not hand.after_claim


def test_shangrao_exposed_kong_from_a_discard_is_not_robbed() -> None:
    """shangrao.md / common.md §12 [A-S12]: only a 补杠 is robbable; N, whose hand takes 7s, is
    neither asked on the discard (no discard wins) nor on W's 明杠 (碰杠 from a discard)."""
    hand = rigged_hand("shangrao", MINGGANG, wild="B", tail="F")
    play(hand, "E: discard 7s")
    assert hand.to_act() == [W]
    play(hand, "W: minggang 7s")
    assert hand.phase is Phase.TURN and hand.current == W and hand.from_replacement


# S pengs E's 6p holding three (it keeps one), adds it later (补杠) with a tile it already held.
PENG_THEN_ADD = {
    E: "6p 111s 999s 999m 55m 12p",
    S: "666p 147m 258s 3p E F Z",
    W: "78p 234m 567m 234s WW",
    N: "45p 123m 456m 789s NN",
}


def test_added_kong_with_a_held_tile_in_a_later_turn() -> None:
    """[A-6]: no kong right after the peng; [A-7]: a 补杠 may be declared in any later own
    turn with a tile already held (not only the fresh draw); §12: it opens the robbing window for
    the seats its tile completes (W and N wait on 6p in Yichun)."""
    hand = rigged_hand("yichun", PENG_THEN_ADD, draws="S B S 3m")
    play(hand, "E: discard 6p")
    assert strs(hand, S) >= {"minggang 6p", "peng 6p"}
    play(hand, "W: pass; N: pass; S: peng 6p")
    assert {a.type for a in hand.legal_actions(S)} == {ActionType.DISCARD}
    play(hand, "S: discard E")
    pass_all(hand)
    for _ in range(3):  # W, N, E throw what they draw
        throw_drawn(hand)
    assert hand.current == S and hand.drawn is not None and hand.drawn // 4 == parse_tile("3m")
    assert "bugang 6p" in strs(hand, S)
    play(hand, "S: bugang 6p")
    assert hand.phase is Phase.ROB and set(hand.to_act()) == {W, N}


def test_gejiu_added_tile_is_not_robbed_only_the_kong_tile() -> None:
    """gejiu.md §5.4 [A-G13]: what is robbed is the kong tile the konger takes, for any kind of
    kong; the added 6p of a 补杠 is not robbable (W waits on 6p and is not asked); the first
    robber of the kong tile in play order after the konger (N before E, both wait on 3p) wins;
    the kong meld stands; the slot is refilled from the tail (T[132]) at once."""
    hand = rigged_hand("gejiu", PENG_THEN_ADD, draws="S B S 3m", kong_tiles="3p 1s")
    play(hand, "E: discard 6p; W: pass; N: pass; S: peng 6p; S: discard E")
    pass_all(hand)
    for _ in range(3):
        throw_drawn(hand)
    play(hand, "S: bugang 6p slot0")
    assert hand.kong_slots[0] == hand.wall.seq[132]
    assert hand.phase is Phase.ROB and set(hand.to_act()) == {N, E}
    assert hand.seats[S].melds[0].type is MeldType.BGANG
    play(hand, "E: win; N: win")
    w = hand.wins[0]
    assert (w.seat, w.how, w.from_seat, w.tile) == (N, WinMethod.ROB_KONG, S, parse_tile("3p"))
    assert hand.seats[S].melds[0].type is MeldType.BGANG


def test_gejiu_kong_tile_not_robbed_goes_to_the_konger_and_refills_in_tail_order() -> None:
    """gejiu.md §2: the konger chooses a face-up kong tile; the slot is refilled with the next
    tail tile, T[132], then T[133]; R drops by one per kong."""
    hand = rigged_hand("gejiu", {E: "2222m 5555m 345p 678s"}, kong_tiles="E 9p")
    r = hand.remaining()
    second = hand.kong_slots[1]
    play(hand, "E: angang 2m slot0")
    pass_all(hand)
    assert hand.drawn is not None and hand.drawn // 4 == parse_tile("E")
    assert hand.kong_slots == [hand.wall.seq[132], second]
    play(hand, "E: angang 5m slot1")
    pass_all(hand)
    assert hand.drawn is not None and hand.drawn // 4 == parse_tile("9p")
    assert hand.kong_slots == [hand.wall.seq[132], hand.wall.seq[133]]
    assert hand.remaining() == r - 2 and hand.kongs_in_turn == 2


def test_shangrao_several_robbers_all_win_first_after_konger_deals() -> None:
    """shangrao.md §10: several players may rob one 补杠 ("只要能抢杠的都可以抢"); next dealer
    = the first robber counter-clockwise from the konger. No discard wins: W and N are not
    asked on E's 6p."""
    hand = rigged_hand("shangrao", PENG_THEN_ADD, draws="S B S 3m", wild="8m")
    play(hand, "E: discard 6p")
    assert hand.to_act() == [S]
    play(hand, "S: peng 6p; S: discard E")
    pass_all(hand)
    for _ in range(3):
        throw_drawn(hand)
    play(hand, "S: bugang 6p")
    assert hand.phase is Phase.ROB and set(hand.to_act()) == {W, N}
    play(hand, "N: win; W: win")
    assert [w.seat for w in hand.wins] == [W, N]
    assert all(w.how is WinMethod.ROB_KONG and w.from_seat == S for w in hand.wins)
    assert [m.type for m in hand.seats[S].melds] == [MeldType.PENG]  # not completed
    assert hand.settlement is not None and hand.settlement.next_dealer == W


def test_shangrao_wilds_are_never_claimed_nor_used_in_claims() -> None:
    """shangrao.md §3 [A-S15]: a discarded wild can never be claimed (S holds two wilds); wilds
    are never used in chi or peng (S holds 4p + wild and 5p + wild)."""
    hands = {E: "6p 5p 123m 789m 111s 99s E", S: "6p 6p 4p 5p 7s 8s 234s 147m Z"}
    hand = rigged_hand("shangrao", hands, wild="6p")
    play(hand, "E: discard 6p")  # a wild: nobody may take it
    assert hand.phase is Phase.TURN and hand.current == S
    hands = {E: "3p 5p 123m 789m 111s 99s E", S: "6p 6p 4p 5p 7s 8s 234s 147m Z"}
    hand = rigged_hand("shangrao", hands, wild="6p")
    play(hand, "E: discard 5p")  # peng would need a wild as the second 5p; chi 46p a wild 6p
    assert hand.phase is Phase.TURN and hand.current == S  # no claim window at all


# --- the end of the wall (common.md §12, [A-10], [A-16], gejiu.md §2) -------------------------

# Yichun, dealer E. With every tile thrown as drawn, draw number 82 (the last of 83) is N's.
LAST_TILE = {
    E: "23m 456p 789p 12s 99s E N",  # E is N's 下家: could chi 1m with 23m
    S: "23m 456m 789p 111s 99s",  # waits on 1m / 4m
    W: "11m 19p 368s 47p EE SS",  # could peng 1m
}


@pytest.mark.parametrize("win", [False, True])
def test_yichun_discard_of_the_last_wall_tile(win: bool) -> None:
    """[A-10]: no dead wall, all 136 tiles are drawn; [A-16]: the last discard may be won on,
    never chi'd, peng'd or kong'd; if nobody wins the hand is drawn when N's 下家 is due to draw,
    and (yichun.md §9) the last player who drew deals next."""
    hand = rig_wall("yichun", LAST_TILE, {82: "1m"})
    walk_until(hand, 0, first="E")
    assert hand.current == N and hand.drawn is not None and hand.drawn // 4 == parse_tile("1m")
    play(hand, "N: discard 1m")
    assert hand.phase is Phase.CLAIM and hand.to_act() == [S]
    assert strs(hand, S) == {"win", "pass"}
    if win:
        play(hand, "S: win")
        assert hand.wins[0].how is WinMethod.DISCARD and hand.wins[0].from_seat == N
        assert hand.settlement is not None and hand.settlement.next_dealer == S
        return
    play(hand, "S: pass")
    assert hand.is_over and not hand.wins and hand.events[-1].type is EventType.EXHAUSTED
    assert sum(st.draws for st in hand.seats) == 136 - 53 and hand.wall.remaining == 0
    assert hand.last_drawer == N
    assert hand.settlement is not None and hand.settlement.next_dealer == N


def test_yichun_kong_on_the_last_tile() -> None:
    """common.md §11: a kong needs a replacement tile; with one tile left W may 暗杠 and takes
    the last tile (it comes from the tail end, T[135]); then no kong is possible (W holds FFFF),
    the discard may only be won on, the hand is drawn and W, the last drawer, deals next."""
    hands = {W: "777s FFF 19m 19p 28s Z"}
    hand = rig_wall("yichun", hands, {81: "7s", 82: "F"})
    walk_until(hand, 1, first=None)
    assert hand.current == W and hand.drawn is not None and hand.drawn // 4 == parse_tile("7s")
    assert "angang 7s" in strs(hand, W)
    play(hand, "W: angang 7s")
    assert hand.wall.remaining == 0 and hand.drawn == hand.wall.seq[135]
    assert not any(a.type in (ActionType.ANGANG, ActionType.BUGANG)
                   for a in hand.legal_actions(W))  # FFFF, but no tile to replace
    play(hand, "W: discard Z")
    pass_all(hand)
    assert hand.is_over and not hand.wins and hand.last_drawer == W
    assert hand.settlement is not None and hand.settlement.next_dealer == W


def test_yichun_no_kong_on_the_very_last_draw() -> None:
    """common.md §11: with the wall empty no replacement can be supplied, so the player who drew
    the last tile may not kong, even with four of a kind."""
    hands = {N: "FFF 19m 19p 28s Z 77s B"}
    hand = rig_wall("yichun", hands, {82: "F"})
    walk_until(hand, 0, first=None)
    assert hand.current == N and hand.drawn is not None and hand.drawn // 4 == parse_tile("F")
    assert not any(a.type is ActionType.ANGANG for a in hand.legal_actions(N))


def test_yichun_exposed_kong_with_one_tile_left() -> None:
    """common.md §11: a 明杠 needs one tile to remain; S kongs W's discard with one tile left and
    takes it, so S (not N) is the last drawer and deals next."""
    hands = {S: "777s 19m 19p 28s Z N B W"}
    hand = rig_wall("yichun", hands, {81: "7s"})
    walk_until(hand, 1, first=None)
    assert hand.current == W
    play(hand, "W: discard 7s")
    assert "minggang 7s" in strs(hand, S)
    for seat in hand.to_act():
        if seat != S:
            hand.apply(seat, Action.pass_())
    play(hand, "S: minggang 7s")
    assert hand.wall.remaining == 0 and hand.current == S and hand.from_replacement
    throw_drawn(hand)
    assert hand.is_over and not hand.wins
    assert hand.settlement is not None and hand.settlement.next_dealer == S


# Gejiu, dealer E: draw 61 (W) leaves R = 21, draw 62 (N) leaves R = 20.
DINGHUANG = {
    E: "ZZ 13p 456p 79m 115s E W",  # could peng N's Z, not ready
    S: "Z 123m 456m 789p 999s",  # waits on Z
    W: "777s 258m 369p 25s W N",
    N: "FFF 47m 1346s B Z S N",
}


def test_gejiu_dinghuang_at_ten_stacks() -> None:
    """gejiu.md §2 [A-G15]: a kong only while R > 20 (W at R = 21 may 暗杠; N at R = 20 may
    not, though he holds FFFF); the discard made at R = 20 may only be won on (decision:
    rules-decisions "Gejiu after 顶黄 is due"); when a head draw is due at R ≤ 20 the hand is
    drawn (顶黄) and the dealer's 下家 deals next (gejiu.md §8); 63 head draws in all."""
    hand = rig_wall("gejiu", DINGHUANG, {61: "7s", 62: "F"}, kong_tiles="8p 9p")
    walk_until(hand, 21, first="E")
    assert hand.current == W and "angang 7s slot0" in strs(hand, W)
    throw_drawn(hand)  # W keeps his three 7s
    assert hand.current == N and hand.remaining() == 20
    assert not any(a.type is ActionType.ANGANG for a in hand.legal_actions(N))
    play(hand, "N: discard Z")
    assert hand.to_act() == [S] and strs(hand, S) == {"win", "pass"}
    play(hand, "S: pass")
    assert hand.is_over and not hand.wins and hand.remaining() == 20
    assert sum(1 for e in hand.events if e.type is EventType.DRAW) == 63
    assert hand.settlement is not None and hand.settlement.next_dealer == S


def test_gejiu_kong_at_r21_brings_dinghuang_forward() -> None:
    """gejiu.md §2: W's kong at R = 21 takes a kong tile and the slot is refilled (R = 20); his
    discard may only be won on and N's draw is never made: 顶黄."""
    hand = rig_wall("gejiu", DINGHUANG, {61: "7s", 62: "F"}, kong_tiles="8p 9p")
    walk_until(hand, 21, first="E")
    play(hand, "W: angang 7s slot0")
    pass_all(hand)
    assert hand.current == W and hand.remaining() == 20
    assert hand.drawn is not None and hand.drawn // 4 == parse_tile("8p")
    hand.apply(W, Action.discard(parse_tile("8p")))
    assert all(
        {a.type for a in hand.legal_actions(s)} <= {ActionType.WIN, ActionType.PASS}
        for s in range(4)
    )
    pass_all(hand)
    assert hand.is_over and not hand.wins and hand.seats[N].draws == 15


# --- Gejiu 报听 (gejiu.md §3 [A-G18]) ---------------------------------------------------------


@pytest.mark.parametrize("ting", [True, False])
def test_gejiu_ting_lock_claims_and_kongs(ting: bool) -> None:
    """gejiu.md §3: after 报听 the player may not chi, peng or kong; each tile he draws is won
    on or discarded; he may still win on discards. Without 报听 the same tiles offer peng,
    明杠, chi and 暗杠 (so the lock is what removes them)."""
    hand = rigged_hand("gejiu", {E: "111m 456p 999s 11s 55m E"}, draws="9p 1m 7p 9s 5m")
    assert "discard E ting" in strs(hand, E)
    play(hand, "E: discard E" + (" ting" if ting else ""))
    assert hand.seats[E].ting is ting
    pass_all(hand)
    throw_drawn(hand)  # S throws 9p
    hand.apply(W, Action.discard(parse_tile("1m")))
    assert offers(hand, E) == (set() if ting else {"minggang 1m slot0", "minggang 1m slot1",
                                                   "peng 1m", "pass"})
    pass_all(hand)
    hand.apply(N, Action.discard(parse_tile("7p")))
    assert offers(hand, E) == (set() if ting else {"chi 7p 56p", "pass"})
    pass_all(hand)
    assert hand.current == E and hand.drawn is not None and hand.drawn // 4 == parse_tile("9s")
    if ting:
        assert hand.legal_actions(E) == [Action.discard(parse_tile("9s"))]
    else:
        assert {"angang 9s slot0", "angang 9s slot1"} <= strs(hand, E)
    throw_drawn(hand)
    hand.apply(S, Action.discard(parse_tile("5m")))
    assert offers(hand, E) == ({"win", "pass"} if ting else {"win", "peng 5m", "pass"})


def test_gejiu_ting_with_the_discard_after_a_peng() -> None:
    """gejiu.md §3: "Right after his discard, a player whose concealed hand is one tile from a
    legal winning hand may declare 听" — any discard, so also the one made at once after a peng
    ([A-6] forbids only a kong or a win there). S pengs 5p; throwing F leaves 123s 456s 78m 99p
    waiting on 6m / 9m."""
    hands = {E: "5p 123m 789m 111s 999s E", S: "55p 123s 456s 78m 99p F"}
    hand = rigged_hand("gejiu", hands)
    play(hand, "E: discard 5p")
    for seat in hand.to_act():
        if seat != S:
            hand.apply(seat, Action.pass_())
    play(hand, "S: peng 5p")
    legal = hand.legal_actions(S)
    assert {a.type for a in legal} == {ActionType.DISCARD}  # still no win, no kong
    assert [str(a) for a in legal if a.ting] == ["discard F ting"]
    play(hand, "S: discard F ting")
    assert hand.seats[S].ting and hand.seats[S].discards[-1].ting


# --- Gejiu 斗地主 (gejiu.md §7 [A-G17], [A-G26]) ----------------------------------------------

DDZ = {
    E: "9m 23p 456p 789p 111s WW",
    S: "9m 234s 567s 888s 12m E",
    W: "9m 345m 345p 33s 44p S F",
    N: "9m 456s 777s 55p 66p W B",
}


def test_gejiu_doudizhu_claim_on_the_fourth_discard() -> None:
    """[A-G26]: a claim on a circuit's fourth discard comes after the circuit is complete, so
    circuit 1 (two followers: N, the 地主, pays 1 to each) stands; circuit 2 begins in a turn
    opened by a claim and is void, which ends 斗地主."""
    hand = rigged_hand("gejiu", DDZ, draws="Z Z Z")
    play(hand, "E: discard 9m; S: discard 9m; W: discard 9m; N: discard W")
    assert hand.ddz_active and hand.to_act() == [E]
    play(hand, "E: peng W")
    c1 = tuple(parse_tiles("9m 9m 9m W"))
    assert hand.ddz_circuits == [c1, None] and not hand.ddz_active
    assert hand.situation().doudizhu == (c1, None)
    # circuit 1 is paid at the hand's end, whatever happens next (even on 流局)
    play(hand, "E: discard 1s")
    while not hand.is_over:
        if hand.phase is Phase.TURN:
            throw_drawn(hand)
        else:
            pass_all(hand)
    assert hand.ddz_circuits == [c1, None]
    s = hand.settlement
    assert s is not None
    ddz = sorted((t.payer, t.payee, t.amount) for t in s.transfers if "斗地主" in t.why)
    assert ddz == [(N, E, 1), (N, S, 1), (N, W, 1)]


def test_gejiu_doudizhu_void_by_a_kong_inside_a_circuit() -> None:
    """gejiu.md §7: a circuit is void if any kong (of any kind, by anyone) happens before its
    fourth discard: S draws his fourth 8s and 暗杠s before following."""
    hand = rigged_hand("gejiu", DDZ, draws="8s", kong_tiles="B N")
    play(hand, "E: discard 9m")
    assert hand.current == S and "angang 8s slot0" in strs(hand, S)
    play(hand, "S: angang 8s slot0")
    pass_all(hand)
    assert hand.ddz_circuits == [None] and not hand.ddz_active


def test_gejiu_doudizhu_void_by_the_dealers_kong_opening_circuit_two() -> None:
    """gejiu.md §7: the window of circuit k starts with the dealer's turn that produces its
    first discard; the dealer's 暗杠 in that turn voids circuit 2."""
    hand = rigged_hand("gejiu", DDZ, draws="Z Z Z 1s", kong_tiles="B N")
    play(hand, "E: discard 9m; S: discard 9m; W: discard 9m; N: discard B")
    pass_all(hand)
    assert hand.current == E and hand.ddz_active
    play(hand, "E: angang 1s slot0")
    pass_all(hand)
    assert hand.ddz_circuits == [tuple(parse_tiles("9m 9m 9m B")), None]


# --- dealer rotation through a Game (common.md §13) -------------------------------------------


def game_with(rules: str, hands: Mapping[int, str], dealer: int, **kw: Any) -> Game:
    """A game whose first hand is rigged (the game's own first-dealer roll is overridden)."""
    game = Game(rules, 1, kw.pop("options", None))
    game.dealer = dealer
    game.hand = rigged_hand(rules, hands, dealer=dealer, options=dict(game.ruleset.options), **kw)
    return game


def rotate(hands: Mapping[int, str], by: int) -> dict[int, str]:
    return {(s + by) % 4: h for s, h in hands.items()}


def next_dealer(game: Game) -> int:
    assert game.hand is not None and game.hand.is_over
    game.finish_hand()
    return game.new_hand().dealer


def test_yichun_rotation() -> None:
    """yichun.md §9: one winner deals next; several winners on one discard or one robbed kong:
    the discarder / konger (买庄); exhaustive draw: the last drawer (tested above)."""
    game = game_with("yichun", TWO_WINNERS, dealer=E)
    play(game.hand, "E: discard 5p; S: pass; W: pass; N: win")
    assert next_dealer(game) == N
    # dealer W throws 5p; N and S (TWO_WINNERS' S and N seats, turned by two) both win
    game = game_with("yichun", rotate(TWO_WINNERS, 2), dealer=W)
    play(game.hand, "W: discard 5p; S: win; E: pass; N: win")
    assert [w.seat for w in game.hand.wins] == [N, S]
    assert next_dealer(game) == W
    # two robbers of S's 补杠: S deals
    game = game_with("yichun", PENG_THEN_ADD, dealer=E, draws="S B S 3m")
    hand = game.hand
    play(hand, "E: discard 6p; W: pass; N: pass; S: peng 6p; S: discard E")
    pass_all(hand)
    for _ in range(3):
        throw_drawn(hand)
    play(hand, "S: bugang 6p; W: win; N: win")
    assert next_dealer(game) == S


def test_gejiu_rotation() -> None:
    """gejiu.md §8: the dealer wins -> stays; a non-dealer wins -> the dealer's 下家 (not the
    winner); 流局 -> the dealer's 下家."""
    game = game_with("gejiu", {W: "123m 456m 789p 111s 99s"}, dealer=W)
    play(game.hand, "W: win")
    assert game.hand.wins[0].how is WinMethod.SELF_DRAW  # [A-G23]: no 天胡 in Gejiu
    assert next_dealer(game) == W
    game = game_with("gejiu", rotate(TWO_WINNERS, 2), dealer=W)
    play(game.hand, "W: discard 5p; N: pass; E: pass; S: win")
    assert next_dealer(game) == N
    game = game_with("gejiu", {}, dealer=W)
    walk_until(game.hand, 20)
    throw_drawn(game.hand)
    assert game.hand.is_over and not game.hand.wins
    assert next_dealer(game) == N


def test_shangrao_rotation() -> None:
    """shangrao.md §10: the winner deals next; 荒牌: the dealer stays [A-11]."""
    game = game_with("shangrao", {S: "123m 456m 789p 111s 9s"}, dealer=E, wild="B", draws="9s")
    hand = game.hand
    hand.apply(E, Action.discard(hand.seats[E].concealed[0] // 4))
    pass_all(hand)
    play(hand, "S: win")
    assert next_dealer(game) == S
    game = game_with("shangrao", {}, dealer=N)
    walk_until(game.hand, 0)
    throw_drawn(game.hand)
    assert game.hand.is_over and not game.hand.wins
    assert next_dealer(game) == N


# --- 杠开 chains and 天糊 / 地糊 timing ---------------------------------------------------------


def test_shangrao_exposed_kong_then_concealed_kong_counts_two() -> None:
    """common.md §9.5 / §11: after a 明杠 the claimer takes a replacement and goes on at 2c (may
    kong again, win = 杠开); [A-S19]: k counts every kong in unbroken succession, the first may
    be a 明杠 claimed from a discard."""
    hands = {E: "7s 13m 789m 111p 345s E B", S: "777s 2222m 56p 99p FF"}
    hand = rigged_hand("shangrao", hands, wild="N", tail="4p 9p")
    play(hand, "E: discard 7s; S: minggang 7s")
    assert hand.current == S and hand.drawn is not None and hand.drawn // 4 == parse_tile("4p")
    assert "win" not in strs(hand, S)
    play(hand, "S: angang 2m")
    assert hand.drawn is not None and hand.drawn // 4 == parse_tile("9p")
    play(hand, "S: win")
    w = hand.wins[0]
    assert w.how is WinMethod.KONG_REPLACEMENT and w.kongs_in_turn == 2


def test_yichun_earthly_only_without_a_kong_before() -> None:
    """yichun.md §4 #13 / [A-Y14]: 地糊 = a win on the dealer's first discard with no claim or
    kong before it; after the dealer's first-turn 暗杠 the same win is an ordinary discard win;
    [A-Y24]: 天糊 only on the dealt 14 before any action."""
    hands = {E: "1111m 5p 789m 111s 99s E", S: "5p 456s 678p 345m 222m"}
    hand = rigged_hand("yichun", hands, tail="E")
    assert "win" not in strs(hand, E)
    play(hand, "E: angang 1m; E: discard 5p; S: win")
    assert hand.wins[0].how is WinMethod.DISCARD
    hand = rigged_hand("yichun", hands, tail="E")
    play(hand, "E: discard 5p; S: win")
    assert hand.wins[0].how is WinMethod.EARTHLY


# --- Shangrao 宝吊头 / 偷机 as play states (shangrao.md §5 [A-S5]) -----------------------------

BAODIAO = {
    E: "5p 123m 789m 111p 99p E W",
    S: "5m 5p 5p 123s 456s 789s E",  # wild 5m
}


def test_shangrao_baodiao_state_reached_by_peng_first_draw_is_head() -> None:
    """shangrao.md §5: the state is entered by the player's discard that leaves one wild + sets
    (reached here by a peng); on the first draw in the state a win with a second wild is a plain
    宝吊头 (宝吊宝 needs 偷机, [A-S5])."""
    hand = rigged_hand("shangrao", BAODIAO, wild="5m", draws="B B B 5m")
    play(hand, "E: discard 5p; S: peng 5p; S: discard E")
    assert hand.seats[S].baodiao and not hand.seats[S].touji
    pass_all(hand)
    for _ in range(3):
        throw_drawn(hand)
    assert hand.current == S and "win" in strs(hand, S)
    play(hand, "S: win")
    assert hand.wins[0].baodiao is BaoDiao.HEAD


def test_shangrao_touji_then_leaving_the_state_clears_it() -> None:
    """shangrao.md §5: declining a 宝吊头 win and discarding keeps the state and makes it 偷机;
    a discard that breaks the one-wild-plus-sets shape (here 飞宝, the head itself) leaves the
    state, which clears 偷机; the 飞宝 counts in f(X)."""
    hand = rigged_hand("shangrao", BAODIAO, wild="5m", draws="B B B 9p F F F 2s")
    play(hand, "E: discard 5p; S: peng 5p; S: discard E")
    pass_all(hand)
    for _ in range(3):
        throw_drawn(hand)
    assert hand.current == S and "win" in strs(hand, S)
    throw_drawn(hand)  # S declines the 宝吊头 win: 偷机
    assert hand.seats[S].baodiao and hand.seats[S].touji
    for _ in range(3):
        throw_drawn(hand)
    assert hand.current == S
    play(hand, "S: discard 5m")
    assert not hand.seats[S].baodiao and not hand.seats[S].touji
    assert hand.seats[S].flown == 1
