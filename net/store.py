"""Persistence: one SQLite file in the data folder (stdlib ``sqlite3``, used in ``net`` only).

What is stored: accounts (a public key's SHA-256 fingerprint or an anonymous nickname — no
secret), tables (ruleset, options, game seed, who sits where, who created it), every applied
action of the current game (one small row per action, so a server killed mid-hand resumes at
its last applied action), every finished hand's game record (the engine's JSON-lines format)
and each finished game's results, from which the leaderboard is computed.

Writes are single small statements in WAL mode with ``synchronous=NORMAL``: well under a
millisecond, so they run on the event loop. A committed row survives the process being
killed (not a power cut).

Versions: the file's ``PRAGMA user_version`` is :data:`STORE_VERSION`; opening an older file
runs the :data:`MIGRATIONS` from its version in one transaction (0: files from before the
version was kept), and a file from a newer server is refused. A table's saved state is a
:class:`SavedTable` with its own ``schema_version``, checked field by field when read.

Faults are loud, and nothing is overwritten to get past one:

- At start, :func:`open_store` checks the file (see there) and raises :class:`StorageError`
  with one line naming the file and what to do; the server does not start.
- A table whose saved game cannot be read is reported by :meth:`Store.load_tables` (its
  ``fault``) or fails to replay; the registry keeps it out of play, untouched in the file.
- What reading a hostile or damaged file can cost is bounded: a value longer than it can
  legitimately be (``MAX_*`` below) is not read at all and counts as damage.
- A write that fails once the server runs (disk full, database locked, the file made
  read-only) is logged as an ERROR naming the file — once, then a count at most once a
  minute — and play goes on from memory; :attr:`Store.problem` says so to the players (the
  lobby shows it) until a write succeeds again.

Backups: ``mahjong-ssh backup [--data DIR] FILE`` (:func:`backup`) copies the database with
SQLite's online backup API while the server runs (WAL mode: the server's writes do not wait
for it) into a single self-contained file, checks the copy and prints what it holds; it never
overwrites FILE unless ``--force``. To restore: stop the server, copy the backup over
``DATA/mahjong.sqlite3``, remove ``mahjong.sqlite3-wal`` and ``mahjong.sqlite3-shm`` beside
it (they belong to the old file), and start the server.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

log = logging.getLogger("net.store")

# What one value read from the file may be at most; a longer one is damage (a table's JSON is
# well under 4 KB, an action under 100 bytes, a hand's record under 100 KB).
MAX_TABLE_JSON = 256 * 1024  # a table's options or state
MAX_ACTION_JSON = 4 * 1024
MAX_RECORD = 4 * 1024 * 1024  # one hand's game record
MAX_SETTINGS_JSON = 16 * 1024
MAX_NAME = 200  # a table's name or an account's nickname, in characters
MAX_SECRET = 512  # a keyless account's passphrase hash (about 150 characters)
MAX_TABLE_ROWS = 10_000  # tables read at start (the server keeps Limits.tables_total open)
FAULT_LOG_SECONDS = 60.0  # while writes fail: one log line this often, with a count
LOW_DISK_BYTES = 16 * 1024 * 1024  # free space under this at start: a warning
HOST_KEY = "ssh_host_ed25519_key"


SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    id INTEGER PRIMARY KEY,
    key_fingerprint TEXT UNIQUE,          -- SHA256:... of the public key; NULL: anonymous
    nickname TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    last_seen REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tables (
    name TEXT PRIMARY KEY,
    rules TEXT NOT NULL,
    options TEXT NOT NULL,                -- JSON object
    state TEXT NOT NULL,                  -- JSON: seats, spectators' stakes, game seed, ...
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS actions (
    table_name TEXT NOT NULL,
    game_no INTEGER NOT NULL,
    hand_no INTEGER NOT NULL,
    i INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action TEXT NOT NULL,                 -- JSON (engine Action.to_json)
    PRIMARY KEY (table_name, game_no, hand_no, i)
);
CREATE TABLE IF NOT EXISTS hands (
    table_name TEXT NOT NULL,
    game_no INTEGER NOT NULL,
    hand_no INTEGER NOT NULL,
    record TEXT NOT NULL,                 -- the engine's JSON-lines game record of the hand
    finished REAL NOT NULL,
    PRIMARY KEY (table_name, game_no, hand_no)
);
CREATE TABLE IF NOT EXISTS results (
    table_name TEXT NOT NULL,
    game_no INTEGER NOT NULL,
    account_id INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    score INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    hands INTEGER NOT NULL,
    rules TEXT NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (table_name, game_no, seat)
);
CREATE TABLE IF NOT EXISTS settings (     -- what a key's owner chose in the settings screen
    account_id INTEGER PRIMARY KEY,
    data TEXT NOT NULL,                   -- JSON object: lang, tiles, theme, hints
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS stake_results (  -- Yichun 压鸽子: a spectator's result in a game
    table_name TEXT NOT NULL,
    game_no INTEGER NOT NULL,
    account_id INTEGER NOT NULL,
    score INTEGER NOT NULL,
    hands INTEGER NOT NULL,               -- hands in which the spectator's stake applied
    rules TEXT NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (table_name, game_no, account_id)
);
CREATE TABLE IF NOT EXISTS account_secrets (  -- keyless accounts (net/accounts.py)
    account_id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,                   -- 'passphrase' or 'guest'
    hash TEXT,                            -- scrypt$N$r$p$salt$key (hex); NULL for a guest
    created REAL NOT NULL
);
"""


