"""The tables of this process, by name: creating them within the server's limits, restoring
the stored ones after a restart (quarantining what does not replay), ending the ones no
session has been connected to for ``table_unattended_seconds`` (whatever their game's state,
so abandoned tables never hold the limits on open tables), closing a table its host closes,
and the chat rate per account over all tables."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from engine.actions import IllegalActionError
from engine.bots import Player
from engine.rulesets import DEFAULT_RULES, RULESETS, find_ruleset
from host.refusal import Refusal, RefusedError
from host.table_info import TableInfo, TableState
from net import metrics
from net.limits import Limits, RateLimit, RateLimits, WindowCount
from net.logfmt import about
from net.runtime.config import TableConfig, TableHooks, basic_player
from net.runtime.privacy import Privacy
from net.runtime.restore import restore_table
from net.runtime.shared_table import SharedTable
from net.runtime.tournaments import Tournaments
from net.sanitize import clean_line
from net.store.base import Store
from net.store.model import Account, ActionRow, CorruptRow, StorageError, TableRow
from words import both

log = logging.getLogger("net.runtime.registry")


class TableExists(RefusedError):
    """Joining an existing table with settings of a new one."""


class TableQuarantined(RefusedError):
    """The name of a table whose saved game could not be read: it is not made afresh."""


class TableLimit(RefusedError):
    """A new table over a limit (the creator's, the server's, the address's)."""


QUARANTINE_MARK = both("quarantine_mark")


@dataclass(frozen=True)
class QuarantinedTable:
    """A stored table kept out of play, untouched in the database, for the operator."""

    name: str
    rules: str
    reason: str

    def refusal(self) -> Refusal:
        return Refusal.of("quarantined", name=self.name, reason=self.reason)


class LoadCounts(int):
    """What :meth:`Registry.load` did: the tables restored (this int, as it always was) and
    the tables ``quarantined``."""

    quarantined: int

    def __new__(cls, restored: int, quarantined: int = 0) -> LoadCounts:
        counts = super().__new__(cls, restored)
        counts.quarantined = quarantined
        return counts

    @property
    def restored(self) -> int:
        return int(self)


def _reason(exc: BaseException) -> str:
    """Why a stored table did not restore, in one short line."""
    if isinstance(exc, CorruptRow):
        text = str(exc)
    elif isinstance(exc, IllegalActionError):
        text = f"a stored action does not replay: {exc}"
    elif isinstance(exc, StorageError):
        text = str(exc)
    else:
        text = f"{type(exc).__name__}: {exc}"
    return clean_line(text, 160)


def check_settings(info: TableInfo, rules: str | None, options: Mapping[str, Any] | None,
                   bots: tuple[str, str, str, str] | None,
                   privacy: Privacy | None = None) -> None:
    """Joining table ``info`` with settings of a new one: :class:`TableExists` where they
    differ from its own (options are chosen when a table is created; a private table's host
    changes whom it admits at the table, with /invite and /watchers)."""
    problems = []
    if privacy is not None and not (
            info.private and set(privacy.invited) <= set(info.invited_names)
            and (not privacy.watchers or info.watchers)):
        problems.append("other privacy (its host changes it at the table: /invite NAME, "
                        "/watchers on|off)" if info.private else "no privacy (it is public)")
    if rules is not None and rules != info.rules:
        problems.append(f"rules {info.rules}")
    own = find_ruleset(info.rules, dict(info.options)).options if options else {}
    if options and any(own.get(k) != v for k, v in options.items()):
        problems.append("other options")
    if bots is not None and bots != info.bot_levels:
        problems.append("other computer levels")
    if problems:
        raise TableExists(Refusal.of("table_exists", name=info.name, what=", ".join(problems)))


def _idle_over(info: TableInfo) -> bool:
    """Another worker's table whose game is over with nobody there
    (:attr:`SharedTable.idle_over`, as its info tells)."""
    return (info.state is TableState.OVER and not info.spectators
            and not any(seat.connected for seat in info.seats))


class Others(Protocol):
    """The tables the other workers of the server run (net.cluster)."""

    def infos(self) -> Mapping[str, TableInfo]: ...

    def creator(self, name: str) -> int | None: ...

    def may_act(self, name: str) -> bool:
        """Whether this worker still holds table ``name``'s lease."""


CHAT_BUCKETS = 10_000  # accounts whose chat rate is remembered at once


class Registry:
    """All tables of the process, by name, with what limits their creation and chat
    (:class:`~net.limits.Limits`), and the stored tables that could not be restored."""

    def __init__(self, config: TableConfig | None = None, store: Store | None = None,
                 player_factory: Callable[[str], Player] = basic_player, *,
                 limits: Limits | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.config = config or TableConfig()
        self.store = store
        self.player_factory = player_factory
        self.limits = limits or Limits()
        self.clock = clock or self.config.clock.now  # the rate limits' time
        self.tables: dict[str, SharedTable] = {}
        self.quarantined: dict[str, QuarantinedTable] = {}
        self._closed: set[str] = set()  # names closed in this process (their row is gone)
        self._created_from = WindowCount(3600.0, self.clock)  # tables created, by address
        self._chat = RateLimits(self.limits.chat_per_minute, 60.0, self.limits.chat_burst,
                                self.clock, keys=CHAT_BUCKETS)  # by account id
        # a server of several workers: the tables the other workers run (the lobby lists them,
        # the limits count them), and who hears that one of ours closed
        self.others: Others | None = None
        self.on_closed: list[Callable[[str], None]] = []
        # why an account may not chat (an operator muted it: net/front/operators.py), or None
        self.muted: Callable[[int], Refusal | None] = lambda account_id: None
        # read from the store with the tables; their rounds' tables are made here
        self.tournaments = Tournaments(store, self)

    @property
    def storage_problem(self) -> str | None:
        """What the players should know while the database cannot be written."""
        return self.store.problem if self.store is not None else None

    def load(self) -> LoadCounts:
        """Restore the stored tables. One that cannot be read or replayed is quarantined:
        kept in the database untouched, out of play, listed, its name refused; one log line
        each. A database whose tables cannot be read at all raises StorageError."""
        if self.store is None:
            return LoadCounts(0, 0)
        rows = self.store.load_tables()  # StorageError when they cannot be read at all
        for row in rows:
            if row.name in self.tables or row.name in self.quarantined:
                continue
            self.restore(row)
        self.tournaments.read()
        return LoadCounts(len(self.tables), len(self.quarantined))

    def restore(self, row: TableRow,
                actions: Iterable[ActionRow] | None = None) -> SharedTable | None:
        """Bring back one stored table (at a restart, or when this worker takes it over from
        another): the table, adopted; or None, the table quarantined. ``actions``: its
        game's stored actions, read beforehand (else they are read from the store here)."""
        if row.fault is not None:
            self._quarantine(row, row.fault)
            return None
        assert self.store is not None
        try:
            table = restore_table(row, self.config, self.store, self._hooks(row.name),
                                  self.player_factory, actions)
        except Exception as exc:  # whatever a damaged row makes the replay raise
            log.debug("table %s: restore failed", row.name, exc_info=True)
            self._quarantine(row, _reason(exc))
            return None
        self._adopt(table)
        return table

    def _quarantine(self, row: TableRow, reason: str) -> None:
        q = QuarantinedTable(row.name, clean_line(row.rules, 20) or "?", reason)
        self.quarantined[row.name] = q
        log.error("table %s quarantined: its saved game could not be read (%s); it stays in "
                  "%s untouched and out of play, and its name is refused",
                  clean_line(row.name, 40), reason,
                  self.store.path if self.store is not None else "the database",
                  extra=about(table=clean_line(row.name, 40)))

    def _hooks(self, name: str) -> TableHooks[SharedTable]:
        """What the registry decides for table ``name``: its end once unattended, its chat
        rates, and (a server of several workers) whether this worker may act for it."""
        limits, others = self.limits, self.others
        return TableHooks[SharedTable](
            on_empty=self._drop,
            unattended_seconds=limits.table_unattended_seconds,
            chat_gate=self.chat_allowed,
            muted=lambda account_id: self.muted(account_id),
            chat_rate=RateLimit(limits.chat_per_table_minute, 60.0, limits.chat_table_burst,
                                self.clock),
            watchers_chat_rate=RateLimit(limits.chat_watchers_table_minute, 60.0,
                                         limits.chat_watchers_table_burst, self.clock),
            may_act=partial(others.may_act, name) if others is not None else None,
            on_close=partial(self._drop, by_host=True))

    def _adopt(self, table: SharedTable) -> None:
        self.tables[table.name] = table
        self.tournaments.adopted(table)  # a round's table, watched again (several workers)

    def _drop(self, table: SharedTable, by_host: bool = False) -> None:
        """A table nobody came back to ends, or one its host closed (``by_host``): out of the
        lobby, the database and the counts of open tables (its games' results and kept
        records stay, an unfinished game's finished hands among them:
        :meth:`~net.runtime.results.GameEnd.unfinished`)."""
        if self.tables.get(table.name) is not table:
            return
        del self.tables[table.name]
        table.close()
        if len(self._closed) < 100_000:
            self._closed.add(table.name)
        if self.store is not None:
            self.store.delete_table(table.name)
        for cb in list(self.on_closed):
            cb(table.name)
        kept = (f" (its unfinished game kept as {table.game_id})" if table.game_id
                and table.game is not None and not table.game.is_over else "")
        if by_host:
            log.info("table %s closed by its host%s", table.name, kept,
                     extra=about(table=table.name))
        else:
            log.info("table %s closed: nobody there for %.0f s%s", table.name,
                     table.unattended_seconds, kept, extra=about(table=table.name))

    def close_table(self, name: str, account: Account | None) -> None:
        """``close NAME`` in the lobby: ``account``, the host of table ``name``, closes it
        (:meth:`SharedTable.close_by`; None: the server's operator, whoever sits there).
        RefusedError saying why not: no such table, one at another worker (its chat's
        ``/close`` reaches it there), not the host, someone else seated."""
        table = self.tables.get(name)
        if table is None:
            if self.others is not None and name in self.others.infos():
                raise RefusedError(Refusal.of("close_elsewhere", table=name))
            raise RefusedError(Refusal.of("no_such_table", table=name))
        refusal = table.close_by(account)
        if refusal is not None:
            raise RefusedError(refusal)

    def forget(self, name: str) -> SharedTable | None:
        """This worker no longer runs table ``name`` (another took it over): out of the
        registry and stopped, its row left as it is."""
        table = self.tables.pop(name, None)
        if table is not None:
            table.close()
        return table

    # --- limits ---------------------------------------------------------------------------
    def chat_allowed(self, account_id: int) -> bool:
        """One more chat line from ``account_id`` is within ``chat_per_minute`` (a burst of
        ``chat_burst``), over all its tables."""
        if self._chat.allow(account_id):
            return True
        metrics.limit_hit("chat_per_minute")
        return False

    def check_name(self, name: str) -> None:
        """TableQuarantined when ``name`` belongs to a stored table that is not in play."""
        q = self.quarantined.get(name)
        if q is not None:
            raise TableQuarantined(q.refusal())
        if self.tournaments.reserves(name):  # a round's table (net/runtime/tournaments.py)
            raise TableQuarantined(Refusal.of("tournament_table_kept", name=name))
        if (name not in self.tables and name not in self._closed and self.store is not None
                and self.store.has_table(name)):
            raise TableQuarantined(Refusal.of("stored", name=name))

    def check_create(self, name: str, creator: Account | None = None,
                     address: str | None = None) -> None:
        """Whether a new table ``name`` may be created now: TableQuarantined for a stored
        table's name, TableLimit past ``tables_total``, the creator's ``tables_per_account``
        open tables, or the address's ``tables_per_address_hour``."""
        self.check_name(name)
        limits = self.limits
        others = self.others.infos() if self.others is not None else {}
        total = len(self.tables) + sum(1 for n in others if n not in self.tables)
        if total >= limits.tables_total:
            metrics.limit_hit("tables_total")
            raise TableLimit(Refusal.of("server_full", n=total))
        if creator is not None:  # a finished game nobody is at holds no place (idle_over)
            mine = sum(1 for t in self.tables.values()
                       if t.creator == creator.id and not t.idle_over)
            if self.others is not None:
                mine += sum(1 for n, info in others.items() if n not in self.tables
                            and self.others.creator(n) == creator.id and not _idle_over(info))
            if mine >= limits.tables_per_account:
                metrics.limit_hit("tables_per_account")
                raise TableLimit(Refusal.of("own_tables", n=mine,
                                            most=limits.tables_per_account))
        if address is not None:
            made = self._created_from.count(address)
            if made >= limits.tables_per_address_hour:
                metrics.limit_hit("tables_per_address_hour")
                raise TableLimit(Refusal.of("address_tables", n=made,
                                            most=limits.tables_per_address_hour))

    def find(self, name: str) -> SharedTable | None:
        """The table ``name`` to watch, or None; TableQuarantined for a quarantined one."""
        table = self.tables.get(name)
        if table is None:
            self.check_name(name)
        return table

    def get_or_create(self, name: str, rules: str | None = None,
                      options: Mapping[str, Any] | None = None,
                      bots: tuple[str, str, str, str] | None = None,
                      creator: Account | None = None,
                      address: str | None = None,
                      privacy: Privacy | None = None) -> SharedTable:
        """The table ``name``; created with ``rules``, ``options`` and computer ``bots``
        levels when new, by ``creator`` from ``address`` (within :meth:`check_create`'s
        limits: TableLimit, TableQuarantined; joining an existing table is never limited).
        For an existing table, settings that differ from its own raise :class:`TableExists`
        (options are chosen when a table is created). Bad options raise
        :class:`~engine.rulesets.OptionError`, an unknown ruleset ValueError."""
        table = self.tables.get(name)
        if table is not None:
            check_settings(table.info(), rules, options, bots, privacy)
            return table
        self.check_create(name, creator, address)
        table = self.new_table(name, rules, options, bots, creator, privacy)
        self.add(table, address)
        return table

    def new_table(self, name: str, rules: str | None = None,
                  options: Mapping[str, Any] | None = None,
                  bots: tuple[str, str, str, str] | None = None,
                  creator: Account | None = None,
                  privacy: Privacy | None = None) -> SharedTable:
        """A new table, checked (bad options: OptionError; an unknown ruleset: ValueError),
        not yet in the registry nor stored (:meth:`add`); private with ``privacy``, its host
        ``creator``."""
        rules = rules or DEFAULT_RULES
        if rules not in RULESETS:
            raise ValueError(f"unknown ruleset {rules!r} (one of {', '.join(RULESETS)})")
        if privacy is not None and creator is not None:
            privacy = Privacy(tuple(n for n in privacy.invited
                                    if n not in (creator.nickname, creator.key_fingerprint)),
                              privacy.watchers)
        return SharedTable(name, rules, options or {}, self.config, self.store,
                           self.player_factory, bots,
                           creator=creator.id if creator is not None else None,
                           host_name=creator.nickname if creator is not None else "",
                           privacy=privacy, hooks=self._hooks(name))

    def add(self, table: SharedTable, address: str | None = None) -> None:
        """A new table (:meth:`new_table`) opens: in the registry and stored; it ends
        ``table_unattended_seconds`` from now unless someone sits at it or watches it."""
        self._adopt(table)
        self._closed.discard(table.name)
        if address is not None:
            self._created_from.add(address)
        table._save()
        table.check_empty()

    def listing(self) -> list[TableInfo]:
        """Every table of the server (this worker's and the others'), for the lobby."""
        infos = [t.info() for t in self.tables.values()]
        if self.others is not None:
            infos += [info for name, info in self.others.infos().items()
                      if name not in self.tables]
        return infos

    def check_join(self, name: str, rules: str | None, options: Mapping[str, Any] | None,
                   bots: tuple[str, str, str, str] | None,
                   privacy: Privacy | None = None) -> None:
        """Joining the open table ``name`` with these settings: :class:`TableExists` where
        they differ from its own."""
        table = self.tables.get(name)
        info = table.info() if table is not None else None
        if info is None and self.others is not None:
            info = self.others.infos().get(name)
        if info is not None:
            check_settings(info, rules, options, bots, privacy)

    def info(self, name: str) -> TableInfo | None:
        """The open table ``name``'s info (here or at another worker), or None."""
        table = self.tables.get(name)
        if table is not None:
            return table.info()
        return self.others.infos().get(name) if self.others is not None else None

    def exists(self, name: str) -> bool:
        """A table ``name`` is open (here or at another worker)."""
        return name in self.tables or (self.others is not None and name in self.others.infos())

    def resume(self) -> None:
        """After a restart: let every restored game's loop run (each seat's grace period
        starts at the restart, then a computer plays it until its player is back). A
        restored table nobody comes back to ends ``table_unattended_seconds`` after the
        restart, as if its last session had left then."""
        for table in self.tables.values():
            if table.game is not None:
                table.loop.start()
            table.check_empty()
        self.tournaments.resume()  # their rounds' tables watched again, a missing one made

    def close(self) -> None:
        for table in self.tables.values():
            table.close()
