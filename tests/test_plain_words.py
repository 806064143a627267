"""Plain mode's words as a newcomer met them at 80 columns (issue 53): lines wrapped at word
boundaries to the terminal's width, never inside a word; 發 and "pung" as the table screen
writes them; a help that says how to discard the west wind when ``w`` means a win."""

from __future__ import annotations

import re

from rich.cells import cell_len

from net.front.server import MahjongServer
from testkit.ssh import PtyClient, new_key
from tests.support.waiting import until
from tui.plain.terminal import TerminalOutput, wrap
from tui.plain.words import tile_name
from words import tr
from words.plain import PLAIN

LONG = ("Ready if you discard: north wind (waits on 3 6 bamboo); 4 dot (waits on white dragon "
        "白); North computer (on your left) discards green dragon 發.")
ASK = ("Your turn: type a tile to discard (e.g. 5s), or its number; w or hu: win 胡; k: kong 杠; "
       "b TILE: discard and declare 报听")
LONG_ZH = ("命令：轮到你时输入牌（如 5s 5p 5m E Z）或编号即打出；w 或 hu 胡（能胡时 w 即胡，"
           "打西风用编号或 d w），k 杠，p 碰，c 吃（多种时 c1 c2 … 或 k1 k2 …），b 牌 报听。")


def written(width: int | None, lines: list[str], prompt: str = "> ") -> list[str]:
    out: list[str] = []
    term = (TerminalOutput(out.append) if width is None
            else TerminalOutput(out.append, width=lambda: width))
    term.say(lines, prompt)
    return "".join(out).split("\r\n")


def test_lines_wrap_at_spaces_to_the_terminals_width_80_when_unknown() -> None:
    for width in (None, 80, 41):
        rows = written(width, [LONG], ASK + " > ")
        assert all(cell_len(row) <= (width or 80) for row in rows), rows
        # every word whole on one row: the rows joined by spaces are the lines again
        assert " ".join(rows) == f"{LONG} {ASK} > ", rows
        assert rows[-1].endswith(" 报听 > "), rows
    assert len(written(None, [LONG])) == 3  # two rows of the line, then the prompt


def test_chinese_may_break_between_characters_but_not_before_its_punctuation() -> None:
    rows = wrap(LONG_ZH, 80)
    assert len(rows) == 2 and "".join(rows) == LONG_ZH
    assert all(cell_len(row) <= 80 for row in rows)
    assert not any(row[0] in "，。；）" or row[-1] == "（" for row in rows), rows
    assert wrap(LONG_ZH, 0) == [LONG_ZH]  # not a terminal: no wrapping


def test_a_word_wider_than_the_terminal_is_the_only_thing_cut() -> None:
    assert wrap("a " + "x" * 30, 12) == ["a", "x" * 12, "x" * 12, "x" * 6]


def test_the_green_dragon_and_the_pung_as_the_table_screen_writes_them() -> None:
    assert tile_name(32, "en") == "green dragon 發" and "發" in tile_name(32, "zh")
    assert tr("en", "opt_peng").startswith("Pung")  # the table screen's word
    english = " ".join(en for en, _ in PLAIN.values())
    assert not re.search(r"\bpong", english, re.IGNORECASE), "pong in plain words"
    assert "发" not in tile_name(32, "zh")


def test_the_help_says_how_to_discard_the_west_wind_when_w_means_win() -> None:
    en, zh = tr("en", "p_help"), tr("zh", "p_help")
    assert "then the west wind by its number" not in en
    assert "w means win: discard the west wind by its number or as d w" in en
    assert "d w" in zh and "p pung" in en


def test_a_claim_question_does_not_say_the_discard_again() -> None:
    for lang in ("en", "zh"):
        question = tr(lang, "p_ask_claim", who="West", tile="white dragon 白", choices="1 pung")
        assert "West" not in question and "白" not in question


async def test_plain_lines_wrap_at_the_clients_width_over_ssh(server: MahjongServer) -> None:
    """Over SSH plain mode wraps at the width the client said (40 here), at spaces, not at
    the terminal's edge inside a word."""
    c = PtyClient(40, 24)
    await c.connect(server.port, "nara", new_key(), command="join pw --plain")
    await until(lambda: b"> " in c.raw, 10.0, "the first question")
    text = bytes(c.raw).decode("utf-8", "replace")
    lines = [line for line in text.replace("\r\n", "\n").split("\n") if line.strip()]
    assert any(cell_len(line) > 30 for line in lines)  # it does say long things
    assert all(cell_len(line) <= 40 for line in lines), lines
    await c.close()
