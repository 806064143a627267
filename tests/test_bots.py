"""Computer players (issue 6): legal and deterministic at every level, fed only the seat's
view, and a few positions where the right move is known."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.actions import Action, ActionType
from engine.bots import LEVELS, HardPlayer, NormalPlayer, make_player
from engine.bots.hard import ROB_MAX
from engine.bots.normal import Seat
from engine.bots.shape import NO_MELDS, HandEval, MeldFacts
from engine.melds import MeldType
from engine.simulate import simulate
from engine.table import Hand
from engine.tiles import Kind, parse_tile, parse_tiles, to_counts
from engine.view import MeldView, View, build_view
from testkit.distance import distance
from testkit.scenario import advance, rigged_hand
from tests.support.positions import gejiu_ting

RULES = ("yichun", "shangrao", "gejiu")
E, S, W, N = 0, 1, 2, 3


class Spy:
    """Wraps a player: checks that it is handed exactly its own seat's view, and logs."""

    def __init__(self, level: str, seat: int, log: list[tuple[int, str]]) -> None:
        self.player = make_player(level)
        self.seat = seat
        self.log = log

    def choose(self, view: View) -> Action:
        assert type(view) is View and view.viewer == self.seat and view.my_move
        action = self.player.choose(view)
        assert action in view.legal
        self.log.append((self.seat, str(action)))
        return action


@pytest.mark.parametrize("rules", RULES)
def test_every_level_plays_legally_with_checks(rules: str) -> None:
    log: list[tuple[int, str]] = []
    levels = ("hard", "normal", "easy", "normal")
    players = [Spy(level, s, log) for s, level in enumerate(levels)]
    report = simulate(rules, 3, 11, players=players, check=True)  # every invariant checked
    assert report.hands == 3 and {s for s, _ in log} == {0, 1, 2, 3}


@pytest.mark.parametrize("rules", RULES)
def test_decisions_are_deterministic(rules: str) -> None:
    runs = []
    for _ in range(2):
        log: list[tuple[int, str]] = []
        players = [Spy(level, s, log) for s, level in enumerate(("hard", "normal", "hard",
                                                                  "normal"))]
        simulate(rules, 2, 5, players=players, check=False)
        runs.append(log)
    assert runs[0] == runs[1] and len(runs[0]) > 50


def test_make_player_levels() -> None:
    assert [make_player(level).__class__.__name__ for level in LEVELS] == [
        "BasicPlayer", "NormalPlayer", "HardPlayer", "ExpertPlayer"]
    with pytest.raises(ValueError, match="unknown computer level 'master'"):
        make_player("master")


def test_simulate_seats_reports_each_level() -> None:
    report = simulate("gejiu", 4, 3, levels=("hard", "normal", "easy", "easy"), check=False)
    names = [st.name for st in report.label_stats()]
    assert names == ["hard x1", "normal x1", "easy x2"]
    assert sum(st.mean for st in report.seat_stats()) == pytest.approx(0.0)
    with pytest.raises(ValueError, match="unknown computer level"):
        simulate("gejiu", 1, 3, levels=("hard", "normal", "easy", "pro"), check=False)


def test_hidden_tiles_do_not_change_decisions() -> None:
    """Same own hand and public facts, different hidden hands: same view, same decisions."""
    own = "123m 456m 789p 1s 5s E F 9s"
    others = [
        {S: "234p 567p 345s 678s W", W: "111m 999m 22p 33p 44s 6s", N: "555m 666p 777s 88s 9p 1p"},
        {S: "555m 666p 777s 88s 9p 1p", W: "234p 567p 345s 678s W", N: "111m 999m 22p 33p 44s 6s"},
        {S: "111m 999m 22p 33p 44s 6s", W: "555m 666p 777s 88s 9p 1p", N: "234p 567p 345s 678s W"},
    ]
    views = []
    for hidden in others:
        hand = rigged_hand("gejiu", {E: own, **hidden}, seed=4, kong_tiles="7m 8m")
        views.append(build_view(hand, E))
    assert views[0] == views[1] == views[2]
    for level in LEVELS:
        player = make_player(level)
        assert len({str(player.choose(v)) for v in views}) == 1


