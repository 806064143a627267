"""The store's one core: what both databases run, written once with ``?`` parameters, and the
methods of :class:`~net.store.base.Store` built on it. A backend adds only how it reads
(:meth:`SqlStore._rows`, :meth:`SqlStore._row`) and how it writes (:meth:`SqlStore._write`,
:meth:`SqlStore._table_write`): SQLite at once, a claimed table's in its fenced ``BEGIN
IMMEDIATE`` transaction (:mod:`net.store.sqlite`); PostgreSQL through its ordered writer
thread (:mod:`net.store.postgres`). Not an ORM: the SQL is plain text.

What differs in the text itself is a dialect's words (:mod:`net.store.dialect`)."""

from __future__ import annotations

import abc
import contextlib
import json
import logging
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any, ClassVar, TypeVar

from net.sanitize import name_variant, skeleton
from net.store.base import StoreBase
from net.store.dialect import Dialect
from net.store.model import (
    MAX_GAME_RECORD,
    MAX_GAMES_LISTED,
    MAX_NAME,
    MAX_RECORD,
    MAX_SECRET,
    MAX_SETTINGS_JSON,
    MAX_TABLE_JSON,
    MAX_TABLE_ROWS,
    Account,
    ActionRow,
    ComputerSeat,
    CorruptRow,
    GameEntry,
    KeptGame,
    KeylessRow,
    LeaderRow,
    Rating,
    Renamed,
    StorageError,
    TableRow,
    game_entries,
    json_object,
    kept_game_row,
    read_table_row,
    seated_accounts,
    sum_number,
)
from net.store.ratings import (
    MAX_RATED_NAMES,
    RATINGS_OF,
    apply_rating,
    ratings_sql,
    read_ratings,
)

log = logging.getLogger("net.store")

Step = tuple[str, Any, bool]  # (sql, params, executemany)
T = TypeVar("T")


# --- the shared queries ---------------------------------------------------------------------
# a new account, unless one whose name looks alike (the same skeleton) was made meanwhile
INSERT_ACCOUNT = ("INSERT INTO accounts (key_fingerprint, nickname, created, last_seen, skeleton) "
                  "SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM accounts "
                  "WHERE skeleton = ?){returning_id}")
KEEP_SECRET = ("INSERT INTO account_secrets (account_id, kind, hash, created) "
               "VALUES (?, 'passphrase', ?, ?) ON CONFLICT (account_id) DO NOTHING")
SAVE_TABLE = ("INSERT INTO tables (name, rules, options, state, created, updated, owner_token) "
              "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
              "rules = excluded.rules, options = excluded.options, state = excluded.state, "
              "updated = excluded.updated")
TABLE_COLUMNS = ("SELECT substr(name, 1, ?), {kind_of_name}, length(name), substr(rules, 1, ?), "
                 "CASE WHEN {octets[options]} <= ? THEN options END, "
                 "CASE WHEN {octets[state]} <= ? THEN state END FROM tables ")
TABLE_LIMITS = (MAX_NAME, MAX_NAME, MAX_TABLE_JSON, MAX_TABLE_JSON)
OWNER = "SELECT owner_token FROM tables WHERE name = ?"
ACCOUNT_OF_KEY = "SELECT id, substr(nickname, 1, ?) FROM accounts WHERE key_fingerprint = ?"
ACTIONS = ("SELECT hand_no, i, seat, CASE WHEN {octets[action]} <= ? THEN action END "
           "FROM actions WHERE table_name = ? AND game_no = ? ")
LAST_SEEN = "UPDATE accounts SET last_seen = ? WHERE id = ?"
# the accounts that look like ``wanted`` (the same name or skeleton)
NAME_TAKEN = "SELECT 1 FROM accounts WHERE nickname = ? OR skeleton = ? LIMIT 1"
GUEST_SECRET = ("INSERT INTO account_secrets (account_id, kind, hash, created) "
                "VALUES (?, 'guest', NULL, ?)")
UNCLAIM_ALL = "UPDATE tables SET owner_token = 0 WHERE owner_token <> 0"
CLAIM = "UPDATE tables SET owner_token = ? WHERE name = ? AND owner_token < ?"
ACCOUNT_TRIES = 20  # an account insert that met a name taken meanwhile is tried again
# an account's kept games, newest first; parameters: the names' length (twice), the account,
# the limit. Rows for game_entries
GAMES_OF = ("SELECT g.game_id, g.finished, substr(g.rules, 1, ?), substr(g.table_name, 1, ?), "
            "p.seat, p.score, g.hands FROM game_players p "
            "JOIN games g ON g.game_id = p.game_id WHERE p.account_id = ? "
            "ORDER BY g.finished DESC, g.game_id LIMIT ?")


