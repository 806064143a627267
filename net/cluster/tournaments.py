"""Tournaments on a server of several workers (issue 56): a tournament's tables may live on
any worker, and a tournament survives a worker's death as a table does.

- **The store is the truth.** Every worker reads a tournament afresh for each command
  (:meth:`SharedBoard.fresh`) and every :data:`POLL_SECONDS` for the lobby's line and the
  rounds' tables, at once when another worker says on the bus (:data:`SUBJECT`) that it
  changed one; each change is one read-change-write under the database's lock
  (``Store.update_tournament``). A command's change, made on what it read, is made again on
  what is stored now where another worker changed it meanwhile (:func:`merged`: entries and
  invitations added, a start made on the entries as they are); a table's result is recorded
  on what is stored now, never twice, and whoever records a round's last result seats the
  next round in that same change.
- **A round's tables are made through the directory** (:meth:`SharedBoard.make`), as a
  session's join makes a table (net.cluster.node ``_create``): the directory's key first (of
  two workers, one wins), then the store's claim, then the table, added and started. Table
  ``k`` of a round is made by the ``k``-th live worker (by name) at once, by any other once it
  has been missing :data:`SHARE_SECONDS`, so a round's tables spread over the workers and a
  round seated by a worker that died before it made them still gets them. A table stored but
  in no worker's hands is the reaper's to take over (net.cluster.node ``_take``).
- **Whoever runs a round's table watches it** (net.runtime.tournaments
  ``Tournaments.watch``): set when it makes the table, and when the table comes to it by a
  takeover (Registry's adoption, and every poll), so a game that ended on a dead worker
  before its result was recorded is counted by the taker, once. The round's time limit is
  kept by each table's owner, from when the table was made (its stored row's first save).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from dataclasses import fields
from functools import partial
from typing import TYPE_CHECKING, Any

from engine.tournament import OPEN, RUNNING, RoundTable, TableResult, Tournament
from net.cluster import wire
from net.cluster.directory import TAKEOVER_SECONDS
from net.limits import TOURNAMENT_ENTRIES_MAX
from net.runtime.shared_table import SharedTable
from net.runtime.tournaments import TournamentRefused, table_name
from net.store.base import store_call
from net.store.model import StorageError

if TYPE_CHECKING:
    from net.cluster.node import Node

log = logging.getLogger("net.cluster")

POLL_SECONDS = 1.0  # each worker reads the tournaments this often (the lobby, the rounds)
SHARE_SECONDS = 2.0  # a round's table another worker is to make is made here after this
SUBJECT = "mahjong.tournaments"  # a worker that changed one tells the others to read it now
BASES_KEPT = 64  # the commands' reads kept for their changes (one at a time changes)


def merged(base: Tournament | None, mine: Tournament, stored: Tournament | None) -> Tournament:
    """What a command's change (``mine``, made on ``base`` as it read it) saves where the
    stored tournament is ``stored`` now: ``mine`` where nothing changed meanwhile; else the
    change made again on ``stored`` (its new entries and invitations added, its start made),
    or TournamentRefused where it no longer can be."""
    name = mine.name
    if base is None:  # a new one
        if stored is not None:
            raise TournamentRefused("tournament_exists", name=name)
        return mine
    if stored is None:
        raise TournamentRefused("tournament_none", name=name)
    if stored.to_json() == base.to_json():
        return mine
    if base.state != OPEN:
        raise TournamentRefused("tournament_started", name=name)
    known = {e.pid for e in stored.entries}
    for entry in mine.entries:
        if entry.pid not in known and entry not in base.entries:
            if stored.state != OPEN:
                raise TournamentRefused("tournament_started", name=name)
            if len(stored.entries) >= TOURNAMENT_ENTRIES_MAX:
                raise TournamentRefused("tournament_full", name=name, n=TOURNAMENT_ENTRIES_MAX)
            stored.entries.append(entry)
    for f in fields(Tournament):  # what else the command set (a private one's invitations)
        value = getattr(mine, f.name)
        if f.name in ("entries", "state", "played") or value == getattr(base, f.name):
            continue
        have = getattr(stored, f.name)
        if isinstance(value, tuple) and isinstance(have, tuple):
            value = (*have, *(v for v in value if v not in have))
        setattr(stored, f.name, value)
    if mine.state != base.state:  # the start, made again on the entries as they are now
        if stored.state != OPEN:
            raise TournamentRefused("tournament_started", name=name)
        stored.start()
    return stored


def _assign(t: Tournament, other: Tournament) -> None:
    """``t`` made ``other`` in place (a command's caller holds ``t``)."""
    for f in fields(Tournament):
        setattr(t, f.name, getattr(other, f.name))


class SharedBoard:
    """This worker's part in the tournaments of a server of several workers: installed as
    its registry's tournaments' ``cluster`` (net.runtime.tournaments)."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.board = node.registry.tournaments
        self.store = node.store
        # what each command read (by its copy's id, the copy kept): its change's base
        self._base: dict[int, tuple[Tournament, Tournament]] = {}
        self._making: set[str] = set()
        self._missing: dict[str, float] = {}  # a round's table's name -> first seen missing
        self._recording: set[tuple[str, int, int]] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._poll: asyncio.Task[None] | None = None
        self._stopped = False
        self._wake = asyncio.Event()  # another worker changed a tournament: read them now

    def start(self) -> None:
        """The tournaments read and their rounds played on every :data:`POLL_SECONDS`."""
        self.board.cluster = self
        self._poll = asyncio.get_running_loop().create_task(self._polling(),
                                                            name="cluster tournaments")
        self._spawn(self._listen())

    async def _listen(self) -> None:
        async def heard(_msg: Any) -> None:
            self._wake.set()

        await self.node.nc.subscribe(SUBJECT, cb=heard)

    def _tell(self) -> None:
        """The other workers read the tournaments now (a round seated: its tables are made
        there at once, not at their next poll)."""
        async def tell() -> None:
            with contextlib.suppress(Exception):  # they read them within a poll anyway
                await self.node.nc.publish(SUBJECT, b"")
        self._spawn(tell())

    async def stop(self) -> None:
        self._stopped = True  # nothing recorded nor made from now (another worker will)
        for task in [self._poll, *self._tasks]:
            if task is not None:
                task.cancel()
        if self._poll is not None:
            # not awaited unbounded: Python 3.11's wait_for returns its result where the
            # wake and the cancel come together, and the loop goes on (it ends, _stopped)
            self._wake.set()
            await asyncio.wait([self._poll], timeout=2.0)

    def _spawn(self, coro: Any) -> None:
        if self._stopped:
            coro.close()
            return
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # --- reading and changing ---------------------------------------------------------------
    def _keep(self, t: Tournament) -> Tournament:
        """``t`` (read now) as this worker's one object of that tournament, updated in place
        (what watches its tables holds it)."""
        kept = self.board.by_name.get(t.name)
        if kept is None:
            self.board.by_name[t.name] = kept = t
        elif kept is not t:
            _assign(kept, t)
        return kept

    async def fresh(self, name: str) -> Tournament | None:
        """Tournament ``name`` as stored now, for a command to change (a copy of its own;
        StorageError where it cannot be read), noted as what its change starts from."""
        t = await store_call(self.store, self.store.load_tournament, name)
        if t is None:
            self.board.by_name.pop(name, None)
            return None
        self._keep(Tournament.from_json(t.to_json()))
        self._base[id(t)] = (t, Tournament.from_json(t.to_json()))
        while len(self._base) > BASES_KEPT:  # read and never changed (a show): forgotten
            del self._base[next(iter(self._base))]
        return t

    async def fresh_all(self) -> list[Tournament]:
        ts = await store_call(self.store, self.store.load_tournaments)
        names = {t.name for t in ts}
        for name in [n for n in self.board.by_name if n not in names]:
            del self.board.by_name[name]
        return [self._keep(t) for t in ts]

    async def save(self, t: Tournament) -> None:
        """A command's change of ``t`` saved (made again on what is stored, :func:`merged`);
        ``t`` becomes what was saved. TournamentRefused where it cannot be made or saved."""
        read = self._base.pop(id(t), None)
        base = read[1] if read is not None and read[0] is t else None

        def change(stored: Tournament | None) -> Tournament | None:
            return merged(base, t, stored)

        try:
            saved = await store_call(self.store, self.store.update_tournament, t.name, change)
        except StorageError:
            raise TournamentRefused("tournament_unsaved") from None
        if saved is None:
            raise TournamentRefused("tournament_unsaved")
        if saved is not t:
            _assign(t, saved)
        self._keep(Tournament.from_json(t.to_json()))
        self._tell()

    def count(self, name: str, round_no: int, table_no: int, result: TableResult) -> None:
        self._spawn(self.record(name, round_no, table_no, result))

    async def record(self, name: str, round_no: int, table_no: int,
                     result: TableResult) -> None:
        """Table ``table_no`` of round ``round_no`` finished with ``result``: recorded on the
        stored tournament (once: a result there already is kept), the next round seated in
        the same change where it was the round's last; its table then ends as any table. A
        failure leaves it watched: the next poll counts it again."""
        key = (name, round_no, table_no)
        if key in self._recording:
            return
        self._recording.add(key)
        try:
            def change(t: Tournament | None) -> Tournament | None:
                current = t.current if t is not None else None
                if t is None or t.state != RUNNING or current is None \
                        or current.no != round_no or table_no in current.results:
                    return None
                t.record(round_no, table_no, result)
                return t

            try:
                t = await store_call(self.store, self.store.update_tournament, name, change)
            except StorageError as exc:
                log.error("tournament %s: round %d table %d's result is not saved now (tried "
                          "again within %.0f s): %s", name, round_no, table_no, POLL_SECONDS,
                          exc)
                return
            if t is None:
                return
            t = self._keep(t)
            round_ = next((r for r in t.played if r.no == round_no), None)
            if round_ is not None and table_no in round_.results:
                self.board.release(table_name(name, round_no, table_no))
            self._tell()
            if t.current is not None and t.current.no > round_no and t.state == RUNNING:
                log.info("tournament %s: round %d seated", name, t.current.no)
                self.play(t)
            elif t.state != RUNNING:
                log.info("tournament %s finished", name)
        finally:
            self._recording.discard(key)

    # --- the rounds' tables -----------------------------------------------------------------
    def play(self, t: Tournament) -> None:
        """The current round's tables: those run here watched (a game not begun started),
        those nobody runs made."""
        t = self._keep(t)
        round_ = t.current
        if t.state != RUNNING or round_ is None:
            return
        for rt in round_.tables:
            if rt.no in round_.results:
                continue
            name = table_name(t.name, round_.no, rt.no)
            table = self.board.host.tables.get(name) if self.board.host is not None else None
            if table is None:
                if not self._known(name):  # another worker's already: nothing to do here
                    self.make(t, round_.no, rt)
            elif name in self.node.owned:
                self._missing.pop(name, None)
                if table.game is None and table.game_no == 0:  # made, not begun: its maker died
                    table.start(rt.seed)
                self._watch(t, round_.no, rt.no, table)

    def adopted(self, table: SharedTable) -> None:
        """A table come to this worker (made, or taken over): a round's table watched at
        once, any round's kept to its one game."""
        for t in list(self.board.by_name.values()):
            round_ = t.current
            if round_ is None or not table.name.startswith(f"{t.name}-"):
                continue
            for r in t.played:
                for rt in r.tables:
                    if table_name(t.name, r.no, rt.no) != table.name:
                        continue
                    table.tournament = t.name
                    if t.state == RUNNING and r is round_ and rt.no not in r.results:
                        self._watch(t, r.no, rt.no, table)
                    return

    def _watch(self, t: Tournament, round_no: int, table_no: int, table: SharedTable) -> None:
        """Watched here; the round's time limit kept from now (its owner's clock). A game
        that ended at another worker, restored here, is given its kept game's ID first."""
        game = table.game
        if game is not None and game.is_over and not table.game_id:
            self._spawn(self._named(t, round_no, table_no, table))
        else:
            self._watched(t, round_no, table_no, table)

    def _watched(self, t: Tournament, round_no: int, table_no: int, table: SharedTable) -> None:
        if self.board.watch(t, round_no, table_no, table) and t.round_seconds:
            self._spawn(self._limit(t, round_no, table))

    async def _limit(self, t: Tournament, round_no: int, table: SharedTable) -> None:
        """The round's time kept at this table from when the table was made (its stored
        row's first save, by its maker's wall clock), so that a takeover or a restart gives
        it no more time; from now where that cannot be read."""
        left = float(t.round_seconds)
        with contextlib.suppress(StorageError):
            made = await store_call(self.store, self.store.table_made, table.name)
            if made is not None:
                left = max(0.0, made + t.round_seconds - time.time())
        table.clock.call_later(left, partial(self._time_up, t, round_no, table))

    async def _named(self, t: Tournament, round_no: int, table_no: int,
                     table: SharedTable) -> None:
        try:
            game_id = await store_call(self.store, self.store.kept_game_id, table.name,
                                       table.game_no)
        except StorageError as exc:
            log.warning("table %s: its kept game could not be read (again within %.0f s): %s",
                        table.name, POLL_SECONDS, exc)
            return
        if not game_id:  # its end's write was lost with its worker: counted without one
            log.warning("table %s: its game ended at another worker, not kept", table.name)
        elif not table.game_id:
            table.game_id = game_id
        self._watched(t, round_no, table_no, table)

    def _time_up(self, t: Tournament, round_no: int, table: SharedTable) -> None:
        """The round's time is up at this table, if it still plays it: at most one more
        hand (the one in progress, or else the next) and its game ends there."""
        game = table.game
        if table.closed or game is None or game.is_over \
                or self.board.host is None or self.board.host.tables.get(table.name) is not table:
            return
        game.hand_limit = len(game.history) + 1
        log.info("tournament %s: round %d's time is up: table %s ends after hand %d",
                 t.name, round_no, table.name, game.hand_limit)
        table.save_changed()

    def make(self, t: Tournament, round_no: int, rt: RoundTable) -> None:
        name = table_name(t.name, round_no, rt.no)
        if name in self._making:
            return
        self._making.add(name)
        self._spawn(self._make(t, round_no, rt, name))

    def _maker(self, table_no: int) -> str:
        """The worker that makes table ``table_no`` of a round at once: the live workers'
        ``table_no``-th, by name."""
        node = self.node
        now = node.clock()
        live = {w for w, beat in node.directory.workers.items()
                if now - beat.seen_at < TAKEOVER_SECONDS} | {node.name}
        ordered = sorted(live)
        return ordered[(table_no - 1) % len(ordered)]

    def _known(self, name: str) -> bool:
        node = self.node
        return (name in node.registry.tables or name in node._taking
                or name in node.directory.entries)

    async def _make(self, t: Tournament, round_no: int, rt: RoundTable, name: str) -> None:
        node = self.node
        try:
            if self._known(name):
                self._missing.pop(name, None)
                return
            now = node.clock()
            first = self._missing.setdefault(name, now)
            if self._maker(rt.no) != node.name and now - first < SHARE_SECONDS:
                return  # its worker makes it; here only if it does not
            if await node._db(self.store.has_table, name) or self._known(name):
                return  # stored: whoever takes it over runs it (the reaper's orphans)
            table = self.board.build(t, name, rt.seats)
            if table is None:
                return
            node._taking.add(name)  # its key names this worker before the table is ours
            fences = node.fences
            try:
                revision = await node.directory.create(
                    wire.Entry(name, node.name, 0, table.info(), None))
                if revision is None:
                    table.close()
                    return  # another worker was quicker
                if not await node._db(self.store.claim_table, name, revision):
                    table.close()
                    log.error("table %s: the store holds a newer owner than the directory's "
                              "revision %d", name, revision)
                    return
                await node._own(table, revision, fences)
            finally:
                node._taking.discard(name)
            self._missing.pop(name, None)
            self.board.open(t, table, rt.seed)
            self._watch(self._keep(t), round_no, rt.no, table)
            log.info("worker %s made tournament %s's table %s (token %d)", node.name, t.name,
                     name, revision)
        except Exception:
            log.exception("tournament %s: table %s could not be made", t.name, name)
        finally:
            self._making.discard(name)

    async def _polling(self) -> None:
        while not self._stopped:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(),
                                       POLL_SECONDS * (0.5 + random.random()))
            self._wake.clear()
            if self._stopped:
                return
            try:
                await self.check()
            except StorageError as exc:
                log.warning("the tournaments could not be read: %s", exc)
            except Exception:
                log.exception("worker %s: the tournaments' check failed a turn", self.node.name)

    async def check(self) -> None:
        """Every tournament read again (the lobby's line, ``table_of``), each running one's
        round played on: its tables here watched, its missing tables made."""
        await self.board.load()  # read afresh, an open one's set start timed here too
        for t in list(self.board.by_name.values()):
            if t.state == RUNNING:
                self.play(t)
