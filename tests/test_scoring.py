"""Scoring beyond the worked vectors: options, side bets, drawn hands, bonuses, 斗地主, pond wins,
and refusals that name the offending field. Expected amounts are worked from the rules files."""

from __future__ import annotations

from typing import Any

import pytest

from engine.calculator import parse_situation, settlement_to_json
from engine.rulesets import score
from engine.scoring import NotAWinError, SituationError


def settle(obj: dict[str, Any]) -> dict[str, Any]:
    return settlement_to_json(score(parse_situation(obj)))


def refused(obj: dict[str, Any], field: str) -> SituationError:
    with pytest.raises(SituationError) as info:
        score(parse_situation(obj))
    assert info.value.field == field, str(info.value)
    return info.value


Y04 = {"rules": "yichun", "dice": 7, "wins": [
    {"seat": "W", "hand": "234m 678p 345s ZFB 7s", "tile": "7s", "how": "discard", "from": "E"}]}
Y05 = {"rules": "yichun", "dice": 5, "wins": [
    {"seat": "S", "hand": "678m 222p SWN 9s", "tile": "9s", "how": "discard", "from": "N",
     "melds": ["chi 345m"]}]}
Y06 = {"rules": "yichun", "dice": 6, "wins": [
    {"seat": "E", "hand": "147m 258p 369s ESWN", "tile": "Z", "how": "self_draw"}]}
S02_HAND = {"seat": "S", "hand": "123m 456m 789p 234s 5s", "tile": "5s"}


# --- Yichun ---------------------------------------------------------------------------------


def test_base_point_multiplies_every_transfer() -> None:
    assert settle({**Y04, "options": {"base_point": 3}})["net"]["W"] == 24
    g = {"rules": "gejiu", "options": {"base_point": 2}, "doudizhu": [["9m", "9m", "2p", "9m"]],
         "wins": [{"seat": "S", "hand": "123m 456p 789s EEE 5m", "tile": "5m",
                   "how": "discard", "from": "W"}]}
    # hand 2+2+1 = 5, 斗地主: W pays 1 to each → all doubled
    assert settle(g)["net"] == {"E": -2, "S": 12, "W": -10, "N": 0}


def test_discarder_pays_double_can_be_switched_off() -> None:
    assert settle({**Y04, "options": {"discarder_pays_double": False}})["net"]["E"] == -4


def test_lighters_double_hand_payments() -> None:
    assert settle({**Y05, "lighters": 1})["net"]["N"] == -4
    assert settle({**Y05, "lighters": 2, "options": {"max_lighters": None}})["net"]["N"] == -8
    refused({**Y05, "lighters": 2}, "lighters")


def test_spectators_mirror_their_players() -> None:
    result = settle({**Y06, "spectators": [{"name": "X", "backs": "E"},
                                           {"name": "Y", "backs": "S"}]})
    assert result["net"] == {"E": 48, "S": -32, "W": -16, "N": -16, "X": 32, "Y": -16}
    assert not any(t["from"] in "XY" and t["to"] in "XY" for t in result["transfers"])


def test_spectator_refusals() -> None:
    sp = [{"name": "X", "backs": "E"}]
    refused({**Y06, "spectators": sp, "allow_spectators": ["E"]}, "allow_spectators")
    refused({**Y06, "spectators": sp, "allow_spectators": ["S", "W"]}, "spectators[0].backs")
    refused({**Y06, "spectators": sp, "options": {"spectator_stakes": False}}, "spectators")


def test_yichun_drawn_hand_voids_kong_points() -> None:
    result = settle({"rules": "yichun", "wins": [], "kongs": {"S": ["agang 1111m"]},
                     "last_drawer": "W"})
    assert result["transfers"] == []
    assert result["next_dealer"] == "W"


def test_yichun_kong_points_of_a_loser_are_paid_when_someone_wins() -> None:
    result = settle({**Y05, "kongs": {"E": ["agang 1111p"], "W": ["mgang 9999m"]}})
    assert result["net"] == {"E": 6 - 1, "S": 2 - 2 - 1, "W": 3 - 2, "N": -2 - 2 - 1}


