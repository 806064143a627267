"""Each ruleset's pattern table: the patterns and modifiers with their Chinese and English names
and their value (points, a factor or fan, as the scorer uses it). The scorers and the hints read
their values here, and the in-game help summary (``tui.words.rules_text``) shows these rows, in
this order, so the help cannot drift from the scorer. Needs nothing but the standard library."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Final


@dataclass(frozen=True)
class Pattern:
    """One row. ``en`` is the scorer's name (records keep it); ``help_en`` the help's wording
    where it says more; ``shown`` formats the value for the help (``{}`` the value, ``{clean}``
    the value without wilds), which keeps a formula such as ``4×2^N`` beside its number."""

    zh: str
    en: str
    value: int
    shown: str = "{}"
    help_en: str = ""
    clean: int = 0  # Shangrao 十三浪 / 九幺 family: the value when no wild stands in

    @property
    def help_line(self) -> tuple[str, str, str]:
        """(Chinese, English, value) as the help summary shows the row."""
        return self.zh, self.help_en or self.en, self.shown.format(self.value, clean=self.clean)


@dataclass(frozen=True)
class PatternTable:
    patterns: tuple[Pattern, ...]
    modifiers: tuple[Pattern, ...]

    @cached_property
    def _by_zh(self) -> dict[str, Pattern]:
        return {p.zh: p for p in (*self.patterns, *self.modifiers)}

    def __getitem__(self, zh: str) -> Pattern:
        return self._by_zh[zh]


P = Pattern
TIMES: Final = "×{}"  # a modifier that multiplies the value

YICHUN: Final = PatternTable(  # yichun.md §4–6
    patterns=(
        P("平糊", "Basic hand", 1, help_en="Basic hand (wind and dragon sets count)"),
        P("清一色", "Pure one suit", 5),
        P("大七对", "All pungs", 3),
        P("清一色大七", "Pure all pungs", 15),
        P("小七对", "Seven pairs", 4),
        P("豪华小七对", "Luxury seven pairs", 4, "{}×2^N", "Luxury seven pairs (N fours)"),
        P("清一色小七", "Pure seven pairs", 20, "{} (×2^N)"),
        P("十三烂", "Thirteen rotten", 2),
        P("七星十三烂", "Seven-star thirteen rotten", 3, help_en="Seven-star 十三烂"),
        P("字一色（不成阕）", "All honours, free form", 6),
        P("字一色（成阕）", "All honours in sets", 12),
        P("天糊", "Heavenly hand", 12),
        P("地糊", "Earthly hand", 12),
    ),
    modifiers=(
        P("门清", "Concealed self-draw", 2, TIMES),
        P("单钓", "Single wait", 2, TIMES, "Single wait (four melds, no 暗杠)"),
        P("杠开", "Win on kong replacement", 2, TIMES, "Win on a kong replacement"),
        P("抢杠", "Robbing the kong", 2, TIMES, "Robbing a 补杠"),
    ),
)

CLEAN: Final = "{} / {clean} clean"
SHANGRAO: Final = PatternTable(  # shangrao.md §5–6
    patterns=(
        P("平糊", "Basic hand", 1, help_en="Basic"),
        P("平糊自摸", "Clean basic self-draw", 2),
        P("碰碰糊", "All pungs (wild)", 4, help_en="All pungs (with wild)"),
        P("清碰碰糊", "All pungs (clean)", 10),
        P("宝吊头", "Wild head", 3),
        P("碰碰糊宝吊头", "All-pungs wild head", 8),
        P("宝吊宝", "Wild pairs wild", 6),
        P("碰碰糊宝吊宝", "All-pungs wild pairs wild", 16, help_en="All-pungs 宝吊宝"),
        P("宝吊无宝", "Wild wait resolved clean", 6),
        P("碰碰糊宝吊无宝", "All-pungs wild wait resolved clean", 16,
          help_en="All-pungs 宝吊无宝"),
        P("七对", "Seven pairs (wild)", 4, help_en="Seven pairs (with wild)"),
        P("清七对", "Seven pairs (clean)", 10),
        P("豪华七对", "Luxury seven pairs", 4, "{}×2^n"),
        P("清豪华七对", "Luxury seven pairs (clean)", 10, "{}×2^n"),
        P("十三浪", "Thirteen waves", 2, CLEAN, clean=4),
        P("七星十三浪", "Seven-star Thirteen waves", 4, CLEAN, "Seven-star 十三浪", clean=8),
        P("九幺", "Terminals and honours", 2, CLEAN, clean=4),
        P("七星九幺", "Seven-star Terminals and honours", 4, CLEAN, "Seven-star 九幺", clean=8),
        P("天糊", "Heavenly hand", 10, "{} flat"),
        P("地糊", "Earthly hand", 10, "{} flat"),
    ),
    modifiers=(
        P("杠开", "Win on kong replacement", 2, "×{}^k", "Win on kong replacement (k kongs)"),
        P("单吊", "Single wait", 2, TIMES),
        P("飞宝", "Each wild the winner discarded", 2, TIMES),
        P("九幺（名目）", "All terminals and honours (名目)", 2, TIMES,
          "All terminals and honours"),
    ),
)

FAN: Final = "{}番"
PLUS_FAN: Final = "+{}番"  # added to a shape's fan
GEJIU: Final = PatternTable(  # gejiu.md §5–6
    patterns=(
        P("平胡", "Basic hand", 0, FAN, "Basic"),
        P("大对子", "All pungs", 1, FAN),
        P("小七对", "Seven pairs", 2, FAN),
        P("烂牌", "Rotten", 1, FAN),
        P("一般高", "Same height", 2, FAN),
        P("七星一般高", "Seven-star same height", 3, FAN, "Seven-star 一般高"),
        P("混一色", "Half flush", 1, PLUS_FAN),
        P("青一色", "Full flush", 2, PLUS_FAN),
        P("字一色", "All honours", 3, PLUS_FAN),
        P("一条龙", "Pure straight", 1, PLUS_FAN),
        P("塘子烂糊", "Winning with the discard pond", 0, "see rules",
          "Win with the discard pond"),
    ),
    modifiers=(
        P("杠上花", "Win on the kong tile", 3, PLUS_FAN),
        P("抢杠花", "Robbing the kong tile", 3, PLUS_FAN),
        P("自摸", "Self-draw", 1, PLUS_FAN),
    ),
)
