"""A table's saved state is a typed record with a schema version, and the database has one
too: a file written before either existed opens, migrates and resumes its tables; a damaged
field is a CorruptRow (the table quarantined), never a crash in the restore; a file from a
newer server is refused."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from net.runtime.registry import Registry
from net.runtime.shared_table import TableConfig
from net.store import (
    STORE_VERSION,
    TABLE_STATE_VERSION,
    CorruptRow,
    SavedHandStakes,
    SavedSeat,
    SavedStake,
    SavedTable,
    SqliteStore,
    StorageError,
    TableRow,
    open_store,
)

# The tables of a database as the server wrote them before the store had a schema version
# (PRAGMA user_version 0), frozen here: later schemas must keep opening such a file.
SCHEMA_V0 = """
CREATE TABLE accounts (id INTEGER PRIMARY KEY, key_fingerprint TEXT UNIQUE,
    nickname TEXT NOT NULL UNIQUE, created REAL NOT NULL, last_seen REAL NOT NULL);
CREATE TABLE tables (name TEXT PRIMARY KEY, rules TEXT NOT NULL, options TEXT NOT NULL,
    state TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL);
CREATE TABLE actions (table_name TEXT NOT NULL, game_no INTEGER NOT NULL,
    hand_no INTEGER NOT NULL, i INTEGER NOT NULL, seat INTEGER NOT NULL, action TEXT NOT NULL,
    PRIMARY KEY (table_name, game_no, hand_no, i));
CREATE TABLE hands (table_name TEXT NOT NULL, game_no INTEGER NOT NULL,
    hand_no INTEGER NOT NULL, record TEXT NOT NULL, finished REAL NOT NULL,
    PRIMARY KEY (table_name, game_no, hand_no));
CREATE TABLE results (table_name TEXT NOT NULL, game_no INTEGER NOT NULL,
    account_id INTEGER NOT NULL, seat INTEGER NOT NULL, score INTEGER NOT NULL,
    wins INTEGER NOT NULL, hands INTEGER NOT NULL, rules TEXT NOT NULL, finished REAL NOT NULL,
    PRIMARY KEY (table_name, game_no, seat));
