"""What a newcomer's tryout met in the forms and the lobby (issue 53, U3): the new-table form's
Tab order and its focus, its labels' order and words, a private table as an uninvited player
reads it, the settings at 80 columns, the too-small notice and ``rename``'s answers."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, RadioSet, Select

from engine.rulesets import RULESETS
from host.local import LocalTable
from net.front.lobby import CreateTableScreen, LobbyApp
from net.front.plain_session import table_line
from net.front.server import MahjongServer
from net.runtime.registry import Registry, TableConfig
from net.store import Account
from testkit.ssh import new_key, run_command
from tests.support.tui import screen_lines, table_text
from tui.apps.app import MahjongApp
from tui.apps.new_table import NewTableForm
from tui.apps.screens import NewGameScreen, SettingsScreen
from tui.settings import Settings
from words import both, tr

FIELDS = (Input, Select, Button, Checkbox, RadioSet)


def lobby_app() -> LobbyApp:
    return LobbyApp(SimpleNamespace(registry=Registry(TableConfig())),  # type: ignore[arg-type]
                    Account(1, "ann"))


def row_label_reversed(field: Widget) -> bool:
    row = field.parent
    assert isinstance(row, Widget)
    return bool(row.query_one(Label).styles.text_style.reverse)


async def test_the_lobby_form_tabs_field_by_field_and_shows_the_focus() -> None:
    """From the name, Tab, Tab, Tab is the second option (hands per game): no stop that shows
    nothing (the options' scroll took one) between the ruleset and the first option; every
    stop is a field, and the focused field's row label is in reverse video."""
    app = lobby_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("ctrl+n")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CreateTableScreen)
        assert app.focused is screen.query_one("#create-name", Input)
        chain = screen.focus_chain
        assert all(isinstance(w, FIELDS) for w in chain), [
            w for w in chain if not isinstance(w, FIELDS)]
        await pilot.press("tab", "tab", "tab")
        await pilot.pause()
        focused = app.focused
        assert focused is not None and focused.id == "opt-hands_per_game", focused
        assert row_label_reversed(focused)
        assert focused.styles.text_style.bold and focused.styles.text_style.underline
        others = [w for w in screen.query(Input) if w is not focused]
        assert not any(row_label_reversed(w) for w in others)
        await pilot.press("shift+tab", "shift+tab")
        await pilot.pause()
        assert app.focused is screen.query_one("#create-rules", Select)
        assert row_label_reversed(screen.query_one("#create-rules", Select))


