"""East Asian ambiguous width (Unicode's ``A`` class): characters such as ``│ ─ █ · → × … ▶``
that many terminals of Chinese players draw two cells wide (PuTTY's and Xshell's CJK options,
iTerm2's and GNOME Terminal's "ambiguous characters are wide", CJK Windows consoles), while
Rich and Textual count them as one. On such a terminal every row holding one is wider than
the program thinks, and the screen falls apart.

Two parts:

* the **probe** (:data:`PROBE`, :func:`probe_answer`): at the start of a session, before the
  first frame, write an ambiguous character at the line's start and ask for the cursor's
  position (``CSI 6n``), as vim does for ``ambiwidth``; column 3 means wide, 2 narrow, no
  answer within :data:`PROBE_TIMEOUT` is taken as narrow;
* the **narrow glyph set** (:func:`to_narrow`): on a wide terminal every ambiguous character a
  frame carries is replaced, as the frame is written to the terminal, by one that is narrow by
  definition and takes the same one cell (``│`` → ``|``, ``─`` → ``-``, rounded corners
  → ``+``, ``→`` → ``>``, ``·`` → ``.``, ``×`` → ``x``; a full block becomes a space in
  reverse video, so a timer bar keeps its colour). Layout is untouched: every row keeps the
  cell count Textual computed, and lines up on either kind of terminal. This is done per
  terminal (the driver's output), not by changing Rich's width function, which is shared by
  every session of a server process.

The setting (:class:`AmbiWidth`): ``auto`` (the probe's answer), ``narrow`` or ``wide``.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from functools import cache

from rich.cells import cell_len

PROBE_CHAR = "\u00b7"  # · MIDDLE DOT: ambiguous, in every terminal font
# to the line's start, the ambiguous character, then "where is the cursor?"
PROBE = "\r" + PROBE_CHAR + "\x1b[6n"
ERASE = "\r\x1b[K"  # the probe's character erased again
PROBE_TIMEOUT = 0.25  # seconds a session waits for the answer before its first frame
LATE_ANSWER = 10.0  # seconds an answer that came after the first frame still counts
# the cursor position report: ESC [ row ; column R
CPR = re.compile(rb"\x1b\[(\d{1,5});(\d{1,5})R")
# a cell filled with the foreground colour. (Within text that is itself in reverse video the
# colours would come out swapped and the rest of that text not reversed: no screen draws a
# block in reverse video.)
REVERSE_SPACE = "\x1b[7m \x1b[27m"


class AmbiWidth(enum.Enum):
    """How wide the terminal draws ambiguous characters: the player's setting."""

    AUTO = "auto"  # as the probe found
    NARROW = "narrow"
    WIDE = "wide"

    @classmethod
    def parse(cls, value: object) -> AmbiWidth | None:
        """The setting for ``value`` (``"auto"``, ``"narrow"``, ``"wide"``), else None."""
        for member in cls:
            if value == member.value:
                return member
        return None

    def wide(self, detected: bool | None) -> bool:
        """Whether to draw for wide ambiguous characters, given what the probe found."""
        if self is AmbiWidth.AUTO:
            return bool(detected)
        return self is AmbiWidth.WIDE


def column_wide(column: int) -> bool:
    """The probe's answer: the cursor's column (1-based) after the probe's character."""
    return column >= 3


def probe_answer(data: bytes) -> tuple[bool | None, bytes]:
    """Finds the answer to :data:`PROBE` in ``data`` (what the client sent): whether the
    terminal draws ambiguous characters wide (None: no answer in ``data``), and ``data``
    without the answer (keys the player typed meanwhile are kept, in order)."""
    match = CPR.search(data)
    if match is None:
        return None, data
    return column_wide(int(match.group(2))), data[:match.start()] + data[match.end():]


# --- the narrow glyph set ---------------------------------------------------------------------

