"""Serving the sessions of other workers, and the pushes between workers: a mixin of
:class:`~net.cluster.node.Node`.

The owner of a table answers on its subjects: ``join`` (a session of another worker sits down
or watches: a :class:`RemoteSession` here, its seat's client in this process) and ``do`` (that
session's moves, chat, stakes and pings), and drops a session it has not heard from for
:data:`SESSION_SECONDS`. It pushes each such session only its own seat's updates
(:mod:`net.cluster.wire`): the pushes made in one turn of the loop go to each worker in one
batch, and a worker hands the pushes of a batch it gets to its seats at others' tables
(:class:`~net.cluster.remote.RemoteSeat`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from host.refusal import Refusal, RefusedError
from host.table_info import TableInfo
from net.cluster import wire
from net.cluster.remote import MOVING, RemoteSeat, seat_subject
from net.runtime.registry import Registry
from net.runtime.seat_client import SeatClient

log = logging.getLogger("net.cluster")

SESSION_SECONDS = 8.0  # an owner drops a remote session it has not heard from this long

# what the owner does with a remote session's :class:`~net.cluster.wire.Do`: the same call on
# its seat's client here as the session's own :class:`RemoteSeat` made (a ping is only heard)
DOING: dict[wire.Op, Callable[[SeatClient, wire.Do], Refusal | None]] = {
    wire.Op.SEND: lambda client, do: None if do.action is None else client.send(do.action),
    wire.Op.NEXT_HAND: lambda client, do: client.next_hand(),
    wire.Op.NEW_GAME: lambda client, do: client.new_game(client.info().rules, {}, None),
    wire.Op.POKE: lambda client, do: client.poke(),
    wire.Op.START: lambda client, do: client.start(do.flag),
    wire.Op.CHAT: lambda client, do: client.chat(do.text),
    wire.Op.STAKE: lambda client, do: client.stake(do.backs),
    wire.Op.SET_ALLOW: lambda client, do: client.set_allow(do.flag),
    wire.Op.PROGRAM: lambda client, do: client.set_program(do.text),
    wire.Op.LEAVE: lambda client, do: client.close(),
}


@dataclass
class RemoteSession:
    """A session of another worker at one of this worker's tables."""

    sid: str
    name: str
    client: SeatClient
    last_seen: float
    via: str = ""  # its worker's subject for batches ("": push on the session's own)


