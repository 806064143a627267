"""A shared table's seats (:class:`Seat`: who sits, his sessions) and one session's handle
on one seat, or on its spectators' bench: a :class:`SeatClient` implements
:class:`host.client.SharedTableClient`, so the same ``MahjongApp`` that ``play`` runs drives
it (:mod:`net.runtime.shared_table`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.actions import Action
from host.client import SharedSeat, TableUpdate
from host.clock import Clock
from host.refusal import Refusal
from host.table_info import COMPUTER_NAME, ChatLine, TableInfo, TableState
from net import metrics
from net.store.model import Account

START_CONFIRM_SECONDS = 30.0  # S again within this long starts without the invited absent


@dataclass
class StartAsk:
    """One session's S at a private table with seats held: the first is answered with whom
    they are held for, a second within :data:`START_CONFIRM_SECONDS` confirms."""

    asked: float | None = None

    def confirmed(self, now: float) -> bool:
        asked = self.asked
        return asked is not None and 0 <= now - asked <= START_CONFIRM_SECONDS

    def answered(self, refusal: Refusal | None, now: float) -> Refusal | None:
        self.asked = now if refusal is not None and refusal.key == "held" else None
        return refusal


@dataclass
class Occupant:
    account_id: int
    name: str
    bot: bool = False  # a program plays the seat over the bot protocol (``bot join``)
    program: str = ""  # its name and version from its handshake (cleaned), shown with [bot]


@dataclass
class Seat:
    occupant: Occupant | None = None
    clients: list[SeatClient] = field(default_factory=list)
    dropped_at: float | None = None  # the last client left (on the table's clock)
    # how long the seat waits for its player before a computer plays it, where not the table's
    # grace: a tournament's entrant who has not come to his round's table yet (None: the
    # table's grace; back to None once he comes)
    grace: float | None = None
    allow_spectators: bool = True  # 压鸽子: spectators may back this seat

    def covered_at(self, grace: float) -> float:
        """When a computer plays the seat of a player who is not there (``dropped_at`` set):
        after the seat's own :attr:`grace` where it has one, else the table's ``grace``."""
        assert self.dropped_at is not None
        return self.dropped_at + (grace if self.grace is None else self.grace)

    def shown_name(self, gone: Occupant | None, playing: bool, over: bool, idle: bool,
                   computer: bool) -> str:
        """The seat's name as the table shows it: its player's, marked ``[bot: program]``,
        ``(idle)``, ``(away)`` or ``(computer)`` (the computer plays for him); an empty seat
        the finished game's player who left (``gone``), else the computer's. ``playing``: a
        game is on (``over``: it has ended); ``idle``, ``computer``: the table's view of him."""
        occupant = self.occupant
        if occupant is None:
            return f"{gone.name} (away)" if gone is not None else COMPUTER_NAME
        if occupant.bot and self.clients:
            return f"{occupant.name} [bot{': ' + occupant.program if occupant.program else ''}]"
        if playing and idle and self.clients:
            return f"{occupant.name} (idle)"
        if playing and over and not self.clients:
            return f"{occupant.name} (away)"  # left: nothing is played for him
        if playing and computer:
            return f"{occupant.name} (computer)"  # not [bot]: a program
        if not self.clients:
            return f"{occupant.name} (away)"
        return occupant.name


class Table(Protocol):
    """What a seat asks of its table (:class:`net.runtime.shared_table.SharedTable`)."""

    clock: Clock
    game_no: int
    chat_log: deque[ChatLine]

    @property
    def state(self) -> TableState: ...

    def info(self) -> TableInfo: ...

    def update_for(self, index: int | None) -> TableUpdate | None: ...

    def apply(self, index: int, action: Action) -> Refusal | None: ...

    def active(self, index: int | None) -> None: ...

    def ready(self, index: int | None) -> None: ...

    def ask_new_game(self, index: int | None) -> Refusal | None: ...

    def start_by(self, index: int | None, confirmed: bool = False) -> Refusal | None: ...

    def chat_from(self, account: Account, text: str) -> Refusal | None: ...

    def leave(self, client: SeatClient) -> None: ...

    def stand(self, client: SeatClient) -> None: ...

    def stake(self, account: Account, backs: int | None) -> Refusal | None: ...

    def set_allow(self, index: int, allow: bool) -> None: ...

    def set_program(self, index: int, text: str) -> None: ...


class SeatClient(SharedSeat):
    """One session's seat at a shared table: a :class:`host.client.SharedTableClient`."""

    seat_index: int | None = None  # the table stands a player up by setting it

    def __init__(self, table: Table, seat_index: int | None, account: Account) -> None:
        super().__init__(table.clock)
        self.table = table
        self.seat_index = seat_index
        self.account = account
        self._ask = StartAsk()

    # --- the seat part ------------------------------------------------------------------------
    def send(self, action: Action) -> Refusal | None:
        if self.seat_index is None:
            return Refusal("spectator_play")
        self.poke()
        metrics.move_sent(self, self.table)  # key → every screen (net.metrics)
        refusal = self.table.apply(self.seat_index, action)
        if refusal is not None:
            metrics.move_refused(self.table)
        return refusal

    def poke(self) -> None:
        """The player pressed a key: he is back, if the computer was playing for him."""
        self.table.active(self.seat_index)

    def next_hand(self) -> None:
        self.table.ready(self.seat_index)

    def new_game(self, rules: str, options: Mapping[str, Any],
                 seed: int | None) -> Refusal | None:
        """At a shared table a new game keeps the table's rules (after a game is over); it
        starts when every present player has asked for it (the table's ``ask_new_game``)."""
        return self.table.ask_new_game(self.seat_index)

    def close(self) -> None:
        if self._stop():
            self.table.leave(self)

    # --- the room part ------------------------------------------------------------------------
    @property
    def nickname(self) -> str:
        return self.account.nickname

    @property
    def state(self) -> TableState:
        return self.table.state

    @property
    def game_no(self) -> int:
        return self.table.game_no

    @property
    def chat_log(self) -> Sequence[ChatLine]:
        return self.heard(self.table.chat_log)

    def info(self) -> TableInfo:
        return self.table.info()

    def current_update(self) -> TableUpdate | None:
        return self.table.update_for(self.seat_index)

    def start(self, confirmed: bool | None = None) -> Refusal | None:
        """S: start now (computers in the empty seats). ``confirmed``: a remote session's
        own answer to the held seats' question; None: this session's (:class:`StartAsk`)."""
        if confirmed is not None:
            return self.table.start_by(self.seat_index, confirmed)
        now = self.clock.now()
        refusal = self.table.start_by(self.seat_index, self._ask.confirmed(now))
        return self._ask.answered(refusal, now)

    def chat(self, text: str) -> Refusal | None:
        """Say ``text`` to the table: None when sent, else why not (too many lines)."""
        return self.table.chat_from(self.account, text)

    def stand(self) -> None:
        self.table.stand(self)

    def stake(self, backs: int | None) -> Refusal | None:
        """压鸽子: back seat ``backs`` from the next hand (``None``: withdraw)."""
        if self.seat_index is not None:
            return Refusal("seated_stake")
        return self.table.stake(self.account, backs)

    def set_allow(self, allow: bool) -> Refusal | None:
        """A seated player allows spectators to back them (from the next hand)."""
        if self.seat_index is None:
            return Refusal("seated_allow")
        self.table.set_allow(self.seat_index, allow)
        return None

    def set_program(self, text: str) -> None:
        if self.seat_index is not None:
            self.table.set_program(self.seat_index, text)
