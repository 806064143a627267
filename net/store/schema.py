"""The store's tables, written once for both databases (SQLite's and PostgreSQL's types are
a :class:`~net.store.core.Dialect`'s words), the columns every version's file has, and the
migration steps whose logic does not depend on the database.

SQLite keeps each ``CREATE TABLE`` text in the file, comments included: its rendering of
:data:`SCHEMA_TEXT` is the text it has always written."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

from net.game_id import new_game_id
from net.sanitize import clean_name, guest_name, name_variant, skeleton
from net.store.ratings import RATING_SCHEMA

# {serial}: the accounts' own id; {id}: an account id or a token (64 bits); {real}: a time
SCHEMA_TEXT = """
CREATE TABLE IF NOT EXISTS accounts (
    id {serial},
    key_fingerprint TEXT UNIQUE,          -- SHA256:... of the public key; NULL: anonymous
    nickname TEXT NOT NULL UNIQUE,
    created {real} NOT NULL,
    last_seen {real} NOT NULL,
    skeleton TEXT                         -- net.sanitize.skeleton(nickname): no two look alike
);
CREATE TABLE IF NOT EXISTS tables (
    name TEXT PRIMARY KEY,
    rules TEXT NOT NULL,
    options TEXT NOT NULL,                -- JSON object
    state TEXT NOT NULL,                  -- JSON: seats, spectators' stakes, game seed, ...
    created {real} NOT NULL,
    updated {real} NOT NULL,
    owner_token {id} NOT NULL DEFAULT 0  -- the claim that owns it (fencing); 0: none
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
    finished {real} NOT NULL,
    PRIMARY KEY (table_name, game_no, hand_no)
);
CREATE TABLE IF NOT EXISTS results (
    table_name TEXT NOT NULL,
    game_no INTEGER NOT NULL,
    account_id {id} NOT NULL,
    seat INTEGER NOT NULL,
    score INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    hands INTEGER NOT NULL,
    rules TEXT NOT NULL,
    finished {real} NOT NULL,
    bot INTEGER NOT NULL DEFAULT 0,       -- 1: a program played the seat (bot join)
    PRIMARY KEY (table_name, game_no, seat)
);
CREATE TABLE IF NOT EXISTS settings (     -- what a key's owner chose in the settings screen
    account_id {id} PRIMARY KEY,
    data TEXT NOT NULL,                   -- JSON object: lang, tiles, theme, hints
    updated {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS stake_results (  -- Yichun 压鸽子: a spectator's result in a game
    table_name TEXT NOT NULL,
    game_no INTEGER NOT NULL,
    account_id {id} NOT NULL,
    score INTEGER NOT NULL,
    hands INTEGER NOT NULL,               -- hands in which the spectator's stake applied
    rules TEXT NOT NULL,
    finished {real} NOT NULL,
    PRIMARY KEY (table_name, game_no, account_id)
);
CREATE TABLE IF NOT EXISTS games (       -- finished games kept for replay (net/game_id.py)
    game_id TEXT PRIMARY KEY,             -- eight characters, made with secrets at the end
    table_name TEXT NOT NULL,             -- where it was played (the name may be reused)
    game_no INTEGER NOT NULL,
    rules TEXT NOT NULL,
    hands INTEGER NOT NULL,
    record TEXT NOT NULL,                 -- the whole game's JSON-lines record, a copy
    finished {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS game_players (  -- who sat in a kept game (a computer: no row)
    game_id TEXT NOT NULL,
    account_id {id} NOT NULL,
    seat INTEGER NOT NULL,
    score INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX IF NOT EXISTS game_players_account ON game_players (account_id);
CREATE TABLE IF NOT EXISTS account_secrets (  -- keyless accounts (net/front/accounts.py)
    account_id {id} PRIMARY KEY,
    kind TEXT NOT NULL,                   -- 'passphrase' or 'guest'
    hash TEXT,                            -- scrypt$N$r$p$salt$key (hex); NULL for a guest
    created {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS bans (      -- operators' bans (net/front/operators.py)
    kind TEXT NOT NULL,                   -- 'key', 'name', 'address' or 'net'
    target TEXT NOT NULL,                 -- fingerprint, name, address or network
    account_id {id},                      -- a name's account (NULL for the others)
    reason TEXT NOT NULL,
    operator TEXT NOT NULL,
    created {real} NOT NULL,
    expires {real},                       -- NULL: until unbanned
    PRIMARY KEY (kind, target)
);
CREATE TABLE IF NOT EXISTS mutes (      -- accounts whose chat an operator refuses
    account_id {id} PRIMARY KEY,
    nickname TEXT NOT NULL,
    until {real},                         -- NULL: until unmuted
    operator TEXT NOT NULL,
    created {real} NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (      -- every operator action, oldest first
    at {real} NOT NULL,
    operator TEXT NOT NULL,               -- name (key fingerprint)
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_at ON audit (at);
CREATE TABLE IF NOT EXISTS ignores (    -- whose chat an account hides for itself (/ignore)
    account_id {id} NOT NULL,
    ignored_id {id} NOT NULL,
    created {real} NOT NULL,
    PRIMARY KEY (account_id, ignored_id)
);
CREATE TABLE IF NOT EXISTS reports (    -- players' reports for the operators (/report)
    at {real} NOT NULL,
    reporter_id {id} NOT NULL,
    reporter TEXT NOT NULL,               -- the names as they were then
    reported_id {id} NOT NULL,
    reported TEXT NOT NULL,
    table_name TEXT NOT NULL,             -- '': made over SSH or in the lobby
    reason TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reports_by ON reports (reporter_id, at);
CREATE TABLE IF NOT EXISTS tournaments (  -- engine/tournament.py, net/store/tournaments.py
    name TEXT PRIMARY KEY,
    rules TEXT NOT NULL,
    options TEXT NOT NULL,                -- JSON object: its tables' options
    rounds INTEGER NOT NULL,              -- K rounds in all
    duplicate INTEGER NOT NULL,           -- 1: every table of a round plays the same deals
    host {id} NOT NULL,                   -- the account that created it
    host_name TEXT NOT NULL,              -- its name then
    seed {id} NOT NULL,                   -- the server's secret: seating and deals
    fill_level TEXT NOT NULL,             -- the computers that fill a table short of people
    round_seconds INTEGER NOT NULL,       -- a round's time limit (0: none)
    state TEXT NOT NULL,                  -- 'open', 'running' or 'finished'
    created {real} NOT NULL,
    updated {real} NOT NULL,
    setup TEXT NOT NULL DEFAULT '{{}}'    -- JSON: its set start, whether private, its invited
);
CREATE TABLE IF NOT EXISTS tournament_entries (
    tournament TEXT NOT NULL,
    pid {id} NOT NULL,                    -- an account's id (a computer entered: below 0)
    name TEXT NOT NULL,
    level TEXT,                           -- a computer entered: its level
    joined INTEGER NOT NULL,              -- the order of joining (a tie-break)
    PRIMARY KEY (tournament, pid)
);
CREATE TABLE IF NOT EXISTS tournament_rounds (
    tournament TEXT NOT NULL,
    round_no INTEGER NOT NULL,
    seed {id} NOT NULL,                   -- published when the round is over
    over INTEGER NOT NULL,
    PRIMARY KEY (tournament, round_no)
);
CREATE TABLE IF NOT EXISTS tournament_tables (
    tournament TEXT NOT NULL,
    round_no INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    seed {id} NOT NULL,                   -- its game's seed (a duplicate round's: the round's)
    seats TEXT NOT NULL,                  -- JSON: four seats by wind (a computer's pid: null)
    game_id TEXT NOT NULL,                -- the finished game (net/game_id.py); '': playing
    result TEXT,                          -- JSON: each hand's nets and winners; NULL: playing
    PRIMARY KEY (tournament, round_no, table_no)
);
""" + RATING_SCHEMA

CORE_TABLES = ("accounts", "tables", "actions", "hands", "results")  # in every version's file


def _schema_columns() -> dict[str, tuple[str, ...]]:
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA_TEXT.format(serial="INTEGER PRIMARY KEY", id="INTEGER",
                                            real="REAL"))
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {n: tuple(r[1] for r in db.execute(f"PRAGMA table_info({n})")) for n in names}
    finally:
        db.close()


EXPECTED_COLUMNS = _schema_columns()  # table -> its columns, as SCHEMA_TEXT makes them


def renamed_accounts(rows: Sequence[tuple[int, str, bool]]) -> list[tuple[int, str, str]]:
    """What accounts ``(id, nickname, guest)`` (every one, oldest first) are called from now
    on, with their skeletons: a name a login could not get now (mixed scripts, an invisible
    character, a guest's mark; net.sanitize.clean_name) is cleaned, a guest's gets the
    guest's mark, and a name that looks like an older account's (the same skeleton) gets a
    variant, so that no two accounts look alike. ``(id, name, skeleton)`` for each."""
    in_use = {nickname for _, nickname, _ in rows}
    seen: set[str] = set()
    out = []
    for account_id, nickname, guest in rows:
        wanted = clean_name(nickname)
        if guest:
            wanted = guest_name(wanted)
        name, n = wanted, 1
        while skeleton(name) in seen or (name != nickname and name in in_use):
            n += 1
            name = name_variant(wanted, n)
        in_use.discard(nickname)
        in_use.add(name)
        seen.add(skeleton(name))
        out.append((account_id, name, skeleton(name)))
    return out


def keep_old_games(db: Any, sql: Callable[[str], str]) -> None:
    """Every finished game of before (a ``results`` group) kept for replay under a new ID,
    its record put together from the ``hands`` rows it still has (``sql``: the dialect's
    translation; its ``{hands_record}`` puts a game's record together)."""
    groups = db.execute("SELECT table_name, game_no, MAX(rules), MAX(finished), MAX(hands) "
                        "FROM results GROUP BY table_name, game_no").fetchall()
    for table, game_no, rules, finished, hands in groups:
        game_id = new_game_id()
        cur = db.execute(sql(
            "INSERT INTO games (game_id, table_name, game_no, rules, hands, record, finished) "
            "SELECT ?, ?, ?, ?, ?, {hands_record}, ? WHERE EXISTS (SELECT 1 "
            "FROM hands WHERE table_name = ? AND game_no = ?) ON CONFLICT DO NOTHING"),
            (game_id, table, game_no, rules, hands, "", table, game_no, hands, finished,
             table, game_no))
        if cur.rowcount == 1:
            db.execute(sql("INSERT INTO game_players (game_id, account_id, seat, score) "
                           "SELECT ?, account_id, seat, score FROM results WHERE table_name = ? "
                           "AND game_no = ? ON CONFLICT DO NOTHING"), (game_id, table, game_no))


def give_skeletons(db: Any, sql: Callable[[str], str]) -> None:
    """Every account's name's skeleton (net.sanitize), looked up when a name is given (the
    ``skeleton`` column is there): the names of before renamed as :func:`renamed_accounts`
    says (a guest's marked, look-alikes and names a login could not get now given a
    variant)."""
    db.execute("CREATE INDEX IF NOT EXISTS accounts_skeleton ON accounts (skeleton)")
    rows = [(int(i), str(n), bool(g)) for i, n, g in db.execute(
        "SELECT a.id, a.nickname, coalesce(s.kind = 'guest', false) FROM accounts a "
        "LEFT JOIN account_secrets s ON s.account_id = a.id ORDER BY a.id")]
    before = {i: n for i, n, _ in rows}
    renamed = renamed_accounts(rows)
    with contextlib.closing(db.cursor()) as cur:
        # out of the way first: names may swap
        cur.executemany(sql("UPDATE accounts SET nickname = ? WHERE id = ?"),
                        [(f"\x01{i}", i) for i, name, _ in renamed if name != before[i]])
        cur.executemany(sql("UPDATE accounts SET nickname = ?, skeleton = ? WHERE id = ?"),
                        [(name, skel, i) for i, name, skel in renamed])