# --- positions --------------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_a_ready_hand_claims_the_win(level: str) -> None:
    hand = rigged_hand("yichun", {E: "111m 234m 55p 99s 9p EE S", S: "123m 456m 789m 123p 9p"},
                       draws="")
    hand.apply(E, Action.parse("discard 9p"))
    while S not in hand.to_act():
        hand.apply(hand.to_act()[0], Action.pass_())
    view = build_view(hand, S)
    assert Action.win() in view.legal
    assert make_player(level).choose(view) == Action.win()


@pytest.mark.parametrize("level", LEVELS)
def test_a_complete_dealt_hand_wins(level: str) -> None:
    hand = rigged_hand("gejiu", {E: "123m 456m 789m 123p 99s"})
    assert make_player(level).choose(build_view(hand, E)) == Action.win()


@pytest.mark.parametrize("level", LEVELS)
def test_shangrao_keeps_the_wild(level: str) -> None:
    # wild 5m: throwing 9p or 1s keeps one tile from winning; throwing the wild does not
    hand = rigged_hand("shangrao", {E: "5m 123p 456p 789s EE 9p 1s"}, wild="5m")
    view = build_view(hand, E)
    assert Action.discard(parse_tile("5m")) in view.legal and Action.win() not in view.legal
    assert make_player(level).choose(view).tile in (parse_tile("9p"), parse_tile("1s"))


def test_baodiao_shape_is_one_tile_from_winning_on_every_tile() -> None:
    """宝吊头: the wild alone beside four sets; every unseen tile completes it."""
    tiles = parse_tiles("123p 456p 789s EEE")
    counts = to_counts(tiles)
    unseen = [4 - c for c in counts]
    unseen[parse_tile("5m")] = 3
    ev = HandEval("shangrao", counts, 1, NO_MELDS)
    assert min(ev.shapes().values()) == 1
    counts2 = list(counts)
    counts2[parse_tile("9s")] += 1  # the hand before throwing 9s
    table = HandEval("shangrao", counts2, 1, NO_MELDS).discards(
        unseen, [parse_tile("9s"), parse_tile("E")], parse_tile("5m"))
    assert table[parse_tile("9s")][:2] == (1, sum(unseen))


def test_normal_never_throws_a_wild_without_reason() -> None:
    # wild 5m; the hand is far from ready and the wild is its only joker
    hand = rigged_hand("shangrao", {E: "5m 19m 19p 19s ESWNZ 2p B"}, wild="5m")
    view = build_view(hand, E)
    for level in ("normal", "hard"):
        assert make_player(level).choose(view).tile != parse_tile("5m")


def test_hard_facing_gejiu_ting_avoids_the_riskiest_tile() -> None:
    # S declares 报听 (waiting on W). E later holds two equally useless honours: E, thrown once
    # before S's declaration (live), and F, thrown by W after it (S let it go: safe).
    view = build_view(gejiu_ting(), E)
    seat = Seat.of(view)
    danger = HardPlayer().dangers(seat)
    assert danger[parse_tile("E")] > 0 == danger[parse_tile("F")]
    assert NormalPlayer().choose(view) == Action.discard(parse_tile("E"))  # no defence
    assert HardPlayer().choose(view) == Action.discard(parse_tile("F"))



@pytest.mark.parametrize(
    ("rules", "tiles", "expected"),
    [
        ("gejiu", "123m 456m 789m 123p 9p", 1),  # ready: one tile
        ("gejiu", "123m 456m 789m 12p 99s", 1),
        ("gejiu", "123m 456m 789m 13p 9s E", 2),
        ("gejiu", "1122m 3344p 5566s 7s", 1),  # seven pairs
        ("yichun", "147m 258p 369s ESWN", 1),  # 十三烂 with one honour to come
        ("yichun", "123m 456m 789m ES 99p", 1),  # a wind set waiting
        ("gejiu", "123m 456m 789m 123p 99s", 0),
    ],
)
def test_distance(rules: str, tiles: str, expected: int) -> None:
    counts = to_counts(parse_tiles(tiles))
    assert distance(rules, counts, 0, NO_MELDS, sum(counts)) == expected


def test_claims_only_when_they_shorten_the_hand() -> None:
    # S is ready (69p) with 55p: a peng of 5p would leave it just as far
    hand = rigged_hand("yichun", {E: "111m 234m 55p 99s 6s EE S", S: "123m 456m 789s 55p 78p"})
    hand.apply(E, Action.parse("discard 5p"))
    while S not in hand.to_act():
        hand.apply(hand.to_act()[0], Action.pass_())
    view = build_view(hand, S)
    assert any(a.type is ActionType.PENG for a in view.legal)
    assert NormalPlayer().choose(view) == Action.pass_()


