"""The SQLite file around the store (:mod:`net.store.sqlite`): checked before the server uses
it (:func:`open_sqlite`), and copied while it runs (:func:`backup`).

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
import logging
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from net.store.model import StorageError
from net.store.schema import CORE_TABLES, EXPECTED_COLUMNS
from net.store.sqlite import ADDED_COLUMNS, STORE_VERSION, SqliteStore

log = logging.getLogger("net.store")

LOW_DISK_BYTES = 16 * 1024 * 1024  # free space under this at start: a warning
HOST_KEY = "ssh_host_ed25519_key"
INTEGRITY_FULL_BYTES = 64 * 1024 * 1024  # integrity_check up to this size, quick_check past it


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

