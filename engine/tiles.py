"""Tiles: 34 kinds, 136 physical tiles, and the notation of ``rules/common.md`` §1.

Two encodings are used throughout the engine (as in the ``mahjong`` library):

* a **kind** is an ``int`` 0–33: ``0–8`` characters 1m–9m (万), ``9–17`` dots 1p–9p (筒),
  ``18–26`` bamboo 1s–9s (条), ``27–30`` the winds E S W N (东南西北), ``31–33`` the dragons
  Z F B (中 發 白);
* a **tile id** is an ``int`` 0–135 naming one physical tile; its kind is ``tile_id // 4``.

Notation (parsed and printed in pairs, like python-chess's ``Move.from_uci`` / ``.uci``)::

    parse_tiles("123m 55p EEE")  -> [0, 1, 2, 13, 13, 27, 27, 27]
    format_tiles([0, 1, 2, 13, 13, 27, 27, 27]) -> "123m 55p EEE"

Tenhou's ``1z``–``7z`` are accepted too (1z 东 … 4z 北, 5z 白, 6z 發, 7z 中), and so are the
Chinese honour characters (东南西北中發发白).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

Kind = int
TileId = int

NUM_KINDS: Final = 34
NUM_TILES: Final = 136

HONOR: Final = 3  # suit_of an honour (the suits are 0 万, 1 筒, 2 条)

EAST: Final = 27
SOUTH: Final = 28
WEST: Final = 29
NORTH: Final = 30
RED: Final = 31  # 中 Z
GREEN: Final = 32  # 發 F
WHITE: Final = 33  # 白 B

WINDS: Final = (EAST, SOUTH, WEST, NORTH)
DRAGONS: Final = (RED, GREEN, WHITE)

SUIT_LETTERS: Final = "mps"
HONOUR_LETTERS: Final = "ESWNZFB"
# Tenhou's z-numbering: 1z E, 2z S, 3z W, 4z N, 5z 白, 6z 發, 7z 中.
TENHOU_Z: Final = {1: EAST, 2: SOUTH, 3: WEST, 4: NORTH, 5: WHITE, 6: GREEN, 7: RED}
CHINESE_HONOURS: Final = {
    "东": EAST, "東": EAST, "南": SOUTH, "西": WEST, "北": NORTH,
    "中": RED, "發": GREEN, "发": GREEN, "白": WHITE,
}

ZH_NUMERALS: Final = "一二三四五六七八九"
_ZH_SUITS_TRAD: Final = ("萬", "筒", "條")
ZH_HONOURS: Final = ("东", "南", "西", "北", "中", "發", "白")


class TileParseError(ValueError):
    """Tile notation that could not be read; the message says what and where."""

    def __init__(self, text: str, position: int, problem: str) -> None:
        self.text = text
        self.position = position
        self.problem = problem
        super().__init__(f"cannot read tiles {text!r} at position {position}: {problem}")


# --- kinds ---------------------------------------------------------------------------------


def suit_of(kind: Kind) -> int:
    """0 man, 1 pin, 2 sou, 3 honour."""
    return kind // 9 if kind < 27 else HONOR


def is_honour(kind: Kind) -> bool:
    return kind >= 27


def is_terminal(kind: Kind) -> bool:
    """A 1 or a 9 of a suit (幺九)."""
    return kind < 27 and kind % 9 in (0, 8)


def is_terminal_or_honour(kind: Kind) -> bool:
    return kind >= 27 or kind % 9 in (0, 8)


def kind_to_str(kind: Kind) -> str:
    """``5m``, ``E``, ``Z`` …"""
    if not 0 <= kind < NUM_KINDS:
        raise ValueError(f"not a tile kind: {kind}")
    if kind >= 27:
        return HONOUR_LETTERS[kind - 27]
    return f"{kind % 9 + 1}{SUIT_LETTERS[kind // 9]}"


def face_zh(kind: Kind) -> tuple[str, str]:
    """Two-row CJK face: numeral over suit (五 over 萬); honours as one character, blank below."""
    if kind >= 27:
        return ZH_HONOURS[kind - 27], ""
    return ZH_NUMERALS[kind % 9], _ZH_SUITS_TRAD[kind // 9]


def next_kind(kind: Kind) -> Kind:
    """Successor used for Shangrao's wild (宝): 9→1 in a suit, E→S→W→N→E, 中→發→白→中."""
    if kind < 27:
        return kind - kind % 9 + (kind % 9 + 1) % 9
    if kind <= NORTH:
        return EAST + (kind - EAST + 1) % 4
    return RED + (kind - RED + 1) % 3


