"""The players' rules page of a ruleset (``docs/rules/RULES.LANG.md``), for the help screen.

The pages are written for people: the tiles, winning, every pattern with a checked example, who
pays whom, the ruleset's own moments and its table options. An installed package carries them
as ``tui/rulepages/`` (package data, see ``pyproject.toml``); a source checkout has them in
``docs/rules/``.

:class:`RulesPage` draws a page with the Line API from lines rendered once per page and width
and shared by every session of the process (Rich's Markdown, colours removed so the theme's
apply): Textual's ``Markdown`` widget builds a widget per block, too slow to open on the one
event loop that serves every table.
"""

from __future__ import annotations

import io
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.markdown import Markdown
from rich.segment import Segment
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from engine.rulesets import RULESETS

SOURCE_PAGES = Path(__file__).resolve().parents[2] / "docs" / "rules"
LANGS = ("en", "zh")

# the help screen's first line: how to move between the keys and the page
NAV = {
    "en": "r: the rules · k: the keys · ↑↓ PgUp PgDn Home End: scroll · Esc or ?: close",
    "zh": "r 本桌规则 · k 按键 · ↑↓ PgUp PgDn Home End 翻看 · Esc 或 ? 关闭",
}
MISSING = {
    "en": "The rules page of {rules} is not installed.",
    "zh": "没有找到 {rules} 的规则说明。",
}


def _read(name: str) -> str | None:
    packaged = resources.files("tui").joinpath("rulepages", name)
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    source = SOURCE_PAGES / name
    if source.is_file():
        return source.read_text(encoding="utf-8")
    return None


@cache
def rules_page(rules: str, lang: str) -> str | None:
    """The Markdown page of ``rules`` in ``lang`` (English when that language has none), or
    None when neither is found (a broken install: the help still shows the keys)."""
    if rules not in RULESETS:  # the name becomes a file name: only the known ones
        return None
    for code in (lang, "en") if lang in LANGS else ("en",):
        text = _read(f"{rules}.{code}.md")
        if text is not None:
            return text
    return None


@lru_cache(maxsize=48)
def page_lines(text: str, width: int) -> tuple[Strip, ...]:
    """``text`` (Markdown) as lines of ``width`` cells, without colours."""
    console = Console(width=width, file=io.StringIO(), color_system="truecolor",
                      legacy_windows=False, emoji=False, highlight=False)
    lines = console.render_lines(Markdown(text, code_theme="ansi_dark"),
                                 console.options.update_width(width), pad=True)
    return tuple(Strip(list(Segment.remove_color(line)), width) for line in lines)


class RulesPage(Widget):
    """A rules page, as tall as its text at the widget's width (inside a scroll)."""

    DEFAULT_CSS = "RulesPage { height: auto; }"

    def __init__(self, text: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = text

    def lines(self, width: int | None = None) -> tuple[Strip, ...]:
        return page_lines(self.text, max(20, width or self.content_region.width or 80))

    def line_of(self, heading: str) -> int | None:
        """The first line that shows ``heading`` (a section's title), for jumping to it."""
        return next((y for y, line in enumerate(self.lines()) if line.text.strip() == heading),
                    None)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render_line(self, y: int) -> Strip:
        lines = self.lines()
        if y >= len(lines):
            return Strip.blank(self.content_region.width, self.rich_style)
        return lines[y].apply_style(self.rich_style)
