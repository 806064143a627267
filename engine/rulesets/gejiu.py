"""个旧 Gejiu (``rules/gejiu.md``): kong tiles, 顶黄 at 10 stacks, fan, 斗地主, 塘子烂糊, 报听."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from engine.melds import Meld
from engine.rulesets.base import COMMON_OPTIONS, OptionSpec, Ruleset
from engine.tiles import NUM_KINDS, Kind, to_counts
from engine.wall import count_seat

# 顶黄: the hand is drawn when a head draw is due and at most 10 stacks (20 tiles, the two
# face-up kong tiles included) remain (gejiu.md §2, [A-G15]).
DRAW_AT = 20


class Gejiu(Ruleset):
    name: ClassVar[str] = "gejiu"
    zh: ClassVar[str] = "个旧"
    en: ClassVar[str] = "Gejiu"
    options_spec: ClassVar[tuple[OptionSpec, ...]] = (
        *COMMON_OPTIONS,
        OptionSpec(
            "first_roller", 0, "Seat that rolls for the first dealer (0 = E … 3 = N) [A-G22]",
            "首局掷骰者", 0, 3,
        ),
    )
    kong_tiles: ClassVar[bool] = True
    has_ting: ClassVar[bool] = True
    has_pond_win: ClassVar[bool] = True
    has_doudizhu: ClassVar[bool] = True

    def first_dealer(self, roll: int) -> int:
        return count_seat(int(self.options["first_roller"]), roll)

    def break_owner(self, dealer: int, roll: int) -> int:
        """Gejiu always breaks the dealer's own wall ([A-G21])."""
        return dealer

    def hand_is_drawn(self, remaining: int) -> bool:
        return remaining <= DRAW_AT

    def can_supply_replacement(self, remaining: int) -> bool:
        return remaining > DRAW_AT

    def is_ready(self, concealed: Sequence[Kind], melds: Sequence[Meld]) -> bool:
        """报听 eligibility: ``concealed`` (3n+1 tiles) is one tile from a winning hand.

        Fast path: one joker completes the standard shape or seven pairs; the knitted family
        needs 13 distinct tiles and is tried kind by kind. A hand whose only wait is a fifth copy
        of a kind it holds four of is not ready (that tile does not exist).
        """
        from engine.hands import lanpai_family, seven_pairs_quads, standard_ok

        counts = to_counts(concealed)
        joker = standard_ok(counts, 1, self.name) or (
            not melds and seven_pairs_quads(counts, 1) is not None
        )
        if joker:
            return any(
                counts[k] < 4 and self.can_win([*concealed, k], melds)
                for k in range(NUM_KINDS)
            )
        if melds or any(c > 1 for c in counts):
            return False
        return any(
            counts[k] == 0 and lanpai_family([*concealed, k]) is not None
            for k in range(NUM_KINDS)
        )
