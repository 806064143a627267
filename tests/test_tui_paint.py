"""Rows written straight to the terminal (``TableView._write_rows``) leave the terminal showing
exactly what a full repaint by Textual's compositor shows, update after update."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pyte
import pytest
from textual.driver import Driver
from textual.drivers.headless_driver import HeadlessDriver

from bench.bench_tui import ScriptedClient
from testkit.terminal import shown_cell
from tui.apps.app import MahjongApp
from tui.settings import Settings
from tui.view.table import TableView


class PyteDriver(HeadlessDriver):
    """Renders like a terminal driver, into a pyte screen."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.Stream(self.screen)

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        self.stream.feed(data)


class PyteApp(MahjongApp):
    pyte: PyteDriver | None = None  # the terminal it draws to, once started

    def _build_driver(
        self, headless: bool, inline: bool, mouse: bool, size: tuple[int, int] | None
    ) -> Driver:
        self.pyte = PyteDriver(self, debug=False, mouse=False, size=size)
        return self.pyte


def cells(screen: pyte.Screen) -> list[list[tuple[object, ...]]]:
    """What the screen shows, cell by cell (a blank's foreground colour and weight do not
    show: ``testkit.terminal.shown_cell``)."""
    return [[shown_cell(screen.buffer[y][x]) for x in range(screen.columns)]
            for y in range(screen.lines)]


def full_repaint(app: MahjongApp) -> pyte.Screen:
    """What the compositor draws for the whole screen, in a fresh terminal."""
    screen = pyte.Screen(80, 24)
    stream = pyte.Stream(screen)
    table = app.screen.query_one(TableView)
    shown = list(table._tv_shown)  # rendered here, not written to the app's terminal
    # the compositor: the internal tui.compat.internals guards (table_screen_update)
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        stream.feed(f"\x1b[{y + 1};1H" + strip.render(app.console))
    table._tv_shown[:] = shown
    return screen


@pytest.mark.parametrize("rules", ["yichun", "gejiu"])
async def test_rows_written_directly_match_a_full_repaint(
    rules: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = ScriptedClient(rules, seed=7)
    written = 0
    as_text = 0
    parts = 0
    original = TableView._write_rows
    row_ansi = TableView._row_ansi
    row_part = TableView._row_part

    def counting(view: TableView, *args: Any) -> bool:
        nonlocal written
        done = original(view, *args)
        written += done
        return done

    def counting_parts(view: TableView, *args: Any) -> tuple[int, str] | None:
        nonlocal parts
        part = row_part(view, *args)
        parts += part is not None
        return part

    def counting_rows(view: TableView, *args: Any) -> str | None:
        nonlocal as_text
        line = row_ansi(view, *args)
        as_text += line is not None
        return line

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load(Path(tmp) / "settings.json")
        app = PyteApp(client, settings, table_ready=True)
        monkeypatch.setattr(TableView, "_write_rows", counting)
        monkeypatch.setattr(TableView, "_row_ansi", counting_rows)
        monkeypatch.setattr(TableView, "_row_part", counting_parts)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            for i in range(80):
                hand = client.game.hand
                assert hand is not None
                app._result_shown = (app._game_no, hand.hand_no + (1 if hand.is_over else 0))
                client.step()
                await pilot.pause()
                if i % 5 == 2:
                    await pilot.press("left")
                    await pilot.pause()
                driver = app.pyte
                assert driver is not None
                shown, want = cells(driver.screen), cells(full_repaint(app))
                diff = [(y, x, a, b) for y, (ra, rb) in enumerate(zip(shown, want, strict=True))
                        for x, (a, b) in enumerate(zip(ra, rb, strict=True)) if a != b]
                assert not diff, f"update {i}: (row, column, shown, repainted) {diff[:4]}"
    assert written > 40  # most updates took the direct path
    assert as_text > 200  # and their rows were written from the spans, not from segments
    assert parts > 150  # most rows only from their first changed cell to their last


async def test_a_table_screen_given_its_update_before_mounting_draws_it() -> None:
    """A remote session at a waiting table opens its table screen with the first update, which
    the screen keeps until mounted; it must draw it then, with no later update (a table waiting
    for a key sends none, and the screen stayed blank)."""
    from tui.apps.table_screen import TableScreen

    client = ScriptedClient("shangrao", seed=5)
    with tempfile.TemporaryDirectory() as tmp:
        app = PyteApp(client, Settings.load(Path(tmp) / "settings.json"))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            hand = client.game.hand
            assert hand is not None
            from engine.view import build_view
            from host.client import TableUpdate

            screen = TableScreen()
            screen.apply_update(TableUpdate(view=build_view(hand, 0), hands_per_game=8))
            await app.push_screen(screen)
            for _ in range(5):
                await pilot.pause()
            rows = screen.table.rows
            assert rows and "Hand 1/8" in "".join(t for _, t, _ in rows[0])
            driver = app.pyte
            assert driver is not None
            assert "Hand 1/8" in driver.screen.display[0]
