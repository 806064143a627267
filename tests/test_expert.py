"""The expert computer player (issue 25): sampled positions consistent with the seat's view,
search only over legal actions, deterministic, and a position whose answer is known."""

from __future__ import annotations

import random

import pytest

from bench.bench_paired import tuned_expert
from engine.actions import Action, ActionType
from engine.bots import ExpertPlayer, HardPlayer
from engine.bots.expert import (
    RECHECK,
    RECHECK_Z,
    SAMPLES,
    SEARCH_CLOSE,
    ActionValue,
    view_seed,
)
from engine.bots.normal import Seat
from engine.bots.playout import READ_KEEP, _Context, _Opp, pond_feature
from engine.game import Game
from engine.simulate import simulate
from engine.table import Phase
from engine.tiles import NUM_KINDS, parse_tile, parse_tiles
from engine.view import View, build_view
from testkit.scenario import rigged_hand
from tests.support.positions import gejiu_ting

NO_READ = dict.fromkeys(READ_KEEP, 1.0)  # the ponds unread: every wait kept


def _tuned(**tuning: object) -> ExpertPlayer:
    """An expert with some of its tuning (``close``, ``risk_ready``, ``search_close``) changed."""
    player = ExpertPlayer()
    for name, value in tuning.items():
        setattr(player, name, value)
    return player

E, S, W, N = 0, 1, 2, 3


def _gejiu_ting() -> View:
    """Gejiu, E to discard: S has declared 报听 waiting on W; F went by it since (safe)."""
    return build_view(gejiu_ting(), E)


def test_samples_deal_out_exactly_the_unseen_tiles() -> None:
    view = _gejiu_ting()
    seat = Seat.of(view)
    ctx = _Context(view, seat)
    rng = random.Random(5)
    for _ in range(40):
        sample = ctx.sample(rng)
        dealt = [0] * NUM_KINDS
        for k in sample.wall:
            dealt[k] += 1
        for o in sample.opps:
            assert o.seat != E
            for k in o.concealed:
                dealt[k] += 1
            if o.concealed:
                assert len(o.concealed) == 13 - 3 * len(o.melds)
        assert dealt == seat.unseen  # nothing invented, nothing lost, nothing seen twice
        ting = next(o for o in sample.opps if o.seat == S)
        assert ting.ready_at == 0  # 报听: ready for certain
        # it let F go by after declaring: F is never one of its waits
        assert parse_tile("F") not in ting.waits


def test_the_pond_is_read() -> None:
    """An opponent's own discards are rarely its waits (READ_KEEP): the sampler gives them
    far less often than an unread sampler does."""
    assert pond_feature(parse_tile("2m"), [parse_tile("2m")]) == "own"
    assert pond_feature(parse_tile("5p"), [parse_tile("2p")]) == "suji"
    assert pond_feature(parse_tile("8p"), [parse_tile("5p")]) == "suji"
    assert pond_feature(parse_tile("4p"), [parse_tile("2p")]) == "near_early"
    assert pond_feature(parse_tile("4s"), [parse_tile("2p")]) == "plain"
    assert pond_feature(parse_tile("E"), [parse_tile("S")]) == "plain"
    view = _gejiu_ting()  # S threw 2m when it declared 报听
    seat = Seat.of(view)
    two = parse_tile("2m")
    hits = {}
    for name, keep in (("read", READ_KEEP), ("unread", NO_READ)):
        ctx = _Context(view, seat, keep)
        rng = random.Random(3)
        hits[name] = sum(two in next(o for o in ctx.sample(rng).opps if o.seat == S).waits
                         for _ in range(800))
    assert hits["unread"] >= 16
    assert hits["read"] * 3 <= hits["unread"]


