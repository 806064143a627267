"""A short summary of each ruleset's patterns and payments for the help screen.

The pattern and modifier rows are the ruleset's own table (``Ruleset.patterns``, which its
scorer reads), so the help shows the values the scorer pays; the payments are taken from
``rules/yichun.md``, ``shangrao.md`` and ``gejiu.md``. Every pattern keeps its Chinese name.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.rulesets import Gejiu, Ruleset, Shangrao, Yichun


@dataclass(frozen=True)
class PatternLine:
    zh: str
    en: str
    value: str


@dataclass(frozen=True)
class RulesSummary:
    ruleset: type[Ruleset]
    payments_en: tuple[str, ...]
    payments_zh: tuple[str, ...]

    @property
    def patterns(self) -> tuple[PatternLine, ...]:
        return tuple(PatternLine(*p.help_line) for p in self.ruleset.patterns.patterns)

    @property
    def modifiers(self) -> tuple[PatternLine, ...]:
        return tuple(PatternLine(*p.help_line) for p in self.ruleset.patterns.modifiers)


YICHUN = RulesSummary(
    Yichun,
    payments_en=(
        "Self-draw: all three pay V. Discard: the discarder pays 2×V (option).",
        "买 buying: a buyer's receipts and payments double (both bought: 对火 ×4).",
        "The dealer and the owner of the broken wall must buy.",
        "丢打火机 (lighter): every hand payment doubles again.",
        "Kong points: 明杠 1, 暗杠 2 from each other player. Several winners may win one discard.",
    ),
    payments_zh=(
        "自摸三家各付 V；放冲者一家付 2×V（选项）。",
        "买：买者收付加倍，胡家与付家都买为对火 ×4。庄家和开门那家必须买。",
        "丢打火机：本盘所有胡牌支付再翻倍。",
        "杠分：明杠 1，暗杠 2，其他三家各付。不拦胡，一炮可多响。",
    ),
)

SHANGRAO = RulesSummary(
    Shangrao,
    payments_en=(
        "宝 wild: the tile after the indicator; it stands for any tile, never claimed.",
        "Self-draw only (option: discard wins, the discarder pays for all three).",
        "Each other player pays the hand value; 抢杠: the konger pays ×6 alone.",
        "Bonuses from each other player: 碰杠 1, 自摸杠 2, 接宝 10, 四个宝 10.",
    ),
    payments_zh=(
        "宝：翻开那张的下一张，可当任何牌，不能被吃碰。",
        "只能自摸（选项：可点炮，放炮者包三家）。",
        "其他三家各付牌值；抢杠由被抢杠者一家付 ×6。",
        "奖励分（其他三家各付）：碰杠 1，自摸杠 2，接宝 10，四个宝 10。",
    ),
)

GEJIU = RulesSummary(
    Gejiu,
    payments_en=(
        "Fan add up (+1 each: self-draw, the discarder, the dealer winning or paying); "
        "each payer pays 2^fan × base.",
        "Two face-up 杠牌 kong tiles are the kong replacements; 顶黄: drawn at 10 stacks.",
        "报听 (b): discard and declare ready; then you must discard each drawn tile.",
        "斗地主: in a circuit led by the dealer, if two others follow his tile the one who does "
        "not pays each 1; if all three follow (大地主) the dealer pays each 2.",
    ),
    payments_zh=(
        "番数相加，自摸、放炮者、庄家各加 1 番；每家付 2^番 × 底分。",
        "两张翻开的杠牌供杠后补牌；剩十墩即顶黄（流局）。",
        "报听（b）：打出并报听，之后摸什么打什么。",
        "斗地主：每圈以庄家打的牌为准，两家跟打则没跟的一家付每家 1 分；三家都跟（大地主）"
        "庄家付每家 2 分。",
    ),
)

SUMMARIES = {s.ruleset.name: s for s in (YICHUN, SHANGRAO, GEJIU)}
