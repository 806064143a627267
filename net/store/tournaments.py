"""Tournaments (engine/tournament.py) on either database: the tournament's row, its entries,
its rounds and each round's tables with their results (a finished table's game ID among
them). A tournament is saved whole after each change (every row an upsert, so a save that
failed half-way is made good by the next) and read whole at start, so it survives a restart.
An upsert never takes a tournament back: a table's result is never written back to none, a
round never back to not over, a state never back to an earlier one (a stale save of a
process that did not see the latest change loses nothing of it).

On a server of several workers each change is one read-change-write under the database's
lock (:meth:`TournamentStore.update_tournament`: the tournament's row ``FOR UPDATE`` in a
transaction on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), so two workers that record two
tables' results at once both keep theirs, and only one of them seats the next round.
Written once with ``?`` parameters, as :mod:`net.store.core`."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from engine.tournament import Tournament, TournamentError
from net.store.model import MAX_NAME
from net.store.moderation import ModeratedStore

MAX_TOURNAMENTS_READ = 10_000  # tournaments read at start at most (net.limits keeps fewer)
SAVE_TOURNAMENT = (
    "INSERT INTO tournaments (name, rules, options, rounds, duplicate, host, host_name, seed, "
    "fill_level, round_seconds, state, created, updated, setup) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (name) DO UPDATE SET state = CASE WHEN tournaments.state = 'finished' "
    "OR (tournaments.state = 'running' AND excluded.state = 'open') THEN tournaments.state "
    "ELSE excluded.state END, updated = excluded.updated, setup = excluded.setup")
NEW_TOURNAMENT = SAVE_TOURNAMENT.partition(" ON CONFLICT")[0] + " ON CONFLICT (name) DO NOTHING"
SAVE_ENTRY = ("INSERT INTO tournament_entries (tournament, pid, name, level, joined) "
              "VALUES (?, ?, ?, ?, ?) ON CONFLICT (tournament, pid) DO NOTHING")
SAVE_ROUND = ("INSERT INTO tournament_rounds (tournament, round_no, seed, over) "
              "VALUES (?, ?, ?, ?) ON CONFLICT (tournament, round_no) "
              "DO UPDATE SET over = CASE WHEN tournament_rounds.over = 1 THEN 1 "
              "ELSE excluded.over END")
SAVE_TABLE = (
    "INSERT INTO tournament_tables (tournament, round_no, table_no, seed, seats, game_id, "
    "result) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tournament, round_no, table_no) "
    "DO UPDATE SET game_id = CASE WHEN tournament_tables.result IS NULL "
    "THEN excluded.game_id ELSE tournament_tables.game_id END, "
    "result = COALESCE(tournament_tables.result, excluded.result)")
HEADS = ("SELECT substr(name, 1, ?), rules, options, rounds, duplicate, host, "
         "substr(host_name, 1, ?), seed, fill_level, round_seconds, state, setup "
         "FROM tournaments ")
Rows = Callable[[str, Any], list[tuple[Any, ...]]]


class TournamentStore(ModeratedStore):
    """:class:`ModeratedStore` with the tournaments."""

    def save_tournament(self, tournament: Tournament) -> bool:
        """``tournament`` as it is now (its new entries, rounds and results added, its state
        changed): False where the write failed now (the next save writes it all again)."""
        return self._write("save a tournament", _steps(tournament, SAVE_TOURNAMENT))

    def update_tournament(self, name: str, change: Callable[[Tournament | None],
                                                            Tournament | None]
                          ) -> Tournament | None:
        """One change of tournament ``name``, made on what is stored now and saved in the
        same transaction, under the database's lock (no other process changes it between):
        ``change`` is given the stored tournament (None: there is none) and returns the one
        to save (None: nothing to save). What is stored then is returned (None: none). What
        ``change`` raises undoes it and is raised; TournamentError("tournament_exists") where
        a new one's name was taken meanwhile; StorageError where the database fails."""
        sql = self.dialect.sql

        def work(db: Any) -> Tournament | None:
            def rows(text: str, params: Any) -> list[tuple[Any, ...]]:
                return list(db.execute(sql(text), params).fetchall())

            current = _read_one(rows, name, lock=True)
            new = change(current)
            if new is None:
                return current
            if new.name != name:
                raise ValueError("a tournament's change keeps its name")
            head, *steps = _steps(new, SAVE_TOURNAMENT if current is not None
                                  else NEW_TOURNAMENT)
            if db.execute(sql(head[0]), head[1]).rowcount != 1 and current is None:
                raise TournamentError("tournament_exists")  # made meanwhile elsewhere
            for text, params, _ in steps:
                db.cursor().executemany(sql(text), params)
            return new

        with self._reading(f"change tournament {name}"):
            return self._on_db(work, atomic=True)

    def load_tournament(self, name: str) -> Tournament | None:
        """Tournament ``name`` as stored now (None: none, or a damaged one); StorageError
        where it cannot be read."""
        with self._reading(f"read tournament {name}"):
            return _read_one(self._rows, name, lock=False)

    def kept_game_id(self, table: str, game_no: int) -> str:
        """The ID of table ``table``'s game ``game_no`` kept at its end ("": none): a round's
        table restored by another worker after its game ended names its result's game.
        StorageError where it cannot be read."""
        with self._reading(f"read table {table}'s kept game"):
            row = self._row("SELECT game_id FROM games WHERE table_name = ? AND game_no = ? "
                            "ORDER BY finished DESC LIMIT 1", (table, game_no))
        return str(row[0]) if row is not None else ""

    def table_made(self, table: str) -> float | None:
        """When table ``table``'s row was first saved (Unix time; None: no row): a round's
        table's time limit runs from then, not from a takeover. StorageError where it
        cannot be read."""
        with self._reading(f"read when table {table} was made"):
            row = self._row("SELECT created FROM tables WHERE name = ?", (table,))
        return float(row[0]) if row is not None else None

    def load_tournaments(self) -> list[Tournament]:
        """Every stored tournament, oldest first; StorageError where they cannot be read. A
        tournament whose rows do not make one (a damaged row) is left out."""
        with self._reading("read the tournaments"):
            heads = self._rows(HEADS + "ORDER BY created, name LIMIT ?",
                               (MAX_NAME, MAX_NAME, MAX_TOURNAMENTS_READ))
            entries = self._rows("SELECT tournament, pid, name, level FROM tournament_entries "
                                 "ORDER BY tournament, joined")
            rounds = self._rows("SELECT tournament, round_no, seed FROM tournament_rounds "
                                "ORDER BY tournament, round_no")
            tables = self._rows(
                "SELECT tournament, round_no, table_no, seed, seats, result "
                "FROM tournament_tables ORDER BY tournament, round_no, table_no")
        out = []
        for head in heads:
            try:
                out.append(_tournament(head, entries, rounds, tables))
            except (ValueError, KeyError, TypeError, IndexError):
                continue
        return out


