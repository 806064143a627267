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

- At start, :func:`open_sqlite` checks the file (see there) and raises :class:`StorageError`
  with one line naming the file and what to do; the server does not start.
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

Backups: ``mahjong-ssh backup [--data DIR] FILE`` (:func:`backup`) copies the database with
SQLite's online backup API while the server runs (WAL mode: the server's writes do not wait
for it) into a single self-contained file, checks the copy and prints what it holds; it never
overwrites FILE unless ``--force``. To restore: stop the server, copy the backup over
``DATA/mahjong.sqlite3``, remove ``mahjong.sqlite3-wal`` and ``mahjong.sqlite3-shm`` beside
it (they belong to the old file), and start the server.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from net.game_id import new_game_id
from net.sanitize import name_variant, skeleton
from net.store.base import StoreBase
from net.store.model import (
    MAX_ACTION_JSON,
    MAX_GAME_RECORD,
    MAX_GAMES_LISTED,
    MAX_NAME,
    MAX_RECORD,
    MAX_SECRET,
    MAX_SETTINGS_JSON,
    MAX_TABLE_JSON,
    MAX_TABLE_ROWS,
    Account,
    ActionRow,
    ComputerSeat,
    CorruptRow,
    GameEntry,
    KeptGame,
    KeylessRow,
    LeaderRow,
    Rating,
    SavedTable,
    StorageError,
    TableRow,
    game_entries,
    games_of_sql,
    json_object,
    kept_game_row,
    read_action_row,
    read_table_row,
    recent_scores_sql,
    seated_accounts,
    sum_number,
)
from net.store.ratings import (
    MAX_RATED_NAMES,
    apply_rating,
    ratings_of_sql,
    ratings_sql,
    read_ratings,
)
from net.store.schema import CORE_TABLES, EXPECTED_COLUMNS, SCHEMA_TEXT, renamed_accounts

log = logging.getLogger("net.store")

LOW_DISK_BYTES = 16 * 1024 * 1024  # free space under this at start: a warning
HOST_KEY = "ssh_host_ed25519_key"
BUSY_MS = 1000  # how long a write waits for another process's write lock
ACCOUNT_TRIES = 20  # an account insert that met a name taken meanwhile is tried again
MAX_HELD = 200  # a paused table's writes held at most (a paused table makes few: its saves)


@dataclass
class _Held:
    """A table's write as :meth:`SqliteStore._table_write` got it, held while it fails."""

    doing: str
    steps: list[tuple[str, Any, bool]]
    missing_ok: bool = False
    then: Callable[[sqlite3.Connection], object] | None = None
    replaces: bool = False  # the table's whole row: a later one supersedes it


SCHEMA = SCHEMA_TEXT.format(serial="INTEGER PRIMARY KEY", id="INTEGER", real="REAL")


INTEGRITY_FULL_BYTES = 64 * 1024 * 1024  # integrity_check up to this size, quick_check past it



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


def _migrate_2_owner_token(db: sqlite3.Connection) -> None:
    """The owner token of each table (fencing between workers): 0, never claimed."""
    have = {str(r[1]) for r in db.execute("PRAGMA table_info(tables)")}
    if "owner_token" not in have:  # a file SCHEMA just made has it already
        db.execute("ALTER TABLE tables ADD COLUMN owner_token INTEGER NOT NULL DEFAULT 0")


def _migrate_3_ratings(db: sqlite3.Connection) -> None:
    """Ratings (the ``ratings`` and ``rated_games`` tables, which SCHEMA makes): nothing to
    convert (the results of before hold no computer seats to rate them against, so ratings
    start with the next game). The version says that this file's games are rated: a server
    from before would finish games without rating them, so it refuses the file."""


def _migrate_4_result_bots(db: sqlite3.Connection) -> None:
    """Whether a program played a result's seat (``bot join``): 0 for every earlier game."""
    have = {str(r[1]) for r in db.execute("PRAGMA table_info(results)")}
    if "bot" not in have:  # a file SCHEMA just made has it already
        db.execute("ALTER TABLE results ADD COLUMN bot INTEGER NOT NULL DEFAULT 0")


def _migrate_5_games(db: sqlite3.Connection) -> None:
    """Every finished game of before (a ``results`` group) kept for replay under a new ID,
    its record put together from the ``hands`` rows it still has."""
    groups = db.execute("SELECT table_name, game_no, MAX(rules), MAX(finished), MAX(hands) "
                        "FROM results GROUP BY table_name, game_no").fetchall()
    for table, game_no, rules, finished, hands in groups:
        game_id = new_game_id()
        cur = db.execute(
            "INSERT OR IGNORE INTO games (game_id, table_name, game_no, rules, hands, record, "
            "finished) SELECT ?, ?, ?, ?, ?, " + _HANDS_RECORD + ", ? "
            "WHERE EXISTS (SELECT 1 FROM hands WHERE table_name = ? AND game_no = ?)",
            (game_id, table, game_no, rules, hands, "", table, game_no, hands, finished,
             table, game_no))
        if cur.rowcount == 1:
            db.execute("INSERT OR IGNORE INTO game_players (game_id, account_id, seat, score) "
                       "SELECT ?, account_id, seat, score FROM results WHERE table_name = ? "
                       "AND game_no = ?", (game_id, table, game_no))


