"""Declared sets (melds): chi, peng and the three kinds of kong.

Notation (``common.md`` §1): ``[chi 345m]``, ``[peng 777p]``, ``[mgang 9999s]`` (明杠 from a
discard), ``[bgang 2222m]`` (补杠 / 加杠), ``[agang EEEE]`` (暗杠). The brackets are optional when
parsing (the ``score`` input writes ``"peng 222m"``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from engine.tiles import Kind, TileId, TileParseError, format_tiles, parse_tiles


class MeldType(enum.Enum):
    CHI = "chi"  # 吃: a chow, or (Yichun) a wind / dragon set
    PENG = "peng"  # 碰
    MGANG = "mgang"  # 明杠 / 大明杠 (Shangrao 碰杠) claimed from a discard
    BGANG = "bgang"  # 补杠 / 加杠: an exposed peng completed to four
    AGANG = "agang"  # 暗杠 (Shangrao 自摸杠)

    @property
    def is_kong(self) -> bool:
        return self in (MeldType.MGANG, MeldType.BGANG, MeldType.AGANG)

    @property
    def zh(self) -> str:
        return {"chi": "吃", "peng": "碰", "mgang": "明杠", "bgang": "补杠", "agang": "暗杠"}[
            self.value
        ]


@dataclass(frozen=True)
class Meld:
    """One declared set. ``tiles`` are kinds in sorted order.

    ``claimed`` is the kind taken from another seat (chi / peng / 明杠; for a 补杠 the kind of the
    original peng's claimed tile) and ``source`` that seat; both ``None`` for a 暗杠 or when
    unknown (calculator input). ``ids`` are the physical tiles when the table knows them.
    """

    type: MeldType
    tiles: tuple[Kind, ...]
    claimed: Kind | None = None
    source: int | None = None
    ids: tuple[TileId, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        n = len(self.tiles)
        if self.type.is_kong:
            if n != 4 or len(set(self.tiles)) != 1:
                raise ValueError(f"a {self.type.value} is four identical tiles, got {self}")
        elif self.type is MeldType.PENG:
            if n != 3 or len(set(self.tiles)) != 1:
                raise ValueError(f"a peng is three identical tiles, got {self}")
        elif n != 3:
            raise ValueError(f"a chi is three tiles, got {self}")

    @property
    def kind(self) -> Kind:
        """The kind of a peng / kong (the lowest tile of a chi)."""
        return self.tiles[0]

    @property
    def is_kong(self) -> bool:
        return self.type.is_kong

    @property
    def is_pung_like(self) -> bool:
        """Peng or any kong (刻子 / 杠子)."""
        return self.type is not MeldType.CHI

    def notation(self) -> str:
        return f"[{self.type.value} {format_tiles(self.tiles)}]"

    def __str__(self) -> str:
        return self.notation()

    @classmethod
    def parse(cls, text: str) -> Meld:
        """``"[peng 777p]"`` or ``"peng 777p"`` → Meld. Raises :class:`TileParseError`."""
        body = text.strip()
        if body.startswith("[") and body.endswith("]"):
            body = body[1:-1].strip()
        word, _, rest = body.partition(" ")
        try:
            mtype = MeldType(word.lower())
        except ValueError:
            raise TileParseError(
                text, 0, f"unknown meld type {word!r} (chi, peng, mgang, bgang, agang)"
            ) from None
        kinds = tuple(sorted(parse_tiles(rest)))
        try:
            return cls(mtype, kinds)
        except ValueError as exc:
            raise TileParseError(text, 0, str(exc)) from None
