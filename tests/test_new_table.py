"""The one new-table form: ``play``'s new game and the lobby's new table offer the same fields
for a ruleset, read them with the same parser and build the same options from the same text."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.widgets import Input, Label, Select, Static

from engine.rulesets import RULESETS, OptionSpec
from host.local import LocalTable
from net.front.lobby import CreateTableScreen, LobbyApp
from net.front.server import Command
from net.runtime.registry import Registry, TableConfig
from net.store import Account
from tui.apps.app import MahjongApp
from tui.apps.new_table import NewTableForm
from tui.apps.screens import NewGameScreen
from tui.settings import Settings


def other_text(spec: OptionSpec) -> str:
    """A text for the option's field that is not its default (the unlimited word where it
    may be unlimited)."""
    if isinstance(spec.default, bool):
        return "off" if spec.default else "on"
    if spec.allow_none:
        return "unlimited"
    if spec.maximum is not None:
        return str(spec.maximum)
    return str((spec.minimum or 0) + 3)


async def fill(pilot: Any, form: NewTableForm, rules: str, texts: dict[str, str]) -> list[str]:
    """Choose ``rules`` in the form and type ``texts``; the option fields' ids."""
    form.query_one("#create-rules", Select).value = rules
    for _ in range(3):
        await pilot.pause()
    assert form.rules == rules
    fields = [w.id or "" for w in form.query(Input) if (w.id or "").startswith("opt-")]
    for key, text in texts.items():
        form.field(key).value = text
    return fields


async def play_form(tmp_path: Path, rules: str, texts: dict[str, str],
                    ) -> tuple[list[str], dict[str, Any] | str]:
    """``play``'s new game with ``texts`` typed: its fields and the options it starts the game
    with (or the message it shows)."""
    app = MahjongApp(LocalTable(bot_delay=0, timers=False),
                     Settings.load(tmp_path / "settings.json"))
    started: list[dict[str, Any]] = []

    def start_game(rules: str, options: Any, seed: int | None) -> str | None:
        started.append(dict(options))
        return None

    app.start_game = start_game  # type: ignore[method-assign]
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        fields = await fill(pilot, screen.query_one(NewTableForm), rules, texts)
        screen.start()
        await pilot.pause()
        shown = str(screen.query_one("#error", Label).render())
    return fields, (started[0] if started else shown)


async def lobby_form(rules: str, texts: dict[str, str]) -> tuple[list[str], dict[str, Any] | str]:
    """The lobby's new table with ``texts`` typed: its fields and the options of the table it
    creates (or the message it shows)."""
    app = LobbyApp(SimpleNamespace(registry=Registry(TableConfig())),  # type: ignore[arg-type]
                   Account(1, "ann"))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("ctrl+n")
        screen = app.screen
        assert isinstance(screen, CreateTableScreen)
        fields = await fill(pilot, screen.query_one(NewTableForm), rules, texts)
        screen.query_one("#create-name", Input).value = "fri"
        await pilot.press("ctrl+s")
        await pilot.pause()
        shown = (str(screen.query_one("#create-msg", Static).render())
                 if app.screen is screen else "")
    command = app.return_value
    if isinstance(command, Command):
        assert command.rules == rules
        return fields, dict(command.options)
    return fields, shown


@pytest.mark.parametrize("rules", list(RULESETS))
async def test_play_and_the_lobby_build_the_same_options(rules: str, tmp_path: Path) -> None:
    """Every option of the ruleset typed away from its default: both forms have its field,
    and both build the same options from the same text (the lobby keeps those that are not
    the defaults; a game alone keeps them all)."""
    specs = RULESETS[rules].options_spec
    texts = {spec.key: other_text(spec) for spec in specs}
    play_fields, played = await play_form(tmp_path, rules, texts)
    lobby_fields, created = await lobby_form(rules, texts)
    assert play_fields == lobby_fields == [f"opt-{spec.key}" for spec in specs]
    assert isinstance(played, dict) and isinstance(created, dict), (played, created)
    assert played == {spec.key: spec.parse_text(texts[spec.key]) for spec in specs}
    assert created == {k: v for k, v in played.items()
                       if v != next(s.default for s in specs if s.key == k)}
    assert len(created) == len(specs)  # every text was away from its default
    assert RULESETS[rules].resolve_options(created) == played


@pytest.mark.parametrize(("key", "text", "said"), [
    ("hands_per_game", "0", "at least 1"), ("hands_per_game", "lots", "whole number"),
    ("discarder_pays_double", "maybe", "on/off")])
async def test_play_and_the_lobby_refuse_a_value_alike(key: str, text: str, said: str,
                                                       tmp_path: Path) -> None:
    _, played = await play_form(tmp_path, "yichun", {key: text})
    _, created = await lobby_form("yichun", {key: text})
    assert isinstance(played, str) and said in played
    assert played == created


def _english_first(text: str) -> bool:
    """No Chinese before the first Latin letter (issue 53, M: ``底分 base_point``)."""
    for ch in text:
        if ch.isascii() and ch.isalpha():
            return True
        if "\u4e00" <= ch <= "\u9fff":
            return False
    return True


@pytest.mark.parametrize("rules", list(RULESETS))
async def test_the_lobby_form_says_english_first_and_no_rule_ids(rules: str) -> None:
    """Every label of the lobby's new-table form reads English first, then Chinese, as the
    rest of the lobby; no option's words show the rules spec's section ids (``[A-Y7]``)."""
    for spec in RULESETS[rules].options_spec:
        words = (spec.en, spec.zh, spec.brief_en, spec.brief_zh)
        assert not any(re.search(r"\[A-[A-Z]?\d+\]", w) for w in words), spec.key
    app = LobbyApp(SimpleNamespace(registry=Registry(TableConfig())),  # type: ignore[arg-type]
                   Account(1, "ann"))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("ctrl+n")
        screen = app.screen
        assert isinstance(screen, CreateTableScreen)
        form = screen.query_one(NewTableForm)
        form.query_one("#create-rules", Select).value = rules
        for _ in range(3):
            await pilot.pause()
        labels = [str(label.render()).split("\n")[0] for label in screen.query(Label)]
        assert labels and all(_english_first(x) for x in labels), labels
        assert "Base point 底分" in labels
        for spec in RULESETS[rules].options_spec:
            form.field(spec.key).focus()
            await pilot.pause()
            about = str(form.query_one("#create-about", Static).render())
            # its meaning first, the key the lobby's line takes after it (not a raw id first)
            assert "[A-" not in about and about.startswith(spec.en), about
            assert about.endswith(f"({spec.key}=…)"), about