def _migrate_6_name_skeletons(db: sqlite3.Connection) -> None:
    """Every account's name's skeleton (net.sanitize), looked up when a name is given: the
    names of before renamed as :func:`renamed_accounts` says (a guest's marked, look-alikes
    and names a login could not get now given a variant)."""
    have = {str(r[1]) for r in db.execute("PRAGMA table_info(accounts)")}
    if "skeleton" not in have:  # a file SCHEMA just made has it already
        db.execute("ALTER TABLE accounts ADD COLUMN skeleton TEXT")
    db.execute("CREATE INDEX IF NOT EXISTS accounts_skeleton ON accounts (skeleton)")
    rows = [(int(i), str(n), bool(g)) for i, n, g in db.execute(
        "SELECT a.id, a.nickname, coalesce(s.kind = 'guest', 0) FROM accounts a "
        "LEFT JOIN account_secrets s ON s.account_id = a.id ORDER BY a.id")]
    before = {i: n for i, n, _ in rows}
    renamed = renamed_accounts(rows)
    for account_id, name, _ in renamed:  # out of the way first: names may swap
        if name != before[account_id]:
            db.execute("UPDATE accounts SET nickname = ? WHERE id = ?",
                       (f"\x01{account_id}", account_id))
    db.executemany("UPDATE accounts SET nickname = ?, skeleton = ? WHERE id = ?",
                   [(name, skel, account_id) for account_id, name, skel in renamed])


# a game's record: its first line (a parameter), then its hands' blocks in order (parameters:
# table, game number, hands); SQLite keeps a subquery's order in group_concat
_HANDS_RECORD = ("? || coalesce((SELECT group_concat(record, '') FROM (SELECT record FROM hands "
                 "WHERE table_name = ? AND game_no = ? AND hand_no BETWEEN 1 AND ? "
                 "ORDER BY hand_no)), '')")


# MIGRATIONS[v] brings a file of ``PRAGMA user_version`` v to v + 1 (0: the files written
# before the store had a version); new tables need none (SCHEMA creates what is missing)
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _migrate_1_table_states, _migrate_2_owner_token, _migrate_3_ratings,
    _migrate_4_result_bots, _migrate_5_games, _migrate_6_name_skeletons)
STORE_VERSION = len(MIGRATIONS)
# the columns a migration adds, by the version that brought them: a file of an older version
# lacks them until it is migrated
ADDED_COLUMNS: dict[int, dict[str, tuple[str, ...]]] = {2: {"tables": ("owner_token",)},
                                                        4: {"results": ("bot",)},
                                                        6: {"accounts": ("skeleton",)}}


# a new account, unless one whose name looks alike (the same skeleton) was made meanwhile
_INSERT_ACCOUNT = ("INSERT INTO accounts (key_fingerprint, nickname, created, last_seen, skeleton) "
                   "SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM accounts "
                   "WHERE skeleton = ?)")


