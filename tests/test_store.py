"""The store's interface on both backends (SQLite and PostgreSQL, ``any_store``): what the
server writes is what it reads back, in order; fencing keeps a table's writes to its owner;
the PostgreSQL writer keeps its order, calls back on the event loop and survives a restart
of the database. Two stores on one database stand for two worker processes."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from pathlib import Path

import pytest

from engine.expiry import expiry_action
from engine.view import build_view
from net.runtime.registry import Registry
from net.runtime.shared_table import TableConfig
from net.store import (
    ActionRow,
    SavedSeat,
    SavedTable,
    StorageError,
    Store,
    TableRow,
    open_store,
)
from net.store.postgres import ACTION_PAGE, PG_STORE_VERSION, PgStore
from testkit.pg import PgServer, free_port, start_postgres


def flushed(store: Store) -> Store:
    assert store.flush(30)
    return store


def table(name: str = "t", seated: int | None = None) -> TableRow:
    seats = (SavedSeat(seated, "ann"), None, None, None) if seated is not None else (None,) * 4
    return TableRow(name, "gejiu", {"hands_per_game": 4},
                    SavedTable(seats=seats, game_seed=7, game_no=1, hands_started=1))


def act(i: int, hand: int = 1, game: int = 1) -> ActionRow:
    return ActionRow(game, hand, i, i % 4, {"kind": "discard", "tile": i})


# --- what is written is read back ---------------------------------------------------------------
def test_accounts_by_key_are_found_again_and_nicknames_stay_unique(any_store: Store) -> None:
    a = any_store.account_for_key("SHA256:aaa", "ann")
    assert any_store.account_for_key("SHA256:aaa", "other") == a
    b = any_store.account_for_key("SHA256:bbb", "ann")
    assert (b.nickname, a.nickname) == ("ann-2", "ann") and b.id != a.id
    assert not a.anonymous and a.key_fingerprint == "SHA256:aaa"
    assert flushed(any_store).problem is None and any_store.failures == 0


def test_keyless_accounts_passphrases_guests_and_forgetting(any_store: Store) -> None:
    kept = any_store.keep_with_passphrase("kim", "scrypt$hash")
    assert kept is not None and kept.anonymous and not kept.guest
    assert any_store.keep_with_passphrase("kim", "scrypt$other") is None  # taken
    row = any_store.keyless_row("kim")
    assert row is not None and (row.account_id, row.has_key, row.kind, row.stored) == (
        kept.id, False, "passphrase", "scrypt$hash")
    assert any_store.keyless_row("nobody") is None
    keyed = any_store.account_for_key("SHA256:k", "kai")
    krow = any_store.keyless_row("kai")
    assert krow is not None and krow.has_key and krow.kind is None
    assert any_store.free_nickname("kim") == "kim-2" and any_store.free_nickname("x") == "x"
    assert any_store.keyless_account(kept.id, "kim") == kept
    guest = any_store.guest_account("kim")
    assert guest.guest and guest.nickname == "kim-2"
    left = any_store.guest_account("gus")
    seated = any_store.guest_account("sat")
    player = any_store.guest_account("won")
    any_store.save_table(table("t", seated.id))
    any_store.finish_game("t", 1, "gejiu", [(player.id, 0, 5, 1, 4)])
    flushed(any_store)
    assert any_store.forget_guests(unseen_since=time.time() + 1000) == 2  # kim-2 and gus
    flushed(any_store)
    assert any_store.keyless_row("gus") is None and any_store.keyless_row("kim-2") is None
    assert left.id != guest.id
    for name in ("sat", "won", "kim", "kai"):
        assert any_store.keyless_row(name) is not None, name
    assert keyed.id != kept.id


def test_settings_are_saved_and_replaced(any_store: Store) -> None:
    a = any_store.account_for_key("SHA256:s", "sam")
    assert any_store.load_settings(a.id) is None
    any_store.save_settings(a.id, {"lang": "zh", "theme": "dark"})
    any_store.save_settings(a.id, {"lang": "en", "名": "字"})
    assert flushed(any_store).load_settings(a.id) == {"lang": "en", "名": "字"}


def test_tables_are_saved_loaded_listed_and_deleted(any_store: Store) -> None:
    any_store.save_table(table("first", 1))
    any_store.save_table(table("second"))
    changed = table("first", 2)
    any_store.save_table(changed)
    flushed(any_store)
    assert [r.name for r in any_store.load_tables()] == ["first", "second"]
    assert any_store.table_names() == ["first", "second"]
    assert any_store.load_table("first") == changed and any_store.load_table("nope") is None
    assert any_store.has_table("second") and not any_store.has_table("third")
    assert any_store.owner_token("first") == 0 and any_store.owner_token("nope") is None
    any_store.add_action("second", act(0))
    any_store.delete_table("second")
    flushed(any_store)
    assert any_store.table_names() == ["first"] and any_store.actions("second", 1) == []


def test_actions_come_back_in_order_across_hands_and_games(any_store: Store) -> None:
    any_store.save_table(table())
    count = ACTION_PAGE * 2 + 17  # more than one page of a PostgreSQL read
    wanted = [act(i, hand=1 + i // 400) for i in range(count)]
    for row in reversed(wanted[:50]):  # written out of order, read in order
        any_store.add_action("t", row)
    for row in wanted[50:]:
        any_store.add_action("t", row)
    any_store.add_action("t", act(0, game=2))
    any_store.add_action("t", ActionRow(1, 1, 3, 2, {"kind": "pass"}))  # replaced
    wanted[3] = ActionRow(1, 1, 3, 2, {"kind": "pass"})
    flushed(any_store)
    assert list(any_store.iter_actions("t", 1)) == wanted
    assert any_store.actions("t", 2) == [act(0, game=2)]
    any_store.drop_actions("t", 2)
    assert flushed(any_store).actions("t", 1) == [] and len(any_store.actions("t", 2)) == 1


def test_hands_results_stakes_and_the_leaderboard(any_store: Store) -> None:
    ann = any_store.account_for_key("SHA256:ann", "ann")
    bob = any_store.account_for_key("SHA256:bob", "bob")
    cy = any_store.account_for_key("SHA256:cy", "cy")
    any_store.save_table(table())
    any_store.finish_hand("t", 1, 1, '{"hand": 1}\n')
    any_store.finish_hand("t", 1, 2, '{"hand": 2}\n')
    any_store.finish_hand("t", 1, 1, '{"hand": "1 again"}\n')  # replaced
    any_store.finish_game("t", 1, "gejiu", [(ann.id, 0, 30, 2, 4), (bob.id, 1, -30, 1, 4)])
    any_store.finish_stakes("t", 1, "gejiu", [(cy.id, 12, 3)])
    any_store.finish_game("u", 1, "yichun", [(bob.id, 2, 50, 3, 8)])
    any_store.finish_game("u", 2, "yichun", [])
    flushed(any_store)
    assert any_store.hand_records("t") == ['{"hand": "1 again"}\n', '{"hand": 2}\n']
    assert any_store.hand_records("none") == []
    board = [(r.nickname, r.games, r.hands, r.wins, r.score) for r in any_store.leaderboard()]
    assert board == [("ann", 1, 4, 2, 30), ("bob", 2, 12, 4, 20), ("cy", 1, 3, 0, 12)]
    gejiu = [(r.nickname, r.score) for r in any_store.leaderboard(rules="gejiu")]
    assert gejiu == [("ann", 30), ("cy", 12), ("bob", -30)]
    assert [r.nickname for r in any_store.leaderboard(limit=1)] == ["ann"]
    assert any_store.rulesets_played() == ["gejiu", "yichun"]


def test_a_result_played_by_a_program_is_marked(any_store: Store) -> None:
    ann = any_store.account_for_key("SHA256:ann", "ann")
    robo = any_store.account_for_key("SHA256:robo", "robo")
    any_store.finish_game("t", 1, "gejiu", [(ann.id, 0, 5, 1, 4), (robo.id, 1, -5, 0, 4)],
                          bots=[1])
    any_store.finish_game("t", 2, "gejiu", [(robo.id, 1, 7, 1, 4)])
    board = [(r.nickname, r.games, r.bot_games) for r in flushed(any_store).leaderboard()]
    assert board == [("ann", 1, 0), ("robo", 2, 1)]


# --- fencing ----------------------------------------------------------------------------------
def test_a_higher_claim_fences_the_lower_holder(two_stores: tuple[Store, Store],
                                                caplog: pytest.LogCaptureFixture) -> None:
    old, new = two_stores
    fenced: list[str] = []
    old.on_fenced = fenced.append
    old.save_table(table())  # unclaimed: written as always
    flushed(old)
    assert old.claim_table("t", 5) and old.owner_token("t") == 5 and old.held_token("t") == 5
    old.add_action("t", act(0))
    flushed(old)
    assert new.claim_table("t", 4) is False  # lower than the stored token: refused
    assert new.claim_table("t", 5) is False  # as high: refused too (one owner per token)
    assert new.claim_table("t", 9) and new.owner_token("t") == 9
    with caplog.at_level(logging.WARNING, "net.store"):
        old.add_action("t", act(1))
        old.save_table(table("t", 42))
        old.finish_hand("t", 1, 1, "old\n")
        old.finish_game("t", 1, "gejiu", [(1, 0, 5, 1, 4)])
        old.drop_actions("t", 5)
        old.delete_table("t")
        flushed(old)
    assert fenced == ["t"] * 6
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 6 and "owned by a newer claim" in warnings[0].getMessage()
    assert old.problem is None  # fenced is not failing
    assert new.actions("t", 1) == [act(0)]  # nothing of the fenced writes arrived
    assert new.load_table("t") == table() and new.hand_records("t") == []
    assert new.leaderboard() == []
    new.add_action("t", act(1))  # the owner writes on
    new.save_table(table("t", 7))
    flushed(new)
    assert old.actions("t", 1) == [act(0), act(1)] and old.load_table("t") == table("t", 7)
    assert old.claim_table("t", 10) and old.owner_token("t") == 10  # taken back, higher
    new.add_action("t", act(2))
    assert flushed(new).actions("t", 1) == [act(0), act(1)]


def test_a_claimed_table_without_a_row_is_made_with_its_token(
        two_stores: tuple[Store, Store]) -> None:
    first, second = two_stores
    assert first.claim_table("fresh", 3) and first.owner_token("fresh") is None
    first.save_table(table("fresh"))
    first.add_action("fresh", act(0))
    flushed(first)
    assert second.owner_token("fresh") == 3 and second.actions("fresh", 1) == [act(0)]
    assert second.claim_table("fresh", 2) is False
    assert first.claim_table("fresh", 3)  # the holder asserting its own claim again
    first.release_table("fresh")
    assert first.held_token("fresh") is None
    assert first.claim_table("fresh", 3) is False  # released: a token is one lease, once
    assert first.claim_table("fresh", 4) and second.owner_token("fresh") == 4


def test_an_unclaimed_store_writes_as_it_always_did(two_stores: tuple[Store, Store]) -> None:
    first, second = two_stores
    first.save_table(table())
    flushed(first)
    assert second.claim_table("t", 1)
    first.add_action("t", act(0))  # a store that never claimed "t" is not fenced
    assert flushed(first).actions("t", 1) == [act(0)]


# --- two workers on one database ----------------------------------------------------------------
def test_two_workers_share_accounts_tables_and_actions(two_stores: tuple[Store, Store]) -> None:
    one, two = two_stores
    a = one.account_for_key("SHA256:a", "ann")
    b = two.account_for_key("SHA256:b", "ann")
    assert b.nickname == "ann-2" and two.account_for_key("SHA256:a", "x") == a
    one.save_table(table())
    for i in range(50):
        one.add_action("t", act(i))
    flushed(one)
    assert two.actions("t", 1) == [act(i) for i in range(50)]
    assert two.load_table("t") == table()


def test_a_nickname_taken_by_another_worker_meanwhile_makes_two_accounts(
        two_stores: tuple[Store, Store], monkeypatch: pytest.MonkeyPatch) -> None:
    one, two = two_stores
    chosen = two._unique_nickname  # type: ignore[attr-defined]
    taken: list[int] = []

    def race(*args: object) -> str:
        name = chosen(*args)
        if not taken:  # the other worker takes the same name between the look and the insert
            taken.append(one.account_for_key("SHA256:one", "ann").id)
        return str(name)

    monkeypatch.setattr(two, "_unique_nickname", race)
    b = two.account_for_key("SHA256:two", "ann")
    assert taken and b.id > 0 and b.id != taken[0] and b.nickname == "ann-2"
    assert two.problem is None and two.failures == 0


def test_two_workers_making_accounts_at_once_never_fail(two_stores: tuple[Store, Store]) -> None:
    errors: list[BaseException] = []
    made: list[int] = []
    start = threading.Barrier(2)

    def worker(store: Store, tag: str) -> None:
        try:
            start.wait()
            for i in range(40):
                made.append(store.account_for_key(f"SHA256:{tag}{i}", "ann").id)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s, t))
               for s, t in zip(two_stores, "xy", strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and len(set(made)) == 80 and all(i > 0 for i in made)
    assert all(s.problem is None for s in two_stores)


# --- the order of writes ---------------------------------------------------------------------
def test_a_thousand_writes_keep_their_order(any_store: Store) -> None:
    any_store.save_table(table())
    a = any_store.account_for_key("SHA256:o", "ole")
    for i in range(1000):
        any_store.add_action("t", ActionRow(1, 1, 0, 0, {"n": i}))  # one row, overwritten
        any_store.save_settings(a.id, {"n": i})
        any_store.add_action("t", act(i + 1))
    flushed(any_store)
    assert any_store.actions("t", 1)[0].action == {"n": 999}
    assert any_store.load_settings(a.id) == {"n": 999}
    assert [r.i for r in any_store.actions("t", 1)] == list(range(1001))


async def test_when_written_calls_back_on_the_loop_once_committed(any_store: Store) -> None:
    loop = asyncio.get_running_loop()
    any_store.save_table(table())
    for i in range(300):
        any_store.add_action("t", act(i))
    seen: asyncio.Future[tuple[int, bool]] = loop.create_future()

    def written() -> None:
        seen.set_result((len(any_store.actions("t", 1)),
                         threading.current_thread() is threading.main_thread()))

    any_store.when_written(written)
    assert await asyncio.wait_for(seen, 30) == (300, True)
    called: list[int] = []
    any_store.when_written(lambda: called.append(1))  # nothing pending: at once
    assert called == [1]


async def test_fenced_is_told_on_the_loop(two_stores: tuple[Store, Store]) -> None:
    old, new = two_stores
    told: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    old.on_fenced = lambda name: told.set_result(
        threading.current_thread() is threading.main_thread())
    assert old.claim_table("t", 1)
    old.save_table(table())
    old.flush(30)
    assert new.claim_table("t", 2)
    old.add_action("t", act(0))
    assert await asyncio.wait_for(told, 30) is True


# --- the server's tables on either backend --------------------------------------------------
async def test_a_table_played_on_either_backend_resumes_at_its_last_action(
        any_store: Store) -> None:
    reg = Registry(TableConfig(bot_delay=0), any_store)
    t = reg.get_or_create("t1", "shangrao", {"hands_per_game": 2})
    t.join(any_store.account_for_key("SHA256:x", "ann"))
    assert t.start(seed=7) is None
    game = t.game
    assert game is not None and game.hand is not None
    for _ in range(30):
        seat = game.hand.to_act()[0]
        assert t.apply(seat, expiry_action(build_view(game.hand, seat))) is None
    reg.close()
    assert any_store.flush(30)
    again = Registry(TableConfig(bot_delay=0), any_store)
    assert again.load() == 1
    t2 = again.tables["t1"]
    assert t2.game is not None and t2.game.hand is not None
    assert t2.game.hand.actions == game.hand.actions and t2.game.scores == game.scores
    assert t2.seats[0].occupant is not None and t2.options == {"hands_per_game": 2}
    again.close()


# --- PostgreSQL: its writer, its faults, its checks at start -----------------------------------
def test_writes_resume_after_postgresql_restarts(pg_folder: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    server = start_postgres(pg_folder)
    try:
        store = open_store(server.url)
        assert isinstance(store, PgStore)
        store.save_table(table())
        for i in range(100):
            store.add_action("t", act(i))
        assert store.flush(30) and store.problem is None
        server.stop()
        with caplog.at_level(logging.WARNING, "net.store"):
            began = time.monotonic()
            for i in range(100, 400):
                store.add_action("t", act(i))
            assert time.monotonic() - began < 1.0  # queued: the caller never waits for it
            deadline = time.monotonic() + 20
            while store.problem is None and time.monotonic() < deadline:
                time.sleep(0.02)
            assert store.problem is not None and "cannot save right now" in store.problem
            assert store.pending > 0
            server.start()
            assert store.flush(60)
        assert store.problem is None
        errors = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert len(errors) == 1 and server.url.rsplit("@", 1)[1] in errors[0].getMessage()
        assert any("writes work again" in r.getMessage() for r in caplog.records)
        assert [r.i for r in store.actions("t", 1)] == list(range(400))  # reads reconnect
        store.close()
    finally:
        server.stop()


def test_a_full_queue_drops_its_oldest_writes_with_an_error(
        pg_server: PgServer, pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    store = PgStore(pg_url, queue_limit=10)
    store.save_table(table())
    assert store.flush(30)
    pg_server.stop()
    try:
        with caplog.at_level(logging.ERROR, "net.store"):
            for i in range(40):
                store.add_action("t", act(i))
            assert store.dropped >= 20 and store.pending <= 40 - store.dropped
            assert any("writes are waiting already" in r.getMessage() for r in caplog.records)
    finally:
        pg_server.start()
    assert store.flush(60) and store.problem is None
    kept = [r.i for r in store.actions("t", 1)]
    assert kept[-10:] == list(range(30, 40)) and len(kept) == 40 - store.dropped
    store.close()


def test_a_write_postgresql_refuses_is_dropped_alone(pg_url: str,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    store = open_store(pg_url)
    store.save_table(table())
    with caplog.at_level(logging.ERROR, "net.store"):
        store.add_action("t", act(0))
        store.finish_hand("t", 1, 1, "a record with a NUL \x00 in it")  # text cannot hold it
        store.add_action("t", act(1))
        assert store.flush(30)
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and "save a hand of table t" in errors[0]
    assert store.actions("t", 1) == [act(0), act(1)] and store.hand_records("t") == []
    assert store.failures == 1
    store.close()


def test_closing_while_postgresql_is_away_says_what_was_not_saved(
        pg_server: PgServer, pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    store = PgStore(pg_url)
    store.save_table(table())
    assert store.flush(30)
    pg_server.stop()
    try:
        with caplog.at_level(logging.ERROR, "net.store"):
            for i in range(5):
                store.add_action("t", act(i))
            began = time.monotonic()
            store.close(timeout=0.5)
            assert time.monotonic() - began < 5
        assert any("closed with 5 writes not saved" in r.getMessage() for r in caplog.records)
    finally:
        pg_server.start()


def test_postgresql_that_cannot_be_reached_stops_the_start() -> None:
    url = f"postgresql://nobody:secret@127.0.0.1:{free_port('127.0.0.1')}/mahjong"
    with pytest.raises(StorageError) as refused:
        open_store(url)
    text = str(refused.value)
    assert "cannot be reached" in text and "--db" in text and "secret" not in text
    assert "\n" not in text


def test_a_postgresql_database_of_a_newer_server_is_refused(pg_url: str) -> None:
    import psycopg

    open_store(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("UPDATE store_meta SET value = value + 1 WHERE key = 'version'")
    with pytest.raises(StorageError, match="written by a newer mahjong-ssh"):
        open_store(pg_url)


def test_a_postgresql_database_of_another_program_is_refused(pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("CREATE TABLE tables (name TEXT PRIMARY KEY, legs INTEGER)")
    with pytest.raises(StorageError, match="its tables table lacks rules, options"):
        open_store(pg_url)


def test_postgresql_failing_reads_are_faults_not_crashes(pg_server: PgServer,
                                                         pg_url: str) -> None:
    store = open_store(pg_url)
    ann = store.account_for_key("SHA256:ann", "ann")
    pg_server.stop()
    try:
        assert store.has_table("t")  # unknown: do not make a table that may be there
        assert store.leaderboard() == [] and store.load_settings(ann.id) is None
        temporary = store.account_for_key("SHA256:bob", "bob")
        assert temporary.id < 0 and store.problem is not None
        with pytest.raises(StorageError, match="cannot read the tables"):
            store.load_tables()
    finally:
        pg_server.start()
    time.sleep(1.1)  # a read tries to reconnect at most once a second
    assert store.account_for_key("SHA256:ann", "x") == ann
    store.close()


def test_a_version_1_postgresql_database_gains_the_results_bot_flag(pg_url: str) -> None:
    import psycopg

    store = PgStore(pg_url)
    ann = store.account_for_key("SHA256:ann", "ann")
    store.finish_game("t", 1, "gejiu", [(ann.id, 0, 5, 1, 4)])
    assert store.flush(30)
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as db:  # back to what version 1 made
        db.execute("ALTER TABLE results DROP COLUMN bot")
        db.execute("UPDATE store_meta SET value = 1 WHERE key = 'version'")
    again = PgStore(pg_url)
    try:
        assert [(r.nickname, r.bot_games) for r in again.leaderboard()] == [("ann", 0)]
        again.finish_game("t", 2, "gejiu", [(ann.id, 0, 5, 1, 4)], bots=[0])
        assert again.flush(30)
        assert [(r.games, r.bot_games) for r in again.leaderboard()] == [(2, 1)]
    finally:
        again.close()
    with psycopg.connect(pg_url, autocommit=True) as db:
        row = db.execute("SELECT value FROM store_meta WHERE key = 'version'").fetchone()
        assert row is not None and row[0] == PG_STORE_VERSION
