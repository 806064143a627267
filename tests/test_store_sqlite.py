"""The SQLite store shared by worker processes on one machine, and what its schema version 2
(the owner token of fencing) changes in a file of an earlier version."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from net.store import (
    STORE_VERSION,
    ActionRow,
    SqliteStore,
    StorageError,
    Store,
    TableRow,
    backup,
    open_store,
)

ROOT = Path(__file__).resolve().parent.parent

# what this server wrote at schema version 1 (before the owner token), frozen here
SCHEMA_V1_TABLES = """
CREATE TABLE tables (name TEXT PRIMARY KEY, rules TEXT NOT NULL, options TEXT NOT NULL,
    state TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL);
"""

WORKER = """
import sys
from net.store import open_store, ActionRow
store = open_store(sys.argv[1])
tag = sys.argv[2]
ids = [store.account_for_key(f"SHA256:{tag}{i}", "ann").id for i in range(40)]
for i in range(40):
    store.add_action("t-" + tag, ActionRow(1, 1, i, 0, {"by": tag, "i": i}))
print(" ".join(map(str, ids)), store.failures)
"""


def test_a_version_1_file_gains_the_owner_token_and_keeps_its_tables(tmp_path: Path) -> None:
    path = tmp_path / "mahjong.sqlite3"
    store = open_store(path)
    store.save_table(TableRow("old", "gejiu", {}))
    store.close()
    db = sqlite3.connect(path)  # back to what version 1 wrote: no owner_token
    db.executescript("ALTER TABLE tables RENAME TO t_new;" + SCHEMA_V1_TABLES +
                     "INSERT INTO tables SELECT name, rules, options, state, created, updated "
                     "FROM t_new; DROP TABLE t_new; PRAGMA user_version = 1;")
    db.close()
    again = open_store(path)
    assert again.version == STORE_VERSION == 10  # 8: ignores, reports; 9: tournaments; 10: setup
    assert again.owner_token("old") == 0 and again.load_table("old") == TableRow(
        "old", "gejiu", {})
    assert again.claim_table("old", 1) and again.owner_token("old") == 1
    again.close()


def test_a_version_2_file_without_the_owner_token_is_damaged(tmp_path: Path) -> None:
    path = tmp_path / "mahjong.sqlite3"
    open_store(path).close()
    db = sqlite3.connect(path)
    db.execute("ALTER TABLE tables DROP COLUMN owner_token")
    db.commit()
    db.close()
    with pytest.raises(StorageError, match="its tables table lacks owner_token"):
        open_store(path)


def test_two_worker_processes_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "mahjong.sqlite3"
    first = open_store(path)
    first.save_table(TableRow("t-a", "gejiu", {}))
    first.save_table(TableRow("t-b", "gejiu", {}))
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, str(path), tag], cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for tag in "ab"]
    outs = [w.communicate(timeout=120) for w in workers]
    assert all(w.returncode == 0 for w in workers), [err for _, err in outs]
    ids = [int(x) for out, _ in outs for x in out.split()[:-1]]
    assert [out.split()[-1] for out, _ in outs] == ["0", "0"]  # no write failed
    assert len(set(ids)) == 80 and min(ids) > 0  # one account each, none temporary
    for tag in "ab":  # what each process wrote, this one reads
        assert first.actions("t-" + tag, 1) == [
            ActionRow(1, 1, i, 0, {"by": tag, "i": i}) for i in range(40)]
    first.close()


def test_workers_opening_a_new_folder_at_once_wait_for_each_other(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "mahjong.sqlite3"
    make_schema = SqliteStore._schema

    def slow_schema(store: SqliteStore) -> None:  # the first worker is slow to make it
        time.sleep(0.5)
        make_schema(store)

    monkeypatch.setattr(SqliteStore, "_schema", slow_schema)
    opened: list[Store] = []
    first = threading.Thread(target=lambda: opened.append(open_store(path)))
    first.start()
    deadline = time.monotonic() + 10
    while not path.exists() and time.monotonic() < deadline:  # made, its tables not yet
        time.sleep(0.005)
    assert path.exists() and first.is_alive()
    monkeypatch.setattr(SqliteStore, "_schema", make_schema)
    second = open_store(path)  # waits for the first, then finds a database
    first.join(10)
    assert len(opened) == 1 and second.table_names() == [] and second.version == STORE_VERSION
    second.close()
    opened[0].close()


def test_backup_of_a_postgresql_database_says_pg_dump(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="pg_dump"):
        backup("postgresql://db.example/mahjong", tmp_path / "copy.sqlite3")


def test_a_version_2_file_gains_the_results_bot_flag(tmp_path: Path) -> None:
    path = tmp_path / "mahjong.sqlite3"
    store = open_store(path)
    ann = store.account_for_key("SHA256:ann", "ann")
    store.finish_game("t", 1, "gejiu", [(ann.id, 0, 5, 1, 4)])
    store.close()
    db = sqlite3.connect(path)  # back to what version 2 wrote: results without bot
    db.execute("ALTER TABLE results DROP COLUMN bot")
    db.execute("PRAGMA user_version = 2")
    db.commit()
    db.close()
    again = open_store(path)
    assert again.version == STORE_VERSION == 10
    assert [(r.nickname, r.games, r.bot_games) for r in again.leaderboard()] == [("ann", 1, 0)]
    again.finish_game("t", 2, "gejiu", [(ann.id, 0, 5, 1, 4)], bots=[0])
    assert [(r.games, r.bot_games) for r in again.leaderboard()] == [(2, 1)]
    again.close()
