"""A session's seat at a table that another worker runs, and the handle that survives the
table moving between workers.

:class:`RemoteSeat` is the session side of the wire: it receives only its own seat's views
(a spectator: the spectator's view) pushed by the owner on the session's own subject, keeps the
latest of each, and sends the player's moves to the owner. It answers the app at once, as a
seat in the same process does: a move that is not among the view's legal moves is refused
here; a legal one is sent, and if the owner refuses it after all (the table moved on meanwhile)
the screen gets the latest view again and the refusal is logged.

:class:`RoutedClient` is what the app holds in a server of several workers. It delegates to
a seat in this process (the table is ours) or to a :class:`RemoteSeat`; when the owner goes
away (it said so, or stopped answering) it keeps the player's screen, refuses keys with a short
notice, finds the table's new owner, and joins again: the same account gets the same seat, and
the player is told the table goes on. A table not found again is ``lost``: the session is
told (``on_lost``) and ends saying how to come back, rather than leave a frozen table.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, Protocol

from engine.actions import Action
from host.client import SharedSeat, SharedTableClient, TableUpdate
from host.clock import SYSTEM_CLOCK, Clock
from host.refusal import Refusal
from host.table_info import ChatLine, TableInfo, TableState
from net.cluster import wire
from net.runtime.seat_client import StartAsk
from net.store.model import Account
from words import both

log = logging.getLogger("net.cluster")

PING_SECONDS = 2.0  # a remote seat tells its owner it is there this often (no answer)
POKE_SECONDS = 5.0  # and that its player pressed a key, at most this often (or at once if idle)
CHAT_KEPT = 20
MOVING = Refusal("moving")
# the owner's refusals of a move sent without waiting that the player is told (in the chat's
# place, as a seat in the owner's process returns them to its screen)
TOLD = frozenset({"host_only", "not_private", "invite_usage", "watchers_usage", "bad_invite",
                  "invites_full", "not_invited", "held", "chat_fast", "chat_busy"})
NOT_YOUR_MOVE = Refusal("not_your_move")


def seat_subject(sid: str) -> str:
    """Where an owner pushes one session's updates."""
    return f"mj.s.{sid}"


def batch_subject(worker: str) -> str:
    """Where owners push, in batches, to every session of worker ``worker``."""
    return "mj.w." + base64.urlsafe_b64encode(worker.encode("utf-8")).decode("ascii").rstrip("=")


def join_subject(key: str) -> str:
    return f"mj.t.{key}.join"


def do_subject(key: str) -> str:
    return f"mj.t.{key}.do"


class Bus(Protocol):
    """What a remote seat needs of its worker's NATS connection."""

    async def subscribe(self, subject: str, *,
                        cb: Callable[[Any], Awaitable[None]]) -> Any: ...

    async def request(self, subject: str, payload: bytes, timeout: float) -> Any: ...

    async def publish(self, subject: str, payload: bytes) -> None: ...


