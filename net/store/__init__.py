"""Persistence behind one interface (:class:`Store`): SQLite for one machine (the default, a
file in the data folder, also shared by several worker processes on that machine,
:mod:`net.store.sqlite`) and PostgreSQL for several (:mod:`net.store.postgres`).

What is stored: accounts (a public key's SHA-256 fingerprint or an anonymous nickname — no
secret), tables (ruleset, options, game seed, who sits where, who created it, the claim that
owns it), every applied action of the current game (one small row per action, so a server
killed mid-hand resumes at its last applied action), every finished hand's game record (the
engine's JSON-lines format) and each finished game's results, from which the leaderboard is
computed.

Fencing: a table has one owner. A worker claims it with a token greater than the stored one
(:meth:`Store.claim_table`); from then on each of its writes for that table happens only
where the stored token is still its own, in the same statement or transaction, so a worker
that lost its lease (paused, partitioned) cannot persist anything. A table never claimed (the
one-process server claims none) writes as it always did.

Faults are loud, and nothing is overwritten to get past one: a database that must not be
used stops the server at start (:func:`open_store` raises :class:`StorageError` with one line
saying what to do); a table whose saved game cannot be read is kept out of play, untouched;
a write that fails once the server runs is one ERROR (then a count at most once a minute)
and :attr:`Store.problem` tells the players until writes work again; the table whose write
failed pauses, its writes held in order and written again first (:meth:`Store.retry`), so what
is stored of it is always a prefix of what it did and a restart resumes it there.
"""

from __future__ import annotations

from pathlib import Path

from net.store.base import FAULT_LOG_SECONDS, Store
from net.store.model import (
    MAX_ACTION_JSON,
    MAX_NAME,
    MAX_RECORD,
    MAX_SECRET,
    MAX_SETTINGS_JSON,
    MAX_TABLE_JSON,
    MAX_TABLE_ROWS,
    TABLE_STATE_VERSION,
    Account,
    ActionRow,
    CorruptRow,
    KeylessRow,
    LeaderRow,
    SavedHandStakes,
    SavedSeat,
    SavedStake,
    SavedTable,
    StorageError,
    TableRow,
)
from net.store.schema import CORE_TABLES, EXPECTED_COLUMNS
from net.store.sqlite import MIGRATIONS, SCHEMA, STORE_VERSION, SqliteStore
from net.store.sqlite_file import HOST_KEY, LOW_DISK_BYTES, BackupReport, backup, open_sqlite

__all__ = [
    "CORE_TABLES",
    "EXPECTED_COLUMNS",
    "FAULT_LOG_SECONDS",
    "HOST_KEY",
    "LOW_DISK_BYTES",
    "MAX_ACTION_JSON",
    "MAX_NAME",
    "MAX_RECORD",
    "MAX_SECRET",
    "MAX_SETTINGS_JSON",
    "MAX_TABLE_JSON",
    "MAX_TABLE_ROWS",
    "MIGRATIONS",
    "SCHEMA",
    "STORE_VERSION",
    "TABLE_STATE_VERSION",
    "Account",
    "ActionRow",
    "BackupReport",
    "CorruptRow",
    "KeylessRow",
    "LeaderRow",
    "SavedHandStakes",
    "SavedSeat",
    "SavedStake",
    "SavedTable",
    "SqliteStore",
    "StorageError",
    "Store",
    "TableRow",
    "backup",
    "is_postgres",
    "open_sqlite",
    "open_store",
]


def is_postgres(target: Path | str) -> bool:
    """``target`` names a PostgreSQL database (a ``postgresql://`` or ``postgres://`` URL)."""
    return str(target).startswith(("postgresql://", "postgres://"))


def open_store(target: Path | str) -> Store:
    """The server's database, checked before anything is served: a path is a SQLite file
    (:func:`~net.store.sqlite_file.open_sqlite` says what is checked), a ``postgresql://``
    URL a PostgreSQL database (:func:`~net.store.postgres.open_postgres`). :class:`StorageError`
    with one line saying what to do when it must not be used."""
    if is_postgres(target):
        from net.store.postgres import open_postgres  # psycopg only for who uses it

        return open_postgres(str(target))
    return open_sqlite(target)