# --- hard: value, 斗地主, deal-in costs ----------------------------------------------------------


def test_hard_follows_the_dealer_in_doudizhu() -> None:
    # Gejiu: E (dealer) throws 1s, S and W follow; N holds 1s inside 123s. Not following makes
    # N the 地主 (pays 1 to each); following makes it 大地主 (the dealer pays N 2): worth a set.
    hands = {E: "123m 456m 789p 1s 9s NN F", S: "234m 678p 345s 1s N EE",
             W: "111m 999m 22p 33p 45s 1s", N: "234m 678p 123s 9m E W F"}
    hand = rigged_hand("gejiu", hands, draws="5p 6p 7p", kong_tiles="7m 8m")
    advance(hand, [(E, "discard 1s"), (S, "discard 1s"), (W, "discard 1s")])
    while hand.current != N or hand.drawn is None:
        hand.apply(hand.to_act()[0], Action.pass_())
    view = build_view(hand, N)
    assert HardPlayer().ddz_bonus(Seat.of(view)) == {parse_tile("1s"): 5.0}
    assert NormalPlayer().choose(view) != Action.discard(parse_tile("1s"))
    assert HardPlayer().choose(view) == Action.discard(parse_tile("1s"))


def test_hard_keeps_a_clean_shangrao_hand() -> None:
    # wild 5m: throwing 6m or 8p both leave the hand one tile from a (wild) win, but only
    # keeping 5m 6m (the wild as itself) can still win clean (平糊自摸 pays 2, not 1)
    hand = rigged_hand("shangrao", {E: "5m 6m 8p 123p 456p 789s 11s"}, wild="5m")
    view = build_view(hand, E)
    assert NormalPlayer().choose(view) == Action.discard(parse_tile("6m"))
    assert HardPlayer().choose(view) == Action.discard(parse_tile("8p"))


def test_hard_weighs_a_deal_in_by_what_the_discarder_pays() -> None:
    from engine.bots.hard import HardPlayer as H
    from engine.melds import MeldType
    from engine.view import MeldView, SeatPublic

    def opponent(melds: tuple[MeldView, ...], bought: bool = False) -> SeatPublic:
        return SeatPublic(seat=S, concealed_count=13 - 3 * len(melds), has_drawn=False,
                          melds=melds, pond=(), bought=bought, lighter=False, ting=False,
                          flown=0, score=0)

    def peng(tile: str) -> MeldView:
        k = parse_tile(tile)
        return MeldView(MeldType.PENG, (k, k, k), k, E)

    chi = MeldView(MeldType.CHI, tuple(parse_tiles("123p")), parse_tile("1p"), E)
    plain = opponent((chi, peng("9s")))
    flush_pungs = opponent((peng("2m"), peng("7m")))
    # Yichun: the discarder pays twice the hand; 清一色 × 大七对 makes it far dearer, buyers more
    assert H.deal_in_cost("yichun", flush_pungs, False) > 5 * H.deal_in_cost("yichun", plain,
                                                                                False)
    assert H.deal_in_cost("yichun", opponent((chi,), True), True) == pytest.approx(
        4 * H.deal_in_cost("yichun", opponent((chi,)), False))
    # Gejiu: everybody pays every win, the discarder one fan more: a smaller extra
    assert H.deal_in_cost("gejiu", plain, False) < H.deal_in_cost("yichun", plain, False)


def test_hard_takes_a_shangrao_concealed_kong_for_its_bonus() -> None:
    # 自摸杠 earns 2 from each other seat whoever wins; it costs this far hand one step
    hand = rigged_hand("shangrao", {E: "569m 22223p 779s ZZB"}, wild="1s")
    view = build_view(hand, E)
    assert NormalPlayer().choose(view) == Action.discard(parse_tile("B"))
    assert HardPlayer().choose(view).type is ActionType.ANGANG