def _schema_columns() -> dict[str, tuple[str, ...]]:
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {n: tuple(r[1] for r in db.execute(f"PRAGMA table_info({n})")) for n in names}
    finally:
        db.close()


EXPECTED_COLUMNS = _schema_columns()  # table -> its columns, as SCHEMA makes them
CORE_TABLES = ("accounts", "tables", "actions", "hands", "results")  # in every version's file
INTEGRITY_FULL_BYTES = 64 * 1024 * 1024  # integrity_check up to this size, quick_check past it


@dataclass(frozen=True)
class Account:
    id: int
    nickname: str
    key_fingerprint: str | None = None
    guest: bool = False  # keyless, for one visit (net/accounts.py): nothing is kept for it

    @property
    def anonymous(self) -> bool:
        return self.key_fingerprint is None


@dataclass(frozen=True)
class KeylessRow:
    """The account that holds a nickname, as keyless logins see it."""

    account_id: int
    has_key: bool  # a key's account: a keyless login never enters it
    kind: str | None  # its secret: 'passphrase', 'guest', or None (from before passphrases)
    stored: str | None  # the passphrase's hash


def _seated(state: str) -> list[int]:
    """The account ids seated in a table's saved state (a corrupt state: none)."""
    try:
        data = json.loads(state)
        seats = data.get("seats", []) if isinstance(data, dict) else []
        return [s["account"] for s in seats
                if isinstance(s, dict) and isinstance(s.get("account"), int)]
    except (ValueError, TypeError, AttributeError, RecursionError):
        return []


TABLE_STATE_VERSION = 1  # SavedTable.schema_version as written now (0: before it was named)


def _field(d: dict[str, Any], key: str, what: str) -> Any:
    if key not in d:
        raise CorruptRow(f"{what} lacks {key!r}")
    return d[key]


def _text(value: Any, what: str, limit: int = MAX_NAME) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise CorruptRow(f"{what} is {value!r:.40}, not a name")
    return value


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise CorruptRow(f"{what} is {value!r:.40}, not true or false")
    return value


def _seat_no(value: Any, what: str) -> int:
    seat = _whole(value, what)
    if not 0 <= seat <= 3:
        raise CorruptRow(f"{what} is {seat}, not a seat (0–3)")
    return seat


