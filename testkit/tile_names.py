"""Tile spellings that only the tests read (the product shows tiles by ``engine.tiles`` and
``tui``'s faces): Tenhou's ``1z``–``7z`` and the full names in Chinese and English."""

from __future__ import annotations

from typing import Final

from engine.tiles import TENHOU_Z, ZH_HONOURS, ZH_NUMERALS, Kind, kind_to_str

_ZH_SUITS: Final = ("万", "筒", "条")
_EN_SUITS: Final = ("Characters", "Dots", "Bamboo")
_EN_HONOURS: Final = (
    "East Wind", "South Wind", "West Wind", "North Wind",
    "Red Dragon", "Green Dragon", "White Dragon",
)


def tenhou_str(kind: Kind) -> str:
    """Tenhou's spelling: ``5m``, ``1z`` (东) … ``7z`` (中)."""
    if kind < 27:
        return kind_to_str(kind)
    inverse = {v: k for k, v in TENHOU_Z.items()}
    return f"{inverse[kind]}z"


def name_zh(kind: Kind) -> str:
    """一万 … 九条, 东 南 西 北 中 發 白."""
    if kind >= 27:
        return ZH_HONOURS[kind - 27]
    return ZH_NUMERALS[kind % 9] + _ZH_SUITS[kind // 9]


def name_en(kind: Kind) -> str:
    """"5 Characters", "East Wind", "Red Dragon" …"""
    if kind >= 27:
        return _EN_HONOURS[kind - 27]
    return f"{kind % 9 + 1} {_EN_SUITS[kind // 9]}"