async def test_play_s_forms_have_no_stop_that_shows_nothing(tmp_path: Path) -> None:
    """``play``'s new game and its settings: the page's scroll is no Tab stop."""
    app = MahjongApp(LocalTable(bot_delay=0, timers=False),
                     Settings.load(tmp_path / "settings.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen)
        stops: list[Any] = list(app.screen.focus_chain)
        app.show_settings()
        for _ in range(3):
            await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        stops += list(app.screen.focus_chain)
    assert stops and all(isinstance(w, FIELDS) for w in stops), [
        w for w in stops if not isinstance(w, FIELDS)]


def _one_order(text: str) -> bool:
    """English first, then Chinese: no Latin letter after the first Chinese character, and no
    Chinese-only note (a Chinese parenthesis) where the English has none."""
    cjk = [i for i, ch in enumerate(text) if "\u4e00" <= ch <= "\u9fff"]
    if not cjk:
        return True
    tail = text[cjk[0]:]
    return not any(ch.isascii() and ch.isalpha() for ch in tail) and (
        "（" not in tail or "(" in text[:cjk[0]])


@pytest.mark.parametrize("rules", list(RULESETS))
async def test_the_lobby_form_s_labels_are_words_in_one_order(rules: str) -> None:
    """Every label of the lobby's new-table form: English, then Chinese (``Computer at E 东
    if empty 空位电脑`` and ``Invite 邀请 (nicknames, keys)`` interleaved them; ``max_lighters
    打火机上限（空=不限，0=禁用）`` had a note in Chinese only), and no option's raw id as its
    label (``base_point 底分``): its words, English and Chinese."""
    app = lobby_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("ctrl+n")
        screen = app.screen
        assert isinstance(screen, CreateTableScreen)
        form = screen.query_one(NewTableForm)
        form.query_one("#create-rules", Select).value = rules
        for _ in range(3):
            await pilot.pause()
        labels = [str(label.render()).split("\n")[0] for label in screen.query(Label)]
    bad = [x for x in labels if not _one_order(x)]
    assert not bad, bad
    keys = [spec.key for spec in RULESETS[rules].options_spec]
    assert not [x for x in labels if any(k in x for k in keys)], labels
    for key in keys:
        assert both(f"opt_{key}") in labels


def test_a_private_table_shows_no_free_seat_to_one_not_invited() -> None:
    """A private table (ann's, bob invited, not here yet) to cy, not invited: no seat is
    free for him (the row said ``2 free``), and the free seats are said to be the invited's;
    to bob, invited, the row says what is free; the plain lobby says it alike."""
    from tests.test_private import ANN, BOB, CY, kept, private_table

    reg = Registry(TableConfig(), kept())
    t = private_table(reg)
    t.join(ANN)
    text = {a.nickname: LobbyApp(SimpleNamespace(registry=reg),  # type: ignore[arg-type]
                                 a).tables_text().plain for a in (ANN, BOB, CY)}
    row = next(line for line in text["cy"].splitlines() if line.lstrip().startswith("fri"))
    assert "free" not in row and "no seat" in row, row
    assert both("lobby_free_invited", n=2) in text["cy"], text["cy"]
    for name in ("ann", "bob"):
        row = next(line for line in text[name].splitlines()
                   if line.lstrip().startswith("fri"))
        assert "2 free" in row, row
        assert "none for you" not in text[name]
    info = t.info()
    assert "no seat for you (2 free for the invited)" in table_line(1, info, "en", CY)
    assert "你无座" in table_line(1, info, "zh", CY)
    assert "2 free seats" in table_line(1, info, "en", BOB)


@pytest.mark.parametrize(("lang", "width"), [("en", 80), ("zh", 80)])
async def test_the_settings_cut_no_words_and_name_their_choices(lang: str, width: int,
                                                                tmp_path: Path) -> None:
    """The settings at 80 columns cut no label (``...you are away (termin…``), and the
    tiles' and themes' choices are words, not ids (``cjk``, ``glyph``, ``mahjong-classic``)."""
    settings = Settings.load(tmp_path / "settings.json")
    settings.lang = lang
    app = MahjongApp(LocalTable(bot_delay=0, timers=False), settings)
    async with app.run_test(size=(width, 40)) as pilot:
        await pilot.pause()
        app.show_settings()
        for _ in range(3):
            await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        text = "\n".join(screen_lines(app))
    assert "…" not in text, text
    ids = ("cjk", "glyph", "mahjong-")
    assert not [x for x in ids if x in text], text
    assert tr(lang, "face_cjk") in text and tr(lang, "theme_mahjong-contrast") in text
    assert tr(lang, "set_notify").split()[-1] in text


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_too_small_notice_breaks_no_parenthesis(lang: str, tmp_path: Path) -> None:
    """Under the too-small notice, why a key did nothing: a parenthesis that fits on a line
    is never broken (``...until the table is shown (?`` / ``help, q q leave)`` at 55
    columns)."""
    from tests.test_tui_frictions import AtMyTurn

    settings = Settings.load(tmp_path / "s.json")
    settings.lang = lang
    app = MahjongApp(AtMyTurn("gejiu", 5), settings, table_ready=True)
    async with app.run_test(size=(55, 20)) as pilot:
        for _ in range(5):
            await pilot.pause()
        screen = app.table_screen
        assert screen is not None and screen.small
        await pilot.press("enter")
        await pilot.pause()
        lines = [ln.strip() for ln in table_text(app).splitlines() if ln.strip()]
    said = tr(lang, "too_small_keys")
    group = said[said.index("(" if lang == "en" else "（"):]
    assert any(group in line for line in lines), lines
    for line in lines:
        assert line.count("(") == line.count(")") and line.count("（") == line.count("）"), line


async def test_rename_says_a_look_alike_mixes_scripts_in_one_spelling(
        server: MahjongServer) -> None:
    """``rename аnn`` (a Cyrillic а) says the name mixes scripts and could pass for another,
    not that it is too long or has a space; every refusal of ``rename`` leads with the one
    spelling ``error 错误:``."""
    ann, zed = new_key(), new_key()
    assert (await run_command(server.port, "ann", "stats", ann)).exit_status == 0
    said: list[str] = []
    for asked, status in (("\u0430nn", 2), ("'a b'", 2), ("a b", 2), ("ann", 1)):
        r = await run_command(server.port, "zed", f"rename {asked}", zed)
        assert r.exit_status == status, (asked, r.stdout)
        said.append(str(r.stdout))
    mixed = said[0]
    assert "mixes the letters of several scripts" in mixed and "混用" in mixed, mixed
    assert "is not a nickname" not in mixed and "16 characters" not in mixed, mixed
    assert "is not a nickname" in said[1], said[1]
    assert all(s.startswith(f"{both('error')}: ") for s in said), said
    assert both("error") == "error 错误"
