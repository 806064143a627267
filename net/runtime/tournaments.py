"""The tournaments of this server (engine/tournament.py is the model): creating one within
the limits, joining, starting, what is listed, and running its rounds; each change saved
whole in the store (net/store/tournaments.py), and the stored ones read with the tables at
start, so that a tournament survives a restart.

A round's tables are made together, named ``NAME-ROUND-TABLE``: private (only those seated
there sit; anyone may watch but the tournament's entrants while the round plays, and its games
are replayed once the round is over: :meth:`Tournaments.held_back`), each entry already in
its seat by wind, a computer of the fill level in a seat nobody has; every game starts at
once with the round's seed (a duplicate round's tables: one seed, the deal passed on after
every hand). An entry who is not there is covered as a dropped player is, by a computer
after the grace period, and takes his seat back when he joins the table. A round's table
lasts while its game plays, whoever is connected; its first game's end is the table's
result (its game ID kept), or, closed by the operator, the hands it finished; the round's
last result seats the next round, or finishes the tournament. A set start (``--at``) is
timed on the tables' clock's wall time, again after a restart.

On a server of several workers (:attr:`Tournaments.cluster`, net/cluster/tournaments.py) the
store is the truth: each command reads the tournament afresh and its change is saved under
the database's lock; a round's tables are made through the directory (a lease each) on any
worker, and whoever runs one watches it (:meth:`Tournaments.watch`), a taker too."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import Any, Protocol

from rich.cells import cell_len

from engine.rulesets import DEFAULT_RULES, find_ruleset
from engine.tournament import (
    FINISHED,
    OPEN,
    RUNNING,
    Entry,
    TableResult,
    Tournament,
    TournamentError,
    parse_start,
)
from host.clock import SYSTEM_CLOCK, Clock
from host.refusal import Refusal
from host.table_info import (
    FINGERPRINT_PREFIX,
    TableInfo,
    TableState,
    bound_invite,
    invite_parts,
    invites,
)
from net.limits import (
    MAX_INVITES,
    TOURNAMENT_ENTRIES_MAX,
    TOURNAMENT_NAME_CELLS,
    TOURNAMENT_ROUNDS_MAX,
    TOURNAMENT_START_DAYS_MAX,
    TOURNAMENTS_OPEN_MAX,
    TOURNAMENTS_PER_ACCOUNT,
)
from net.runtime.config import TableConfig
from net.runtime.privacy import Privacy, keeper
from net.runtime.seat_client import Occupant
from net.runtime.shared_table import SharedTable
from net.sanitize import valid_table_name
from net.store.base import Store, store_call
from net.store.model import Account, StorageError
from words import tr

log = logging.getLogger("net.runtime.tournaments")

FILL_LEVEL = "normal"  # the computers that fill a table short of people
_STARTING: set[asyncio.Task[None]] = set()  # set starts under way (a task is kept alive)


class TournamentRefused(ValueError):
    """A refused tournament command: ``key`` is the words catalogue's, with its ``fields``."""

    def __init__(self, key: str, **fields: object) -> None:
        super().__init__(key)
        self.key = key
        self.fields = fields


def table_name(name: str, round_no: int, table_no: int) -> str:
    """The name of tournament ``name``'s table ``table_no`` of round ``round_no``."""
    return f"{name}-{round_no}-{table_no}"


def _round_table(name: str, tournament: str) -> bool:
    """Whether ``name`` is a table name of tournament ``tournament``'s rounds."""
    head, dash, rest = name.partition(f"{tournament}-")
    round_no, _, table_no = rest.partition("-")
    return not head and bool(dash) and round_no.isdigit() and table_no.isdigit()


class TableHost(Protocol):
    """What a round's tables need of the process's tables (net.runtime.registry.Registry)."""

    tables: dict[str, SharedTable]
    config: TableConfig  # its clock times a round's limit

    def new_table(self, name: str, rules: str | None = None,
                  options: Mapping[str, Any] | None = None,
                  bots: tuple[str, str, str, str] | None = None,
                  creator: Account | None = None,
                  privacy: Privacy | None = None) -> SharedTable: ...

    def add(self, table: SharedTable, address: str | None = None) -> None: ...


