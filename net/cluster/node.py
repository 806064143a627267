"""One worker of a server spread over several processes or machines (``serve --workers N``,
``--nats URL``).

Each table lives in one worker, its owner, which runs it as the one-process server does
(engine, timers, computer players, persistence:
:class:`~net.runtime.shared_table.SharedTable` in its
:class:`~net.runtime.registry.Registry`). The owner holds the table's lease in the directory
(:mod:`net.cluster.directory`) and answers on the table's subjects: ``join`` (a session of
another worker sits down or watches) and ``do`` (that session's moves, chat, stakes and
pings); it pushes each such session only its own seat's update (:mod:`net.cluster.wire`), so
no process that serves a session holds another seat's concealed tiles. Serving those sessions
and batching the pushes between workers is :mod:`net.cluster.serving`; this module is the
worker's leases, heartbeat and takeovers, and its own sessions' way to any table.

A session in any worker gets its seat through :meth:`Node.open_seat`: the table's seat in this
process if this worker owns it, else a :class:`~net.cluster.remote.RemoteSeat`, inside a
:class:`~net.cluster.remote.RoutedClient` that follows the table when it moves.

A worker that dies (SIGKILL, its machine gone) stops its heartbeat: after
:data:`~net.cluster.directory.TAKEOVER_SECONDS` another worker fences it (deletes its
heartbeat) and takes each table over — the directory's key first (its revision the new fencing
token), then the store's claim (from then on the old owner's writes are refused), then the
table restored from the store at its last applied action. Sessions elsewhere notice (their
pings go unanswered, or the owner's ``Moved``) and join the new owner; the players whose
connection was on the dead worker reconnect to any worker and get their seat back as after a
dropped connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import time
import uuid
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

import nats
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeout

from host.refusal import Refusal, RefusedError
from host.table_info import SeatInfo, TableInfo, TableState
from net.cluster import wire
from net.cluster.directory import (
    FREE,
    RENEW_SECONDS,
    TAKEOVER_SECONDS,
    VALID_SECONDS,
    Beat,
    Directory,
    Seen,
    table_key,
)
from net.cluster.natsd import Auth, shown_url
from net.cluster.remote import (
    MOVING,
    Backend,
    RemoteSeat,
    RoutedClient,
    batch_subject,
    do_subject,
    join_subject,
)
from net.cluster.serving import RemoteSession, Serving
from net.commands import Command
from net.runtime.registry import Registry, check_settings
from net.runtime.seat_client import SeatClient
from net.runtime.shared_table import SharedTable
from net.store.base import Store, store_call
from net.store.model import Account, TableRow

log = logging.getLogger("net.cluster")
T = TypeVar("T")

FIND_SECONDS = 15.0  # a session looks this long for a table's new owner
REAP_SECONDS = 0.5  # how often a worker looks for tables whose owner stopped
ORPHAN_SECONDS = 2.0  # and for stored tables nobody owns (the whole server restarted)
TICK = 0.25  # the lease loop's beat


CONNECT_SECONDS = 10.0  # a worker that cannot reach the bus this long at start gives up


class BusError(OSError):
    """The bus cannot be reached at start (``serve`` says so in one line and exits)."""


class Unreachable(RefusedError):
    """The table's owner could not be reached in time."""


@dataclass
class Lease:
    """This worker's hold on a table (held while the worker's heartbeat is, and confirmed)."""

    name: str
    token: int  # the directory revision it was acquired at: the store's fencing token
    revision: int  # the table key's revision at this worker's latest write of it
    dirty: bool = True  # the key is to be written (the lobby facts changed, or to confirm)
    confirmed: bool = True  # written since this worker was last fenced
    doubted_at: float = 0.0  # when it was last put in doubt (a fence)
    written: wire.Entry | None = None  # what this worker last wrote there


@dataclass
class _Owned:
    lease: Lease
    subs: list[Any] = field(default_factory=list)


