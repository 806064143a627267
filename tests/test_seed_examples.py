"""The seeds' own worked examples, by name (``rules/vectors.md`` §0)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.calculator import parse_situation
from engine.hands import lanpai_family
from engine.rulesets import score
from engine.situation import Settlement
from engine.tiles import parse_tiles


def _settle(obj: dict[str, Any]) -> Settlement:
    return score(parse_situation(obj))


def _hand_total(s: Settlement, seat: int) -> int:
    """What ``seat`` received for the hand itself (kong points / bonuses left out)."""
    return sum(
        t.amount for t in s.transfers
        if t.payee == seat and not t.why.startswith(("杠分", "奖励分"))
    )


def test_yichun_36_big_seven_single_wait_kong_replacement() -> None:
    # 大七(3)×单钓(2)×杠开(2)×基本分(1)×游戏者(3) = 36, buys ignored as the seed does
    s = _settle({
        "rules": "yichun", "buyers": [],
        "wins": [{"seat": "S", "hand": "9p", "tile": "9p", "how": "kong_replacement",
                  "melds": ["peng 222m", "peng 555p", "peng EEE", "bgang 8888s"]}],
    })
    assert s.wins[0].pattern_zh == "大七对"
    assert s.wins[0].value == 12
    assert _hand_total(s, 1) == 36


def test_yichun_6_concealed_kong_replacement() -> None:
    # 暗杠门清: 2(杠开) × 2(门清) + 2(暗杠) = 6 per payer
    s = _settle({
        "rules": "yichun", "buyers": [],
        "wins": [{"seat": "N", "hand": "123m 456p 789s 5m", "tile": "5m",
                  "how": "kong_replacement", "melds": ["agang EEEE"]}],
    })
    for payer in (0, 1, 2):
        assert s.seats[payer] == -6
    assert {i.zh for i in s.wins[0].items} >= {"门清", "杠开"}


def test_shangrao_30774_maximum_hand() -> None:
    s = _settle({
        "rules": "shangrao", "wild": "5s", "flown": {"S": 4}, "got": {"S": 4},
        "wins": [{"seat": "S", "hand": "B", "tile": "B", "how": "kong_replacement",
                  "kongs_in_turn": 4,
                  "melds": ["agang 1111m", "agang 9999p", "agang EEEE", "agang ZZZZ"]}],
    })
    assert s.wins[0].value == 10240
    assert all(s.seats[p] == -10258 for p in (0, 2, 3))
    assert s.seats[1] == 30774


@pytest.mark.parametrize(
    ("line", "hand", "tile", "fan"),
    [
        ("混一色大对子", "111m 555m 999m EEE Z", "Z", 2),
        ("混一色一条龙", "123m 456m 789m EEE Z", "Z", 2),
        ("混一色小七对", "11m 33m 55m 77m 99m EE Z", "Z", 3),
        ("青一色大对子", "111p 333p 555p 777p 9p", "9p", 3),
        ("青一色一条龙", "123s 456s 789s 234s 5s", "5s", 3),
        ("青一色小七对", "11p 22p 33p 55p 77p 88p 9p", "9p", 4),
        ("字一色大对子", "EEE SSS NNN FFF B", "B", 4),
        ("字一色小七对", "EE SS WW NN ZZ FF B", "B", 5),
        ("七星一般高", "47m 147p 14s ESWNZF", "B", 3),
    ],
)
def test_gejiu_combination_lines(line: str, hand: str, tile: str, fan: int) -> None:
    # a non-dealer's discard win: the payer who is neither dealer nor discarder pays 2^H
    s = _settle({
        "rules": "gejiu", "dealer": "E",
        "wins": [{"seat": "W", "hand": hand, "tile": tile, "how": "discard", "from": "S"}],
    })
    assert s.wins[0].value == fan
    assert s.wins[0].pattern_zh == line
    assert s.seats[3] == -(2**fan)


@pytest.mark.parametrize(
    ("tiles", "family"),
    [
        ("147m 258p 369s ESWNZ", "烂牌"),
        ("17m 147p 258s ESWNZF", "烂牌"),
        ("147m 147p 147s ESWNZ", "一般高"),
        ("28m 258p 258s ESWNZF", "一般高"),
        ("47m 147p 14s ESWNZFB", "七星一般高"),
        ("2m 258p 258s ESWNZFB", "七星一般高"),
    ],
)
def test_gejiu_lanpai_examples(tiles: str, family: str) -> None:
    assert lanpai_family(parse_tiles(tiles)) == family


def test_gejiu_lanpai_rejects_mixed_classes_and_pairs() -> None:
    assert lanpai_family(parse_tiles("158m 258p 369s ESWNZ")) is None  # 1 and 5: two classes
    assert lanpai_family(parse_tiles("147m 258p 369s ESWNN")) is None  # pair of N
