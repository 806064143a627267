"""A short summary of each ruleset's patterns and payments for the help screen.

Taken from ``rules/yichun.md``, ``shangrao.md`` and ``gejiu.md``; the scorer (``engine``) is
the authority, this is what a player reads. Every pattern keeps its Chinese name.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.rulesets import RULESETS, Gejiu, Shangrao, Yichun


@dataclass(frozen=True)
class PatternLine:
    zh: str
    en: str
    value: str


@dataclass(frozen=True)
class RulesSummary:
    rules: str
    patterns: tuple[PatternLine, ...]
    modifiers: tuple[PatternLine, ...]
    payments_en: tuple[str, ...]
    payments_zh: tuple[str, ...]

    @property
    def zh(self) -> str:
        return RULESETS[self.rules].zh

    @property
    def en(self) -> str:
        return RULESETS[self.rules].en


P = PatternLine

YICHUN = RulesSummary(
    Yichun.name,
    patterns=(
        P("平糊", "Basic hand (wind and dragon sets count)", "1"),
        P("清一色", "Pure one suit", "5"),
        P("大七对", "All pungs", "3"),
        P("清一色大七", "Pure all pungs", "15"),
        P("小七对", "Seven pairs", "4"),
        P("豪华小七对", "Luxury seven pairs (N fours)", "4×2^N"),
        P("清一色小七", "Pure seven pairs", "20 (×2^N)"),
        P("十三烂", "Thirteen rotten", "2"),
        P("七星十三烂", "Seven-star 十三烂", "3"),
        P("字一色（不成阕）", "All honours, free form", "6"),
        P("字一色（成阕）", "All honours in sets", "12"),
        P("天糊", "Heavenly hand", "12"),
        P("地糊", "Earthly hand", "12"),
    ),
    modifiers=(
        P("门清", "Concealed self-draw", "×2"),
        P("单钓", "Single wait (four melds, no 暗杠)", "×2"),
        P("杠开", "Win on a kong replacement", "×2"),
        P("抢杠", "Robbing a 补杠", "×2"),
    ),
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
    Shangrao.name,
    patterns=(
        P("平糊", "Basic", "1"),
        P("平糊自摸", "Clean basic self-draw", "2"),
        P("碰碰糊", "All pungs (with wild)", "4"),
        P("清碰碰糊", "All pungs (clean)", "10"),
        P("宝吊头", "Wild head", "3"),
        P("碰碰糊宝吊头", "All-pungs wild head", "8"),
        P("宝吊宝", "Wild pairs wild", "6"),
        P("碰碰糊宝吊宝", "All-pungs 宝吊宝", "16"),
        P("宝吊无宝", "Wild wait resolved clean", "6"),
        P("碰碰糊宝吊无宝", "All-pungs 宝吊无宝", "16"),
        P("七对", "Seven pairs (with wild)", "4"),
        P("清七对", "Seven pairs (clean)", "10"),
        P("豪华七对", "Luxury seven pairs", "4×2^n"),
        P("清豪华七对", "Luxury seven pairs (clean)", "10×2^n"),
        P("十三浪", "Thirteen waves", "2 / 4 clean"),
        P("七星十三浪", "Seven-star 十三浪", "4 / 8 clean"),
        P("九幺", "Terminals and honours", "2 / 4 clean"),
        P("七星九幺", "Seven-star 九幺", "4 / 8 clean"),
        P("天糊", "Heavenly hand", "10 flat"),
        P("地糊", "Earthly hand", "10 flat"),
    ),
    modifiers=(
        P("杠开", "Win on kong replacement (k kongs)", "×2^k"),
        P("单吊", "Single wait", "×2"),
        P("飞宝", "Each wild the winner discarded", "×2"),
        P("九幺（名目）", "All terminals and honours", "×2"),
    ),
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
    Gejiu.name,
    patterns=(
        P("平胡", "Basic", "0番"),
        P("大对子", "All pungs", "1番"),
        P("小七对", "Seven pairs", "2番"),
        P("烂牌", "Knitted", "1番"),
        P("一般高", "Knitted, same height", "2番"),
        P("七星一般高", "Seven-star 一般高", "3番"),
        P("混一色", "Half flush", "+1番"),
        P("青一色", "Full flush", "+2番"),
        P("字一色", "All honours", "+3番"),
        P("一条龙", "Pure straight", "+1番"),
        P("塘子烂糊", "Win with the discard pond", "see rules"),
    ),
    modifiers=(
        P("杠上花", "Win on the kong tile", "+3番"),
        P("抢杠花", "Robbing the kong tile", "+3番"),
        P("自摸", "Self-draw", "+1番"),
    ),
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

SUMMARIES = {s.rules: s for s in (YICHUN, SHANGRAO, GEJIU)}