def test_yichun_refusals() -> None:
    bad = {"rules": "yichun", "wins": [{"seat": "S", "hand": "123m 456m 789p 111s 9s",
                                        "tile": "9s", "how": "heavenly"}]}
    refused(bad, "wins[0].how")
    refused({"rules": "yichun", "wins": [{"seat": "S", "hand": "123m 456m 789p 111s 9s",
                                          "tile": "9s", "how": "discard"}]}, "wins[0].from")
    with pytest.raises(NotAWinError):
        score(parse_situation({"rules": "yichun", "wins": [
            {"seat": "S", "hand": "123m 456m 789p 111s 8s", "tile": "9s"}]}))
    refused({"rules": "yichun", "wins": [{"seat": "S", "hand": "123m 456m 789p 9s", "tile": "9s",
                                          "melds": ["peng 111s"]}],
             "kongs": {"S": ["agang 1111m"]}}, "kongs.S")


# --- Shangrao -------------------------------------------------------------------------------


def test_shangrao_bonuses_on_a_drawn_hand() -> None:
    result = settle({"rules": "shangrao", "dealer": "N", "wins": [],
                     "kongs": {"E": ["mgang 2222m"], "S": ["agang 9999p"]}, "got": {"W": 4}})
    assert result["net"] == {"E": -9, "S": -5, "W": 27, "N": -13}
    assert result["next_dealer"] == "N"


def test_jiebao() -> None:
    ok = {"rules": "shangrao", "wins": [], "got": {"N": 3}, "flown": {"E": 1}, "jiebao": ["N"]}
    assert settle(ok)["net"] == {"E": -10, "S": -10, "W": -10, "N": 30}
    refused({**ok, "got": {"N": 2}}, "jiebao")
    refused({**ok, "flown": {}}, "jiebao")
    refused({**ok, "got": {"N": 4}}, "jiebao")


def test_wild_counts_are_checked() -> None:
    refused({"rules": "shangrao", "got": {"N": 3, "E": 2}}, "got")
    refused({"rules": "shangrao", "got": {"N": 1}, "flown": {"N": 2}}, "flown.N")


def test_shangrao_rob_kong_times_six_with_payer_flying() -> None:
    win = {"seat": "S", "hand": "123m 456m 789p 23s 55s", "tile": "4s", "how": "rob_kong",
           "from": "W"}
    assert settle({"rules": "shangrao", "wild": "9s", "wins": [win]})["net"]["W"] == -6
    flown = {"rules": "shangrao", "wild": "9s", "wins": [win], "flown": {"W": 1, "S": 1},
             "got": {"W": 1, "S": 1}}
    assert settle(flown)["net"] == {"E": 0, "S": 24, "W": -24, "N": 0}


def test_shangrao_several_robbers_and_next_dealer() -> None:
    wins = [
        {"seat": "E", "hand": "123m 456m 789p 23s 55s", "tile": "4s", "how": "rob_kong",
         "from": "S"},
        {"seat": "N", "hand": "111p 456p 789p 23s 99s", "tile": "4s", "how": "rob_kong",
         "from": "S"},
    ]
    result = settle({"rules": "shangrao", "wild": "9m", "wins": wins})
    assert result["net"] == {"E": 6, "S": -12, "W": 0, "N": 6}
    assert result["next_dealer"] == "N"  # first counter-clockwise from the konger S


def test_shangrao_heavenly_flat_or_ordinary() -> None:
    flat = {"rules": "shangrao", "wild": "9s", "wins": [{**S02_HAND, "seat": "E",
                                                         "how": "heavenly"}]}
    assert settle(flat)["net"]["E"] == 30
    big = {"rules": "shangrao", "wild": "5p", "wins": [
        {"seat": "E", "hand": "1111m 9999p 33s 55s E", "tile": "E", "how": "heavenly"}]}
    assert settle(big)["net"]["E"] == 120


def test_shangrao_discard_wins_option() -> None:
    obj = {"rules": "shangrao", "wild": "9s",
           "wins": [{**S02_HAND, "how": "discard", "from": "N"}]}
    refused(obj, "wins[0].how")
    result = settle({**obj, "options": {"discard_wins": True}})
    assert result["net"] == {"E": 0, "S": 3, "W": 0, "N": -3}  # 平糊 1 (no 平糊自摸) × 3


def test_baodiao_shape_is_checked() -> None:
    obj = {"rules": "shangrao", "wild": "5m", "wins": [
        {"seat": "S", "hand": "6m 123p 456p 789s EEE", "tile": "6m", "baodiao": "head"}]}
    refused(obj, "wins[0].baodiao")


def test_head_state_drawing_a_wild_is_not_wild_pairs_wild() -> None:
    obj = {"rules": "shangrao", "wild": "5m", "wins": [
        {"seat": "S", "hand": "5m 123p 456p 789s EEE", "tile": "5m", "baodiao": "head"}]}
    result = settle(obj)
    assert result["wins"][0]["pattern"]["zh"] == "宝吊头"
    assert result["net"]["S"] == 9


