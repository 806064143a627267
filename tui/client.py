"""The only way the app talks to a table: views in, actions out.

:class:`TableClient` is implemented by :class:`tui.local.LocalTable` (you against three
computer players) and by the server's seat at a shared table (``net.registry.SeatClient``).
The table calls the subscribed callback from the asyncio loop with a :class:`TableUpdate`; the
app turns each call into a ``post_message`` on itself and never touches widgets from the
callback.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from engine.actions import Action
from engine.game import HandSummary
from engine.view import View
from tui.clock import Clock
from tui.refusal import Refusal


@dataclass(frozen=True)
class TableUpdate:
    """One view of the table for the client's seat, with the facts a view does not carry."""

    view: View
    deadline: float | None = None  # when the seat's timer runs out, on the client's clock
    timer_seconds: float = 0.0  # the timer's full length (for the bar)
    totals: tuple[int, int, int, int] = (0, 0, 0, 0)  # running scores after booked hands
    history: tuple[HandSummary, ...] = ()
    hands_per_game: int = 0
    game_over: bool = False
    names: tuple[str, str, str, str] = ("", "", "", "")  # player names ("" = default label)


UpdateCallback = Callable[[TableUpdate], None]


class TableClient(Protocol):
    """A seat at a table."""

    seat: int
    controls_pace: bool  # the computer players' pause is this player's setting (a table alone)

    @property
    def clock(self) -> Clock:
        """The time the updates' deadlines are on (the screen's countdown runs on it)."""

    def subscribe(self, callback: UpdateCallback) -> None:
        """Deliver every later update (and the current one at once) to ``callback``."""

    def send(self, action: Action) -> Refusal | None:
        """Play ``action`` for this seat; ``None`` when done, else why it is not allowed."""

    def next_hand(self) -> None:
        """The seat is ready for the next hand (after the hand result)."""

    def new_game(self, rules: str, options: Mapping[str, Any],
                 seed: int | None) -> Refusal | None:
        """Start a new game (a table may refuse: the refusal says why)."""

    def set_paused(self, paused: bool) -> bool:
        """The seat cannot see the table (terminal too small), or can again. Returns whether
        the table waits for it meanwhile (a table shared with others plays on), which the
        notice over the small terminal says."""

    def set_bot_delay(self, seconds: float) -> None:
        """The computer players' pause before a move, where :attr:`controls_pace`."""

    def close(self) -> None:
        """The seat leaves; no more callbacks."""
