"""上饶 Shangrao (``rules/shangrao.md``): the 宝 wild, 宝吊头 states, 名目 doublings, bonuses."""

from __future__ import annotations

from typing import ClassVar

from engine.rulesets.base import COMMON_OPTIONS, OptionSpec, Ruleset


class Shangrao(Ruleset):
    name: ClassVar[str] = "shangrao"
    zh: ClassVar[str] = "上饶"
    en: ClassVar[str] = "Shangrao"
    options_spec: ClassVar[tuple[OptionSpec, ...]] = (
        *COMMON_OPTIONS,
        OptionSpec(
            "discard_wins", False,
            "Wins on a discard (the discarder pays for all three) [A-S1]",
            "可以点炮胡（放炮者包三家）",
        ),
    )
    robs_added_kong: ClassVar[bool] = True
    has_wild: ClassVar[bool] = True
    has_heavenly: ClassVar[bool] = True

    def discard_wins(self) -> bool:
        return bool(self.options["discard_wins"])