class SqliteStore(StoreBase):
    """The server's SQLite database (use :func:`open_sqlite` to have it checked first)."""

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
        self.db.execute("BEGIN IMMEDIATE")
        try:
            version = int(self.db.execute("PRAGMA user_version").fetchone()[0])  # under lock
            for step in MIGRATIONS[version:]:
                step(self.db)
            self.db.execute(f"PRAGMA user_version = {STORE_VERSION}")
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
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

    def _write(self, doing: str, sql: str, params: Any = (), many: bool = False) -> bool:
        try:
            if many:
                self.db.executemany(sql, params)
            else:
                self.db.execute(sql, params)
        except sqlite3.Error as exc:
            self._failed(exc, doing)
            return False
        self._worked()
        return True

    def _table_write(self, doing: str, name: str,
                     steps: list[tuple[str, Any, bool]], missing_ok: bool = False,
                     then: Callable[[sqlite3.Connection], object] | None = None,
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
                sql, params, many = write.steps[0]  # one statement: atomic by itself
                if many:
                    self.db.executemany(sql, params)
                else:
                    self.db.execute(sql, params)
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

    def _transaction(self, name: str, token: int | None, write: _Held) -> bool:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            owned = True
            if token is not None:
                row = self.db.execute("SELECT owner_token FROM tables WHERE name = ?",
                                      (name,)).fetchone()
                owned = row[0] == token if row is not None else write.missing_ok
            if owned:
                for sql, params, many in write.steps:
                    if many:
                        self.db.executemany(sql, params)
                    else:
                        self.db.execute(sql, params)
                if write.then is not None:
                    write.then(self.db)
            self.db.execute("COMMIT" if owned else "ROLLBACK")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise
        return owned

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

    def has_table(self, name: str) -> bool:
        """A row for table ``name`` is in the file (loaded or not)."""
        try:
            return self.db.execute("SELECT 1 FROM tables WHERE name = ?",
                                   (name,)).fetchone() is not None
        except sqlite3.Error as exc:
            self._failed(exc, "read the tables")
            return True  # unknown: do not create a table that may be there

    # --- accounts -------------------------------------------------------------------------
    def _unique_nickname(self, wanted: str, account_id: int | None = None) -> str:
        """``wanted``, or its first variant (net.sanitize.name_variant) that no other account
        has and that looks like no other account's (its skeleton)."""
        name, n = wanted, 1
        while True:
            row = self.db.execute(
                "SELECT id FROM accounts WHERE (nickname = ? OR skeleton = ?) AND id IS NOT ? "
                "LIMIT 1", (name, skeleton(name), account_id)).fetchone()
            if row is None:
                return name
            n += 1
            name = name_variant(wanted, n)

    def account_for_key(self, fingerprint: str, wanted: str) -> Account:
        """The account of a public key, created on first login (nickname made unique; a
        name or key taken by another process meanwhile: looked up again)."""
        try:
            for _ in range(ACCOUNT_TRIES):
                try:
                    return self._account_for_key(fingerprint, wanted)
                except sqlite3.IntegrityError:
                    continue
            raise sqlite3.OperationalError("nicknames kept being taken meanwhile")
        except sqlite3.Error as exc:
            self._failed(exc, "read or write an account")
            return self._temporary_account(f"key {fingerprint}", wanted, fingerprint)

    def _account_for_key(self, fingerprint: str, wanted: str) -> Account:
        now = time.time()
        row = self.db.execute(
            "SELECT id, substr(nickname, 1, ?) FROM accounts WHERE key_fingerprint = ?",
            (MAX_NAME, fingerprint)).fetchone()
        if row is not None:
            self._write("write an account", "UPDATE accounts SET last_seen = ? WHERE id = ?",
                        (now, row[0]))
            return Account(row[0], str(row[1]), fingerprint)
        name = self._unique_nickname(wanted)
        cur = self.db.execute(_INSERT_ACCOUNT, (fingerprint, name, now, now, skeleton(name),
                                                skeleton(name)))
        if cur.rowcount != 1:  # a look-alike was made meanwhile: the next name
            raise sqlite3.IntegrityError("a name that looks alike was taken meanwhile")
        self._worked()
        assert cur.lastrowid is not None
        return Account(cur.lastrowid, name, fingerprint)

    def load_settings(self, account_id: int) -> dict[str, Any] | None:
        try:
            row = self.db.execute(
                "SELECT CASE WHEN length(CAST(data AS BLOB)) <= ? THEN data END FROM settings "
                "WHERE account_id = ?", (MAX_SETTINGS_JSON, account_id)).fetchone()
        except sqlite3.Error as exc:
            self._failed(exc, "read settings")
            return None
        if row is None:
            return None
        try:
            return json_object(row[0], "settings", MAX_SETTINGS_JSON)
        except CorruptRow:
            return None  # the defaults; the next save replaces the row

    def save_settings(self, account_id: int, data: dict[str, Any]) -> None:
        self._write(
            "save settings",
            "INSERT INTO settings (account_id, data, updated) VALUES (?, ?, ?) "
            "ON CONFLICT(account_id) DO UPDATE SET data = excluded.data, "
            "updated = excluded.updated",
            (account_id, json.dumps(data, ensure_ascii=False), time.time()))

    # --- keyless accounts (net/front/accounts.py decides; these read and write) ---------
    def keyless_row(self, nickname: str) -> KeylessRow | None:
        """The account holding ``nickname``, with its keyless secret if it has one; None when
        no account has the name (or the file cannot be read: then the name looks free and
        the account made for it is a temporary one)."""
        try:
            row = self.db.execute(
                "SELECT a.id, a.key_fingerprint IS NOT NULL, s.kind, "
                "CASE WHEN length(s.hash) <= ? THEN s.hash END FROM accounts a "
                "LEFT JOIN account_secrets s ON s.account_id = a.id WHERE a.nickname = ?",
                (MAX_SECRET, nickname)).fetchone()
        except sqlite3.Error as exc:
            self._failed(exc, "read an account")
            return None
        if row is None:
            return None
        return KeylessRow(int(row[0]), bool(row[1]), row[2], row[3])

    def free_nickname(self, wanted: str) -> str:
        """``wanted``, or a numbered variant no account has."""
        try:
            return self._unique_nickname(wanted)
        except sqlite3.Error as exc:
            self._failed(exc, "read an account")
            return wanted

    def keyless_account(self, account_id: int, nickname: str) -> Account:
        """The keyless account ``account_id`` logging in again (its last visit noted)."""
        self._write("write an account", "UPDATE accounts SET last_seen = ? WHERE id = ?",
                    (time.time(), account_id))
        return Account(account_id, nickname, None)

    def keep_with_passphrase(self, nickname: str, stored: str,
                             account_id: int | None = None) -> Account | None:
        """A passphrase for ``nickname``: a new account under it, or ``account_id``'s (one
        from before passphrases). None when the name or the account was taken meanwhile;
        :class:`StorageError` when it cannot be stored now (the login is told, not given an
        account that the next visit would not find)."""
        now = time.time()
        try:  # the account and its secret together: never a name left without its secret
            self.db.execute("BEGIN IMMEDIATE")
            try:
                kept = False
                if account_id is None:
                    account_id = self._insert_keyless(nickname, now)
                if account_id is not None:
                    kept = self.db.execute(
                        "INSERT OR IGNORE INTO account_secrets (account_id, kind, hash, "
                        "created) VALUES (?, 'passphrase', ?, ?)",
                        (account_id, stored, now)).rowcount == 1
                self.db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:  # a name kept in memory only would be lost unseen
            self._failed(exc, "write an account")
            raise StorageError(f"{self.path}: cannot store a passphrase now") from None
        self._worked()
        return Account(account_id, nickname, None) if kept and account_id is not None else None

    def guest_account(self, wanted: str) -> Account:
        """A fresh guest account (no later login enters it), under ``wanted`` if free, else a
        numbered variant."""
        now = time.time()
        try:
            for _ in range(ACCOUNT_TRIES):
                name = self._unique_nickname(wanted)
                account_id = self._insert_keyless(name, now)
                if account_id is not None:
                    break
            else:
                raise sqlite3.OperationalError("nicknames kept being taken meanwhile")
            self.db.execute("INSERT INTO account_secrets (account_id, kind, hash, created) "
                            "VALUES (?, 'guest', NULL, ?)", (account_id, now))
        except sqlite3.Error as exc:
            self._failed(exc, "write an account")
            return Account(-1 - self.failures, wanted, None, guest=True)
        self._worked()
        return Account(account_id, name, None, guest=True)

    def _insert_keyless(self, nickname: str, now: float) -> int | None:
        try:
            cur = self.db.execute(_INSERT_ACCOUNT, (None, nickname, now, now, skeleton(nickname),
                                                    skeleton(nickname)))
        except sqlite3.IntegrityError:  # the name was taken meanwhile
            return None
        return cur.lastrowid if cur.rowcount == 1 else None  # 0: a look-alike meanwhile

    def forget_guests(self, unseen_since: float) -> int:
        """Delete the guest accounts last seen before ``unseen_since`` (a time.time()) that
        left nothing: no result, no stake result, no seat at a stored table."""
        try:
            seated = {i for (state,) in self.db.execute(
                "SELECT state FROM tables WHERE length(state) <= ?", (MAX_TABLE_JSON,))
                for i in seated_accounts(state)}
            rows = self.db.execute(
                "SELECT a.id FROM accounts a JOIN account_secrets s ON s.account_id = a.id "
                "WHERE s.kind = 'guest' AND a.last_seen < ? "
                "AND NOT EXISTS (SELECT 1 FROM results r WHERE r.account_id = a.id) "
                "AND NOT EXISTS (SELECT 1 FROM stake_results r WHERE r.account_id = a.id)",
                (unseen_since,)).fetchall()
        except sqlite3.Error as exc:
            self._failed(exc, "read the accounts")
            return 0
        gone = [(i,) for (i,) in rows if i not in seated]
        if gone and self._write("forget guests", "DELETE FROM account_secrets "
                                "WHERE account_id = ?", gone, many=True):
            self._write("forget guests", "DELETE FROM accounts WHERE id = ?", gone, many=True)
        return len(gone)

    def forget_guest(self, account_id: int) -> bool:
        """Delete guest account ``account_id`` when its guest has left, unless it left
        something: a result, a stake result, a seat at a stored table (then
        :meth:`forget_guests` at a later start does). True when it went, its name free."""
        try:
            if self.db.execute(
                    "SELECT 1 FROM account_secrets s WHERE s.account_id = ? AND s.kind = 'guest' "
                    "AND NOT EXISTS (SELECT 1 FROM results r WHERE r.account_id = s.account_id) "
                    "AND NOT EXISTS (SELECT 1 FROM stake_results r "
                    "WHERE r.account_id = s.account_id)", (account_id,)).fetchone() is None:
                return False
            for (state,) in self.db.execute(  # the few states that may seat it, then parsed
                    "SELECT state FROM tables WHERE length(state) <= ? AND instr(state, ?) > 0",
                    (MAX_TABLE_JSON, f'"account": {account_id}')):
                if account_id in seated_accounts(state):
                    return False
        except sqlite3.Error as exc:
            self._failed(exc, "read the accounts")
            return False
        return (self._write("forget a guest", "DELETE FROM account_secrets WHERE account_id = ?",
                            (account_id,))
                and self._write("forget a guest", "DELETE FROM accounts WHERE id = ?",
                                (account_id,)))

    # --- tables ---------------------------------------------------------------------------
    def save_table(self, row: TableRow) -> None:
        """The table's row, made or replaced; a claimed table's made with its token."""
        now = time.time()
        self._table_write(
            f"save table {row.name}", row.name,
            [("INSERT INTO tables (name, rules, options, state, created, updated, owner_token) "
              "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
              "rules = excluded.rules, options = excluded.options, state = excluded.state, "
              "updated = excluded.updated",
              (row.name, row.rules, json.dumps(row.options), json.dumps(row.state.to_json()),
               now, now, self._tokens.get(row.name, 0)), False)], missing_ok=True,
            replaces=True)

    def delete_table(self, name: str) -> None:
        self._table_write(f"delete table {name}", name,
                          [("DELETE FROM tables WHERE name = ?", (name,), False),
                           ("DELETE FROM actions WHERE table_name = ?", (name,), False)],
                          missing_ok=True)

    _TABLE_COLUMNS = (
        "SELECT substr(name, 1, ?), typeof(name), length(name), substr(rules, 1, ?), "
        "CASE WHEN length(CAST(options AS BLOB)) <= ? THEN options END, "
        "CASE WHEN length(CAST(state AS BLOB)) <= ? THEN state END FROM tables ")
    _TABLE_LIMITS = (MAX_NAME, MAX_NAME, MAX_TABLE_JSON, MAX_TABLE_JSON)

    def load_tables(self) -> list[TableRow]:
        """The stored tables, oldest first (at most ``MAX_TABLE_ROWS``). A row that cannot
        be read comes with its ``fault`` (and empty options and state), never skipped: the
        registry keeps it out of play and nothing overwrites it. :class:`StorageError` when
        the tables cannot be read at all."""
        try:
            rows = self.db.execute(self._TABLE_COLUMNS + "ORDER BY created LIMIT ?",
                                   (*self._TABLE_LIMITS, MAX_TABLE_ROWS + 1)).fetchall()
        except sqlite3.Error as exc:
            raise StorageError(f"{self.path}: its tables cannot be read ({exc}): restore it "
                               f"from a backup or move it away to start afresh") from None
        if len(rows) > MAX_TABLE_ROWS:
            log.error("%s: more than %d tables stored: the newest are not read (a damaged "
                      "file?)", self.path, MAX_TABLE_ROWS)
            rows = rows[:MAX_TABLE_ROWS]
        return [read_table_row(*r) for r in rows]

    def load_table(self, name: str) -> TableRow | None:
        """One stored table as :meth:`load_tables` gives it (None: no such row);
        :class:`StorageError` when the file cannot be read."""
        with self._reading("read table " + name):
            row = self.db.execute(self._TABLE_COLUMNS + "WHERE name = ?",
                                  (*self._TABLE_LIMITS, name)).fetchone()
        return None if row is None else read_table_row(*row)

    def table_names(self) -> list[str]:
        """The names of the stored tables, oldest first (at most ``MAX_TABLE_ROWS``);
        :class:`StorageError` when the file cannot be read."""
        with self._reading("read the tables"):
            rows = self.db.execute("SELECT substr(name, 1, ?) FROM tables ORDER BY created "
                                   "LIMIT ?", (MAX_NAME, MAX_TABLE_ROWS)).fetchall()
        return [str(n) for (n,) in rows]

    @contextlib.contextmanager
    def _reading(self, doing: str) -> Iterator[None]:
        """A read whose failure the caller must see: :class:`StorageError` in one line."""
        try:
            yield
        except sqlite3.Error as exc:
            raise StorageError(f"{self.path}: cannot {doing} ({exc})") from None

    def add_action(self, table: str, row: ActionRow) -> None:
        self._table_write(
            f"save an action of table {table}", table,
            [("INSERT OR REPLACE INTO actions (table_name, game_no, hand_no, i, seat, action) "
              "VALUES (?, ?, ?, ?, ?, ?)",
              (table, row.game_no, row.hand_no, row.i, row.seat, json.dumps(row.action)),
              False)])

    def iter_actions(self, table: str, game_no: int) -> Iterator[ActionRow]:
        """A game's stored actions in order, one row at a time; :class:`CorruptRow` at the
        first that cannot be read, :class:`StorageError` where the file fails."""
        try:
            cur = self.db.execute(
                "SELECT hand_no, i, seat, CASE WHEN length(CAST(action AS BLOB)) <= ? THEN "
                "action END FROM actions WHERE table_name = ? AND game_no = ? "
                "ORDER BY hand_no, i", (MAX_ACTION_JSON, table, game_no))
            for hand_no, i, seat, action in cur:
                yield read_action_row(game_no, hand_no, i, seat, action)
        except sqlite3.Error as exc:
            raise StorageError(f"the database: {exc}") from None

    def actions(self, table: str, game_no: int) -> list[ActionRow]:
        return list(self.iter_actions(table, game_no))

    def drop_actions(self, table: str, before_game: int) -> None:
        self._table_write(f"drop old actions of table {table}", table,
                          [("DELETE FROM actions WHERE table_name = ? AND game_no < ?",
                            (table, before_game), False)])

    def finish_hand(self, table: str, game_no: int, hand_no: int, record: str) -> None:
        self._table_write(
            f"save a hand of table {table}", table,
            [("INSERT OR REPLACE INTO hands (table_name, game_no, hand_no, record, finished) "
              "VALUES (?, ?, ?, ?, ?)", (table, game_no, hand_no, record, time.time()), False)])

    def hand_records(self, table: str) -> list[str]:
        """The table's hand records, oldest first (a record too long to be one is left out)."""
        try:
            rows = self.db.execute(
                "SELECT CASE WHEN length(CAST(record AS BLOB)) <= ? THEN record END FROM hands "
                "WHERE table_name = ? ORDER BY game_no, hand_no",
                (MAX_RECORD, table)).fetchall()
        except sqlite3.Error as exc:
            self._failed(exc, "read hand records")
            return []
        return [r[0] for r in rows if isinstance(r[0], str)]

    def finish_game(self, table: str, game_no: int, rules: str,
                    rows: list[tuple[int, int, int, int, int]],
                    computers: Sequence[ComputerSeat] = (), seed: int = 0,
                    bots: Collection[int] = ()) -> None:
        """``rows``: (account_id, seat, score, wins, hands) for each human seat;
        ``computers``: the computer seats; ``seed``: the game's; ``bots``: the seats a
        program played (``bot join``). The results and the rating update
        (:mod:`net.store.ratings`, once per game) in one transaction."""
        now = time.time()
        self._table_write(
            f"save the results of table {table}", table,
            [("INSERT OR REPLACE INTO results (table_name, game_no, account_id, seat, score, "
              "wins, hands, rules, finished, bot) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
              [(table, game_no, a, s, sc, w, h, rules, now, int(s in bots))
               for a, s, sc, w, h in rows], True)],
            then=lambda db: apply_rating(db, "?", table, game_no, seed, rules, rows,
                                         computers, now) if rows else None)

    def finish_stakes(self, table: str, game_no: int, rules: str,
                      rows: list[tuple[int, int, int]]) -> None:
        """``rows``: (account_id, score, hands) for each spectator who staked (压鸽子)."""
        now = time.time()
        self._table_write(
            f"save the stakes of table {table}", table,
            [("INSERT OR REPLACE INTO stake_results (table_name, game_no, account_id, score, "
              "hands, rules, finished) VALUES (?, ?, ?, ?, ?, ?, ?)",
              [(table, game_no, a, sc, h, rules, now) for a, sc, h in rows], True)])

    def keep_game(self, table: str, game_no: int, hands: int, game_id: str, rules: str,
                  head: str, rows: list[tuple[int, int, int]]) -> None:
        """Keep a finished game for replay under ``game_id``: ``head`` (its ``game`` line)
        and the records of its hands 1..``hands`` (written before by :meth:`finish_hand`)
        copied into one record, so that deleting the table or reusing its name loses
        nothing; ``rows``: (account_id, seat, score) of each human seat."""
        self._table_write(
            f"keep game {game_id} of table {table}", table,
            [("INSERT INTO games (game_id, table_name, game_no, rules, hands, record, finished) "
              "VALUES (?, ?, ?, ?, ?, " + _HANDS_RECORD + ", ?)",
              (game_id, table, game_no, rules, hands, head, table, game_no, hands, time.time()),
              False),
             ("INSERT OR REPLACE INTO game_players (game_id, account_id, seat, score) "
              "VALUES (?, ?, ?, ?)", [(game_id, a, s, sc) for a, s, sc in rows], True)])

    def kept_game(self, game_id: str) -> KeptGame | None:
        """The game kept under ``game_id`` (None: no such game); :class:`StorageError` when
        the file cannot be read, :class:`CorruptRow` when its record is too long to be one."""
        with self._reading(f"read game {game_id}"):
            row = self.db.execute(
                "SELECT substr(table_name, 1, ?), substr(rules, 1, ?), finished, "
                "CASE WHEN length(CAST(record AS BLOB)) <= ? THEN record END FROM games "
                "WHERE game_id = ?", (MAX_NAME, MAX_NAME, MAX_GAME_RECORD, game_id)).fetchone()
            if row is None:
                return None
            seated = self.db.execute(
                "SELECT p.seat, substr(a.nickname, 1, ?) FROM game_players p "
                "JOIN accounts a ON a.id = p.account_id WHERE p.game_id = ?",
                (MAX_NAME, game_id)).fetchall()
        table_name, rules, finished, record = row
        return kept_game_row(game_id, table_name, rules, finished, record, seated)

    def games_of(self, account_id: int, limit: int = MAX_GAMES_LISTED) -> list[GameEntry]:
        """The account's kept games, newest first (at most ``limit``); StorageError when the
        file cannot be read."""
        with self._reading("read the finished games"):
            rows = self.db.execute(games_of_sql("?"), (MAX_NAME, MAX_NAME, account_id,
                                                       min(limit, MAX_GAMES_LISTED))).fetchall()
        return game_entries(rows)

    # --- fencing ----------------------------------------------------------------------------
    def claim_table(self, name: str, token: int) -> bool:
        """Own table ``name`` under ``token``: the row's owner token becomes ``token`` only
        if that is greater than the stored one (one statement). True: this store now holds
        ``token`` and fences the table's writes with it. A table with no row yet is made
        with the token by :meth:`save_table`: of two claims of a new name, the first saved
        owns it and the other's writes are fenced. False: a claim as new or newer holds it
        (or the database failed); nothing changes. Claiming the token this store already
        holds is True; any other equal token is refused (a token is one lease)."""
        try:
            cur = self.db.execute("UPDATE tables SET owner_token = ? WHERE name = ? AND "
                                  "owner_token < ?", (token, name, token))
            if cur.rowcount != 1:
                row = self.db.execute("SELECT owner_token FROM tables WHERE name = ?",
                                      (name,)).fetchone()
                if row is not None and not (row[0] == token and self._tokens.get(name) == token):
                    return False
        except sqlite3.Error as exc:
            self._failed(exc, f"claim table {name}")
            return False
        self._worked()
        self._tokens[name] = token
        return True

    def reset_claims(self) -> int:
        """Every table's owner token back to 0: for a new directory of owners (its
        revisions start again at 1), when no lease of before can still be held. The
        number of tables reset; StorageError when the file cannot be written."""
        with self._reading("reset the tables' owners"):
            cur = self.db.execute("UPDATE tables SET owner_token = 0 WHERE owner_token <> 0")
        self._tokens.clear()
        return int(cur.rowcount)

    def owner_token(self, name: str) -> int | None:
        """The owner token stored for table ``name`` (0: never claimed; None: no such row);
        :class:`StorageError` when the file cannot be read."""
        with self._reading(f"read the owner of table {name}"):
            row = self.db.execute("SELECT owner_token FROM tables WHERE name = ?",
                                  (name,)).fetchone()
        return None if row is None else int(row[0])

    # --- results ----------------------------------------------------------------------------
    def leaderboard(self, limit: int = 20, rules: str | None = None,
                    by_rating: bool = False) -> list[LeaderRow]:
        """Seated results and spectators' stake results (压鸽子) together; a game counts
        once per account and role. ``rules``: that ruleset's games only (their points are
        on different scales), with each player's rating in it; ``by_rating`` (with
        ``rules``): the rated first, highest first, then by score."""
        where, params = ("WHERE rules = ?", (rules,)) if rules else ("", ())
        order = ("MAX(rt.rating) IS NULL, MAX(rt.rating) DESC, " if rules and by_rating
                 else "")
        try:
            rows = self.db.execute(
                "SELECT substr(a.nickname, 1, ?), COUNT(*), SUM(r.hands), SUM(r.wins), "
                "SUM(r.score), MAX(rt.rating), MAX(rt.games), SUM(r.bot) "
                f"FROM (SELECT account_id, hands, wins, score, bot FROM results {where} "
                f"      UNION ALL SELECT account_id, hands, 0, score, 0 FROM stake_results {where}"
                ") r JOIN accounts a ON a.id = r.account_id "
                "LEFT JOIN ratings rt ON rt.account_id = r.account_id AND rt.rules = ? "
                f"GROUP BY r.account_id ORDER BY {order}SUM(r.score) DESC, SUM(r.wins) DESC, "
                "a.nickname LIMIT ?",
                (MAX_NAME, *params, *params, rules or "", limit)).fetchall()
        except sqlite3.Error as exc:
            self._failed(exc, "read the leaderboard")
            return []
        return [LeaderRow(str(n), g, sum_number(h), sum_number(w), sum_number(s),
                          float(rt) if isinstance(rt, int | float) else None,
                          rg if isinstance(rg, int) else 0, sum_number(b))
                for n, g, h, w, s, rt, rg, b in rows]

    def ratings(self, rules: str, nicknames: Sequence[str]) -> dict[str, Rating]:
        """The named players' ratings in ``rules`` (an unrated player is left out; a failed
        read gives nothing)."""
        names = list(dict.fromkeys(nicknames))[:MAX_RATED_NAMES]
        if not names:
            return {}
        try:
            rows = self.db.execute(ratings_sql("?", len(names)), (rules, *names)).fetchall()
        except sqlite3.Error as exc:
            self._failed(exc, "read the ratings")
            return {}
        return read_ratings(rows)

    def ratings_of(self, account_id: int) -> dict[str, Rating]:
        """An account's ratings by ruleset, the most played first."""
        try:
            rows = self.db.execute(ratings_of_sql("?"), (account_id,)).fetchall()
        except sqlite3.Error as exc:
            self._failed(exc, "read the ratings")
            return {}
        return read_ratings(rows)

    def recent_scores(self, rules: str, nicknames: Sequence[str],
                      games: int) -> dict[str, list[int]]:
        """The named players' scores in their last ``games`` games of ``rules`` (seated
        results and spectators' stake results, as the leaderboard counts them), oldest
        first; a player without games is left out, a failed read gives nothing."""
        if not nicknames:
            return {}
        try:
            rows = self.db.execute(recent_scores_sql("?", len(nicknames)),
                                   (rules, rules, *nicknames, games)).fetchall()
        except sqlite3.Error as exc:
            self._failed(exc, "read the recent scores")
            return {}
        out: dict[str, list[int]] = {}
        for nickname, score in rows:
            if isinstance(nickname, str) and isinstance(score, int):
                out.setdefault(nickname, []).append(score)
        return out

    def rulesets_played(self) -> list[str]:
        """The rulesets with a finished game, in the order first played."""
        try:
            rows = self.db.execute(
                "SELECT substr(rules, 1, ?) FROM (SELECT rules, finished FROM results "
                "UNION ALL SELECT rules, finished FROM stake_results) "
                "GROUP BY rules ORDER BY MIN(finished) LIMIT 100", (MAX_NAME,)).fetchall()
        except sqlite3.Error as exc:
            self._failed(exc, "read the leaderboard")
            return []
        return [str(r) for (r,) in rows]


# --- the checks at start ---------------------------------------------------------------------

def _what_to_do(path: Path) -> str:
    return (f"restore it from a backup (stop the server, copy the backup over {path.name}, "
            f"remove {path.name}-wal and {path.name}-shm) or move it away to start afresh")


def _uri(path: Path, mode: str) -> str:
    return f"file:{quote(str(path.resolve()))}?mode={mode}"


def open_sqlite(path: Path | str) -> SqliteStore:
    """The server's database, checked before anything is served: :class:`StorageError` with
    one clear line (naming the file and what to do) when it must not be used. Nothing is
    written, overwritten or deleted by the checks (a probe file is made and removed in the
    folder); a new, empty database is made only where there is no file at all.

    Refused:

    - a folder that does not exist, is not a folder, or cannot be written (the database's
      ``-wal`` and ``-shm`` files are made beside it): the server would start and then fail
      every login;
    - a file that exists but is 0 bytes: SQLite never leaves one once the schema is written
      (this server writes it on first start), so something truncated it; no file, but its
      ``-wal`` beside it: the database was moved or deleted (SQLite would drop the journal);
    - a file that is not a database, or is damaged (``PRAGMA integrity_check``, or
      ``quick_check`` past 64 MB), or holds none of this server's tables, or only some of the
      tables every version had, or one of them without its columns;
    - a file that cannot be written (read-only, or on a read-only mount), or whose write lock
      cannot be taken (``BEGIN IMMEDIATE``: another process holds it).

    Warned about (a log line, and the server starts):

    - no database beside a host key older than a minute: a folder that has served before has
      lost its database (a new, empty one is made; restore a backup over it if it was lost);
    - less than 16 MB free on the file's disk.
    """
    if str(path) == ":memory:":
        return SqliteStore(path)
    path = Path(path)
    folder = path.parent
    if not folder.is_dir():
        raise StorageError(f"{folder} is not a folder: create it, or give --data a folder")
    if path.is_dir():
        raise StorageError(f"{path} is a folder, not a database: move it away")
    _check_folder(folder)
    with _opening(folder):
        return _open_checked(path, folder)


OPEN_WAIT_SECONDS = 60.0  # how long to wait for another process checking the same folder


@contextlib.contextmanager
def _opening(folder: Path) -> Iterator[None]:
    """One process at a time checks and opens the database of ``folder`` (an advisory lock on
    the folder itself: no file is made), so workers started at once on a new folder never
    take each other's half-made file (still 0 bytes) for a damaged one."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        deadline = time.monotonic() + OPEN_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StorageError(
                        f"{folder}: another process has been opening its database for "
                        f"{OPEN_WAIT_SECONDS:.0f} s: is a server stuck on this folder? "
                        f"Stop it first") from None
                time.sleep(0.02)
        yield
    finally:
        os.close(fd)  # the lock goes with it


def _open_checked(path: Path, folder: Path) -> SqliteStore:
    exists = path.exists()
    if exists:
        size = path.stat().st_size
        if size == 0:
            raise StorageError(f"{path} is 0 bytes but a database was expected: "
                               f"{_what_to_do(path)}")
        _check_writable(path)
    else:
        wal = path.with_name(path.name + "-wal")
        if wal.exists():
            raise StorageError(f"{path} does not exist but {wal.name} beside it does: the "
                               f"database was moved or deleted; put it back (or restore a "
                               f"backup), or move {wal.name} away to start afresh")
        key = folder / HOST_KEY
        with contextlib.suppress(OSError):
            if key.exists() and time.time() - key.stat().st_mtime > 60:
                log.warning("%s does not exist, though %s beside it is from an earlier "
                            "start: a new, empty database is made (accounts, tables and "
                            "results start afresh; stop the server and restore a backup "
                            "over it if the old one was lost)", path, key.name)
    with contextlib.suppress(OSError):
        free = shutil.disk_usage(folder).free
        if free < LOW_DISK_BYTES:
            log.warning("%s: only %d KB free on its disk: writes will fail when it is full",
                        path, free // 1024)
    try:
        db = sqlite3.connect(_uri(path, "rw" if exists else "rwc"), uri=True,
                             isolation_level=None, check_same_thread=False, timeout=1.0)
    except sqlite3.Error as exc:
        raise StorageError(f"{path} cannot be opened ({exc}): check its permissions") from None
    try:
        if exists:
            _check_contents(db, path)
        store = SqliteStore(path, db)
        db.execute("BEGIN IMMEDIATE")  # the write lock: this file can be written now
        db.execute("ROLLBACK")
    except StorageError:
        db.close()
        raise
    except sqlite3.Error as exc:
        db.close()
        raise StorageError(_explain(path, exc)) from None
    return store


def _explain(path: Path, exc: sqlite3.Error) -> str:
    text = " ".join(str(exc).split())[:160]
    if "not a database" in text:
        return f"{path} is not a database ({text}): {_what_to_do(path)}"
    if "locked" in text or "busy" in text:
        return (f"{path} is locked by another process ({text}): is another server running on "
                f"this folder? Stop it first")
    if "readonly" in text or "read-only" in text:
        return f"{path} cannot be written ({text}): make it and its folder writable"
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
        return f"{path} is damaged ({text}): {_what_to_do(path)}"
    return f"{path} cannot be used ({text}): check the file, its folder and the disk"


def _check_folder(folder: Path) -> None:
    try:
        fd, probe = tempfile.mkstemp(prefix=".mahjong-write-check-", dir=folder)
    except OSError as exc:
        raise StorageError(
            f"{folder} cannot be written ({exc.strerror or exc}): the database and its -wal "
            f"and -shm files live there; make the folder writable by this user, or give --data "
            f"another folder") from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def _check_writable(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDWR)  # opened for writing, nothing written
    except OSError as exc:
        raise StorageError(f"{path} cannot be written ({exc.strerror or exc}): make it "
                           f"writable by this user (or restore a writable copy)") from None
    os.close(fd)


def _check_contents(db: sqlite3.Connection, path: Path) -> None:
    """An existing file: a database, not damaged, with this server's tables."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0
    check = "integrity_check" if size <= INTEGRITY_FULL_BYTES else "quick_check"
    try:
        rows = db.execute(f"PRAGMA {check}(1)").fetchall()
    except sqlite3.DatabaseError as exc:
        raise StorageError(_explain(path, exc)) from None
    if rows != [("ok",)]:
        found = str(rows[0][0]) if rows and rows[0] else "no answer"
        found = " ".join(found.replace("*** in database main ***", "").split())  # one line
        raise StorageError(f"{path} is damaged ({found[:120]}): {_what_to_do(path)}")
    names = [str(r[0]) for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "LIMIT 1000")]
    ours = [n for n in names if n in EXPECTED_COLUMNS]
    if not ours:
        held = f" (it holds: {', '.join(names[:8])})" if names else " (it holds no tables)"
        raise StorageError(f"{path} is not a mahjong-ssh database{held}: is --data the right "
                           f"folder? Otherwise {_what_to_do(path)}")
    missing = [n for n in CORE_TABLES if n not in ours]
    if missing:
        raise StorageError(f"{path} lacks its {', '.join(missing)} table(s): "
                           f"{_what_to_do(path)}")
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > STORE_VERSION:
        return  # a newer server's file: refused as such when opened
    later = {(t, c) for v, added in ADDED_COLUMNS.items() if v > version
             for t, columns in added.items() for c in columns}  # a migration adds them
    for name in ours:
        have = {str(r[1]) for r in db.execute(f"PRAGMA table_info({name})")}
        lacking = [c for c in EXPECTED_COLUMNS[name] if c not in have
                   and (name, c) not in later]
        if lacking:
            raise StorageError(f"{path}: its {name} table lacks {', '.join(lacking)}: "
                               f"{_what_to_do(path)}")