def test_yichun_hands_are_sampled_with_wind_and_dragon_sets() -> None:
    """Yichun's sets include any three winds and 中發白: some sampled ready hands wait on an
    honour only such a set completes (some, far from all), none in Gejiu."""
    from engine.game import Game
    counts = {}
    for rules in ("yichun", "gejiu"):
        seed = 11
        hand = Game(rules, seed, {}).new_hand()
        while not (hand.to_act() == [0] and len(hand.seats[0].discards) >= 7):  # mid-hand
            if hand.is_over:
                seed += 1
                hand = Game(rules, seed, {}).new_hand()
                continue
            seat = hand.to_act()[0]
            hand.apply(seat, HardPlayer().choose(build_view(hand, seat)))
        view = build_view(hand, 0)
        ctx = _Context(view, Seat.of(view))
        rng = random.Random(5)
        ready = through_set = 0
        for _ in range(300):
            for o in ctx.sample(rng).opps:
                if o.ready_at == 0 and o.waits:
                    ready += 1
                    honours = [k for k in o.concealed if k >= 27]
                    through_set += any(k >= 27 and k not in honours for k in o.waits)
        counts[rules] = (ready, through_set)
    ready, through = counts["yichun"]
    assert ready >= 100
    assert 0.02 * ready <= through <= 0.3 * ready
    assert counts["gejiu"][0] >= 100 and counts["gejiu"][1] == 0


def test_a_declared_wait_is_avoided() -> None:
    # 9s and F are both useless to E; 9s may be the 报听 seat's wait, F cannot be
    view = _gejiu_ting()
    nine, f = (Action.discard(parse_tile(t)) for t in ("9s", "F"))
    values = {v.action: v for v in ExpertPlayer(samples=64).evaluate(view, [nine, f])}
    assert values[f].mean > values[nine].mean
    assert ExpertPlayer().choose(view) == f


def test_the_same_view_gives_the_same_choice_and_values() -> None:
    view = _gejiu_ting()
    cands = [Action.discard(parse_tile(t)) for t in ("E", "F", "9s")]
    a = ExpertPlayer(samples=12).evaluate(view, cands)
    b = ExpertPlayer(samples=12).evaluate(view, cands)
    assert a == b
    assert view_seed(view) == view_seed(_gejiu_ting())


def test_a_win_is_valued_by_the_rulesets_scorer() -> None:
    # Gejiu, the dealer's dealt hand wins: 天胡 is worth more than throwing a tile
    hand = rigged_hand("gejiu", {E: "123m 456m 789m 123p 99s"})
    view = build_view(hand, E)
    assert Action.win() in view.legal
    win, throw = ExpertPlayer(samples=8).evaluate(view, [Action.win(),
                                                          Action.discard(parse_tile("1m"))])
    assert win.half == 0.0 and win.mean > throw.mean > -100


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_expert_plays_whole_hands_legally_with_every_check(rules: str) -> None:
    report = simulate(rules, 2, 23, levels=("expert", "hard", "normal", "hard"), check=True)
    assert report.hands == 2


def test_assess_gives_the_taken_action_a_value() -> None:
    view = _gejiu_ting()
    taken = Action.discard(parse_tile("E"))
    choice, values = ExpertPlayer(samples=8).assess(view, taken)
    assert taken in [v.action for v in values]
    assert choice == Action.discard(parse_tile("F"))
    assert HardPlayer().choose(view).type is ActionType.DISCARD


def test_a_change_of_hards_choice_is_kept_only_if_fresh_samples_confirm_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    view = _gejiu_ting()
    hard = HardPlayer().choose(view)
    other = next(a for a in view.legal if a.type is ActionType.DISCARD and a != hard)
    expert = ExpertPlayer()
    # the recheck's samples are not the search's own
    search = ExpertPlayer(samples=16).evaluate(view, [hard, other], adaptive=False)
    assert search[1] != expert.recheck(view, hard, other, samples=16)
    assert search == ExpertPlayer(samples=16).evaluate(view, [hard, other], adaptive=False)
    figures: dict[str, tuple[float, float]] = {}

    def recheck(view: View, hard: Action, choice: Action, samples: int = 64) -> ActionValue:
        gain, half = figures["now"]
        return ActionValue(choice, 0.0, 0.0, samples, gain, half)

    monkeypatch.setattr(expert, "recheck", recheck)
    figures["now"] = (-5.0, 0.0)
    monkeypatch.setitem(RECHECK_Z, "gejiu", None)  # no recheck in this ruleset
    assert expert.confirmed(view, hard, other) == other
    z = 0.5
    monkeypatch.setitem(RECHECK_Z, "gejiu", z)
    for gain, half, kept in ((-0.5, 0.1, False), (0.0, 0.0, False), (0.2, 0.0, True),
                             (1.0, 1.0 / z + 0.5, False), (1.0, 1.0 / z - 0.1, True)):
        figures["now"] = (gain, half)
        assert expert.confirmed(view, hard, other) == (other if kept else hard)
    assert expert.confirmed(view, hard, hard) == hard  # hard's own needs no recheck
    assert ExpertPlayer(recheck=0).confirmed(view, hard, other) == other  # rechecks off


