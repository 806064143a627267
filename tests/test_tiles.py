"""Tile notation: round trips, Tenhou and Chinese honours, precise errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.melds import Meld, MeldType
from engine.tiles import (
    EAST,
    GREEN,
    RED,
    WHITE,
    TileParseError,
    face_zh,
    format_tiles,
    kind_to_str,
    next_kind,
    parse_tile,
    parse_tiles,
)
from testkit.tile_names import name_en, name_zh, tenhou_str


def test_parse_basic_notation() -> None:
    assert parse_tiles("123m 55p EEE") == [0, 1, 2, 13, 13, EAST, EAST, EAST]
    assert parse_tiles("9s") == [26]
    assert parse_tiles("ZFB") == [RED, GREEN, WHITE]


def test_tenhou_honours() -> None:
    assert parse_tiles("1234567z") == [27, 28, 29, 30, WHITE, GREEN, RED]
    assert tenhou_str(RED) == "7z" and tenhou_str(WHITE) == "5z"


def test_chinese_honours() -> None:
    assert parse_tiles("东南西北中發白") == parse_tiles("ESWNZFB")
    assert parse_tiles("发") == [GREEN]


def test_format_groups_and_sorts() -> None:
    assert format_tiles(parse_tiles("E 5p 1m 3m Z 2m")) == "123m 5p EZ"
    assert format_tiles(parse_tiles("9s 1s"), sort=False) == "91s"


@given(st.lists(st.integers(min_value=0, max_value=33), max_size=20))
def test_round_trip(kinds: list[int]) -> None:
    assert parse_tiles(format_tiles(kinds)) == sorted(kinds)
    assert parse_tiles(format_tiles(kinds, sort=False)) == kinds


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("123", 0, "no suit letter"),
        ("12x3m", 2, "unknown character 'x'"),
        ("0m", 0, "ranks are 1-9"),
        ("8z", 0, "1z-7z"),
        ("m", 0, "no digits before it"),
        ("12 E", 0, "no suit letter"),
        ("e", 0, "upper case"),
    ],
)
def test_parse_errors_are_precise(text: str, position: int, fragment: str) -> None:
    with pytest.raises(TileParseError) as err:
        parse_tiles(text)
    assert err.value.position == position
    assert fragment in str(err.value)


def test_parse_tile_wants_one() -> None:
    assert parse_tile("Z") == RED
    with pytest.raises(TileParseError, match="exactly one tile"):
        parse_tile("12m")


def test_names() -> None:
    assert name_zh(4) == "五万" and name_en(4) == "5 Characters"
    assert name_zh(RED) == "中" and name_en(WHITE) == "White Dragon"
    assert face_zh(4) == ("五", "萬") and face_zh(EAST) == ("东", "")
    assert kind_to_str(31) == "Z"


def test_wild_successor_table() -> None:
    """shangrao.md §2: indicator -> wild."""
    table = {"1m": "2m", "5p": "6p", "9s": "1s", "9m": "1m", "E": "S", "S": "W", "W": "N",
             "N": "E", "Z": "F", "F": "B", "B": "Z"}
    for ind, wild in table.items():
        assert kind_to_str(next_kind(parse_tile(ind))) == wild


def test_meld_notation() -> None:
    m = Meld.parse("[peng 777p]")
    assert m.type is MeldType.PENG and m.notation() == "[peng 777p]"
    assert Meld.parse("agang EEEE").is_kong
    with pytest.raises(TileParseError, match="unknown meld type"):
        Meld.parse("pong 777p")
    with pytest.raises(TileParseError, match="three identical"):
        Meld.parse("peng 778p")
