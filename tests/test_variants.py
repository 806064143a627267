"""What the rulesets differ in lives on the ``Ruleset`` subclasses: the option parser every
``key=value`` source uses, the spectator stake limits, the hand shapes and the display names."""

from __future__ import annotations

import pytest

from engine.hands import HandShapes, can_win, shapes_named, waits
from engine.rulesets import (
    DEFAULT_RULES,
    RULESETS,
    Gejiu,
    OptionError,
    OptionSpec,
    Ruleset,
    Shangrao,
    Yichun,
    find_ruleset,
    parse_option_pairs,
    score,
)
from engine.scoring import SituationError
from engine.situation import Situation, Spectator
from engine.tiles import parse_tiles


def spec(cls: type[Ruleset], key: str) -> OptionSpec:
    return next(s for s in cls.options_spec if s.key == key)


# --- one option parser ----------------------------------------------------------------------


def test_one_value_whole_numbers_and_their_range() -> None:
    hands = spec(Yichun, "hands_per_game")
    assert hands.parse_text(" 12 ") == 12
    assert hands.parse_text("+4") == 4
    assert hands.parse_text("") == 8  # empty: the default
    with pytest.raises(OptionError, match="at least 1, got 0"):
        hands.parse_text("0")
    with pytest.raises(OptionError, match="at most 1000, got 1001"):
        hands.parse_text("1001")
    for bad in ("twelve", "1.5", "0x10", "unlimited", "on", "１２"):
        with pytest.raises(OptionError, match="whole number"):
            hands.parse_text(bad)


@pytest.mark.parametrize(("text", "value"), [
    ("on", True), ("YES", True), ("true", True), ("1", True), ("开", True), ("是", True),
    ("off", False), ("No", False), ("false", False), ("0", False), ("关", False), ("否", False),
])
def test_on_off_words_in_english_and_chinese(text: str, value: bool) -> None:
    assert spec(Yichun, "spectator_stakes").parse_text(text) is value
    assert parse_option_pairs([f"spectator_stakes={text}"], Yichun) == {
        "spectator_stakes": value}


def test_on_off_refuses_anything_else() -> None:
    stakes = spec(Yichun, "spectator_stakes")
    for bad in ("2", "maybe", "unlimited", "onn"):
        with pytest.raises(OptionError, match="is on/off"):
            stakes.parse_text(bad)


@pytest.mark.parametrize("word", ["unlimited", "Unlimited", "none", "无限", "不限", ""])
def test_unlimited_words(word: str) -> None:
    assert spec(Yichun, "max_lighters").parse_text(word) is None
    assert parse_option_pairs([f"max_lighters={word}"]) == {"max_lighters": None}
    assert find_ruleset("yichun", parse_option_pairs([f"max_lighters={word}"])).max_lighters() == 4


def test_pairs_without_a_ruleset_are_checked_by_it_later() -> None:
    pairs = ["hands_per_game=4", "discard_wins=on", " turn_seconds = 0 ", "max_lighters=null"]
    options = parse_option_pairs(pairs)
    assert options == {"hands_per_game": 4, "discard_wins": True, "turn_seconds": 0,
                       "max_lighters": None}
    with pytest.raises(OptionError, match="shangrao has no option 'max_lighters'"):
        find_ruleset("shangrao", options)


def test_bad_keys_and_bad_pairs() -> None:
    with pytest.raises(OptionError, match="needs KEY=VALUE"):
        parse_option_pairs(["hands_per_game"])
    with pytest.raises(OptionError, match="needs KEY=VALUE"):
        parse_option_pairs(["=3"])
    with pytest.raises(OptionError, match=r"gejiu has no option 'nope' \(options: base_point"):
        parse_option_pairs(["nope=1"], Gejiu)
    with pytest.raises(OptionError, match="is not a value"):
        parse_option_pairs(["hands_per_game=lots"])


def test_hostile_text_is_refused_with_a_short_message() -> None:
    for raw in ("9" * 5000, "x" * 100_000, "1\x1b[2J", "\x00", "on\n", "3\u202e"):
        for pairs, ruleset in (([f"hands_per_game={raw}"], Yichun), ([f"k={raw}"], None)):
            try:
                parse_option_pairs(pairs, ruleset)
            except OptionError as exc:
                message = str(exc)
                assert len(message) < 200
                assert "\x1b" not in message and "\x00" not in message
                assert "\u202e" not in message
    with pytest.raises(OptionError) as info:
        parse_option_pairs(["x" * 10_000 + "=1"], Yichun)
    assert len(str(info.value)) < 300


# --- stakes, names, shapes ------------------------------------------------------------------


def test_spectator_stakes_are_yichuns_with_its_limits() -> None:
    assert find_ruleset("yichun").spectator_stakes_allowed()
    assert not find_ruleset("yichun", {"spectator_stakes": False}).spectator_stakes_allowed()
    assert not find_ruleset("shangrao").spectator_stakes_allowed()
    assert not find_ruleset("gejiu").spectator_stakes_allowed()
    rules = Yichun.stake_rules
    assert rules is not None and rules.max_stakers == 4
    assert not rules.enabled(1) and rules.enabled(2)
    assert Shangrao.stake_rules is None and Gejiu.stake_rules is None
    # the scorer refuses what the table refuses: a fifth staker
    five = tuple(Spectator(f"p{i}", 0) for i in range(5))
    with pytest.raises(SituationError, match="at most 4 spectators"):
        score(Situation(rules="yichun", dealer=0, spectators=five, allow_spectators=(0, 1)))


def test_display_names_and_the_default_come_from_the_classes() -> None:
    assert DEFAULT_RULES in RULESETS
    assert [(c.zh, c.en) for c in RULESETS.values()] == [
        ("宜春", "Yichun"), ("上饶", "Shangrao"), ("个旧", "Gejiu")]
    assert Yichun.title("zh") == "宜春" and Gejiu.title("en") == "个旧 Gejiu"


def test_the_shapes_not_the_name_decide_the_win() -> None:
    honour_sets = parse_tiles("123m 345s 567p ZFB 99m")
    assert Yichun().can_win(honour_sets, [])
    assert not Gejiu().can_win(honour_sets, [])
    # the same name-less description with honour sets on wins that hand too
    own = HandShapes("", honour_sets=True)
    assert can_win(own, honour_sets, [])
    knitted = parse_tiles("147m 258p 369s ESWNZ")
    assert can_win(Gejiu.shapes, knitted, [])  # 烂牌
    assert not can_win(own, knitted, [])  # no knitted family declared
    assert shapes_named("shangrao") is Shangrao.shapes
    with pytest.raises(ValueError, match="no wild"):
        waits(Gejiu.shapes, parse_tiles("123m 456p 789s EEE 5m"), [], 0)
