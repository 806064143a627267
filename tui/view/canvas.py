"""Spans placed at cell positions, and the process-wide tables that share them: every region of
the table draws on a :class:`Canvas`, and identical spans and rows stay one tuple each so that a
region drawn again hands the garbage collector almost nothing new."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.cells import cell_len

from tui.view.cells import Piece

Span = tuple[int, str, str]
Row = tuple[Span, ...]

# Every span a canvas keeps is one shared tuple per (x, text, style) in the process. A region
# drawn again keeps most of its spans, and each new tuple a region holds would stay in the
# garbage collector's youngest generation until its next pass. Rows likewise (most rows of a
# region drawn again are unchanged), and a table's assembled rows.
_SPANS: dict[Span, Span] = {}
_SPANS_MAX: Final = 1 << 16
interned_span = _SPANS.setdefault
_ROWS: dict[Row, Row] = {}
_ROWS_MAX: Final = 1 << 14
_interned_row = _ROWS.setdefault


def shared_row(spans: Sequence[Span]) -> Row:
    """``spans`` as a row tuple, the same object as any equal row drawn before."""
    row = tuple(spans)
    return _interned_row(row, row)


def span_x(span: Span) -> int:
    """The sort key of spans along a row."""
    return span[0]


class Canvas:
    """Spans placed at cell positions, row by row (only the rows drawn on are kept)."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.rows: dict[int, list[Span]] = {}
        if len(_SPANS) > _SPANS_MAX:
            _SPANS.clear()
        if len(_ROWS) > _ROWS_MAX:
            _ROWS.clear()

    def put(self, x: int, y: int, text: str, style: str = "text") -> int:
        if 0 <= y < self.height and text and x < self.width:
            span = (x, text, style)
            span = interned_span(span, span)
            row = self.rows.get(y)
            if row is None:
                self.rows[y] = [span]
            else:
                row.append(span)
        return x + cell_len(text)

    def pieces(self, x: int, y: int, pieces: Sequence[Piece]) -> int:
        for text, style in pieces:
            x = self.put(x, y, text, style)
        return x

    def frozen(self) -> list[Row]:
        rows = self.rows
        return [tuple(sorted(rows.get(y, ()), key=span_x)) for y in range(self.height)]