def _list(value: Any, what: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise CorruptRow(f"{what} is {value!r:.40}, not a list")
    if length is not None and len(value) != length:
        raise CorruptRow(f"{what} has {len(value)} entries, not {length}")
    return value


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise CorruptRow(f"{what} is {value!r:.40}, not an object")
    return value


@dataclass(frozen=True)
class SavedSeat:
    """Who sits in a seat of a saved table."""

    account: int
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"account": self.account, "name": self.name}

    @classmethod
    def from_json(cls, raw: Any, what: str) -> SavedSeat:
        d = _object(raw, what)
        return cls(_whole(_field(d, "account", what), f"{what}.account"),
                   _text(_field(d, "name", what), f"{what}.name"))


@dataclass(frozen=True)
class SavedStake:
    """压鸽子: a spectator's account, its engine name and the seat it backs."""

    account: int
    name: str
    backs: int

    def to_json(self) -> dict[str, Any]:
        return {"account": self.account, "name": self.name, "backs": self.backs}

    @classmethod
    def from_json(cls, raw: Any, what: str) -> SavedStake:
        d = _object(raw, what)
        return cls(_whole(_field(d, "account", what), f"{what}.account"),
                   _text(_field(d, "name", what), f"{what}.name"),
                   _seat_no(_field(d, "backs", what), f"{what}.backs"))


@dataclass(frozen=True)
class SavedHandStakes:
    """The stakes a started hand was dealt with, and the seats that allowed them."""

    stakes: tuple[SavedStake, ...] = ()
    allow: tuple[int, ...] = (0, 1, 2, 3)

    def to_json(self) -> dict[str, Any]:
        return {"stakes": [s.to_json() for s in self.stakes], "allow": list(self.allow)}

    @classmethod
    def from_json(cls, raw: Any, what: str) -> SavedHandStakes:
        d = _object(raw, what)
        stakes = _list(d.get("stakes", []), f"{what}.stakes")
        allow = _list(d.get("allow", [0, 1, 2, 3]), f"{what}.allow")
        return cls(tuple(SavedStake.from_json(x, f"{what}.stakes[{i}]")
                         for i, x in enumerate(stakes)),
                   tuple(_seat_no(x, f"{what}.allow[{i}]") for i, x in enumerate(allow)))


