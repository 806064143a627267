"""Tile faces: how one tile kind is drawn in terminal cells.

Three faces (``--tiles``):

* ``cjk`` (default): CJK text, numeral over suit (五 over 萬) in the hand; ``5萬`` in one row
  elsewhere;
* ``glyph``: the Unicode mahjong tiles U+1F000–U+1F021, each in a fixed 2-cell slot (中 is drawn
  as text, never 🀄 U+1F004, which terminals draw two cells wide);
* ``ascii``: ``5m``, ``E``, ``Z`` — the default where the locale is not UTF-8.

Every face string here has a fixed width in terminal cells (measured with
:func:`rich.cells.cell_len`, never ``len()``): :data:`BIG_WIDTH` for the two-row hand tiles and
:func:`small_width` for the one-row tiles of ponds, melds and the log.
"""

from __future__ import annotations

import enum
import locale
import os
from functools import cache

from rich.cells import cell_len, set_cell_size

from engine.tiles import Kind, face_zh, kind_to_str


class Face(enum.Enum):
    CJK = "cjk"
    GLYPH = "glyph"
    ASCII = "ascii"

    def next(self) -> Face:
        order = list(Face)
        return order[(order.index(self) + 1) % len(order)]


class Suit(enum.Enum):
    """Colour class of a tile (the theme colours each)."""

    MAN = "man"
    PIN = "pin"
    SOU = "sou"
    WIND = "wind"
    DRAGON = "dragon"


def suit_class(kind: Kind) -> Suit:
    if kind < 9:
        return Suit.MAN
    if kind < 18:
        return Suit.PIN
    if kind < 27:
        return Suit.SOU
    return Suit.WIND if kind < 31 else Suit.DRAGON


BIG_WIDTH = 4  # a hand tile: " 五 " over " 萬 "

# U+1F000 East … U+1F006 White, U+1F007–U+1F00F characters 1–9, U+1F010–U+1F018 bamboo 1–9,
# U+1F019–U+1F021 dots 1–9.
_HONOUR_GLYPHS = {27: 0x1F000, 28: 0x1F001, 29: 0x1F002, 30: 0x1F003, 32: 0x1F005, 33: 0x1F006}


def glyph(kind: Kind) -> str:
    """The Unicode tile for ``kind`` padded to a 2-cell slot; 中 as text (never 🀄)."""
    if kind == 31:
        return "中"
    if kind < 9:
        cp = 0x1F007 + kind
    elif kind < 18:
        cp = 0x1F019 + kind - 9
    elif kind < 27:
        cp = 0x1F010 + kind - 18
    else:
        cp = _HONOUR_GLYPHS[kind]
    return set_cell_size(chr(cp), 2)


def small_width(face: Face) -> int:
    return 3 if face is Face.CJK else 2


@cache
def small(kind: Kind, face: Face) -> str:
    """One-row face of fixed width :func:`small_width`: ``5萬`` / ``东 `` / glyph / ``5m``."""
    if face is Face.ASCII:
        return set_cell_size(kind_to_str(kind), 2)
    if face is Face.GLYPH:
        return glyph(kind)
    numeral, suit = face_zh(kind)
    if kind >= 27:
        return set_cell_size(numeral, 3)
    return f"{kind % 9 + 1}{suit}"


@cache
def big(kind: Kind, face: Face) -> tuple[str, str]:
    """Two rows of :data:`BIG_WIDTH` cells each for the hand."""
    if face is Face.ASCII:
        top, bottom = kind_to_str(kind), ""
    elif face is Face.GLYPH:
        top, bottom = glyph(kind), kind_to_str(kind)
    else:
        top, bottom = face_zh(kind)
    return _centre(top, BIG_WIDTH), _centre(bottom, BIG_WIDTH)


def _centre(text: str, width: int) -> str:
    w = cell_len(text)
    left = (width - w) // 2
    return set_cell_size(" " * left + text, width)


def name(kind: Kind, face: Face) -> str:
    """A tile named in running text (prompts, log): the one-row face without padding."""
    return small(kind, face).rstrip()


def face_named(name: str | None) -> Face | None:
    """The face called ``name`` (a setting, ``--tiles``); None for none or an unknown name."""
    try:
        return Face(name) if name else None
    except ValueError:
        return None


def default_face() -> Face:
    """CJK where the locale is UTF-8, else ASCII."""
    enc = (locale.getpreferredencoding(False) or "").lower().replace("-", "")
    lang = " ".join(os.environ.get(v, "") for v in ("LC_ALL", "LC_CTYPE", "LANG")).lower()
    if "utf8" in enc or "utf8" in lang.replace("-", ""):
        return Face.CJK
    return Face.ASCII
