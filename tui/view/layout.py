"""The table drawn as rows of spans: pure functions from a view (and the screen's state) to text.

:func:`build_rows` places every region of the table at its cell position and returns one tuple of
spans ``(x, text, style_key)`` per terminal row. It knows nothing of Textual: the
:class:`tui.view.table.TableView` widget turns rows into cached strips and redraws only the rows
that changed. Every width is measured in terminal cells (:func:`rich.cells.cell_len`). This module
composes the regions and caches them; what each region draws lives in its own module
(:mod:`tui.view.status_row`, :mod:`tui.view.seat_rows`, :mod:`tui.view.centre`,
:mod:`tui.view.action_row`, :mod:`tui.view.log_text`).

Seats are drawn from the viewer's seat: 上家 (previous player) on the LEFT, 对家 across at the
top, 下家 (next player, who plays after you) on the RIGHT, yourself at the bottom.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from rich.cells import cell_len

from engine.rulesets import RULESETS
from engine.table import Phase
from engine.tiles import Kind
from engine.view import View
from host.client import TableUpdate
from tui.view.action_row import draw_action_row
from tui.view.canvas import Canvas, Row, Span, interned_span, shared_row, span_x
from tui.view.cells import Piece, wrap_groups
from tui.view.centre import centre_lines, draw_centre
from tui.view.decisions import buying_now
from tui.view.faces import Face, small_width
from tui.view.hints import ready_hint, waits_pieces
from tui.view.log_text import LogRow
from tui.view.prompts import prompt_rows
from tui.view.seat_rows import (
    draw_across,
    draw_frame,
    draw_hand,
    draw_me_row,
    draw_pond,
    draw_side,
    is_acting,
    last_flag,
    side_name_below,
    side_pond_top,
)
from tui.view.status_row import draw_status_row
from tui.view.tile_pieces import hand_tiles
from tui.view.timer_text import bank_shown, timer_state
from tui.view.ui_state import UiState
from words import seat_label, tr

MIN_WIDTH = 80
MIN_HEIGHT = 24
# a larger terminal gets the table at this size at most, centred: spread over a whole big
# screen, the seats drift to the corners with empty rows and columns between them
MAX_WIDTH = 140
MAX_HEIGHT = 44


def build_rows(update: TableUpdate, ui: UiState, width: int, height: int) -> list[Row]:
    """Every row of the table screen at ``width`` × ``height`` cells (no caching)."""
    return TableRows().build(update, ui, width, height)


RegionRows = dict[int, Row]  # y -> the region's spans on that row, in drawing order


class TableRows:
    """:func:`build_rows` for one screen, frame after frame, with a cache per region.

    The table is drawn as regions (status line, each opponent, each pond, the centre, your
    hand, the action line, the log). Each region has a key made of exactly the data it draws;
    the engine keeps a seat's :class:`SeatPublic` the same object while that seat's public state
    is unchanged, so most keys compare by identity. A region whose key is unchanged reuses its
    spans, and only the rows touched by a changed region are assembled again (an unchanged row
    is the same tuple object as in the previous frame).
    """

    def __init__(self) -> None:
        self._regions: dict[str, tuple[object, RegionRows]] = {}
        self._order: list[RegionRows] = []
        self._rows: list[Row] = []
        self._size = (0, 0)
        self._log = LogRow()
        self._ready: tuple[object, tuple[Kind | None, dict[Kind, str]]] = ((), (None, {}))
        self._waits: tuple[object, list[Piece] | None] = ((), None)
        # a large terminal's rows moved to the middle, by the table-sized row they come from
        self._shifted: dict[int, tuple[Row, Row]] = {}
        self._shift_x = 0
        # the first and last row of the table's message in the centre, in the table's own rows
        # (None: none shown): notices over the centre keep off it (notice_box's said)
        self.message_rows: tuple[int, int] | None = None

    def _region(self, name: str, key: object, size: tuple[int, int],
                draw: Callable[[Canvas], object]) -> RegionRows:
        hit = self._regions.get(name)
        if hit is not None and hit[0] == key:
            return hit[1]
        c = Canvas(*size)
        draw(c)
        rows = {y: shared_row(r) for y, r in c.rows.items()}
        self._regions[name] = (key, rows)
        return rows

    def build(self, update: TableUpdate, ui: UiState, width: int, height: int) -> list[Row]:
        """The screen's rows; a terminal larger than ``MAX_WIDTH`` × ``MAX_HEIGHT`` gets the
        table at that size in its middle (the rows shifted, shared while unchanged)."""
        inner_w, inner_h = min(width, MAX_WIDTH), min(height, MAX_HEIGHT)
        rows = self._build(update, ui, inner_w, inner_h)
        if (inner_w, inner_h) == (width, height):
            self._shifted = {}
            return rows
        x0, y0 = (width - inner_w) // 2, (height - inner_h) // 2
        if x0 != self._shift_x:
            self._shifted, self._shift_x = {}, x0
        shifted: dict[int, tuple[Row, Row]] = {}
        out: list[Row] = [()] * y0
        for row in rows:
            hit = self._shifted.get(id(row))
            if hit is None or hit[0] is not row:
                moved = shared_row([interned_span(sp, sp) for sp in
                                    ((x + x0, text, style) for x, text, style in row)]
                                   ) if x0 else row
                hit = (row, moved)
            shifted[id(row)] = hit
            out.append(hit[1])
        self._shifted = shifted
        out.extend([()] * (height - y0 - inner_h))
        return out

    def _build(self, update: TableUpdate, ui: UiState, width: int, height: int) -> list[Row]:
        if width < MIN_WIDTH or height < MIN_HEIGHT:
            c = Canvas(width, height)
            _too_small(c, ui.lang, ui.small_waits, watching=update.view.viewer is None,
                       said=ui.message)
            self._size = (0, 0)
            self._order = []
            return c.frozen()
        size = (width, height)
        view = update.view
        if view.phase is Phase.ENDED and len(update.totals) == 4:
            # the hand is settled: each seat shows its score after it, as the result did
            view = dataclasses.replace(view, seats=tuple(
                dataclasses.replace(p, score=update.totals[p.seat]) for p in view.seats))
        ruleset = RULESETS[view.rules]
        lang, face = ui.lang, ui.face
        me = view.viewer if view.viewer is not None else 0
        side_w = side_width(width)
        centre_x = side_w + 1
        centre_w = width - 2 * side_w - 2
        mid_top, mid_bottom = 2, height - 7
        seats = view.seats
        common = (size, lang, face, view.viewer, view.dealer, view.rules,
                  view.phase is Phase.BUY)
        region = self._region
        left, across, right = (me + 3) % 4, (me + 2) % 4, (me + 1) % 4
        # the players' names by their seats (your own only when you watch)
        names: list[str] = list(update.names) if len(update.names) == 4 else [""] * 4
        if view.viewer is not None:
            names[view.viewer] = ""

        timer = timer_state(update, ui.now)
        status_key = (size, lang, me, view.rules, view.hand_no, update.hands_per_game,
                      view.dealer, view.remaining, view.phase, view.my_move, view.current, timer,
                      update.waiting_for, bank_shown(update, ui.now), ui.auto, ui.away)
        pond_rows = centre_pond_rows(centre_w, face)
        # each centre pond has a caption row naming its seat; a dim rule on each side of the
        # centre keeps the side seats' discards apart from the centre's
        across_pond_y = mid_top + 1
        my_pond_y = mid_bottom - pond_rows + 1

        def side(name: str, seat: int, x0: int) -> list[RegionRows]:
            """A side seat from column ``x0``, and its discards under it (one cell in)."""
            pond_y = side_pond_top(seats[seat], mid_top, side_name_below(
                names[seat], seat_label(view.viewer, seat, lang), side_w))
            return [region(name, (common, seats[seat], is_acting(view, seat), names[seat]), size,
                           lambda c: draw_side(c, view, ui, seat, x0, side_w, mid_top,
                                               mid_bottom, False, names[seat])),
                    region(f"{name}-pond", (size, face, seats[seat].pond,
                                            last_flag(view, seat), pond_y), size,
                           lambda c: draw_pond(c, view, seat, x0 + 1, pond_y, side_w - 1,
                                               mid_bottom - pond_y + 1, face))]

        parts = [
            region("status", status_key, size,
                   lambda c: draw_status_row(c, update, ui, me, timer)),
            region("across", (common, seats[across], is_acting(view, across), names[across]),
                   size, lambda c: draw_across(c, view, ui, across, 1, names[across])),
            *side("left", left, 0),
            *side("right", right, width - side_w),
            region("pond-across", (size, face, seats[across].pond, last_flag(view, across)),
                   size, lambda c: draw_pond(c, view, across, centre_x, across_pond_y,
                                             centre_w, pond_rows, face)),
            region("pond-me", (size, face, seats[me].pond, last_flag(view, me)), size,
                   lambda c: draw_pond(c, view, me, centre_x, my_pond_y, centre_w, pond_rows,
                                       face)),
        ]
        parts.append(region("frame", (common, me), size,
                            lambda c: draw_frame(c, view, ui, me, side_w, centre_x, centre_w,
                                                 mid_top, mid_bottom, my_pond_y - 1)))
        waits = self._waits_hint(view, ui)
        top, bottom = across_pond_y + pond_rows, my_pond_y - 2
        flags = tuple((p.bought, p.lighter) for p in seats) if ruleset.buy_phase else ()
        centre_key = (common, view.dice, view.wild, view.wild_indicator,
                      view.kong_tiles, view.doudizhu, flags, ui.prompt, view.last_discard,
                      view.phase is Phase.ENDED, ui.message, waits, update.waiting_for,
                      update.names if update.waiting_for else (),
                      ui.suggestion if ui.show_suggestion else None)
        def centre(c: Canvas) -> None:
            self.message_rows = draw_centre(c, centre_lines(update, ui, me, waits, centre_w),
                                           centre_x, centre_w, top, bottom)

        parts.append(region("centre", centre_key, size, centre))

        tiles = hand_tiles(view)
        cursor = max(0, min(ui.cursor, len(tiles) - 1)) if tiles else -1
        selecting = view.my_move and view.phase is Phase.TURN and ui.prompt is None
        mine = seats[me]
        parts.append(region("me", (common, mine, is_acting(view, me), names[me]), size,
                            lambda c: draw_me_row(c, view, ui, me, height - 6, names[me])))
        # in the buy phase the empty hand's rows say whose choice the table waits for
        buying = buying_now(view) if not view.my_move else None
        parts.append(region("hand", (size, face, lang, view.hand, view.drawn, view.wild, cursor,
                                     selecting, mine.melds, view.phase is Phase.BUY, buying),
                            size,
                            lambda c: draw_hand(c, view, ui, me, tiles, cursor, selecting,
                                                height - 5)))
        prompt = ui.prompt
        if prompt is not None:
            act_key: object = (size, prompt, ui.selected)
        else:
            my_turn = view.my_move and view.phase is Phase.TURN and bool(tiles)
            act_key = (size, lang, face, my_turn, view.my_move, view.phase is Phase.ENDED,
                       view.legal if my_turn else None, tiles[cursor] if my_turn else None,
                       tuple(ui.keys.items()), view.viewer is None, view.wild)
        parts.append(region("action", act_key, size,
                            lambda c: draw_action_row(c, view, ui, tiles, cursor, height - 2)))
        # choices too many for one row take the log's row too
        log_shown = prompt_rows(prompt, width) == 1
        parts.append(region("log", (size, lang, face, me, view.events, log_shown), size,
                            lambda c: self._log.draw(c, view, ui, height - 1) if log_shown
                            else None))

        # assemble only the rows a changed region touches
        if size != self._size or len(parts) != len(self._order):
            dirty: set[int] | range = range(height)
            self._rows = [()] * height
        else:
            dirty = set()
            for new, old in zip(parts, self._order, strict=True):
                if new is not old:
                    dirty.update(new)
                    dirty.update(old)
        for y in dirty:
            spans: list[Span] = []
            for part in parts:
                row = part.get(y)
                if row:
                    spans.extend(row)
            spans.sort(key=span_x)
            self._rows[y] = shared_row(spans)
        self._size = size
        self._order = parts
        return list(self._rows)

    # --- cached pieces ---------------------------------------------------------------------
    def _waits_hint(self, view: View, ui: UiState) -> list[Piece] | None:
        """The "waits" line; the winning tiles are worked out again only when the own hand
        (or the picked tile) changed, the unseen counts when a tile became visible."""
        if not ui.show_waits:
            return None
        tiles_key = (view.rules, view.phase in (Phase.BUY, Phase.ENDED), view.viewer,
                     view.hand, view.drawn,
                     ui.cursor if (len(view.hand) + (view.drawn is not None)) % 3 == 2 else -1,
                     view.seats[view.viewer or 0].melds, view.wild)
        if self._ready[0] != tiles_key:
            self._ready = (tiles_key, ready_hint(view, ui.cursor))
        ready = self._ready[1]
        if not ready[1]:
            return None
        key = (tiles_key, ui.lang, ui.face, view.seats, view.wild_indicator, view.kong_tiles)
        if self._waits[0] != key:
            self._waits = (key, waits_pieces(view, ui, ready))
        return self._waits[1]


def side_width(width: int) -> int:
    """Cells of each side seat's column on a table ``width`` cells wide (18 at 80 columns, a
    quarter of the extra width on a wider table, 30 at most)."""
    return min(30, 18 + (width - MIN_WIDTH) // 4)


def centre_pond_rows(centre_w: int, face: Face) -> int:
    """Rows of the across seat's and one's own discards in a centre ``centre_w`` cells wide:
    24 tiles' worth, 2 rows at least, 4 at most."""
    per_row = max(1, centre_w // (small_width(face) + 1))
    return max(2, min(4, -(-24 // per_row)))


def notice_box(width: int, height: int, face: Face, page: bool = False,
               said: tuple[int, int] | None = None) -> tuple[int, int, int, int]:
    """``(x, y, w, h)``: where notices (chat lines, the table's messages) may be drawn over a
    screen of ``width`` × ``height`` cells without covering any seat's tiles, name or discards.

    Over the table: the centre between the across seat's discards and one's own, at most 40
    cells wide (the centre is 42 at 80 columns); with ``said``, the first and last row of the
    table's message in the centre (:attr:`TableRows.message_rows`: a toggle's notice, an
    answer to a key), the larger part of it below or above them: a toast drawn over that
    message garbled both. Over a hand's result (``page``): its last three rows above the
    keys, which show the hands' detail; the summary is at the top."""
    inner_w, inner_h = min(width, MAX_WIDTH), min(height, MAX_HEIGHT)
    x0, y0 = (width - inner_w) // 2, (height - inner_h) // 2
    if page:
        rows = max(1, min(3, inner_h - 2))
        return x0 + 1, y0 + max(0, inner_h - 1 - rows), max(1, inner_w - 2), rows
    side_w = side_width(inner_w)
    centre_w = inner_w - 2 * side_w - 2
    pond_rows = centre_pond_rows(centre_w, face)
    # below the across seat's discards (row 3 on), above the caption of one's own (the mid
    # area ends 7 rows above the table's bottom)
    top = 3 + pond_rows
    bottom = inner_h - 8 - pond_rows
    w = max(1, min(40, centre_w - 2))
    if said is not None:
        below, above = (max(top, said[1] + 1), bottom), (top, min(bottom, said[0] - 1))
        top, bottom = max(below, above, key=lambda rows: rows[1] - rows[0])
    return x0 + (inner_w - w) // 2, y0 + top, w, max(1, bottom - top + 1)


def _too_small(c: Canvas, lang: str, waits: bool = True, watching: bool = False,
               said: str = "") -> None:
    """The notice over a terminal too small for the table: whether the game waits, or plays
    on with the player's timer running (a shared table), or just plays on (a spectator); then
    ``said``, the screen's answer to the last key (the table's keys do nothing while it is
    hidden, and say so here)."""
    key = "too_small_watch" if watching else "too_small" if waits else "too_small_live"
    text = tr(lang, key, w=c.width, h=c.height)
    lines = wrap_groups(text, max(10, c.width - 2))
    if said:
        lines += ["", *wrap_groups(said, max(10, c.width - 2))]
    top = max(0, (c.height - len(lines)) // 2)
    for i, ln in enumerate(lines):
        c.put(max(0, (c.width - cell_len(ln)) // 2), top + i, ln, "notice")
