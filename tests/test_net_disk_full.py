"""A full disk stops a table instead of letting it play on unsaved: its write that failed is
held with every later one of the table, in order, and written again first; meanwhile nothing
more is applied or shown and the players are told; it resumes by itself once writes work,
and a restart (a crash meanwhile) finds the table at its last saved action, never
quarantined. A passphrase that cannot be stored is refused at the prompt."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from engine.expiry import expiry_action
from engine.view import build_view
from host.clock import ManualClock
from net.front.server import MahjongServer
from net.runtime.registry import Registry
from net.runtime.shared_table import UNSAVED, SharedTable, TableConfig
from net.store import Account, SqliteStore, StorageError, open_store
from net.store.postgres import PgStore
from testkit.ssh import PtyClient, new_key
from tests.support.waiting import toast_says, until
from tests.test_net_restart import to_my_move

DB = "mahjong.sqlite3"
ANN = Account(1, "ann", "SHA256:ann")
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


class FullDisk:
    """The store's connection, whose writes fail as SQLite's do on a full disk
    (``SQLITE_FULL``) while ``full`` says so for the statement (``times``: that many
    failures, then it works again)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.full: Callable[[str], bool] = lambda sql: False
        self.times: int | None = None  # None: as long as ``full`` says so
        self.failed = 0

    def _check(self, sql: str) -> None:
        if sql.lstrip().upper().startswith(WRITES) and self.full(sql):
            if self.times is not None:
                if self.times <= 0:
                    return
                self.times -= 1
            self.failed += 1
            raise sqlite3.OperationalError("database or disk is full")

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        self._check(sql)
        return self.db.execute(sql, params)

    def executemany(self, sql: str, params: Any) -> sqlite3.Cursor:
        self._check(sql)
        return self.db.executemany(sql, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def full_disk(store: SqliteStore) -> FullDisk:
    disk = FullDisk(store.db)
    store.db = disk  # type: ignore[assignment]
    return disk


def every(sql: str) -> bool:
    return True


def act(t: SharedTable) -> Any:
    game = t.game
    assert game is not None and game.hand is not None and not game.hand.is_over
    hand = game.hand
    seat = hand.to_act()[0]
    return t.apply(seat, expiry_action(build_view(hand, seat)))


def stored_actions(path: Path, table: str) -> int:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT count(*) FROM actions WHERE table_name = ?",
                              (table,)).fetchone()[0])
    finally:
        db.close()


def restarted(path: Path) -> tuple[Registry, SqliteStore]:
    """What a server started on the file now finds (the other, running, as if killed)."""
    store = SqliteStore(path)
    reg = Registry(TableConfig(bot_delay=0), store)
    reg.load()
    return reg, store


def applied(t: SharedTable) -> int:
    game = t.game
    assert game is not None and game.hand is not None
    return len(game.hand.actions)


async def test_a_failed_write_pauses_the_table_and_a_restart_finds_its_last_saved_action(
        tmp_path: Path) -> None:
    """It used to play on: the action's row missing, the next ones stored, and after a crash
    the table was quarantined (an action stored after a gap does not replay)."""
    path = tmp_path / DB
    store = open_store(path)
    assert isinstance(store, SqliteStore)
    reg = Registry(TableConfig(bot_delay=0), store)
    t = reg.get_or_create("t1", "gejiu")
    t.join(ANN)
    assert t.start(seed=3) is None
    for _ in range(5):
        assert act(t) is None
    disk = full_disk(store)
    disk.full, disk.times = (lambda sql: "INTO actions" in sql), 1  # one action's row fails
    assert act(t) is None  # taken, and held: the table pauses
    assert act(t) is None  # the disk works again: the held action is written first
    reg2, store2 = restarted(path)
    assert "t1" not in reg2.quarantined and applied(reg2.tables["t1"]) == 7
    reg2.close()
    store2.close()

    disk.times = 1
    assert act(t) is None
    assert store.unsaved("t1") and store.problem is not None and not t.watched()
    assert stored_actions(path, "t1") == 7
    # a crash now: the restart replays the seven saved actions, not quarantined
    reg3, store3 = restarted(path)
    assert "t1" not in reg3.quarantined and applied(reg3.tables["t1"]) == 7
    reg3.close()
    store3.close()
    assert act(t) is None  # the next move writes the held one first, in order
    assert not store.unsaved("t1") and store.problem is None and t.watched()
    assert stored_actions(path, "t1") == 9
    reg.close()
    store.close()


