"""The winning shapes of each ruleset (``engine.hands.HandShapes``), with the pattern values its
hints show (read from the pattern tables). Beside the scorers, which read them, and below the
rulesets, which declare them (``engine.rulesets`` imports scoring, never the other way): it
needs nothing but ``engine.hands`` and the pattern tables."""

from __future__ import annotations

from typing import Final

from engine.hands import HandShapes, Reading
from engine.scoring.patterns import GEJIU, SHANGRAO, YICHUN


def yichun_hint(r: Reading, one_suit: bool, all_honours: bool) -> tuple[int, str]:
    """A reading's base value for the hints (the pattern table, no situational modifiers)."""
    if r.shape == "standard":
        if all_honours:
            return YICHUN["字一色（成阕）"].value, "字一色"
        if r.pungs:
            zh = "清一色大七" if one_suit else "大七对"
        else:
            zh = "清一色" if one_suit else "平糊"
        return YICHUN[zh].value, zh
    if r.shape == "seven_pairs":
        v = YICHUN["清一色小七" if one_suit else "小七对"].value * 2**r.quads
        name = ("清一色" if one_suit else "") + ("豪华小七对" if r.quads else "小七对")
        return v, name
    if r.shape == "knitted":
        zh = "七星十三烂" if r.seven_star else "十三烂"
        return YICHUN[zh].value, zh
    return YICHUN["字一色（不成阕）"].value, "字一色"


def shangrao_hint(r: Reading, one_suit: bool, all_honours: bool) -> tuple[int, str]:
    """A reading's base value for the hints (self-draw assumed for 平糊自摸)."""
    term = 1
    if r.terminal and r.shape in ("standard", "seven_pairs"):
        term = SHANGRAO["九幺（名目）"].value
    cl = "清" if r.clean else ""
    if r.shape == "standard":
        if r.pungs:
            return SHANGRAO[f"{cl}碰碰糊"].value * term, f"{cl}碰碰糊"
        zh = "平糊自摸" if r.clean else "平糊"
        return SHANGRAO[zh].value, zh
    if r.shape == "seven_pairs":
        name = cl + ("豪华七对" if r.quads else "七对")
        return SHANGRAO[f"{cl}七对"].value * 2**r.quads * term, name
    zh = ("七星" if r.seven_star else "") + ("十三浪" if r.shape == "knitted" else "九幺")
    return SHANGRAO[zh].clean if r.clean else SHANGRAO[zh].value, zh


def gejiu_hint(r: Reading, one_suit: bool, all_honours: bool) -> tuple[int, str]:
    """A reading's fan for the hints (suit and shape, no situational fan)."""
    suit = GEJIU["字一色"].value if all_honours else GEJIU["青一色"].value if one_suit else 0
    if r.shape == "lanpai":
        return GEJIU[r.family].value, r.family
    zh = "小七对" if r.shape == "seven_pairs" else "大对子" if r.pungs else "平胡"
    return suit + GEJIU[zh].value, zh


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
