"""A shared table's server-side knobs (:class:`TableConfig`, tests shorten them), its
computer players and their levels."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.bots import LEVELS, Player, make_player
from engine.runner import Pace
from host.clock import SYSTEM_CLOCK, Clock
from host.thinking import Budget, ThinkingPool


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
        raise ValueError(f"computer level: one of {', '.join(LEVELS)}, or four separated by "
                         f"commas (seats E,S,W,N), got {text!r} 电脑等级无效")
    return (parts[0], parts[1], parts[2], parts[3])


@dataclass
class TableConfig:
    """Server-side knobs (tests shorten them)."""

    bot_delay: float = 0.5  # a computer player's pause before a turn action
    grace_seconds: float = 20.0  # a dropped player's seat waits this long for a bot
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
