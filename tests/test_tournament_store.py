"""Tournaments kept in the store (net/store/tournaments.py, issue 56): saved whole after each
change, read back the same after a restart, on SQLite and PostgreSQL; an older database
gets the tables."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

from engine.tournament import Entry, TableResult, Tournament
from net.store import STORE_VERSION, Store, open_store
from net.store.postgres import PG_STORE_VERSION
from net.store.sqlite_file import open_sqlite

TABLES = "tournaments, tournament_entries, tournament_rounds, tournament_tables"


def _tournament(name: str = "club", n: int = 6) -> Tournament:
    t = Tournament(name, "shangrao", 3, host=1, seed=424242, duplicate=True,
                   options=(("hands_per_game", 4),), fill_level="hard")
    for i in range(1, n + 1):
        t.join(Entry(i, f"p{i}"))
    return t


def test_a_tournament_survives_a_restart(any_store: Store, tmp_path: Path,
                                         request: pytest.FixtureRequest) -> None:
    store = any_store
    open_one = _tournament("open", 3)
    assert store.save_tournament(open_one)
    running = _tournament()
    round1 = running.start()
    assert store.save_tournament(running)
    running.record(1, 1, TableResult(((8, -8, 0, 0), (0, 0, 0, 0)), ((0,), ()), "k7m2x9qd"))
    assert store.save_tournament(running)
    assert store.flush(10)
    path = store.path
    store.close()  # a restart: the same file, or the same database
    store = open_store(path if isinstance(path, Path) else request.getfixturevalue("pg_url"))
    try:
        back = store.load_tournaments()
        assert [t.name for t in back] == ["open", "club"]
        assert back[0] == open_one and back[1] == running
        assert back[1].played[0].tables == round1.tables
        assert back[1].played[0].results[1].game_id == "k7m2x9qd"
        # it goes on where it was: the second table ends the round, the next is seated
        nxt = back[1].record(1, 2, TableResult(((0, 0, 0, 0),)))
        assert nxt is not None and nxt.no == 2
        assert store.save_tournament(back[1]) and store.flush(10)
        again = store.load_tournaments()[1]
        assert again == back[1] and again.played[0].over
    finally:
        store.close()


def test_a_second_save_changes_only_what_changed(any_store: Store) -> None:
    t = _tournament()
    assert any_store.save_tournament(t)
    t.join(Entry(99, "late"))
    t.start()
    assert any_store.save_tournament(t) and any_store.flush(10)
    (back,) = any_store.load_tournaments()
    assert back == t and back.entries[-1].name == "late"


def test_older_databases_are_given_the_tournaments(tmp_path: Path,
                                                    request: pytest.FixtureRequest) -> None:
    path = tmp_path / "old.db"
    open_sqlite(path).close()
    db = sqlite3.connect(path)  # the file as the version before left it
    db.executescript("".join(f"DROP TABLE {n};" for n in TABLES.split(", "))
                     + f"PRAGMA user_version = {STORE_VERSION - 1};")
    db.close()
    store = open_sqlite(path)
    assert store.version == STORE_VERSION
    t = _tournament()
    assert store.save_tournament(t) and store.load_tournaments() == [t]
    store.close()
    url = request.getfixturevalue("pg_url")
    open_store(url).close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("".join(f"DROP TABLE {n};" for n in TABLES.split(", "))
                     + f"UPDATE store_meta SET value = {PG_STORE_VERSION - 1} "
                     "WHERE key = 'version'")
    pg = open_store(url)
    try:
        assert pg.version == PG_STORE_VERSION
        assert pg.save_tournament(t) and pg.flush(10) and pg.load_tournaments() == [t]
    finally:
        pg.close()