# --- Gejiu ----------------------------------------------------------------------------------


def test_doudizhu_chain() -> None:
    result = settle({"rules": "gejiu", "wins": [], "doudizhu": [
        ["9m", "9m", "2p", "9m"], ["5p", "5p", "5p", "5p"], ["1m", "2m", "1m", "3m"],
        ["E", "E", "E", "S"]]})
    assert result["net"] == {"E": -5, "S": 3, "W": -1, "N": 3}
    assert result["next_dealer"] == "S"
    void = settle({"rules": "gejiu", "doudizhu": ["void", ["9m", "9m", "2p", "9m"]]})
    assert void["transfers"] == []


def test_doudizhu_follows_the_dealer() -> None:
    result = settle({"rules": "gejiu", "dealer": "W", "doudizhu": [["9m", "2p", "9m", "9m"]]})
    assert result["net"] == {"E": 1, "S": 1, "W": 1, "N": -3}  # N (下家 of W) did not follow


def test_pond_win() -> None:
    pond = {"rules": "gejiu", "wins": [{"seat": "S", "how": "pond"}],
            "pond": "147m 258p 369s ESWNZ"}
    assert settle(pond)["net"] == {"E": -8, "S": 16, "W": -4, "N": -4}
    refused({**pond, "wins": [{"seat": "S", "how": "pond", "melds": ["peng 111m"]}]},
            "wins[0].melds")
    with pytest.raises(NotAWinError):
        score(parse_situation({**pond, "pond": "147m 258p 369s ESWNN"}))


def test_gejiu_kong_wins() -> None:
    rob = {"rules": "gejiu", "wins": [{"seat": "S", "hand": "123m 456p 789s EEE 5m",
                                       "tile": "5m", "how": "rob_kong", "from": "W"}]}
    assert settle(rob)["net"] == {"E": -16, "S": 40, "W": -16, "N": -8}
    flower = {"rules": "gejiu", "wins": [{"seat": "S", "hand": "123m 456p EEE 5m", "tile": "5m",
                                          "how": "kong_replacement",
                                          "melds": ["agang 9999s"]}]}
    assert settle(flower)["net"] == {"E": -32, "S": 64, "W": -16, "N": -16}


def test_gejiu_refusals() -> None:
    hand = {"seat": "S", "hand": "123m 456p 789s EEE 5m", "tile": "5m"}
    refused({"rules": "gejiu", "wins": [{**hand, "how": "heavenly"}]}, "wins[0].how")
    refused({"rules": "gejiu", "wins": [{**hand, "how": "discard", "from": "W"},
                                        {**hand, "seat": "N", "how": "discard", "from": "W"}]},
            "wins")
    refused({"rules": "gejiu", "wins": [{**hand, "how": "kong_replacement"}]}, "wins[0].how")


# --- input validation ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        ({}, "rules"),
        ({"rules": "riichi"}, "rules"),
        ({"rules": "yichun", "dealer": "X"}, "dealer"),
        ({"rules": "yichun", "colour": 1}, "colour"),
        ({"rules": "yichun", "options": {"speed": 1}}, "options.speed"),
        ({"rules": "yichun", "options": {"base_point": 0}}, "options.base_point"),
        ({"rules": "yichun", "dice": 13}, "dice"),
        ({"rules": "yichun", "wins": [{"hand": "1m"}]}, "wins[0].seat"),
        ({"rules": "yichun", "wins": [{"seat": "S", "hand": "12x", "tile": "1m"}]},
         "wins[0].hand"),
        ({"rules": "yichun", "wins": [{"seat": "S", "hand": "1m", "tile": "1m", "how": "ron"}]},
         "wins[0].how"),
        ({"rules": "yichun", "wins": [{"seat": "S", "hand": "1m", "tile": "1m",
                                       "melds": ["pong 111m"]}]}, "wins[0].melds[0]"),
        ({"rules": "yichun", "wins": [{"seat": "S", "hand": "1m", "tile": "1m"}]},
         "wins[0].hand"),
        ({"rules": "shangrao", "wild": "5m", "indicator": "5m"}, "indicator"),
        ({"rules": "gejiu", "doudizhu": [["9m", "9m"], ["1m", "1m", "1m", "1m"]]},
         "doudizhu[0]"),
    ],
)
def test_malformed_input_names_the_field(obj: dict[str, Any], field: str) -> None:
    with pytest.raises(SituationError) as info:
        score(parse_situation(obj))
    assert info.value.field == field, str(info.value)