"""

# what today's code wrote for a waiting table with one player (every field present) ...
STATE_V0_FULL = {
    "seats": [{"account": 1, "name": "ann"}, None, None, None], "game_seed": None,
    "game_no": 0, "hands_started": 0, "allow": [True, False, True, True],
    "stakes": [{"account": 2, "name": "bob", "backs": 0}],
    "hand_stakes": {"1": {"stakes": [{"account": 2, "name": "bob", "backs": 0}],
                          "allow": [0, 2, 3]}},
    "bot_levels": ["normal", "easy", "normal", "normal"], "creator": 1,
}
# ... and what an older one wrote: the fields added later are missing
STATE_V0_OLD = {"seats": [{"account": 1, "name": "ann"}, None, None, None], "game_seed": None,
                "game_no": 0}


def v0_database(path: Path, states: dict[str, dict[str, Any] | str]) -> Path:
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_V0)
    db.execute("INSERT INTO accounts VALUES (1, 'SHA256:ann', 'ann', 0, 0)")
    db.execute("INSERT INTO accounts VALUES (2, 'SHA256:bob', 'bob', 0, 0)")
    for i, (name, state) in enumerate(states.items()):
        text = state if isinstance(state, str) else json.dumps(state)
        db.execute("INSERT INTO tables VALUES (?, 'yichun', '{}', ?, ?, ?)", (name, text, i, i))
    db.commit()
    assert db.execute("PRAGMA user_version").fetchone()[0] == 0
    db.close()
    return path


def stored_state(path: Path, name: str) -> Any:
    db = sqlite3.connect(path)
    try:
        return json.loads(db.execute("SELECT state FROM tables WHERE name = ?",
                                     (name,)).fetchone()[0])
    finally:
        db.close()


def test_a_database_from_before_the_schema_version_opens_migrates_and_resumes(
        tmp_path: Path) -> None:
    path = v0_database(tmp_path / "db.sqlite3",
                       {"full": STATE_V0_FULL, "old": STATE_V0_OLD, "bad": "[1, 2"})
    store = open_store(path)
    assert store.version == STORE_VERSION
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == STORE_VERSION
    rows = {r.name: r for r in store.load_tables()}
    full = rows["full"].state
    assert full == SavedTable(
        seats=(SavedSeat(1, "ann"), None, None, None), allow=(True, False, True, True),
        stakes=(SavedStake(2, "bob", 0),),
        hand_stakes=((1, SavedHandStakes((SavedStake(2, "bob", 0),), (0, 2, 3))),),
        bot_levels=("normal", "easy", "normal", "normal"), creator=1)
    assert rows["old"].state == SavedTable(seats=(SavedSeat(1, "ann"), None, None, None))
    assert (rows["bad"].fault or "").startswith("its state is not JSON")
    # the readable states were rewritten in the current layout, the damaged one left alone
    assert stored_state(path, "old")["schema_version"] == TABLE_STATE_VERSION
    assert stored_state(path, "full") == {**STATE_V0_FULL, "host": "", "private": False,
                                          "invited": [], "watchers": True,
                                          "schema_version": TABLE_STATE_VERSION}
    db = sqlite3.connect(path)
    assert db.execute("SELECT state FROM tables WHERE name = 'bad'").fetchone()[0] == "[1, 2"
    db.close()
    reg = Registry(TableConfig(bot_delay=0), store)
    counts = reg.load()
    assert (counts.restored, counts.quarantined) == (2, 1)
    t = reg.tables["full"]
    assert t.seats[0].occupant is not None and t.seats[0].occupant.name == "ann"
    assert [s.allow_spectators for s in t.seats] == [True, False, True, True]
    assert t.bot_levels == ("normal", "easy", "normal", "normal") and t.creator == 1
    assert t.row().state == full  # what it saves again is what it read
    reg.close()
    store.close()
    again = SqliteStore(path)  # migrated once: opening again changes nothing
    assert again.version == STORE_VERSION and again.load_tables()[0].state == full
    again.close()


def test_a_database_of_a_newer_server_is_refused(tmp_path: Path) -> None:
    path = v0_database(tmp_path / "db.sqlite3", {"t": STATE_V0_FULL})
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {STORE_VERSION + 1}")
    db.close()
    with pytest.raises(StorageError, match="written by a newer mahjong-ssh"):
        open_store(path)


def test_a_saved_table_round_trips_through_the_store(tmp_path: Path) -> None:
    state = SavedTable(
        seats=(None, SavedSeat(7, "wes"), None, SavedSeat(8, "E*")), game_seed=12345,
        game_no=3, hands_started=2, allow=(False, True, True, True),
        stakes=(SavedStake(9, "kim", 3),),
        hand_stakes=((1, SavedHandStakes()), (2, SavedHandStakes((SavedStake(9, "kim", 3),),
                                                                  (1, 2, 3)))),
        bot_levels=("easy", "easy", "hard", "normal"), creator=7)
    store = SqliteStore(tmp_path / "db.sqlite3")
    store.save_table(TableRow("t", "shangrao", {"hands_per_game": 4}, state))
    [row] = store.load_tables()
    store.close()
    assert row.fault is None and row.state == state and row.options == {"hands_per_game": 4}
    assert SavedTable.from_json(state.to_json()) == state


@pytest.mark.parametrize(("change", "problem"), [
    ({"seats": [None, None, None]}, "its state.seats has 3 entries, not 4"),
    ({"seats": [{"account": "1", "name": "ann"}, None, None, None]},
     "its state.seats[0].account is '1', not a whole number"),
    ({"seats": [{"name": "ann"}, None, None, None]}, "its state.seats[0] lacks 'account'"),
    ({"game_seed": 1.5}, "its state.game_seed is 1.5, not a whole number"),
    ({"hands_started": True}, "its state.hands_started is True, not a whole number"),
    ({"allow": [1, 1, 1, 1]}, "its state.allow[0] is 1, not true or false"),
    ({"stakes": [{"account": 2, "name": "bob", "backs": 4}]},
     "its state.stakes[0].backs is 4, not a seat (0–3)"),
    ({"hand_stakes": {"one": {}}}, "its state.hand_stakes has the key 'one', not a hand number"),
    ({"hand_stakes": {"1": {"allow": "all"}}},
     "its state.hand_stakes.1.allow is 'all', not a list"),
    ({"bot_levels": "normal"}, "its state.bot_levels is 'normal', not a list"),
    ({"creator": "ann"}, "its state.creator is 'ann', not a whole number"),
    ({"schema_version": 99}, "its state has schema_version 99 (this server reads 0 to 2)"),
], ids=["seats", "account", "no-account", "seed", "bool-count", "allow", "backs", "hand-key",
        "hand-allow", "levels", "creator", "version"])
def test_every_field_of_a_saved_state_is_checked(
        tmp_path: Path, change: dict[str, Any], problem: str) -> None:
    state = {**STATE_V0_FULL, "schema_version": 1, **change}
    with pytest.raises(CorruptRow) as info:
        SavedTable.from_json(state)
    assert str(info.value) == problem
    # and in a stored row: the table is quarantined with that reason
    store = SqliteStore(v0_database(tmp_path / "db.sqlite3", {"t": state}))
    [row] = store.load_tables()
    assert row.fault == problem
    reg = Registry(TableConfig(bot_delay=0), store)
    reg.load()
    assert "t" in reg.quarantined and "t" not in reg.tables
    reg.close()
    store.close()


def test_a_version_1_state_must_name_every_field() -> None:
    """Only the version-0 layout left fields out: a current record lacking one is damage."""
    state = SavedTable().to_json()
    del state["creator"]
    with pytest.raises(CorruptRow, match="its state lacks 'creator'"):
        SavedTable.from_json(state)
