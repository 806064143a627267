"""The players' rules pages (``docs/rules/RULES.LANG.md``) agree with the engine.

Every example in a page is a fenced ``score`` block, which this file turns into the calculator's
situation and settles; the block states the pattern and the net the page promises, so a page
cannot say one thing while the engine does another. Both languages carry the same blocks, and
every table option of the ruleset is named, with its default, in both. The in-game help opens
these pages (:mod:`tui.apps.rules_page`).

A block, one fact a line (the pages explain the notation to players):

    dealer E                       the dealer (default E)
    win S 123m 456p 789s ESN 9m [peng 222m] +9m discard W  kongs_in_turn=2 baodiao=touji
                                   a winner: concealed tiles before the win, melds in brackets,
                                   +the winning tile, how (self_draw, discard, rob_kong,
                                   kong_replacement, heavenly, earthly, pond), from whom
    kongs W [agang 1111p]          another seat's completed kongs
    buyers E W | buyers none       Yichun: who bought;   dice 7;  lighters 1
    spectator X S                  Yichun: spectator X backs seat S; allow E S (who allows it)
    wild 5m | indicator 4m         Shangrao: the wild;   flown S 1;  got S 2;  jiebao E
    doudizhu 9m 9m 2p 9m | doudizhu void       Gejiu: one circuit of 斗地主
    pond 1m 4m 7m ...              Gejiu: the 14 discards of a 塘子烂糊 (with ``win S pond``)
    option discard_wins=on         a table option
    pattern 平糊 1 | pattern S 平糊 1          the (named seat's) pattern and hand value
    net S +2 W -2                  every party's net; a seat not named nets 0
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.containers import VerticalScroll

from engine.calculator import score_object
from engine.rulesets import RULESETS
from engine.rulesets.base import OptionSpec
from host.local import LocalTable
from net.front.server import MahjongServer
from testkit.ssh import PtyClient, new_key
from tests.support.tui import screen_lines
from tui.apps.app import MahjongApp
from tui.apps.rules_page import RulesPage, rules_page
from tui.apps.screens import HelpScreen
from tui.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "docs" / "rules"
LANGS = ("en", "zh")
SEATS = "ESWN"
HOWS = {"self_draw", "discard", "rob_kong", "kong_replacement", "heavenly", "earthly", "pond"}
BLOCK = re.compile(r"^```score\n(.*?)^```$", re.M | re.S)
MELD = re.compile(r"\[([a-z]+) ([^\]]+)\]")


def page(rules: str, lang: str) -> str:
    return (PAGES / f"{rules}.{lang}.md").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Example:
    text: str  # the block as written
    situation: dict[str, Any]
    net: dict[str, int]
    patterns: tuple[tuple[str | None, str, int], ...]  # (seat or None, 中文 name, value)


def _word(value: str) -> Any:
    low = value.lower()
    if low in ("on", "true", "yes"):
        return True
    if low in ("off", "false", "no"):
        return False
    if low in ("none", "unlimited"):
        return None
    return int(value) if re.fullmatch(r"-?\d+", value) else value


def parse_win(rest: str) -> dict[str, Any]:
    """``S 123m 9m [peng 222m] +9m discard W key=value…`` → one ``wins`` entry."""
    seat, _, rest = rest.partition(" ")
    assert seat in SEATS, f"a win names its seat first, got {seat!r}"
    win: dict[str, Any] = {"seat": seat}
    melds = [f"{kind} {tiles}" for kind, tiles in MELD.findall(rest)]
    if melds:
        win["melds"] = melds
    words = MELD.sub(" ", rest).split()
    if words and words[0] == "pond":
        win["how"] = "pond"
        return win
    plus = next(i for i, w in enumerate(words) if w.startswith("+"))
    win["hand"] = " ".join(words[:plus])
    win["tile"] = words[plus][1:]
    tail = words[plus + 1:]
    assert tail and tail[0] in HOWS, f"how the hand was won, one of {sorted(HOWS)}: {rest!r}"
    win["how"] = tail[0]
    for w in tail[1:]:
        if "=" in w:
            key, _, value = w.partition("=")
            win[key] = _word(value)
        else:
            assert w in SEATS, f"from whom: a seat letter, got {w!r}"
            win["from"] = w
    return win


def parse_block(rules: str, text: str) -> Example:
    obj: dict[str, Any] = {"rules": rules}
    net: dict[str, int] | None = None
    patterns: list[tuple[str | None, str, int]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        key, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        if key == "dealer":
            obj["dealer"] = rest
        elif key == "win":
            obj.setdefault("wins", []).append(parse_win(rest))
        elif key == "kongs":
            seat, _, melds = rest.partition(" ")
            obj.setdefault("kongs", {})[seat] = [f"{k} {t}" for k, t in MELD.findall(melds)]
        elif key == "buyers":
            obj["buyers"] = [] if rest == "none" else rest.split()
        elif key in ("dice", "lighters"):
            obj[key] = int(rest)
        elif key in ("wild", "indicator", "last_drawer"):
            obj[key] = rest
        elif key in ("flown", "got"):
            seat, count = rest.split()
            obj.setdefault(key, {})[seat] = int(count)
        elif key == "jiebao":
            obj["jiebao"] = rest.split()
        elif key == "spectator":
            name, backs = rest.split()
            obj.setdefault("spectators", []).append({"name": name, "backs": backs})
        elif key == "allow":
            obj["allow_spectators"] = [] if rest == "none" else rest.split()
        elif key == "doudizhu":
            obj.setdefault("doudizhu", []).append("void" if rest == "void" else rest.split())
        elif key == "pond":
            obj["pond"] = rest
        elif key == "option":
            name, _, value = rest.partition("=")
            obj.setdefault("options", {})[name] = _word(value)
        elif key == "pattern":
            words = rest.split()
            seat = words.pop(0) if words[0] in SEATS and len(words) == 3 else None
            patterns.append((seat, words[0], int(words[1])))
        elif key == "net":
            words = rest.split()
            net = {words[i]: int(words[i + 1]) for i in range(0, len(words), 2)}
        else:
            raise AssertionError(f"a score block line this test does not read: {line!r}")
    assert net is not None, f"a score block states its net:\n{text}"
    return Example(text, obj, net, tuple(patterns))


def examples(rules: str, lang: str) -> list[Example]:
    return [parse_block(rules, m.group(1)) for m in BLOCK.finditer(page(rules, lang))]


def _count(rules: str) -> int:
    """How many examples the English page has (none when it is missing: the test below fails)."""
    return len(examples(rules, "en")) if (PAGES / f"{rules}.en.md").is_file() else 0


CASES = [(rules, i) for rules in RULESETS for i in range(_count(rules))]


def test_every_ruleset_has_both_pages_with_examples() -> None:
    for rules in RULESETS:
        for lang in LANGS:
            assert len(examples(rules, lang)) >= 10, f"{rules}.{lang}.md has few examples"


@pytest.mark.parametrize(("rules", "index"), CASES, ids=[f"{r}-{i}" for r, i in CASES])
def test_each_example_settles_as_the_page_says(rules: str, index: int) -> None:
    ex = examples(rules, "en")[index]
    _situation, settlement = score_object(ex.situation)
    got = {SEATS[p] if isinstance(p, int) else p: v for p, v in settlement.parties()}
    expected = {party: ex.net.get(party, 0) for party in got}
    assert set(ex.net) <= set(got), f"the page names a party the settlement has not:\n{ex.text}"
    assert got == expected, f"the page says {ex.net}, the engine {got}:\n{ex.text}"
    for seat, zh, value in ex.patterns:
        wins = [w for w in settlement.wins if seat is None or SEATS[w.seat] == seat]
        assert wins, f"no win by {seat}:\n{ex.text}"
        shown = [(w.pattern_zh, w.value) for w in wins]
        assert (zh, value) in shown, f"the page says {zh} {value}, the engine {shown}:\n{ex.text}"


@pytest.mark.parametrize("rules", list(RULESETS))
def test_both_languages_carry_the_same_examples(rules: str) -> None:
    en = [ex.text for ex in examples(rules, "en")]
    zh = [ex.text for ex in examples(rules, "zh")]
    assert en == zh


def default_words(spec: OptionSpec, lang: str) -> tuple[str, ...]:
    """How a page writes an option's default, in that language."""
    if spec.default is True:
        return ("on",) if lang == "en" else ("开",)
    if spec.default is False:
        return ("off",) if lang == "en" else ("关",)
    if spec.default is None:
        return ("unlimited",) if lang == "en" else ("不限",)
    return (str(spec.default),)