# --- backup ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class BackupReport:
    path: Path
    size: int
    rows: tuple[tuple[str, int], ...]  # (table, rows) of this server's tables

    def describe(self) -> str:
        counts = ", ".join(f"{n} {name}" for name, n in self.rows)
        return f"wrote {self.path}: {self.size} bytes, checked ({counts})"


def backup(source: Path | str, dest: Path | str, force: bool = False) -> BackupReport:
    """Copy the database ``source`` into ``dest`` with SQLite's online backup API: safe while
    the server runs (WAL: it reads a snapshot, the server's writes go on). ``dest`` is one
    self-contained file (no ``-wal``), written beside it under a temporary name, checked, then
    moved in place; an existing ``dest`` is refused unless ``force``. :class:`StorageError`
    with one line when it cannot be done."""
    if str(source).startswith(("postgresql://", "postgres://")):
        raise StorageError("the server's database is PostgreSQL: back it up with pg_dump "
                           "(pg_dump -Fc -f FILE URL; pg_restore to restore it)")
    src, out = Path(source), Path(dest)
    if not src.is_file():
        raise StorageError(f"{src} does not exist: is --data the server's folder?")
    if src.stat().st_size == 0:
        raise StorageError(f"{src} is 0 bytes: there is nothing to back up")
    if out.is_dir():
        raise StorageError(f"{out} is a folder: give the backup file's name")
    if out.exists() and not force:
        raise StorageError(f"{out} exists: choose another name, or pass --force to replace it")
    if not out.parent.is_dir():
        raise StorageError(f"{out.parent} is not a folder")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".partial",
                                        dir=out.parent)
    except OSError as exc:
        raise StorageError(f"{out.parent} cannot be written ({exc.strerror or exc})") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        report = _copy(src, tmp, out)
        if force:
            os.replace(tmp, out)
        else:
            try:
                os.link(tmp, out)  # never over a file that appeared meanwhile
            except FileExistsError:
                raise StorageError(f"{out} exists: choose another name, or pass --force to "
                                   f"replace it") from None
            except OSError:  # no hard links here: a plain rename, checked just before
                if out.exists():
                    raise StorageError(f"{out} exists: choose another name, or pass --force"
                                       f" to replace it") from None
                os.replace(tmp, out)
        return report
    except OSError as exc:
        raise StorageError(f"{out}: cannot write the backup ({exc.strerror or exc})") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _copy(src: Path, tmp: Path, out: Path) -> BackupReport:
    try:
        source = sqlite3.connect(_uri(src, "ro"), uri=True, timeout=10.0)
    except sqlite3.Error as exc:
        raise StorageError(f"{src} cannot be opened ({exc})") from None
    try:
        target = sqlite3.connect(str(tmp), isolation_level=None)
        try:
            source.backup(target)
            target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            rows = target.execute("PRAGMA integrity_check(1)").fetchall()
            if rows != [("ok",)]:
                raise StorageError(f"{src} is damaged ({rows[0][0] if rows else '?'}): the "
                                   f"backup was not written")
            names = {str(r[0]) for r in target.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            counts = tuple((name, int(target.execute(f"SELECT COUNT(*) FROM {name}")
                                      .fetchone()[0]))
                           for name in EXPECTED_COLUMNS if name in names)
        finally:
            target.close()
    except sqlite3.Error as exc:
        raise StorageError(_explain(src, exc)) from None
    finally:
        source.close()
    return BackupReport(out, tmp.stat().st_size, counts)