@dataclass(frozen=True)
class SavedTable:
    """A table's saved state, enough with its stored actions to resume it after a restart.
    ``schema_version`` says which layout the JSON had; :meth:`from_json` reads every earlier
    one and checks each field, so a damaged row is a :class:`CorruptRow`, never a crash in
    the middle of a restore."""

    seats: tuple[SavedSeat | None, ...] = (None, None, None, None)
    game_seed: int | None = None
    game_no: int = 0
    hands_started: int = 0
    allow: tuple[bool, ...] = (True, True, True, True)
    stakes: tuple[SavedStake, ...] = ()
    hand_stakes: tuple[tuple[int, SavedHandStakes], ...] = ()  # (hand number, its stakes)
    bot_levels: tuple[str, ...] | None = None  # E S W N, or None: the server's default
    creator: int | None = None
    schema_version: int = TABLE_STATE_VERSION

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": [s.to_json() if s is not None else None for s in self.seats],
            "game_seed": self.game_seed,
            "game_no": self.game_no,
            "hands_started": self.hands_started,
            "allow": list(self.allow),
            "stakes": [s.to_json() for s in self.stakes],
            "hand_stakes": {str(k): v.to_json() for k, v in self.hand_stakes},
            "bot_levels": list(self.bot_levels) if self.bot_levels is not None else None,
            "creator": self.creator,
            "schema_version": self.schema_version,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> SavedTable:
        version = raw.get("schema_version", 0)
        if type(version) is not int or not 0 <= version <= TABLE_STATE_VERSION:
            raise CorruptRow(f"its state has schema_version {version!r:.20} (this server "
                             f"reads 0 to {TABLE_STATE_VERSION})")
        d = dict(raw)
        for step in _STATE_MIGRATIONS[version:]:
            d = step(d)
        what = "its state"
        seats = _list(_field(d, "seats", what), f"{what}.seats", 4)
        seed = _field(d, "game_seed", what)
        levels = _field(d, "bot_levels", what)
        creator = _field(d, "creator", what)
        hand_stakes = _object(_field(d, "hand_stakes", what), f"{what}.hand_stakes")
        hands: list[tuple[int, SavedHandStakes]] = []
        for k, v in hand_stakes.items():
            if not (k.isascii() and k.isdigit()) or len(k) > 9:
                raise CorruptRow(f"{what}.hand_stakes has the key {k!r:.20}, not a hand number")
            hands.append((int(k), SavedHandStakes.from_json(v, f"{what}.hand_stakes.{k}")))
        return cls(
            seats=tuple(None if s is None else SavedSeat.from_json(s, f"{what}.seats[{i}]")
                        for i, s in enumerate(seats)),
            game_seed=None if seed is None else _whole(seed, f"{what}.game_seed"),
            game_no=_whole(_field(d, "game_no", what), f"{what}.game_no"),
            hands_started=_whole(_field(d, "hands_started", what), f"{what}.hands_started"),
            allow=tuple(_flag(x, f"{what}.allow[{i}]") for i, x in enumerate(
                _list(_field(d, "allow", what), f"{what}.allow", 4))),
            stakes=tuple(SavedStake.from_json(x, f"{what}.stakes[{i}]") for i, x in enumerate(
                _list(_field(d, "stakes", what), f"{what}.stakes"))),
            hand_stakes=tuple(hands),
            bot_levels=None if levels is None else tuple(
                _text(x, f"{what}.bot_levels[{i}]", 20)
                for i, x in enumerate(_list(levels, f"{what}.bot_levels", 4))),
            creator=None if creator is None else _whole(creator, f"{what}.creator"),
        )


def _state_v0_to_v1(d: dict[str, Any]) -> dict[str, Any]:
    """Version 0 (before the state named its version) left out what a table did not have
    yet: fill in what the restore assumed for each missing field."""
    defaults: dict[str, Any] = {
        "seats": [None] * 4, "game_seed": None, "game_no": 0, "hands_started": 0,
        "allow": [True] * 4, "stakes": [], "hand_stakes": {}, "bot_levels": None,
        "creator": None,
    }
    out = {**defaults, **d, "schema_version": 1}
    if isinstance(out["seats"], list):  # restore read the first four; each falsy one empty
        out["seats"] = [s or None for s in out["seats"][:4]]
        out["seats"] += [None] * (4 - len(out["seats"]))
    if isinstance(out["allow"], list):  # zip() read at most four, each as a truth value
        out["allow"] = [bool(x) for x in out["allow"][:4]] + [True] * (4 - len(out["allow"]))
    if not out["bot_levels"]:
        out["bot_levels"] = None
    return out


# _STATE_MIGRATIONS[v] turns a state of schema_version v into one of v + 1
_STATE_MIGRATIONS: tuple[Callable[[dict[str, Any]], dict[str, Any]], ...] = (_state_v0_to_v1,)
assert len(_STATE_MIGRATIONS) == TABLE_STATE_VERSION


@dataclass
class TableRow:
    name: str
    rules: str
    options: dict[str, Any]
    state: SavedTable = field(default_factory=SavedTable)
    fault: str | None = None  # why the stored row cannot be read (then options are {})


@dataclass(frozen=True)
class ActionRow:
    game_no: int
    hand_no: int
    i: int
    seat: int
    action: dict[str, Any]


@dataclass(frozen=True)
class LeaderRow:
    nickname: str
    games: int
    hands: int
    wins: int
    score: int