def recent_scores_sql(names: int) -> str:
    """The query of ``Store.recent_scores`` for ``names`` nicknames: each named player's last
    games of a ruleset (seated results and spectators' stake results, as the leaderboard
    counts them), oldest first."""
    marks = ", ".join("?" for _ in range(names))
    return ("SELECT nickname, score FROM ("
            "  SELECT a.nickname AS nickname, r.score AS score, r.finished AS finished,"
            "         r.table_name AS t, r.game_no AS g,"
            "         ROW_NUMBER() OVER (PARTITION BY r.account_id"
            "           ORDER BY r.finished DESC, r.table_name, r.game_no) AS k"
            "  FROM (SELECT account_id, score, finished, table_name, game_no FROM results"
            "        WHERE rules = ?"
            "        UNION ALL SELECT account_id, score, finished, table_name, game_no"
            "        FROM stake_results WHERE rules = ?) r"
            f"  JOIN accounts a ON a.id = r.account_id WHERE a.nickname IN ({marks})"
            ") x WHERE k <= ? ORDER BY nickname, finished, t, g")


class SqlStore(StoreBase, abc.ABC):
    """The methods of a store that are the same SQL on either database."""

    dialect: ClassVar[Dialect]
    Error: ClassVar[type[Exception]]  # what the driver raises
    MANY_TABLES: ClassVar[str] = "%s: more than %d tables stored: the newest are not read"

    # --- what a backend provides ------------------------------------------------------------
    @abc.abstractmethod
    def _rows(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """The rows of a read (shared text: translated by :attr:`dialect`)."""

    @abc.abstractmethod
    def _row(self, sql: str, params: Any = ()) -> tuple[Any, ...] | None:
        """The first row of a read, or None."""

    @abc.abstractmethod
    def _change(self, sql: str, params: Any = ()) -> int:
        """A statement run at once, outside the table writes' order (a claim): the rows it
        changed."""

    def _claimed(self) -> None:
        """What a backend does when a claim was written."""

    Taken: ClassVar[type[Exception]]  # a unique name or key taken meanwhile (another process)
    # a login's read of an existing key's account mends the fault (PostgreSQL: its reading
    # connection works again); SQLite reads while its writes fail (disk full), so it waits
    # for a write
    READ_MENDS: ClassVar[bool] = False

    @abc.abstractmethod
    def _on_db(self, work: Callable[[Any], T], atomic: bool = False) -> T:
        """``work`` on the connection where accounts are made (their ids are needed at
        once); ``atomic``: in one transaction."""

    def _savepoint(self, db: Any) -> contextlib.AbstractContextManager[Any]:
        """Around a statement that may fail inside a transaction that goes on (SQLite undoes
        the failed statement alone; PostgreSQL needs a savepoint)."""
        return contextlib.nullcontext()

    @abc.abstractmethod
    def _made_id(self, cur: Any) -> int | None:
        """The id :data:`INSERT_ACCOUNT` gave (None: a look-alike was made meanwhile)."""

    @abc.abstractmethod
    def _write(self, doing: str, steps: list[Step]) -> bool:
        """A write of no table, its steps in order; False when it failed now."""

    @abc.abstractmethod
    def _table_write(self, doing: str, name: str, steps: list[Step], missing_ok: bool = False,
                     then: Callable[[Any], object] | None = None,
                     replaces: bool = False) -> bool:
        """A write of table ``name``, all or none, fenced when the table is claimed
        (``missing_ok``: or it has no row yet); ``then``: more work on the connection in the
        same transaction; ``replaces``: it supersedes the same kind of write just before.
        False when it is known now not to be written."""

    def _error_text(self, exc: BaseException) -> str:
        """A driver's error in a :class:`StorageError`'s line."""
        return str(exc)

    def _rows_shown(self, doing: str, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """The rows of a read of what is only shown (records, boards, ratings): none when
        the database fails (:meth:`_failed`), the players going on without them."""
        try:
            return self._rows(sql, params)
        except self.Error as exc:
            self._failed(exc, doing)
            return []

    @contextlib.contextmanager
    def _reading(self, doing: str) -> Iterator[None]:
        """A read whose failure the caller must see: :class:`StorageError` in one line."""
        try:
            yield
        except self.Error as exc:
            raise StorageError(f"{self.path}: cannot {doing} ({self._error_text(exc)})") from None

    # --- accounts -------------------------------------------------------------------------
    def _unique_nickname(self, db: Any, wanted: str) -> str:
        """``wanted``, or its first variant (net.sanitize.name_variant) that no account has
        and that looks like no account's (its skeleton)."""
        name, n = wanted, 1
        while db.execute(self.dialect.sql(NAME_TAKEN),
                         (name, skeleton(name))).fetchone() is not None:
            n += 1
            name = name_variant(wanted, n)
        return name

    def _new_account(self, db: Any, nickname: str, now: float, fingerprint: str | None = None,
                     nested: bool = False) -> int | None:
        """A new account's id; None when the name (or the key) was taken meanwhile, or one
        that looks like it. ``nested``: inside a transaction that goes on."""
        try:
            with self._savepoint(db) if nested else contextlib.nullcontext():
                cur = db.execute(self.dialect.sql(INSERT_ACCOUNT), (
                    fingerprint, nickname, now, now, skeleton(nickname), skeleton(nickname)))
        except self.Taken:
            return None
        return self._made_id(cur)

    def account_for_key(self, fingerprint: str, wanted: str) -> Account:
        """The account of a public key, created on first login (nickname made unique; a
        name or key taken by another process meanwhile: looked up again)."""
        def find_or_make(db: Any) -> tuple[Account, bool]:
            for _ in range(ACCOUNT_TRIES):
                row = db.execute(self.dialect.sql(ACCOUNT_OF_KEY),
                                 (MAX_NAME, fingerprint)).fetchone()
                if row is not None:
                    return Account(int(row[0]), str(row[1]), fingerprint), False
                name = self._unique_nickname(db, wanted)
                made = self._new_account(db, name, time.time(), fingerprint)
                if made is not None:
                    return Account(made, name, fingerprint), True
            raise self.Error("nicknames kept being taken meanwhile")

        try:
            account, made = self._on_db(find_or_make)
        except self.Error as exc:
            self._failed(exc, "read or write an account")
            return self._temporary_account(f"key {fingerprint}", wanted, fingerprint)
        if made or self.READ_MENDS:
            self._worked()
        if not made:
            self._write("write an account", [(LAST_SEEN, (time.time(), account.id), False)])
        return account

    def free_nickname(self, wanted: str) -> str:
        """``wanted``, or a numbered variant no account has."""
        try:
            return self._on_db(lambda db: self._unique_nickname(db, wanted))
        except self.Error as exc:
            self._failed(exc, "read an account")
            return wanted

    def keep_with_passphrase(self, nickname: str, stored: str,
                             account_id: int | None = None) -> Account | None:
        """A passphrase for ``nickname``: a new account under it, or ``account_id``'s (one
        from before passphrases). None when the name or the account was taken meanwhile;
        :class:`StorageError` when it cannot be stored now (the login is told, not given an
        account that the next visit would not find)."""
        now = time.time()

        def keep(db: Any) -> int | None:  # in one transaction: never a name without its secret
            kept = account_id
            if kept is None:
                kept = self._new_account(db, nickname, now, nested=True)
                if kept is None:
                    return None
            cur = db.execute(self.dialect.sql(KEEP_SECRET), (kept, stored, now))
            return kept if cur.rowcount == 1 else None

        try:
            kept = self._on_db(keep, atomic=True)
        except self.Error as exc:  # a name kept in memory only would be lost unseen
            self._failed(exc, "write an account")
            raise StorageError(f"{self.path}: cannot store a passphrase now") from None
        self._worked()
        return Account(kept, nickname, None) if kept is not None else None

    def guest_account(self, wanted: str) -> Account:
        """A fresh guest account (no later login enters it), under ``wanted`` if free, else a
        numbered variant."""
        now = time.time()

        def make(db: Any) -> Account:
            for _ in range(ACCOUNT_TRIES):
                name = self._unique_nickname(db, wanted)
                account_id = self._new_account(db, name, now)
                if account_id is not None:
                    db.execute(self.dialect.sql(GUEST_SECRET), (account_id, now))
                    return Account(account_id, name, None, guest=True)
            raise self.Error("nicknames kept being taken meanwhile")

        try:
            account = self._on_db(make)
        except self.Error as exc:
            self._failed(exc, "write an account")
            return Account(-1 - self.failures, wanted, None, guest=True)
        self._worked()
        return account

    def rename_account(self, account_id: int, wanted: str) -> Renamed:
        """Account ``account_id`` (a key's or a passphrase's) plays as ``wanted`` (a clean
        name) from now on: unless another account has the name or one that looks like it
        (the same skeleton, as a new account's name), or a stored table seats the account
        (its seat, and who invited it, know it by the name it sat with). Its results and
        ratings are kept by its id, so they follow it. :class:`StorageError` when the
        database cannot be read or written now."""
        def rename(db: Any) -> Renamed:
            if db.execute(self.dialect.sql(
                    "SELECT 1 FROM accounts WHERE (nickname = ? OR skeleton = ?) AND id <> ? "
                    "LIMIT 1"), (wanted, skeleton(wanted), account_id)).fetchone() is not None:
                return Renamed.TAKEN
            states = db.execute(self.dialect.sql(  # the few states that may seat it
                "SELECT state FROM tables WHERE {state_size} <= ? AND {find}(state, ?) > 0"),
                (MAX_TABLE_JSON, f'"account": {account_id}')).fetchall()
            if any(account_id in seated_accounts(state) for (state,) in states):
                return Renamed.SEATED
            try:  # a look-alike made meanwhile: the update changes nothing
                with self._savepoint(db):
                    cur = db.execute(self.dialect.sql(
                        "UPDATE accounts SET nickname = ?, skeleton = ? WHERE id = ? AND NOT "
                        "EXISTS (SELECT 1 FROM accounts WHERE skeleton = ? AND id <> ?)"),
                        (wanted, skeleton(wanted), account_id, skeleton(wanted), account_id))
            except self.Taken:  # the same name, made meanwhile
                return Renamed.TAKEN
            return Renamed.DONE if cur.rowcount == 1 else Renamed.TAKEN

        try:
            renamed = self._on_db(rename, atomic=True)
        except self.Error as exc:
            self._failed(exc, "write an account")
            raise StorageError(f"{self.path}: cannot rename an account now") from None
        self._worked()
        return renamed

    def load_settings(self, account_id: int) -> dict[str, Any] | None:
        try:
            row = self._row("SELECT CASE WHEN {octets[data]} <= ? THEN data END FROM settings "
                            "WHERE account_id = ?", (MAX_SETTINGS_JSON, account_id))
        except self.Error as exc:
            self._failed(exc, "read settings")
            return None
        if row is None:
            return None
        try:
            return json_object(row[0], "settings", MAX_SETTINGS_JSON)
        except CorruptRow:
            return None  # the defaults; the next save replaces the row

    def save_settings(self, account_id: int, data: dict[str, Any]) -> None:
        self._write("save settings", [(
            "INSERT INTO settings (account_id, data, updated) VALUES (?, ?, ?) "
            "ON CONFLICT (account_id) DO UPDATE SET data = excluded.data, "
            "updated = excluded.updated",
            (account_id, json.dumps(data, ensure_ascii=False), time.time()), False)])

    def keyless_row(self, nickname: str) -> KeylessRow | None:
        """The account holding ``nickname``, with its keyless secret if it has one; None when
        no account has the name (or the database cannot be read: then the name looks free
        and the account made for it is a temporary one)."""
        try:
            row = self._row(
                "SELECT a.id, a.key_fingerprint IS NOT NULL, s.kind, "
                "CASE WHEN length(s.hash) <= ? THEN s.hash END FROM accounts a "
                "LEFT JOIN account_secrets s ON s.account_id = a.id WHERE a.nickname = ?",
                (MAX_SECRET, nickname))
        except self.Error as exc:
            self._failed(exc, "read an account")
            return None
        if row is None:
            return None
        return KeylessRow(int(row[0]), bool(row[1]), row[2], row[3])

    def keyless_account(self, account_id: int, nickname: str) -> Account:
        """The keyless account ``account_id`` logging in again (its last visit noted)."""
        self._write("write an account", [(LAST_SEEN, (time.time(), account_id), False)])
        return Account(account_id, nickname, None)

    def forget_guests(self, unseen_since: float) -> int:
        """Delete the guest accounts last seen before ``unseen_since`` (a time.time()) that
        left nothing: no result, no stake result, no seat at a stored table.

        The newest account is never deleted: SQLite gives a new row the highest id plus one,
        so deleting the newest would hand its id to the next account, and an id names its
        account in the tables' rows (their creator, their seats) and every count by account
        (tables created, chat, sessions). Kept, every id is used once."""
        try:
            seated = {i for (state,) in self._rows(
                "SELECT state FROM tables WHERE {state_size} <= ?", (MAX_TABLE_JSON,))
                for i in seated_accounts(state)}
            rows = self._rows(
                "SELECT a.id FROM accounts a JOIN account_secrets s ON s.account_id = a.id "
                "WHERE s.kind = 'guest' AND a.last_seen < ? "
                "AND a.id < (SELECT max(id) FROM accounts) "
                "AND NOT EXISTS (SELECT 1 FROM results r WHERE r.account_id = a.id) "
                "AND NOT EXISTS (SELECT 1 FROM stake_results r WHERE r.account_id = a.id)",
                (unseen_since,))
        except self.Error as exc:
            self._failed(exc, "read the accounts")
            return 0
        gone = [(i,) for (i,) in rows if i not in seated]
        if gone:
            self._write("forget guests",
                        [("DELETE FROM account_secrets WHERE account_id = ?", gone, True),
                         ("DELETE FROM accounts WHERE id = ?", gone, True)])
        return len(gone)

    def forget_guest(self, account_id: int) -> bool:
        """Delete guest account ``account_id`` when its guest has left, unless it left
        something: a result, a stake result, a seat at a stored table (then
        :meth:`forget_guests` at a later start does), or it is the newest account (see
        :meth:`forget_guests`). True when it went, its name free."""
        try:
            if self._row(
                    "SELECT 1 FROM account_secrets s WHERE s.account_id = ? AND s.kind = 'guest' "
                    "AND s.account_id < (SELECT max(id) FROM accounts) "
                    "AND NOT EXISTS (SELECT 1 FROM results r WHERE r.account_id = s.account_id) "
                    "AND NOT EXISTS (SELECT 1 FROM stake_results r "
                    "WHERE r.account_id = s.account_id)", (account_id,)) is None:
                return False
            states = self._rows(  # the few states that may seat it, then parsed
                "SELECT state FROM tables WHERE {state_size} <= ? AND {find}(state, ?) > 0",
                (MAX_TABLE_JSON, f'"account": {account_id}'))
        except self.Error as exc:
            self._failed(exc, "read the accounts")
            return False
        if any(account_id in seated_accounts(state) for (state,) in states):
            return False
        return self._write("forget a guest",
                           [("DELETE FROM account_secrets WHERE account_id = ?", (account_id,),
                             False),
                            ("DELETE FROM accounts WHERE id = ?", (account_id,), False)])

    # --- tables ---------------------------------------------------------------------------
    def has_table(self, name: str) -> bool:
        """A row for table ``name`` is stored (loaded or not)."""
        try:
            return self._row("SELECT 1 FROM tables WHERE name = ?", (name,)) is not None
        except self.Error as exc:
            self._failed(exc, "read the tables")
            return True  # unknown: do not create a table that may be there

    def delete_table(self, name: str) -> None:
        self._table_write(f"delete table {name}", name,
                          [("DELETE FROM tables WHERE name = ?", (name,), False),
                           ("DELETE FROM actions WHERE table_name = ?", (name,), False)],
                          missing_ok=True)

    def _tables_unreadable(self, exc: BaseException) -> StorageError:
        return StorageError(f"{self.path}: cannot read the tables ({self._error_text(exc)})")

    def load_tables(self) -> list[TableRow]:
        """The stored tables, oldest first (at most ``MAX_TABLE_ROWS``). A row that cannot
        be read comes with its ``fault`` (and empty options and state), never skipped: the
        registry keeps it out of play and nothing overwrites it. :class:`StorageError` when
        the tables cannot be read at all."""
        try:
            rows = self._rows(TABLE_COLUMNS + "ORDER BY {by_age} LIMIT ?",
                              (*TABLE_LIMITS, MAX_TABLE_ROWS + 1))
        except self.Error as exc:
            raise self._tables_unreadable(exc) from None
        if len(rows) > MAX_TABLE_ROWS:
            log.error(self.MANY_TABLES, self.path, MAX_TABLE_ROWS)
            rows = rows[:MAX_TABLE_ROWS]
        return [read_table_row(*r) for r in rows]

    def load_table(self, name: str) -> TableRow | None:
        """One stored table as :meth:`load_tables` gives it (None: no such row);
        :class:`StorageError` when the database cannot be read."""
        with self._reading(f"read table {name}"):
            row = self._row(TABLE_COLUMNS + "WHERE name = ?", (*TABLE_LIMITS, name))
        return None if row is None else read_table_row(*row)

    def table_names(self) -> list[str]:
        """The names of the stored tables, oldest first (at most ``MAX_TABLE_ROWS``);
        :class:`StorageError` when the database cannot be read."""
        with self._reading("read the tables"):
            rows = self._rows("SELECT substr(name, 1, ?) FROM tables ORDER BY {by_age} LIMIT ?",
                              (MAX_NAME, MAX_TABLE_ROWS))
        return [str(n) for (n,) in rows]

    def add_action(self, table: str, row: ActionRow) -> None:
        self._table_write(
            f"save an action of table {table}", table,
            [("INSERT INTO actions (table_name, game_no, hand_no, i, seat, action) "
              "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (table_name, game_no, hand_no, i) "
              "DO UPDATE SET seat = excluded.seat, action = excluded.action",
              (table, row.game_no, row.hand_no, row.i, row.seat, json.dumps(row.action)),
              False)])

    @abc.abstractmethod
    def iter_actions(self, table: str, game_no: int) -> Iterator[ActionRow]:
        """A game's stored actions in order (:data:`ACTIONS`); :class:`CorruptRow` at the
        first that cannot be read."""

    def actions(self, table: str, game_no: int) -> list[ActionRow]:
        return list(self.iter_actions(table, game_no))

    def drop_actions(self, table: str, before_game: int) -> None:
        self._table_write(f"drop old actions of table {table}", table,
                          [("DELETE FROM actions WHERE table_name = ? AND game_no < ?",
                            (table, before_game), False)])

    def finish_hand(self, table: str, game_no: int, hand_no: int, record: str) -> None:
        self._table_write(
            f"save a hand of table {table}", table,
            [("INSERT INTO hands (table_name, game_no, hand_no, record, finished) "
              "VALUES (?, ?, ?, ?, ?) ON CONFLICT (table_name, game_no, hand_no) "
              "DO UPDATE SET record = excluded.record, finished = excluded.finished",
              (table, game_no, hand_no, record, time.time()), False)])

    def hand_records(self, table: str) -> list[str]:
        """The table's hand records, oldest first (a record too long to be one is left out)."""
        rows = self._rows_shown(
            "read hand records", "SELECT CASE WHEN {octets[record]} <= ? THEN record END "
            "FROM hands WHERE table_name = ? ORDER BY game_no, hand_no", (MAX_RECORD, table))
        return [r[0] for r in rows if isinstance(r[0], str)]

    def finish_game(self, table: str, game_no: int, rules: str,
                    rows: list[tuple[int, int, int, int, int]],
                    computers: Sequence[ComputerSeat] = (), seed: int = 0,
                    bots: Collection[int] = (), rated: bool = True) -> None:
        """``rows``: (account_id, seat, score, wins, hands) for each human seat;
        ``computers``: the computer seats; ``seed``: the game's; ``bots``: the seats a
        program played (``bot join``). The results and the rating update
        (:mod:`net.store.ratings`, once per game) in one transaction; a game not ``rated``
        (a coach table's practice) keeps its results and changes no rating."""
        now, sql = time.time(), self.dialect.sql
        self.results_kept += 1
        self._table_write(
            f"save the results of table {table}", table,
            [("INSERT INTO results (table_name, game_no, account_id, seat, score, wins, hands, "
              "rules, finished, bot) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
              "ON CONFLICT (table_name, game_no, seat) DO UPDATE SET "
              "account_id = excluded.account_id, score = excluded.score, "
              "wins = excluded.wins, hands = excluded.hands, rules = excluded.rules, "
              "finished = excluded.finished, bot = excluded.bot",
              [(table, game_no, a, s, sc, w, h, rules, now, int(s in bots))
               for a, s, sc, w, h in rows], True)],
            then=(lambda db: apply_rating(db, sql, table, game_no, seed, rules, rows,
                                          computers, now)) if rows and rated else None)

    def finish_stakes(self, table: str, game_no: int, rules: str,
                      rows: list[tuple[int, int, int]]) -> None:
        """``rows``: (account_id, score, hands) for each spectator who staked (压鸽子)."""
        now = time.time()
        self._table_write(
            f"save the stakes of table {table}", table,
            [("INSERT INTO stake_results (table_name, game_no, account_id, score, hands, "
              "rules, finished) VALUES (?, ?, ?, ?, ?, ?, ?) "
              "ON CONFLICT (table_name, game_no, account_id) DO UPDATE SET "
              "score = excluded.score, hands = excluded.hands, rules = excluded.rules, "
              "finished = excluded.finished",
              [(table, game_no, a, sc, h, rules, now) for a, sc, h in rows], True)])

    def keep_game(self, table: str, game_no: int, hands: int, game_id: str, rules: str,
                  head: str, rows: list[tuple[int, int, int]]) -> None:
        """Keep a finished game for replay under ``game_id``: ``head`` (its ``game`` line)
        and the records of its hands 1..``hands`` (written before by :meth:`finish_hand`)
        copied into one record, so that deleting the table or reusing its name loses
        nothing; ``rows``: (account_id, seat, score) of each human seat."""
        steps: list[Step] = [
            ("INSERT INTO games (game_id, table_name, game_no, rules, hands, record, finished) "
             "VALUES (?, ?, ?, ?, ?, {hands_record}, ?)",
             (game_id, table, game_no, rules, hands, head, table, game_no, hands, time.time()),
             False)]
        if rows:
            steps.append(("INSERT INTO game_players (game_id, account_id, seat, score) "
                          "VALUES (?, ?, ?, ?) ON CONFLICT (game_id, seat) DO UPDATE SET "
                          "account_id = excluded.account_id, score = excluded.score",
                          [(game_id, a, s, sc) for a, s, sc in rows], True))
        self._table_write(f"keep game {game_id} of table {table}", table, steps)

    def kept_game(self, game_id: str) -> KeptGame | None:
        """The game kept under ``game_id`` (None: no such game); :class:`StorageError` when
        the database cannot be read, :class:`CorruptRow` when its record is too long to be
        one."""
        with self._reading(f"read game {game_id}"):
            row = self._row(
                "SELECT substr(table_name, 1, ?), substr(rules, 1, ?), finished, "
                "CASE WHEN {octets[record]} <= ? THEN record END FROM games "
                "WHERE game_id = ?", (MAX_NAME, MAX_NAME, MAX_GAME_RECORD, game_id))
            if row is None:
                return None
            seated = self._rows(
                "SELECT p.seat, substr(a.nickname, 1, ?) FROM game_players p "
                "JOIN accounts a ON a.id = p.account_id WHERE p.game_id = ?",
                (MAX_NAME, game_id))
        table_name, rules, finished, record = row
        return kept_game_row(game_id, table_name, rules, finished, record,
                             [(s, n) for s, n in seated])

    def games_of(self, account_id: int, limit: int = MAX_GAMES_LISTED) -> list[GameEntry]:
        """The account's kept games, newest first (at most ``limit``); StorageError when the
        database cannot be read."""
        with self._reading("read the finished games"):
            rows = self._rows(GAMES_OF, (MAX_NAME, MAX_NAME, account_id,
                                                  min(limit, MAX_GAMES_LISTED)))
        return game_entries(rows)

    # --- fencing ----------------------------------------------------------------------------
    def claim_table(self, name: str, token: int) -> bool:
        """Own table ``name`` under ``token``: the row's owner token becomes ``token`` only
        if that is greater than the stored one (one statement). True: this store now holds
        ``token`` and fences the table's writes with it. A table with no row yet is made
        with the token by :meth:`save_table`: of two claims of a new name, the first saved
        owns it and the other's writes are fenced. False: a claim as new or newer holds it
        (or the database failed); nothing changes. Claiming the token this store already
        holds is True; any other equal token is refused (a token is one lease)."""
        try:
            if self._change(CLAIM, (token, name, token)) != 1:
                row = self._row(OWNER, (name,))
                if row is not None and not (row[0] == token and self._tokens.get(name) == token):
                    return False
        except self.Error as exc:
            self._failed(exc, f"claim table {name}")
            return False
        self._claimed()
        self._tokens[name] = token
        return True

    def reset_claims(self) -> int:
        """Every table's owner token back to 0: for a new directory of owners (its
        revisions start again at 1), when no lease of before can still be held. The
        number of tables reset; StorageError when the database cannot be written."""
        with self._reading("reset the tables' owners"):
            count = self._change(UNCLAIM_ALL)
        self._tokens.clear()
        return count

    def owner_token(self, name: str) -> int | None:
        """The owner token stored for table ``name`` (0: never claimed; None: no such row);
        :class:`StorageError` when the database cannot be read."""
        with self._reading(f"read the owner of table {name}"):
            row = self._row(OWNER, (name,))
        return None if row is None else int(row[0])

    # --- results ----------------------------------------------------------------------------
    def leaderboard(self, limit: int = 20, rules: str | None = None,
                    by_rating: bool = False) -> list[LeaderRow]:
        """Seated results and spectators' stake results (压鸽子) together; a game counts
        once per account and role. ``rules``: that ruleset's games only (their points are
        on different scales), with each player's rating in it; ``by_rating`` (with
        ``rules``): the rated first, highest first, then by score."""
        where, params = ("WHERE rules = ?", (rules,)) if rules else ("", ())
        order = ("MAX(rt.rating) IS NULL, MAX(rt.rating) DESC, " if rules and by_rating
                 else "")
        rows = self._rows_shown(
            "read the leaderboard",
            "SELECT substr(a.nickname, 1, ?), COUNT(*), SUM(r.hands), SUM(r.wins), "
            "SUM(r.score), MAX(rt.rating), MAX(rt.games), SUM(r.bot) "
            f"FROM (SELECT account_id, hands, wins, score, bot FROM results {where} "
            f"      UNION ALL SELECT account_id, hands, 0, score, 0 FROM stake_results {where}"
            ") r JOIN accounts a ON a.id = r.account_id "
            "LEFT JOIN ratings rt ON rt.account_id = r.account_id AND rt.rules = ? "
            f"GROUP BY {{by_account}} ORDER BY {order}SUM(r.score) DESC, SUM(r.wins) DESC, "
            "a.nickname{bytewise} LIMIT ?",
            (MAX_NAME, *params, *params, rules or "", limit))
        return [LeaderRow(str(n), int(g), sum_number(h), sum_number(w), sum_number(s),
                          float(rt) if isinstance(rt, int | float) else None,
                          rg if isinstance(rg, int) else 0, sum_number(b))
                for n, g, h, w, s, rt, rg, b in rows]

    def ratings(self, rules: str, nicknames: Sequence[str]) -> dict[str, Rating]:
        """The named players' ratings in ``rules`` (an unrated player is left out; a failed
        read gives nothing)."""
        names = list(dict.fromkeys(nicknames))[:MAX_RATED_NAMES]
        if not names:
            return {}
        return read_ratings(self._rows_shown("read the ratings", ratings_sql(len(names)),
                                             (rules, *names)))

    def ratings_of(self, account_id: int) -> dict[str, Rating]:
        """An account's ratings by ruleset, the most played first."""
        return read_ratings(self._rows_shown("read the ratings", RATINGS_OF, (account_id,)))

    def recent_scores(self, rules: str, nicknames: Sequence[str],
                      games: int) -> dict[str, list[int]]:
        """The named players' scores in their last ``games`` games of ``rules`` (seated
        results and spectators' stake results, as the leaderboard counts them), oldest
        first; a player without games is left out, a failed read gives nothing."""
        if not nicknames:
            return {}
        out: dict[str, list[int]] = {}
        for nickname, score in self._rows_shown("read the recent scores",
                                                recent_scores_sql(len(nicknames)),
                                                (rules, rules, *nicknames, games)):
            if isinstance(nickname, str) and isinstance(score, int):
                out.setdefault(nickname, []).append(score)
        return out

    def rulesets_played(self) -> list[str]:
        """The rulesets with a finished game, in the order first played."""
        rows = self._rows_shown(
            "read the leaderboard",
            "SELECT substr(rules, 1, ?) FROM (SELECT rules, finished FROM results "
            "UNION ALL SELECT rules, finished FROM stake_results) f "
            "GROUP BY rules ORDER BY MIN(finished) LIMIT 100", (MAX_NAME,))
        return [str(r) for (r,) in rows]