class Serving:
    """A worker's side of its sessions' traffic with other workers (mixed into
    :class:`~net.cluster.node.Node`, which holds the state named here)."""

    registry: Registry
    name: str
    nc: Any
    clock: Callable[[], float]
    sessions: dict[str, RemoteSession]
    _out: asyncio.Queue[tuple[str, str | None, bytes]]
    _seats: weakref.WeakValueDictionary[str, RemoteSeat]
    pushes: int
    batches: int
    may_act: Callable[[str], bool]

    # --- the pushes -----------------------------------------------------------------------------
    async def _sessions(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            now = self.clock()
            for sid, rs in list(self.sessions.items()):
                if now - rs.last_seen > SESSION_SECONDS:
                    del self.sessions[sid]
                    log.info("table %s: a remote session went quiet; its seat waits as for a "
                             "dropped connection", rs.name)
                    rs.client.close()

    async def _flusher(self) -> None:
        """Sends the pushes: those made in one turn of the loop (a move's updates for every
        seat) go to each worker in one message, a batch."""
        while True:
            first = await self._out.get()
            try:
                await self._publish(self._drain([first]))
            except Exception:  # the pushes of a turn may be lost, never the flusher
                log.exception("worker %s: pushes could not be sent", self.name)

    def _drain(self, got: list[tuple[str, str | None, bytes]]) -> list[tuple[str, bytes]]:
        """``got`` and every push queued since, as messages: one batch per worker (its
        sessions' pushes in the order made), and each push on a session's own subject."""
        while not self._out.empty():
            got.append(self._out.get_nowait())
        messages: list[tuple[str, bytes]] = []
        batches: dict[str, list[tuple[str, bytes]]] = {}
        for subject, sid, data in got:
            if sid is None:
                messages.append((subject, data))
            else:
                batches.setdefault(subject, []).append((sid, data))
        for subject, items in batches.items():
            for at in range(0, len(items), wire.MAX_BATCH):
                part = items[at:at + wire.MAX_BATCH]
                try:
                    messages.append((subject, wire.encode_batch(part)))
                except wire.WireError:  # too long together: each on its session's subject
                    messages += [(seat_subject(sid), data) for sid, data in part]
                    continue
                self.batches += 1
                self.pushes += len(part)
        return messages

    async def _publish(self, messages: list[tuple[str, bytes]]) -> None:
        for subject, data in messages:
            try:
                await self.nc.publish(subject, data)
            except Exception as exc:
                log.debug("a push to %s failed: %s", subject, exc)

    def _push(self, sid: str, item: Any, via: str = "") -> None:
        data = wire.encode(item, time.monotonic())
        if via:
            self._out.put_nowait((via, sid, data))
        else:
            self._out.put_nowait((seat_subject(sid), None, data))

    async def _on_batch(self, msg: Any) -> None:
        """Pushes of an owner for our sessions at its tables."""
        try:
            items = wire.decode_batch(msg.data)
        except wire.WireError as exc:
            log.warning("worker %s: a batch could not be read: %s", self.name, exc)
            return
        for sid, data in items:
            seat = self._seats.get(sid)
            if seat is not None:
                seat.receive(data)

    # --- serving the sessions of other workers --------------------------------------------------
    async def _reply(self, msg: Any, item: Any) -> None:
        if msg.reply:
            with contextlib.suppress(Exception):
                await msg.respond(wire.encode(item, time.monotonic()))

    def _read(self, name: str, msg: Any, kind: type[wire.Message]) -> Any:
        """The ``kind`` message ``msg`` carries, or None (garbage is logged and dropped)."""
        try:
            item = wire.decode(msg.data, time.monotonic())
        except wire.WireError as exc:
            log.warning("table %s: a message could not be read: %s", name, exc)
            return None
        return item if isinstance(item, kind) else None

    async def _on_join(self, name: str, msg: Any) -> None:
        join = self._read(name, msg, wire.Join)
        if join is None:
            return
        table = self.registry.tables.get(name)
        if table is None or not self.may_act(name):
            await self._reply(msg, wire.Refused(MOVING))
            return
        old = self.sessions.pop(join.sid, None)
        if old is not None:
            old.client.close()
        try:  # the owner decides who sits or watches (a private table refuses a stranger)
            client = table.join(join.account, spectate=join.spectate, bot=join.bot)
        except RefusedError as exc:
            await self._reply(msg, wire.Refused(exc.refusal))
            return
        via = join.via if join.via.startswith("mj.w.") else ""
        self.sessions[join.sid] = RemoteSession(join.sid, name, client, self.clock(), via)
        # the answer's snapshot and the first push at one moment (no await between): every
        # later change is pushed once, every earlier one is in the snapshot
        joined = wire.Joined(client.seat_index, client.nickname, table.state, table.game_no,
                             tuple(table.chat_log), table.info(), client.current_update())
        sid = join.sid
        client.subscribe(lambda update: self._push(sid, wire.Update(update), via))
        client.subscribe_info(lambda item: self._push(
            sid, wire.Info(item, table.game_no) if isinstance(item, TableInfo)
            else wire.Chat(item), via))
        await self._reply(msg, joined)

    async def _on_do(self, name: str, msg: Any) -> None:
        do = self._read(name, msg, wire.Do)
        if do is None:
            return
        rs = self.sessions.get(do.sid)
        if rs is None or rs.name != name:
            if do.op is not wire.Op.LEAVE:
                await self._answer(msg, do.sid, wire.Done(alive=False))
            return
        rs.last_seen = self.clock()
        if do.op is wire.Op.LEAVE:
            del self.sessions[do.sid]
        doing = DOING.get(do.op)
        refusal = doing(rs.client, do) if doing is not None else None
        if refusal is not None or msg.reply:
            await self._answer(msg, do.sid, wire.Done(refusal))

    async def _answer(self, msg: Any, sid: str, done: wire.Done) -> None:
        """A request's answer; for a move sent without waiting, a push to its seat."""
        if msg.reply:
            await self._reply(msg, done)
        else:
            rs = self.sessions.get(sid)
            self._push(sid, done, rs.via if rs is not None else "")