def test_the_search_thresholds_decide_which_discards_are_searched() -> None:
    """The dealer's first discard in Yichun (after the buying): no opponent can be ready yet
    (a chance of about 1%), so only the two thresholds decide whether it is searched."""
    hand = Game("yichun", 11, {"hands_per_game": 1}).new_hand()
    while hand.phase is not Phase.TURN:  # the buying first
        seat = hand.to_act()[0]
        hand.apply(seat, HardPlayer().choose(build_view(hand, seat)))
    view = build_view(hand, hand.to_act()[0])
    hard = HardPlayer().choose(view)
    assert hard.type is ActionType.DISCARD
    assert not ExpertPlayer.risky(view) and ExpertPlayer.risky(view, 0.0)
    assert _tuned(close=0.0).candidates(view, hard) == [hard]
    for wide in (_tuned(close=100.0), _tuned(close=0.0, risk_ready=0.0)):
        cands = wide.candidates(view, hard)
        assert cands[0] == hard and len(cands) > 1
        assert all(a in view.legal and a.type is ActionType.DISCARD for a in cands)


@pytest.mark.parametrize("rules", ["shangrao", "gejiu"])
def test_close_discards_are_searched_only_in_the_rulesets_named(rules: str) -> None:
    """A first discard of the hand no opponent can be ready for: with any gap close, it is
    searched where the ruleset is in ``search_close``, and not where it is not."""
    hand = Game(rules, 11, {"hands_per_game": 1}).new_hand()
    while hand.phase is not Phase.TURN:
        seat = hand.to_act()[0]
        hand.apply(seat, HardPlayer().choose(build_view(hand, seat)))
    view = build_view(hand, hand.to_act()[0])
    hard = HardPlayer().choose(view)
    assert hard.type is ActionType.DISCARD and not ExpertPlayer.risky(view)
    assert len(_tuned(close=100.0, search_close=frozenset({rules})).candidates(view, hard)) > 1
    assert _tuned(close=100.0, search_close=frozenset()).candidates(view, hard) == [hard]
    searched = rules in SEARCH_CLOSE
    assert (len(_tuned(close=100.0).candidates(view, hard)) > 1) == searched


def _shangrao_head() -> View:
    """Shangrao, E (dealer) to discard from 123m 456m 789s EEE + the wild 5p + N: throwing N
    leaves the 宝吊头 shape (the wild beside complete sets), where every draw wins."""
    hand = rigged_hand("shangrao", {E: "123m 456m 789s EEE 5p N"}, wild="5p", seed=3)
    return build_view(hand, E)


def test_a_shangrao_wild_head_win_is_valued_as_one() -> None:
    """A playout's self-drawn win from the 宝吊头 shape is a 宝吊 win (P = 3, shangrao.md §6),
    not the plain wild hand (P = 1): without it the search valued the state at a third."""
    from engine.bots.playout import _playout, _Sample, _tiles
    from engine.situation import BaoDiao, Win, WinMethod

    view = _shangrao_head()
    seat = Seat.of(view)
    wild, n = parse_tile("5p"), parse_tile("N")
    assert view.wild == wild
    counts = [0] * NUM_KINDS
    for k in seat.tiles:
        counts[k] += 1
    counts[n] -= 1  # the hand after throwing N
    far = [0] * NUM_KINDS  # a 3n+1 hand with the wild that is not the shape
    for k in (0, 1, 2, 3, 4, 5, 24, 25, 26, 27, 27, 29, wild):
        far[k] += 1
    values = {}
    for on in (True, False):
        ctx = _Context(view, seat)
        ctx.baodiao = on
        assert ctx.baodiao_of(counts) is (BaoDiao.HEAD if on else BaoDiao.NONE)
        assert ctx.baodiao_of(far) is BaoDiao.NONE
        draw = parse_tile("9m")  # E's first draw: any tile wins
        wall = [parse_tile(t) for t in ("1s", "2s", "3s")] + [draw] * 4
        nobody = [_Opp(s, 10_000, [], frozenset(), ()) for s in (S, W, N)]
        values[on] = _playout(ctx, _Sample(nobody, wall), counts.copy(), S)
        plain = ctx.value(Win(E, _tiles(counts), (), draw, WinMethod.SELF_DRAW))
        head = ctx.value(Win(E, _tiles(counts), (), draw, WinMethod.SELF_DRAW,
                             baodiao=BaoDiao.HEAD))
        assert head == 3 * plain > 0
    assert values[False] == plain
    assert values[True] == head