_EXPLICIT: dict[str, str] = {
    # punctuation and signs
    "\u00b7": ".", "\u00d7": "x", "\u00f7": "/", "\u00b1": "+", "\u00b0": "o", "\u00a7": "S",
    "\u00b6": "P", "\u00a1": "!", "\u00bf": "?", "\u00aa": "a", "\u00ba": "o", "\u00ae": "R",
    "\u00a4": "$", "\u00a8": '"', "\u00ad": "-", "\u00b4": "'", "\u00b8": ",",
    "\u00bc": "/", "\u00bd": "/", "\u00be": "/", "\u00b2": "2", "\u00b3": "3", "\u00b9": "1",
    "\u2010": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2016": "|",
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2020": "+", "\u2021": "+",
    "\u2022": "*", "\u2024": ".", "\u2025": ":", "\u2026": ".", "\u2027": ".", "\u2030": "%",
    "\u2032": "'", "\u2033": '"', "\u2035": "`", "\u203b": "*", "\u203e": "-",
    "\u2103": "C", "\u2116": "N", "\u2121": "T", "\u2122": "T", "\u2126": "O", "\u212b": "A",
    "\u20ac": "E",
    # arrows
    "\u2190": "<", "\u2191": "^", "\u2192": ">", "\u2193": "v", "\u2194": "-", "\u2195": "|",
    "\u2196": "\\", "\u2197": "/", "\u2198": "\\", "\u2199": "/", "\u21b8": "\\", "\u21b9": "|",
    "\u21d2": ">", "\u21d4": "=", "\u21e7": "^",
    # mathematics
    "\u2200": "A", "\u2202": "d", "\u2203": "E", "\u2207": "V", "\u2208": "e", "\u220b": "e",
    "\u220f": "P", "\u2211": "S", "\u2215": "/", "\u221a": "V", "\u221d": "~", "\u221e": "8",
    "\u221f": "L", "\u2220": "<", "\u2223": "|", "\u2225": "|", "\u2227": "^", "\u2228": "v",
    "\u2229": "n", "\u222a": "u", "\u222b": "S", "\u222c": "S", "\u222e": "S", "\u2234": ":",
    "\u2235": ":", "\u2236": ":", "\u2237": ":", "\u223c": "~", "\u223d": "~", "\u2248": "~",
    "\u224c": "=", "\u2252": "=", "\u2260": "#", "\u2261": "=", "\u2264": "<", "\u2265": ">",
    "\u2266": "<", "\u2267": ">", "\u226a": "<", "\u226b": ">", "\u226e": "<", "\u226f": ">",
    "\u2282": "(", "\u2283": ")", "\u2286": "(", "\u2287": ")", "\u2295": "+", "\u2299": "o",
    "\u22a5": "T", "\u22bf": "/", "\u2312": "^",
    # block elements: a heavy block is a cell of the foreground colour, a light one a line
    "\u2580": REVERSE_SPACE, "\u2588": REVERSE_SPACE, "\u2589": REVERSE_SPACE,
    "\u258a": REVERSE_SPACE, "\u258b": REVERSE_SPACE, "\u258c": REVERSE_SPACE,
    "\u2590": REVERSE_SPACE, "\u2584": REVERSE_SPACE, "\u2585": REVERSE_SPACE,
    "\u2586": REVERSE_SPACE, "\u2587": REVERSE_SPACE,
    "\u2581": "_", "\u2582": "_", "\u2583": "_", "\u2594": "-", "\u258d": "|", "\u258e": "|",
    "\u258f": "|", "\u2595": "|", "\u2591": ".", "\u2592": ":", "\u2593": "#",
    # geometric shapes
    "\u25a0": "#", "\u25a1": "o", "\u25a3": "#", "\u25a4": "#", "\u25a5": "#", "\u25a6": "#",
    "\u25a7": "#", "\u25a8": "#", "\u25a9": "#", "\u25b2": "^", "\u25b3": "^", "\u25b6": ">",
    "\u25b7": ">", "\u25bc": "v", "\u25bd": "v", "\u25c0": "<", "\u25c1": "<", "\u25c6": "*",
    "\u25c7": "*", "\u25c8": "*", "\u25cb": "o", "\u25ce": "o", "\u25cf": "*", "\u25d0": "o",
    "\u25d1": "o", "\u25e2": "/", "\u25e3": "\\", "\u25e4": "\\", "\u25e5": "/", "\u25ef": "O",
    "\u2605": "*", "\u2606": "*", "\u2609": "o", "\u260e": "T", "\u260f": "T", "\u261c": "<",
    "\u261e": ">", "\u2640": "F", "\u2642": "M", "\u2660": "S", "\u2661": "H", "\u2663": "C",
    "\u2664": "S", "\u2665": "H", "\u2667": "C", "\u2668": "~", "\u2669": "d", "\u266a": "d",
    "\u266c": "d", "\u266d": "b", "\u266f": "#", "\u2713": "v", "\u2716": "x", "\u273d": "*",
    "\u2776": "1", "\ufffd": "?",
}


