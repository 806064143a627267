"""个旧 Gejiu (``rules/gejiu.md``): kong tiles, 顶黄 at 10 stacks, fan, 斗地主, 塘子烂糊, 报听."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from engine.hands import HandShapes, lanpai_family, seven_pairs_quads, standard_need, standard_ok
from engine.melds import Meld
from engine.rulesets.base import COMMON_OPTIONS, BotProfile, OptionSpec, Ruleset
from engine.scoring import gejiu as scoring
from engine.scoring.patterns import GEJIU, PatternTable
from engine.scoring.shapes import GEJIU_SHAPES
from engine.tiles import NUM_KINDS, Kind, from_counts, to_counts
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
            "first_roller", 0, "Seat that rolls for the first dealer (0 = E … 3 = N)",
            "定庄掷骰者（0东 1南 2西 3北）", 0, 3,
            brief_en="rolls for first dealer: 0=E…3=N", brief_zh="掷骰定庄",
        ),
    )
    kong_tiles: ClassVar[bool] = True
    has_ting: ClassVar[bool] = True
    has_pond_win: ClassVar[bool] = True
    has_doudizhu: ClassVar[bool] = True
    shapes: ClassVar[HandShapes] = GEJIU_SHAPES
    patterns: ClassVar[PatternTable] = GEJIU
    bot_profile: ClassVar[BotProfile] = BotProfile(  # fan: payments go as 2^fan
        win_points=8.0, luxury_pairs=False, one_suit=4.0, half_suit=2.0, two_step=True,
    )

    score = staticmethod(scoring.score)

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
        """报听 eligibility: ``concealed`` (3n+1 tiles) is one tile from a winning hand."""
        return self._ready(to_counts(concealed), melds)

    def ready_discards(self, hand: Sequence[Kind], melds: Sequence[Meld]) -> list[Kind]:
        """The discards from ``hand`` (3n+2 tiles) after which it is ready (报听 choices).

        A cheap filter on the whole hand first: if discarding t and adding a joker completes
        it, then the hand plus three jokers makes one more set (t with two jokers), so the
        standard shape needs at most 3 jokers; seven pairs leaves at most two singles; the
        knitted family needs 13 distinct kinds. Most hands fail all three at once.
        """
        counts = to_counts(hand)
        singles = sum(1 for c in counts if c & 1)
        if not (
            standard_need(counts, self.shapes)[1] <= 3
            or (not melds and (singles <= 2 or sum(1 for c in counts if c) >= 13))
        ):
            return []
        out = []
        for k in sorted({*hand}):
            counts[k] -= 1
            if self._ready(counts, melds):
                out.append(k)
            counts[k] += 1
        return out

    def _ready(self, counts: list[int], melds: Sequence[Meld]) -> bool:
        """Fast path: one joker must complete the standard shape or seven pairs, and then a
        real tile near the held ones (a wait always touches a held tile) is confirmed; a hand
        whose only wait is a fifth copy is not ready (that tile does not exist): the copies in
        the player's own melds count too (a peng of 1m and a lone 1m wait on no tile). The
        knitted family needs distinct tiles and is tried kind by kind."""
        if standard_ok(counts, 1, self.shapes) or (
            not melds and seven_pairs_quads(counts, 1) is not None
        ):
            held = list(counts)
            for m in melds:
                for k in m.tiles:
                    held[k] += 1
            tiles = from_counts(counts)
            return any(
                held[k] < 4 and self.can_win([*tiles, k], melds) for k in _near(counts)
            )
        if melds or any(c > 1 for c in counts) or sum(counts[27:]) < 4:
            return False  # 烂牌 needs 14 distinct tiles, at least 5 of them honours
        for base in (0, 9, 18):  # each suit inside one of 147 / 258 / 369 already
            if len({r % 3 for r in range(9) if counts[base + r]}) > 1:
                return False
        tiles = from_counts(counts)
        return any(
            counts[k] == 0 and lanpai_family([*tiles, k]) is not None for k in range(NUM_KINDS)
        )


def _near(counts: Sequence[int]) -> list[Kind]:
    """Kinds within two ranks of a held suited tile, and the held honours."""
    out: set[Kind] = set()
    for k in range(27):
        if counts[k]:
            base, r = k - k % 9, k % 9
            out.update(base + x for x in range(max(0, r - 2), min(8, r + 2) + 1))
    out.update(k for k in range(27, 34) if counts[k])
    return sorted(out)
