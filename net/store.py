"""Persistence: one SQLite file in the data folder (stdlib ``sqlite3``, used in ``net`` only).

What is stored: accounts (a public key's SHA-256 fingerprint or an anonymous nickname — no
secret), tables (ruleset, options, game seed, who sits where), every applied action of the
current game (one small row per action, so a server killed mid-hand resumes at its last
applied action), every finished hand's game record (the engine's JSON-lines format) and each
finished game's results, from which the leaderboard is computed.

Writes are single small statements in WAL mode with ``synchronous=NORMAL``: well under a
millisecond, so they run on the event loop. A committed row survives the process being
killed (not a power cut).
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
"""


@dataclass(frozen=True)
class Account:
    id: int
    nickname: str
    key_fingerprint: str | None = None

    @property
    def anonymous(self) -> bool:
        return self.key_fingerprint is None


@dataclass
class TableRow:
    name: str
    rules: str
    options: dict[str, Any]
    state: dict[str, Any] = field(default_factory=dict)


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


class Store:
    """The server's SQLite database."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path) if str(path) != ":memory:" else path
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

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
        now = time.time()
        row = self.db.execute(
            "SELECT id, nickname FROM accounts WHERE key_fingerprint = ?", (fingerprint,)
        ).fetchone()
        if row is not None:
            self.db.execute("UPDATE accounts SET last_seen = ? WHERE id = ?", (now, row[0]))
            return Account(row[0], row[1], fingerprint)
        name = self._unique_nickname(wanted)
        cur = self.db.execute(
            "INSERT INTO accounts (key_fingerprint, nickname, created, last_seen) "
            "VALUES (?, ?, ?, ?)", (fingerprint, name, now, now))
        assert cur.lastrowid is not None
        return Account(cur.lastrowid, name, fingerprint)

    def load_settings(self, account_id: int) -> dict[str, Any] | None:
        row = self.db.execute("SELECT data FROM settings WHERE account_id = ?",
                              (account_id,)).fetchone()
        if row is None:
            return None
        try:
            data = json.loads(row[0])
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def save_settings(self, account_id: int, data: dict[str, Any]) -> None:
        self.db.execute(
            "INSERT INTO settings (account_id, data, updated) VALUES (?, ?, ?) "
            "ON CONFLICT(account_id) DO UPDATE SET data = excluded.data, "
            "updated = excluded.updated",
            (account_id, json.dumps(data, ensure_ascii=False), time.time()))

    def account_anonymous(self, wanted: str) -> Account:
        """An account without a key: the nickname is all there is. A nickname held by a key
        account is not given away: the anonymous player gets a suffixed one."""
        now = time.time()
        name, n = wanted, 1
        while True:
            row = self.db.execute(
                "SELECT id, key_fingerprint FROM accounts WHERE nickname = ?", (name,)
            ).fetchone()
            if row is None:
                break
            if row[1] is None:  # this nickname's anonymous account
                self.db.execute("UPDATE accounts SET last_seen = ? WHERE id = ?", (now, row[0]))
                return Account(row[0], name, None)
            n += 1
            name = f"{wanted[:13]}-{n}"
        cur = self.db.execute(
            "INSERT INTO accounts (key_fingerprint, nickname, created, last_seen) "
            "VALUES (NULL, ?, ?, ?)", (name, now, now))
        assert cur.lastrowid is not None
        return Account(cur.lastrowid, name, None)

    # --- tables ---------------------------------------------------------------------------
    def save_table(self, row: TableRow) -> None:
        now = time.time()
        self.db.execute(
            "INSERT INTO tables (name, rules, options, state, created, updated) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
            "rules = excluded.rules, options = excluded.options, state = excluded.state, "
            "updated = excluded.updated",
            (row.name, row.rules, json.dumps(row.options), json.dumps(row.state), now, now))

    def delete_table(self, name: str) -> None:
        self.db.execute("DELETE FROM tables WHERE name = ?", (name,))
        self.db.execute("DELETE FROM actions WHERE table_name = ?", (name,))

    def load_tables(self) -> list[TableRow]:
        rows = self.db.execute(
            "SELECT name, rules, options, state FROM tables ORDER BY created").fetchall()
        return [TableRow(n, r, json.loads(o), json.loads(s)) for n, r, o, s in rows]

    def add_action(self, table: str, row: ActionRow) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO actions (table_name, game_no, hand_no, i, seat, action) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (table, row.game_no, row.hand_no, row.i, row.seat, json.dumps(row.action)))

    def actions(self, table: str, game_no: int) -> list[ActionRow]:
        rows = self.db.execute(
            "SELECT hand_no, i, seat, action FROM actions WHERE table_name = ? AND game_no = ? "
            "ORDER BY hand_no, i", (table, game_no)).fetchall()
        return [ActionRow(game_no, h, i, s, json.loads(a)) for h, i, s, a in rows]

    def drop_actions(self, table: str, before_game: int) -> None:
        self.db.execute("DELETE FROM actions WHERE table_name = ? AND game_no < ?",
                        (table, before_game))

    def finish_hand(self, table: str, game_no: int, hand_no: int, record: str) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO hands (table_name, game_no, hand_no, record, finished) "
            "VALUES (?, ?, ?, ?, ?)", (table, game_no, hand_no, record, time.time()))

    def hand_records(self, table: str) -> list[str]:
        rows = self.db.execute(
            "SELECT record FROM hands WHERE table_name = ? ORDER BY game_no, hand_no",
            (table,)).fetchall()
        return [r[0] for r in rows]

    def finish_game(self, table: str, game_no: int, rules: str,
                    rows: list[tuple[int, int, int, int, int]]) -> None:
        """``rows``: (account_id, seat, score, wins, hands) for each human seat."""
        now = time.time()
        self.db.executemany(
            "INSERT OR REPLACE INTO results (table_name, game_no, account_id, seat, score, wins, "
            "hands, rules, finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(table, game_no, a, s, sc, w, h, rules, now) for a, s, sc, w, h in rows])

    def finish_stakes(self, table: str, game_no: int, rules: str,
                      rows: list[tuple[int, int, int]]) -> None:
        """``rows``: (account_id, score, hands) for each spectator who staked (压鸽子)."""
        now = time.time()
        self.db.executemany(
            "INSERT OR REPLACE INTO stake_results (table_name, game_no, account_id, score, "
            "hands, rules, finished) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(table, game_no, a, sc, h, rules, now) for a, sc, h in rows])

    def leaderboard(self, limit: int = 20, rules: str | None = None) -> list[LeaderRow]:
        """Seated results and spectators' stake results (压鸽子) together; a game counts
        once per account and role. ``rules``: that ruleset's games only (their points are
        on different scales)."""
        where, params = ("WHERE rules = ?", (rules,)) if rules else ("", ())
        rows = self.db.execute(
            "SELECT a.nickname, COUNT(*), SUM(r.hands), SUM(r.wins), SUM(r.score) "
            f"FROM (SELECT account_id, hands, wins, score FROM results {where} "
            f"      UNION ALL SELECT account_id, hands, 0, score FROM stake_results {where}) r "
            "JOIN accounts a ON a.id = r.account_id "
            "GROUP BY r.account_id ORDER BY SUM(r.score) DESC, SUM(r.wins) DESC, a.nickname "
            "LIMIT ?", (*params, *params, limit)).fetchall()
        return [LeaderRow(n, g, h or 0, w or 0, s or 0) for n, g, h, w, s in rows]

    def rulesets_played(self) -> list[str]:
        """The rulesets with a finished game, in the order first played."""
        rows = self.db.execute(
            "SELECT rules FROM (SELECT rules, finished FROM results "
            "UNION ALL SELECT rules, finished FROM stake_results) "
            "GROUP BY rules ORDER BY MIN(finished)").fetchall()
        return [r for (r,) in rows]


def open_store(path: Path | str) -> Store:
    """The server's database, checked before anything is served: :class:`StorageError` with
    one clear line when it must not be used."""
    return Store(path)
