"""The SQLite backend: one file in the data folder (stdlib ``sqlite3``, used in ``net`` only),
the default for one machine, also shared by several worker processes on that machine.

Writes are single small statements (or, for a claimed table, one short ``BEGIN IMMEDIATE``
transaction that checks its owner token first) in WAL mode with ``synchronous=NORMAL``: well
under a millisecond, so they run on the event loop (:meth:`SqliteStore.when_written` calls
back at once). A committed row survives the process being killed (not a power cut). Several
processes on one file take turns for its write lock, waiting up to ``busy_timeout``.

Versions: the file's ``PRAGMA user_version`` is :data:`STORE_VERSION`; opening an older file
runs the :data:`MIGRATIONS` from its version in one transaction (0: files from before the
version was kept), and a file from a newer server is refused. A table's saved state is a
:class:`SavedTable` with its own ``schema_version``, checked field by field when read.

Faults are loud, and nothing is overwritten to get past one:

- At start, :func:`~net.store.sqlite_file.open_sqlite` checks the file (see there) and
  raises :class:`StorageError` with one line naming the file and what to do; the server does
  not start.
- A table whose saved game cannot be read is reported by :meth:`SqliteStore.load_tables` (its
  ``fault``) or fails to replay; the registry keeps it out of play, untouched in the file.
- What reading a hostile or damaged file can cost is bounded: a value longer than it can
  legitimately be (``MAX_*`` in :mod:`net.store.model`) is not read at all and counts as
  damage.
- A write that fails once the server runs (disk full, database locked, the file made
  read-only) is logged as an ERROR naming the file — once, then a count at most once a
  minute — and :attr:`SqliteStore.problem` says so to the players (the lobby shows it) until
  a write succeeds again. A table's failed write is held with every later write of that
  table and written again first (:meth:`SqliteStore.retry`), so the file always holds a
  prefix of what the table did (its row and its actions agree: a restart replays it); the
  table pauses meanwhile. A passphrase that cannot be stored is refused
  (:class:`StorageError`), not kept in memory.

The checks at start and backups: :mod:`net.store.sqlite_file`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from net.store import core
from net.store.core import SqlStore, Step, T
from net.store.dialect import Dialect, Wrap
from net.store.model import (
    MAX_ACTION_JSON,
    MAX_TABLE_JSON,
    ActionRow,
    CorruptRow,
    SavedTable,
    StorageError,
    TableRow,
    json_object,
    read_action_row,
)
from net.store.schema import SCHEMA_TEXT, give_skeletons, keep_old_games
from net.store.tournaments import TournamentStore

log = logging.getLogger("net.store")

BUSY_MS = 1000  # how long a write waits for another process's write lock
MAX_HELD = 200  # a paused table's writes held at most (a paused table makes few: its saves)


@dataclass
class _Held:
    """A table's write as :meth:`SqliteStore._table_write` got it, held while it fails."""

    doing: str
    steps: list[Step]
    missing_ok: bool = False
    then: Callable[[Any], object] | None = None
    replaces: bool = False  # the table's whole row: a later one supersedes it


SQLITE = Dialect("?", {
    "serial": "INTEGER PRIMARY KEY", "id": "INTEGER", "real": "REAL",
    "octets": Wrap("length(CAST({} AS BLOB))"),
    "state_size": "length(state)",  # a state's size before it is parsed for its seats
    "kind_of_name": "typeof(name)", "find": "instr", "by_age": "created", "returning_id": "",
    "by_account": "r.account_id",
    "bytewise": "",  # names in code point order: SQLite's BINARY collation (PostgreSQL: "C")
    "for_update": "",  # BEGIN IMMEDIATE holds the whole file
    # a game's record: its first line (a parameter), then its hands' blocks in order
    # (parameters: table, game number, hands); SQLite keeps a subquery's order in group_concat
    "hands_record": "? || coalesce((SELECT group_concat(record, '') FROM (SELECT record "
                    "FROM hands WHERE table_name = ? AND game_no = ? AND hand_no BETWEEN 1 "
                    "AND ? ORDER BY hand_no)), '')",
})
SCHEMA = SCHEMA_TEXT.format_map(SQLITE.words)


