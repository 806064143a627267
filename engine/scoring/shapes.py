"""The winning shapes of each ruleset (``engine.hands.HandShapes``), with the pattern values its
hints show. Beside the scorers, which read them, and below the rulesets, which declare them
(``engine.rulesets`` imports scoring, never the other way): it needs nothing but
``engine.hands``."""

from __future__ import annotations

from typing import Final

from engine.hands import HandShapes, Reading

LANPAI_FAN: Final = {"烂牌": 1, "一般高": 2, "七星一般高": 3}  # Gejiu 烂牌 family (gejiu.md §6)


def yichun_hint(r: Reading, one_suit: bool, all_honours: bool) -> tuple[int, str]:
    """A reading's base value for the hints (the pattern table, no situational modifiers)."""
    if r.shape == "standard":
        if all_honours:
            return 12, "字一色"
        if r.pungs:
            return (15, "清一色大七") if one_suit else (3, "大七对")
        return (5, "清一色") if one_suit else (1, "平糊")
    if r.shape == "seven_pairs":
        v = 4 * 2**r.quads * (5 if one_suit else 1)
        name = ("清一色" if one_suit else "") + ("豪华小七对" if r.quads else "小七对")
        return v, name
    if r.shape == "knitted":
        return (3, "七星十三烂") if r.seven_star else (2, "十三烂")
    return 6, "字一色"


def shangrao_hint(r: Reading, one_suit: bool, all_honours: bool) -> tuple[int, str]:
    """A reading's base value for the hints (self-draw assumed for 平糊自摸)."""
    term = 2 if r.terminal and r.shape in ("standard", "seven_pairs") else 1
    if r.shape == "standard":
        if r.pungs:
            return (10 * term, "清碰碰糊") if r.clean else (4 * term, "碰碰糊")
        return (2, "平糊自摸") if r.clean else (1, "平糊")
    if r.shape == "seven_pairs":
        base = 10 if r.clean else 4
        name = ("清" if r.clean else "") + ("豪华七对" if r.quads else "七对")
        return base * 2**r.quads * term, name
    mult = 2 if r.clean else 1
    if r.shape == "knitted":
        return (4 * mult, "七星十三浪") if r.seven_star else (2 * mult, "十三浪")
    return (4 * mult, "七星九幺") if r.seven_star else (2 * mult, "九幺")


def gejiu_hint(r: Reading, one_suit: bool, all_honours: bool) -> tuple[int, str]:
    """A reading's fan for the hints (suit and shape, no situational fan)."""
    suit = 3 if all_honours else 2 if one_suit else 0
    if r.shape == "standard":
        return suit + (1 if r.pungs else 0), "大对子" if r.pungs else "平胡"
    if r.shape == "seven_pairs":
        return suit + 2, "小七对"
    return LANPAI_FAN[r.family], r.family


# Sets include any three winds and 中發白; 十三烂 and 字一色 in any form (yichun.md §3).
YICHUN_SHAPES: Final[HandShapes] = HandShapes(
    "yichun", honour_sets=True, knitted=True, zi_free=True, hint_value=yichun_hint
)
# The 宝 wild; 十三浪 and 九幺 (shangrao.md §4).
SHANGRAO_SHAPES: Final[HandShapes] = HandShapes(
    "shangrao", wild=True, knitted=True, jiuyao=True, hint_value=shangrao_hint
)
# Honours only as pungs; the 烂牌 family (gejiu.md §4, §6).
GEJIU_SHAPES: Final[HandShapes] = HandShapes("gejiu", lanpai=True, hint_value=gejiu_hint)
