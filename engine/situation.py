"""The facts a hand's settlement depends on, and the settlement itself.

A :class:`Situation` is exactly the ``score`` input of ``rules/README.md`` in typed form: the
table engine builds one at the end of every hand and settles it through the same scorer the
``mahjong-ssh score`` calculator uses, so the two can never disagree.

Seats are ints 0–3 = E S W N (``common.md`` §3). Tiles are kinds (``engine.tiles``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.melds import Meld
from engine.tiles import Kind

SEAT_LETTERS = "ESWN"


def seat_name(seat: int) -> str:
    return SEAT_LETTERS[seat]


class WinMethod(enum.Enum):
    """``how`` in the ``score`` input."""

    SELF_DRAW = "self_draw"  # 自摸
    DISCARD = "discard"  # 放冲 / 点炮 / 点胡
    ROB_KONG = "rob_kong"  # 抢杠 (Gejiu 抢杠花: robbing the kong tile)
    KONG_REPLACEMENT = "kong_replacement"  # 杠开 / 杠上花
    HEAVENLY = "heavenly"  # 天糊
    EARTHLY = "earthly"  # 地糊
    POND = "pond"  # Gejiu 塘子烂糊

    @property
    def is_self_drawn(self) -> bool:
        return self in (
            WinMethod.SELF_DRAW,
            WinMethod.KONG_REPLACEMENT,
            WinMethod.HEAVENLY,
            WinMethod.POND,
        )


class BaoDiao(enum.Enum):
    """Shangrao 宝吊头 state of a winner at the moment of the win (``shangrao.md`` §5)."""

    NONE = "none"
    HEAD = "head"  # in 宝吊头 state, no 宝吊头 win declined yet
    TOUJI = "touji"  # at least one 宝吊头 win declined (偷机)


@dataclass(frozen=True)
class Win:
    """One winner. ``hand`` is the concealed tiles **before** the winning ``tile``."""

    seat: int
    hand: tuple[Kind, ...]
    melds: tuple[Meld, ...]
    tile: Kind | None
    how: WinMethod
    from_seat: int | None = None  # the discarder, or the robbed konger
    kongs_in_turn: int = 0  # consecutive kongs before a kong_replacement win
    baodiao: BaoDiao = BaoDiao.NONE


@dataclass(frozen=True)
class Spectator:
    """Yichun 压鸽子: a non-seated participant backing one seated player."""

    name: str
    backs: int


@dataclass(frozen=True)
class Situation:
    rules: str
    dealer: int = 0
    options: Mapping[str, Any] = field(default_factory=dict)
    wins: tuple[Win, ...] = ()
    kongs: Mapping[int, tuple[Meld, ...]] = field(default_factory=dict)
    # Yichun
    dice: int | None = None
    buyers: tuple[int, ...] | None = None
    lighters: int = 0
    spectators: tuple[Spectator, ...] = ()
    allow_spectators: tuple[int, ...] = (0, 1, 2, 3)
    last_drawer: int | None = None
    # Shangrao
    wild: Kind | None = None
    flown: Mapping[int, int] = field(default_factory=dict)
    got: Mapping[int, int] = field(default_factory=dict)
    jiebao: tuple[int, ...] = ()
    # Gejiu
    pond: tuple[Kind, ...] | None = None
    doudizhu: tuple[tuple[Kind, ...] | None, ...] = ()  # None = a void circuit


@dataclass(frozen=True)
class Item:
    """One pattern or modifier in an itemised result."""

    zh: str
    en: str
    value: str  # "×2", "+1番", "P=3", "10" … as the ruleset counts it
    tiles: tuple[Kind, ...] = ()


@dataclass(frozen=True)
class ReasonPart:
    """A piece of a payment's reason. ``text`` is how a record writes it (a rule's Chinese
    name then its English one, the figures); ``zh`` the same piece for a Chinese reader, where
    it differs; ``meld`` a meld that a screen shows as its tiles and a record in notation. A
    screen reads the parts in its language and never parses the reason back out of text."""

    text: str = ""
    zh: str | None = None
    meld: Meld | None = None

    def notation(self) -> str:
        return self.meld.notation() if self.meld is not None else self.text

    def reading(self, lang: str) -> str:
        """The text part for a reader of ``lang`` (``zh``: Chinese alone)."""
        return self.zh if lang == "zh" and self.zh is not None else self.text


def words(zh: str, en: str) -> ReasonPart:
    """A rule's name in both languages, as a record writes it: ``放冲 discarder``."""
    return ReasonPart(f"{zh} {en}", zh)


def reason(*parts: str | Meld | ReasonPart) -> tuple[ReasonPart, ...]:
    """Reason parts from text (the same in both languages), melds and parts in reading order;
    adjacent plain texts are one part."""
    out: list[ReasonPart] = []
    for p in parts:
        part = ReasonPart(meld=p) if isinstance(p, Meld) else (
            ReasonPart(p) if isinstance(p, str) else p)
        plain = part.meld is None and part.zh is None
        if plain and out and out[-1].meld is None and out[-1].zh is None:
            out[-1] = ReasonPart(out[-1].text + part.text)
        elif not plain or part.text:
            out.append(part)
    return tuple(out)


@dataclass(frozen=True)
class Transfer:
    """``payer`` → ``payee``; a party is a seat (int) or a spectator name (str)."""

    payer: int | str
    payee: int | str
    amount: int
    reason: tuple[ReasonPart, ...]

    @property
    def why(self) -> str:
        """The reason as one line of text (records, the calculator), melds in notation."""
        return "".join(p.notation() for p in self.reason)


@dataclass(frozen=True)
class WinScore:
    seat: int
    pattern_zh: str
    pattern_en: str
    items: tuple[Item, ...]
    value: int  # V (Yichun, Shangrao) or H fan (Gejiu)


@dataclass(frozen=True)
class Settlement:
    """A hand's payments; the seats' results and the spectators' (压鸽子) are kept apart, so a
    seat is always an index and a spectator always a name."""

    wins: tuple[WinScore, ...]
    transfers: tuple[Transfer, ...]
    seats: tuple[int, int, int, int]
    spectators: Mapping[str, int]
    next_dealer: int | None

    def seat_net(self, seat: int) -> int:
        return self.seats[seat]

    def parties(self) -> tuple[tuple[int | str, int], ...]:
        """Every party's net, seats first: for the formats that list both in one map."""
        return (*enumerate(self.seats), *self.spectators.items())
