"""The store's interface (:class:`Store`, what the rest of the server calls, whichever
database is behind it) and what both backends share: the fault discipline (a failed write is
one ERROR, then a count at most once a minute, and :attr:`Store.problem` for the players) and
the bookkeeping of fencing (which tables this process holds, under which token).

A table's writes that cannot be saved (disk full, the database locked, read-only or away) are
held, in order, and written again before any later write of that table
(:meth:`Store.unsaved`, :meth:`Store.retry`): what is stored of a table is always a prefix of
what it did, so its saved state and its saved actions agree and a restart replays it to its
last saved action. The table stops while it has writes held (net/runtime/shared_table.py)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from engine.tournament import Tournament
from net.store.model import (
    MAX_GAMES_LISTED,
    Account,
    ActionRow,
    AuditRow,
    Ban,
    ComputerSeat,
    GameEntry,
    KeptGame,
    KeylessRow,
    LeaderRow,
    Mute,
    Rating,
    Renamed,
    Report,
    TableRow,
)
from words import both

log = logging.getLogger("net.store")

FAULT_LOG_SECONDS = 60.0  # while writes fail: one log line this often, with a count
PROBLEM = both("store_problem")


class Store(Protocol):
    """What the server calls on its database. Table-scoped writes (``save_table``,
    ``add_action``, ``drop_actions``, ``finish_hand``, ``finish_game``, ``finish_stakes``,
    ``keep_game``, ``delete_table``) of a table this store has claimed (:meth:`claim_table`)
    are fenced: they happen only while the stored owner token is still the one claimed; otherwise
    nothing is written, a WARNING is logged and :attr:`on_fenced` is called with the name."""

    path: Path | str  # what log lines and messages name: the file, or the URL without password
    version: int  # the schema version the database has now
    problem: str | None  # for the players, while writes fail
    failures: int  # failed statements since the process started
    on_fenced: Callable[[str], None] | None  # a table's write was refused: another owns it

    def close(self) -> None: ...

    # a table's writes that failed, held to be written again in order (see the module)
    def unsaved(self, name: str) -> bool: ...
    def retry(self, name: str) -> bool: ...

    # accounts
    def account_for_key(self, fingerprint: str, wanted: str) -> Account: ...
    def load_settings(self, account_id: int) -> dict[str, Any] | None: ...
    def save_settings(self, account_id: int, data: dict[str, Any]) -> None: ...
    def keyless_row(self, nickname: str) -> KeylessRow | None: ...
    def free_nickname(self, wanted: str) -> str: ...
    def keyless_account(self, account_id: int, nickname: str) -> Account: ...
    # StorageError when the passphrase cannot be stored now: never an account in memory only
    def keep_with_passphrase(self, nickname: str, stored: str,
                             account_id: int | None = None) -> Account | None: ...
    def guest_account(self, wanted: str) -> Account: ...
    # StorageError when it cannot be read or written now
    def rename_account(self, account_id: int, wanted: str) -> Renamed: ...
    def forget_guests(self, unseen_since: float) -> int: ...
    def forget_guest(self, account_id: int) -> bool: ...

    # tables
    def has_table(self, name: str) -> bool: ...
    def save_table(self, row: TableRow) -> None: ...
    def delete_table(self, name: str) -> None: ...
    def load_tables(self) -> list[TableRow]: ...
    def load_table(self, name: str) -> TableRow | None: ...
    def table_names(self) -> list[str]: ...
    def add_action(self, table: str, row: ActionRow) -> None: ...
    def iter_actions(self, table: str, game_no: int) -> Iterator[ActionRow]: ...
    def actions(self, table: str, game_no: int) -> list[ActionRow]: ...
    def drop_actions(self, table: str, before_game: int) -> None: ...
    def finish_hand(self, table: str, game_no: int, hand_no: int, record: str) -> None: ...
    def hand_records(self, table: str) -> list[str]: ...
    def finish_game(self, table: str, game_no: int, rules: str,
                    rows: list[tuple[int, int, int, int, int]],
                    computers: Sequence[ComputerSeat] = (), seed: int = 0,
                    bots: Collection[int] = (), rated: bool = True) -> None: ...
    def finish_stakes(self, table: str, game_no: int, rules: str,
                      rows: list[tuple[int, int, int]]) -> None: ...
    def keep_game(self, table: str, game_no: int, hands: int, game_id: str, rules: str,
                  head: str, rows: list[tuple[int, int, int]]) -> None: ...

    # finished games, for replay (read by any worker: no table owner needed)
    def kept_game(self, game_id: str) -> KeptGame | None: ...
    def games_of(self, account_id: int,
                 limit: int = MAX_GAMES_LISTED) -> list[GameEntry]: ...

    # results
    def leaderboard(self, limit: int = 20, rules: str | None = None,
                    by_rating: bool = False) -> list[LeaderRow]: ...
    def rulesets_played(self) -> list[str]: ...
    def recent_scores(self, rules: str, nicknames: Sequence[str],
                      games: int) -> dict[str, list[int]]: ...
    def ratings(self, rules: str, nicknames: Sequence[str]) -> dict[str, Rating]: ...
    def ratings_of(self, account_id: int) -> dict[str, Rating]: ...

    # the operators' records (net/store/moderation.py): bans and mutes in force (StorageError
    # where they cannot be read), the audit; a write's False: it failed now
    def add_ban(self, ban: Ban) -> bool: ...
    def remove_ban(self, kind: str, target: str) -> bool: ...
    def load_bans(self) -> list[Ban]: ...
    def set_mute(self, mute: Mute) -> bool: ...
    def remove_mute(self, account_id: int) -> bool: ...
    def load_mutes(self) -> list[Mute]: ...
    def add_audit(self, row: AuditRow) -> bool: ...
    def audit_rows(self, limit: int) -> list[AuditRow]: ...
    # the players' own (net/front/players.py): whose chat an account ignores (StorageError
    # where it cannot be read), and the reports for the operators
    def ignored_by(self, account_id: int) -> list[tuple[int, str]]: ...
    def add_ignore(self, account_id: int, ignored_id: int) -> bool: ...
    def remove_ignore(self, account_id: int, ignored_id: int) -> bool: ...
    def add_report(self, report: Report) -> bool: ...
    def reports_by(self, reporter_id: int, since: float) -> list[tuple[int, float]]: ...
    def reports(self, limit: int) -> list[Report]: ...

    # tournaments (net/store/tournaments.py): saved whole after each change (False: the write
    # failed now), read whole at start (StorageError where they cannot be read)
    def save_tournament(self, tournament: Tournament) -> bool: ...
    def load_tournaments(self) -> list[Tournament]: ...
    # a server of several workers: one tournament read, or changed under the database's lock
    # (StorageError where the database fails)
    def load_tournament(self, name: str) -> Tournament | None: ...
    def update_tournament(self, name: str, change: Callable[[Tournament | None],
                                                            Tournament | None]
                          ) -> Tournament | None: ...
    def kept_game_id(self, table: str, game_no: int) -> str: ...
    def table_made(self, table: str) -> float | None: ...

    # fencing
    def claim_table(self, name: str, token: int) -> bool: ...
    def release_table(self, name: str) -> None: ...
    def owner_token(self, name: str) -> int | None: ...
    def held_token(self, name: str) -> int | None: ...
    off_loop: bool  # its synchronous calls may wait on a network: call them from a thread
    def reset_claims(self) -> int: ...

    # the order of writes
    def when_written(self, callback: Callable[[], None]) -> None: ...
    def flush(self, timeout: float | None = None) -> bool: ...


class StoreBase:
    """The parts of a store that do not depend on its database."""

    path: Path | str
    off_loop = False  # a local file: its reads and claims take well under a millisecond

    def __init__(self) -> None:
        self.problem: str | None = None
        self.failures = 0
        self.on_fenced: Callable[[str], None] | None = None
        self.fenced = 0  # writes refused because another owner holds the table
        self._unlogged = 0  # failures since the last log line
        self._logged_at = 0.0
        self._temporary: dict[str, Account] = {}  # accounts made while the database failed
        self._tokens: dict[str, int] = {}  # table -> the owner token this process holds
        self._faults = threading.Lock()  # _failed and _worked may run on a writer thread
        # games whose results this process has handed to the store (the lobby's board reads
        # itself again when it changes: net.front.trends.LobbyLeaders)
        self.results_kept = 0

    # --- faults -----------------------------------------------------------------------------
    def _failed(self, exc: BaseException, doing: str) -> None:
        """A statement failed at run time: an ERROR naming the database (the first, then at
        most one line a minute with the count), and a problem the lobby shows; a table whose
        write it was stops until the write is saved (its writes are held)."""
        with self._faults:
            self.failures += 1
            self._unlogged += 1
            now = time.monotonic()
            first = self.problem is None
            self.problem = PROBLEM
            if first or now - self._logged_at >= FAULT_LOG_SECONDS:
                text = " ".join(str(exc).split())[:300]
                log.error("%s: cannot %s (%s): its table is paused, its writes held "
                          "(%d failed statements since the last line, %d in all)",
                          self.path, doing, text, self._unlogged, self.failures)
                self._logged_at = now
                self._unlogged = 0
        if first:
            self._first_failure()

    def _first_failure(self) -> None:
        """What a backend does when writes start failing (SQLite: stop waiting for locks)."""

    def _worked(self) -> None:
        if self.problem is None:
            return
        with self._faults:
            if self.problem is None:
                return
            self.problem = None
            log.warning("%s: writes work again (%d statements had failed, %d since the last "
                        "line); the held writes of the paused tables are written now",
                        self.path, self.failures, self._unlogged)
            self._unlogged = 0
        self._works_again()

    def _works_again(self) -> None:
        """What a backend does when a write succeeds after failures."""

    def _temporary_account(self, key: str, nickname: str, fingerprint: str | None) -> Account:
        """An account kept in memory while the database cannot give one: the player plays;
        his results are written under an id no stored account has (the leaderboard skips
        it)."""
        account = self._temporary.get(key)
        if account is None:
            if len(self._temporary) >= 10_000:
                self._temporary.pop(next(iter(self._temporary)))
            account = Account(-1 - self.failures, nickname, fingerprint)
            self._temporary[key] = account
        return account

    # --- fencing ----------------------------------------------------------------------------
    def held_token(self, name: str) -> int | None:
        """The owner token this store holds for table ``name`` (None: never claimed, or
        released: its writes are not fenced)."""
        return self._tokens.get(name)

    def release_table(self, name: str) -> None:
        """Forget the token of ``name`` (its owner let it go): its writes are no longer
        fenced."""
        self._tokens.pop(name, None)

    def _fenced(self, name: str, token: int, doing: str) -> None:
        """A write of a claimed table found another owner's token: one WARNING, and the
        owner is told (:attr:`on_fenced`) so it stops playing the table."""
        self.fenced += 1
        log.warning("%s: did not %s: table %s is owned by a newer claim than this process's "
                    "(token %d)", self.path, doing, name, token)
        callback = self.on_fenced
        if callback is not None:
            self._call(callback, name)

    def _call(self, callback: Callable[..., None], *args: Any) -> None:
        """Run a callback where the store's user expects it (here: at once)."""
        try:
            callback(*args)
        except Exception:
            log.exception("%s: a callback of the store failed", self.path)

    # --- the order of writes ------------------------------------------------------------------
    def when_written(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once every write made before has been committed."""
        callback()

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every write made before is committed; False if ``timeout`` passed
        first."""
        return True


T = TypeVar("T")


async def store_call(store: Store, call: Callable[..., T], *args: Any) -> T:
    """A store call from the event loop: in a thread where the store may wait on a database
    server (PostgreSQL: ``off_loop``), at once where it is a local file's (SQLite), so that
    no read, claim or new account holds up every screen of the process."""
    if store.off_loop:
        return await asyncio.to_thread(call, *args)
    return call(*args)