class StorageError(Exception):
    """A database the server must not run on: the message names the file and what to do."""


class CorruptRow(ValueError):
    """A stored row that cannot be read: too long, not JSON, or of the wrong kind."""


def _json_object(raw: Any, what: str, limit: int) -> dict[str, Any]:
    """A stored JSON object; :class:`CorruptRow` saying what is wrong with it. ``raw`` is
    ``None`` when SQL left out a value longer than ``limit``."""
    if raw is None:
        raise CorruptRow(f"{what} is longer than {limit} bytes")
    if not isinstance(raw, str | bytes):
        raise CorruptRow(f"{what} is a {type(raw).__name__}, not JSON text")
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
        raise CorruptRow(f"{what} is not JSON ({str(exc)[:80]})") from None
    if not isinstance(value, dict):
        raise CorruptRow(f"{what} is not a JSON object")
    return value


def _whole(value: Any, what: str) -> int:
    if type(value) is not int:
        raise CorruptRow(f"{what} is {value!r:.40}, not a whole number")
    return value


def _migrate_1_table_states(db: sqlite3.Connection) -> None:
    """Every readable table state in the typed layout with its ``schema_version``; a state
    that cannot be read stays as it is (its table is quarantined at load, not rewritten)."""
    rows = db.execute("SELECT rowid, state FROM tables WHERE length(CAST(state AS BLOB)) <= ?",
                      (MAX_TABLE_JSON,)).fetchall()
    for rowid, state in rows:
        try:
            saved = SavedTable.from_json(_json_object(state, "its state", MAX_TABLE_JSON))
        except CorruptRow:
            continue
        db.execute("UPDATE tables SET state = ? WHERE rowid = ?",
                   (json.dumps(saved.to_json()), rowid))


# MIGRATIONS[v] brings a file of ``PRAGMA user_version`` v to v + 1 (0: the files written
# before the store had a version); new tables need none (SCHEMA creates what is missing)
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_migrate_1_table_states,)
STORE_VERSION = len(MIGRATIONS)