def test_hard_declines_a_plain_shangrao_win_for_baodiao() -> None:
    # wild 5m: E draws E for 5m 123p 456p 789s EEE 9m, a 平糊 (the wild pairs 9m) worth 1;
    # throwing 9m leaves the wild beside four sets — 宝吊头, worth 3, wins on every next draw
    hand = rigged_hand("shangrao", {E: "5m 123p 456p 789s EE 9m",
                                    N: "19m 19p 19s SWNZFB 28m"}, draws="E", wild="5m", dealer=N)
    hand.apply(N, Action.discard(parse_tile("2m")))
    while hand.to_act()[0] != E or build_view(hand, E).drawn is None:
        seat = hand.to_act()[0]
        hand.apply(seat, Action.pass_())
    view = build_view(hand, E)
    assert view.drawn == parse_tile("E") and Action.win() in view.legal
    assert NormalPlayer().choose(view) == Action.win()
    assert HardPlayer().choose(view) == Action.discard(parse_tile("9m"))
    hand.apply(E, Action.discard(parse_tile("9m")))
    assert hand.seats[E].baodiao


def test_hard_pengs_into_shangrao_baodiao() -> None:
    # wild 5m: E is ready (5m 123p 456p 789s 99m 1s waits on 9m or 1s); pengs 9m leaves
    # 5m 123p 456p 789s 1s, and throwing 1s the wild beside three sets: 宝吊头
    hand = rigged_hand("shangrao", {E: "5m 123p 456p 789s 99m 1s",
                                    N: "19m 19p 19s SWNZFB 28m"}, wild="5m", dealer=N)
    hand.apply(N, Action.discard(parse_tile("9m")))
    while hand.to_act()[0] != E:
        hand.apply(hand.to_act()[0], Action.pass_())
    view = build_view(hand, E)
    peng = Action(ActionType.PENG, parse_tile("9m"))
    assert peng in view.legal
    assert NormalPlayer().choose(view) == Action.pass_()
    assert HardPlayer().choose(view) == peng
    hand.apply(E, peng)
    assert HardPlayer().choose(build_view(hand, E)) == Action.discard(parse_tile("1s"))


def test_hard_throws_the_lighter_only_when_dealing() -> None:
    from engine.rulesets import find_ruleset
    from engine.table import Phase

    hand = Hand(find_ruleset("yichun", {}), seed=3, dealer=S)
    seen = 0
    while hand.phase is Phase.BUY:
        seat = hand.to_act()[0]
        view = build_view(hand, seat)
        action = HardPlayer().choose(view)
        assert action.lighter == (seat == S)
        assert not NormalPlayer().choose(view).lighter
        seen += seat == S
        hand.apply(seat, action)
    assert seen == 1 and hand.lighters == 1


def _yichun_offer(hands: dict[int, str], dealer: int, first: str | None,
                  buyers: tuple[int, ...] = ()) -> View:
    """E is offered S's discard of 2s: the dealer throws ``first`` (if E deals), claims are
    passed, then S throws 2s."""
    hand = rigged_hand("yichun", hands, dealer=dealer, buyers=buyers)
    if first is not None:
        hand.apply(dealer, Action.discard(parse_tile(first)))
        while hand.to_act()[0] != S or build_view(hand, S).drawn is None:
            hand.apply(hand.to_act()[0], Action.pass_())
    hand.apply(S, Action.discard(parse_tile("2s")))
    view = build_view(hand, E)
    assert Action.win() in view.legal and view.my_move
    return view


def test_hard_passes_a_yichun_discard_win_for_a_concealed_self_draw() -> None:
    # E deals, concealed and ready on 2s 4s 5s 7s 8s (16 unseen) at the start: a self-draw, paid
    # by all three at x2 for 门清, is likely enough to beat S paying the discard alone
    view = _yichun_offer({E: "123m 456m 3334567s N", S: "2s 19m 19p 9s EWNZFB 8m"}, E, "N")
    assert NormalPlayer().choose(view) == Action.win()
    assert HardPlayer().choose(view) == Action.pass_()
    # near the wall's end, or with a peng (no 门清), the discard is taken
    assert HardPlayer().choose(dataclasses.replace(view, remaining=12)) == Action.win()
    peng = (*view.seats[E].melds, MeldView(MeldType.PENG, tuple(parse_tiles("111p")), None, N))
    opened = dataclasses.replace(view, seats=tuple(
        dataclasses.replace(p, melds=peng) if p.seat == E else p for p in view.seats))
    assert HardPlayer().choose(opened) == Action.win()


def test_hard_takes_a_yichun_earthly_win() -> None:
    # S deals and throws 2s first: E's win is 地糊 (12), never passed, though W and N bought
    # (a self-draw would be paid 2+2+2 against the dealer's 2)
    view = _yichun_offer({E: "123m 456m 3334567s", S: "2s 19m 19p 9s EWNZFB 8m 7m"}, S, None,
                         buyers=(W, N))
    assert HardPlayer.menqing_pass(dataclasses.replace(view, dealer=W))  # not the first: passed
    assert HardPlayer().choose(view) == Action.win()


