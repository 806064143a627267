"""East Asian ambiguous width (Unicode's ``A`` class): characters such as ``│ ─ █ · → × … ▶``
that many terminals of Chinese players draw two cells wide (PuTTY's and Xshell's CJK options,
iTerm2's and GNOME Terminal's "ambiguous characters are wide", CJK Windows consoles), while
Rich and Textual count them as one. On such a terminal every row holding one is wider than
the program thinks, and the screen falls apart.

Two parts:

* the **probe** (:data:`PROBE`, :func:`probe_answer`): at the start of a session, before the
  first frame, write an ambiguous character at the line's start and ask for the cursor's
  position (``CSI 6n``), as vim does for ``ambiwidth``; column 3 means wide, 2 narrow, no
  answer within :data:`PROBE_TIMEOUT` is taken as narrow; the same write then asks after a
  tile of the glyph face (:data:`GLYPH_PROBE_CHAR`), which tmux and many terminals draw two
  cells wide: there the glyph face is not used (``tui.settings.Settings.face_shown``);
* the **narrow glyph set** (:func:`to_narrow`): on a wide terminal every ambiguous character a
  frame carries is replaced, as the frame is written to the terminal, by one that is narrow by
  definition and takes the same one cell (``│`` → ``|``, ``─`` → ``-``, rounded corners
  → ``+``, ``·`` → ``.``, ``×`` → ``x``; a full block becomes a space in reverse video, so a
  timer bar keeps its colour). The table's marks stay apart: ``▶`` (the seat to act) → ``»``,
  the arrows ``←`` ``→`` (a meld's ``←S``, claimed from South; the keys) → ``◄`` ``►``, while
  ``<`` and ``>`` keep the latest discard and the hand's cursor. Layout is untouched: every
  row keeps the cell count Textual computed, and lines up on either kind of terminal. This is
  done per terminal (the driver's output), not by changing Rich's width function, which is
  shared by every session of a server process.

The setting (:class:`AmbiWidth`): ``auto`` (the probe's answer), ``narrow`` or ``wide``.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from functools import cache

from rich.cells import cell_len

PROBE_CHAR = "\u00b7"  # · MIDDLE DOT: ambiguous, in every terminal font
# a tile of the glyph face (tui.view.faces), which Rich counts as one cell and tmux and many
# terminals draw two cells wide (emoji-like); the face is used only where it takes one
GLYPH_PROBE_CHAR = "\U0001f007"  # 🀇 MAHJONG TILE ONE OF CHARACTERS
# to the line's start, the ambiguous character, then "where is the cursor?"; the same for the
# tile: a terminal answers both, in order
PROBE = "\r" + PROBE_CHAR + "\x1b[6n" + "\r" + GLYPH_PROBE_CHAR + "\x1b[6n"
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
    """Finds the first answer to :data:`PROBE` in ``data`` (what the client sent): whether the
    terminal draws ambiguous characters wide (None: no answer in ``data``), and ``data``
    without the answer (keys the player typed meanwhile are kept, in order)."""
    match = CPR.search(data)
    if match is None:
        return None, data
    return column_wide(int(match.group(2))), data[:match.start()] + data[match.end():]


def probe_answers(data: bytes, most: int = 2) -> tuple[list[int], bytes]:
    """The answers to :data:`PROBE` in ``data``, in order, at most ``most``: the cursor's
    column (1-based) after the ambiguous character, then after the tile (2 where it took one
    cell); and ``data`` without them (the keys typed meanwhile kept, in order)."""
    columns: list[int] = []
    rest = data
    while len(columns) < most:
        match = CPR.search(rest)
        if match is None:
            break
        columns.append(int(match.group(2)))
        rest = rest[:match.start()] + rest[match.end():]
    return columns, rest


def glyph_cells(column: int) -> int:
    """The cells the probe's tile took, from the cursor's column after it (1-based)."""
    return max(column - 1, 0)


# --- the narrow glyph set ---------------------------------------------------------------------

def _pairs(text: str) -> dict[str, str]:
    """Replacements written as pairs, each character followed by its narrow one (``"·. ×x"``)."""
    pairs = text.split()
    return {pair[0]: pair[1:] for pair in pairs}


_EXPLICIT: dict[str, str] = {
    # punctuation and signs
    **_pairs("·. ×x ÷/ ±+ °o §S ¶P ¡! ¿? ªa ºo ®R ¤$ ¨\" \u00ad- ´' ¸, ¼/ ½/ ¾/ ²2 ³3 ¹1 ‐- –- "
             "—- ―- ‖| ‘' ’' “\" ”\" †+ ‡+ •* ․. ‥: …. ‧. ‰% ′' ″\" ‵` ※* ‾- ℃C №N ℡T ™T ΩO ÅA "
             "€E"),
    # arrows. ``<`` and ``>`` are marks of the table already (the latest discard, the hand's
    # cursor): a meld's ``←S`` (claimed from South) and the keys' ``←/→`` take narrow
    # pointers instead (in WGL4, so in the fonts of Windows consoles too)
    **_pairs("←◄ ↑^ →► ↓v ↔- ↕| ↖\\ ↗/ ↘\\ ↙/ ↸\\ ↹| ⇒> ⇔= ⇧^"),
    # mathematics
    **_pairs("∀A ∂d ∃E ∇V ∈e ∋e ∏P ∑S ∕/ √V ∝~ ∞8 ∟L ∠< ∣| ∥| ∧^ ∨v ∩n ∪u ∫S ∬S ∮S ∴: ∵: ∶: ∷: "
             "∼~ ∽~ ≈~ ≌= ≒= ≠# ≡= ≤< ≥> ≦< ≧> ≪< ≫> ≮< ≯> ⊂( ⊃) ⊆( ⊇) ⊕+ ⊙o ⊥T ⊿/ ⌒^"),
    # block elements: a heavy block is a cell of the foreground colour, a light one a line
    **dict.fromkeys("▀█▉▊▋▌▐▄▅▆▇", REVERSE_SPACE),
    **_pairs("▁_ ▂_ ▃_ ▔- ▍| ▎| ▏| ▕| ░. ▒: ▓#"),
    # geometric shapes; ▶, the mark of the seat to act, is ``»``: not the cursor's ``>``, nor
    # the arrows' pointers
    **_pairs("■# □o ▣# ▤# ▥# ▦# ▧# ▨# ▩# ▲^ △^ ▶» ▷> ▼v ▽v ◀« ◁< ◆* ◇* ◈* ○o ◎o ●* ◐o ◑o ◢/ ◣\\ "
             "◤\\ ◥/ ◯O ★* ☆* ☉o ☎T ☏T ☜< ☞> ♀F ♂M ♠S ♡H ♣C ♤S ♥H ♧C ♨~ ♩d ♪d ♬d ♭b ♯# ✓v ✖x ✽* "
             "❶1 �?"),
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