class Store:
    """The server's SQLite database (use :func:`open_store` to have it checked first)."""

    def __init__(self, path: Path | str, db: sqlite3.Connection | None = None) -> None:
        self.path = Path(path) if str(path) != ":memory:" else path
        if db is None:
            db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                                 timeout=1.0)
        self.db = db
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self.version = self._migrate()
        # a write that failed and what follows (see :meth:`_failed`)
        self.problem: str | None = None  # for the players, while writes fail
        self.failures = 0  # failed writes (and reads) since the process started
        self._unlogged = 0  # failures since the last log line
        self._logged_at = 0.0
        self._temporary: dict[str, Account] = {}  # accounts made while the file failed

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
    def _failed(self, exc: sqlite3.Error, doing: str) -> None:
        """A statement failed at run time: an ERROR naming the file (the first, then at most
        one line a minute with the count), and a problem the lobby shows; play goes on."""
        self.failures += 1
        self._unlogged += 1
        now = time.monotonic()
        first = self.problem is None
        self.problem = ("the server cannot save right now (disk full, or its database locked"
                        " or read-only): games go on, but what happens now is not saved "
                        "服务器暂时无法存档：对局继续，但不会保存")
        if first or now - self._logged_at >= FAULT_LOG_SECONDS:
            log.error("%s: cannot %s (%s): play goes on from memory, unsaved "
                      "(%d failed statements since the last line, %d in all)",
                      self.path, doing, exc, self._unlogged, self.failures)
            self._logged_at = now
            self._unlogged = 0
        if first:
            # do not hold the event loop for a lock that is held for a while: fail fast
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("PRAGMA busy_timeout = 0")

    def _worked(self) -> None:
        if self.problem is None:
            return
        self.problem = None
        log.warning("%s: writes work again (%d statements had failed, %d since the last "
                    "line); what happened meanwhile was not saved", self.path, self.failures,
                    self._unlogged)
        self._unlogged = 0
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("PRAGMA busy_timeout = 1000")

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

    def _temporary_account(self, key: str, nickname: str, fingerprint: str | None) -> Account:
        """An account kept in memory while the file cannot give one: the player plays; his
        results are written under an id no stored account has (the leaderboard skips it)."""
        account = self._temporary.get(key)
        if account is None:
            if len(self._temporary) >= 10_000:
                self._temporary.pop(next(iter(self._temporary)))
            account = Account(-1 - self.failures, nickname, fingerprint)
            self._temporary[key] = account
        return account

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
        name, n = wanted, 1
        while True:
            row = self.db.execute("SELECT id FROM accounts WHERE nickname = ?", (name,)).fetchone()
            if row is None or row[0] == account_id:
                return name
            n += 1
            name = f"{wanted[:13]}-{n}"

    def account_for_key(self, fingerprint: str, wanted: str) -> Account:
        """The account of a public key, created on first login (nickname made unique)."""
        try:
            return self._account_for_key(fingerprint, wanted)
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
        cur = self.db.execute(
            "INSERT INTO accounts (key_fingerprint, nickname, created, last_seen) "
            "VALUES (?, ?, ?, ?)", (fingerprint, name, now, now))
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
            return _json_object(row[0], "settings", MAX_SETTINGS_JSON)
        except CorruptRow:
            return None  # the defaults; the next save replaces the row

    def save_settings(self, account_id: int, data: dict[str, Any]) -> None:
        self._write(
            "save settings",
            "INSERT INTO settings (account_id, data, updated) VALUES (?, ?, ?) "
            "ON CONFLICT(account_id) DO UPDATE SET data = excluded.data, "
            "updated = excluded.updated",
            (account_id, json.dumps(data, ensure_ascii=False), time.time()))

    # --- keyless accounts (net/accounts.py decides; these read and write) --------------------
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
        from before passphrases). None when the name or the account was taken meanwhile."""
        now = time.time()
        try:
            if account_id is None:
                account_id = self._insert_keyless(nickname, now)
                if account_id is None:
                    return None
            cur = self.db.execute(
                "INSERT OR IGNORE INTO account_secrets (account_id, kind, hash, created) "
                "VALUES (?, 'passphrase', ?, ?)", (account_id, stored, now))
        except sqlite3.Error as exc:
            self._failed(exc, "write an account")
            return self._temporary_account(f"name {nickname}", nickname, None)
        self._worked()
        return Account(account_id, nickname, None) if cur.rowcount == 1 else None

    def guest_account(self, wanted: str) -> Account:
        """A fresh guest account (no later login enters it), under ``wanted`` if free, else a
        numbered variant."""
        now = time.time()
        try:
            while True:
                name = self._unique_nickname(wanted)
                account_id = self._insert_keyless(name, now)
                if account_id is not None:
                    break
            self.db.execute("INSERT INTO account_secrets (account_id, kind, hash, created) "
                            "VALUES (?, 'guest', NULL, ?)", (account_id, now))
        except sqlite3.Error as exc:
            self._failed(exc, "write an account")
            return Account(-1 - self.failures, wanted, None, guest=True)
        self._worked()
        return Account(account_id, name, None, guest=True)

    def _insert_keyless(self, nickname: str, now: float) -> int | None:
        try:
            cur = self.db.execute(
                "INSERT INTO accounts (key_fingerprint, nickname, created, last_seen) "
                "VALUES (NULL, ?, ?, ?)", (nickname, now, now))
        except sqlite3.IntegrityError:  # the name was taken meanwhile
            return None
        return cur.lastrowid

    def forget_guests(self, unseen_since: float) -> int:
        """Delete the guest accounts last seen before ``unseen_since`` (a time.time()) that
        left nothing: no result, no stake result, no seat at a stored table."""
        try:
            seated = {i for (state,) in self.db.execute(
                "SELECT state FROM tables WHERE length(state) <= ?", (MAX_TABLE_JSON,))
                for i in _seated(state)}
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

    # --- tables ---------------------------------------------------------------------------
    def save_table(self, row: TableRow) -> None:
        now = time.time()
        self._write(
            f"save table {row.name}",
            "INSERT INTO tables (name, rules, options, state, created, updated) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
            "rules = excluded.rules, options = excluded.options, state = excluded.state, "
            "updated = excluded.updated",
            (row.name, row.rules, json.dumps(row.options), json.dumps(row.state.to_json()), now,
             now))

    def delete_table(self, name: str) -> None:
        if self._write(f"delete table {name}", "DELETE FROM tables WHERE name = ?", (name,)):
            self._write(f"delete table {name}", "DELETE FROM actions WHERE table_name = ?",
                        (name,))

    def load_tables(self) -> list[TableRow]:
        """The stored tables, oldest first (at most ``MAX_TABLE_ROWS``). A row that cannot
        be read comes with its ``fault`` (and empty options and state), never skipped: the
        registry keeps it out of play and nothing overwrites it."""
        rows = self.db.execute(
            "SELECT substr(name, 1, ?), typeof(name), length(name), substr(rules, 1, ?), "
            "CASE WHEN length(CAST(options AS BLOB)) <= ? THEN options END, "
            "CASE WHEN length(CAST(state AS BLOB)) <= ? THEN state END "
            "FROM tables ORDER BY created LIMIT ?",
            (MAX_NAME, MAX_NAME, MAX_TABLE_JSON, MAX_TABLE_JSON, MAX_TABLE_ROWS + 1)).fetchall()
        if len(rows) > MAX_TABLE_ROWS:
            log.error("%s: more than %d tables stored: the newest are not read (a damaged "
                      "file?)", self.path, MAX_TABLE_ROWS)
            rows = rows[:MAX_TABLE_ROWS]
        out = []
        for name, kind, length, rules, options, state in rows:
            shown = str(name)
            rules = str(rules)
            try:
                if kind != "text" or length > MAX_NAME:
                    raise CorruptRow(f"its name is a {kind} of {length} characters")
                out.append(TableRow(shown, rules,
                                    _json_object(options, "its options", MAX_TABLE_JSON),
                                    SavedTable.from_json(
                                        _json_object(state, "its state", MAX_TABLE_JSON))))
            except CorruptRow as exc:
                out.append(TableRow(shown, rules, {}, fault=str(exc)))
        return out

    def add_action(self, table: str, row: ActionRow) -> None:
        self._write(
            f"save an action of table {table}",
            "INSERT OR REPLACE INTO actions (table_name, game_no, hand_no, i, seat, action) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (table, row.game_no, row.hand_no, row.i, row.seat, json.dumps(row.action)))

    def iter_actions(self, table: str, game_no: int) -> Iterator[ActionRow]:
        """A game's stored actions in order, one row at a time; :class:`CorruptRow` at the
        first that cannot be read."""
        cur = self.db.execute(
            "SELECT hand_no, i, seat, CASE WHEN length(CAST(action AS BLOB)) <= ? THEN action "
            "END FROM actions WHERE table_name = ? AND game_no = ? ORDER BY hand_no, i",
            (MAX_ACTION_JSON, table, game_no))
        for hand_no, i, seat, action in cur:
            what = f"action {i!r:.20} of hand {hand_no!r:.20}"
            yield ActionRow(game_no, _whole(hand_no, f"{what}: its hand"),
                            _whole(i, f"{what}: its index"), _whole(seat, f"{what}: its seat"),
                            _json_object(action, what, MAX_ACTION_JSON))

    def actions(self, table: str, game_no: int) -> list[ActionRow]:
        return list(self.iter_actions(table, game_no))

    def drop_actions(self, table: str, before_game: int) -> None:
        self._write(f"drop old actions of table {table}",
                    "DELETE FROM actions WHERE table_name = ? AND game_no < ?",
                    (table, before_game))

    def finish_hand(self, table: str, game_no: int, hand_no: int, record: str) -> None:
        self._write(
            f"save a hand of table {table}",
            "INSERT OR REPLACE INTO hands (table_name, game_no, hand_no, record, finished) "
            "VALUES (?, ?, ?, ?, ?)", (table, game_no, hand_no, record, time.time()))

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
                    rows: list[tuple[int, int, int, int, int]]) -> None:
        """``rows``: (account_id, seat, score, wins, hands) for each human seat."""
        now = time.time()
        self._write(
            f"save the results of table {table}",
            "INSERT OR REPLACE INTO results (table_name, game_no, account_id, seat, score, wins, "
            "hands, rules, finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(table, game_no, a, s, sc, w, h, rules, now) for a, s, sc, w, h in rows], True)

    def finish_stakes(self, table: str, game_no: int, rules: str,
                      rows: list[tuple[int, int, int]]) -> None:
        """``rows``: (account_id, score, hands) for each spectator who staked (压鸽子)."""
        now = time.time()
        self._write(
            f"save the stakes of table {table}",
            "INSERT OR REPLACE INTO stake_results (table_name, game_no, account_id, score, "
            "hands, rules, finished) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(table, game_no, a, sc, h, rules, now) for a, sc, h in rows], True)

    def leaderboard(self, limit: int = 20, rules: str | None = None) -> list[LeaderRow]:
        """Seated results and spectators' stake results (压鸽子) together; a game counts
        once per account and role. ``rules``: that ruleset's games only (their points are
        on different scales)."""
        where, params = ("WHERE rules = ?", (rules,)) if rules else ("", ())
        try:
            rows = self.db.execute(
                "SELECT substr(a.nickname, 1, ?), COUNT(*), SUM(r.hands), SUM(r.wins), "
                "SUM(r.score) "
                f"FROM (SELECT account_id, hands, wins, score FROM results {where} "
                f"      UNION ALL SELECT account_id, hands, 0, score FROM stake_results {where}"
                ") r JOIN accounts a ON a.id = r.account_id "
                "GROUP BY r.account_id ORDER BY SUM(r.score) DESC, SUM(r.wins) DESC, a.nickname "
                "LIMIT ?", (MAX_NAME, *params, *params, limit)).fetchall()
        except sqlite3.Error as exc:
            self._failed(exc, "read the leaderboard")
            return []
        return [LeaderRow(str(n), g, _number(h), _number(w), _number(s))
                for n, g, h, w, s in rows]

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


def _number(value: Any) -> int:
    """A sum SQL computed (NULL for none; a damaged row may make it text or a float)."""
    if isinstance(value, int):
        return value
    try:
        return int(float(value or 0))
    except (TypeError, ValueError, OverflowError):
        return 0


# --- the checks at start ---------------------------------------------------------------------

def _what_to_do(path: Path) -> str:
    return (f"restore it from a backup (stop the server, copy the backup over {path.name}, "
            f"remove {path.name}-wal and {path.name}-shm) or move it away to start afresh")


def _uri(path: Path, mode: str) -> str:
    return f"file:{quote(str(path.resolve()))}?mode={mode}"


def open_store(path: Path | str) -> Store:
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
        return Store(path)
    path = Path(path)
    folder = path.parent
    if not folder.is_dir():
        raise StorageError(f"{folder} is not a folder: create it, or give --data a folder")
    if path.is_dir():
        raise StorageError(f"{path} is a folder, not a database: move it away")
    _check_folder(folder)
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
        store = Store(path, db)
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
    for name in ours:
        have = {str(r[1]) for r in db.execute(f"PRAGMA table_info({name})")}
        lacking = [c for c in EXPECTED_COLUMNS[name] if c not in have]
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
