"""宜春 Yichun (``rules/yichun.md``): honour sets, several winners, 买 / 丢打火机 / 压鸽子."""

from __future__ import annotations

from typing import ClassVar

from engine.hands import HandShapes
from engine.rulesets.base import COMMON_OPTIONS, BotProfile, OptionSpec, Ruleset
from engine.scoring import yichun as scoring
from engine.scoring.common import StakeRules
from engine.scoring.patterns import YICHUN, PatternTable
from engine.scoring.shapes import YICHUN_SHAPES


class Yichun(Ruleset):
    name: ClassVar[str] = "yichun"
    zh: ClassVar[str] = "宜春"
    en: ClassVar[str] = "Yichun"
    options_spec: ClassVar[tuple[OptionSpec, ...]] = (
        *COMMON_OPTIONS,
        OptionSpec(
            "discarder_pays_double", True,
            "The discarder (or robbed konger) pays double", "放冲乘2支付",
            brief_en="the discarder pays double", brief_zh="放冲者付双倍",
        ),
        OptionSpec(
            "max_lighters", 1,
            "Lighters (丢打火机) per hand; empty or unlimited = no limit, 0 = off",
            "打火机上限（空=不限，0=禁用）",
            0, 4, allow_none=True,
            brief_en="打火机 per hand, empty = any", brief_zh="打火机上限",
        ),
        OptionSpec(
            "spectator_stakes", True, "Spectators may stake (压鸽子)", "允许压鸽子",
            brief_en="spectators may back a seat", brief_zh="旁观可压鸽子",
        ),
    )
    honour_chi: ClassVar[bool] = True
    several_discard_winners: ClassVar[bool] = True
    robs_added_kong: ClassVar[bool] = True
    buy_phase: ClassVar[bool] = True
    has_heavenly: ClassVar[bool] = True
    concealed_kongs_face_down: ClassVar[bool] = True
    shapes: ClassVar[HandShapes] = YICHUN_SHAPES
    patterns: ClassVar[PatternTable] = YICHUN
    stake_rules: ClassVar[StakeRules | None] = scoring.STAKES
    bot_profile: ClassVar[BotProfile] = BotProfile(
        win_points=6.0, kong_points=2.0, pungs=(3.0, 3.0), one_suit=5.0,
        concealed_doubles=True, dealer_lighter=True, deal_in_points=True,
    )

    score = staticmethod(scoring.score)

    def spectator_stakes_allowed(self) -> bool:
        return bool(self.options["spectator_stakes"])

    def max_lighters(self) -> int:
        value = self.options["max_lighters"]
        return 4 if value is None else int(value)
