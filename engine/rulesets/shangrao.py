"""上饶 Shangrao (``rules/shangrao.md``): the 宝 wild, 宝吊头 states, 名目 doublings, bonuses."""

from __future__ import annotations

from typing import ClassVar

from engine.hands import HandShapes
from engine.rulesets.base import COMMON_OPTIONS, BotProfile, OptionSpec, Ruleset
from engine.scoring import shangrao as scoring
from engine.scoring.patterns import SHANGRAO, PatternTable
from engine.scoring.shapes import SHANGRAO_SHAPES


class Shangrao(Ruleset):
    name: ClassVar[str] = "shangrao"
    zh: ClassVar[str] = "上饶"
    en: ClassVar[str] = "Shangrao"
    options_spec: ClassVar[tuple[OptionSpec, ...]] = (
        *COMMON_OPTIONS,
        OptionSpec(
            "discard_wins", False,
            "Wins on a discard (the discarder pays for all three)",
            "可以点炮胡（放炮者包三家）",
            brief_en="wins on a discard; discarder pays", brief_zh="可点炮胡",
        ),
    )
    robs_added_kong: ClassVar[bool] = True
    has_wild: ClassVar[bool] = True
    has_heavenly: ClassVar[bool] = True
    shapes: ClassVar[HandShapes] = SHANGRAO_SHAPES
    patterns: ClassVar[PatternTable] = SHANGRAO
    bot_profile: ClassVar[BotProfile] = BotProfile(
        win_points=6.0, kong_points=3.0, standard=(2.0, 1.0), seven_pairs=(10.0, 4.0),
        knitted=(4.0, 2.0), pungs=(10.0, 4.0), jiuyao=(4.0, 2.0), baodiao=True,
    )

    score = staticmethod(scoring.score)

    def discard_wins(self) -> bool:
        return bool(self.options["discard_wins"])