def test_the_wild_head_lifts_the_discard_that_keeps_it() -> None:
    """Searched, the discard that enters the 宝吊头 state is worth more with 宝吊 wins valued."""
    view = _shangrao_head()
    keep = Action.discard(parse_tile("N"))
    other = Action.discard(parse_tile("1m"))
    gains = {}
    for on in (True, False):
        player = ExpertPlayer(samples=32) if on else tuned_expert(32, RECHECK, bao=False)
        values = player.evaluate(view, [other, keep])
        gains[on] = values[1].gain
    assert gains[True] > gains[False] > 0


def test_flying_a_wild_is_searched_and_doubles_both_ways() -> None:
    """Throwing the wild (飞宝) while the hand stays ready is a candidate where the benchmark
    searches it (`tuned_expert`, `fly`); played, the
    seat's own win pays twice as much and another's costs it twice as much (shangrao.md §8)."""
    from engine.situation import Win, WinMethod

    view = _shangrao_head()  # a win with the wild 5p as N; without it 123m 456m 789s EEE N
    hard = HardPlayer().choose(view)
    fly = Action.discard(parse_tile("5p"))
    assert hard == Action.win()
    assert tuned_expert(SAMPLES, RECHECK, fly=True).candidates(view, hard) == [hard, fly]
    assert ExpertPlayer().candidates(view, hard) == [hard]
    ctx = _Context(view, Seat.of(view))
    mine = Win(E, tuple(parse_tiles("123456m 789s EEEN")),
               (), parse_tile("N"), WinMethod.SELF_DRAW)
    theirs = Win(S, tuple(parse_tiles("123678p 567s 234m W")),
                 (), parse_tile("W"), WinMethod.SELF_DRAW)
    plain = {w.seat: ctx.value(w) for w in (mine, theirs)}
    ctx.flying = 1
    flown = {w.seat: ctx.value(w) for w in (mine, theirs)}
    assert plain[E] > 0 > plain[S]
    assert flown[E] == 2 * plain[E] and flown[S] == 2 * plain[S]
    # not ready without it (and no win now): not searched
    far = rigged_hand("shangrao", {E: "123m 456m 79s EEE 5p N S"}, wild="5p", seed=3)
    view = build_view(far, E)
    hard = HardPlayer().choose(view)
    assert hard.type is ActionType.DISCARD
    assert fly not in tuned_expert(SAMPLES, RECHECK, fly=True).candidates(view, hard)


def test_a_wild_flown_by_anyone_still_settles() -> None:
    """Once a seat has thrown a wild, its settlements still come out (they were NaN: the
    scorer refuses a seat that flew more wilds than it received, and none were counted)."""
    import dataclasses
    import math

    from engine.situation import Win, WinMethod

    view = _shangrao_head()
    seats = list(view.seats)
    seats[S] = dataclasses.replace(seats[S], flown=1)
    view = dataclasses.replace(view, seats=tuple(seats))
    ctx = _Context(view, Seat.of(view))
    theirs = Win(S, tuple(parse_tiles("123678p 567s 234m W")),
                 (), parse_tile("W"), WinMethod.SELF_DRAW)
    base = _Context(_shangrao_head(), Seat.of(view)).value(theirs)
    assert not math.isnan(ctx.value(None))
    assert ctx.value(theirs) == 2 * base < 0  # S flew one: its win is worth twice as much
