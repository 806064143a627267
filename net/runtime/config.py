"""A shared table's server-side knobs (:class:`TableConfig`, tests shorten them), what its
owner decides for it (:class:`TableHooks`), its computer players and their levels."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from engine.bots import LEVELS, Player, make_player
from engine.runner import Pace
from host.clock import SYSTEM_CLOCK, Clock
from host.refusal import Refusal
from host.thinking import (
    FALLBACK_LEVEL,
    POOLED_LEVELS,
    Budget,
    PooledPlayer,
    ThinkingPool,
    TokenBucket,
)
from net.limits import Limits, RateLimit
from words import both

# computer players that decide off the event loop: in a thread, or (expert, when the server has
# a thinking pool: TableConfig.thinking) in a worker process
THREADED_LEVELS = frozenset({"hard", "expert"})


def basic_player(level: str) -> Player:
    """The computer player for ``level`` (easy/normal/hard/expert):
    :func:`engine.bots.make_player`."""
    return make_player(level)


def parse_levels(text: str) -> tuple[str, str, str, str]:
    """``LEVEL`` or ``L,L,L,L`` (seats E,S,W,N) → four levels; ValueError with a message."""
    parts = [p.strip().lower() for p in text.split(",")]
    if len(parts) == 1:
        parts *= 4
    if len(parts) != 4 or any(p not in LEVELS for p in parts):
        raise ValueError(both("bad_levels", levels=", ".join(LEVELS), got=text))
    return (parts[0], parts[1], parts[2], parts[3])


@dataclass
class TableConfig:
    """Server-side knobs (tests shorten them)."""

    bot_delay: float = 0.5  # a computer player's pause before a turn action
    grace_seconds: float = 20.0  # a dropped player's seat waits this long for a bot
    # a tournament's entrant who has not come to his round's table yet: his seat waits this
    # long for him (he may still be reading the last round's result) before a bot plays it
    arrival_seconds: float = 60.0
    next_hand_seconds: float = 60.0  # the result screen waits this long for everyone
    bot_level: str = "normal"
    # (how long a table nobody is connected to lives is a limit: the registry passes each
    # table net.limits.Limits.table_unattended_seconds in its hooks)
    # a player who lets his turn's timer run out this many times in a row counts as away: his
    # timer is then ``idle_seconds`` until he presses a key (the others do not wait out his
    # full timer every turn); a claim window left to run out is a pass, not absence
    idle_after: int = 2
    idle_seconds: float = 1.0
    clock: Clock = SYSTEM_CLOCK  # the tables' time (tests move a ManualClock)
    # the worker processes expert players think in (host.thinking; None: in a thread here), and
    # each table's share of them: beyond it (or with the pool's queue full) hard decides
    thinking: ThinkingPool | None = None
    think_budget: Budget = field(default_factory=Budget)
    # a table whose writes cannot be saved (disk full...) is paused and tries them again this
    # often (and at every write it makes meanwhile, e.g. a player joining)
    save_retry_seconds: float = 5.0

    def pace(self) -> Pace:
        return Pace(self.bot_delay, True, self.next_hand_seconds, self.idle_after,
                    self.idle_seconds)


class Computers:
    """A table's computer players, one a seat at its level, each made when first asked for:
    an expert in the server's thinking pool within the table's share of it (hard, in a
    thread, beyond it), else by ``factory``."""

    def __init__(self, config: TableConfig, levels: tuple[str, str, str, str],
                 factory: Callable[[str], Player]) -> None:
        self.config = config
        self.levels = levels
        self.factory = factory
        self._players: dict[int, Player] = {}
        self._bucket: TokenBucket | None = None  # the table's share of the thinking pool

    def player(self, seat: int) -> tuple[Player, bool]:
        """Seat ``seat``'s computer player, and whether it decides off the event loop."""
        level = self.levels[seat]
        bot = self._players.get(seat)
        if bot is None:
            pool = self.config.thinking
            if pool is not None and level in POOLED_LEVELS:
                if self._bucket is None:
                    self._bucket = TokenBucket(self.config.think_budget, self.config.clock.now)
                bot = PooledPlayer(pool, level, self.factory(FALLBACK_LEVEL), self._bucket)
            else:
                bot = self.factory(level)
            self._players[seat] = bot
        return bot, level in THREADED_LEVELS

    def forget(self, seat: int) -> None:
        """Its player is back: a computer that plays the seat later starts afresh."""
        self._players.pop(seat, None)

    def warm(self) -> None:
        """A game starts: its first decision does not wait for the pool's workers to start."""
        pool = self.config.thinking
        if pool is not None and POOLED_LEVELS.intersection(self.levels):
            pool.warm()


Table = TypeVar("Table")


@dataclass(frozen=True)
class TableHooks(Generic[Table]):
    """What a table's owner decides for it (the registry, from its limits and, in a server of
    several workers, the worker that holds the table's lease). Generic over the table it is
    given so that the table's module imports this one and not the other way round."""

    # called when no session has been connected for ``unattended_seconds``
    # (:attr:`SharedTable.empty`; the registry ends the table)
    on_empty: Callable[[Table], None] | None = None
    unattended_seconds: float = Limits.table_unattended_seconds
    # the per-account chat rate over all tables: False when the account's line is one too many
    chat_gate: Callable[[int], bool] | None = None
    # why an account may not chat at all (an operator's mute), or None
    muted: Callable[[int], Refusal | None] | None = None
    # the table's own chat rates: its seated players' together, and apart from theirs its
    # spectators' together (a crowd of guests never uses up what the players may say)
    chat_rate: RateLimit | None = None
    watchers_chat_rate: RateLimit | None = None
    # a server of several workers: whether this worker still holds the table's lease
    # (net.cluster); a table that may not act applies nothing and its loop sleeps
    may_act: Callable[[], bool] | None = None
    # its host closed it (:meth:`SharedTable.close_by`): the registry ends it at once
    on_close: Callable[[Table], None] | None = None


NO_HOOKS: TableHooks[Any] = TableHooks()  # a table nobody owns (a test's, the local tools')
