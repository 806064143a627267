"""Audit of the table mechanics (wall, turn loop, claims, kongs, 报听, stakes) against the spec.

Each test names the clause of ``/work/shared/rules`` (or ``docs/rules-decisions.md``) it pins;
the positions and tiles are worked out by hand from that clause, not read back from the engine.
Hands are rigged with :mod:`testkit.scenario`.
"""

from __future__ import annotations

import pytest

from engine.actions import Action, ActionType
from engine.melds import MeldType
from engine.rulesets import find_ruleset
from engine.situation import Spectator, WinMethod
from engine.table import Hand, Phase
from engine.tiles import parse_tile, parse_tiles
from engine.wall import Wall, live_sequence
from testkit.scenario import play, rigged_hand

E, S, W, N = 0, 1, 2, 3


def pass_others(hand: Hand, keep: int) -> None:
    """Every seat asked in the open window except ``keep`` lets it go."""
    for seat in list(hand.to_act()):
        if seat != keep:
            hand.apply(seat, Action.pass_())


# --- wall (common.md §6-7) --------------------------------------------------------------------


def test_wall_sequence_worked_by_hand() -> None:
    """common.md §6-7: identity shuffle, owner o = W (2), skip n = 5. W's wall is π[68…101],
    stack j = π[68 + 2(j-1)], π[69 + 2(j-1)]. L = W 6…17, S 1…17, E 1…17, N 1…17, W 1…5:
    T[0..1] = 78, 79 (W stack 6); T[22..23] = 100, 101 (W stack 17); T[24] = 34 (S stack 1);
    T[58] = 0 (E stack 1); T[92] = 102 (N stack 1); T[126] = 68 (W stack 1); T[134..135] =
    76, 77 (W stack 5). Tail draws (A-4): T[134], T[135], T[132], T[133] = 76, 77, 74, 75."""
    seq = live_sequence(list(range(136)), owner=2, skip=5)
    want = {0: 78, 1: 79, 22: 100, 23: 101, 24: 34, 57: 67, 58: 0, 91: 33, 92: 102, 125: 135,
            126: 68, 134: 76, 135: 77}
    assert {i: seq[i] for i in want} == want
    wall = Wall(seq)
    assert [wall.draw_tail() for _ in range(4)] == [76, 77, 74, 75]
    assert [wall.draw_head() for _ in range(3)] == [78, 79, 80]
    assert wall.remaining == 136 - 7


# --- after a peng (common.md §9.4, [A-6]) -----------------------------------------------------

# S holds 77p and, after pengs 7p, 1111s 23s 567m 99m: a complete hand (peng 777p, 111s, 123s,
# 567m, 99m) with four 1s in hand.
PENG_COMPLETE = {
    E: "7p 123p 456p 789s ZZ B F",
    S: "77p 1111s 23s 567m 99m",
}


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_after_a_peng_no_win_and_no_kong_only_a_discard(rules: str) -> None:
    """common.md §9.4 / §11 [A-6]: after a chi or peng the claimer must discard at once — no
    win and no kong in that turn, although S's hand is complete and holds four 1s."""
    wild = {"wild": "W"} if rules == "shangrao" else {}
    hand = rigged_hand(rules, PENG_COMPLETE, **wild)
    play(hand, "E: discard 7p")
    assert Action(ActionType.PENG, parse_tile("7p")) in hand.legal_actions(S)
    hand.apply(S, Action(ActionType.PENG, parse_tile("7p")))
    pass_others(hand, S)
    assert hand.phase is Phase.TURN and hand.current == S
    assert hand.seats[S].melds[0].type is MeldType.PENG
    assert {a.type for a in hand.legal_actions(S)} == {ActionType.DISCARD}


# --- 报听 (gejiu.md §3, rules-decisions "Gejiu 报听") -----------------------------------------


def test_gejiu_ting_not_on_a_wait_for_a_fifth_copy_held_in_a_peng() -> None:
    """gejiu.md §3: 报听 needs a hand one tile from a legal winning hand; rules-decisions: a hand
    whose only wait is a fifth copy of a kind it holds four of is not ready. S pengs E's 1m
    holding three: peng 111m + 1m 234p 567p 789s E. Throwing 1m leaves 234p 567p 789s E, which
    waits on E (ready); throwing E leaves 1m 234p 567p 789s, whose only wait is a fifth 1m
    (three in the peng, one in hand): not ready, so no 报听 with E."""
    hand = rigged_hand("gejiu", {
        E: "1m 567m 234s 999p WW NN",
        S: "111m 234p 567p 789s E",
    })
    play(hand, "E: discard 1m")
    hand.apply(S, Action(ActionType.PENG, parse_tile("1m")))
    pass_others(hand, S)
    ting = {a.tile for a in hand.legal_actions(S) if a.type is ActionType.DISCARD and a.ting}
    assert ting == {parse_tile("1m")}
    assert not hand.ruleset.is_ready(
        parse_tiles("1m 234p 567p 789s"), hand.seats[S].melds
    )


# --- 压鸽子 (yichun.md §7.7, [A-Y8]) -----------------------------------------------------------


def test_yichun_stakes_are_checked_when_they_are_fixed() -> None:
    """yichun.md §7.7: stakes are fixed before the break roll; they need at least 2 seated
    players who allow them and a spectator backs only a player who allows it. A hand given
    stakes that break this is refused when it is built, not when it ends (the scorer refuses
    the same stakes then, which would lose the whole hand)."""
    rs = find_ruleset("yichun")
    with pytest.raises(ValueError, match="allow"):
        Hand(rs, seed=1, dealer=0, spectators=[Spectator("x", S)], allow_spectators=(S,))
    with pytest.raises(ValueError, match="allow"):
        Hand(rs, seed=1, dealer=0, spectators=[Spectator("x", W)], allow_spectators=(S, N))
    hand = Hand(rs, seed=1, dealer=0, spectators=[Spectator("x", S)], allow_spectators=(S, N))
    assert hand.phase is Phase.BUY


def test_gejiu_kong_tile_of_a_concealed_kong_first_robber_after_the_konger() -> None:
    """gejiu.md §5.4 [A-G13], common.md §12: the chosen face-up kong tile of any kong, an 暗杠
    included, may be robbed; of several robbers the first in play order after the konger wins
    (S, W, N after E: W before N); the kong meld stands; the emptied slot was refilled from
    T[132] at once (gejiu.md §2)."""
    hand = rigged_hand("gejiu", {
        E: "2222m 345s 678s 1p 9p Z F",
        S: "19m 19s 28p 37p SS WW B",
        W: "46p 345m 678m 111s EE",
        N: "5p 123p 456s 777m FFF",
    }, kong_tiles="5p 9m")
    play(hand, "E: angang 2m slot0")
    assert hand.kong_slots[0] == hand.wall.seq[132]
    assert hand.phase is Phase.ROB and set(hand.to_act()) == {W, N}
    play(hand, "N: win; W: win")
    assert [(w.seat, w.how, w.from_seat, w.tile) for w in hand.wins] == [
        (W, WinMethod.ROB_KONG, E, parse_tile("5p"))
    ]
    assert hand.seats[E].melds[0].type is MeldType.AGANG
