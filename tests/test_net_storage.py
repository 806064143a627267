"""Storage faults are loud: a database the server must not run on stops it at start with one
line naming the file and what to do; a table whose saved game cannot be read is quarantined
(kept untouched, listed, its name refused); a write failing at run time is logged and its
table pauses until it is saved; ``mahjong-ssh backup`` copies the database while it is in use."""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import asyncssh
import pytest

from engine.expiry import expiry_action
from engine.view import build_view
from net.front.lobby import LobbyApp
from net.runtime.registry import QUARANTINE_MARK, Registry, TableQuarantined
from net.runtime.shared_table import SharedTable, TableConfig
from net.store import (
    MAX_TABLE_JSON,
    Account,
    SavedTable,
    SqliteStore,
    StorageError,
    backup,
    open_store,
)
from testkit.ssh import PtyClient, fast_config, start_server

ROOT = Path(__file__).resolve().parent.parent
DB = "mahjong.sqlite3"
ANN = Account(1, "ann", "SHA256:ann")


def play(t: SharedTable, actions: int) -> None:
    game = t.game
    assert game is not None
    for _ in range(actions):
        hand = game.hand
        assert hand is not None and not hand.is_over
        seat = hand.to_act()[0]
        assert t.apply(seat, expiry_action(build_view(hand, seat))) is None


async def saved_game(data: Path, records: int = 0) -> Path:
    """A data folder whose database holds an account, the table t1 in the middle of its
    first hand (20 actions), an untouched table t2, and ``records`` 2 KB hand records (to make
    the file many pages long). Everything is closed (the WAL checkpointed into the file)."""
    data.mkdir(parents=True, exist_ok=True)
    store = SqliteStore(data / DB)
    store.account_for_key(ANN.key_fingerprint or "", ANN.nickname)
    reg = Registry(TableConfig(bot_delay=0), store)
    t = reg.get_or_create("t1", "gejiu", {"hands_per_game": 2})
    t.join(ANN)
    assert t.start(seed=7) is None
    play(t, 20)
    reg.get_or_create("t2", "yichun")
    for i in range(records):
        store.finish_hand("old", 1, i, "x" * 2000)
    reg.close()
    store.close()
    assert not (data / f"{DB}-wal").exists()
    return data / DB


def table_row(path: Path, name: str) -> tuple[Any, ...]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT * FROM tables WHERE name = ?", (name,)).fetchone()
        actions = db.execute("SELECT * FROM actions WHERE table_name = ? ORDER BY hand_no, i",
                             (name,)).fetchall()
    finally:
        db.close()
    return (row, tuple(actions))


def refused(path: Path) -> str:
    """open_store's one line, and the file as it was."""
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(StorageError) as info:
        open_store(path)
    message = str(info.value)
    assert "\n" not in message and str(path.parent) in message
    if before is not None:
        assert path.read_bytes() == before  # nothing written over it
    return message


async def server_refuses(data: Path) -> str:
    with pytest.raises(StorageError) as info:
        await start_server(fast_config(data))
    return str(info.value)


def serve(data: Path, cap_drop: bool = False) -> subprocess.CompletedProcess[str]:
    """``mahjong-ssh serve --data DATA --port 0``, expected to stop at once."""
    cmd = [sys.executable, "-m", "cli.main", "serve", "--data", str(data), "--port", "0"]
    if cap_drop:  # root, as an ordinary user sees permissions (files owned by nobody)
        cmd = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner", *cmd]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)


