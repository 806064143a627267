"""The one catalogue of words (``words``): every key in both languages with the same fields,
the tables' keys apart, and ``both`` as it is shown before a session's language is known."""

from __future__ import annotations

import re
import string

import pytest

from words import TEXT, both, tr
from words.find import FIND
from words.plain import PLAIN
from words.refusals import REFUSALS
from words.screen import SCREEN
from words.server import SERVER
from words.tournament import TOURNAMENT

# fields the Chinese leaves out on purpose: the pattern's English name, the detail of a refused
# table's options and of an unreadable saved game (the operator's, in the log)
ZH_LEAVES_OUT = {"p_res_item": {"en"}, "table_exists": {"what"}, "quarantined": {"reason"}}
# the server's glosses (words/server.py): the Chinese names in short what the English says in
# detail, leaving out the value typed, the limit, the table or the game it names
GLOSSES = {"form_exists", "bot_note", "no_table", "no_table_named", "table_full",
           "unknown_command", "usage", "bot_usage", "bad_watchers", "bad_ambiwidth", "bad_lang",
           "bad_game_id", "bad_command_line", "no_arguments", "bad_levels", "invites_long",
           "not_fingerprint", "not_nickname", "ask_passphrase", "repeat_passphrase",
           "unsaved_passphrase", "left_table", "not_your_game", "bot_no_seat", "game_unreadable",
           "no_game_id"}


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_the_tables_keys_never_meet() -> None:
    tables = (SCREEN, PLAIN, REFUSALS, SERVER, FIND, TOURNAMENT)
    assert len(TEXT) == sum(map(len, tables))
    assert all(key.startswith("p_") for key in PLAIN)


@pytest.mark.parametrize("key", sorted(TEXT))
def test_each_key_has_both_languages_with_the_same_fields(key: str) -> None:
    en, zh = TEXT[key]
    assert en and zh
    if key in GLOSSES:
        assert fields(zh) < fields(en)
    else:
        assert fields(en) - ZH_LEAVES_OUT.get(key, set()) == fields(zh)


def test_both_gives_english_then_chinese_once_where_they_are_the_same() -> None:
    assert both("how_pond") == "with the 14 discards 塘子烂糊 塘子烂糊"
    assert both("flag_buy") == "买"
    assert both("stake_full", n=3) == "at most 3 spectators stake 最多3人压鸽子"
    assert tr("zh", "stake_full", n=3) == "最多3人压鸽子"
    assert both("ask_passphrase", name="wes", guest="wes~") == (
        "Passphrase for wes (Enter: play as guest wes~) 口令（回车：游客 wes~）")
    assert both("dumb_terminal", sep="\n", term="vt52").count("\n") == 1
    assert tr("en", "rp_list_row", id="x", date="d", rules="r", table="t", seat="E", score=4,
              n=8) == "x  d  r  t  seat E  +4  (8 hands)"


def test_a_count_of_one_takes_the_singular_where_there_is_one() -> None:
    assert tr("en", "find_players", n=1) == "1 player"
    assert tr("en", "find_players", n=2) == "2 players"
    assert tr("en", "find_players", n=0) == "0 players"
    assert tr("zh", "find_players", n=1) == tr("zh", "find_players_1", n=1) == "1 位玩家"
    for key in TEXT:  # a singular belongs to a key with a count
        if key.endswith("_1") and key[:-2] in TEXT:
            assert "n" in fields(TEXT[key][0]) and "n" in fields(TEXT[key[:-2]][0]), key


# counts shown with a plural noun that are never 1: limits of at least 2 and fixed warnings
NEVER_ONE = {"p_too_long", "p_timer_low", "stake_full", "invites_long", "not_nickname",
             "login_short", "chart_per_mark"}


def test_every_count_with_a_plural_has_its_singular() -> None:
    """Issue 53, K: ``(1 hands)`` in the replay list. Every English text that puts a plural
    noun after its count ``{n}`` has a ``_1`` form (and a count shown so is called ``n``)."""
    missing = [key for key, (en, _) in TEXT.items()
               if not key.endswith("_1") and key not in NEVER_ONE
               and re.search(r"\{n\} [a-z]+[^s]s\b", en) and f"{key}_1" not in TEXT]
    assert missing == []
    assert tr("en", "rp_list_row", id="x", date="d", rules="r", table="t", seat="E", score=4,
              n=1) == "x  d  r  t  seat E  +4  (1 hand)"
    assert tr("en", "p_log_head", n=1) == "The last 1 move:"
    assert tr("en", "tiles_left", n=1) == "1 tile"
    assert tr("en", "p_wall", n=1) == "1 tile left in the wall."