def _box(name: str) -> str:
    """A box-drawing character by its name: a line, a corner or a crossing in ASCII (as
    Textual's ``ascii`` border draws them)."""
    if "DIAGONAL" in name:
        if "CROSS" in name:
            return "X"
        return "/" if "UPPER RIGHT TO LOWER LEFT" in name else "\\"
    vertical = "VERTICAL" in name or " UP" in name or " DOWN" in name
    horizontal = "HORIZONTAL" in name or " LEFT" in name or " RIGHT" in name
    if "ARC" in name or (vertical and horizontal):
        return "+"
    return "|" if vertical else "-"


def _fallback(ch: str) -> str:
    """An ambiguous character without an explicit replacement: its compatibility form if
    that is one narrow character (① → 1), a letter's Latin look-alike by its name (π → p,
    Д → D), else ``?``."""
    decomposed = "".join(c for c in unicodedata.normalize("NFKD", ch)
                         if not unicodedata.combining(c))
    if len(decomposed) == 1 and decomposed.isascii() and decomposed.isprintable():
        return decomposed
    name = unicodedata.name(ch, "")
    if name.startswith("BOX DRAWINGS"):
        return _box(name)
    if unicodedata.category(ch).startswith("L") and " LETTER " in name:
        letter = name.rsplit(" LETTER ", 1)[1][:1]
        if letter.isascii() and letter.isalpha():
            return letter.lower() if " SMALL " in name else letter
    if unicodedata.category(ch) == "Nd":
        return str(unicodedata.digit(ch, 0))
    return "?"


@cache
def narrow_table() -> dict[int, str]:
    """``str.translate``'s table: every ambiguous character of the Basic Multilingual Plane
    that takes one cell (by Rich's count) to its narrow replacement of one cell. Characters
    of no width (combining marks) are left as they are."""
    table: dict[int, str] = {}
    for code in range(0x80, 0x10000):
        ch = chr(code)
        if unicodedata.east_asian_width(ch) != "A" or cell_len(ch) != 1:
            continue
        if 0xE000 <= code <= 0xF8FF:  # private use: a font's own symbols
            table[code] = "?"
            continue
        table[code] = _EXPLICIT.get(ch) or _fallback(ch)
    return table


@cache
def _replacer() -> tuple[re.Pattern[str], dict[str, str]]:
    """A pattern of runs of the characters :func:`narrow_table` replaces (the private use
    planes 15 and 16 too, ambiguous as well: Nerd Font icons and the like), and the table by
    character. A frame holds few of them among much else: scanning for them in C and
    replacing only those is several times quicker than ``str.translate`` over the frame."""
    table = narrow_table()
    codes = sorted(table)
    ranges: list[tuple[int, int]] = []
    for code in codes:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    ranges += [(0xF0000, 0xFFFFD), (0x100000, 0x10FFFD)]
    spans = "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                    for a, b in ranges)
    return re.compile(f"[{spans}]+"), {chr(code): text for code, text in table.items()}


def _replace_run(match: re.Match[str]) -> str:
    by_char = _replacer()[1]
    return "".join([by_char.get(ch, "?") for ch in match.group()])


def to_narrow(text: str) -> str:
    """``text`` as a terminal that draws ambiguous characters wide should get it: each one
    replaced by a narrow character of the same one cell (escape sequences are ASCII and
    pass unchanged)."""
    if text.isascii():
        return text
    return _replacer()[0].sub(_replace_run, text)


def is_ambiguous(ch: str) -> bool:
    """Whether ``ch`` is an ambiguous character that takes a cell (by Rich's count)."""
    return unicodedata.east_asian_width(ch) == "A" and cell_len(ch) == 1