def one_line(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mahjong-ssh serve: "), r.stderr
    assert "Traceback" not in r.stderr and "connect:" not in r.stdout
    return lines[0]


# --- refused at start -----------------------------------------------------------------------
async def test_a_database_truncated_to_0_bytes_is_refused(tmp_path: Path) -> None:
    """It used to start empty without a word: every account, table and record gone."""
    path = await saved_game(tmp_path / "d")
    path.write_bytes(b"")
    message = refused(path)
    assert "is 0 bytes but a database was expected" in message
    assert "restore it from a backup" in message and "move it away" in message
    assert "0 bytes" in await server_refuses(tmp_path / "d")
    line = one_line(serve(tmp_path / "d"))
    assert f"{path} is 0 bytes" in line
    assert path.stat().st_size == 0 and not (tmp_path / "d" / f"{DB}-wal").exists()


async def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "d"
    data.mkdir()
    (data / DB).write_bytes(b"hello, this is not SQLite\n" * 200)
    assert "is not a database" in refused(data / DB)
    assert "is not a database" in await server_refuses(data)
    assert "is not a database" in one_line(serve(data))


async def test_a_half_truncated_database_is_refused_not_a_traceback(tmp_path: Path) -> None:
    path = await saved_game(tmp_path / "d", records=200)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    assert "is damaged" in refused(path)
    assert "is damaged" in await server_refuses(tmp_path / "d")
    line = one_line(serve(tmp_path / "d"))
    assert "is damaged" in line and "restore it from a backup" in line


async def test_garbage_over_the_files_pages_is_refused(tmp_path: Path) -> None:
    path = await saved_game(tmp_path / "d", records=200)
    data = bytearray(path.read_bytes())
    for offset in range(4096, len(data), 7 * 4096):  # a little garbage in every 7th page
        data[offset + 100: offset + 300] = b"\xff" * 200
    path.write_bytes(bytes(data))
    assert "is damaged" in refused(path)
    assert "is damaged" in await server_refuses(tmp_path / "d")


def test_a_database_of_something_else_or_without_its_tables_is_refused(tmp_path: Path) -> None:
    path = tmp_path / DB
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE photos (id INTEGER, data BLOB)")
    db.commit()
    db.close()
    assert "is not a mahjong-ssh database (it holds: photos)" in refused(path)

    path.unlink()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 1")  # a database file with no table at all
    db.execute("CREATE TABLE t (x)")
    db.execute("DROP TABLE t")
    db.commit()
    db.close()
    assert "(it holds no tables)" in refused(path)

    def altered(*statements: str) -> Path:
        """A database of this server's, then ``statements`` run on it."""
        path.unlink()
        SqliteStore(path).close()
        db = sqlite3.connect(path)
        for statement in statements:
            db.execute(statement)
        db.commit()
        db.close()
        return path

    assert "lacks its tables table" in refused(altered("DROP TABLE tables"))
    assert "its results table lacks game_no, account_id" in refused(
        altered("DROP TABLE results", "CREATE TABLE results (table_name TEXT)"))
    # an older file, before settings and stakes existed: those are added
    altered("DROP TABLE settings", "DROP TABLE stake_results")
    open_store(path).close()


def test_a_journal_without_its_database_is_refused(tmp_path: Path) -> None:
    """SQLite would make a new database there and drop the journal."""
    (tmp_path / f"{DB}-wal").write_bytes(b"\x37\x7f\x06\x82" + b"\0" * 60)
    message = refused(tmp_path / DB)
    assert f"does not exist but {DB}-wal beside it does" in message
    assert not (tmp_path / DB).exists() and (tmp_path / f"{DB}-wal").stat().st_size == 64


def test_a_lost_database_beside_an_old_host_key_is_warned_about(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    key = tmp_path / "ssh_host_ed25519_key"
    key.write_bytes(b"")
    with caplog.at_level(logging.WARNING, "net.store"):
        open_store(tmp_path / DB).close()  # a key just made: the first start, no word
        assert not caplog.records
        (tmp_path / DB).unlink()
        old = time.time() - 3600
        os.utime(key, (old, old))
        open_store(tmp_path / DB).close()
    [record] = caplog.records
    assert "does not exist" in record.getMessage() and "from an earlier start" in \
        record.getMessage()


def _as_nobody(*paths: Path) -> None:
    for p in paths:
        os.chown(p, 65534, 65534)


@pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None,
                    reason="root without setpriv cannot see a read-only folder")
async def test_a_read_only_data_folder_or_database_stops_the_server_at_start(
        tmp_path: Path) -> None:
    """It used to start, say "restored 1 tables", then drop every login unlogged."""
    root = os.geteuid() == 0
    data = tmp_path / "d"
    path = await saved_game(data)
    server = await start_server(fast_config(data))  # the host key, as a served folder has
    await server.close()
    before = path.read_bytes()
    key = data / "ssh_host_ed25519_key"
    key.chmod(0o644)
    path.chmod(0o444)
    data.chmod(0o555)  # chmod -R a-w
    if root:
        _as_nobody(data, path, key)
    try:
        line = one_line(serve(data, cap_drop=root))
        assert "cannot be written" in line and "writable" in line
        if root:  # the folder: the server cannot chmod a folder it does not own
            assert f"{data} cannot be written" in line
            os.chown(data, 0, 0)
        data.chmod(0o755)  # the folder writable, the file not
        line = one_line(serve(data, cap_drop=root))
        assert f"{path} cannot be written" in line
    finally:
        data.chmod(0o755)
        path.chmod(0o644)
        if root:
            for p in (data, path, key):
                os.chown(p, 0, 0)
    assert path.read_bytes() == before


# --- quarantine -----------------------------------------------------------------------------
def corrupt(path: Path, sql: str, *params: Any) -> None:
    db = sqlite3.connect(path)
    db.execute(sql, params)
    db.commit()
    db.close()


async def assert_quarantined(data: Path, name: str, why: str,
                             caplog: pytest.LogCaptureFixture) -> None:
    """A real server starts, keeps ``name`` out of play, lists it, logs it once, refuses a
    join (through ssh) and a watch of it, and leaves its rows as they were."""
    path = data / DB
    before = table_row(path, name)
    assert before[0] is not None
    with caplog.at_level(logging.INFO):
        server = await start_server(fast_config(data))
    try:
        assert name not in server.registry.tables and name in server.registry.quarantined
        lines = [r.getMessage() for r in caplog.records
                 if f"table {name} quarantined" in r.getMessage()]
        assert len(lines) == 1 and why in lines[0], lines
        assert why in server.registry.quarantined[name].reason
        lobby = LobbyApp(server, ANN)  # type: ignore[arg-type]
        listing = lobby.tables_text().plain
        assert name in listing and QUARANTINE_MARK in listing
        key = asyncssh.generate_private_key("ssh-ed25519")
        c = PtyClient()
        await c.connect(server.port, "bob", key, command=f"join {name}")
        text = await c.wait_for("quarantined")
        assert f"table {name} is quarantined" in text
        await c.close()
        with pytest.raises(TableQuarantined, match="quarantined"):
            server.registry.find(name)  # watch
        with pytest.raises(TableQuarantined):
            server.registry.get_or_create(name, "yichun")
        assert name not in server.registry.tables
    finally:
        await server.close()
    assert table_row(path, name) == before  # byte-identical after the start and the join


async def test_garbage_in_a_tables_saved_state_quarantines_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Garbage mid-file that lands in a row: the table used to be dropped at start, and the
    next join of its name overwrote the saved game."""
    path = await saved_game(tmp_path / "d")
    data = path.read_bytes()
    at = data.index(b'{"seats": [{"account"')  # t1's state, in the file itself
    path.write_bytes(data[:at] + b"#" + data[at + 1:])
    await assert_quarantined(tmp_path / "d", "t1", "its state is not JSON", caplog)


@pytest.mark.parametrize(("damage", "name", "reason"), [
    ("UPDATE tables SET options = '[1, 2' WHERE name = 't2'", "t2", "its options is not JSON"),
    ("UPDATE actions SET action = '{\"a\": \"nonsense\"' WHERE i = 5", "t1",
     "action 5 of hand 1 is not JSON"),  # one bad action row
    ("DELETE FROM actions WHERE i = 5", "t1", "action 6 is stored after 5 actions"),  # a hole
    ("UPDATE tables SET rules = 'mars' WHERE name = 't2'", "t2", "mars"),
    ("UPDATE actions SET seat = (seat + 1) % 4 WHERE i = 0", "t1", "does not replay"),
], ids=["bad-options", "bad-action-row", "missing-action", "unknown-ruleset", "illegal-action"])
async def test_a_damaged_row_quarantines_its_table(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, damage: str, name: str,
        reason: str) -> None:
    path = await saved_game(tmp_path / "d")
    corrupt(path, damage)
    await assert_quarantined(tmp_path / "d", name, reason, caplog)


async def test_a_value_longer_than_a_table_can_be_is_not_read(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A hostile file's 100 MB JSON value is not handed to the JSON parser: past
    ``MAX_TABLE_JSON`` the row counts as damaged."""
    path = await saved_game(tmp_path / "d")
    corrupt(path, "UPDATE tables SET state = '{\"x\": \"' || hex(zeroblob(?)) || '\"}' "
            "WHERE name = 't2'", MAX_TABLE_JSON)
    store = SqliteStore(path)
    rows = {r.name: r for r in store.load_tables()}
    store.close()
    assert rows["t2"].state == SavedTable() and rows["t2"].fault is not None
    assert f"its state is longer than {MAX_TABLE_JSON} bytes" == rows["t2"].fault
    assert rows["t1"].fault is None
    await assert_quarantined(tmp_path / "d", "t2", "longer than", caplog)


async def test_load_counts_restored_and_quarantined_tables(tmp_path: Path) -> None:
    path = await saved_game(tmp_path / "d")
    corrupt(path, "UPDATE tables SET state = 'x' WHERE name = 't2'")
    store = SqliteStore(path)
    reg = Registry(TableConfig(bot_delay=0), store)
    counts = reg.load()
    assert counts == 1 and counts.restored == 1 and counts.quarantined == 1
    assert sorted(reg.tables) == ["t1"] and sorted(reg.quarantined) == ["t2"]
    reg.close()
    store.close()


# --- writes failing at run time -----------------------------------------------------------
async def test_writes_failing_at_run_time_are_logged_once_and_the_table_pauses(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / DB
    store = open_store(path)
    reg = Registry(TableConfig(bot_delay=0), store)
    t = reg.get_or_create("t1", "gejiu")
    t.join(ANN)
    assert t.start(seed=3) is None
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    with caplog.at_level(logging.WARNING, "net.store"):
        play(t, 1)  # taken, not saved: the table pauses (tests/test_net_disk_full.py)
        game = t.game
        assert game is not None and game.hand is not None
        for _ in range(20):  # every move meanwhile is refused, each retry failing
            assert t.apply(game.hand.to_act()[0], expiry_action(
                build_view(game.hand, game.hand.to_act()[0]))) is not None
        bob = store.account_for_key("SHA256:bob", "bob")  # a login still gets an account
        assert bob.id < 0 and store.account_for_key("SHA256:bob", "bob") == bob
        errors = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert len(errors) == 1, [r.getMessage() for r in errors]  # not one a statement
        assert str(path) in errors[0].getMessage() and "locked" in errors[0].getMessage()
        assert store.problem is not None and store.failures >= 20
        server = SimpleNamespace(registry=reg)
        assert "cannot save right now" in LobbyApp(
            server, ANN).tables_text().plain  # type: ignore[arg-type]
        other.execute("ROLLBACK")
        play(t, 1)
        assert store.problem is None and len(store.actions("t1", 1)) == 2
        assert any("writes work again" in r.getMessage() for r in caplog.records)
    assert "cannot save" not in LobbyApp(
        SimpleNamespace(registry=reg), ANN).tables_text().plain  # type: ignore[arg-type]
    other.close()
    reg.close()
    store.close()


# --- backup ---------------------------------------------------------------------------------
def all_rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        names = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {n: sorted(db.execute(f"SELECT * FROM {n}").fetchall(), key=repr)
                for n in names}
    finally:
        db.close()


async def test_a_backup_while_the_store_is_open_has_the_same_rows(tmp_path: Path) -> None:
    path = await saved_game(tmp_path / "d", records=20)
    store = open_store(path)
    reg = Registry(TableConfig(bot_delay=0), store)
    assert reg.load() == 2
    play(reg.tables["t1"], 5)  # in the journal (-wal), not yet in the file
    assert (tmp_path / "d" / f"{DB}-wal").stat().st_size > 0
    out = tmp_path / "backup.sqlite3"
    report = backup(path, out)
    assert report.path == out and report.size == out.stat().st_size
    assert ("tables", 2) in report.rows and ("actions", 25) in report.rows
    alone = tmp_path / "alone" / "copy.sqlite3"  # one self-contained file: no journal needed
    alone.parent.mkdir()
    shutil.copyfile(out, alone)
    assert all_rows(alone) == all_rows(path)
    with pytest.raises(StorageError, match="exists: choose another name, or pass --force"):
        backup(path, out)
    play(reg.tables["t1"], 1)
    assert backup(path, out, force=True).rows != report.rows
    assert all_rows(out) == all_rows(path)
    reg.close()
    store.close()

    r = subprocess.run([sys.executable, "-m", "cli.main", "backup", "--data",
                        str(tmp_path / "d"), str(tmp_path / "b2.sqlite3")],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and f"wrote {tmp_path / 'b2.sqlite3'}" in r.stdout, r
    assert "to restore: stop the server" in r.stdout
    r = subprocess.run([sys.executable, "-m", "cli.main", "backup", "--data",
                        str(tmp_path / "d"), str(tmp_path / "b2.sqlite3")],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "exists" in r.stderr and len(r.stderr.splitlines()) == 1


async def test_a_restored_backup_serves_the_saved_game(tmp_path: Path) -> None:
    """The README's restore: stop, copy the backup over the database, remove -wal and -shm."""
    path = await saved_game(tmp_path / "d")
    backup(path, tmp_path / "b.sqlite3")
    path.write_bytes(b"")  # lost
    assert "0 bytes" in await server_refuses(tmp_path / "d")
    shutil.copyfile(tmp_path / "b.sqlite3", path)
    for extra in ("-wal", "-shm"):
        (tmp_path / "d" / f"{DB}{extra}").unlink(missing_ok=True)
    server = await start_server(fast_config(tmp_path / "d"))
    try:
        t = server.registry.tables["t1"]
        assert t.game is not None and t.game.hand is not None
        # restored at its 20th action (a fresh table would be at its first moves); with nobody
        # connected it plays on from there, so a computer may have moved since
        assert len(t.game.hand.actions) >= 20
    finally:
        await server.close()
