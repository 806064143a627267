"""The ``Ruleset`` base: flow differences between the regional games, and the win/score hooks.

Shaped like python-chess's variants: one subclass per ruleset with class-level metadata and
small hook overrides, found by name with :func:`engine.rulesets.find_ruleset`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from engine.hands import (
    HandShapes,
    can_win,
    can_win_counts,
    jiuyao_ok,
    seven_pairs_quads,
    standard_ok,
    waits,
)
from engine.melds import Meld
from engine.scoring.common import SituationError, StakeRules
from engine.scoring.patterns import PatternTable
from engine.situation import Settlement, Situation
from engine.tiles import Kind
from engine.wall import count_seat


class OptionError(ValueError):
    """A table option that does not exist or has a value it cannot take."""


UNLIMITED = ("unlimited", "none", "无限", "不限")  # words for an option's "no limit" (None)
ON_WORDS: Final = ("on", "yes", "true", "y", "开", "是")  # and "1" where the option is on/off
OFF_WORDS: Final = ("off", "no", "false", "n", "关", "否")  # and "0"
SHOWN_MAX: Final = 40  # characters of a refused value repeated in the message


def _shown(raw: str) -> str:
    """``raw`` as a message quotes it: repr (control characters escaped), cut when long."""
    text = repr(raw)
    return text if len(text) <= SHOWN_MAX else text[: SHOWN_MAX - 1] + "…"


def _word(raw: str) -> int | bool | str | None:
    """The value a word stands for whatever the option: on/off words, unlimited words and
    whole numbers; the stripped text itself when it is none of them."""
    low = raw.strip().lower()
    if low in ON_WORDS:
        return True
    if low in OFF_WORDS:
        return False
    if low in UNLIMITED or low in ("", "null"):
        return None
    digits = low[1:] if low[:1] in "+-" else low
    if digits.isascii() and digits.isdigit() and len(digits) <= 18:
        return int(low)
    return low


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
    # a few words on what the option does, for the lists that show every option at once
    # (the new-table form, the waiting room): English, Chinese
    brief_en: str = ""
    brief_zh: str = ""

    def brief(self, lang: str | None) -> str:
        """What the option does in a few words: in ``lang``, or both (``None``)."""
        if lang == "en":
            return self.brief_en
        if lang == "zh":
            return self.brief_zh
        return f"{self.brief_en} · {self.brief_zh}"

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

    def parse_text(self, raw: str) -> int | bool | None:
        """One value of this option from text (a form field, ``key=value``): whole numbers,
        on/off words (also 1/0) in English and Chinese, the unlimited words; empty text is
        the default (``None`` where the option may be unlimited). Checked like :meth:`check`."""
        value = _word(raw)
        if value is None and not raw.strip():
            return None if self.allow_none else self.default
        if isinstance(self.default, bool):
            if isinstance(value, bool):
                return value
            if isinstance(value, int) and value in (0, 1):
                return bool(value)
            raise OptionError(f"option {self.key!r} is on/off, got {_shown(raw.strip())}")
        if isinstance(value, (str, bool)) or (value is None and not self.allow_none):
            raise OptionError(
                f"option {self.key!r} is a whole number, got {_shown(raw.strip())}"
            )
        return self.check(value)


def parse_option_pairs(
    pairs: Iterable[str], ruleset: type[Ruleset] | None = None
) -> dict[str, Any]:
    """``key=value`` texts (command lines, the lobby's ``--option``) → {key: value}.

    With ``ruleset`` every value is read by its option's :meth:`OptionSpec.parse_text` and an
    unknown key is refused; without it (the ruleset is not known yet) a value is a whole
    number, an on/off word or an unlimited word, checked later by the ruleset. Raises
    :class:`OptionError`."""
    specs = {s.key: s for s in ruleset.options_spec} if ruleset is not None else None
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise OptionError(f"--option needs KEY=VALUE, got {_shown(pair)}")
        if specs is None:
            value = _word(raw)
            if isinstance(value, str):
                raise OptionError(
                    f"option {_shown(key)}: {_shown(raw)} is not a value (true, 3, null) "
                    "选项值无效"
                )
            out[key] = value
            continue
        assert ruleset is not None
        if key not in specs:
            raise OptionError(ruleset.unknown_option(key))
        out[key] = specs[key].parse_text(raw)
    return out


@dataclass(frozen=True)
class BotProfile:
    """What the computer players weigh in a ruleset (``engine.bots.hard``).

    Pattern values are (clean hand, hand using wilds) in the ruleset's own unit, which
    ``win_points`` converts to points; ``None``: the ruleset does not pay for the pattern."""

    win_points: float  # a value-1 win, in points
    kong_points: float = 0.0  # points a 明杠 brings (an 暗杠 twice that)
    standard: tuple[float, float] = (1.0, 1.0)
    seven_pairs: tuple[float, float] = (4.0, 4.0)
    luxury_pairs: bool = True  # a held four doubles seven pairs
    knitted: tuple[float, float] = (2.0, 2.0)
    pungs: tuple[float, float] = (2.0, 2.0)
    jiuyao: tuple[float, float] = (4.0, 2.0)  # where the shapes have 九幺
    all_honours: float = 6.0  # free-form 字一色, where the shapes have it
    one_suit: float | None = None  # 清一色
    half_suit: float | None = None  # 混一色
    concealed_doubles: bool = False  # 门清 doubles a concealed self-draw
    baodiao: bool = False  # the wilds' own kind and the 宝吊头 state count
    dealer_lighter: bool = False  # the dealer throws the lighter (丢打火机) when it may
    two_step: bool = False  # discards ranked by two-step figures
    deal_in_points: bool = False  # dealing in pays points (×3 pungs, ×4 one suit, ×2 bought)


COMMON_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("base_point", 1, "Base point: every payment is multiplied by it", "底分", 1, 10000,
               brief_en="every payment × this", brief_zh="每笔支付乘以底分"),
    OptionSpec("hands_per_game", 8, "Hands in a game", "每局盘数", 1, 1000,
               brief_en="hands in one game", brief_zh="一局打几盘"),
    OptionSpec("turn_seconds", 30, "Turn timer in seconds (0 = none)", "出牌时限（秒，0=不限）",
               0, 3600, brief_en="seconds for a turn, 0 = no timer", brief_zh="出牌限时"),
    OptionSpec("claim_seconds", 8, "Claim window in seconds (0 = none)", "吃碰时限（秒，0=不限）",
               0, 600, brief_en="seconds to claim, 0 = none", brief_zh="吃碰胡限时"),
    OptionSpec("time_bank", 0,
               "Time bank per hand in seconds, after each turn's or claim's own time (0 = none)",
               "每盘备用时间（秒，出牌或吃碰时限用完后扣除，0=无）", 0, 600,
               brief_en="extra seconds a hand, 0 = none", brief_zh="每盘备用时间"),
    # a practice table: each seated player may ask the expert's view of his decision
    # (host/coach.py); its games are never rated
    OptionSpec("coach", False,
               "Coach: each seated player may ask the expert's view of his decision "
               "(a practice table, never rated)",
               "教练：入座玩家可请高手评估当前决定（练习桌，不计等级分）",
               brief_en="advice on key e; unrated", brief_zh="按 e 请教高手；不计分"),
)


class Ruleset:
    """Base class. Subclasses set the metadata and override the hooks they change."""

    name: ClassVar[str] = ""
    zh: ClassVar[str] = ""  # the display names, in Chinese and English
    en: ClassVar[str] = ""
    options_spec: ClassVar[tuple[OptionSpec, ...]] = COMMON_OPTIONS
    shapes: ClassVar[HandShapes]  # the winning shapes (engine.hands)
    patterns: ClassVar[PatternTable]  # what the scorer pays, which the help shows
    stake_rules: ClassVar[StakeRules | None] = None  # spectator stakes, where there are any
    bot_profile: ClassVar[BotProfile]  # what the computer players weigh

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
                raise OptionError(cls.unknown_option(key))
            out[key] = specs[key].check(value)
        return out

    @classmethod
    def unknown_option(cls, key: str) -> str:
        keys = ", ".join(sorted(s.key for s in cls.options_spec))
        return f"{cls.name} has no option {_shown(key)} (options: {keys})"

    @classmethod
    def title(cls, lang: str) -> str:
        """The display name for ``lang``: the Chinese name alone, else both ("宜春 Yichun")."""
        return cls.zh if lang == "zh" else f"{cls.zh} {cls.en}"

    def spectator_stakes_allowed(self) -> bool:
        """Whether spectators may stake at a table with these options."""
        return False

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
        return can_win(self.shapes, concealed, melds, wild)

    def can_win_counts(
        self, counts: Sequence[int], melds: Sequence[Meld], wild: Kind | None = None
    ) -> bool:
        """:meth:`can_win` over a 34-entry count array (the winning tile included)."""
        return can_win_counts(self.shapes, counts, melds, wild)

    def waits(
        self, concealed: Sequence[Kind], melds: Sequence[Meld], wild: Kind | None = None
    ) -> list[Kind]:
        """The kinds that would complete ``concealed`` (3n+1 tiles)."""
        return sorted(waits(self.shapes, concealed, melds, wild))

    def maybe_ready_counts(
        self, counts: Sequence[int], melds: Sequence[Meld], wild: Kind | None = None
    ) -> bool:
        """A cheap test that never says no to a hand that is one tile from winning (``counts``,
        a 34-entry count array left unchanged, holds 3n+1 tiles): one joker completes some
        shape. ``False`` means no tile can complete it, so the table skips the exact test."""
        counts = list(counts)
        jokers = 1
        if wild is not None:
            jokers += counts[wild]
            counts[wild] = 0
        shapes = self.shapes
        if standard_ok(counts, jokers, shapes):
            return True
        if not melds:
            if seven_pairs_quads(counts, jokers) is not None:
                return True
            if all(c <= 1 for c in counts):  # knitted families (十三烂 / 十三浪 / 烂牌)
                return True
        if shapes.jiuyao and jiuyao_ok(counts, melds):
            return True
        return shapes.zi_free and all(c == 0 for c in counts[:27])

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

    @classmethod
    def settle(cls, situation: Situation, known: Collection[str] = ()) -> Settlement:
        """Settle a finished hand of this ruleset by its scorer (``engine.scoring``), given
        the situation's options checked by this ruleset's specs over their defaults: keys in
        ``known`` (other rulesets' options: the calculator takes any ruleset's input) are
        ignored, any other unknown key or a bad value raises :class:`SituationError`."""
        specs = {spec.key: spec for spec in cls.options_spec}
        known = {*known, *specs}
        options: dict[str, Any] = {key: spec.default for key, spec in specs.items()}
        for key, value in situation.options.items():
            if key not in known:
                raise SituationError(
                    f"options.{key}", f"unknown option (known: {', '.join(sorted(known))})"
                )
            if key in specs:
                try:
                    options[key] = specs[key].check(value)
                except OptionError as exc:
                    raise SituationError(f"options.{key}", str(exc)) from None
        return cls.score(situation, options)

    @staticmethod
    def score(situation: Situation, options: Mapping[str, Any]) -> Settlement:
        """This ruleset's scorer, given the table options checked (:meth:`settle`)."""
        raise NotImplementedError("a ruleset without a scorer")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"
