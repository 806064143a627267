"""Helpers for the TUI tests: an app at a scripted table, the table as text, a player that only
draws and discards, and a wait for the table view to reach a state."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.app import App
from textual.pilot import Pilot

from bench.bench_tui import ScriptedClient
from engine.actions import Action, ActionType
from engine.view import View
from tui.apps.app import MahjongApp
from tui.settings import Settings
from tui.view.table import TableView


def table_text(app: MahjongApp) -> str:
    """The table as plain text, row by row (what a terminal shows, without colours)."""
    view = app.screen.query_one(TableView)
    lines = []
    for row in view.rows:
        line, pos = "", 0
        for x, text, _ in row:
            if x > pos:
                line += " " * (x - pos)
                pos = x
            line += text
            pos += cell_len(text)
        lines.append(line.rstrip())
    return "\n".join(lines)


def screen_lines(app: App[Any]) -> list[str]:
    """What the terminal shows, row by row, as plain text. Textual has no public reading of
    it: the screen's compositor, the internal ``tui.compat.internals`` guards (its
    ``table_screen_update``), draws it as a frame would."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def record_notices(monkeypatch: pytest.MonkeyPatch) -> Callable[[App[Any]], list[str]]:
    """Every notice (toast) an app is given from now on (``App.notify``); the function
    returned says an app's, in order."""
    said: list[tuple[App[Any], str]] = []
    notify = App.notify

    def recording(app: App[Any], message: Any, *args: Any, **kwargs: Any) -> None:
        said.append((app, str(message)))
        notify(app, message, *args, **kwargs)

    monkeypatch.setattr(App, "notify", recording)
    return lambda app: [message for to, message in said if to is app]


@asynccontextmanager
async def running(rules: str, seed: int, size: tuple[int, int] = (80, 24)
                  ) -> AsyncIterator[tuple[ScriptedClient, MahjongApp, Pilot[None]]]:
    """An app at a scripted table, its table screen shown."""
    client = ScriptedClient(rules, seed=seed)
    with tempfile.TemporaryDirectory() as tmp:
        app = MahjongApp(client, Settings.load(Path(tmp) / "s.json"), table_ready=True)
        async with app.run_test(size=size) as pilot:
            for _ in range(5):
                await pilot.pause()
            yield client, app, pilot


class DrawDiscard:
    """Discards whatever it draws, passes every claim, never buys."""

    def choose(self, view: View) -> Action:
        legal = view.legal
        for a in legal:
            if a.type in (ActionType.PASS, ActionType.NO_BUY) and not a.lighter:
                return a
        if view.drawn is not None and Action.discard(view.drawn) in legal:
            return Action.discard(view.drawn)
        return next(a for a in legal if a.type is ActionType.DISCARD and not a.ting)


async def wait_for(pilot: Pilot[Any], app: MahjongApp, cond: Callable[[View], bool],
                   what: str) -> View:
    """The app's table view once ``cond`` holds for it, a turn of the app's loop at a time."""
    for _ in range(400):
        await pilot.pause()
        if app.update is not None and cond(app.update.view):
            return app.update.view
    raise AssertionError(f"timed out waiting for {what}")
