"""Tournaments (engine/tournament.py) on either database: the tournament's row, its entries,
its rounds and each round's tables with their results (a finished table's game ID among
them). A tournament is saved whole after each change (every row an upsert, so a save that
failed half-way is made good by the next) and read whole at start, so it survives a restart.
Written once with ``?`` parameters, as :mod:`net.store.core`."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from engine.tournament import Tournament
from net.store.model import MAX_NAME
from net.store.moderation import ModeratedStore

MAX_TOURNAMENTS_READ = 10_000  # tournaments read at start at most (net.limits keeps fewer)
SAVE_TOURNAMENT = (
    "INSERT INTO tournaments (name, rules, options, rounds, duplicate, host, host_name, seed, "
    "fill_level, round_seconds, state, created, updated) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (name) "
    "DO UPDATE SET state = excluded.state, updated = excluded.updated")
SAVE_ENTRY = ("INSERT INTO tournament_entries (tournament, pid, name, level, joined) "
              "VALUES (?, ?, ?, ?, ?) ON CONFLICT (tournament, pid) DO NOTHING")
SAVE_ROUND = ("INSERT INTO tournament_rounds (tournament, round_no, seed, over) "
              "VALUES (?, ?, ?, ?) ON CONFLICT (tournament, round_no) "
              "DO UPDATE SET over = excluded.over")
SAVE_TABLE = (
    "INSERT INTO tournament_tables (tournament, round_no, table_no, seed, seats, game_id, "
    "result) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tournament, round_no, table_no) "
    "DO UPDATE SET game_id = excluded.game_id, result = excluded.result")


class TournamentStore(ModeratedStore):
    """:class:`ModeratedStore` with the tournaments."""

    def save_tournament(self, tournament: Tournament) -> bool:
        """``tournament`` as it is now (its new entries, rounds and results added, its state
        changed): False where the write failed now (the next save writes it all again)."""
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
        steps: list[tuple[str, Any, bool]] = [(SAVE_TOURNAMENT, (
            name, tournament.rules, json.dumps(data["options"]), tournament.rounds,
            int(tournament.duplicate), tournament.host, tournament.host_name, tournament.seed,
            tournament.fill_level, tournament.round_seconds,
            tournament.state, now, now), False)]
        steps += [(SAVE_ENTRY, entries, True)] if entries else []
        steps += [(SAVE_ROUND, rounds, True)] if rounds else []
        steps += [(SAVE_TABLE, tables, True)] if tables else []
        return self._write("save a tournament", steps)

    def load_tournaments(self) -> list[Tournament]:
        """Every stored tournament, oldest first; StorageError where they cannot be read. A
        tournament whose rows do not make one (a damaged row) is left out."""
        with self._reading("read the tournaments"):
            heads = self._rows(
                "SELECT substr(name, 1, ?), rules, options, rounds, duplicate, host, "
                "substr(host_name, 1, ?), seed, fill_level, round_seconds, state FROM tournaments "
                "ORDER BY created, name LIMIT ?",
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


def _tournament(head: Sequence[Any], entries: Sequence[Sequence[Any]],
                rounds: Sequence[Sequence[Any]],
                tables: Sequence[Sequence[Any]]) -> Tournament:
    name, rules, options, k, duplicate, host, host_name, seed, fill, seconds, state = head
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
        "entries": [{"pid": pid, "name": n, "level": level}
                    for t_name, pid, n, level in entries if t_name == name],
        "rounds": played})