# --- parsing and printing --------------------------------------------------------------------


def parse_tiles(text: str) -> list[Kind]:
    """Parse notation into kinds, in the order written.

    Accepts ``123m 456p 789s``, honour letters ``E S W N Z F B`` (upper case), Tenhou ``1-7z``
    and the Chinese honour characters. Whitespace and commas separate freely.
    Raises :class:`TileParseError` naming the position and the problem.
    """
    kinds: list[Kind] = []
    pending: list[tuple[int, int]] = []  # (digit, position) waiting for a suit letter
    for pos, ch in enumerate(text):
        if ch.isdigit() and ch.isascii():
            pending.append((int(ch), pos))
        elif ch in "mps":
            if not pending:
                raise TileParseError(text, pos, f"suit letter {ch!r} has no digits before it")
            suit = SUIT_LETTERS.index(ch)
            for digit, dpos in pending:
                if digit == 0:
                    raise TileParseError(
                        text, dpos, f"'0{ch}' is not a tile (ranks are 1-9; no red fives)"
                    )
                kinds.append(suit * 9 + digit - 1)
            pending.clear()
        elif ch == "z":
            if not pending:
                raise TileParseError(text, pos, "suit letter 'z' has no digits before it")
            for digit, dpos in pending:
                if digit not in TENHOU_Z:
                    raise TileParseError(
                        text, dpos, f"'{digit}z' is not a tile (Tenhou honours are 1z-7z)"
                    )
                kinds.append(TENHOU_Z[digit])
            pending.clear()
        elif ch in HONOUR_LETTERS or ch in CHINESE_HONOURS:
            if pending:
                raise TileParseError(
                    text, pending[0][1], "digits have no suit letter (m, p, s or z) after them"
                )
            kinds.append(
                27 + HONOUR_LETTERS.index(ch) if ch in HONOUR_LETTERS else CHINESE_HONOURS[ch]
            )
        elif ch.isspace() or ch == ",":
            if pending:
                raise TileParseError(
                    text, pending[0][1], "digits have no suit letter (m, p, s or z) after them"
                )
        else:
            hint = ""
            if ch in "eswnzfb":
                hint = " (honour letters are upper case: E S W N Z F B)"
            raise TileParseError(text, pos, f"unknown character {ch!r}{hint}")
    if pending:
        raise TileParseError(
            text, pending[0][1], "digits have no suit letter (m, p, s or z) after them"
        )
    return kinds


def parse_tile(text: str) -> Kind:
    """Parse exactly one tile, e.g. ``"5m"`` or ``"Z"``."""
    kinds = parse_tiles(text)
    if len(kinds) != 1:
        raise TileParseError(text, 0, f"expected exactly one tile, found {len(kinds)}")
    return kinds[0]


def format_tiles(kinds: Iterable[Kind], sort: bool = True) -> str:
    """Print kinds in notation: ``123m 55p EEE``.

    With ``sort`` (the default) tiles are sorted and grouped by suit, honours last as one group;
    otherwise the written order is kept and a new group starts whenever the suit changes.
    ``parse_tiles(format_tiles(x))`` gives ``sorted(x)`` (or ``x`` with ``sort=False``).
    """
    seq = sorted(kinds) if sort else list(kinds)
    groups: list[str] = []
    current_suit: int | None = None
    buf: list[str] = []

    def flush() -> None:
        if not buf:
            return
        if current_suit == HONOR:
            groups.append("".join(buf))
        else:
            assert current_suit is not None
            groups.append("".join(buf) + SUIT_LETTERS[current_suit])
        buf.clear()

    for k in seq:
        if not 0 <= k < NUM_KINDS:
            raise ValueError(f"not a tile kind: {k}")
        s = suit_of(k)
        if s != current_suit:
            flush()
            current_suit = s
        buf.append(HONOUR_LETTERS[k - 27] if s == HONOR else str(k % 9 + 1))
    flush()
    return " ".join(groups)


# --- count arrays ----------------------------------------------------------------------------


def to_counts(kinds: Iterable[Kind]) -> list[int]:
    """34-entry count array of kinds."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[Kind]:
    out: list[Kind] = []
    for k, n in enumerate(counts):
        out.extend([k] * n)
    return out
