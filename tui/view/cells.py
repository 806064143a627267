"""Text measured in terminal cells: a CJK character takes two, so widths, cuts and line breaks
cannot count characters (:func:`rich.cells.cell_len` does the measuring)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size

from words import tr

Piece = tuple[str, str]  # (text, style key)


def fit_name(name: str, cells: int) -> str:
    """A player's name in at most ``cells`` cells: a computer player's ``normal (computer)``
    / ``普通电脑`` too long for them becomes ``computer`` / ``电脑`` (what it is, without its
    level) rather than ``normal (com…``; a player's ``(away)`` (the shared table's mark of
    one who left) is kept whole, his name cut before it; any other name is cut
    (:func:`fit_cells`)."""
    if cell_len(name) > cells:
        for lang in ("en", "zh"):
            mark, short = tr(lang, "bot_name_level", level=""), tr(lang, "bot_name")
            if name.endswith(mark) and name != mark and cell_len(short) <= cells:
                return short
        if name.endswith(AWAY) and cells > len(AWAY):
            return fit_cells(name.removesuffix(AWAY).rstrip(), cells - len(AWAY)) + AWAY
    return fit_cells(name, cells)


AWAY = "(away)"  # net.runtime.shared_table's mark after the name of a player who left


def fit_cells(text: str, cells: int) -> str:
    """``text`` cut to at most ``cells`` terminal cells, ending in … when cut."""
    if cell_len(text) <= cells:
        return text
    if cells <= 0:
        return ""
    out, used = [], 1
    for ch in text:
        w = cell_len(ch)
        if used + w > cells:
            break
        out.append(ch)
        used += w
    return "".join(out).rstrip() + "…"


def pieces_width(pieces: Sequence[Piece]) -> int:
    """Cells the pieces take together."""
    return sum(cell_len(t) for t, _ in pieces)


def wrap_pieces(pieces: Sequence[Piece], w: int) -> list[list[Piece]]:
    """``pieces`` as lines at most ``w`` cells wide, broken only at a lone space piece (which
    the new line drops); a part wider than ``w`` is left to be clipped."""
    lines: list[list[Piece]] = [[]]
    used = 0
    part: list[Piece] = []
    for pc in [*pieces, (" ", "")]:  # the last space ends the last part
        if pc[0] != " " or not part:
            part.append(pc)
            continue
        pw = pieces_width(part)
        if lines[-1] and used + pw > w:
            part = part[1:] if part[0][0] == " " else part
            lines.append([])
            used = 0
            pw = pieces_width(part)
        lines[-1].extend(part)
        used += pw
        part = [pc]
    return lines


def clip_pieces(pieces: Sequence[Piece], w: int) -> list[Piece]:
    """``pieces`` cut at ``w`` cells (a piece across the edge is cut to fit)."""
    out: list[Piece] = []
    used = 0
    for text, style in pieces:
        tw = cell_len(text)
        if used + tw > w:
            rest = w - used
            if rest > 0:
                out.append((set_cell_size(text, rest), style))
            break
        out.append((text, style))
        used += tw
    return out


_WRAP_UNITS = re.compile(r"[^\s\u2e80-\uffef]+|[\u2e80-\uffef]|\s+")
_NO_LINE_START = frozenset("。，、）」』】！？：；")  # CJK punctuation that closes


def wrap_cells(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken between words (and between CJK
    characters, which need no space; closing CJK punctuation never starts a line); a word
    longer than a line is cut."""
    lines: list[list[str]] = []
    line: list[str] = []
    used = 0
    for unit in _WRAP_UNITS.findall(text):
        if unit.isspace():
            if line and used < width:
                line.append(" ")
                used += 1
            continue
        while cell_len(unit) > width:  # a word wider than the line: cut it
            if "".join(line).strip():
                lines.append(line)
            cut = 0
            while cell_len(unit[:cut + 1]) <= width:
                cut += 1
            lines.append([unit[:cut]])
            unit = unit[cut:]
            line, used = [], 0
        w = cell_len(unit)
        if used + w > width:
            carried: list[str] = []
            if unit in _NO_LINE_START:  # the word or character before goes down with it
                while len(line) > 1:
                    carried.insert(0, line.pop())
                    if carried[0] not in _NO_LINE_START and not carried[0].isspace():
                        break
                if sum(cell_len(u) for u in carried) + w > width:
                    line += carried  # too long to carry: the punctuation starts the line
                    carried = []
            lines.append(line)
            line = carried
            used = sum(cell_len(u) for u in line)
        line.append(unit)
        used += w
    lines.append(line)
    out = ["".join(units).rstrip() for units in lines]
    return [ln for ln in out if ln] or [""]


_GROUP = re.compile(r"[(（][^()（）]*[)）]")  # a parenthesised group, English or Chinese
_GLUE = "\U000F0000"  # a space inside a group while wrapping: no space, one cell, not CJK


def wrap_groups(text: str, width: int) -> list[str]:
    """As :func:`wrap_cells`, but a parenthesised group that fits in a line is never broken
    (``... (? help, q q leave)`` broke after its ``(?``); a longer one breaks as words."""
    if _GLUE in text or any(cell_len(m.group()) > width for m in _GROUP.finditer(text)):
        return wrap_cells(text, width)
    glued = _GROUP.sub(lambda m: m.group().replace(" ", _GLUE), text)
    return [ln.replace(_GLUE, " ") for ln in wrap_cells(glued, width)]