def placeholder_info(row: TableRow) -> TableInfo:
    """What the lobby may show of a stored table while a worker restores it."""
    empty = SeatInfo("", False, False)
    return TableInfo(name=row.name, rules=row.rules, options=tuple(sorted(row.options.items())),
                     seats=(empty, empty, empty, empty), spectators=0,
                     state=TableState.WAITING, hand_no=0, hands_per_game=0)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class Node(Serving):
    """This worker's part in the server: its leases, its tables' remote sessions (served by
    :class:`~net.cluster.serving.Serving`), and the way to any table for its own sessions."""

    def __init__(self, registry: Registry, store: Store, url: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.registry = registry
        self.store = store
        self.url = url
        self.clock = clock
        self.name = worker_name()
        self.nc: Any = None
        self.directory: Directory
        self.owned: dict[str, _Owned] = {}
        self.sessions: dict[str, RemoteSession] = {}
        self.local: dict[str, weakref.WeakSet[RoutedClient]] = {}
        self.remote: dict[str, weakref.WeakSet[RemoteSeat]] = {}  # our seats at others' tables
        # pushes waiting for the flusher: (a worker's batch subject, session id, message), or
        # (the session's own subject, None, message)
        self._out: asyncio.Queue[tuple[str, str | None, bytes]] = asyncio.Queue()
        self.via = batch_subject(self.name)
        self._seats: weakref.WeakValueDictionary[str, RemoteSeat] = \
            weakref.WeakValueDictionary()  # our seats at others' tables, by session id
        self._tasks: list[asyncio.Task[None]] = []
        self._taking: set[str] = set()  # tables being made or taken over here
        self._letting_go: set[str] = set()  # closed here, their keys being removed
        self.beat_revision: int | None = None  # this worker's heartbeat key's, None: none
        self.beat_at = -float("inf")  # when the latest successful heartbeat was sent
        self._fenced_out = False  # another worker deleted our heartbeat: act for nothing
        self._stopping = False
        self.takeovers = 0  # tables this worker took over from another
        self.fences = 0  # times it found itself fenced by another
        self.pushes = 0  # pushes sent in batches to other workers' sessions
        self.batches = 0  # and the batches that carried them

    # --- start and stop -----------------------------------------------------------------------
    async def start(self) -> None:
        async def disconnected() -> None:
            if self._stopping:
                return  # our own clean stop
            log.warning("worker %s: lost the bus (NATS); its tables pause within %.0f s unless "
                        "it comes back", self.name, VALID_SECONDS)

        async def reconnected() -> None:
            log.info("worker %s: the bus (NATS) is back", self.name)
            if hasattr(self, "directory"):
                self._spawn(self._rewatch())

        async def error(exc: Exception) -> None:
            log.debug("worker %s: bus error: %s", self.name, exc)

        # the credentials of the bus the supervisor started (its workers' environment), unless
        # the URL an operator gave carries its own
        auth = None if "@" in self.url else Auth.from_env()
        try:  # the first connection is bounded; once in, the worker reconnects for ever
            self.nc = await asyncio.wait_for(nats.connect(
                self.url, name=self.name, connect_timeout=5, max_reconnect_attempts=-1,
                reconnect_time_wait=0.5, ping_interval=5, max_outstanding_pings=2,
                disconnected_cb=disconnected, reconnected_cb=reconnected, error_cb=error,
                **(auth.options() if auth is not None else {})),
                CONNECT_SECONDS)
            self.directory = Directory(self.nc.jetstream(timeout=2.0), self.clock)
            await self.directory.start()
            await self.nc.subscribe(self.via, cb=self._on_batch)
            # the first heartbeat may wait for a bucket just made (its servers electing
            # a leader): tried again until the bound of the whole start
            deadline = self.clock() + CONNECT_SECONDS
            while not await self._heartbeat():
                if self.clock() > deadline:
                    raise RuntimeError("the first heartbeat could not be written")
                await asyncio.sleep(0.2)
        except Exception as exc:
            if self.nc is not None:
                with contextlib.suppress(Exception):
                    await self.nc.close()
            raise BusError(f"{shown_url(self.url)}: the bus (NATS, with JetStream) cannot be "
                           f"reached ({type(exc).__name__}{': ' if str(exc) else ''}{exc}): "
                           f"start it there, or check --nats"
                           ) from None
        if self.directory.created:
            # a new directory: its revisions start again, and no lease of before survives
            # in it, so the tokens the store holds from before no longer mean anything
            reset = await self._db(self.store.reset_claims)
            if reset:
                log.info("worker %s: a new directory of owners; %d stored tables' tokens "
                         "reset", self.name, reset)
        self.directory.on_change.append(self._entry_changed)
        registry = self.registry
        registry.others = self
        registry.on_closed.append(self._closed)
        self.store.on_fenced = self._fenced
        loop = asyncio.get_running_loop()
        for coro, name in ((self._leases(), "leases"), (self._reaper(), "reaper"),
                           (self._flusher(), "pushes"), (self._sessions(), "sessions")):
            self._tasks.append(loop.create_task(coro, name=f"cluster {name}"))
        log.info("worker %s joined %s (%d tables known)", self.name, shown_url(self.url),
                 len(self.directory.entries))

    async def stop(self) -> None:
        """A clean stop: every table let go at once (the others take them over without
        waiting out the lease), the sessions elsewhere told to look for the new owner."""
        self._stopping = True
        for task in self._tasks:
            task.cancel()
        for name in list(self.owned):
            owned = self.owned.pop(name)
            table = self.registry.tables.get(name)
            if table is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.directory.replace(
                        wire.Entry(name, FREE, owned.lease.token, table.info(), table.creator),
                        owned.lease.revision), 1.0)
            self._tell_moved(name)
            for sub in owned.subs:
                with contextlib.suppress(Exception):
                    await sub.unsubscribe()
        if self.beat_revision is not None:  # gone: our tables are free at once
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.directory.fence(self.name, self.beat_revision), 1.0)
        with contextlib.suppress(Exception):
            await self._publish(self._drain([]))
        await self.directory.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.nc.drain(), 2.0)

    # --- the others' tables (net.runtime.registry.Others) ------------------------------
    def infos(self) -> Mapping[str, TableInfo]:
        return {name: seen.entry.info for name, seen in self.directory.entries.items()
                if name not in self.owned}

    def creator(self, name: str) -> int | None:
        seen = self.directory.entries.get(name)
        return seen.entry.creator if seen is not None else None

    # --- a session's way to a table -----------------------------------------------------------
    async def open_seat(self, command: Command, account: Account,
                        address: str | None = None) -> RoutedClient | None:
        """The seat (or spectator's place) a join or watch command asks for, wherever the
        table runs; a join creates the table here if nobody has it. None: no such table (a
        watch). ValueError (a refusal) where it cannot be had."""
        spectate = command.name == "watch"
        backend = await self._backend(command.table, account, spectate, command, address,
                                      command.bot)
        if backend is None:
            return None
        client = RoutedClient(command.table, account, spectate, backend, self._rejoin)
        client.bot = command.bot
        self._track(client, backend)
        return client

    def _track(self, client: RoutedClient, backend: Backend) -> None:
        if isinstance(backend, SeatClient):
            self.local.setdefault(client.name, weakref.WeakSet()).add(client)

    async def _rejoin(self, client: RoutedClient) -> Backend | None:
        try:
            backend = await self._backend(client.name, client.account, client.spectate,
                                          bot=client.bot)
        except ValueError as exc:
            log.info("table %s: a session could not follow it: %s", client.name, exc)
            return None
        if backend is not None:
            self._track(client, backend)
        return backend

    async def _backend(self, name: str, account: Account, spectate: bool,
                       command: Command | None = None,
                       address: str | None = None, bot: bool = False) -> Backend | None:
        registry = self.registry
        deadline = self.clock() + FIND_SECONDS
        while True:
            if name in registry.quarantined:
                registry.check_name(name)  # raises TableQuarantined
            table = registry.tables.get(name)
            if table is not None and name in self.owned:
                if command is not None and not spectate:
                    check_settings(table.info(), command.rules, dict(command.options),
                                   command.bots, command.private)
                if self.may_act(name):
                    return table.join(account, spectate=spectate, bot=bot)
            seen = self.directory.live(name)
            if seen is not None and seen.entry.owner != self.name:
                if command is not None and not spectate:
                    check_settings(seen.entry.info, command.rules, dict(command.options),
                                   command.bots, command.private)
                seat = RemoteSeat(self.nc, table_key(name), account, seen.entry.owner,
                                  via=self.via)
                self._seats[seat.sid] = seat  # its pushes may come before the join's answer
                try:
                    refusal = await seat.join(spectate, bot=bot)
                except (TimeoutError, NoRespondersError, NatsTimeout):
                    refusal = MOVING  # its owner is going; the directory will say who's next
                if refusal is None:
                    self.remote.setdefault(name, weakref.WeakSet()).add(seat)
                    return seat
                if refusal != MOVING:
                    raise RefusedError(refusal)
            elif seen is None and name not in self.owned:
                stale = self.directory.entries.get(name)
                if stale is not None or await self._db(self.store.has_table, name):
                    await self._take(name, stale.revision if stale is not None else None)
                elif command is None or spectate:
                    return None  # no such table (any more)
                elif await self._create(name, command, account, address):
                    continue
            if self.clock() > deadline:
                raise Unreachable(Refusal("unreachable"))
            await asyncio.sleep(0.2)

    async def _create(self, name: str, command: Command, account: Account,
                      address: str | None) -> bool:
        """A new table, owned here: the directory's key first (None: someone was quicker),
        then the store's claim, then the table."""
        registry = self.registry
        registry.check_create(name, account, address)
        table = registry.new_table(name, command.rules, dict(command.options), command.bots,
                                   account, command.private)
        self._taking.add(name)  # its key names this worker before the table is ours
        fences = self.fences
        try:
            revision = await self.directory.create(
                wire.Entry(name, self.name, 0, table.info(), table.creator))
            if revision is None:
                table.close()
                return False
            if not await self._db(self.store.claim_table, name, revision):
                table.close()
                log.error("table %s: the store holds a newer owner than the directory's "
                          "revision %d (was the NATS data reset?)", name, revision)
                return False
            await self._own(table, revision, fences)
        finally:
            self._taking.discard(name)
        registry.add(table, address)
        log.info("worker %s opened table %s (token %d)", self.name, name, revision)
        return True

    async def _db(self, call: Callable[..., T], *args: Any) -> T:
        return await store_call(self.store, call, *args)

    # --- owning ---------------------------------------------------------------------------------
    def _beat_valid(self, now: float) -> bool:
        return not self._fenced_out and now - self.beat_at < VALID_SECONDS

    def may_act(self, name: str) -> bool:
        """Whether this worker may act for table ``name`` now (its table's hook,
        net.runtime.registry.Others): it holds its lease, confirmed, and its heartbeat is
        valid."""
        owned = self.owned.get(name)
        return (owned is not None and owned.lease.confirmed
                and self._beat_valid(self.clock()))

    async def _own(self, table: SharedTable, token: int, fences: int) -> None:
        """Table ``table`` run here from now, acquired at revision ``token``; ``fences``:
        this worker's count of fences when it began acquiring it. A fence meanwhile (the
        taker may have seen our write and taken the table after it) leaves it to be confirmed
        by a write at its revision before it is played."""
        name = table.name
        lease = Lease(name, token, token)
        if self.fences != fences or self._fenced_out:
            lease.confirmed = False
            lease.doubted_at = self.clock()
        owned = self.owned[name] = _Owned(lease)
        table.on_info.append(lambda _info: self._dirty(name))
        key = table_key(name)
        owned.subs.append(await self.nc.subscribe(join_subject(key),
                                                  cb=partial(self._on_join, name)))
        owned.subs.append(await self.nc.subscribe(do_subject(key),
                                                  cb=partial(self._on_do, name)))

    async def _rewatch(self) -> None:
        try:
            await self.directory.rewatch()
        except Exception:
            log.exception("worker %s: the directory could not be watched again", self.name)

    def _entry_changed(self, name: str) -> None:
        """A table's entry changed: our seats there follow it if it changed hands (or went)."""
        seats = self.remote.get(name)
        if not seats:
            return
        seen = self.directory.entries.get(name)
        owner = seen.entry.owner if seen is not None else None
        for seat in list(seats):
            if seat.owner != owner:
                seats.discard(seat)
                seat._lost()

    def _dirty(self, name: str) -> None:
        owned = self.owned.get(name)
        if owned is not None:
            owned.lease.dirty = True

    async def _take(self, name: str, last: int | None) -> None:
        """Take table ``name`` over (its owner stopped its heartbeat, or let it go, or nobody
        owns its stored row): its owner fenced, the directory's key at revision ``last``
        (None: a key nobody has), the store's claim, then the table as stored."""
        if name in self._taking or name in self.owned or self._stopping:
            return
        registry = self.registry
        if name in registry.quarantined:
            return
        self._taking.add(name)
        fences = self.fences
        try:
            row = await self._db(self.store.load_table, name)
            if row is None:  # closed meanwhile: the key goes too
                if last is not None:
                    await self.directory.remove(name, last)
                return
            seen = self.directory.entries.get(name)
            owner = seen.entry.owner if seen is not None else FREE
            if last is not None and owner not in (FREE, self.name) \
                    and not await self._fence(owner):
                return  # it lives after all
            entry = wire.Entry(name, self.name, 0, placeholder_info(row), None)
            revision = (await self.directory.create(entry) if last is None
                        else await self.directory.replace(entry, last))
            if revision is None:
                return  # another worker was quicker
            if not await self._db(self.store.claim_table, name, revision):
                log.error("table %s: the store holds a newer owner than the directory's "
                          "revision %d (was the NATS data reset?)", name, revision)
                return
            # the old owner can write no more: the row as it stays
            row = await self._db(self.store.load_table, name)
            actions = None
            if row is not None and row.fault is None and self.store.off_loop:
                # read from the database server in a thread, not on the loop mid-replay (a
                # row that cannot be read is read again by the replay, which quarantines)
                with contextlib.suppress(Exception):
                    actions = await self._db(self.store.actions, name, row.state.game_no)
            table = registry.restore(row, actions) if row is not None else None
            if table is None:
                return  # quarantined (logged); its key is left to go stale
            await self._own(table, revision, fences)
            self.takeovers += 1
            if table.game is not None:
                table.loop.start()
            table.check_empty()
            log.info("worker %s took over table %s (token %d)", self.name, name, revision)
        except Exception:
            log.exception("table %s: taking it over failed", name)
        finally:
            self._taking.discard(name)

    async def _fence(self, worker: str) -> bool:
        """Whether ``worker`` can act no more: its heartbeat gone, or now deleted by us at the
        revision we saw unchanged for :data:`TAKEOVER_SECONDS` (read again from the server
        first: a watch that lags must not condemn a live worker)."""
        try:
            fresh = await asyncio.wait_for(self.directory.beat_now(worker), VALID_SECONDS / 2)
            if fresh is None:
                return True
            seen = self.directory.workers.get(worker)
            now = self.clock()
            if seen is None or seen.revision != fresh:
                self.directory.workers[worker] = Beat(fresh, now)  # it beat since we looked
                return False
            if now - seen.seen_at < TAKEOVER_SECONDS:
                return False
            fenced = await asyncio.wait_for(self.directory.fence(worker, fresh),
                                            VALID_SECONDS / 2)
        except Exception as exc:
            log.debug("worker %s: %s could not be fenced: %s", self.name, worker, exc)
            return False
        if fenced:
            log.info("worker %s fenced worker %s (no heartbeat for %.0f s)", self.name, worker,
                     TAKEOVER_SECONDS)
        return fenced

    def _lose(self, name: str, why: str) -> None:
        """This worker no longer runs table ``name``: stopped here, its sessions sent on."""
        owned = self.owned.pop(name, None)
        if owned is None:
            return
        log.warning("worker %s: table %s is no longer ours (%s)", self.name, name, why)
        self.registry.forget(name)
        self._tell_moved(name)
        for sub in owned.subs:
            self._spawn(sub.unsubscribe())

    def _tell_moved(self, name: str) -> None:
        for sid, rs in list(self.sessions.items()):
            if rs.name == name:
                del self.sessions[sid]
                self._push(sid, wire.Moved(), rs.via)
        for client in list(self.local.pop(name, ())):
            client.moved()

    def _fenced(self, name: str) -> None:
        """The store refused a write of ours for ``name``: someone newer owns it."""
        asyncio.get_running_loop().call_soon(self._lose, name, "the store has a newer owner")

    def _closed(self, name: str) -> None:
        """One of our tables closed (empty): its key goes."""
        owned = self.owned.pop(name, None)
        if owned is None:
            return
        for sub in owned.subs:
            self._spawn(sub.unsubscribe())
        self._letting_go.add(name)
        self._spawn(self._remove(name, owned.lease.revision))
        with contextlib.suppress(Exception):
            self.store.release_table(name)

    async def _remove(self, name: str, last: int) -> None:
        try:
            await self.directory.remove(name, last)
        finally:
            self._letting_go.discard(name)

    async def _let_go(self, name: str, seen: Seen) -> None:
        """An entry that names this worker for a table it no longer runs (lost while cut
        off, or a takeover that failed half-way): written free, so any worker takes the
        table over at once (our heartbeat would otherwise keep it ours for ever)."""
        entry = seen.entry
        with contextlib.suppress(Exception):
            if await asyncio.wait_for(self.directory.replace(
                    wire.Entry(name, FREE, entry.token, entry.info, entry.creator),
                    seen.revision), VALID_SECONDS / 2) is not None:
                log.info("worker %s let table %s go", self.name, name)

    # --- loops ----------------------------------------------------------------------------------
    async def _leases(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            try:
                if self.clock() - self.beat_at >= RENEW_SECONDS:
                    await self._heartbeat()
                if self._beat_valid(self.clock()):
                    due = [o.lease for o in self.owned.values() if o.lease.dirty]
                    if due:
                        await asyncio.gather(*(self._renew(lease) for lease in due))
                now = self.clock()
                for name, owned in list(self.owned.items()):
                    if not self.may_act(name):
                        table = self.registry.tables.get(name)
                        if table is not None:
                            table.loop.kick()  # it sleeps until the lease is settled
                    if now - self.beat_at >= TAKEOVER_SECONDS:
                        self._lose(name, "this worker's heartbeat could not be written")
                    elif (not owned.lease.confirmed
                          and now - owned.lease.doubted_at >= TAKEOVER_SECONDS):
                        self._lose(name, "it could not be confirmed after a fence")
            except Exception:
                log.exception("worker %s: the lease loop failed a turn", self.name)

    async def _heartbeat(self) -> bool:
        """This worker's heartbeat written (True), which holds all its tables for
        :data:`VALID_SECONDS` from when it was sent. A heartbeat refused means another worker
        fenced this one: every table is then in doubt until its key is written again."""
        started = self.clock()
        try:
            revision = await asyncio.wait_for(
                self.directory.beat(self.name, self.beat_revision), VALID_SECONDS / 4)
            if revision is None:
                # our key is not at the revision we know: an earlier write whose answer was
                # lost (the key is there: only this worker writes it), or a fence (deleted)
                revision = await asyncio.wait_for(self.directory.beat_now(self.name),
                                                  VALID_SECONDS / 4)
                if revision is not None:
                    self.beat_revision = revision
                    return False  # written again at the next turn
                if self.beat_revision is not None:
                    self._was_fenced()
                revision = await asyncio.wait_for(self.directory.beat(self.name, None),
                                                  VALID_SECONDS / 4)
                if revision is None:
                    return False
        except Exception as exc:
            log.debug("worker %s: the heartbeat failed: %s", self.name, exc)
            return False
        was_valid = self._beat_valid(started)
        self.beat_revision = revision
        self.beat_at = started
        self._fenced_out = False
        if not was_valid:
            for name in self.owned:
                table = self.registry.tables.get(name)
                if table is not None:
                    table.loop.kick()
        return True

    def _was_fenced(self) -> None:
        log.warning("worker %s: fenced by another worker (it found no heartbeat for %.0f s); "
                    "each of its %d tables is confirmed before it acts again", self.name,
                    TAKEOVER_SECONDS, len(self.owned))
        self.fences += 1
        self.beat_revision = None
        self._fenced_out = True
        now = self.clock()
        for owned in self.owned.values():
            owned.lease.confirmed = False
            owned.lease.dirty = True
            owned.lease.doubted_at = now

    async def _renew(self, lease: Lease) -> None:
        """The table's key written with its lobby facts, at the revision of our last write:
        refused, someone else took the table (or let it go for us)."""
        table = self.registry.tables.get(lease.name)
        if table is None:
            return
        entry = wire.Entry(lease.name, self.name, lease.token, table.info(), table.creator)
        lease.dirty = False
        if lease.confirmed and entry == lease.written:
            return  # nothing the lobby shows changed
        try:
            revision = await asyncio.wait_for(self.directory.replace(entry, lease.revision),
                                              VALID_SECONDS / 4)
            if revision is None:
                current = await asyncio.wait_for(self.directory.current(lease.name),
                                                 VALID_SECONDS / 4)
                if (current is not None and current[0].owner == self.name
                        and current[0].token == lease.token):
                    # an earlier write of ours whose answer was lost (only this worker
                    # writes its own name): written again at the next turn, from there
                    lease.revision = current[1]
                    lease.dirty = True
                    return
        except Exception as exc:
            lease.dirty = True
            log.debug("table %s: its entry could not be written: %s", lease.name, exc)
            return
        if lease.name not in self.owned or self.owned[lease.name].lease is not lease:
            return
        if revision is None:
            self._lose(lease.name, "another worker took it over")
            return
        lease.revision = revision
        lease.written = entry
        if not lease.confirmed:
            lease.confirmed = True
            table.loop.kick()

    async def _reaper(self) -> None:
        orphans_at = 0.0
        while True:
            await asyncio.sleep(REAP_SECONDS * (0.5 + random.random()))
            try:
                for seen in self.directory.stale():
                    name = seen.entry.name
                    for seat in list(self.remote.pop(name, ())):
                        seat._lost()  # its owner stopped: look for the next one
                    if name not in self.owned and name not in self._taking:
                        await self._take(name, seen.revision)
                for name, seen in list(self.directory.entries.items()):
                    if (seen.entry.owner == self.name and name not in self.owned
                            and name not in self._taking and name not in self._letting_go
                            and name not in self.registry.quarantined):
                        await self._let_go(name, seen)
                now = self.clock()
                if now >= orphans_at:
                    orphans_at = now + ORPHAN_SECONDS
                    known = self.directory.entries
                    for name in await self._db(self.store.table_names):
                        if name not in known and name not in self.owned:
                            await self._take(name, None)
            except Exception:
                log.exception("worker %s: the reaper failed a turn", self.name)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.append(task)
        task.add_done_callback(lambda t: self._tasks.remove(t) if t in self._tasks else None)
