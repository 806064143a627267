"""The rating update of a finished game (engine.rating) as both backends apply it, inside
the transaction that writes the game's results (SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's
writer transaction), and the reads of ratings. The SQL is written with ``?``, as the store's
core (net/store/core.py) translates it.

Once per game: a game's update is marked in ``rated_games`` under (table, game number, game
seed), and a game found marked is not rated again (a finish replayed after a takeover, the
same seed; a table of the same name made later plays other seeds). The change is added to
the stored rating (``rating = rating + change``) rather than overwriting it, so two games of
one player finishing at once on two workers both count.

Who is rated: the accounts seated at the end of the game, except guests (keyless accounts
for one visit, forgotten after) and accounts made in memory while the database failed;
these play as unrated opponents at the start rating. Computers enter with their level's
fixed reference. A game with fewer than two seats known is not rated.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from engine import rating as elo
from net.store.model import ComputerSeat, Rating

RATING_SCHEMA = """
CREATE TABLE IF NOT EXISTS ratings (      -- an account's rating per ruleset (engine/rating.py)
    account_id {id} NOT NULL,
    rules TEXT NOT NULL,
    rating {real} NOT NULL,
    games INTEGER NOT NULL,               -- the rated games it counts
    updated {real} NOT NULL,
    PRIMARY KEY (account_id, rules)
);
CREATE TABLE IF NOT EXISTS rated_games (  -- a game whose rating update is applied (once)
    table_name TEXT NOT NULL,
    game_no INTEGER NOT NULL,
    seed {id} NOT NULL,                   -- the game's seed (a table's name may be used again)
    rules TEXT NOT NULL,
    changes TEXT NOT NULL,                -- JSON: [[account_id, before, after], ...]
    finished {real} NOT NULL,
    PRIMARY KEY (table_name, game_no, seed)
);
"""

MAX_RATED_NAMES = 400  # nicknames looked up at once (a lobby holds at most this many seats)


def apply_rating(db: Any, sql: Callable[[str], str], table: str, game_no: int, seed: int,
                 rules: str, rows: Sequence[tuple[int, int, int, int, int]],
                 computers: Sequence[ComputerSeat], now: float) -> bool:
    """Rate a finished game on ``db`` (a connection inside the caller's transaction; ``sql``
    its dialect's translation of a query):
    ``rows`` are the human seats as ``Store.finish_game`` has them (account, seat, score,
    wins, hands). False when nothing was rated (marked already, or too few seats)."""
    if len(rows) + len(computers) < 2:
        return False
    done = db.execute(sql("SELECT 1 FROM rated_games WHERE table_name = ? AND game_no = ? "
                          "AND seed = ?"), (table, game_no, seed)).fetchone()
    if done is not None:
        return False
    ids = sorted({a for a, *_ in rows if a > 0})
    known: dict[int, tuple[float, int]] = {}  # rated account -> (rating, games) before
    if ids:
        marks = ", ".join("?" for _ in ids)
        for account_id, rating, games in db.execute(sql(
                "SELECT a.id, r.rating, r.games FROM accounts a "
                "LEFT JOIN ratings r ON r.account_id = a.id AND r.rules = ? "
                "LEFT JOIN account_secrets s ON s.account_id = a.id "
                f"WHERE a.id IN ({marks}) AND (s.kind IS NULL OR s.kind <> 'guest')"),
                (rules, *ids)).fetchall():
            known[int(account_id)] = ((float(rating), int(games)) if rating is not None
                                      else (elo.START, 0))
    seated: list[tuple[int | None, elo.Entrant]] = []
    for account_id, _seat, score, _wins, _hands in rows:
        if account_id in known:
            before, games = known[account_id]
            seated.append((account_id, elo.Entrant(before, score, games)))
        else:  # a guest: an opponent at the start rating, not rated
            seated.append((None, elo.Entrant(elo.START, score, fixed=True)))
    seated += [(None, elo.Entrant(c.rating, c.score, fixed=True)) for c in computers]
    deltas = elo.changes([e for _, e in seated])
    changed = [(a, e.rating, e.rating + d) for (a, e), d in zip(seated, deltas, strict=True)
               if a is not None]
    for account_id, before, after in changed:
        db.execute(sql("INSERT INTO ratings (account_id, rules, rating, games, updated) "
                       "VALUES (?, ?, ?, 1, ?) ON CONFLICT (account_id, rules) DO UPDATE "
                       "SET rating = ratings.rating + ?, games = ratings.games + 1, "
                       "updated = ?"),
                   (account_id, rules, after, now, after - before, now))
    db.execute(sql("INSERT INTO rated_games (table_name, game_no, seed, rules, changes, "
                   "finished) VALUES (?, ?, ?, ?, ?, ?)"),
               (table, game_no, seed, rules,
                json.dumps([[a, round(b, 2), round(c, 2)] for a, b, c in changed]), now))
    return bool(changed)


def ratings_sql(names: int) -> str:
    """The ratings of ``names`` nicknames in one ruleset: (nickname, rating, games)."""
    marks = ", ".join("?" for _ in range(names))
    return ("SELECT a.nickname, r.rating, r.games FROM ratings r "
            "JOIN accounts a ON a.id = r.account_id "
            f"WHERE r.rules = ? AND a.nickname IN ({marks})")


# an account's ratings: (rules, rating, games), the most games first
RATINGS_OF = ("SELECT rules, rating, games FROM ratings WHERE account_id = ? "
              "ORDER BY games DESC, rules LIMIT 100")


def read_ratings(rows: Sequence[tuple[Any, ...]]) -> dict[str, Rating]:
    """``(key, rating, games)`` rows as ratings by key (a damaged row left out)."""
    out: dict[str, Rating] = {}
    for key, rating, games in rows:
        if isinstance(key, str) and isinstance(rating, int | float) and isinstance(games, int):
            out[key] = Rating(float(rating), games)
    return out