def _migrate_1_table_states(db: sqlite3.Connection) -> None:
    """Every readable table state in the typed layout with its ``schema_version``; a state
    that cannot be read stays as it is (its table is quarantined at load, not rewritten)."""
    rows = db.execute("SELECT rowid, state FROM tables WHERE length(CAST(state AS BLOB)) <= ?",
                      (MAX_TABLE_JSON,)).fetchall()
    for rowid, state in rows:
        try:
            saved = SavedTable.from_json(json_object(state, "its state", MAX_TABLE_JSON))
        except CorruptRow:
            continue
        db.execute("UPDATE tables SET state = ? WHERE rowid = ?",
                   (json.dumps(saved.to_json()), rowid))


def _add_column(db: sqlite3.Connection, table: str, column: str, kind: str) -> None:
    """``column`` added to ``table`` unless there (a file SCHEMA just made has it already)."""
    if column not in {str(r[1]) for r in db.execute(f"PRAGMA table_info({table})")}:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


def _migrate_2_owner_token(db: sqlite3.Connection) -> None:
    """The owner token of each table (fencing between workers): 0, never claimed."""
    _add_column(db, "tables", "owner_token", "INTEGER NOT NULL DEFAULT 0")


def _migrate_3_ratings(db: sqlite3.Connection) -> None:
    """Ratings (the ``ratings`` and ``rated_games`` tables, which SCHEMA makes): nothing to
    convert (the results of before hold no computer seats to rate them against, so ratings
    start with the next game). The version says that this file's games are rated: a server
    from before would finish games without rating them, so it refuses the file."""


def _migrate_4_result_bots(db: sqlite3.Connection) -> None:
    """Whether a program played a result's seat (``bot join``): 0 for every earlier game."""
    _add_column(db, "results", "bot", "INTEGER NOT NULL DEFAULT 0")


def _migrate_5_games(db: sqlite3.Connection) -> None:
    """Every finished game of before kept for replay (:func:`~net.store.schema.keep_old_games`)."""
    keep_old_games(db, SQLITE.sql)


def _migrate_6_name_skeletons(db: sqlite3.Connection) -> None:
    """Every account's name's skeleton (:func:`~net.store.schema.give_skeletons`)."""
    _add_column(db, "accounts", "skeleton", "TEXT")
    give_skeletons(db, SQLITE.sql)


def _migrate_7_moderation(db: sqlite3.Connection) -> None:
    """The operators' bans, mutes and audit (tables SCHEMA makes): nothing to convert. The
    version says that this file holds bans: a server from before would let a banned client
    in, so it refuses the file."""


def _migrate_8_players(db: sqlite3.Connection) -> None:
    """The players' ignores and reports (tables SCHEMA makes): nothing to convert. The
    version says that this file holds them: a server from before would show an ignored
    player's chat again."""


def _migrate_9_tournaments(db: sqlite3.Connection) -> None:
    """The tournaments, their entries, rounds and tables (tables SCHEMA makes): nothing to
    convert. The version says that this file holds tournaments: a server from before would
    not run them."""


def _migrate_10_tournament_setup(db: sqlite3.Connection) -> None:
    """A tournament's set start, privacy and invitations (``tournaments.setup``): none for
    every earlier one."""
    _add_column(db, "tournaments", "setup", "TEXT NOT NULL DEFAULT '{}'")


# MIGRATIONS[v] brings a file of ``PRAGMA user_version`` v to v + 1 (0: the files written
# before the store had a version); new tables need none (SCHEMA creates what is missing)
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _migrate_1_table_states, _migrate_2_owner_token, _migrate_3_ratings,
    _migrate_4_result_bots, _migrate_5_games, _migrate_6_name_skeletons,
    _migrate_7_moderation, _migrate_8_players, _migrate_9_tournaments,
    _migrate_10_tournament_setup)
STORE_VERSION = len(MIGRATIONS)
# the columns a migration adds, by the version that brought them: a file of an older version
# lacks them until it is migrated
ADDED_COLUMNS: dict[int, dict[str, tuple[str, ...]]] = {2: {"tables": ("owner_token",)},
                                                        4: {"results": ("bot",)},
                                                        6: {"accounts": ("skeleton",)},
                                                        10: {"tournaments": ("setup",)}}