def _two_step(rules: str, counts: list[int], unseen: list[int]) -> int:
    """Σ over the tiles that shorten the 13-tile ``counts``: unseen copies × the most tiles
    shortening the hand after it and the best following discard (by brute force)."""
    def dist(c: list[int]) -> int:
        return distance(rules, c, 0, NO_MELDS, sum(c))

    def uke(c: list[int], left: list[int]) -> int:
        d = dist(c)
        n = 0
        for t in range(34):
            if left[t] > 0:
                c[t] += 1
                n += left[t] if dist(c) < d else 0
                c[t] -= 1
        return n

    d0, total = dist(counts), 0
    for t in range(34):
        if unseen[t] <= 0:
            continue
        c = list(counts)
        c[t] += 1
        if dist(c) >= d0:
            continue
        left = list(unseen)
        left[t] -= 1
        best = -1
        for x in range(34):
            if c[x]:
                c[x] -= 1
                if dist(c) == d0 - 1:
                    best = max(best, uke(c, left))
                c[x] += 1
        total += unseen[t] * best
    return total


def test_hard_ranks_gejiu_discards_by_the_hands_they_lead_to() -> None:
    # Throwing 6s leaves 23 tiles that shorten the hand (2 tiles from a win), 3p only 17; but
    # the hands those tiles lead to shorten better after 3p (two-step acceptance)
    hand = rigged_hand("gejiu", {E: "45789m 35p 123s 6678s"})
    view = build_view(hand, E)
    seat = Seat.of(view)
    table = seat.evaluator().discards(seat.unseen, seat.discard_kinds(view.legal), None, 1)
    six_s, three_p = parse_tile("6s"), parse_tile("3p")
    assert table[six_s][:2] == (2, 23) and table[three_p][:2] == (2, 17)

    def after(k: int) -> int:
        c = list(seat.counts)
        c[k] -= 1
        return _two_step("gejiu", c, list(seat.unseen))

    assert after(three_p) > after(six_s)
    assert NormalPlayer().choose(view) == Action.discard(six_s)
    assert HardPlayer().choose(view) == Action.discard(three_p)


def test_hard_takes_the_gejiu_kong_tile_that_wins() -> None:
    # E holds four 1m: after the 暗杠, the face-up kong tile 6m completes the hand (杠上花, 3
    # fan, self-drawn) and 7m does not. ``normal`` takes the first kong tile it is offered.
    hand = rigged_hand("gejiu", {E: "1111m 45m 234p 567s 99s"}, kong_tiles="7m 6m")
    view = build_view(hand, E)
    slot1 = Action(ActionType.ANGANG, parse_tile("1m"), slot=1)
    assert slot1 in view.legal
    normal = NormalPlayer().choose(view)
    assert normal.type is ActionType.ANGANG and normal.slot == 0
    assert HardPlayer().choose(view) == slot1
    hand.apply(E, slot1)
    assert Action.win() in build_view(hand, E).legal


def test_hard_kongs_a_gejiu_discard_for_the_winning_kong_tile() -> None:
    # S holds 888s; W's 8s may be taken by a 明杠 whose face-up kong tile 3p (the second)
    # completes the hand: 杠上花. ``normal`` passes (the kong does not shorten the hand)
    hands = {E: "123m 456m 789p 11s E W 9s", S: "888s 234m 567m 12p 55p",
             W: "111m 999p 22p 33p 44s 8s", N: "333s 666p 777s 22s 9s 1p"}
    hand = rigged_hand("gejiu", hands, draws="9m F", kong_tiles="7p 3p")
    advance(hand, [(E, "discard 9s"), (S, "discard 9m"), (W, "discard 8s")])
    while S not in hand.to_act():
        hand.apply(hand.to_act()[0], Action.pass_())
    view = build_view(hand, S)
    kong = Action(ActionType.MINGGANG, parse_tile("8s"), slot=1)
    assert kong in view.legal
    assert NormalPlayer().choose(view) != kong
    assert HardPlayer().choose(view) == kong
    hand.apply(S, kong)
    while S not in hand.to_act():
        hand.apply(hand.to_act()[0], Action.pass_())
    assert Action.win() in build_view(hand, S).legal