def option_rows(text: str) -> dict[str, str]:
    """The options table: rows ``| `key` | values | default | effect |``."""
    return {m.group(1): m.group(0) for m in re.finditer(r"^\| `([a-z_]+)` \|.*$", text, re.M)}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("rules", list(RULESETS))
def test_every_option_is_named_with_its_default_and_range(rules: str, lang: str) -> None:
    rows = option_rows(page(rules, lang))
    specs = RULESETS[rules].options_spec
    assert set(rows) == {s.key for s in specs}, "the options table lists exactly the options"
    for spec in specs:
        cells = [c.strip() for c in rows[spec.key].strip("|").split("|")]
        assert len(cells) == 4, f"| `key` | values | default | effect |: {rows[spec.key]}"
        _key, values, default, _effect = cells
        assert default in default_words(spec, lang), f"{spec.key}: default {default!r}"
        for bound in (spec.minimum, spec.maximum):
            if bound is not None:
                assert str(bound) in values, f"{spec.key}: the range names {bound}"


# --- the in-game help opens the page -------------------------------------------------------


def screen_text(app: Any) -> str:
    """What the terminal shows, as plain text."""
    return "\n".join(screen_lines(app))


@asynccontextmanager
async def help_open(rules: str, lang: str, tmp_path: Path) -> AsyncIterator[tuple[Any, Any]]:
    """A ``play`` app at a ``rules`` table, 80×24, with ``?`` pressed."""
    settings = Settings.load(tmp_path / "settings.json")
    settings.lang = lang
    app = MahjongApp(LocalTable(bot_delay=0, timers=False), settings, rules=rules, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(100):
            await pilot.pause()
            if app.update is not None and app.table_screen is not None:
                break
        assert app.update is not None and app.update.view.rules == rules
        await pilot.press("question_mark")
        for _ in range(5):
            await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        yield app, pilot


async def test_help_on_a_gejiu_table_opens_its_page_with_the_doudizhu_section(
        tmp_path: Path) -> None:
    async with help_open("gejiu", "en", tmp_path) as (app, pilot):
        scroll = app.screen.query_one("#help-scroll", VerticalScroll)
        page = app.screen.query_one("#rules-page", RulesPage)
        assert app.focused is scroll  # the arrows and PgUp/PgDn scroll at once
        assert "Keys 按键" in screen_text(app)  # the keys first, as before
        section = page.line_of("斗地主: following the dealer")
        assert section is not None
        await pilot.press("r")  # to the page
        await pilot.pause()
        assert scroll.scroll_y > 0 and "个旧 Gejiu mahjong" in screen_text(app)
        top = scroll.scroll_y
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > top
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y and "first_roller" in screen_text(app)
        scroll.scroll_to(y=page.virtual_region.y + section, animate=False)
        await pilot.pause()
        shown = screen_text(app)
        assert "斗地主: following the dealer" in shown and "landlord" in shown
        await pilot.press("k")  # back to the keys
        await pilot.pause()
        assert scroll.scroll_y == 0
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_help_in_chinese_shows_the_chinese_page(tmp_path: Path) -> None:
    async with help_open("gejiu", "zh", tmp_path) as (app, pilot):
        page = app.screen.query_one("#rules-page", RulesPage)
        for heading in ("个旧麻将", "谁付钱", "斗地主", "牌桌选项"):
            assert page.line_of(heading) is not None, heading
        await pilot.press("r")
        await pilot.pause()
        shown = screen_text(app)
        assert "个旧麻将" in shown and "云南红河个旧的打法" in shown
        await pilot.press("question_mark")  # ? closes it again
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


def test_the_page_is_found_for_every_ruleset_and_language() -> None:
    for rules in RULESETS:
        for lang in LANGS:
            assert rules_page(rules, lang) == page(rules, lang)
    assert rules_page("poker", "en") is None


async def test_help_over_ssh_at_80x24_shows_the_page(server: MahjongServer) -> None:
    """A player at a Shangrao table over SSH, in Chinese: ``?`` then ``r`` shows the page in a
    terminal of 80×24, PgDn moves through it, Escape goes back to the table."""
    c = PtyClient(80, 24)
    await c.connect(server.port, "reader", new_key(),
                    command="join docs --rules shangrao --lang zh")
    await c.wait_for("开始")  # the waiting room: S starts the hand
    c.send("s")  # computer players take the empty seats
    await c.wait_for("上饶")
    c.send("?")
    await c.wait_for("按键")
    c.send("r")
    screen = await c.wait_for("上饶麻将")
    assert "江西上饶的打法" in screen and screen.count("\n") == 23
    c.send("\x1b[6~")  # PgDn
    await c.wait_for("怎么读这一页")
    c.send("\x1b")
    await c.wait_for(lambda text: "上饶麻将" not in text and "按键" not in text)
    await c.close()


def table_values(text: str) -> list[list[str]]:
    """The numbers in the last cell of every table row (values, factors, fan, bonuses), in
    order: the header and separator rows have none."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [re.findall(r"\d+", row.strip().strip("|").split("|")[-1]) for row in rows]


@pytest.mark.parametrize("rules", list(RULESETS))
def test_both_languages_state_the_same_values_in_their_tables(rules: str) -> None:
    en, zh = table_values(page(rules, "en")), table_values(page(rules, "zh"))
    assert sum(map(len, en)) >= 10
    assert en == zh
