"""Plain mode's names (``--plain``) in English and Chinese: tiles by name, a run of tiles in
running text, the seats; its sentences are in the catalogue (:mod:`words.plain`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from engine.tiles import Kind
from words import ABSOLUTE

_EN_SUITS: Final = ("characters", "dots", "bamboo")
_EN_SUIT: Final = ("character", "dot", "bamboo")  # one tile: "1 character", not "1 characters"
_ZH_SUITS: Final = ("万", "筒", "条")
_ZH_NUMERALS: Final = "一二三四五六七八九"
# 發 as the table draws it (and as the tile is carved), not the simplified 发
_EN_HONOURS: Final = ("east wind", "south wind", "west wind", "north wind",
                      "red dragon 中", "green dragon 發", "white dragon 白")
_ZH_HONOURS: Final = ("东风", "南风", "西风", "北风", "红中", "發財", "白板")

SEATS: Final = ABSOLUTE  # a seat by its wind: East / 东家
RELATIVE: Final = {
    "en": ("you", "on your right", "across", "on your left"),
    "zh": ("你", "下家", "对家", "上家"),
}


def tile_name(kind: Kind, lang: str) -> str:
    """``5 bamboo`` / ``五条``; ``1 character``; ``east wind`` / ``东风``."""
    if kind >= 27:
        return (_ZH_HONOURS if lang == "zh" else _EN_HONOURS)[kind - 27]
    if lang == "zh":
        return _ZH_NUMERALS[kind % 9] + _ZH_SUITS[kind // 9]
    return f"{kind % 9 + 1} {_EN_SUIT[kind // 9]}"


def tiles_names(kinds: Iterable[Kind], lang: str) -> str:
    """Tiles in running text, a suit's numbers together: ``1 2 3 characters, east wind``
    / ``一二三万 东风``."""
    groups: list[str] = []
    run: list[Kind] = []

    def flush() -> None:
        if not run:
            return
        suit = run[0] // 9
        if lang == "zh":
            groups.append("".join(_ZH_NUMERALS[k % 9] for k in run) + _ZH_SUITS[suit])
        else:
            suits = _EN_SUITS if len(run) > 1 else _EN_SUIT
            groups.append(" ".join(str(k % 9 + 1) for k in run) + " " + suits[suit])
        run.clear()

    for k in kinds:
        if k < 27 and (not run or run[0] // 9 == k // 9):
            run.append(k)
            continue
        flush()
        if k < 27:
            run.append(k)
        else:
            groups.append(tile_name(k, lang))
    flush()
    return (" " if lang == "zh" else ", ").join(groups)
