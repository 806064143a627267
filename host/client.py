"""The only way the app talks to a table, in two parts.

The seat part, :class:`TableClient` (views in, actions out), is all a table alone needs:
:class:`host.local.LocalTable` (you against three computer players) implements just that. The
room part, :class:`RoomClient`, is a table shared with other people: who sits there, chat,
the waiting room, spectating and spectators' stakes (:mod:`host.table_info`). A
:class:`SharedTableClient` is both: the server's seat (``net.runtime.seat_client.SeatClient``),
a seat at another worker's table and the handle that follows a table between workers
(``net.cluster.remote``), which share :class:`SharedSeat`. The table calls the subscribed
callbacks from the asyncio loop; the app turns each call into a ``post_message`` on itself and
never touches widgets from a callback.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.actions import Action
from engine.game import HandSummary
from engine.view import View
from host.clock import Clock
from host.refusal import Refusal
from host.table_info import ChatLine, InfoCallback, TableInfo, TableState


@dataclass(frozen=True)
class TableUpdate:
    """One view of the table for the client's seat, with the facts a view does not carry."""

    view: View
    deadline: float | None = None  # when the seat's timer runs out, on the client's clock
    timer_seconds: float = 0.0  # the timer's own length (for the bar)
    # the seat's time bank at the end of that timer: the last part of the time until
    # ``deadline`` (the bar shows "5s + bank 12s": the timer's own time left, then the bank's)
    bank_seconds: float = 0.0
    totals: tuple[int, int, int, int] = (0, 0, 0, 0)  # running scores after booked hands
    history: tuple[HandSummary, ...] = ()
    hands_per_game: int = 0
    game_over: bool = False
    names: tuple[str, str, str, str] = ("", "", "", "")  # player names ("" = default label)
    # the present players the table waits for between hands, or for a new game once asked
    waiting_for: tuple[int, ...] = ()
    game_id: str = ""  # a finished game kept for replay: its ID (``ssh host replay ID``)


UpdateCallback = Callable[[TableUpdate], None]


class TableClient(Protocol):
    """The seat part: a seat at a table, views in and actions out (all a table alone needs)."""

    controls_pace: bool  # the computer players' pause is this player's setting (a table alone)

    @property
    def seat(self) -> int:
        """The seat the table is seen from (a spectator's: E); it changes only by joining."""

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


class RoomClient(Protocol):
    """The room part: a table shared with other people, who sits there, the waiting room
    before its first hand, chat, spectating and 压鸽子 (spectators backing seated players)."""

    @property
    def seat_index(self) -> int | None:
        """The seat taken; ``None`` for a spectator."""

    @property
    def spectating(self) -> bool:
        """Watching, not seated."""

    @property
    def nickname(self) -> str:
        """The player's name at the table (a spectator's stake is found by it)."""

    @property
    def state(self) -> TableState:
        """Whether the table waits for players, plays, is between hands or over."""

    @property
    def game_no(self) -> int:
        """The table's game count: a spectator hears once per hand of each game."""

    @property
    def chat_log(self) -> Sequence[ChatLine]:
        """The latest lines said at the table before this session came in."""

    def info(self) -> TableInfo:
        """The table as it is now."""

    def current_update(self) -> TableUpdate | None:
        """The seat's view of the game now (``None`` before the first hand)."""

    def subscribe_info(self, callback: InfoCallback) -> None:
        """Deliver the table's info now and after every change, and every chat line, to
        ``callback``."""

    def poke(self) -> None:
        """The player pressed a key: back at the table if the timer was playing for him."""

    def start(self) -> Refusal | None:
        """Start the game now, computer players in the empty seats (a seated player's)."""

    def chat(self, text: str) -> Refusal | None:
        """Say ``text`` (cleaned by the table) to everyone there; ``None`` when sent."""

    def stake(self, backs: int | None) -> Refusal | None:
        """压鸽子: back seat ``backs`` from the next hand, or nobody (a spectator's)."""

    def set_allow(self, allow: bool) -> Refusal | None:
        """Allow spectators to back this seat from the next hand, or not (a seated player's)."""


class SharedTableClient(TableClient, RoomClient, Protocol):
    """A seat (or a spectator's place) at a table shared with other people: both parts."""

    def set_program(self, text: str) -> None:
        """A program playing this seat (``bot join``) said its name and version (its
        handshake, cleaned): shown with the seat's ``[bot]`` mark. Nothing for a spectator."""


class SharedSeat(ABC):
    """What every :class:`SharedTableClient` (the server's seat, a seat at another worker's
    table, the handle that follows a table between workers) does alike: the subscribers and
    what a shared table never does for one seat (wait for it, let it set the pace)."""

    controls_pace = False  # a shared table's pace is the server's

    def __init__(self, clock: Clock) -> None:
        self.clock = clock  # the time the updates' deadlines are on
        self._callbacks: list[UpdateCallback] = []
        self._info_callbacks: list[InfoCallback] = []
        self.closed = False
        # the names whose chat this seat's player hides (``/ignore``, net/front/players.py):
        # their lines are neither delivered nor in chat_log
        self.ignored: frozenset[str] = frozenset()

    @property
    @abstractmethod
    def seat_index(self) -> int | None:
        """The seat taken; ``None`` for a spectator (a plain attribute where it is held)."""

    @abstractmethod
    def info(self) -> TableInfo: ...

    @abstractmethod
    def current_update(self) -> TableUpdate | None: ...

    @property
    def seat(self) -> int:
        """The seat's view (a spectator sees from E)."""
        return self.seat_index if self.seat_index is not None else 0

    @property
    def spectating(self) -> bool:
        return self.seat_index is None

    def subscribe(self, callback: UpdateCallback) -> None:
        self._callbacks.append(callback)
        update = self.current_update()
        if update is not None:
            callback(update)

    def subscribe_info(self, callback: InfoCallback) -> None:
        self._info_callbacks.append(callback)
        callback(self.info())

    def deliver(self, update: TableUpdate) -> None:
        for cb in list(self._callbacks):
            cb(update)

    def deliver_info(self, item: TableInfo | ChatLine) -> None:
        if isinstance(item, ChatLine) and item.who and item.who in self.ignored:
            return
        for cb in list(self._info_callbacks):
            cb(item)

    def heard(self, lines: Sequence[ChatLine]) -> Sequence[ChatLine]:
        """``lines`` less those of the names this seat's player ignores (its chat_log)."""
        if not self.ignored:
            return lines
        return [line for line in lines if not (line.who and line.who in self.ignored)]

    def set_paused(self, paused: bool) -> bool:
        return False  # the table does not wait for one small terminal: its timer runs on

    def set_bot_delay(self, seconds: float) -> None:  # noqa: B027 (no player sets the pace)
        pass

    def _stop(self) -> bool:
        """No more callbacks; whether the seat was open until now."""
        if self.closed:
            return False
        self.closed = True
        self._callbacks.clear()
        self._info_callbacks.clear()
        return True
