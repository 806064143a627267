"""Random playouts of every ruleset under hypothesis: after every action all 136 tiles are
accounted for exactly once, settlements and running scores are zero-sum, and no view leaks
(re-dealing every tile the viewer cannot see leaves its view unchanged)."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import Action, ActionType
from engine.game import Game
from engine.table import Hand, Phase
from engine.view import View, build_view

RULES = ["yichun", "shangrao", "gejiu"]


class RandomPlayer:
    """Uniform over legal actions, but discards most of the time so hands progress."""

    def __init__(self, rnd: random.Random) -> None:
        self.rnd = rnd

    def choose(self, view: View) -> Action:
        legal = list(view.legal)
        if self.rnd.random() < 0.5:
            discards = [a for a in legal if a.type is ActionType.DISCARD]
            if discards:
                return self.rnd.choice(discards)
        return self.rnd.choice(legal)


def resampled(hand: Hand, viewer: int | None, rnd: random.Random) -> Hand:
    """A copy of ``hand`` in which every tile ``viewer`` cannot see is dealt anew."""
    h = copy.deepcopy(hand)
    wall = h.wall
    public = {h.indicator_pos} if h.indicator_pos is not None else set()
    positions = [i for i in range(136) if i not in wall.taken and i not in public]
    others = [s for s in range(4) if s != viewer]
    pool = [wall.seq[i] for i in positions]
    for s in others:
        pool += h.seats[s].concealed
    drawn_index = None
    if h.drawn is not None and h.current in others:
        drawn_index = h.seats[h.current].concealed.index(h.drawn)
    rnd.shuffle(pool)
    for i in positions:
        wall.seq[i] = pool.pop()
    for s in others:
        n = len(h.seats[s].concealed)
        h.seats[s].set_concealed([pool.pop() for _ in range(n)])
    if drawn_index is not None:
        h.drawn = h.seats[h.current].concealed[drawn_index]
    h.tiles_changed()
    return h


def play_random(rules: str, seed: int, rnd: random.Random, options: dict[str, object],
                leak_every: int) -> None:
    game = Game(rules, seed, {**options, "hands_per_game": 2})
    players = [RandomPlayer(rnd) for _ in range(4)]
    while not game.is_over:
        hand = game.new_hand()
        steps = 0
        while not hand.is_over:
            seat = hand.to_act()[0]
            hand.apply(seat, players[seat].choose(build_view(hand, seat)))
            hand.check_invariants()
            steps += 1
            if steps % leak_every == 0 and hand.phase not in (Phase.BUY, Phase.ENDED):
                for viewer in (0, 1, 2, 3, None):
                    other = resampled(hand, viewer, rnd)
                    assert build_view(other, viewer) == build_view(hand, viewer), (
                        f"view of {viewer} depends on hidden tiles at step {steps}"
                    )
        game.finish_hand()
        assert sum(game.scores) + sum(game.spectator_scores.values()) == 0


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rules=st.sampled_from(RULES),
    seed=st.integers(0, 2**32),
    choice_seed=st.integers(0, 2**32),
    discard_wins=st.booleans(),
    lighters=st.integers(0, 2),
)
def test_random_playouts_keep_every_invariant(
    rules: str, seed: int, choice_seed: int, discard_wins: bool, lighters: int
) -> None:
    rnd = random.Random(choice_seed)
    options: dict[str, object] = {}
    if rules == "shangrao":
        options["discard_wins"] = discard_wins
    if rules == "yichun":
        options["max_lighters"] = lighters
    play_random(rules, seed, rnd, options, leak_every=9)


def test_view_leak_every_action_basic_players() -> None:
    """Leak check after every single action of whole hands of each ruleset."""
    from engine.bots import BasicPlayer

    rnd = random.Random(11)
    for rules in RULES:
        hand = Game(rules, 3).new_hand()
        bot = BasicPlayer()
        while not hand.is_over:
            seat = hand.to_act()[0]
            hand.apply(seat, bot.choose(build_view(hand, seat)))
            if hand.phase in (Phase.BUY, Phase.ENDED):
                continue
            for viewer in (0, 1, 2, 3, None):
                assert build_view(resampled(hand, viewer, rnd), viewer) == build_view(
                    hand, viewer
                )


def test_views_hide_concealed_kongs_in_yichun_only() -> None:
    from engine.melds import MeldType
    from testkit.scenario import play, rigged_hand

    for rules, hidden in (("yichun", True), ("gejiu", False), ("shangrao", False)):
        hand = rigged_hand(rules, {0: "1111m 23m 456p 789s E 5s"},
                           wild="B" if rules == "shangrao" else None)
        play(hand, "E: angang 1m" + (" slot0" if rules == "gejiu" else ""))
        if hand.phase is Phase.ROB:
            for seat in hand.to_act():
                hand.apply(seat, Action.pass_())
        other = build_view(hand, 1).seats[0].melds[0]
        own = build_view(hand, 0).seats[0].melds[0]
        assert other.type is MeldType.AGANG and own.tiles == (0, 0, 0, 0)
        assert (other.tiles is None) is hidden


def test_leak_check_catches_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-place re-deal check used by `simulate` sees a view that reads a hidden hand."""
    import dataclasses

    import engine.leaks
    from engine.leaks import view_leaks

    hand = Game("gejiu", 5).new_hand()
    rnd = random.Random(1)
    assert not view_leaks(hand, 0, rnd)
    real = engine.leaks.build_view

    def leaky(h: Hand, viewer: int | None) -> View:
        view = real(h, viewer)
        return dataclasses.replace(
            view, options=(*view.options, ("peek", tuple(sorted(h.seats[1].kinds())))))

    monkeypatch.setattr(engine.leaks, "build_view", leaky)
    assert view_leaks(hand, 0, rnd)
    assert not view_leaks(hand, 1, rnd)  # seat 1 may see its own tiles
    before = [list(st.concealed) for st in hand.seats], list(hand.wall.seq)
    view_leaks(hand, None, rnd)
    assert before == ([list(st.concealed) for st in hand.seats], list(hand.wall.seq))
