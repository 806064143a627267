"""A test terminal (pyte) that draws East Asian ambiguous-width characters two cells wide, as
PuTTY's and Xshell's CJK options, iTerm2's and GNOME Terminal's "ambiguous characters are
wide" and CJK Windows consoles do, and answers the cursor position request (``CSI 6n``) as
such a terminal does: after ``\\r·`` the cursor is at column 3.

It keeps what went wrong for the program: text that ran past the right edge of its row
(``overflows``); :meth:`CjkScreen.problems` adds what the screen shows: a character drawn
over half of a wide one (a wide character without its right half, or a right half alone) and
rows whose characters do not take exactly the terminal's width. (A frame may draw over half
of a wide character and then the other half: only what stays on the screen counts.)
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import pyte
import pyte.screens
from wcwidth import wcwidth


@lru_cache(maxsize=8192)
def cjk_width(ch: str) -> int:
    """A character's cells on a terminal that draws ambiguous characters wide."""
    width = wcwidth(ch)
    if width == 1 and unicodedata.east_asian_width(ch) == "A":
        return 2
    return int(width)


def _tile(ch: str) -> bool:
    """Whether ``ch`` is a mahjong tile (U+1F000–U+1F02B), which tmux and many terminals
    draw two cells wide."""
    return 0x1F000 <= ord(ch[0]) <= 0x1F02B if ch else False


@contextmanager
def _widths(function: Callable[[str], int]) -> Iterator[None]:
    """pyte's width function (a module global of ``pyte.screens``) for the time of a call;
    asyncio runs one call at a time, so other screens of the process are not affected."""
    saved = pyte.screens.wcwidth
    pyte.screens.wcwidth = function
    try:
        yield
    finally:
        pyte.screens.wcwidth = saved


class CjkScreen(pyte.Screen):
    """A pyte screen counting ambiguous characters as two cells when ``ambiwide`` (else an
    ordinary one), with a record of rows drawn too wide."""

    def __init__(self, columns: int, lines: int, ambiwide: bool = True,
                 tiles_wide: bool = False) -> None:
        """``tiles_wide``: mahjong tiles drawn two cells wide, as tmux does."""
        super().__init__(columns, lines)
        self.ambiwide = ambiwide
        base: Callable[[str], int] = cjk_width if ambiwide else wcwidth
        self.width: Callable[[str], int] = (
            (lambda ch: 2 if _tile(ch) else base(ch)) if tiles_wide else base)
        self.overflows: list[tuple[int, str]] = []  # (row, the text that did not fit)

    def draw(self, data: str) -> None:
        y, x = self.cursor.y, self.cursor.x
        width = sum(max(self.width(ch), 0) for ch in data)
        if x + width > self.columns:
            self.overflows.append((y, data))
        with _widths(self.width):
            super().draw(data)

    @property
    def display(self) -> list[str]:
        with _widths(self.width):
            return list(super().display)

    def row_width(self, y: int) -> int:
        """The cells row ``y``'s characters take, as this terminal draws them."""
        line = self.buffer[y]
        total, x = 0, 0
        while x < self.columns:
            ch = line[x].data
            w = max(self.width(ch), 1) if ch else 1
            total += w
            x += w
        return total

    def problems(self) -> list[str]:
        """What is wrong on the screen (empty when every row is exactly the terminal's width
        and no character was drawn over another)."""
        out = [f"row {y} ran past the edge: {text!r}" for y, text in self.overflows]
        for y in range(self.lines):
            line = self.buffer[y]
            for x in range(self.columns):
                ch = line[x].data
                if ch and self.width(ch) == 2 and (x + 1 >= self.columns
                                                   or line[x + 1].data != ""):
                    out.append(f"row {y} column {x}: wide {ch!r} without its right half")
                if ch == "" and (x == 0 or self.width(line[x - 1].data or " ") != 2):
                    out.append(f"row {y} column {x}: a wide character's half alone")
            if self.row_width(y) != self.columns:
                out.append(f"row {y} is {self.row_width(y)} cells, not {self.columns}")
        return out

    def clear_record(self) -> None:
        self.overflows.clear()


def shown_cell(cell: Any) -> tuple[object, ...]:
    """What a terminal shows of a pyte cell: its character, colours and attributes, less what a
    blank (a space) cannot show: its foreground colour, weight, slant and blink (the writers
    leave those as they are before a blank, ``tui.compat.sgr.blank_state``), unless its
    colours are swapped."""
    if cell.data == " " and not cell.reverse:
        return (" ", None, cell.bg, None, None, cell.underscore, False, cell.strikethrough,
                None)
    return (cell.data, cell.fg, cell.bg, cell.bold, cell.italics, cell.underscore,
            cell.reverse, cell.strikethrough, cell.blink)
