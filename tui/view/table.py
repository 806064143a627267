"""The table widget: one Line-API widget that caches a strip per row and redraws changed rows.

:class:`tui.view.layout.TableRows` gives the rows as span tuples, redrawing only the regions whose
data changed; a row equal to the previous frame's keeps its cached
:class:`~textual.strip.Strip` and is not repainted, so a discard repaints only the few rows it
touches. Changed rows are painted at once (:meth:`TableView._paint`): written straight to the
driver when the table is alone on its screen (only the changed cells, each colour code as the
change from the one before: issue 57's bytes), else through the screen's compositor update, else
(another screen on top, a layout pending) by ``refresh``. Styles come from the widget's
component classes, which the theme's ``.tcss`` colours (no colour is written here); the app's
line filters are applied to each style once, and :meth:`TableView.render_lines` hands the
cached strips to the compositor without Textual's per-line styling pass (this widget has no
border, padding or tint).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size
from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.color import Color
from textual.content import Content
from textual.filter import LineFilter
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from host.client import TableUpdate
from tui.compat import internals
from tui.compat.sgr import BLANK_CHANGES, CHANGES, blank_change, change
from tui.view.canvas import Row, Span
from tui.view.layout import MAX_HEIGHT, MAX_WIDTH, TableRows
from tui.view.legible import legible
from tui.view.row_diff import SKIP, changed_stretches
from tui.view.ui_state import UiState

STYLE_PARTS = (
    "text", "status", "status-dim", "status-em", "timer", "timer-low", "timer-empty",
    "label", "label-turn", "turn-mark", "score", "dim", "flag", "flag-em", "info",
    "tile-man", "tile-pin", "tile-sou", "tile-wind", "tile-dragon", "tile-back",
    "sel", "claimed", "claimed-pond", "last", "ting", "wild", "src",
    "index", "index-sel", "prompt-title", "choice", "choice-sel", "choice-win",
    "keyhint", "keyhint-win", "hint", "error", "log", "notice", "page-keys",
)
MARK = "▐"  # the page's one-column scroll indicator


def _switch(sgr: str, code: str, blanks_only: bool) -> tuple[str, str]:
    """The change from SGR parameters ``sgr`` to ``code`` and the parameters it leaves: ahead
    of blanks only (``tui.compat.sgr.blank_change``) it sets only what a blank shows."""
    if blanks_only:
        return BLANK_CHANGES.get((sgr, code)) or blank_change(sgr, code)
    return CHANGES.get((sgr, code)) or change(sgr, code), code


_BLANK_RUN = re.compile(f"( {{{SKIP},}})")


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
        self._tv_builder = TableRows()
        self._tv_rows: list[Row] = []
        self._tv_strips: list[Strip | None] = []
        # per row, the spans this widget last wrote to the terminal itself, or None when the
        # compositor drew it since (or will): only a row known to be on screen is updated
        # cell range by cell range
        self._tv_shown: list[Row | None] = []
        self._tv_size = (0, 0)
        self._tv_styles: dict[str, Style] = {}
        # (text, style key) -> (segment, cells): a tile or word is styled and measured once
        self._tv_segments: dict[tuple[str, str], tuple[Segment, int]] = {}
        # style key -> its SGR parameters for the driver's colour system (direct writes)
        self._tv_codes: dict[str, str] = {}
        self._tv_codes_system: ColorSystem | None = None
        # the SGR parameters the terminal is in while a frame is written (tui.compat.sgr):
        # each run is written as the change from the one before, "" the reset state
        self._tv_sgr = ""
        self._tv_filters: tuple[tuple[LineFilter, ...], Color] | None = None
        self.rows_refreshed = 0  # rows repainted by the last redraw (for tests and the bench)
        # a page of lines shown over the table (a hand's result), its strips and scroll
        self._tv_page: list[Content] | None = None
        self._tv_page_keys = ""
        self._tv_page_strips: list[Strip | None] = []
        self._tv_page_top = 0

    @property
    def rows(self) -> tuple[Row, ...]:
        """The rows as last built, top to bottom: what the table shows (a page over it aside)."""
        return tuple(self._tv_rows)

    @property
    def message_rows(self) -> tuple[int, int] | None:
        """The first and last row of the table's message in the centre as last built, in the
        table's own rows (:attr:`~tui.view.layout.TableRows.message_rows`)."""
        return self._tv_builder.message_rows

    # --- data in --------------------------------------------------------------------------
    def show(self, update: TableUpdate | None, ui: UiState) -> None:
        self.update_data = update
        self.ui = ui
        self.redraw()

    def redraw(self) -> None:
        """Rebuild the rows and repaint the ones that changed."""
        width, height = self.size
        if width <= 0 or height <= 0 or self.update_data is None:
            return
        if self._tv_page is not None:  # the page covers the table: drawn when it closes
            return
        rows = self._tv_builder.build(self.update_data, self.ui, width, height)
        if (width, height) != self._tv_size or len(rows) != len(self._tv_rows):
            self._tv_size = (width, height)
            self._tv_rows = rows
            self._tv_strips = [None] * len(rows)
            self.rows_refreshed = len(rows)
            self.refresh()
            return
        changed: list[Region] = []
        ys: list[int] = []
        before: dict[int, Row] = {}
        for y, row in enumerate(rows):
            old = self._tv_rows[y]
            if row is not old and row != old:
                self._tv_rows[y] = row
                self._tv_strips[y] = None
                ys.append(y)
                before[y] = old
                if changed and changed[-1].bottom == y:  # extend a run of changed rows
                    last = changed[-1]
                    changed[-1] = Region(0, last.y, width, last.height + 1)
                else:
                    changed.append(Region(0, y, width, 1))
        if changed:
            self._paint(changed, ys, before)
        self.rows_refreshed = len(ys)

    def _paint(self, regions: list[Region], ys: list[int],
               before: dict[int, Row] | None = None) -> None:
        """Write the changed rows to the terminal now.

        ``refresh`` would get there through four hops of Textual's message pumps (a prompt to
        this widget, its idle handler, an ``Update`` message to the screen, the screen's idle
        handler, then its update timer) and the compositor — more CPU than building the rows.
        When this screen is the one shown and nothing else is pending:

        * if the table is the only widget on screen (no toast or tooltip over it), the rows
          are written to the driver as Textual would write them (:meth:`_write_rows`);
        * otherwise they are marked dirty and the screen's own update (what its timer would
          run) is done at once: the compositor's path, without the hops or the frame tick.

        Otherwise (another screen on top, a layout or full repaint pending) ``refresh``.
        """
        screen = self.screen
        if internals.refresh_pending(self.app, screen, self):
            self.refresh(*regions)
            return
        if self._write_rows(ys, before):
            return
        self._set_dirty(*regions)
        internals.update_screen_now(screen, self)

    def _write_rows(self, ys: list[int], before: dict[int, Row] | None = None) -> bool:
        """Send rows ``ys`` to the terminal without the compositor, if nothing else is drawn
        over them: the table must be alone on the screen, at its top left, covering it, with
        a real driver. The picture is that of Textual's partial update (a cursor move, then
        each style run as :meth:`Strip.render` renders it, in one synchronized update) in fewer
        bytes: each run's SGR is written as the change from the one before
        (``tui.compat.sgr.change``; the frame ends in the reset state Textual assumes), and
        with the rows' previous spans (``before``) only the cells that changed are written
        (:meth:`_row_part`: a discard changes a few cells of a row). No ``Strip`` is made
        (one is made later if the compositor asks). Returns False (nothing written) when the
        compositor must do it."""
        app = self.app
        screen = self.screen
        target = internals.direct_write(app, screen)
        if target is None:
            return False
        driver, visible = target.driver, target.visible
        if len(visible) != 2 or screen not in visible:
            return False
        region, clip = visible[self]
        width, height = self.size if self._tv_page is not None else self._tv_size
        if region != clip or region.offset != (0, 0) or region.size != (width, height):
            return False
        self._check_filters()
        color_system = target.color_system
        render_style = Strip.render_style
        sync = target.sync
        out = [internals.SYNC_START] if sync else []
        add = out.append
        row_ansi = self._row_ansi
        page = self._tv_page is not None
        shown = self._tv_shown
        if len(shown) != len(self._tv_rows):
            shown[:] = [None] * len(self._tv_rows)
        self._tv_sgr = ""  # every frame before this one ended in the reset state
        for y in ys:
            add(f"\x1b[{y + 1}H")  # CUP: an omitted column is the first
            old: Row | None
            if page:  # a page's row, changed from what the row shows (the table or a page)
                page_row = self._page_spans(y, color_system)
                old = shown[y] if y < len(shown) else None
                if page_row is None:  # as Rich renders it, from the reset state
                    if y < len(shown):
                        shown[y] = None
                    if self._tv_sgr:
                        add("\x1b[m")
                        self._tv_sgr = ""
                    add(self._page_line(y).render(app.console))
                    continue
                row = page_row
            else:
                row = self._tv_rows[y]
                old = before.get(y) if before else None
                if old is not None and (y >= len(shown) or shown[y] is not old):
                    old = None  # the terminal may show something else: the whole row
            if y < len(shown):
                shown[y] = row
            if old is not None:
                parts = self._row_part(old, row, width, color_system)
                if parts is not None:
                    out.pop()
                    for x, changed in parts:
                        add(f"\x1b[{y + 1};{x + 1}H" if x else f"\x1b[{y + 1}H")
                        add(changed)
                    continue
            line = row_ansi(row, width, color_system)
            if line is None:  # overlapping or cut spans: as the segments render
                if self._tv_sgr:  # Rich's runs start from the reset state
                    add("\x1b[m")
                    self._tv_sgr = ""
                for text, style, _ in self._row_segments(row, width):
                    add(text if style is None else render_style(style, text, color_system))
            else:
                add(line)
        cursor = screen.outer_size.clamp_offset(app.cursor_position)
        # where Textual leaves the cursor (Rich's Control.move_to), the home one as ``CSI H``
        add(f"\x1b[{cursor.y + 1};{cursor.x + 1}H" if cursor != (0, 0) else "\x1b[H")
        internals.wrote_cursor(app, cursor)
        if self._tv_sgr:  # what is written next (Textual's runs) starts from the reset state
            add("\x1b[m")
            self._tv_sgr = ""
        if sync:
            add(internals.SYNC_END)
        driver.write("".join(out))
        driver.flush()
        app.post_display_hook()
        return True

    def on_resize(self) -> None:
        if self._tv_page is not None:
            self.refresh()
        self.redraw()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._tv_styles.clear()
        self._tv_segments.clear()
        self._tv_codes.clear()
        self._tv_filters = None  # the background may have changed
        self._tv_strips = [None] * len(self._tv_rows)
        self._tv_page_strips = [None] * len(self._tv_page_strips)
        self.refresh()

    # --- a page over the table -------------------------------------------------------------
    def show_page(self, lines: list[Content], keys: str, top: int = 0) -> None:
        """Show ``lines`` then ``keys`` (dimmed) over the whole table, scrolled to ``top``.

        A hand's result is shown this way, in the table's own widget: every session of a table
        shows it at the same moment, and a screen of its own (pushed, styled, composited, then
        popped and the table laid out and composited again) would cost each session much more
        CPU to show and to close. Each line is styled into a strip once per show; the rows
        are written as the table's are."""
        self._tv_page = lines
        self._tv_page_keys = keys
        self._tv_page_strips = [None] * (len(lines) + 1)
        self._tv_page_top = max(0, min(top, self._page_max_top()))
        self._paint_all()

    def hide_page(self) -> None:
        """Close the page: the table is drawn again, each row changed from the page's row
        the terminal shows."""
        if self._tv_page is None:
            return
        self._tv_page = None
        self._tv_page_strips = []
        width, height = self.size
        if width <= 0 or height <= 0 or self.update_data is None:
            self.refresh()
            return
        rows = self._tv_builder.build(self.update_data, self.ui, width, height)
        self._tv_size = (width, height)
        self._tv_rows = rows
        self._tv_strips = [None] * len(rows)
        shown = self._tv_shown
        before = {y: row for y, row in enumerate(shown) if row is not None} \
            if len(shown) == len(rows) else None
        self._paint([Region(0, 0, width, height)], list(range(height)), before)
        self.rows_refreshed = height

    @property
    def page_shown(self) -> bool:
        return self._tv_page is not None

    @property
    def page_text(self) -> str:
        """The page's lines and keys as plain text (tests); empty without a page."""
        if self._tv_page is None:
            return ""
        return "\n".join([line.plain for line in self._tv_page] + [self._tv_page_keys])

    @property
    def page_top(self) -> int:
        return self._tv_page_top

    def _page_box(self) -> tuple[int, int, int, int]:
        """(x, y, width, height) of the page: the table's own box, centred in a terminal
        larger than the table's largest size."""
        width, height = self.size
        w, h = min(width, MAX_WIDTH), min(height, MAX_HEIGHT)
        return (width - w) // 2, (height - h) // 2, w, h

    def _page_body(self) -> int:
        """Rows the page's lines get: all of them when lines and keys fit, else all but the
        last, which keeps the keys in sight (0 without a page)."""
        if self._tv_page is None:
            return 0
        height = self._page_box()[3]
        return height if len(self._tv_page) + 1 <= height or height < 2 else height - 1

    def _page_max_top(self) -> int:
        if self._tv_page is None:
            return 0
        return max(0, len(self._tv_page) - self._page_body())

    def scroll_page(self, delta: int | None = None, *, to: int | None = None) -> None:
        """Scroll the page by ``delta`` lines or ``to`` a line (clamped); redrawn if moved."""
        if self._tv_page is None:
            return
        top = self._tv_page_top + (delta or 0) if to is None else to
        top = max(0, min(top, self._page_max_top()))
        if top != self._tv_page_top:
            self._tv_page_top = top
            self._paint_all()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        if self._tv_page is not None:
            event.stop()
            self.scroll_page(3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        if self._tv_page is not None:
            event.stop()
            self.scroll_page(-3)

    def _paint_all(self) -> None:
        width, height = self.size
        if width <= 0 or height <= 0:
            return
        self._paint([Region(0, 0, width, height)], list(range(height)))
        self.rows_refreshed = height

    def _page_strip(self, index: int) -> Strip:
        strip = self._tv_page_strips[index]
        if strip is None:
            assert self._tv_page is not None
            base = self.visual_style
            margin = Segment(" ", base.rich_style)
            if index < len(self._tv_page):
                segments = [margin, *self._tv_page[index].render_segments(base)]
            else:
                keys = base.rich_style + self.get_component_rich_style("tv--page-keys")
                segments = [margin, Segment(self._tv_page_keys, keys)]
            strip = Strip(segments)
            background = self.background_colors[1]
            for line_filter in self.app.get_line_filters():  # as Textual's styling pass does
                strip = strip.apply_filter(line_filter, background)
            self._tv_page_strips[index] = strip
        return strip

    def _page_spans(self, y: int, color_system: ColorSystem) -> Row | None:
        """Row ``y`` of the page as spans, as the table's rows are (a style's key its SGR
        parameters, "text" where they are the table's base style's), so that it is written
        as the change from the row the terminal shows; None where a segment has no style, a
        link or a control code (then the row is rendered as Rich renders it)."""
        codes, base_code = self._codes(color_system)
        spans: list[Span] = []
        x = 0
        for text, style, control in self._page_line(y):
            if control or style is None or style._link:
                return None
            if text:
                code = Strip.render_ansi(style, color_system)
                key = "text" if code == base_code else "\x00" + code
                if key != "text":  # the key resolves to the style and its codes
                    codes[key] = code
                    self._tv_styles[key] = style
                # long runs of blanks as spans of their own: where the terminal shows blanks
                # of the same style there already, they are skipped (tui.view.row_diff)
                for part in _BLANK_RUN.split(text) if " " * SKIP in text else (text,):
                    if part:
                        spans.append((x, part, key))
                        x += cell_len(part)
        return tuple(spans)

    def _page_line(self, y: int) -> Strip:
        """Row ``y`` of the page. When the lines do not fit, they scroll above the keys, which
        keep the last row, and a one-column indicator shows where the rows shown are."""
        assert self._tv_page is not None
        x0, y0, width, height = self._page_box()
        style = self.span_style("text")
        full = self.size.width
        if (x0, y0) != (0, 0):  # a large terminal: the page in the table's box, centred
            if not 0 <= y - y0 < height:
                return Strip.blank(full, style)
            segments = [*Strip.blank(x0, style)] if x0 else []
            segments.extend(self._page_row(y - y0, width, height, style))
            if full - x0 - width > 0:
                segments.extend(Strip.blank(full - x0 - width, style))
            return Strip(segments, full)
        return self._page_row(y, width, height, style)

    def _page_row(self, y: int, width: int, height: int, style: Style) -> Strip:
        assert self._tv_page is not None
        lines = len(self._tv_page)
        body = self._page_body()
        if body < height:  # scrolling: the lines above, the keys on the last row
            width -= 1
            if y == height - 1:
                index = lines
                mark: Segment | None = Segment(" ", style)
            else:
                index = y + self._tv_page_top
                size = max(1, body * body // lines)
                top = self._tv_page_top * (body - size) // max(1, lines - body)
                mark = Segment(MARK if top <= y < top + size else " ", self.span_style("page-keys"))
        else:
            index = y
            mark = None
        if not 0 <= index <= lines:
            strip = Strip.blank(width, style)
        else:
            strip = self._page_strip(index).crop_extend(0, width, style)
        return strip if mark is None else Strip([*strip, mark], width + 1)

    # --- drawing --------------------------------------------------------------------------
    def span_style(self, key: str) -> Style:
        """The style of a span key ("tile-man+sel"), with the app's line filters applied and
        its text made legible in the terminal's colours (``tui.view.legible``)."""
        style = self._tv_styles.get(key)
        if style is None:
            parts = key.split("+")
            style = Style.combine(
                self.get_component_rich_style(f"tv--{p}", partial=True) for p in parts
            ) if len(parts) > 1 else self.get_component_rich_style(f"tv--{key}")
            if len(parts) > 1:
                style = self.get_component_rich_style("tv--text") + style
            if self._tv_filters is not None:
                filters, background = self._tv_filters
                for f in filters:
                    style = f.apply([Segment("x", style)], background)[0].style or style
            style = legible(style, self.app.console.color_system)  # as the terminal shows it
            self._tv_styles[key] = style
        return style

    def _check_filters(self) -> None:
        """The app's line filters (ANSI colours to true colour, NO_COLOR, …) change style by
        style, so they are applied to the styles once instead of to every strip of every frame:
        when the filters change, every style and strip is made again."""
        filters = tuple(self.app.get_line_filters())
        if self._tv_filters is None or self._tv_filters[0] != filters:
            self._tv_filters = (filters, self.background_colors[1])
            self._tv_styles.clear()
            self._tv_segments.clear()
            self._tv_codes.clear()
            self._tv_strips = [None] * len(self._tv_rows)

    def render_line(self, y: int) -> Strip:
        if y < len(self._tv_shown):  # drawn by the compositor now, not by this widget
            self._tv_shown[y] = None
        if self._tv_page is not None:
            return self._page_line(y)
        width = self._tv_size[0] or self.size.width
        if self._tv_filters is None:
            self._check_filters()
        if y >= len(self._tv_rows):
            return Strip([Segment(" " * width, self.span_style("text"))], width)
        strip = self._tv_strips[y]
        if strip is None:
            strip = Strip(self._row_segments(self._tv_rows[y], width), width)
            self._tv_strips[y] = strip
        return strip

    def render_lines(self, crop: Region) -> list[Strip]:
        """The compositor's entry point, without Textual's per-line styling pass.

        The rows are complete lines (this widget has no border, padding, tint or opacity) and
        their styles are already filtered, so the cached strips go out as they are.
        """
        self._check_filters()
        render_line = self.render_line
        strips = [render_line(y) for y in crop.line_range]
        x1, x2 = crop.column_span
        full = self.size.width if self._tv_page is not None else self._tv_size[0]
        if x1 != 0 or x2 != (full or self.size.width):
            strips = [s.crop(x1, x2) for s in strips]
        return strips

    def _codes(self, color_system: ColorSystem) -> tuple[dict[str, str], str]:
        """The style keys' SGR parameters for ``color_system`` (made afresh when it changes),
        and the base style's."""
        codes = self._tv_codes
        if self._tv_codes_system is not color_system:
            codes.clear()
            self._tv_codes_system = color_system
        base_code = codes.get("text")
        if base_code is None:
            base_code = codes["text"] = Strip.render_ansi(self.span_style("text"), color_system)
        return codes, base_code

    def _row_ansi(self, row: Sequence[Span], width: int, color_system: ColorSystem, start: int = 0
                  ) -> str | None:
        """A row as terminal text drawing what Textual would draw for its segments (one run
        per style, each opened by the change from the SGR state before it, ``_tv_sgr``, which
        it updates; gaps in the base style, padded to ``width``), straight from its spans; None if
        a span overlaps the one before or runs past ``width`` (then the segments do it).
        With ``start``, the cells from ``start`` on (the spans must start there or later)."""
        codes, base_code = self._codes(color_system)
        out: list[str] = []
        add = out.append
        changes = CHANGES
        sgr = self._tv_sgr
        pos = start
        n = len(row)
        for k in range(n):
            x, text, key = row[k]
            if x >= width:
                break
            if x < pos:
                return None
            code = codes.get(key)
            if code is None:
                code = codes[key] = Strip.render_ansi(self.span_style(key), color_system)
            if x > pos:  # a gap: blanks in the base style
                if sgr != base_code:
                    # only what blanks show, where the span after it changes the state again
                    seq, sgr = _switch(sgr, base_code, code != base_code)
                    add(seq)
                add(" " * (x - pos))
                pos = x
            tw = cell_len(text)
            if pos + tw > width:
                return None
            if code != sgr:
                if text.strip(" "):
                    add(changes.get((sgr, code)) or change(sgr, code))
                    sgr = code
                else:  # blanks: as for a gap, unless what follows is in the same state
                    after = pos + tw
                    nxt = (base_code if k + 1 == n or row[k + 1][0] > after
                           else codes.get(row[k + 1][2]))
                    seq, sgr = _switch(sgr, code, nxt != code)
                    add(seq)
            add(text)
            pos += tw
        if pos < width:  # the row's end: blanks in the base style
            if sgr != base_code:
                seq, sgr = _switch(sgr, base_code, True)
                add(seq)
            add(" " * (width - pos))
        self._tv_sgr = sgr
        return "".join(out)

    def _row_part(self, old: Row, new: Row, width: int, color_system: ColorSystem
                  ) -> list[tuple[int, str]] | None:
        """The cells of ``new`` that differ from ``old`` (:func:`changed_stretches`) as
        (first cell, terminal text) parts; None when the whole row must be written."""
        stretches = changed_stretches(old, new, width)
        if stretches is None:
            return None
        parts: list[tuple[int, str]] = []
        for a, b, shown in stretches:
            part = self._part(a, shown, b, color_system)
            if part is None:
                return None
            parts.append(part)
        return parts

    def _part(self, start: int, spans: list[Span], end: int, color_system: ColorSystem
              ) -> tuple[int, str] | None:
        """Cells ``start`` to ``end`` of ``spans`` as (``start``, terminal text)."""
        line = self._row_ansi(spans, end, color_system, start)
        return None if line is None else (start, line)

    def _row_segments(self, row: Row, width: int) -> list[Segment]:
        """A row as segments exactly ``width`` cells long, one per run of a style."""
        segment_of = self._tv_segments.get
        base = self.span_style("text")
        segments: list[Segment] = []
        add = segments.append
        pos = 0
        for x, text, key in row:
            if x >= width:
                break
            if x > pos:
                if segments and segments[-1].style is base:
                    segments[-1] = Segment(segments[-1].text + " " * (x - pos), base)
                else:
                    add(Segment(" " * (x - pos), base))
                pos = x
            elif x < pos:  # overlap: drop the covered beginning
                cut = pos - x
                if cut >= cell_len(text):
                    continue
                text = set_cell_size(text[::-1], cell_len(text) - cut)[::-1]
            hit = segment_of((text, key))
            if hit is None:
                hit = (Segment(text, self.span_style(key)), cell_len(text))
                if len(self._tv_segments) > 4096:
                    self._tv_segments.clear()
                self._tv_segments[(text, key)] = hit
            segment, tw = hit
            if pos + tw > width:
                text = set_cell_size(text, width - pos)
                segment = Segment(text, segment.style)
                tw = width - pos
            if segments and segments[-1].style is segment.style:  # one segment per style run
                segments[-1] = Segment(segments[-1].text + segment.text, segment.style)
            else:
                add(segment)
            pos += tw
        if pos < width:
            if segments and segments[-1].style is base:
                segments[-1] = Segment(segments[-1].text + " " * (width - pos), base)
            else:
                add(Segment(" " * (width - pos), base))
        return segments
