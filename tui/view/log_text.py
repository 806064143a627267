"""The log row: the latest moves as text, and the row that keeps them in place, so that a new
move writes only its own cells instead of the whole row scrolling on every screen."""

from __future__ import annotations

from rich.cells import cell_len

from engine.table import Event, EventType
from engine.view import View
from tui.view.canvas import Canvas, Span, interned_span
from tui.view.cells import Piece
from tui.view.faces import Face
from tui.view.tile_pieces import tile_pieces
from tui.view.ui_state import UiState
from words import relative_name, tr


def event_pieces(e: Event, me: int | None, lang: str, face: Face) -> list[Piece] | None:
    """An event as the log writes it, or None for those it leaves out (draws, deals, …)."""
    et = e.type
    if et in (EventType.DRAW, EventType.DEAL, EventType.REPLACEMENT):
        return None
    who = relative_name(me, e.seat, lang) if e.seat is not None else ""
    key = "ev_" + et.value
    if key not in _EVENT_KEYS:
        return None
    tile_field = "\0"
    text = tr(lang, key, who=who, tile=tile_field, tiles=tile_field)
    head, _, tail = text.partition("\0")
    out: list[Piece] = [(head, "log")]
    if "\0" in text:
        if et is EventType.CHI and e.tiles:
            out += tile_pieces(sorted(e.tiles), face, mark=e.tile)
        elif e.tile is not None:
            out += tile_pieces([e.tile], face)
        out.append((tail, "log"))
    return out


_EVENT_KEYS = {
    "ev_buy", "ev_no_buy", "ev_lighter", "ev_wild", "ev_discard", "ev_ting", "ev_chi",
    "ev_peng", "ev_minggang", "ev_angang", "ev_bugang", "ev_robbed", "ev_win", "ev_pond_win",
    "ev_jiebao", "ev_four_wilds", "ev_exhausted",
}


class LogRow:
    """One screen's log row, frame after frame: where the row started, and the spans of the
    events it drew (only those, not every event of the hand, so the collector has few)."""

    def __init__(self) -> None:
        # the log's events as spans: those the last log drew, and those this one draws
        self._events: dict[int, tuple[Event, list[Span] | None, int]] = {}
        self._events_now: dict[int, tuple[Event, list[Span] | None, int]] = {}
        self._events_style: tuple[int | None, str, Face] | None = None
        self._log_first: Event | None = None  # the oldest move on the log's row

    def _event(self, e: Event, me: int | None, lang: str, face: Face
               ) -> tuple[list[Span] | None, int]:
        """An event of the log as spans relative to its start, and its width (cached)."""
        style = (me, lang, face)
        if style != self._events_style:
            self._events.clear()
            self._events_style = style
        hit = self._events.get(id(e))
        if hit is not None and hit[0] is e:
            self._events_now[id(e)] = hit
            return hit[1], hit[2]
        pcs = event_pieces(e, me, lang, face)
        spans: list[Span] | None = None
        w = 0
        if pcs is not None:
            spans = []
            for text, st in pcs:
                if text:
                    spans.append((w, text, st))
                    w += cell_len(text)
        self._events_now[id(e)] = (e, spans, w)
        return spans, w

    def draw(self, c: Canvas, view: View, ui: UiState, y: int) -> None:
        """The latest moves on row ``y``, oldest first, the newest always shown. New moves
        are added at the right; only when one no longer fits does the row start again with
        the moves that fill half of it, so most moves write just their own cells."""
        width = c.width - 2
        # only the events drawn now are kept for the next log
        self._events_now = {}
        events = view.events
        first = self._log_first
        start = -1
        if first is not None:
            for i in range(len(events) - 1, -1, -1):
                if events[i] is first:
                    start = i
                    break
        found = start >= 0
        chosen: list[tuple[list[Span], int]] = []
        if found:  # the row so far, and the moves since, if they still fit
            used = 0
            for e in events[start:]:
                spans, w = self._event(e, view.viewer, ui.lang, ui.face)
                if spans is None:
                    continue
                used += w + 3
                chosen.append((spans, w))
            if used - 3 > width:
                chosen, start = [], -1
        if start < 0:  # start again: as many as fit (half the row after an overflow)
            room = width // 2 if found else width
            used = 0
            start = len(events)
            for i in range(len(events) - 1, -1, -1):
                spans, w = self._event(events[i], view.viewer, ui.lang, ui.face)
                if spans is None:
                    continue
                if (chosen and used + w + 3 > room) or used + w > width:
                    break
                chosen.append((spans, w))
                used += w + 3
                start = i
            chosen.reverse()
        self._log_first = events[start] if start < len(events) else None
        self._events, self._events_now = self._events_now, {}
        out: list[Span] = []
        x = 1
        for i, (spans, w) in enumerate(chosen):
            if i:
                span = (x, " · ", "dim")
                out.append(interned_span(span, span))
                x += 3
            for dx, text, st in spans:
                span = (x + dx, text, st)
                out.append(interned_span(span, span))
            x += w
        if out and 0 <= y < c.height:
            c.rows.setdefault(y, []).extend(out)
