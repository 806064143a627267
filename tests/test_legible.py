"""Text stays readable in the terminal's colours (``tui/view/legible.py``): a colour pair that
becomes one colour in 16 (or that the theme made too close) gets black or white text."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.color import Color, ColorSystem
from rich.style import Style

from tests.support.tui import running
from themes import CONTRAST
from tui.view.legible import BLACK, WHITE, contrast, legible
from tui.view.table import TableView

V = CONTRAST.variables
SYSTEMS = {"standard": ColorSystem.STANDARD, "256": ColorSystem.EIGHT_BIT,
           "truecolor": ColorSystem.TRUECOLOR}


@pytest.mark.parametrize(("fg", "bg", "system"), [
    (V["tile-sou"], V["tile-wild"], "standard"),  # green 條 on the sky-blue 宝: cyan on cyan
    (V["tile-sou"], V["tile-wild"], "truecolor"),  # too close even in 24-bit (1.5 : 1)
    (V["tile-dragon"], V["tile-face"], "standard"),  # purple 中 on white: white on white
    ("#00cdcd", "#00ffff", "standard"),  # cyan on bright cyan
    (V["tile-pin"], V["tile-face"], "standard"),  # blue 筒 on white: cyan on white in xterm
    (V["tile-man"], V["tile-face"], "standard"),  # vermillion 萬: yellow on white in xterm
])
def test_unreadable_pairs_get_black_or_white_text(fg: str, bg: str, system: str) -> None:
    style = legible(Style(color=fg, bgcolor=bg, bold=True), system)
    assert style.color in (BLACK, WHITE)
    # bold black is grey in most 16-colour terminals: black text loses its bold there
    assert style.bold is (style.color is WHITE or system != "standard")
    assert style.bgcolor == Color.parse(bg)  # the background (the mark of a state) is kept
    assert style.color is not None
    shown = style.color.downgrade(SYSTEMS[system]).get_truecolor()
    assert contrast(shown, Color.parse(bg).get_truecolor()) >= 2.0


@pytest.mark.parametrize(("fg", "bg"), [  # readable in every palette
    ("#b3141b", "#f4efdc"), ("#1746a2", "#f4efdc"), ("#7a1fa0", "#f4efdc"),  # classic tiles
    ("#ffffff", "#000000"), ("#000000", "#F0E442"),
])
@pytest.mark.parametrize("system", ["standard", "256", "truecolor"])
def test_readable_pairs_are_kept(fg: str, bg: str, system: str) -> None:
    style = Style(color=fg, bgcolor=bg)
    assert legible(style, system) is style


def test_no_colours_or_no_background_kept() -> None:
    style = Style(color="#CC79A7", bgcolor="#ffffff")
    assert legible(style, None) is style
    plain = Style(color="#CC79A7")
    assert legible(plain, "standard") is plain


async def test_the_table_s_styles_in_16_colours(tmp_path: Path) -> None:
    async with running("shangrao", 9) as (_client, app, pilot):
        app.theme = "mahjong-contrast"
        # as for PuTTY's TERM=xterm (Console._color_system: tui.compat.internals guards it)
        app.console._color_system = ColorSystem.STANDARD
        await pilot.pause()
        view = app.screen.query_one(TableView)
        view.notify_style_update()  # the colours changed
        assert view.span_style("tile-sou+wild").color in (BLACK, WHITE)
        assert view.span_style("tile-dragon").color in (BLACK, WHITE)
        assert view.span_style("tile-wind").color == Color.parse(V["tile-wind"])  # black: kept
        app.console._color_system = ColorSystem.EIGHT_BIT  # xterm-256color: the theme's own
        view.notify_style_update()  # the colours changed
        assert view.span_style("tile-pin").color == Color.parse(V["tile-pin"])
        assert view.span_style("tile-sou+wild").color in (BLACK, WHITE)  # 1.5 : 1 in any colours