def test_hard_weighs_the_robbing_of_a_gejiu_kong_tile() -> None:
    # S has declared 报听: a kong tile it may wait on costs E 2^4 = 16 if robbed (抢杠花); one S
    # let go since the declaration (F) cannot be its wait
    seat = Seat.of(build_view(gejiu_ting(), E))
    player = HardPlayer()
    assert player.rob_risk(seat, parse_tile("F")) == 0
    risk = {t: player.rob_risk(seat, parse_tile(t)) for t in ("5s", "E")}
    assert risk["5s"] > ROB_MAX > risk["E"]


def _useful_queries(seed: str) -> list[tuple[str, MeldFacts, list[int], int, Kind | None,
                                             list[int]]]:
    """Hands asked under every ruleset and every meld make-up of their size (九幺 and 字一色
    open or closed), without wilds and (Shangrao) with, each with two sets of unseen counts:
    the same hand comes back under different questions."""
    import random

    rng = random.Random(seed)
    by_count = {0: [NO_MELDS],
                1: [MeldFacts(1, True, True, True, frozenset({3}), False),
                    MeldFacts(1, False, False, True, frozenset({0}), True),
                    MeldFacts(1, True, False, True, frozenset({3}), True)]}
    out = []
    for i in range(150):
        count = i % 2
        pool = list(range(34)) if rng.random() < 0.5 else \
            [k for k in range(34) if k >= 27 or k % 9 in (0, 8)]
        c = [0] * 34
        while sum(c) < 13 - 3 * count:
            k = rng.choice(pool)
            if c[k] < 4:
                c[k] += 1
        for rules in RULES:
            for mf in by_count[count]:
                variants: list[tuple[int, Kind | None]] = [(0, None)]
                if rules == "shangrao":  # one or two of the tiles are wilds of a kind not held
                    variants += [(w, rng.choice([k for k in range(34) if not c[k]]))
                                 for w in (1, 2)]
                for wilds, wild in variants:
                    hand = list(c)
                    for _ in range(wilds):
                        hand[rng.choice([k for k in range(34) if hand[k]])] -= 1
                    for _ in range(2):
                        unseen = [rng.choice((0, 1, 2, 3, 4)) for _ in range(34)]
                        out.append((rules, mf, hand, wilds, wild, unseen))
    return out


def test_improving_kinds_are_those_that_shorten_a_shape_at_the_distance() -> None:
    """HandEval.useful against its definition, on hands without wilds: the unseen kinds one
    more of which takes some shape now at the hand's distance below it."""
    for rules, mf, c, wilds, _wild, unseen in _useful_queries("useful-definition"):
        if wilds:
            continue
        ev = HandEval(rules, c, 0, mf)
        shapes = ev.shapes()
        dist = min(shapes.values())
        want = set()
        for k in range(34):
            if unseen[k] <= 0:
                continue
            more = list(c)
            more[k] += 1
            after = HandEval(rules, more, 0, mf).shapes()
            if any(v == dist and after[s] < dist for s, v in shapes.items()):
                want.add(k)
        assert ev.useful(list(c), 0, dist, shapes, unseen, None) == want, (rules, mf, c)


def test_improving_kinds_do_not_depend_on_what_was_asked_before() -> None:
    """HandEval.useful remembers the kinds per hand (engine.bots.shape._USEFUL), before the
    unseen copies and the wild are looked at: the same hands asked under every ruleset, meld
    make-up, wild and unseen counts get, in any order, the answer a cold cache gives."""
    from engine.bots import shape

    queries = _useful_queries("useful-cache")
    cold = []
    for rules, mf, c, wilds, wild, unseen in queries:
        shape._USEFUL.clear()
        ev = HandEval(rules, c, wilds, mf)
        shapes = ev.shapes()
        cold.append(ev.useful(list(c), wilds, min(shapes.values()), shapes, unseen, wild))
    assert sum(bool(x) for x in cold) > len(cold) // 2
    shape._USEFUL.clear()
    order = list(range(len(queries)))
    rng = random.Random("useful-order")
    for _ in range(2):
        rng.shuffle(order)
        for i in order:
            rules, mf, c, wilds, wild, unseen = queries[i]
            ev = HandEval(rules, c, wilds, mf)
            shapes = ev.shapes()
            got = ev.useful(list(c), wilds, min(shapes.values()), shapes, unseen, wild)
            assert got == cold[i], (queries[i], got, cold[i])
            assert wild not in got and all(unseen[k] > 0 for k in got)