class RemoteSeat(SharedSeat):
    """One session's seat (or spectator's place) at a table another worker owns."""

    seat_index: int | None = None  # set by the join

    def __init__(self, bus: Bus, key: str, account: Account, owner: str = "",
                 clock: Clock = SYSTEM_CLOCK,
                 on_gone: Callable[[RemoteSeat], None] | None = None, via: str = "") -> None:
        super().__init__(clock)
        self.bus = bus
        self.via = via  # the subject of its worker's batches (its worker hands it them)
        self.key = key
        self.account = account
        self.sid = uuid.uuid4().hex
        self.on_gone = on_gone
        self._nickname = account.nickname
        self._game_no = 0
        self._chat: deque[ChatLine] = deque(maxlen=CHAT_KEPT)
        self._info: TableInfo | None = None
        self._update: TableUpdate | None = None
        self._sub: Any = None
        self._pinger: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.gone = False
        self.owner = owner  # the worker that answered the join
        self._poked = -POKE_SECONDS
        self._ask = StartAsk()  # S with seats held for the invited

    # --- joining ------------------------------------------------------------------------------
    async def join(self, spectate: bool, timeout: float = 2.0,
                   bot: bool = False) -> Refusal | None:
        """Ask the owner for the seat: None when seated (or watching), else why not. Raises
        on a transport error (no owner answered)."""
        self._sub = await self.bus.subscribe(seat_subject(self.sid), cb=self._pushed)
        try:
            reply = await self.bus.request(
                join_subject(self.key),
                wire.encode(wire.Join(self.sid, self.account, spectate, bot, self.via),
                            self.clock.now()),
                timeout)
            msg = wire.decode(reply.data, self.clock.now())
            if not isinstance(msg, wire.Joined | wire.Refused):
                raise wire.WireError(f"a join was answered with {type(msg).__name__}")
        except BaseException:
            await self._unsubscribe()
            raise
        if isinstance(msg, wire.Refused):
            await self._unsubscribe()
            return msg.refusal
        # What the owner pushed after this answer may have been read before it: the newer
        # wins (the owner takes the answer's snapshot and starts the pushes at one moment).
        self.seat_index = msg.seat_index
        self._nickname = msg.nickname
        self._game_no = msg.game_no
        if self._info is None:
            self._info = msg.info
        if self._update is None:
            self._update = msg.update
        pushed = list(self._chat)
        self._chat.clear()
        self._chat.extend(list(msg.chat_log) + pushed)
        self._pinger = asyncio.get_running_loop().create_task(self._ping(), name="seat ping")
        return None

    async def _unsubscribe(self) -> None:
        sub, self._sub = self._sub, None
        if sub is not None:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()

    async def _pushed(self, msg: Any) -> None:
        self.receive(msg.data)

    def receive(self, data: bytes) -> None:
        """One message its owner pushed (on the seat's own subject, or in its worker's
        batch)."""
        if self.closed:
            return
        try:
            item = wire.decode(data, self.clock.now())
        except wire.WireError as exc:
            log.warning("seat %s: a push could not be read: %s", self.sid[:8], exc)
            return
        if isinstance(item, wire.Update):
            self._update = item.update
            self.deliver(item.update)
        elif isinstance(item, wire.Info):
            self._info = item.info
            self._game_no = item.game_no
            self.deliver_info(item.info)
        elif isinstance(item, wire.Chat):
            self._chat.append(item.line)
            self.deliver_info(item.line)
        elif isinstance(item, wire.Done):  # the owner's word on a move sent without waiting
            if not item.alive:  # it does not know this seat (it took the table over)
                self._lost()
            elif item.refusal is not None:
                log.info("seat %s: refused by the owner: %s", self.sid[:8], item.refusal)
                if item.refusal.key in TOLD:  # said to the player, as a seat here says it
                    self.deliver_info(ChatLine("", item.refusal.text(None)))
                if self._update is not None:  # the screen is not left waiting for that move
                    self.deliver(self._update)
        elif isinstance(item, wire.Moved | wire.Closed):
            self._lost()

    def _lost(self) -> None:
        if self.gone or self.closed:
            return
        self.gone = True
        if self.on_gone is not None:
            self.on_gone(self)

    async def _ping(self) -> None:
        """Tell the owner this seat is there (it drops one it has not heard from). That the
        owner is gone is learnt from the directory (its table changed hands) or from its
        ``Moved``: a ping needs no answer, and costs one message."""
        while not self.closed and not self.gone:
            await asyncio.sleep(PING_SECONDS)
            self._do(wire.Op.PING)

    def _do(self, op: wire.Op, **fields: Any) -> None:
        """Send ``op`` to the owner without waiting for an answer: the owner answers only a
        refusal, or a seat it does not know, with a :class:`~net.cluster.wire.Done` pushed on
        the seat's subject."""
        if self.closed or self.gone:
            return
        self._send_quietly(wire.Do(self.sid, op, **fields))

    # --- the seat part ------------------------------------------------------------------------
    def send(self, action: Action) -> Refusal | None:
        if self.seat_index is None:
            return Refusal("spectator_play")
        if self.gone:
            return MOVING
        update = self._update
        if update is None or action not in update.view.legal:
            return NOT_YOUR_MOVE
        self._do(wire.Op.SEND, action=action)
        return None

    def next_hand(self) -> None:
        self._do(wire.Op.NEXT_HAND)

    def new_game(self, rules: str, options: Mapping[str, Any],
                 seed: int | None) -> Refusal | None:
        self._do(wire.Op.NEW_GAME)
        return None

    def close(self) -> None:
        """The session leaves: the owner is told (without waiting), nothing more is
        delivered."""
        if self.closed:
            return
        if not self.gone:
            with contextlib.suppress(RuntimeError):
                self._send_quietly(wire.Do(self.sid, wire.Op.LEAVE))
        self.detach()

    def detach(self) -> None:
        """Stop without telling the owner (it is gone)."""
        self._stop()
        if self._pinger is not None:
            self._pinger.cancel()
        self._spawn(self._unsubscribe)

    def _send_quietly(self, do: wire.Do) -> None:
        self._spawn(lambda: self.bus.publish(do_subject(self.key),
                                             wire.encode(do, self.clock.now())))

    def _spawn(self, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``work()`` on the running loop (none: RuntimeError, before it is called), held
        until done (the loop keeps only a weak reference to a task)."""
        task = asyncio.get_running_loop().create_task(work())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- the room part ------------------------------------------------------------------------
    @property
    def nickname(self) -> str:
        return self._nickname

    @property
    def state(self) -> TableState:
        return self._info.state if self._info is not None else TableState.WAITING

    @property
    def game_no(self) -> int:
        return self._game_no

    @property
    def chat_log(self) -> Sequence[ChatLine]:
        return self.heard(tuple(self._chat))

    def info(self) -> TableInfo:
        assert self._info is not None  # set by join
        return self._info

    def current_update(self) -> TableUpdate | None:
        return self._update

    def poke(self) -> None:
        """The player pressed a key: the owner hears it at once if the seat is idle, else at
        most every :data:`POKE_SECONDS` (its turn's expiries count from the last)."""
        index = self.seat_index
        if index is None:
            return
        info = self._info
        now = self.clock.now()
        idle = info is not None and info.seats[index].idle
        if idle or now - self._poked >= POKE_SECONDS:
            self._poked = now
            self._do(wire.Op.POKE)

    def start(self) -> Refusal | None:
        """S. Seats held at a private table (as its latest info says) are asked about here,
        as the owner's own seats do (:class:`~net.runtime.shared_table.StartAsk`); the
        second S goes to the owner as confirmed."""
        if self.seat_index is None:
            return Refusal("seated_start")
        now = self.clock.now()
        confirmed = self._ask.confirmed(now)
        info = self._info
        if (not confirmed and info is not None and info.private
                and info.state is TableState.WAITING and info.held):
            return self._ask.answered(Refusal.of("held", names=", ".join(info.absent_invited)),
                                      now)
        self._ask.answered(None, now)
        self._do(wire.Op.START, flag=confirmed)
        return None

    def chat(self, text: str) -> Refusal | None:
        self._do(wire.Op.CHAT, text=text)
        return None

    def stake(self, backs: int | None) -> Refusal | None:
        if self.seat_index is not None:
            return Refusal("seated_stake")
        self._do(wire.Op.STAKE, backs=backs)
        return None

    def set_allow(self, allow: bool) -> Refusal | None:
        if self.seat_index is None:
            return Refusal("seated_allow")
        self._do(wire.Op.SET_ALLOW, flag=allow)
        return None

    def set_program(self, text: str) -> None:
        if self.seat_index is not None:
            self._do(wire.Op.PROGRAM, text=text)


Backend = SharedTableClient  # a SeatClient of this process, or a RemoteSeat
Rejoin = Callable[["RoutedClient"], Awaitable[Backend | None]]  # the table's seat found again


class RoutedClient(SharedSeat):
    """The app's seat in a server of several workers: the table's seat wherever it runs now.
    What it is asked of the room is answered by the seat it had last (its screen stays while
    the table moves); what it is asked to do goes to the seat it has now, if any."""

    def __init__(self, name: str, account: Account, spectate: bool, backend: Backend,
                 rejoin: Rejoin, clock: Clock = SYSTEM_CLOCK) -> None:
        super().__init__(clock)
        self.name = name
        self.account = account
        self.spectate = spectate
        self.bot = False  # ``bot join``: a program plays the seat (kept when the table moves)
        self.program = ""  # that program's handshake, told again to the table's new owner
        self._rejoin = rejoin
        self.backend: Backend | None = None
        self._last: Backend = backend
        self._moving: asyncio.Task[None] | None = None
        # the table could not be found again after its owner went: ``on_lost`` (the
        # session's) is called once, and the session ends saying how to come back
        self.lost = False
        self.on_lost: Callable[[], None] | None = None
        self._attach(backend)

    def _attach(self, backend: Backend) -> None:
        self.backend = self._last = backend
        if isinstance(backend, RemoteSeat):
            backend.on_gone = lambda _seat: self.moved()
        backend.subscribe(self.deliver)
        backend.subscribe_info(self.deliver_info)
        if self.program:
            backend.set_program(self.program)

    def moved(self) -> None:
        """The table's owner is gone or changed: keep the screen, find the table again."""
        if self.closed or self.backend is None:
            return
        old, self.backend = self.backend, None
        if isinstance(old, RemoteSeat):
            old.detach()
        self.deliver_info(ChatLine("", MOVING.text(None)))
        self._moving = asyncio.get_running_loop().create_task(self._find(), name="rejoin")

    async def _find(self) -> None:
        backend = None
        try:
            backend = await self._rejoin(self)
        except asyncio.CancelledError:
            pass
        except Exception:  # the bus failing too: the table is as lost
            log.exception("table %s: a session could not follow it", self.name)
        if self.closed:
            if backend is not None:
                backend.close()
            return
        if backend is None:
            self.lost = True
            if self.on_lost is not None:
                self.on_lost()
            else:  # nobody to end: said where the screen says things
                self.deliver_info(ChatLine("", Refusal("unreachable").text(None)))
            return
        self._attach(backend)
        self.deliver_info(ChatLine("", both("table_goes_on")))
        update = backend.current_update()
        if update is not None:
            self.deliver(update)

    # --- the seat part ------------------------------------------------------------------------
    def send(self, action: Action) -> Refusal | None:
        return MOVING if self.backend is None else self.backend.send(action)

    def next_hand(self) -> None:
        if self.backend is not None:
            self.backend.next_hand()

    def new_game(self, rules: str, options: Mapping[str, Any],
                 seed: int | None) -> Refusal | None:
        return MOVING if self.backend is None else self.backend.new_game(rules, options, seed)

    def close(self) -> None:
        if not self._stop():
            return
        if self._moving is not None:
            self._moving.cancel()
        if self.backend is not None:
            self.backend.close()
            self.backend = None

    # --- the room part ------------------------------------------------------------------------
    @property
    def seat_index(self) -> int | None:
        return self._last.seat_index

    @property
    def nickname(self) -> str:
        return self._last.nickname

    @property
    def state(self) -> TableState:
        return self._last.state

    @property
    def game_no(self) -> int:
        return self._last.game_no

    @property
    def chat_log(self) -> Sequence[ChatLine]:
        return self.heard(self._last.chat_log)

    def info(self) -> TableInfo:
        return self._last.info()

    def current_update(self) -> TableUpdate | None:
        return self._last.current_update()

    def poke(self) -> None:
        if self.backend is not None:
            self.backend.poke()

    def start(self) -> Refusal | None:
        return MOVING if self.backend is None else self.backend.start()

    def chat(self, text: str) -> Refusal | None:
        return MOVING if self.backend is None else self.backend.chat(text)

    def stake(self, backs: int | None) -> Refusal | None:
        return MOVING if self.backend is None else self.backend.stake(backs)

    def set_allow(self, allow: bool) -> Refusal | None:
        return MOVING if self.backend is None else self.backend.set_allow(allow)

    def set_program(self, text: str) -> None:
        self.program = text
        if self.backend is not None:
            self.backend.set_program(text)
