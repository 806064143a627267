"""Audit of the Yichun (宜春) scorer against ``rules/yichun.md``, clause by clause.

Every expected figure below was worked by hand from the spec (the clause is cited next to it),
not read off the engine. Formula (§7.4): ``pay(w, p) = V × D(p) × B(w) × B(p) × 2^L`` plus kong
points (§8). Unless a case says otherwise: dealer E, ``buyers: []`` (nobody bought), base 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.calculator import parse_situation, settlement_to_json
from engine.rulesets import score
from engine.scoring import NotAWinError, SituationError
from tests.support.scoring import run, win


def sit(*wins: dict[str, Any], **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"rules": "yichun", "dealer": "E", "buyers": [], "wins": list(wins)}
    out.update(extra)
    return out


def net(**amounts: int) -> dict[str, int]:
    return {"E": 0, "S": 0, "W": 0, "N": 0, **amounts}


def settle(obj: dict[str, Any]) -> dict[str, Any]:
    return settlement_to_json(score(parse_situation(obj)))


PLAIN = "123m 456m 789p 111s 9s"  # + 9s = 123m 456m 789p 111s 99s: 平糊 1 (§4 #1)

# (id, input, expected net, expected next dealer or None when not checked)
CASES: list[tuple[str, dict[str, Any], dict[str, int], str | None]] = [
    # --- §3 sets: wind / dragon sets, also by chi ------------------------------------------
    # [chi EWN] is a set (§3, A-13); 平糊 1 (§4 #1); discard: W pays 1 × D2 (§7.2) = 2.
    ("chi-wind-set", sit(win("S", "123m 456p 789s 5m", "5m", "discard", "W", ["chi EWN"])),
     net(S=2, W=-2), "S"),
    # [chi ZFB] dragon set; chi spoils 门清 (§5): V = 1, three payers × 1.
    ("chi-dragon-set", sit(win("S", "111m 234p 567s 9s", "9s", melds=["chi ZFB"])),
     net(S=3, E=-1, W=-1, N=-1), "S"),
    # concealed ESW + pair NN, 平糊 × 门清 2 = 2 from each (§5 门清).
    ("concealed-wind-set", sit(win("S", "123m 456m 789m ESW N", "N")),
     net(S=6, E=-2, W=-2, N=-2), None),
    # a wind set is not a pung (§3 "never 大七对"): 111m 222p ESW 333s NN is 平糊 1, not 大七 3.
    ("wind-set-not-pung", sit(win("S", "ESW 333s N", "N", "discard", "W",
                                  ["peng 111m", "peng 222p"])), net(S=2, W=-2), None),
    # wind pungs do make 大七对 (§4 #3): 3, peng → no 门清; 3 × 3 payers.
    ("wind-pungs-dadui", sit(win("S", "SSS WWW 999m N", "N", melds=["peng EEE"])),
     net(S=9, E=-3, W=-3, N=-3), None),
    # --- §4 patterns ---------------------------------------------------------------------------
    # EESSWWNN 11m 22m 33m: standard (ESW ESW 123m 123m NN) = 1 or 小七对 4; largest V (§4):
    # 4 × 门清 2 = 8 per payer.
    ("seven-pairs-beats-wind-sets", sit(win("S", "EESSWWNN 11m 22m 3m", "3m")),
     net(S=24, E=-8, W=-8, N=-8), None),
    # 11223344556677m: 清一色 5 or 清一色小七 20 (§4 #7) → 20; discard 20 × 2 = 40.
    ("pure-seven-pairs-discard", sit(win("S", "1122334455667m", "7m", "discard", "E")),
     net(S=40, E=-40), None),
    # 豪华 with N = 3 fours (§4 #6, A-Y9): 4 × 2^3 = 32, 门清 → 64 each.
    ("luxury-n3", sit(win("S", "1111m 2222p 3333s 5s", "5s")),
     net(S=192, E=-64, W=-64, N=-64), None),
    # 2222m 3333m 4444m 55m: 清一色 chows (234 ×4 + 55) = 5 or 清一色豪华 N=3 = 5×4×8 = 160
    # (A-Y21); discard 160 × 2 = 320.
    ("pure-luxury-n3-over-chows", sit(win("S", "2222m 3333m 4444m 5m", "5m", "discard", "N")),
     net(S=320, N=-320), None),
    # 豪华 N = 2 on a discard: 16 × 2 = 32 (§4 #6).
    ("luxury-n2-discard", sit(win("S", "2222m 4444p 66p 88s S", "S", "discard", "W")),
     net(S=32, W=-32), None),
    # all-honour 豪华 N=1 (8) vs 字一色 free form (6): larger taken (rules-decisions), 门清 → 16.
    ("honour-luxury-over-zi-free", sit(win("S", "EEEE SS WW NN ZZ F", "F")),
     net(S=48, E=-16, W=-16, N=-16), None),
    # EE SS WW NN ZZ FF BB also reads ESW ESW ZFB ZFB NN: 字一色成阕 12 (§4 #11) × 门清 = 24,
    # more than 小七对 8 or free form 12.
    ("honour-pairs-are-sets", sit(win("S", "EE SS WW NN ZZ FF B", "B")),
     net(S=72, E=-24, W=-24, N=-24), None),
    # all honours in sets, no melds (§4 #11): 12 × 门清 2 = 24.
    ("zi-sets-concealed", sit(win("S", "EEE SSS WWW ZFB N", "N")),
     net(S=72, E=-24, W=-24, N=-24), None),
    # --- 十三烂 (§4 #8, A-Y10) ------------------------------------------------------------------
    # 7 honours, suits 3+3+1: 七星十三烂 3 (§4 #9) × 门清 = 6.
    ("seven-star-3-3-1", sit(win("S", "147m 258p 3s ESWNZF", "B")),
     net(S=18, E=-6, W=-6, N=-6), None),
    # 7 honours, suits 2+2+3, discard: 3 × 2 = 6.
    ("seven-star-2-2-3", sit(win("S", "14m 25p 369s ESWNZF", "B", "discard", "E")),
     net(S=6, E=-6), None),
    # 6 honours, suits 2+3+3: plain 十三烂 2; discard 2 × 2 = 4.
    ("lan-six-honours", sit(win("S", "14m 258p 369s ESWNZ", "F", "discard", "E")),
     net(S=4, E=-4), None),
    # 5 honours, 1-5-9 (gaps 4, 4) and 147 twice: legal; 2 × 2 = 4.
    ("lan-159", sit(win("S", "159m 147p 258s ESWN", "Z", "discard", "E")),
     net(S=4, E=-4), None),
    # 抢杠 ×2 applies to 十三烂 (§5, "all except 12–13"): 2 × 2 = 4; konger E pays ×2 = 8.
    ("lan-robs-kong", sit(win("S", "147m 258p 369s ESW Z", "N", "rob_kong", "E")),
     net(S=8, E=-8), "S"),
    # --- 字一色 both forms (§4 #10–11, A-Y12) ---------------------------------------------------
    # SSSS WWW ZZ F B is no standard hand (F, B only fit ZFB; a Z is left): free form 6,
    # [agang EEEE] keeps 门清 ×2, 杠开 ×2 → 24; + 暗杠 points 2 from each (§8) = 26 each.
    ("zi-free-agang-gangkai", sit(win("S", "SSSS WWW Z F B", "Z", "kong_replacement",
                                      melds=["agang EEEE"])),
     net(S=78, E=-26, W=-26, N=-26), "S"),
    # 字一色成阕 with four melds: 12 × 单钓 2 = 24 (§5 单钓 applies to 11); discard ×2 = 48.
    ("zi-sets-dandiao-discard", sit(win("S", "B", "B", "discard", "N",
                                        ["peng EEE", "chi SWN", "peng ZZZ", "chi ZFB"])),
     net(S=48, N=-48), None),
    # 字一色 robbing a kong, free form: 6 × 抢杠 2 = 12, konger pays × 2 = 24.
    ("zi-free-robs-kong", sit(win("S", "EEE S WW NN ZZZ F B", "B", "rob_kong", "W")),
     net(S=24, W=-24), None),
    # --- §5 单钓 and its 暗杠 exclusion ---------------------------------------------------------
    # four melds incl. an 暗杠: no 单钓; 大七 3, peng → no 门清; + 暗杠 2 = 5 each.
    ("dandiao-void-with-agang", sit(win("S", "9p", "9p",
                                        melds=["peng 222m", "peng 555p", "agang 7777s",
                                               "peng EEE"])),
     net(S=15, E=-5, W=-5, N=-5), None),
    # four 暗杠: 门清 yes, 单钓 no: 大七 3 × 2 = 6, + 4 × 2 kong points = 14 each.
    ("four-agang", sit(win("S", "9p", "9p",
                           melds=["agang 2222m", "agang 5555p", "agang 7777s", "agang EEEE"])),
     net(S=42, E=-14, W=-14, N=-14), None),
    # the same on the replacement tile: 3 × 门清 2 × 杠开 2 = 12, + 8 = 20 each.
    ("four-agang-gangkai", sit(win("S", "9p", "9p", "kong_replacement",
                                   melds=["agang 2222m", "agang 5555p", "agang 7777s",
                                          "agang EEEE"], kongs_in_turn=1)),
     net(S=60, E=-20, W=-20, N=-20), None),
    # 明杠 / 补杠 do not void 单钓: 平糊 (chi) 1 × 2 = 2, W pays × 2 = 4;
    # kong points 明杠 1 + 补杠 1 from each: E −2, W −6, N −2.
    ("dandiao-with-mgang-bgang", sit(win("S", "9p", "9p", "discard", "W",
                                         ["mgang 2222m", "bgang 5555p", "peng EEE",
                                          "chi 789s"])),
     net(S=10, E=-2, W=-6, N=-2), None),
    # 清一色 with chi + 单钓: 5 × 2 = 10 each (§4 #2, §5).
    ("pure-dandiao", sit(win("S", "5m", "5m",
                             melds=["chi 123m", "chi 456m", "peng 777m", "peng 999m"])),
     net(S=30, E=-10, W=-10, N=-10), None),
    # 清一色大七 + 单钓: 15 × 2 = 30 each.
    ("pure-pungs-dandiao", sit(win("S", "5m", "5m",
                                   melds=["peng 111m", "peng 333m", "peng 777m", "peng 999m"])),
     net(S=90, E=-30, W=-30, N=-30), None),
    # 单钓 on a robbed kong (A-Y28): 1 × 单钓 2 × 抢杠 2 = 4; konger W pays × 2 = 8.
    ("dandiao-rob-kong", sit(win("S", "5m", "5m", "rob_kong", "W",
                                 ["peng 111m", "chi 234p", "peng 777s", "peng EEE"])),
     net(S=8, W=-8), "S"),
    # --- §5 杠开 -------------------------------------------------------------------------------
    # two consecutive 暗杠 still ×2 once (A-Y17): 1 × 门清 2 × 杠开 2 = 4, + 2 + 2 = 8 each.
    ("gangkai-two-kongs", sit(win("S", "234s 567s E", "E", "kong_replacement",
                                  melds=["agang 1111m", "agang 9999p"], kongs_in_turn=2)),
     net(S=24, E=-8, W=-8, N=-8), None),
    # 杠开 after a 明杠 from a discard: no 门清 (§5); 1 × 2 = 2 + 明杠 1 = 3 each (A-Y23).
    ("gangkai-after-mgang", sit(win("S", "123m 456m 789p E", "E", "kong_replacement",
                                    melds=["mgang 9999s"])),
     net(S=9, E=-3, W=-3, N=-3), None),
    # --- §7.2 discarder ×2 option ---------------------------------------------------------------
    # off: 对火 only, 1 × B2 × B2 = 4 (Y-04 would be 8).
    ("discarder-double-off", sit(win("W", "234m 678p 345s ZFB 7s", "7s", "discard", "E"),
                                 buyers=["E", "W"], options={"discarder_pays_double": False}),
     net(W=4, E=-4), None),
    # off also for the robbed konger (A-Y19): 1 × 抢杠 2 = 2.
    ("rob-kong-double-off", sit(win("N", "123m 456s 78p EEE 99m", "6p", "rob_kong", "W"),
                                options={"discarder_pays_double": False}),
     net(N=2, W=-2), None),
    # --- §7.3 买 -------------------------------------------------------------------------------
    # voluntary buyers E, S, N; S self-draws 平糊 门清 V = 2: E 2×2×2, W 2×2, N 2×2×2.
    ("voluntary-buyers", sit(win("S", PLAIN, "9s"), buyers=["E", "S", "N"]),
     net(S=20, E=-8, W=-4, N=-8), None),
    # dealer S, dice 6: count(S, 6) = W is compelled (§7.3); buyers {S, W}: E 2×2, W 2×2×2, N 4.
    ("compelled-from-dealer-S", sit(win("S", PLAIN, "9s"), dealer="S", dice=6, buyers=None),
     net(S=16, E=-4, W=-8, N=-4), "S"),
    # dealer S, dice 9: count(S, 9) = S, the dealer alone buys (A-Y5); N wins on W: 1 × 2.
    ("compelled-dice-9", sit(win("N", PLAIN, "9s", "discard", "W"), dealer="S", dice=9,
                             buyers=None), net(N=2, W=-2), "N"),
    # dealer N, dice 3: count(N, 3) = S buys; W wins on S: 1 × 2 × B(S) 2 = 4.
    ("compelled-dealer-N", sit(win("W", PLAIN, "9s", "discard", "S"), dealer="N", dice=3,
                               buyers=None), net(W=4, S=-4), None),
    # neither buyers nor dice: the dealer alone buys (rules/README.md): E pays 1 × 2 × 2.
    ("dealer-alone-buys", sit(win("W", PLAIN, "9s", "discard", "E"), buyers=None),
     net(W=4, E=-4), None),
    # buyers given wins over dice: [] with dice 7 → nobody bought: 1 × 2.
    ("buyers-over-dice", sit(win("W", PLAIN, "9s", "discard", "E"), dice=7),
     net(W=2, E=-2), None),
    # 对火 ×4 also for a bought self-draw payer (A-Y4), with a lighter: V 2 × 2^1;
    # E 4 × B(S)2 = 8, W 4 × 2 × 2 = 16, N 8.
    ("duihuo-self-draw-lighter", sit(win("S", PLAIN, "9s"), buyers=["S", "W"], lighters=1),
     net(S=32, E=-8, W=-16, N=-8), None),
    # --- §7.5 lighters ---------------------------------------------------------------------------
    # one lighter doubles hand payments, not kong points (A-Y7): hand 2 × 2 = 4 each;
    # N's 暗杠 2 from each: S +12 − 2, E −4 − 2, W −6, N −4 + 6.
    ("lighter-not-on-kongs", sit(win("S", PLAIN, "9s"), lighters=1,
                                 kongs={"N": ["agang 1111p"]}),
     net(S=10, E=-6, W=-6, N=2), None),
    # max_lighters 2, two lighters: 1 × 2 × 4 = 8.
    ("two-lighters", sit(win("S", PLAIN, "9s", "discard", "E"), lighters=2,
                         options={"max_lighters": 2}), net(S=8, E=-8), None),
    # unlimited (null): three lighters, 1 × 2 × 8 = 16.
    ("unlimited-lighters", sit(win("S", PLAIN, "9s", "discard", "E"), lighters=3,
                               options={"max_lighters": None}), net(S=16, E=-16), None),
    # --- §8 kong points ---------------------------------------------------------------------------
    # drawn hand: kong points void, next dealer = last drawer (§8, §9).
    ("drawn-hand", sit(kongs={"E": ["agang 1111m"], "S": ["mgang 2222p"]}, last_drawer="W"),
     net(), "W"),
    # the robbed konger's other (completed) 暗杠 still pays 2 from each; its robbed 补杠 nothing:
    # N wins 1 × 抢杠 2 × D2 = 4 from W; W +6 from kong points.
    ("robbed-konger-other-kong", sit(win("N", "123m 456s 78p EEE 99m", "6p", "rob_kong", "W"),
                                     kongs={"W": ["agang 9999s"]}),
     net(N=2, W=2, E=-2, S=-2), "N"),
    # --- §4 大三元 / 大四喜 (A-Y13) -------------------------------------------------------------
    # 大三元 = 大七对 3; discard × 2.
    ("dasanyuan", sit(win("S", "FFF BBB 222m 9m", "9m", "discard", "W", ["peng ZZZ"])),
     net(S=6, W=-6), None),
    # 大四喜, suited pair: 大七 3, no 单钓 (暗杠), no 门清; kong points 1 + 2 + 1 + 1 = 5 each.
    ("dasixi-suited-pair", sit(win("S", "5m", "5m",
                                   melds=["mgang EEEE", "agang SSSS", "bgang WWWW",
                                          "mgang NNNN"])),
     net(S=24, E=-8, W=-8, N=-8), None),
    # 大四喜-like with an honour pair and no 暗杠: 字一色成阕 12 × 单钓 2 = 24, + 3 kongs = 27.
    ("dasixi-honour-pair-dandiao", sit(win("S", "Z", "Z",
                                           melds=["mgang EEEE", "mgang SSSS", "bgang WWWW",
                                                  "peng NNN"])),
     net(S=81, E=-27, W=-27, N=-27), None),
    # --- §4 #12–13 天糊 / 地糊: the larger of 12 and the ordinary value (A-Y27) ------------------
    # dealt 豪华 N=1: 8 × 门清 2 = 16 > 12.
    ("tianhu-luxury-16", sit(win("E", "2222m 44p 66p 88s SS B", "B", "heavenly")),
     net(E=48, S=-16, W=-16, N=-16), "E"),
    # dealt 清一色: 5 × 2 = 10 < 12 → 12.
    ("tianhu-pure-12", sit(win("E", "123m 456m 789m 234m 5m", "5m", "heavenly")),
     net(E=36, S=-12, W=-12, N=-12), None),
    # dealt 清一色大七: 15 × 2 = 30.
    ("tianhu-pure-pungs-30", sit(win("E", "111m 333m 555m 777m 9m", "9m", "heavenly")),
     net(E=90, S=-30, W=-30, N=-30), None),
    # 天糊 十三烂 (4 → 12), dice 7 → buyers {E, W}, one lighter: S 12×2×2, W 12×2×2×2, N 48.
    ("tianhu-buyers-lighter", sit(win("E", "147m 258p 369s ESWN", "Z", "heavenly"), dice=7,
                                  buyers=None, lighters=1),
     net(E=192, S=-48, W=-96, N=-48), None),
    # 地糊 with 清一色小七 20 > 12, dice 5 (E buys): 20 × D2 × B(E)2 = 80.
    ("dihu-pure-seven-pairs", sit(win("S", "1122334455667p", "7p", "earthly", "E"), dice=5,
                                  buyers=None), net(S=80, E=-80), "S"),
    # 地糊 with 豪华 N=1 8 (no 门清: a discard) → 12; × 2 = 24.
    ("dihu-luxury-12", sit(win("S", "2222m 44p 66p 88s SS B", "B", "earthly", "E")),
     net(S=24, E=-24), None),
    # 地糊 with 豪华 N=2 16 > 12: × 2 = 32.
    ("dihu-luxury-16", sit(win("S", "2222m 4444p 66p 88s S", "S", "earthly", "E")),
     net(S=32, E=-32), None),
    # 地糊 with discarder ×2 off: 12.
    ("dihu-double-off", sit(win("S", "123m 456m 789s EEE 5p", "5p", "earthly", "E"),
                            options={"discarder_pays_double": False}), net(S=12, E=-12), None),
    # --- §7.7 压鸽子 ---------------------------------------------------------------------------
    # X backs the winner S, Y backs the payer E: X mirrors S (+6), Y mirrors E's −2 to S.
    ("spectators-both-sides", sit(win("S", PLAIN, "9s"),
                                  spectators=[{"name": "X", "backs": "S"},
                                              {"name": "Y", "backs": "E"}]),
     {"E": -4, "S": 8, "W": -4, "N": -4, "X": 6, "Y": -2}, None),
    # exactly 2 seats allow (the ≥ 2 rule), X backs the discarder E (buyer): E → S 4, X → S 4.
    ("spectator-two-allow", sit(win("S", PLAIN, "9s", "discard", "E"), buyers=["E"],
                                spectators=[{"name": "X", "backs": "E"}],
                                allow_spectators=["S", "E"]),
     {"E": -4, "S": 8, "W": 0, "N": 0, "X": -4}, None),
    # kong points are mirrored too, and base 2 multiplies everything (common.md §15):
    # E → S 2×2; N's 暗杠 2×2 from E, S, W; X receives the same three.
    ("spectator-kong-base2", sit(win("S", PLAIN, "9s", "discard", "E"),
                                 kongs={"N": ["agang 1111p"]},
                                 spectators=[{"name": "X", "backs": "N"}],
                                 options={"base_point": 2}),
     {"E": -12, "S": -4, "W": -8, "N": 12, "X": 12}, None),
    # --- §7.8 several winners ---------------------------------------------------------------------
    # three winners on N's discard; E's 大七 3 × 单钓 2 = 6 × 2 = 12; next dealer N (买庄).
    ("three-winners", sit(win("S", "123m 456m 789s EEE 5p", "5p", "discard", "N"),
                          win("W", "234p 678p 789m SSS 5p", "5p", "discard", "N"),
                          win("E", "5p", "5p", "discard", "N",
                              ["peng 111s", "peng 222s", "peng 333s", "peng 444s"])),
     net(N=-16, S=2, W=2, E=12), "N"),
    # two robbers of E's 补杠: each 1 × 抢杠 2 × D2 = 4; next dealer the konger (A-Y20).
    ("two-robbers", sit(win("S", "123m 456m 789s EEE 5p", "5p", "rob_kong", "E"),
                        win("W", "234p 567p 789m SSS 5p", "5p", "rob_kong", "E")),
     net(E=-8, S=4, W=4), "E"),
    # two winners, S with a 明杠 (kong points 1 from each of E, W, N).
    ("two-winners-kong", sit(win("S", "123m 456m 789s 5p", "5p", "discard", "E",
                                 ["mgang EEEE"]),
                             win("W", "234p 567p 789m SSS 5p", "5p", "discard", "E")),
     net(E=-5, S=5, W=1, N=-1), "E"),
    # --- §9 next dealer ------------------------------------------------------------------
    ("dealer-wins-stays", sit(win("E", PLAIN, "9s")), net(E=6, S=-2, W=-2, N=-2), "E"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_hand_checked_situation(case: tuple[str, dict[str, Any], dict[str, int], str | None]
                                ) -> None:
    _id, obj, expected, dealer = case
    result = settle(obj)
    assert result["net"] == expected
    if dealer is not None:
        assert result["next_dealer"] == dealer


def test_every_case_through_the_cli_batch(tmp_path: Path) -> None:
    """The same situations through ``mahjong-ssh score --batch --json``."""
    batch = tmp_path / "audit.jsonl"
    batch.write_text("\n".join(json.dumps({"id": c[0], **c[1]}) for c in CASES) + "\n",
                     encoding="utf-8")
    code, out, _ = run(["--batch", str(batch), "--json"])
    assert code == 0
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in results] == [c[0] for c in CASES]
    for (_id, _obj, expected, _d), r in zip(CASES, results, strict=True):
        assert r["net"] == expected, _id


# --- hands that do not win -------------------------------------------------------------------


@pytest.mark.parametrize("hand,tile,melds", [
    # 十三烂: gap of 2 (1m, 4m, 6m) (§4 #8)
    ("146m 258p 369s ESWN", "Z", []),
    # 十三烂: a repeated honour
    ("147m 258p 369s ESWN", "E", []),
    # only 4 honours: a suit must hold 4 tiles, which cannot keep gaps of 3 (A-Y10)
    ("1479m 258p 369s ESW", "N", []),
    # 字一色 free form after a peng / a 明杠 (§4 #10: 暗杠 only)
    ("SSSS WWW Z F B", "Z", ["peng EEE"]),
    ("SSSS WWW Z F B", "Z", ["mgang EEEE"]),
])
def test_not_a_win(hand: str, tile: str, melds: list[str]) -> None:
    with pytest.raises(NotAWinError):
        score(parse_situation(sit(win("S", hand, tile, "discard", "E", melds))))


def test_zi_free_is_allowed_with_an_agang_only() -> None:
    # the same tiles as above with [agang EEEE]: 6 × 门清 2 = 12, + 2 kong points = 14 each
    result = settle(sit(win("S", "SSSS WWW Z F B", "Z", melds=["agang EEEE"])))
    assert result["net"] == net(S=42, E=-14, W=-14, N=-14)
    assert result["wins"][0]["pattern"]["zh"] == "字一色（不成阕）"


# --- refusals ----------------------------------------------------------------------------------


def refused(obj: dict[str, Any], field: str) -> None:
    with pytest.raises(SituationError) as info:
        score(parse_situation(obj))
    assert not isinstance(info.value, NotAWinError)
    assert info.value.field == field, str(info.value)


def test_a_chi_meld_must_be_a_yichun_set() -> None:
    # §3: a chi is a chow, three different winds or 中發白; anything else is malformed input
    for bad in ("chi EEZ", "chi 135m", "chi 12m 3p", "chi EZF", "chi EES", "chi 89m 1p"):
        refused(sit(win("S", "123m 456p 789s 5m", "5m", "discard", "W", [bad])),
                "wins[0].melds[0]")
    for good in ("chi ESN", "chi SWN", "chi ZFB", "chi 789s"):
        settle(sit(win("S", "123m 456p 789s 5m", "5m", "discard", "W", [good])))


def test_robbed_bgang_listed_in_kongs_earns_nothing() -> None:
    # §8 / common.md §12: "被抢杠的杠子不算番" — a robbed 补杠 is not completed; if the input lists
    # it among the konger's kongs it is still worth nothing; its other kongs still pay.
    obj = sit(win("N", "123m 456s 78p EEE 99m", "6p", "rob_kong", "W"),
              kongs={"W": ["bgang 6666p", "agang 9999s"]})
    result = settle(obj)
    assert result["net"] == net(N=2, W=2, E=-2, S=-2)
    assert not any("6666p" in t["why"] for t in result["transfers"])
    # a 补杠 of another kind by the konger is a completed kong and pays 1 from each
    obj["kongs"] = {"W": ["bgang 5555p"]}
    assert settle(obj)["net"] == net(N=3, W=-1, E=-1, S=-1)


def test_option_and_stake_refusals() -> None:
    refused(sit(win("S", PLAIN, "9s"), lighters=2), "lighters")  # default max_lighters 1
    refused(sit(win("S", PLAIN, "9s"), lighters=1, options={"max_lighters": 0}), "lighters")
    sp = [{"name": "X", "backs": "S"}]
    refused(sit(win("S", PLAIN, "9s"), spectators=sp, allow_spectators=["S"]),
            "allow_spectators")  # fewer than 2 seats allow (A-Y8)
    refused(sit(win("S", PLAIN, "9s"), spectators=[{"name": "X", "backs": "W"}],
                allow_spectators=["S", "E"]), "spectators[0].backs")
    refused(sit(win("S", PLAIN, "9s"),
                spectators=[{"name": f"X{i}", "backs": "S"} for i in range(5)]), "spectators")
    refused(sit(win("S", "123m 456m 789s EEE 5p", "5p", "earthly", "W")), "wins[0].from")
    refused(sit(win("S", "123m 456m 789s EEE 5p", "5p", "rob_kong", "E"),
                win("W", "234p 567p 789m SSS 5p", "5p", "discard", "E")), "wins[1].from")


def test_pattern_names_and_modifier_items() -> None:
    # Y-01 shape: the output names 大七对 with 单钓 and 杠开, not 门清 (peng)
    result = settle(sit(win("S", "9p", "9p", "kong_replacement",
                            melds=["peng 222m", "peng 555p", "peng EEE", "bgang 8888s"])))
    w = result["wins"][0]
    assert w["pattern"]["zh"] == "大七对" and w["value"] == 12
    assert [i["zh"] for i in w["items"]] == ["大七对", "单钓", "杠开"]