class SqliteStore(TournamentStore):
    """The server's SQLite database (use :func:`~net.store.sqlite_file.open_sqlite` to have
    it checked first)."""

    dialect = SQLITE
    Error = sqlite3.Error
    Taken = sqlite3.IntegrityError
    MANY_TABLES = SqlStore.MANY_TABLES + " (a damaged file?)"

    def __init__(self, path: Path | str, db: sqlite3.Connection | None = None) -> None:
        super().__init__()
        self.path = Path(path) if str(path) != ":memory:" else path
        if db is None:
            db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                                 timeout=BUSY_MS / 1000)
        self.db = db
        self._held: dict[str, list[_Held]] = {}  # table -> its writes that failed, in order
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        self._schema()
        self.version = self._migrate()

    def _schema(self) -> None:
        """The tables that are missing, made under the write lock: another process opening
        the same new file at once waits, then finds them."""
        try:
            self.db.executescript(f"BEGIN IMMEDIATE;\n{SCHEMA}\nCOMMIT;")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise

    def _migrate(self) -> int:
        """Bring the file to :data:`STORE_VERSION` in one transaction (all steps or none);
        a file from a newer server is refused rather than misread."""
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        if version > STORE_VERSION:
            raise StorageError(f"{self.path} was written by a newer mahjong-ssh (its schema "
                               f"version is {version}, this one reads up to {STORE_VERSION}): "
                               f"run that version, or restore a backup from before it")
        if version == STORE_VERSION:
            return version
        with self._immediate():
            version = int(self.db.execute("PRAGMA user_version").fetchone()[0])  # under lock
            for step in MIGRATIONS[version:]:
                step(self.db)
            self.db.execute(f"PRAGMA user_version = {STORE_VERSION}")
        if version:
            log.info("%s: schema version %d → %d", self.path, version, STORE_VERSION)
        return STORE_VERSION

    def close(self) -> None:
        self.db.close()

    # --- faults -----------------------------------------------------------------------------
    def _first_failure(self) -> None:
        # do not hold the event loop for a lock that is held for a while: fail fast
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("PRAGMA busy_timeout = 0")

    def _works_again(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")

    def _exec(self, sql: str, params: Any = (), many: bool = False) -> sqlite3.Cursor:
        sql = SQLITE.sql(sql)
        return self.db.executemany(sql, params) if many else self.db.execute(sql, params)

    def _rows(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        return self._exec(sql, params).fetchall()

    def _change(self, sql: str, params: Any = ()) -> int:
        return int(self._exec(sql, params).rowcount)

    def _claimed(self) -> None:
        self._worked()  # a claim written: the file takes writes

    def _row(self, sql: str, params: Any = ()) -> tuple[Any, ...] | None:
        row: tuple[Any, ...] | None = self._exec(sql, params).fetchone()
        return row

    def _write(self, doing: str, steps: list[Step]) -> bool:
        """Each statement at once, by itself; up to the first that fails."""
        for sql, params, many in steps:
            try:
                self._exec(sql, params, many)
            except sqlite3.Error as exc:
                self._failed(exc, doing)
                return False
            self._worked()
        return True

    def _table_write(self, doing: str, name: str,
                     steps: list[Step], missing_ok: bool = False,
                     then: Callable[[Any], object] | None = None,
                     replaces: bool = False) -> bool:
        """The statements of one table-scoped write, all or none (one transaction; a
        claimed table's under the write lock, after checking that its row still has the
        token this store holds, ``missing_ok``: or that it has no row yet; ``then``: more
        work on the connection in the same transaction, e.g. the rating update). A write the
        file cannot take now (full, locked, read-only: :class:`sqlite3.OperationalError`) is
        held with every later write of the table, in order, and written again first
        (:meth:`retry`); ``replaces``: a held write of the same kind just before it is
        superseded (the table's row, saved whole each time). False when it was not written
        now (held, failed or fenced)."""
        write = _Held(doing, steps, missing_ok, then, replaces)
        held = self._held.get(name)
        if held is not None:
            if replaces and held[-1].replaces:
                held[-1] = write
            elif len(held) < MAX_HELD:
                held.append(write)
            else:  # a paused table makes no actions: this many is a bug, not play
                self._failed(sqlite3.OperationalError("too many writes held"), doing)
                return False
            return self.retry(name)
        outcome = self._run_write(name, write)
        if outcome is None:
            self._held[name] = [write]
            return False
        return outcome

    def _run_write(self, name: str, write: _Held) -> bool | None:
        """One write now: True written, False dropped (fenced, or an error retrying cannot
        mend), None failed for now (to be held)."""
        token = self._tokens.get(name)
        try:
            if token is None and write.then is None and len(write.steps) == 1:
                self._exec(*write.steps[0])  # one statement: atomic by itself
                owned = True
            else:
                owned = self._transaction(name, token, write)
        except sqlite3.OperationalError as exc:
            self._failed(exc, write.doing)
            return None
        except sqlite3.Error as exc:  # not the disk's doing (a damaged file): not retried
            self._failed(exc, write.doing)
            return False
        self._worked()
        if not owned:
            assert token is not None
            self._fenced(name, token, write.doing)
        return owned

    @contextlib.contextmanager
    def _immediate(self) -> Iterator[None]:
        """One transaction under the file's write lock: committed, or rolled back where the
        work raises."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _transaction(self, name: str, token: int | None, write: _Held) -> bool:
        owned = True
        with self._immediate():  # fenced: nothing written, the read committed
            if token is not None:
                row = self._row(core.OWNER, (name,))
                owned = row[0] == token if row is not None else write.missing_ok
            if owned:
                for step in write.steps:
                    self._exec(*step)
                if write.then is not None:
                    write.then(self.db)
        return owned

    def _on_db(self, work: Callable[[Any], T], atomic: bool = False) -> T:
        if not atomic:
            return work(self.db)
        with self._immediate():
            return work(self.db)

    def _made_id(self, cur: Any) -> int | None:
        return cur.lastrowid if cur.rowcount == 1 else None  # 0: a look-alike meanwhile

    def unsaved(self, name: str) -> bool:
        """Table ``name`` has writes held (they failed): it must not move on."""
        return name in self._held

    def retry(self, name: str) -> bool:
        """Write table ``name``'s held writes now, in order, up to the first that still
        fails; True when none is left. When they all went through, the other tables' held
        writes are tried too (the file takes writes again)."""
        if not self._write_held(name):
            return False
        for other in list(self._held):
            if not self._write_held(other):
                break
        return True

    def release_table(self, name: str) -> None:
        """As :meth:`StoreBase.release_table`; the table's held writes go too: they were made
        under the claim given up, and another owner restores the table from what is saved."""
        self._held.pop(name, None)
        super().release_table(name)

    def _write_held(self, name: str) -> bool:
        held = self._held.get(name)
        while held:
            if self._run_write(name, held[0]) is None:
                return False
            held.pop(0)
        self._held.pop(name, None)
        return True

    def _tables_unreadable(self, exc: BaseException) -> StorageError:
        return StorageError(f"{self.path}: its tables cannot be read ({exc}): restore it "
                            f"from a backup or move it away to start afresh")

    # --- tables ---------------------------------------------------------------------------
    def save_table(self, row: TableRow) -> None:
        """The table's row, made or replaced; a claimed table's made with its token."""
        now = time.time()
        self._table_write(
            f"save table {row.name}", row.name,
            [(core.SAVE_TABLE, (row.name, row.rules, json.dumps(row.options),
                           json.dumps(row.state.to_json()), now, now,
                           self._tokens.get(row.name, 0)), False)],
            missing_ok=True, replaces=True)

    def iter_actions(self, table: str, game_no: int) -> Iterator[ActionRow]:
        """A game's stored actions in order, one row at a time; :class:`CorruptRow` at the
        first that cannot be read, :class:`StorageError` where the file fails."""
        try:
            cur = self._exec(core.ACTIONS + "ORDER BY hand_no, i",
                             (MAX_ACTION_JSON, table, game_no))
            for hand_no, i, seat, action in cur:
                yield read_action_row(game_no, hand_no, i, seat, action)
        except sqlite3.Error as exc:
            raise StorageError(f"the database: {exc}") from None
