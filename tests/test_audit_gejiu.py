"""Audit of the Gejiu (个旧) scorer against ``rules/gejiu.md``, clause by clause.

Every expected figure was worked by hand from the spec (clause cited next to it), never read off
the engine. Formula (§5.1 / §9): each non-winner p pays 2^F(p), F(p) = H + 1 (self-drawn: 自摸,
杠上花, 塘子烂糊) + 1 (p discarded / is the robbed konger) + 1 (winner is dealer) + 1 (p is dealer).
Dealer E unless stated.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from cli import score as score_cmd
from engine.calculator import parse_situation, settlement_to_json
from engine.rulesets import RULESETS, score
from engine.scoring import NotAWinError, SituationError
from engine.tiles import format_tiles, parse_tiles
from tests.support.scoring import win


def settle(obj: dict[str, Any]) -> dict[str, Any]:
    return settlement_to_json(score(parse_situation(obj)))


def gejiu(*wins: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"rules": "gejiu", "wins": list(wins), **extra}


PING = "123m 456p 789s EEE 5m"  # + 5m: 平胡, H = 0

# (id, situation, H, pattern zh, net, next dealer)
CASES: list[tuple[str, dict[str, Any], int, str, dict[str, int], str]] = [
    # §4 A 混一色 1 (no 一条龙: 123 345 678): E 1+1 → 4, W 1+1 → 4, N 1 → 2.
    ("half-flush-discard",
     gejiu(win("S", "123m 345m 678m EEE 9m", "9m", "discard", "W")),
     1, "混一色", {"E": -4, "S": 10, "W": -4, "N": -2}, "S"),
    # §4 A+C 混一色一条龙 2 (seed line), self-draw: E 2+1+1 → 16, S/W 3 → 8.
    ("half-flush-dragon-self",
     gejiu(win("N", "123m 456m 789m EEE 9m", "9m")),
     2, "混一色一条龙", {"E": -16, "S": -8, "W": -8, "N": 32}, "S"),
    # §4 青一色大对子 3 with a peng and a 明杠 (melds count for the suit, §4 A "incl. melds");
    # N discards: E 3+1 → 16, W 3 → 8, N 3+1 → 16.
    ("full-flush-pungs-melds",
     gejiu(win("S", "555p 777p 9p", "9p", "discard", "N", ["peng 111p", "mgang 2222p"])),
     3, "青一色大对子", {"E": -16, "S": 40, "W": -8, "N": -16}, "S"),
    # §4 C [A-G11] chows 123 / 789 chi'd count for 一条龙: 青一色一条龙 3; dealer discards:
    # E 3+1+1 → 32, W/N 3 → 8.
    ("full-flush-dragon-chi",
     gejiu(win("S", "456s 111s 9s", "9s", "discard", "E", ["chi 123s", "chi 789s"])),
     3, "青一色一条龙", {"E": -32, "S": 48, "W": -8, "N": -8}, "S"),
    # §4 字一色大对子 4 with an 暗杠 and a peng; S discards: E 4+1 → 32, S 4+1 → 32, W 4 → 16.
    ("all-honours-pungs-melds",
     gejiu(win("N", "WWW ZZ FF", "F", "discard", "S", ["agang EEEE", "peng SSS"])),
     4, "字一色大对子", {"E": -32, "S": -32, "W": -16, "N": 80}, "S"),
    # §4 字一色小七对 5, four E as two pairs [A-G10]; dealer self-draw: 5+1+1 → 128 each.
    ("all-honours-seven-pairs-quad-dealer",
     gejiu(win("E", "EEEE SS WW NN ZZ F", "F")),
     5, "字一色小七对", {"E": 384, "S": -128, "W": -128, "N": -128}, "E"),
    # §4 B 小七对 2 beats the standard reading 混一色平胡 1: 混一色小七对 3; N discards:
    # E 4 → 16, W 3 → 8, N 4 → 16.
    ("seven-pairs-beats-standard",
     gejiu(win("S", "112233m 445566m E", "E", "discard", "N")),
     3, "混一色小七对", {"E": -16, "S": 40, "W": -8, "N": -16}, "S"),
    # §4 C: 123 345 567 789m holds every dragon tile but no dragon decomposition → 平胡 0;
    # self-draw: E 0+1+1 → 4, W/N 1 → 2.
    ("no-false-dragon",
     gejiu(win("S", "123345567789m 9p", "9p")),
     0, "平胡", {"E": -4, "S": 8, "W": -2, "N": -2}, "S"),
    # §6 [A-G7] 烂牌 with all seven honours is 1 fan (classes m 147, p 258, s 3 differ);
    # self-draw: E 3 → 8, W/N 2 → 4.
    ("seven-honour-lanpai-is-one-fan",
     gejiu(win("S", "147m 258p 3s ESWNZF", "B")),
     1, "烂牌", {"E": -8, "S": 16, "W": -4, "N": -4}, "S"),
    # §4 D 杠上花 3 + 混一色 1 + 大对子 1 = 5, self-drawn [A-G12]: E 5+1+1 → 128, W/N 6 → 64.
    ("kong-flower-half-flush-pungs",
     gejiu(win("S", "111m 999m Z", "Z", "kong_replacement", None,
               ["bgang 5555m", "peng EEE"])),
     5, "混一色大对子杠上花", {"E": -128, "S": 256, "W": -64, "N": -64}, "S"),
    # §4 D 杠上花 is 3 whatever the number of consecutive kongs (no 2^k in Gejiu).
    ("kong-flower-two-kongs-still-three",
     gejiu(win("S", "234m 567m W", "W", "kong_replacement", None,
               ["agang 1111p", "bgang 9999s"], kongs_in_turn=2)),
     3, "杠上花", {"E": -32, "S": 64, "W": -16, "N": -16}, "S"),
    # §5.4 抢杠花 3, the dealer is the robbed konger: E 3+1+1 → 32, S/W 3 → 8.
    ("rob-dealer-konger",
     gejiu(win("N", PING, "5m", "rob_kong", "E")),
     3, "抢杠花", {"E": -32, "S": -8, "W": -8, "N": 48}, "S"),
    # §5.4 + §6: a knitted hand robs the kong tile: 烂牌 1 + 抢杠花 3 = 4;
    # E 4+1 → 32, W (konger) 4+1 → 32, N 4 → 16.
    ("rob-with-lanpai",
     gejiu(win("S", "147m 258p 369s ESWN", "Z", "rob_kong", "W")),
     4, "烂牌抢杠花", {"E": -32, "S": 80, "W": -32, "N": -16}, "S"),
    # §5.1 the dealer wins on a discard: S 0+1+1 → 4, W/N 0+1 → 2; dealer keeps the deal (§8).
    ("dealer-wins-discard",
     gejiu(win("E", PING, "5m", "discard", "S")),
     0, "平胡", {"E": 8, "S": -4, "W": -2, "N": -2}, "E"),
    # §5.1 the dealer discards: E 0+1+1 → 4, S/W 1.
    ("dealer-discards",
     gejiu(win("N", PING, "5m", "discard", "E")),
     0, "平胡", {"E": -4, "S": -1, "W": -1, "N": 6}, "S"),
    # §5.1 / §8 with dealer N: E wins on S's discard: S 1 → 2, W 0 → 1, N (dealer) 1 → 2;
    # next dealer = N's 下家 = E.
    ("dealer-north-east-wins",
     gejiu(win("E", PING, "5m", "discard", "S"), dealer="N"),
     0, "平胡", {"E": 5, "S": -2, "W": -1, "N": -2}, "E"),
    # §5.5 塘子烂糊 by the dealer, pond 一般高 2: every payer 2+1+1 → 16.
    ("pond-dealer-same-height",
     gejiu({"seat": "E", "how": "pond"}, pond="147m 147p 147s ESWNZ"),
     2, "塘子烂糊（一般高）", {"E": 48, "S": -16, "W": -16, "N": -16}, "E"),
    # §5.5 an 暗杠 does not forbid 塘子烂糊; 七星一般高 3: E 3+1+1 → 32, S/W 4 → 16.
    ("pond-seven-star-with-concealed-kong",
     gejiu({"seat": "N", "how": "pond", "melds": ["agang 9999p"]},
           pond="47m 147p 14s ESWNZFB"),
     3, "塘子烂糊（七星一般高）", {"E": -32, "S": -16, "W": -16, "N": 64}, "S"),
    # [A-G19] kongs of the other seats pay nothing: as G-01.
    ("kongs-pay-nothing",
     gejiu(win("S", PING, "5m", "discard", "W"),
           kongs={"W": ["agang 1111p"], "N": ["mgang 9999m"]}),
     0, "平胡", {"E": -2, "S": 5, "W": -2, "N": -1}, "S"),
]


@pytest.mark.parametrize(("name", "obj", "fan", "pattern", "net", "nxt"), CASES,
                         ids=[c[0] for c in CASES])
def test_hand_settlement(name: str, obj: dict[str, Any], fan: int, pattern: str,
                         net: dict[str, int], nxt: str) -> None:
    result = settle(obj)
    assert result["wins"][0]["value"] == fan
    assert result["wins"][0]["pattern"]["zh"] == pattern
    assert result["net"] == net
    assert result["next_dealer"] == nxt


# --- §7 斗地主 ---------------------------------------------------------------------------------

DDZ: list[tuple[str, str, list[Any], dict[str, int]]] = [
    # dealer S leads: seats S W N E; W and E follow, N (对家 of S) is the 地主 → pays 1 × 3.
    ("dealer-south", "S", [["5p", "5p", "1m", "5p"]], {"E": 1, "S": 1, "W": 1, "N": -3}),
    # 大地主: E pays 2 × 3; circuit 2: S did not follow → S pays 1 × 3; circuit 3 has one
    # follower → nothing and the chain stops, so circuit 4 (another 大地主) is not paid.
    ("big-then-two-then-stop", "E",
     [["1m", "1m", "1m", "1m"], ["2m", "3m", "2m", "2m"], ["3m", "4m", "5m", "3m"],
      ["E", "E", "E", "E"]],
     {"E": -6 + 1, "S": 2 - 3, "W": 2 + 1, "N": 2 + 1}),
    # [A-G17] three non-dealers matching each other but not the dealer: nothing.
    ("others-match-not-dealer", "E", [["1m", "2m", "2m", "2m"]],
     {"E": 0, "S": 0, "W": 0, "N": 0}),
    # a void circuit ends the chain: the third circuit is never evaluated.
    ("void-ends-chain", "E", [["9m", "9m", "9m", "2p"], "void", ["1m", "1m", "1m", "1m"]],
     {"E": 1, "S": 1, "W": 1, "N": -3}),
    # an unfinished last circuit (the hand ended) is ignored.
    ("unfinished-last-ignored", "E", [["9m", "9m", "9m", "2p"], ["1m", "1m"]],
     {"E": 1, "S": 1, "W": 1, "N": -3}),
]


@pytest.mark.parametrize(("name", "dealer", "circuits", "net"), DDZ, ids=[d[0] for d in DDZ])
def test_doudizhu_on_a_drawn_hand(name: str, dealer: str, circuits: list[Any],
                                  net: dict[str, int]) -> None:
    # §7: settled even on 流局; §8: 流局 → the dealer's 下家 deals.
    result = settle({"rules": "gejiu", "dealer": dealer, "wins": [], "doudizhu": circuits})
    assert result["net"] == net
    assert result["next_dealer"] == "ESWN"[("ESWN".index(dealer) + 1) % 4]


def test_doudizhu_adds_to_a_win_and_base_point_scales_both() -> None:
    # §7 + §15 (common): dealer W, 大地主 (W pays 2 to each) and S wins on N's discard 平胡:
    # W (dealer payer) 0+1 → 2, N (discarder) 0+1 → 2, E 1. Base 2 doubles everything.
    obj = gejiu(win("S", PING, "5m", "discard", "N"), dealer="W",
                doudizhu=[["Z", "Z", "Z", "Z"]], options={"base_point": 2})
    assert settle(obj)["net"] == {"W": -16, "N": 0, "E": 2, "S": 14}


# --- malformed input (rules/README.md) --------------------------------------------------------

REFUSED: list[tuple[str, dict[str, Any], str]] = [
    # one winner per hand in Gejiu.
    ("two-winners", gejiu(win("S", PING, "5m", "discard", "W"),
                          win("N", PING, "5m", "discard", "W")), "wins"),
    # A-G23: no 地糊 / 天糊 in Gejiu.
    ("earthly", gejiu(win("S", PING, "5m", "earthly", "E")), "wins[0].how"),
    ("rob-without-konger", gejiu(win("S", PING, "5m", "rob_kong")), "wins[0].from"),
    ("kong-flower-without-kong", gejiu(win("S", PING, "5m", "kong_replacement")),
     "wins[0].how"),
    # §5.5: no chi / peng / 明杠 (补杠 implies a peng) for 塘子烂糊.
    ("pond-after-bgang", gejiu({"seat": "N", "how": "pond", "melds": ["bgang 9999p"]},
                               pond="47m 147p 14s ESWNZFB"), "wins[0].melds"),
    ("pond-13-tiles", gejiu({"seat": "N", "how": "pond"}, pond="47m 147p 14s ESWNZF"), "pond"),
    # regression (audit): the pond's E plus the winner's 暗杠 EEEE are five E.
    ("pond-fifth-copy", gejiu({"seat": "S", "how": "pond", "melds": ["agang EEEE"]},
                              pond="147m 258p 369s ESWNZ"), "pond"),
    # regression (audit): a two-discard circuit that is not the last entry is malformed even
    # when an earlier circuit already stopped the chain.
    ("short-circuit-after-stop",
     {"rules": "gejiu", "doudizhu": [["1m", "2m", "3m", "4m"], ["1m", "1m"],
                                     ["1m", "1m", "1m", "1m"]]}, "doudizhu[1]"),
    ("five-discard-circuit", {"rules": "gejiu", "doudizhu": [["1m"] * 5]}, "doudizhu[0]"),
    # regression (audit): §3 [A-G24] chi makes suited chows only; honours never form chows, so
    # a chi of three winds, of 中發白, with a gap or across suits is not a set.
    ("chi-of-winds", gejiu(win("S", "123m 456p 789s E", "E", "discard", "W", ["chi ESW"])),
     "wins[0].melds[0]"),
    ("chi-of-dragons", gejiu(win("S", "123m 456p 789s E", "E", "discard", "W", ["chi ZFB"])),
     "wins[0].melds[0]"),
    ("chi-with-a-gap", gejiu(win("S", "123m 456p E", "E", "discard", "W",
                                 ["chi 345s", "chi 135s"])), "wins[0].melds[1]"),
    ("chi-across-suits", gejiu(win("S", "123m 456p 789s E", "E", "discard", "W",
                                   ["chi 89m 1p"])), "wins[0].melds[0]"),
]


@pytest.mark.parametrize(("name", "obj", "field"), REFUSED, ids=[r[0] for r in REFUSED])
def test_malformed_input_is_refused(name: str, obj: dict[str, Any], field: str) -> None:
    with pytest.raises(SituationError) as info:
        score(parse_situation(obj))
    assert not isinstance(info.value, NotAWinError)
    assert info.value.field == field, str(info.value)


@pytest.mark.parametrize("hand", [
    "158m 258p 369s ESWN",  # §6 [A-G5]: 软烂 (gap ≥ 3) is not 正规烂: 1m and 5m differ in class
    "147m 258p 369s EESW",  # §6: a pair spoils the 烂牌 family
    "123m 456p 789s ESW Z",  # §3: honours never form chows
])
def test_hands_that_do_not_win(hand: str) -> None:
    with pytest.raises(NotAWinError):
        score(parse_situation(gejiu(win("S", hand, "N" if "EESW" in hand else "Z"))))


def test_calculator_exit_statuses() -> None:
    # README: 0 settled, 1 not a win, 2 malformed (the message names the field).
    import io

    ok = json.dumps(gejiu({"seat": "S", "how": "pond"}, pond="147m 258p 369s ESWNZ"))
    out, err = io.StringIO(), io.StringIO()
    assert score_cmd.run_single(ok, True, "en", out, err) == 0
    assert json.loads(out.getvalue())["net"]["S"] == 16
    nowin = json.dumps(gejiu({"seat": "S", "how": "pond"}, pond="147m 258p 369s ESWNN"))
    assert score_cmd.run_single(nowin, True, "en", io.StringIO(), io.StringIO()) == 1
    bad = json.dumps({"rules": "gejiu", "doudizhu": [["1m", "2m", "3m", "4m"], ["1m"], []]})
    err = io.StringIO()
    assert score_cmd.run_single(bad, True, "en", io.StringIO(), err) == 2
    assert "doudizhu[1]" in err.getvalue()


# --- §2 顶黄 and §3 报听 (ruleset hooks) --------------------------------------------------------


def test_ten_stacks_draw_and_kong_limit() -> None:
    # §2: draw when a head draw is due and R ≤ 20; a kong only while R > 20.
    g = RULESETS["gejiu"]()
    assert g.hand_is_drawn(20) and not g.hand_is_drawn(21)
    assert g.can_supply_replacement(21) and not g.can_supply_replacement(20)


@pytest.mark.parametrize(("hand", "ready"), [
    ("147m 258p 369s ESWN", True),  # §3 报听 on a 烂牌 wait (Z, F or B)
    ("1111m 234p 567s EEE", False),  # the only wait is a fifth 1m
    ("1111m 2222m 3333m 4m", True),  # 4m: 123m × 4 + 44m
])
def test_ting_readiness(hand: str, ready: bool) -> None:
    assert RULESETS["gejiu"]().is_ready(parse_tiles(hand), []) is ready


# --- §4 / §6 against an independent re-derivation ----------------------------------------------


def _decompositions(c: list[int], pair: bool) -> list[list[tuple[str, int]]]:
    i = next((k for k in range(34) if c[k]), None)
    if i is None:
        return [] if pair else [[]]
    out: list[list[tuple[str, int]]] = []
    if c[i] >= 3:
        c[i] -= 3
        out += [[("pung", i), *r] for r in _decompositions(c, pair)]
        c[i] += 3
    if pair and c[i] >= 2:
        c[i] -= 2
        out += [[("pair", i), *r] for r in _decompositions(c, False)]
        c[i] += 2
    if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        for k in (i, i + 1, i + 2):
            c[k] -= 1
        out += [[("chow", i), *r] for r in _decompositions(c, pair)]
        for k in (i, i + 1, i + 2):
            c[k] += 1
    return out


def _fan(conc: list[int], melds: list[tuple[str, tuple[int, ...]]]) -> int | None:
    """H by §4 / §6 literally: every decomposition, seven pairs and the 烂牌 family."""
    tiles = conc + [k for _, ks in melds for k in ks]
    suits = {k // 9 for k in tiles if k < 27}
    honours = any(k >= 27 for k in tiles)
    a = 3 if not suits else (1 if honours else 2) if len(suits) == 1 else 0
    c = [conc.count(k) for k in range(34)]
    best: int | None = None
    chis = [ks[0] for t, ks in melds if t == "chi"]
    for d in _decompositions(c, True):
        pungs = not chis and all(t != "chow" for t, _ in d)
        starts = chis + [k for t, k in d if t == "chow"]
        dragon = any(all(b + o in starts for o in (0, 3, 6)) for b in (0, 9, 18))
        best = max(best or 0, a + pungs + dragon)
    if not melds and all(x % 2 == 0 for x in c):
        best = max(best or 0, a + 2)
    if not melds and all(x <= 1 for x in c):
        classes = [{(k - b) % 3 for k in conc if b <= k < b + 9} for b in (0, 9, 18)]
        if all(len(s) <= 1 for s in classes):
            same = len(set().union(*classes)) == 1
            h = (3 if sum(k >= 27 for k in conc) == 7 else 2) if same else 1
            best = max(best or 0, h)
    return best


def _random_hand(rng: random.Random) -> tuple[list[int], list[tuple[str, tuple[int, ...]]]]:
    if rng.random() < 0.25:  # knitted-looking: 5–7 distinct honours, three suits
        hon = rng.sample(range(27, 34), rng.choice([5, 6, 7]))
        sizes = {5: [3, 3, 3], 6: [3, 3, 2], 7: [3, 2, 2]}[len(hon)]
        rng.shuffle(sizes)
        cls = rng.randrange(3)
        suited = []
        for s, n in enumerate(sizes):
            c = cls if rng.random() < 0.5 else rng.randrange(3)
            ranks = [r for r in range(9) if r % 3 == c] if rng.random() < 0.9 else list(range(9))
            suited += [9 * s + r for r in rng.sample(ranks, n)]
        return suited + hon, []
    suit = rng.randrange(3) if rng.random() < 0.5 else None
    while True:
        conc: list[int] = []
        melds: list[tuple[str, tuple[int, ...]]] = []
        n_melds = rng.choice([0, 0, 1, 2, 3])

        def kind(rank_max: int) -> int:
            s = suit if suit is not None and rng.random() < 0.8 else rng.randrange(3)
            return 9 * s + rng.randrange(rank_max)

        if rng.random() < 0.3 and suit is not None:
            conc = [9 * suit + r for r in range(9)]  # dragon material
            sets = 1
        else:
            sets = 4
        for i in range(sets):
            if rng.random() < 0.45:
                b = kind(7)
                ks: tuple[int, ...] = (b, b + 1, b + 2)
                kind_of = "chi"
            else:
                k = 27 + rng.randrange(7) if rng.random() < 0.3 else kind(9)
                ks, kind_of = (k, k, k), rng.choice(["peng", "peng", "mgang", "agang"])
                if kind_of != "peng":
                    ks = (k,) * 4
            if i < n_melds and sets == 4:
                melds.append((kind_of, ks))
            else:
                conc += list(ks[:3])
        p = kind(9) if rng.random() < 0.8 else 27 + rng.randrange(7)
        conc += [p, p]
        if rng.random() < 0.15:  # a near miss
            conc[rng.randrange(len(conc))] = rng.randrange(34)
        every = conc + [k for _, ks in melds for k in ks]
        if all(every.count(k) <= 4 for k in every):
            return conc, melds


def test_fan_agrees_with_an_independent_derivation() -> None:
    rng = random.Random(20261130)
    wins = 0
    for _ in range(600):
        conc, melds = _random_hand(rng)
        rng.shuffle(conc)
        obj = gejiu(win("S", format_tiles(sorted(conc[:-1])), format_tiles([conc[-1]]),
                        melds=[f"{t} {format_tiles(list(ks))}" for t, ks in melds]))
        expected = _fan(conc, melds)
        try:
            got: int | None = settle(obj)["wins"][0]["value"]
        except NotAWinError:
            got = None
        assert got == expected, obj
        wins += got is not None
    assert wins > 300  # the generator mostly makes winning hands