class Cluster(Protocol):
    """Where a server of several workers keeps its tournaments (net/cluster/tournaments.py)."""

    async def fresh(self, name: str) -> Tournament | None: ...

    async def fresh_all(self) -> list[Tournament]: ...

    async def save(self, t: Tournament) -> None: ...

    def play(self, t: Tournament) -> None: ...

    def count(self, name: str, round_no: int, table_no: int, result: TableResult) -> None: ...

    def adopted(self, table: SharedTable) -> None: ...


class Tournaments:
    """Every tournament of the process, by name; ``host``: the tables their rounds play at
    (None: the rounds are seated and kept, not played, as in the model's tests)."""

    def __init__(self, store: Store | None = None, host: TableHost | None = None) -> None:
        self.store = store
        self.host = host
        self._on_empty: dict[str, Any] = {}  # a round's table's end once unattended, put off
        self._on_close: dict[str, Any] = {}  # a round's table's own end when closed, wrapped
        self.by_name: dict[str, Tournament] = {}
        self._loaded = False
        self._loading: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()  # one change at a time: each is read, changed and saved
        self._timers: dict[str, Any] = {}  # the set starts to come, by tournament
        # a server of several workers: where tournaments are read, saved and their rounds'
        # tables made (net/cluster/tournaments.py); None: this process holds them
        self.cluster: Cluster | None = None
        self._watched: dict[str, tuple[SharedTable, Any]] = {}  # round tables watched here

    def read(self) -> None:
        """The stored tournaments, read at start with the tables (Registry.load); where they
        cannot be read now, they are read again at the first use."""
        if self._loaded or self.store is None:
            self._loaded = True
            return
        try:
            ts = self.store.load_tournaments()
        except StorageError as exc:
            log.warning("the tournaments could not be read: %s", exc)
            return
        for t in ts:
            self.by_name.setdefault(t.name, t)
        self._loaded = True

    async def load(self) -> None:
        """The stored tournaments, read once (StorageError where they cannot be read: read
        again at the next use); on several workers, read afresh each time."""
        if self.cluster is not None:
            for t in await self.cluster.fresh_all():
                self._schedule(t)  # on every worker: the first there starts it
            self._loaded = True  # the lobby's line waits for no read: the cluster's polls
            return
        if self._loaded:
            return
        if self.store is not None:
            for t in await store_call(self.store, self.store.load_tournaments):
                self._schedule(self.by_name.setdefault(t.name, t))
        self._loaded = True

    async def get(self, name: str) -> Tournament:
        if self.cluster is not None:  # as stored now: a change starts from it
            t = await self.cluster.fresh(name)
        else:
            await self.load()
            t = self.by_name.get(name)
        if t is None:
            raise TournamentRefused("tournament_none", name=name)
        return t

    async def listing(self) -> list[Tournament]:
        """Those not finished, then the finished, each in the order they were made."""
        await self.load()
        ts = list(self.by_name.values())
        return [t for t in ts if t.state != FINISHED] + [t for t in ts if t.state == FINISHED]

    def listed(self) -> list[Tournament]:
        """Those not finished, as far as this process has read them: the lobby's line, which
        never waits on the store (the first call has them read for the next)."""
        if not self._loaded and self._loading is None:
            with contextlib.suppress(RuntimeError):  # no event loop: nothing to read them on
                self._loading = asyncio.get_running_loop().create_task(self._load_quietly())
        return [t for t in self.by_name.values() if t.state != FINISHED]

    async def _load_quietly(self) -> None:
        try:
            await self.load()
        except StorageError as exc:  # read again at the next use
            log.warning("the tournaments could not be read: %s", exc)
        finally:
            self._loading = None

    def table_of(self, account_id: int) -> str | None:
        """The table where ``account_id`` plays now in a round (its game not over), if any."""
        for t in self.by_name.values():
            round_ = t.current
            if t.state != RUNNING or round_ is None:
                continue
            for rt in round_.tables:
                if rt.no not in round_.results and any(s.pid == account_id and s.level is None
                                                       for s in rt.seats):
                    return table_name(t.name, round_.no, rt.no)
        return None

    def reserves(self, name: str) -> bool:
        """Whether ``name`` is kept for a tournament's round (nobody else makes it): of the
        tournaments this worker has read (on several workers, read again at every change
        one of them makes: net.cluster.tournaments), never asked of the store here, on the
        event loop, for a name anyone may type."""
        return any(_round_table(name, t) for t in self.by_name)

    async def create(self, name: str, account: Account, rules: str | None,
                     options: Mapping[str, Any], rounds: int, duplicate: bool,
                     round_seconds: int = 0, starts: str = "",
                     privacy: Privacy | None = None) -> Tournament:
        """A new one, ``account`` its host: ``starts`` its set start as typed (``--at``: read
        against the server's clock), ``privacy`` whom a private one invites."""
        if not valid_table_name(name) or cell_len(name) > TOURNAMENT_NAME_CELLS:
            raise TournamentRefused("tournament_bad_name", name=name[:30],
                                    n=TOURNAMENT_NAME_CELLS)
        if not 1 <= rounds <= TOURNAMENT_ROUNDS_MAX:
            raise TournamentRefused("tournament_rounds", n=TOURNAMENT_ROUNDS_MAX)
        self._account(account)
        rules = rules or DEFAULT_RULES
        find_ruleset(rules, dict(options))  # the command checked them: OptionError otherwise
        starts_at = None
        if starts:
            try:
                starts_at = parse_start(starts, self.clock.wall(),
                                        TOURNAMENT_START_DAYS_MAX * 86400)
            except TournamentError as exc:
                raise TournamentRefused(exc.code, at=starts[:40],
                                        days=TOURNAMENT_START_DAYS_MAX) from None
        invited = await self._bound(privacy.invited) if privacy is not None else ()
        async with self._lock:
            await self.load()
            tables = list(self.host.tables) if self.host is not None else []
            others = getattr(self.host, "others", None)  # every worker's, on several
            if others is not None:
                tables += list(others.infos())
            if name in self.by_name or any(_round_table(n, name) for n in tables):
                raise TournamentRefused("tournament_exists", name=name)
            going = [t for t in self.by_name.values() if t.state != FINISHED]
            if len(going) >= TOURNAMENTS_OPEN_MAX:
                raise TournamentRefused("tournament_server_full", n=TOURNAMENTS_OPEN_MAX)
            if sum(t.host == account.id for t in going) >= TOURNAMENTS_PER_ACCOUNT:
                raise TournamentRefused("tournament_yours_full", n=TOURNAMENTS_PER_ACCOUNT)
            # the seating's order and every round's deals come from this: the server's secret
            t = Tournament(name, rules, rounds, host=account.id, seed=secrets.randbits(62),
                           options=tuple(sorted(options.items())), duplicate=duplicate,
                           fill_level=FILL_LEVEL, host_name=account.nickname,
                           round_seconds=round_seconds, starts_at=starts_at,
                           private=privacy is not None, invited=invited)
            await self._save(t)
            self.by_name[name] = t
            self._schedule(t)
            log.info("tournament %s made by %s (%s, %d rounds%s)", name, account.nickname,
                     rules, rounds, ", duplicate" if duplicate else "")
            return t

    async def join(self, name: str, account: Account) -> Tournament:
        self._account(account)
        async with self._lock:
            t = await self.get(name)
            if len(t.entries) >= TOURNAMENT_ENTRIES_MAX:
                raise TournamentRefused("tournament_full", name=name, n=TOURNAMENT_ENTRIES_MAX)
            if t.private and account.id != t.host and not invites(
                    t.invited, account.id, account.nickname, account.key_fingerprint,
                    account.guest):
                raise TournamentRefused("tournament_private", name=name,
                                        host=t.host_name or "?")
            entry = Entry(account.id, account.nickname)

            def joined() -> Entry:
                t.join(entry)
                return entry

            await self._enter(t, joined)
            return t

    async def add_computer(self, name: str, account: Account, level: str) -> Entry:
        """A computer of ``level`` entered by the host, before the start, within the
        entries' limit."""
        async with self._lock:
            t = await self.get(name)
            if t.host != account.id:
                raise TournamentRefused("tournament_host_only", name=name)
            if len(t.entries) >= TOURNAMENT_ENTRIES_MAX:
                raise TournamentRefused("tournament_full", name=name, n=TOURNAMENT_ENTRIES_MAX)
            return await self._enter(t, lambda: t.add_computer(level))

    async def _enter(self, t: Tournament, enter: Callable[[], Entry]) -> Entry:
        """The entry ``enter`` makes in ``t``, saved; TournamentRefused where the model
        refuses it or it cannot be saved now (then nothing is entered)."""
        try:
            entry = enter()
        except TournamentError as exc:
            raise TournamentRefused(exc.code, name=t.name) from None
        try:
            await self._save(t)
        except TournamentRefused:
            t.entries.pop()
            raise
        return entry

    async def invite(self, name: str, account: Account, names: tuple[str, ...]) -> Tournament:
        """More invited to a private one by its host, before the start (as many as a
        private table's at most)."""
        async with self._lock:
            t = await self.get(name)
            if t.host != account.id:
                raise TournamentRefused("tournament_host_only", name=name)
            if not t.private:
                raise TournamentRefused("tournament_not_private", name=name)
            if t.state != OPEN:
                raise TournamentRefused("tournament_started", name=name)
            # a name invited again is looked up again (one nobody kept then may be kept now)
            new = await self._bound(names)
            kept = [e for e in t.invited if invite_parts(e)[0] not in names]
            if len(kept) + len(new) > MAX_INVITES:
                raise TournamentRefused("tournament_invites_full", n=MAX_INVITES)
            before = t.invited
            t.invited = (*kept, *new)
            try:
                await self._save(t)
            except TournamentRefused:
                t.invited = before
                raise
            return t

    async def _bound(self, names: tuple[str, ...]) -> tuple[str, ...]:
        """Each nickname bound to the account that keeps it now by a key or a passphrase
        (one nobody keeps admits nobody: whoever takes the name later could be anyone, as
        at a private table); a key's fingerprint as it is."""
        store = self.store
        if store is None:
            return names

        def bind() -> tuple[str, ...]:
            return tuple(n if n.startswith(FINGERPRINT_PREFIX) else bound_invite(n, keeper(
                store, n)) for n in names)

        return await store_call(store, bind)

    @property
    def clock(self) -> Clock:
        """The server's clock (its wall time sets a start): the tables' (config), a test's."""
        return self.host.config.clock if self.host is not None else SYSTEM_CLOCK

    def _schedule(self, t: Tournament) -> None:
        """An open tournament with a set start starts itself then (again after a restart)."""
        if t.state != OPEN or t.starts_at is None or self.host is None \
                or t.name in self._timers:
            return
        delay = max(0.0, t.starts_at - self.clock.wall())
        with contextlib.suppress(RuntimeError):  # no event loop: a test's, untimed
            self._timers[t.name] = self.clock.call_later(delay, partial(self._due, t.name))

    def _due(self, name: str) -> None:
        self._timers.pop(name, None)
        t = self.by_name.get(name)
        if t is None or t.state != OPEN or t.starts_at is None:
            return
        if self.clock.wall() < t.starts_at - 1:  # the wall clock was set back meanwhile
            self._schedule(t)
            return
        task = asyncio.get_running_loop().create_task(self._start_due(t))
        _STARTING.add(task)
        task.add_done_callback(_STARTING.discard)

    async def _start_due(self, t: Tournament) -> None:
        """The set start: as its host's ``start``; under four entries it stays open (its
        state says why: :meth:`start_missed`) for its host to start."""
        if t.state != OPEN:  # its host started it meanwhile
            return
        try:
            await self.start(t.name, Account(t.host, t.host_name or "?", None))
        except TournamentRefused as exc:
            log.warning("tournament %s: not started at its set time: %s", t.name,
                        tr("en", exc.key, **exc.fields))
        except StorageError as exc:
            log.error("tournament %s: not started at its set time: %s", t.name, exc)

    def start_missed(self, t: Tournament) -> bool:
        """Whether ``t``'s set start came and it is still open (fewer than four entries)."""
        return t.state == OPEN and t.starts_at is not None and self.clock.wall() >= t.starts_at

    async def start(self, name: str, account: Account) -> Tournament:
        async with self._lock:
            t = await self.get(name)
            if t.host != account.id:
                raise TournamentRefused("tournament_not_host", name=name)
            before = t.to_json()
            try:
                t.start()
            except TournamentError as exc:
                raise TournamentRefused(exc.code, name=name) from None
            try:
                await self._save(t)
            except TournamentRefused:
                self.by_name[name] = Tournament.from_json(before)
                raise
            log.info("tournament %s started: %d entries, round 1 of %d", name,
                     len(t.entries), t.rounds)
            self._play_round(t)
            return t

    def _account(self, account: Account) -> None:
        if account.id < 0:  # an account in memory only, while the store fails
            raise TournamentRefused("tournament_unsaved")

    async def _save(self, t: Tournament) -> None:
        """``t`` in the store, or TournamentRefused("tournament_unsaved") where it cannot be
        written now (the change is not made)."""
        store = self.store
        if self.cluster is not None:  # made again on what is stored now, under its lock
            await self.cluster.save(t)
            return
        if store is None:
            return
        try:
            saved = await store_call(store, store.save_tournament, t)
        except StorageError:
            saved = False
        if not saved:
            raise TournamentRefused("tournament_unsaved")

    # --- the rounds' tables -----------------------------------------------------------------
    def resume(self) -> None:
        """After a restart (the tables restored): each running tournament's round goes on,
        its tables watched again, one whose game ended meanwhile counted, one missing made."""
        for t in list(self.by_name.values()):
            if t.state == RUNNING:
                self._play_round(t)
            self._schedule(t)  # an open one's set start, timed again
        if self.host is not None:  # the earlier rounds' tables, still open: one game each
            for name, table in self.host.tables.items():
                owner = next((t for t in self.by_name if _round_table(name, t)), None)
                if owner is not None and not table.tournament:
                    table.tournament = owner

    def _play_round(self, t: Tournament) -> None:
        """The current round's tables, made and started where they are not yet, watched
        until their games end."""
        round_ = t.current
        if self.host is None or round_ is None:
            return
        if self.cluster is not None:  # its tables made and watched on any worker
            self.cluster.play(t)
            return
        for rt in round_.tables:
            if rt.no in round_.results:
                continue
            name = table_name(t.name, round_.no, rt.no)
            table = self.host.tables.get(name)
            if table is None:
                table = self._make_table(t, name, rt.seats, rt.seed)
            if table is None:
                continue
            self.watch(t, round_.no, rt.no, table)
        if t.round_seconds:  # from the round's start, or from a restart
            with contextlib.suppress(RuntimeError):  # no event loop: a test's, untimed
                self.host.config.clock.call_later(t.round_seconds,
                                                  partial(self._time_up, t, round_.no))

    def watch(self, t: Tournament, round_no: int, table_no: int, table: SharedTable) -> bool:
        """Round ``round_no``'s table ``table_no``, run here, watched until its first game
        ends (counted then, or now if it has): no other game there, no end while unattended.
        False where it was watched already (its end counted now if it came)."""
        name = table.name
        watched = self._watched.get(name)
        if watched is not None and watched[0] is table:
            self._changed(t, round_no, table_no, table, table.info())
            return False
        table.tournament = t.name
        table.admission.watch_refusal = partial(self._watch_refusal, t, round_no)
        # a round's table lasts while its game plays, whoever is connected
        if table.hooks.on_empty is not None:
            self._on_empty[name] = table.hooks.on_empty
        on_close = self._on_close.setdefault(name, table.hooks.on_close)
        table.hooks = replace(table.hooks, on_empty=None, on_close=partial(
            self._closed, t, round_no, table_no, on_close))
        changed = partial(self._changed, t, round_no, table_no, table)
        self._watched[name] = (table, changed)
        table.on_info.append(changed)
        self._changed(t, round_no, table_no, table, table.info())
        return True

    def release(self, name: str) -> None:
        """Round table ``name``'s result is kept: it ends as any table does (its hook
        on its changes taken off)."""
        watched = self._watched.pop(name, None)
        if watched is None:
            return
        table, changed = watched
        with contextlib.suppress(ValueError):
            table.on_info.remove(changed)
        table.hooks = replace(table.hooks, on_empty=self._on_empty.pop(name, None))
        table.check_empty()

    def adopted(self, table: SharedTable) -> None:
        """A table came to this process (made, restored, taken over from another worker):
        on several workers, a round's table watched again at once (Registry._adopt)."""
        if self.cluster is not None:
            self.cluster.adopted(table)

    def _closed(self, t: Tournament, round_no: int, table_no: int,
                then: Callable[[SharedTable], None] | None, table: SharedTable) -> None:
        """A round's table closed (the operator's ``close``; its players cannot: it has no
        host): its game ends where it stands and the hands it finished count, as a round's
        time limit settles them, so that the round goes on; the table then ends as any."""
        self._on_close.pop(table.name, None)
        game = table.game
        hands = tuple(game.history) if game is not None else ()
        result = TableResult(tuple(h.net for h in hands), tuple(h.winners for h in hands),
                             table.game_id, closed=True)
        if then is not None:
            then(table)
        current = t.current
        if t.state != RUNNING or current is None or current.no != round_no \
                or table_no in current.results:
            return
        log.warning("tournament %s: round %d table %d closed after %d hands: they count",
                    t.name, round_no, table_no, len(hands))
        with contextlib.suppress(RuntimeError):  # no loop: a test's table, counted at once
            asyncio.get_running_loop().call_soon(self._count, t, round_no, table_no, result)
            return
        self._count(t, round_no, table_no, result)

    def _running_round(self, table: str) -> tuple[Tournament, int] | None:
        """The tournament and its round not over that table ``table`` plays, if any."""
        for t in self.by_name.values():
            round_ = t.current
            if t.state == RUNNING and round_ is not None and not round_.over and any(
                    table == table_name(t.name, round_.no, rt.no) for rt in round_.tables):
                return t, round_.no
        return None

    def held_back(self, table: str) -> Refusal | None:
        """Why a kept game of table ``table`` is not shown now (replay, review, puzzles): a
        table of a tournament's round not over, whose deals the round's other tables may
        still play (a duplicate round's are the same). None: shown as any game."""
        found = self._running_round(table)
        if found is None:
            return None
        return Refusal.of("tournament_kept_back", name=found[0].name, round=found[1])

    def _watch_refusal(self, t: Tournament, round_no: int, account: Account) -> Refusal | None:
        """An entrant of ``t`` watches none of round ``round_no``'s other tables while it
        plays (Admission.watch_refusal: his own seat is not asked about)."""
        round_ = t.current
        if t.state != RUNNING or round_ is None or round_.no != round_no or round_.over \
                or not any(e.pid == account.id for e in t.entries):
            return None
        return Refusal.of("tournament_no_watch", name=t.name, round=round_no)

    def _time_up(self, t: Tournament, round_no: int) -> None:
        """Round ``round_no``'s time is up: each of its tables still playing plays at most
        one more hand (the one in progress, or else the next) and its game ends there."""
        round_ = t.current
        if self.host is None or t.state != RUNNING or round_ is None or round_.no != round_no:
            return
        for rt in round_.tables:
            table = self.host.tables.get(table_name(t.name, round_no, rt.no))
            game = table.game if table is not None else None
            if table is None or game is None or game.is_over or rt.no in round_.results:
                continue
            game.hand_limit = len(game.history) + 1
            log.info("tournament %s: round %d's time is up: table %d ends after hand %d",
                     t.name, round_no, rt.no, game.hand_limit)
            table.save_changed()

    def _make_table(self, t: Tournament, name: str, seats: Any, seed: int) -> SharedTable | None:
        table = self.build(t, name, seats)
        if table is not None:
            self.open(t, table, seed)
        return table

    def build(self, t: Tournament, name: str, seats: Any) -> SharedTable | None:
        """A round's table, made (not yet added nor started): None where it cannot be."""
        assert self.host is not None
        levels = tuple(s.level or t.fill_level for s in seats)
        try:
            table = self.host.new_table(name, t.rules, dict(t.options),
                                        (levels[0], levels[1], levels[2], levels[3]),
                                        privacy=Privacy((), True))
        except ValueError as exc:  # the options of a ruleset no more (a newer server's)
            log.error("tournament %s: table %s cannot be made: %s", t.name, name, exc)
            return None
        table.rotate_dealer = t.duplicate
        now = table.clock.now()
        for i, seat in enumerate(seats):
            # an entry's seat waits for him as a dropped player's does, for his arrival time
            # (he may be reading the last round's result); an entered computer plays its own
            if seat.pid is not None and seat.level is None:
                table.seats[i].occupant = Occupant(seat.pid, seat.name)
                table.seats[i].dropped_at = now
                table.seats[i].grace = table.config.arrival_seconds
        return table

    def open(self, t: Tournament, table: SharedTable, seed: int) -> None:
        """A round's table (:meth:`build`) added and its game started with ``seed``."""
        assert self.host is not None
        self.host.add(table)
        refusal = table.start(seed)
        if refusal is not None:
            log.error("tournament %s: table %s did not start: %s", t.name, table.name,
                      refusal.key)

    def _changed(self, t: Tournament, round_no: int, table_no: int, table: SharedTable,
                 info: TableInfo) -> None:
        """A round's table changed: once its first game is over, its result counts (later,
        out of the table's own event, so that the next round's tables are not made inside
        it)."""
        game = table.game
        if info.state is not TableState.OVER or game is None or table.game_no != 1:
            return
        result = TableResult(tuple(h.net for h in game.history),
                             tuple(h.winners for h in game.history), table.game_id)
        with contextlib.suppress(RuntimeError):  # no loop: a test's table, counted at once
            asyncio.get_running_loop().call_soon(self._count, t, round_no, table_no, result)
            return
        self._count(t, round_no, table_no, result)

    def _count(self, t: Tournament, round_no: int, table_no: int, result: TableResult) -> None:
        if self.cluster is not None:  # recorded on what is stored now, by whichever worker
            self.cluster.count(t.name, round_no, table_no, result)
            return
        current = t.current
        if t.state != RUNNING or current is None or current.no != round_no \
                or table_no in current.results:
            return
        nxt = t.record(round_no, table_no, result)
        table = self.host.tables.get(table_name(t.name, round_no, table_no)) \
            if self.host is not None else None
        if table is not None:  # the result is kept: the table ends as any table does
            self._watched.pop(table.name, None)
            table.on_info.clear()
            table.hooks = replace(table.hooks, on_empty=self._on_empty.pop(table.name, None))
            table.check_empty()
        if self.store is not None and not self.store.save_tournament(t):
            log.error("tournament %s: round %d table %d's result is not saved now (saved "
                      "with the next change)", t.name, round_no, table_no)
        if nxt is not None:
            log.info("tournament %s: round %d seated", t.name, nxt.no)
            self._play_round(t)
        elif t.state == FINISHED:
            log.info("tournament %s finished", t.name)