async def test_while_the_disk_is_full_nothing_more_is_applied_and_it_resumes_by_itself(
        tmp_path: Path) -> None:
    path = tmp_path / DB
    store = open_store(path)
    assert isinstance(store, SqliteStore)
    clock = ManualClock()
    config = TableConfig(bot_delay=0, clock=clock, save_retry_seconds=5.0)
    reg = Registry(config, store)
    t = reg.get_or_create("t1", "gejiu")
    client = t.join(ANN)
    lines: list[Any] = []
    client.subscribe_info(lines.append)
    assert t.start(seed=3) is None
    t.loop.close()  # only this test's moves: no computer moves while the clock runs
    for _ in range(4):
        assert act(t) is None
    disk = full_disk(store)
    disk.full = every
    assert act(t) is None
    assert act(t) == UNSAVED  # no further action is applied while the last is not stored
    assert applied(t) == 5 and stored_actions(path, "t1") == 4
    said = [ln.text for ln in lines if getattr(ln, "who", None) == ""]
    assert any("cannot save this game" in s and "无法保存" in s for s in said), said
    # a player who comes, or leaves, meanwhile: saved in order after the held action
    bob = Account(2, "bob", "SHA256:bob")
    t.join(bob)
    await clock.advance(6.0)  # the table tries again: still full
    assert t.pause.paused and stored_actions(path, "t1") == 4
    disk.full = lambda sql: False
    await clock.advance(6.0)  # writes work: it resumes, with nobody pressing anything
    assert not t.pause.paused and not store.unsaved("t1") and t.watched()
    assert stored_actions(path, "t1") == 5
    said = [ln.text for ln in lines if getattr(ln, "who", None) == ""]
    assert any("saved again" in s for s in said), said
    assert act(t) is None and stored_actions(path, "t1") == 6
    reg2, store2 = restarted(path)
    restored = reg2.tables["t1"]
    assert applied(restored) == 6
    assert [s.occupant.name if s.occupant else None for s in restored.seats][:2] == \
        ["ann", "bob"]
    reg2.close()
    store2.close()
    reg.close()
    store.close()


async def test_a_real_sqlite_full_is_held_and_written_once_there_is_room(
        tmp_path: Path) -> None:
    """SQLite's own SQLITE_FULL (``max_page_count``: the file may not grow), not a stand-in."""
    path = tmp_path / DB
    store = open_store(path)
    assert isinstance(store, SqliteStore)
    reg = Registry(TableConfig(bot_delay=0), store)
    t = reg.get_or_create("t1", "gejiu")
    t.join(ANN)
    assert t.start(seed=3) is None
    assert act(t) is None
    pages = int(store.db.execute("PRAGMA page_count").fetchone()[0])
    store.db.execute(f"PRAGMA max_page_count = {pages}")
    store.finish_hand("t1", 1, 1, "x" * 200_000)  # needs pages the file may not have
    assert store.unsaved("t1") and store.failures == 1
    assert act(t) == UNSAVED  # the table sees it at its next move
    store.db.execute(f"PRAGMA max_page_count = {pages * 100}")
    assert act(t) is None and not store.unsaved("t1")
    assert len(store.hand_records("t1")) == 1 and stored_actions(path, "t1") == 2
    reg.close()
    store.close()


# --- through the server ---------------------------------------------------------------------
async def test_players_see_the_pause_and_play_resumes_through_the_server(
        server: MahjongServer) -> None:
    store = server.store
    assert isinstance(store, SqliteStore)
    server.registry.config.save_retry_seconds = 0.2
    path = Path(store.path)
    c = PtyClient(width=100, height=30)
    await c.connect(server.port, "kim", new_key(), command="join k9")
    try:
        await c.wait_for("press S")
        c.send("s")
        await to_my_move(c)
        saved = stored_actions(path, "k9")
        disk = full_disk(store)
        disk.full = every
        c.send("\r")  # kim discards: the table cannot save it
        await c.wait_for(toast_says("cannot save this game"), 10)
        await asyncio.sleep(0.5)  # the computers do not move on meanwhile
        t = server.registry.tables["k9"]
        assert t.pause.paused and stored_actions(path, "k9") == saved
        held = applied(t)
        reg2, store2 = restarted(path)  # killed now: restored at the last saved action
        assert "k9" not in reg2.quarantined and applied(reg2.tables["k9"]) == held - 1
        reg2.close()
        store2.close()
        disk.full = lambda sql: False
        await c.wait_for(toast_says("saved again"), 10)
        await to_my_move(c)  # the computers played on to kim's next move
        assert stored_actions(path, "k9") > saved
    finally:
        await c.close()


