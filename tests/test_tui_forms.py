"""``play``'s new-game and settings screens by the keyboard (issue 53, forms and focus): a key
opens the ruleset list and the keys line says so, Enter starts the game from every field but
picks inside an open list, the focused field shows by more than a hue in every theme, and the
settings screen focuses its first control on open and keeps the focus when the language
changes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Button, Input, Label, RadioSet, Select, Static

from engine.rulesets import RULESETS
from host.local import LocalTable
from themes import THEME_NAMES
from tui.apps.app import MahjongApp
from tui.apps.new_table import RULES_ID
from tui.apps.screens import NewGameScreen, SettingsScreen
from tui.settings import Settings


@asynccontextmanager
async def new_game(tmp_path: Path, theme: str = "mahjong-classic",
                   ) -> AsyncIterator[tuple[MahjongApp, Pilot[Any], list[str]]]:
    """``play`` without ``--rules``: its new-game screen, and the rulesets of the games it
    started (none are started: ``start_game`` only notes them)."""
    settings = Settings.load(tmp_path / "settings.json")
    settings.theme = theme
    app = MahjongApp(LocalTable(bot_delay=0, timers=False), settings)
    started: list[str] = []

    def start_game(rules: str, options: Any, seed: int | None) -> str | None:
        started.append(rules)
        return None

    app.start_game = start_game  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen)
        yield app, pilot, started


def fields(screen: NewGameScreen) -> list[Widget]:
    """Every field of the form that takes the focus, in order."""
    return [w for w in screen.query("*") if isinstance(w, Select | Input | Button)]


async def test_a_key_opens_the_ruleset_list_from_any_field(tmp_path: Path) -> None:
    async with new_game(tmp_path) as (app, pilot, started):
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        keys = " ".join(str(w.render()) for w in screen.query(Static) if w.has_class("keys"))
        assert "Ctrl+R" in keys, keys
        rules = screen.query_one(f"#{RULES_ID}", Select)
        first = rules.value
        screen.query_one("#seed", Input).focus()
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert rules.expanded and rules.has_focus_within
        await pilot.press("down", "enter")  # the next ruleset, picked: the list closes
        await pilot.pause()
        assert not rules.expanded
        assert rules.value != first and rules.value in RULESETS
        assert started == []  # Enter in the open list picked; it started nothing


async def test_enter_starts_the_game_from_every_field(tmp_path: Path) -> None:
    async with new_game(tmp_path) as (app, pilot, started):
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        every = fields(screen)
        assert any(isinstance(w, Select) for w in every)
        assert sum(isinstance(w, Input) for w in every) >= 2
        for n, widget in enumerate(every, 1):
            widget.focus()
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert len(started) == n, (widget, started)
            assert not screen.query_one(f"#{RULES_ID}", Select).expanded


async def test_enter_in_the_open_list_picks(tmp_path: Path) -> None:
    async with new_game(tmp_path) as (app, pilot, started):
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        rules = screen.query_one(f"#{RULES_ID}", Select)
        first = rules.value
        rules.focus()
        await pilot.pause()
        await pilot.press("down")  # Textual's own keys open it too
        await pilot.pause()
        assert rules.expanded
        await pilot.press("down", "enter")
        await pilot.pause()
        assert started == [] and not rules.expanded
        await pilot.press("enter")  # the list closed: Enter starts, with the ruleset picked
        await pilot.pause()
        assert started == [str(rules.value)] and rules.value != first


def reversed_label(row: Widget) -> bool:
    label = row.query_one(Label)
    return bool(label.styles.text_style.reverse)


@pytest.mark.parametrize("theme", THEME_NAMES)
async def test_the_focused_field_shows_by_more_than_a_hue(theme: str, tmp_path: Path) -> None:
    """The focused field's row label in reverse video and the field bold and underlined, in
    every theme (the high-contrast one too); the other rows plain."""
    async with new_game(tmp_path, theme) as (app, pilot, _):
        assert app.theme == theme
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        inputs = list(screen.query(Input))
        rules = screen.query_one(f"#{RULES_ID}", Select)
        for field in [*inputs, rules]:
            field.focus()
            await pilot.pause()
            row = field.parent
            assert isinstance(row, Widget)
            assert reversed_label(row), (theme, field)
            others = [w.parent for w in [*inputs, rules] if w is not field]
            assert not any(reversed_label(r) for r in others if isinstance(r, Widget)), field
            if isinstance(field, Input):
                style = field.styles.text_style
                assert style.bold and style.underline, (theme, field, style)


async def settings_screen(app: MahjongApp, pilot: Pilot[Any]) -> SettingsScreen:
    app.show_settings()
    for _ in range(3):
        await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SettingsScreen)
    return screen


async def test_settings_focus_their_first_control_and_keep_it(tmp_path: Path) -> None:
    async with new_game(tmp_path) as (app, pilot, _):
        screen = await settings_screen(app, pilot)
        first = screen.query_one("#lang", RadioSet)
        assert app.focused is first
        title = str(screen.query_one(".page-title", Label).render())
        await pilot.press("right", "enter")  # 中文: the page is made again in Chinese
        for _ in range(3):
            await pilot.pause()
        assert app.settings.lang == "zh"
        assert str(screen.query_one(".page-title", Label).render()) != title
        lang = screen.query_one("#lang", RadioSet)
        assert app.focused is lang, app.focused
        assert lang.pressed_index == 1
        await pilot.press("left", "enter")  # and back: the focus stays on the row
        for _ in range(3):
            await pilot.pause()
        assert app.settings.lang == "en"
        assert app.focused is screen.query_one("#lang", RadioSet), app.focused
        await pilot.press("tab")  # the next row after it, as before the change
        await pilot.pause()
        assert app.focused is screen.query_one("#tiles", RadioSet), app.focused
