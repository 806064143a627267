"""The ``Ruleset`` base: flow differences between the regional games, and the win/score hooks.

Shaped like python-chess's variants: one subclass per ruleset with class-level metadata and
small hook overrides, found by name with :func:`engine.rulesets.find_ruleset`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.melds import Meld
from engine.situation import Settlement, Situation
from engine.tiles import Kind
from engine.wall import count_seat


class OptionError(ValueError):
    """A table option that does not exist or has a value it cannot take."""


UNLIMITED = ("unlimited", "none", "无限", "不限")  # words for an option's "no limit" (None)


@dataclass(frozen=True)
class OptionSpec:
    """One table option: its key, default, allowed values and a description in both languages."""

    key: str
    default: int | bool | None
    en: str
    zh: str
    minimum: int | None = None
    maximum: int | None = None
    allow_none: bool = False  # None = unlimited / off

    def check(self, value: Any) -> int | bool | None:
        if self.allow_none and isinstance(value, str) and value.strip().lower() in UNLIMITED:
            value = None
        if value is None:
            if self.allow_none:
                return None
            raise OptionError(f"option {self.key!r} cannot be empty")
        if isinstance(self.default, bool):
            if not isinstance(value, bool):
                raise OptionError(f"option {self.key!r} is on/off (true or false), got {value!r}")
            return value
        if isinstance(value, bool) or not isinstance(value, int):
            raise OptionError(f"option {self.key!r} is a whole number, got {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise OptionError(f"option {self.key!r} must be at least {self.minimum}, got {value}")
        if self.maximum is not None and value > self.maximum:
            raise OptionError(f"option {self.key!r} must be at most {self.maximum}, got {value}")
        return value


COMMON_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("base_point", 1, "Base point: every payment is multiplied by it", "底分", 1, 10000),
    OptionSpec("hands_per_game", 8, "Hands in a game", "每局盘数", 1, 1000),
    OptionSpec("turn_seconds", 30, "Turn timer in seconds (0 = none)", "出牌时限（秒，0=不限）",
               0, 3600),
    OptionSpec("claim_seconds", 8, "Claim window in seconds (0 = none)", "吃碰时限（秒，0=不限）",
               0, 600),
)


class Ruleset:
    """Base class. Subclasses set the metadata and override the hooks they change."""

    name: ClassVar[str] = ""
    zh: ClassVar[str] = ""
    en: ClassVar[str] = ""
    options_spec: ClassVar[tuple[OptionSpec, ...]] = COMMON_OPTIONS

    # --- flow metadata -------------------------------------------------------------------
    honour_chi: ClassVar[bool] = False  # Yichun: wind sets and 中發白 may be chi'd
    several_discard_winners: ClassVar[bool] = False  # Yichun 不拦胡
    robs_added_kong: ClassVar[bool] = False  # Yichun / Shangrao: a 补杠 may be robbed
    kong_tiles: ClassVar[bool] = False  # Gejiu: two face-up kong tiles, robbable
    has_wild: ClassVar[bool] = False  # Shangrao 宝
    buy_phase: ClassVar[bool] = False  # Yichun 买
    has_heavenly: ClassVar[bool] = False  # 天糊 / 地糊 as their own win methods
    has_ting: ClassVar[bool] = False  # Gejiu 报听
    has_pond_win: ClassVar[bool] = False  # Gejiu 塘子烂糊
    has_doudizhu: ClassVar[bool] = False  # Gejiu 斗地主
    concealed_kongs_face_down: ClassVar[bool] = False  # Yichun: 暗杠 hidden until hand end

    def __init__(self, options: Mapping[str, Any] | None = None) -> None:
        self.options: dict[str, Any] = self.resolve_options(options or {})

    @classmethod
    def resolve_options(cls, given: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults overlaid with ``given``; unknown keys and bad values raise OptionError."""
        specs = {s.key: s for s in cls.options_spec}
        out: dict[str, Any] = {s.key: s.default for s in cls.options_spec}
        for key, value in given.items():
            if key not in specs:
                raise OptionError(
                    f"{cls.name} has no option {key!r} (options: {', '.join(sorted(specs))})"
                )
            out[key] = specs[key].check(value)
        return out

    # --- hooks: flow ---------------------------------------------------------------------
    def discard_wins(self) -> bool:
        """Whether a player may win on another player's discard."""
        return True

    def max_lighters(self) -> int:
        """Yichun 丢打火机 per hand; 0 where the ruleset has none."""
        return 0

    def first_dealer(self, roll: int) -> int:
        """Seat E rolls; dealer = count(E, s) (``common.md`` §5)."""
        return count_seat(0, roll)

    def break_owner(self, dealer: int, roll: int) -> int:
        """Whose wall is broken: count(dealer, s) (Yichun, Shangrao)."""
        return count_seat(dealer, roll)

    def hand_is_drawn(self, remaining: int) -> bool:
        """At a due head draw: is the hand over (exhaustive draw)? ``remaining`` = R."""
        return remaining <= 0

    def can_supply_replacement(self, remaining: int) -> bool:
        """Whether a kong may be declared (a replacement tile can be supplied)."""
        return remaining > 0

    # --- hooks: winning and scoring --------------------------------------------------------
    def can_win(
        self, concealed: Sequence[Kind], melds: Sequence[Meld], wild: Kind | None = None
    ) -> bool:
        """``concealed`` includes the winning tile."""
        from engine.hands import can_win

        return can_win(self.name, concealed, melds, wild)

    def can_win_counts(
        self, counts: Sequence[int], melds: Sequence[Meld], wild: Kind | None = None
    ) -> bool:
        """:meth:`can_win` over a 34-entry count array (the winning tile included)."""
        from engine.hands import can_win_counts

        return can_win_counts(self.name, counts, melds, wild)

    def waits(
        self, concealed: Sequence[Kind], melds: Sequence[Meld], wild: Kind | None = None
    ) -> list[Kind]:
        """The kinds that would complete ``concealed`` (3n+1 tiles)."""
        from engine.hands import waits

        return sorted(waits(self.name, concealed, melds, wild))

    def maybe_ready(
        self, concealed: Sequence[Kind], melds: Sequence[Meld], wild: Kind | None = None
    ) -> bool:
        """A cheap test that never says no to a hand that is one tile from winning
        (``concealed`` has 3n+1 tiles): one joker completes some shape. ``False`` means no
        tile can complete it, so the table skips the exact test."""
        counts = [0] * 34
        for k in concealed:
            counts[k] += 1
        return self.maybe_ready_counts(counts, melds, wild)

    def maybe_ready_counts(
        self, counts: Sequence[int], melds: Sequence[Meld], wild: Kind | None = None
    ) -> bool:
        """:meth:`maybe_ready` over a 34-entry count array (left unchanged)."""
        from engine.hands import jiuyao_ok, seven_pairs_quads, standard_ok

        counts = list(counts)
        jokers = 1
        if wild is not None:
            jokers += counts[wild]
            counts[wild] = 0
        if standard_ok(counts, jokers, self.name):
            return True
        if not melds:
            if seven_pairs_quads(counts, jokers) is not None:
                return True
            if all(c <= 1 for c in counts):  # knitted families (十三烂 / 十三浪 / 烂牌)
                return True
        if self.name == "shangrao" and jiuyao_ok(counts, melds):
            return True
        return self.name == "yichun" and all(c == 0 for c in counts[:27])

    def is_ready(self, concealed: Sequence[Kind], melds: Sequence[Meld]) -> bool:
        """One tile from a winning hand (``concealed`` has 3n+1 tiles)."""
        return bool(self.waits(concealed, melds))

    def ready_discards(self, hand: Sequence[Kind], melds: Sequence[Meld]) -> list[Kind]:
        """The discards from ``hand`` (3n+2 tiles) after which it is one tile from winning."""
        out = []
        for k in sorted(set(hand)):
            rest = list(hand)
            rest.remove(k)
            if self.is_ready(rest, melds):
                out.append(k)
        return out

    def settle(self, situation: Situation) -> Settlement:
        from engine.scoring import score

        return score(situation)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"