class Asked(asyncssh.SSHClient):
    """A keyless login that chooses ``passphrase`` until told it was not saved, then takes
    Enter (a guest); it keeps what it was told."""

    def __init__(self, passphrase: str) -> None:
        self.passphrase = passphrase
        self.told: list[str] = []

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(self, name: str, instructions: str, lang: str,
                                  prompts: Any) -> list[str]:
        said = instructions + " ".join(p for p, _ in prompts)
        self.told.append(said)
        return ["" if "not saved" in said else self.passphrase for _ in prompts]


async def test_a_passphrase_chosen_while_the_disk_is_full_is_refused_at_the_prompt(
        server: MahjongServer) -> None:
    """It used to be accepted and kept in memory only: the next visit found no such name."""
    store = server.store
    assert isinstance(store, SqliteStore)
    disk = full_disk(store)
    disk.full = every
    client = Asked("plum-blossom")
    conn = await asyncssh.connect(
        "127.0.0.1", server.port, username="mei", known_hosts=None, client_keys=None,
        agent_path=None, client_factory=lambda: client, kbdint_auth=True,
        preferred_auth="keyboard-interactive")
    try:
        result = await conn.run("help", timeout=10)
        assert result.exit_status == 0
    finally:
        conn.close()
    told = " ".join(client.told)
    assert "cannot save a passphrase now" in told and "无法保存口令" in told, client.told
    disk.full = lambda sql: False
    row = store.keyless_row("mei")
    assert row is None or row.kind != "passphrase"  # nothing half-kept: no secret, no name


def test_a_passphrase_the_store_cannot_write_raises(tmp_path: Path) -> None:
    store = open_store(tmp_path / DB)
    assert isinstance(store, SqliteStore)
    disk = full_disk(store)
    disk.full = lambda sql: "account_secrets" in sql  # the account's row went in, not this
    with pytest.raises(StorageError):
        store.keep_with_passphrase("mei", "scrypt$x")
    disk.full = lambda sql: False
    assert store.keyless_row("mei") is None  # the account was not left without its secret
    store.close()


# --- PostgreSQL: a database that cannot write for now --------------------------------------
def read_only(url: str, on: bool) -> None:
    """The database takes no writes (``default_transaction_read_only``, what a full disk or a
    standby answers with an error that is not a lost connection); the store's connections
    are cut so that its writer reconnects under the new default."""
    import psycopg

    name = url.rsplit("/", 1)[1].split("?")[0]
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("SET default_transaction_read_only = off")
        db.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = '
                   f'{"on" if on else "off"}')
        db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                   "application_name = 'mahjong-ssh' AND pid <> pg_backend_pid()")


async def test_postgresql_holds_a_failed_write_in_order_and_the_table_pauses(
        pg_url: str) -> None:
    """It used to drop a write the database refused (not a lost connection) and write the
    next ones: a gap in the actions, and a restart quarantined the table."""
    store = open_store(pg_url)
    assert isinstance(store, PgStore)
    reg = Registry(TableConfig(bot_delay=0), store)
    t = reg.get_or_create("t1", "gejiu")
    t.join(ANN)
    assert t.start(seed=3) is None
    t.loop.close()  # only this test's moves: no computer moves while it waits
    for _ in range(5):
        assert act(t) is None
    assert store.flush(10)
    read_only(pg_url, True)
    try:
        assert act(t) is None  # queued; the writer cannot write it
        await until(lambda: store.unsaved("t1"), 20, "the writer stuck")
        assert act(t) == UNSAVED and not t.watched()
        # what a restart would find now: the five saved actions, nothing after a gap
        assert [r.i for r in store.actions("t1", 1)] == [0, 1, 2, 3, 4]
    finally:
        read_only(pg_url, False)
    await until(lambda: not store.unsaved("t1"), 20, "the writer caught up")
    assert act(t) is None and store.flush(10)
    assert [r.i for r in store.actions("t1", 1)] == list(range(7))
    again = PgStore(pg_url)  # a restart
    reg2 = Registry(TableConfig(bot_delay=0), again)
    reg2.load()
    assert "t1" not in reg2.quarantined and applied(reg2.tables["t1"]) == 7
    reg2.close()
    again.close()
    reg.close()
    store.close()
