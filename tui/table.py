"""The table widget: one Line-API widget that caches a strip per row and redraws changed rows.

:func:`tui.layout.build_rows` gives the rows as span tuples; a row equal to the previous
frame's keeps its cached :class:`~textual.strip.Strip` and is not refreshed, so a discard
repaints only the few rows it touches. Styles come from the widget's component classes, which
the theme's ``.tcss`` colours: no colour is written here.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from tui.client import TableUpdate
from tui.layout import Row, UiState, build_rows

STYLE_PARTS = (
    "text", "status", "status-dim", "status-em", "timer", "timer-low", "timer-empty",
    "label", "label-turn", "turn-mark", "score", "dim", "flag", "flag-em", "info",
    "tile-man", "tile-pin", "tile-sou", "tile-wind", "tile-dragon", "tile-back",
    "sel", "claimed", "claimed-pond", "last", "ting", "wild", "src",
    "index", "index-sel", "prompt-title", "choice", "choice-sel", "choice-win",
    "keyhint", "keyhint-win", "hint", "error", "log", "notice",
)


class TableView(Widget):
    """The whole table screen as rows of cached strips."""

    COMPONENT_CLASSES = {f"tv--{p}" for p in STYLE_PARTS}  # noqa: RUF012

    DEFAULT_CSS = """
    TableView { width: 1fr; height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.update_data: TableUpdate | None = None
        self.ui = UiState()
        self._tv_rows: list[Row] = []
        self._tv_strips: list[Strip | None] = []
        self._tv_size = (0, 0)
        self._tv_styles: dict[str, Style] = {}
        self.rows_refreshed = 0  # rows repainted by the last redraw (for tests and the bench)

    # --- data in --------------------------------------------------------------------------
    def show(self, update: TableUpdate | None, ui: UiState) -> None:
        self.update_data = update
        self.ui = ui
        self.redraw()

    def redraw(self) -> None:
        """Rebuild the rows and repaint the ones that changed."""
        width, height = self.size.width, self.size.height
        if width <= 0 or height <= 0 or self.update_data is None:
            return
        rows = build_rows(self.update_data, self.ui, width, height)
        if (width, height) != self._tv_size or len(rows) != len(self._tv_rows):
            self._tv_size = (width, height)
            self._tv_rows = rows
            self._tv_strips = [None] * len(rows)
            self.rows_refreshed = len(rows)
            self.refresh()
            return
        changed = 0
        for y, row in enumerate(rows):
            if row != self._tv_rows[y]:
                self._tv_rows[y] = row
                self._tv_strips[y] = None
                self.refresh(Region(0, y, width, 1))
                changed += 1
        self.rows_refreshed = changed

    def on_resize(self) -> None:
        self.redraw()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._tv_styles.clear()
        self._tv_strips = [None] * len(self._tv_rows)
        self.refresh()

    # --- drawing --------------------------------------------------------------------------
    def _style(self, key: str) -> Style:
        style = self._tv_styles.get(key)
        if style is None:
            parts = key.split("+")
            style = Style.combine(
                self.get_component_rich_style(f"tv--{p}", partial=True) for p in parts
            ) if len(parts) > 1 else self.get_component_rich_style(f"tv--{key}")
            if len(parts) > 1:
                style = self.get_component_rich_style("tv--text") + style
            self._tv_styles[key] = style
        return style

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y >= len(self._tv_rows):
            return Strip([Segment(" " * width, self._style("text"))], width)
        strip = self._tv_strips[y]
        if strip is None:
            strip = self._build_strip(self._tv_rows[y], width)
            self._tv_strips[y] = strip
        return strip

    def _build_strip(self, row: Row, width: int) -> Strip:
        base = self._style("text")
        segments: list[Segment] = []
        pos = 0
        for x, text, key in row:
            if x >= width:
                break
            if x > pos:
                segments.append(Segment(" " * (x - pos), base))
                pos = x
            elif x < pos:  # overlap: drop the covered beginning
                cut = pos - x
                if cut >= cell_len(text):
                    continue
                text = set_cell_size(text[::-1], cell_len(text) - cut)[::-1]
            tw = cell_len(text)
            if pos + tw > width:
                text = set_cell_size(text, width - pos)
                tw = width - pos
            segments.append(Segment(text, self._style(key)))
            pos += tw
        if pos < width:
            segments.append(Segment(" " * (width - pos), base))
        return Strip(segments, width)