SETUP = ("starts_at", "private", "invited")  # the setup column's JSON: Tournament.to_json's


def _setup(data: dict[str, Any]) -> dict[str, Any]:
    return {k: data[k] for k in SETUP}


def _steps(tournament: Tournament, head: str) -> list[tuple[str, Any, bool]]:
    """The statements that save ``tournament`` whole, its row's first (``head``'s)."""
    data = tournament.to_json()
    now = time.time()
    name = tournament.name
    entries = [(name, e["pid"], e["name"], e["level"], i)
               for i, e in enumerate(data["entries"])]
    rounds = [(name, r["no"], r["seed"], int(r["over"])) for r in data["rounds"]]
    tables = [(name, r["no"], t["no"], t["seed"], json.dumps(t["seats"]),
               (t["result"] or {}).get("game_id", ""),
               None if t["result"] is None else json.dumps(t["result"]))
              for r in data["rounds"] for t in r["tables"]]
    steps: list[tuple[str, Any, bool]] = [(head, (
        name, tournament.rules, json.dumps(data["options"]), tournament.rounds,
        int(tournament.duplicate), tournament.host, tournament.host_name, tournament.seed,
        tournament.fill_level, tournament.round_seconds, tournament.state, now, now,
        json.dumps(_setup(data))), False)]
    steps += [(SAVE_ENTRY, entries, True)] if entries else []
    steps += [(SAVE_ROUND, rounds, True)] if rounds else []
    steps += [(SAVE_TABLE, tables, True)] if tables else []
    return steps


def _read_one(rows: Rows, name: str, lock: bool) -> Tournament | None:
    """Tournament ``name`` read by ``rows`` (its row locked first with ``lock``: the
    statements after it see every change committed before the lock was had)."""
    heads = rows(HEADS + "WHERE name = ?" + ("{for_update}" if lock else ""),
                 (MAX_NAME, MAX_NAME, name))
    if not heads:
        return None
    entries = rows("SELECT tournament, pid, name, level FROM tournament_entries "
                   "WHERE tournament = ? ORDER BY joined", (name,))
    rounds = rows("SELECT tournament, round_no, seed FROM tournament_rounds "
                  "WHERE tournament = ? ORDER BY round_no", (name,))
    tables = rows("SELECT tournament, round_no, table_no, seed, seats, result "
                  "FROM tournament_tables WHERE tournament = ? ORDER BY round_no, table_no",
                  (name,))
    try:
        return _tournament(heads[0], entries, rounds, tables)
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def _tournament(head: Sequence[Any], entries: Sequence[Sequence[Any]],
                rounds: Sequence[Sequence[Any]],
                tables: Sequence[Sequence[Any]]) -> Tournament:
    name, rules, options, k, duplicate, host, host_name, seed, fill, seconds, state, setup = head
    played = []
    for t_name, round_no, round_seed in rounds:
        if t_name != name:
            continue
        rows = [r for r in tables if r[0] == name and r[1] == round_no]
        played.append({
            "no": round_no, "seed": round_seed,
            "tables": [{"no": r[2], "seed": r[3], "seats": json.loads(r[4]),
                        "result": None if r[5] is None else json.loads(r[5])} for r in rows]})
    return Tournament.from_json({
        "name": name, "rules": rules, "options": json.loads(options), "rounds_total": k,
        "duplicate": bool(duplicate), "host": host, "host_name": host_name, "seed": seed,
        "fill_level": fill, "round_seconds": seconds, "state": state,
        **{k: v for k, v in json.loads(setup).items() if k in SETUP},
        "entries": [{"pid": pid, "name": n, "level": level}
                    for t_name, pid, n, level in entries if t_name == name],
        "rounds": played})
