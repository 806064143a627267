"""Shangrao (上饶) scoring audit: situations worked by hand from ``rules/shangrao.md`` (and the
Shangrao parts of ``common.md`` / ``ambiguities.md``), clause by clause, beyond the vectors.

Each expected figure cites the clause it comes from. "§n" = ``shangrao.md`` section n; "row n" =
the §6 pattern table. Payments are per payer; ``net`` is each seat's total.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from cli import score as score_cmd
from engine.calculator import parse_situation, settlement_to_json
from engine.rulesets import score
from engine.scoring import SituationError


def settle(obj: dict[str, Any]) -> dict[str, Any]:
    return settlement_to_json(score(parse_situation({"rules": "shangrao", **obj})))


def net(obj: dict[str, Any]) -> dict[str, int]:
    result: dict[str, int] = settle(obj)["net"]
    return result


def refused(obj: dict[str, Any], field: str) -> None:
    with pytest.raises(SituationError) as info:
        score(parse_situation({"rules": "shangrao", **obj}))
    assert info.value.field == field, str(info.value)


def win(hand: str, tile: str, how: str = "self_draw", seat: str = "S",
        **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": seat, "hand": hand, "tile": tile, "how": how}
    out.update({("from" if k == "frm" else k): v for k, v in kw.items()})
    return out


def each(payers: int, winner: str = "S", **others: int) -> dict[str, int]:
    """Every non-winner pays ``payers`` unless named in ``others`` (seat=amount paid)."""
    out = {s: -others.get(s, payers) for s in "ESWN" if s != winner}
    out[winner] = -sum(out.values())
    return {s: out[s] for s in "ESWN"}


S02 = "123m 456m 789p 234s 5s"  # + 5s: clean, chows (vectors S-02)
DW = {"discard_wins": True}


# --- §3 / §4: a wild may stand for any kind, its own included ----------------------------------


def test_wild_at_its_own_value_in_a_chow_is_clean() -> None:
    # §4 clean = every wild stands for its own kind; 5m natural in 345m → row 2 平糊自摸 P = 2
    assert net({"wild": "5m", "wins": [win("345m 678p 234s 99s 12p", "3p")]}) == each(2)


def test_three_natural_wilds_read_as_jokers_make_a_luxury_seven_pairs() -> None:
    # 555m 111p 999s EE ZZZ: clean = 清碰碰糊 10, but the three wilds may be 1p, 9s, Z →
    # 1111p 9999s EE ZZZZ: row 13 豪华七对 n = 3 → 4 × 2³ = 32, every tile 1/9/honour → 九幺
    # 名目 ×2 (§7) = 64 > 10 [A-14 max]
    result = settle({"wild": "5m", "wins": [win("555m 111p 999s EE ZZ", "Z")]})
    assert result["wins"][0]["pattern"]["zh"] == "豪华七对"
    assert result["net"] == each(64)


def test_clean_all_pungs_of_terminals_with_natural_wilds() -> None:
    # indicator 8m → wild 9m (§2). 999m natural: 999m 111p EEE ZZ + [peng 999s] → row 4
    # 清碰碰糊 10 × 九幺 名目 2 = 20 (> wild 碰碰糊 4 × 2, > clean 九幺 4)
    obj = {"indicator": "8m", "wins": [win("999m 111p EEE Z", "Z", melds=["peng 999s"])]}
    assert net(obj) == each(20)


def test_wild_all_pungs_of_terminals() -> None:
    # 5m = 1m → 111m 111p 999s EE ZZZ: row 3 碰碰糊 4 × 九幺 名目 2 = 8 (> 有宝九幺 2)
    assert net({"wild": "5m", "wins": [win("111p 999s EE ZZZ 5m 1m", "1m")]}) == each(8)


def test_seven_star_jiuyao_clean_and_wild() -> None:
    # row 18 七星九幺: clean 8, wild 4; never the 九幺 名目 on top (§7, A-S10)
    assert net({"wild": "5m", "wins": [win("19m 1p 99p 1s ESWNZFB", "9s")]}) == each(8)
    assert net({"wild": "5m", "wins": [win("19m 1p 99p 5m ESWNZFB", "9s")]}) == each(4)


def test_thirteen_waves_with_the_wild_at_its_own_value() -> None:
    # 1m 5m differ by 4: clean 十三浪 (row 15) 4; with all seven honours row 16 clean 8
    assert net({"wild": "5m", "wins": [win("15m 258p 369s ESWNZ", "F")]}) == each(4)
    assert net({"wild": "5m", "wins": [win("15m 258p 39s ESWNZF", "B")]}) == each(8)
    # wild 5m standing for B completes the seven honours: row 16 wild 4
    assert net({"wild": "5m", "wins": [win("14m 258p 39s ESWNZF", "5m")]}) == each(4)


def test_luxury_seven_pairs_counts() -> None:
    # row 13: the wild turns 555m into a four → n = 1 → 4 × 2 = 8
    assert net({"wild": "9p", "wins": [win("555m 77m 22p 44p 66s ZZ", "9p")]}) == each(8)
    # row 14: four natural wilds 5555p → clean n = 1 → 20 (> wild reading n = 2: 16)
    assert net({"wild": "5p", "wins": [win("5555p 11m 22m 33m 44m 6s", "6s")]}) == each(20)
    # row 14 n = 2, all 1/9/honour → 10 × 4 × 九幺 名目 2 = 80
    assert net({"wild": "5p", "wins": [win("1111m 9999p EE ZZ B", "B")]}) == each(80)
    # row 12 清七对 of terminals and honours → 10 × 2 = 20
    assert net({"wild": "5p", "wins": [win("11m 99m 11p 99s EE SS Z", "Z")]}) == each(20)


# --- §5, rows 5–10: 宝吊头, 偷机, 宝吊宝, 宝吊无宝 ---------------------------------------------


def test_all_pungs_wild_head_of_terminals_doubles() -> None:
    # S-13 shape drawing 9m instead of 7m: row 6 碰碰糊宝吊头 8, every tile 1/9/honour (the head
    # wild is 9m, the other wild Z) → 九幺 名目 ×2 = 16
    obj = {"wild": "5m", "wins": [win("5m WWW ZZ 5m", "9m", melds=["peng 111p", "peng 999s"],
                                      baodiao="head")]}
    assert net(obj) == each(16)


def test_touji_all_pungs_wild_pairs_wild_of_terminals() -> None:
    # 偷机, draws the wild: row 8 碰碰糊宝吊宝 16; the wild pair may be any terminal → ×2 = 32
    # (> row 10 碰碰糊宝吊无宝 16: 55m is not terminal)
    obj = {"wild": "5m", "wins": [win("5m WWW ZZ 5m", "5m", melds=["peng 111p", "peng 999s"],
                                      baodiao="touji")]}
    assert settle(obj)["wins"][0]["pattern"]["zh"] == "碰碰糊宝吊宝"
    assert net(obj) == each(32)


def test_head_state_resolving_clean_is_not_wild_wait_resolved_clean() -> None:
    # S-12's hand without 偷机: rows 9–10 need 偷机 (A-S6) → 宝吊头 3 (> 平糊自摸 2)
    obj = {"wild": "5m", "wins": [win("5m 12p 5m 456s 789s EE 5m", "3p", baodiao="head")]}
    assert net(obj) == each(3)


def test_single_wait_wild_head() -> None:
    # §5 单吊: four melds, the hand is the lone wild. Row 5 宝吊头 3 × 单吊 2 = 6
    melds = ["peng 111p", "peng 999s", "peng WWW", "chi 234m"]
    assert net({"wild": "5m", "wins": [win("5m", "7s", melds=melds, baodiao="head")]}) == each(6)
    # all pungs: row 6 碰碰糊宝吊头 8 × 2 = 16 (333m: no 九幺 名目)
    melds[3] = "peng 333m"
    assert net({"wild": "5m", "wins": [win("5m", "7s", melds=melds, baodiao="head")]}) == each(16)
    # 偷机 drawing the wild: row 8 碰碰糊宝吊宝 16 × 2 = 32
    assert net({"wild": "5m", "wins": [win("5m", "5m", melds=melds, baodiao="touji")]}) == each(32)


def test_wild_head_on_a_kong_replacement() -> None:
    # §5: an 暗杠 of a non-wild set keeps the state. 宝吊头 3 × 杠开 2¹ = 6; 自摸杠 bonus 2 (§9)
    obj = {"wild": "5m", "wins": [win("5m 123p 456p 789s", "2s", "kong_replacement",
                                      melds=["agang EEEE"], baodiao="head")]}
    assert net(obj) == each(8)


def test_wild_head_robbing_a_kong() -> None:
    # §8 抢杠: only the konger pays 6 × V; 宝吊头 3 → 18 ("有宝和宝吊头时也可抢杠")
    obj = {"wild": "5m", "wins": [win("5m 123p 456p 789s EEE", "2s", "rob_kong", frm="W",
                                      baodiao="head")]}
    assert net(obj) == {"E": 0, "S": 18, "W": -18, "N": 0}


# --- §7 名目 and §8 payments --------------------------------------------------------------------


def test_kong_replacement_single_wait_and_flying_on_both_sides() -> None:
    # 平糊自摸 2 (clean, chow, self-drawn incl. 杠开) × 杠开 2 × 单吊 2 × 飞宝 2^f(S)=2 → V = 16;
    # W flew 1 → pays 16 × 2 = 32; bonuses (§9): 暗杠 2 + 明杠 1 from each other seat
    obj = {"wild": "5m", "flown": {"S": 1, "W": 1}, "got": {"S": 1, "W": 1},
           "wins": [win("4p", "4p", "kong_replacement", kongs_in_turn=1,
                        melds=["agang 2222p", "peng 333s", "chi 789m", "mgang 6666s"])]}
    assert net(obj) == {"E": -19, "S": 73, "W": -35, "N": -19}


def test_consecutive_kongs_starting_with_an_exposed_kong() -> None:
    # A-S19: k = 2 → 平糊自摸 2 × 2² = 8; bonuses 明杠 1 + 暗杠 2
    obj = {"wild": "5m", "wins": [win("123m 456m 9s", "9s", "kong_replacement", kongs_in_turn=2,
                                      melds=["mgang 2222p", "agang 3333s"])]}
    assert net(obj) == each(11)


def test_robbing_with_single_wait_and_flying() -> None:
    # 抢杠 is not a self-draw → 平糊 1 (row 1); 单吊 ×2 → V = 2; konger flew 1 → 6 × 2 × 2 = 24
    melds = ["peng 111p", "peng 999s", "chi 234m", "peng EEE"]
    obj = {"wild": "5m", "flown": {"W": 1},
           "wins": [win("7s", "7s", "rob_kong", frm="W", melds=melds)]}
    assert net(obj) == {"E": 0, "S": 24, "W": -24, "N": 0}
    # the robber flew 2 too: V = 2 × 2² = 8 → 6 × 8 × 2 = 96
    obj["flown"] = {"W": 1, "S": 2}
    assert net(obj) == {"E": 0, "S": 96, "W": -96, "N": 0}


def test_payers_flying() -> None:
    # §8: each payer p pays V × 2^f(p): E flew 2 → 8, W flew 1 → 4, N → 2
    obj = {"wild": "9s", "flown": {"E": 2, "W": 1}, "wins": [win(S02, "5s")]}
    assert net(obj) == {"E": -8, "S": 14, "W": -4, "N": -2}


def test_base_point_multiplies_hand_and_bonus() -> None:
    # common §15: base 2 doubles the 平糊自摸 2 and E's 自摸杠 bonus 2
    obj = {"wild": "9s", "options": {"base_point": 2}, "kongs": {"E": ["agang 1111m"]},
           "wins": [win(S02, "5s")]}
    assert net(obj) == {"E": 8, "S": 8, "W": -8, "N": -8}


def test_several_robbers_each_paid_by_the_konger() -> None:
    # S: clean chow, robbed → 平糊 1 → 6. E in 宝吊头 state: row 6 碰碰糊宝吊头 8 → 48.
    # The robbed 补杠 listed in kongs earns no bonus (common §12). Next dealer: first
    # counter-clockwise from the konger W: N (no), E (yes) (§10).
    obj = {"wild": "5m", "kongs": {"W": ["bgang 4444s"]}, "wins": [
        win("123m 456m 789p 23s 55s", "4s", "rob_kong", frm="W"),
        win("5m 111m 999p EEE ZZZ", "4s", "rob_kong", seat="E", frm="W", baodiao="head"),
    ]}
    result = settle(obj)
    assert result["net"] == {"E": 48, "S": 6, "W": -54, "N": 0}
    assert result["next_dealer"] == "E"


# --- §9 bonuses ---------------------------------------------------------------------------------


def test_bonuses_on_a_drawn_hand() -> None:
    # E 暗杠 2, S 明杠 1 + 补杠 1, W 四个宝 10, each from every other seat; dealer stays
    obj = {"wild": "5m", "dealer": "S", "got": {"W": 4},
           "kongs": {"E": ["agang 1111m"], "S": ["mgang 2222p", "bgang 3333s"]}}
    result = settle(obj)
    assert result["net"] == {"E": -6, "S": -6, "W": 26, "N": -14}
    assert result["next_dealer"] == "S"


def test_four_wilds_for_a_non_winner_who_flew() -> None:
    # W received all four wilds and flew one: 四个宝 +10 from each; S's 平糊自摸 2, W pays 2 × 2
    obj = {"wild": "9s", "got": {"W": 4}, "flown": {"W": 1}, "wins": [win(S02, "5s")]}
    assert net(obj) == {"E": -12, "S": -2, "W": 26, "N": -12}


# --- A-S1 discard_wins ------------------------------------------------------------------------


def test_discard_wins_discarder_pays_for_three_with_own_flying() -> None:
    # no 平糊自摸 on a discard → 平糊 1; discarder pays 3 × V × 2^f(W) = 6
    obj = {"wild": "9s", "options": DW, "flown": {"W": 1},
           "wins": [win(S02, "5s", "discard", frm="W")]}
    assert net(obj) == {"E": 0, "S": 6, "W": -6, "N": 0}
    # a 宝吊 win on a discard counts: 宝吊头 3 × 3 = 9 from the discarder N
    bd = {"wild": "5m", "options": DW, "wins": [
        win("5m 123p 456p 789s EEE", "2s", "discard", frm="N", baodiao="head")]}
    assert net(bd) == {"E": 0, "S": 9, "W": 0, "N": -9}


def test_earthly_on_the_dealers_first_discard() -> None:
    # row 20 with discard_wins: the dealer alone pays 10 × 3 = 30 …
    small = {"wild": "9s", "options": DW, "wins": [win(S02, "5s", "earthly", frm="E")]}
    assert net(small) == {"E": -30, "S": 30, "W": 0, "N": 0}
    # … unless the ordinary value is larger (A-S18): 清豪华七对 n = 1 → 20 × 3 = 60
    big = {"wild": "5p", "options": DW,
           "wins": [win("1111m 33p 44p 66s 77s 8s", "8s", "earthly", frm="E")]}
    assert net(big) == {"E": -60, "S": 60, "W": 0, "N": 0}


# --- rows 19–20 天糊 / 地糊 ----------------------------------------------------------------------


def test_heavenly_flat_or_larger_ordinary() -> None:
    small = {"wild": "5m", "wins": [win("5m 123p 456p 789s EEE", "2s", "heavenly", seat="E")]}
    result = settle(small)
    assert result["net"] == {"E": 30, "S": -10, "W": -10, "N": -10}
    assert result["next_dealer"] == "E"
    # 清豪华七对 n = 1 = 20 per payer > 10 flat (A-S18)
    big = {"wild": "5p", "wins": [win("1111m 33p 44p 66s 77s 8s", "8s", "heavenly", seat="E")]}
    assert net(big) == {"E": 60, "S": -20, "W": -20, "N": -20}


def test_earthly_self_draw_flat_ignores_flying() -> None:
    # default 地糊: flat 10 from each, no 2^f(p) even though the dealer flew (§8, A-S11)
    obj = {"wild": "5m", "flown": {"E": 1},
           "wins": [win("5m 123p 456p 789s EEE", "2s", "earthly")]}
    assert net(obj) == each(10)


def test_earthly_self_draw_larger_ordinary_pays_with_flying() -> None:
    # §11: ordinary = {p: V × 2^f(p)} = 清碰碰糊 10 → E 20, W 10, N 10 = 40 > 30 → ordinary
    obj = {"wild": "5m", "flown": {"E": 1}, "wins": [win("222m 444p 666s WWW F", "F", "earthly")]}
    assert net(obj) == {"E": -20, "S": 40, "W": -10, "N": -10}


# --- malformed input (README: the message names the field) -----------------------------------


def test_a_discarded_or_robbed_wild_cannot_be_won() -> None:
    # common §10 / §3: a discarded wild can never be claimed; no kong holds a wild
    refused({"wild": "5s", "options": DW, "wins": [win(S02, "5s", "discard", frm="W")]},
            "wins[0].tile")
    refused({"wild": "5s", "wins": [win(S02, "5s", "rob_kong", frm="W")]}, "wins[0].tile")


def test_melds_and_kongs_of_the_wild_are_refused() -> None:
    # §3: wilds are never used in chi, peng or any kong, not even at their own value (A-S15)
    refused({"wild": "5m", "wins": [win("123p 456p 789s E", "E", melds=["peng 555m"])]},
            "wins[0].melds[0]")
    refused({"wild": "5m", "wins": [win("123p 456p 789s E", "E", melds=["chi 456m"])]},
            "wins[0].melds[0]")
    refused({"wild": "5m", "kongs": {"W": ["agang 5555m"]}}, "kongs.W")


def test_chi_must_be_a_suited_chow() -> None:
    # §4: sets are chows of one suit or pungs; no honour chows
    for bad in ("chi 135m", "chi ESW", "chi ZFB", "chi 89m 1p"):
        refused({"wild": "5p", "wins": [win("123p 456p 789s E", "E", melds=[bad])]},
                "wins[0].melds[0]")


def test_baodiao_needs_an_earlier_discard_and_the_wild() -> None:
    # §5: the state is set by the winner's own discard; 天糊 / 地糊 come before any
    refused({"wild": "5m", "wins": [win("5m 123p 456p 789s EEE", "2s", "heavenly", seat="E",
                                        baodiao="head")]}, "wins[0].baodiao")
    refused({"wild": "5m", "wins": [win("5m 123p 456p 789s EEE", "2s", "earthly",
                                        baodiao="touji")]}, "wins[0].baodiao")
    refused({"wins": [win("5m 123p 456p 789s EEE", "2s", baodiao="head")]}, "wins[0].baodiao")


def test_earthly_under_discard_wins_is_on_the_dealers_discard() -> None:
    # row 20 / A-S1: with discard_wins on, 地糊 is the win on the dealer's first discard
    refused({"wild": "9s", "options": DW, "wins": [win(S02, "5s", "earthly")]}, "wins[0].from")


def test_heavenly_and_earthly_come_before_any_kong() -> None:
    # rows 19–20: declared before any action / no chi, peng or kong before the first draw
    refused({"wild": "9s", "kongs": {"W": ["agang 1111p"]},
             "wins": [win(S02, "5s", "heavenly", seat="E")]}, "kongs")
    refused({"wild": "9s", "kongs": {"E": ["agang 1111p"]},
             "wins": [win(S02, "5s", "earthly")]}, "kongs")


def test_cli_exit_status_for_a_claimed_wild() -> None:
    obj = {"rules": "shangrao", "wild": "5s", "options": DW,
           "wins": [win(S02, "5s", "discard", frm="W")]}
    out, err = io.StringIO(), io.StringIO()
    assert score_cmd.run_single(json.dumps(obj), True, "en", out, err) == score_cmd.EXIT_MALFORMED
    assert "wins[0].tile" in err.getvalue()


def test_several_robbers_share_the_robbed_tile() -> None:
    # README / common §12: several winners only on one robbed kong, i.e. one tile
    refused({"wild": "9m", "wins": [
        win("123m 456m 789p 23s 55s", "4s", "rob_kong", seat="E", frm="S"),
        win("111p 456p 789p 23s 99s", "1s", "rob_kong", seat="N", frm="S"),
    ]}, "wins[1].tile")
