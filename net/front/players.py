"""The players' own levers against abuse (issue 55), next to the operators'
(net/front/operators.py):

- ``/ignore NAME`` in a table's chat: that player's chat lines hidden for this account from
  then on (on the screen, in the chat's history, in plain mode), kept in the store with the
  account, so that it holds at the next login, on every worker and after a restart;
  ``/unignore NAME`` shows them again, ``/ignore`` alone lists the names ignored. At most
  ``IGNORE_MAX`` names; a name must be an account's (one that has logged in: a name nobody
  has is refused, as an operator's ``mute`` refuses it), never one's own.
- ``/report NAME REASON`` in a table's chat, ``report NAME REASON`` in the lobby's line (drawn
  or plain), or ``ssh HOST report NAME REASON``: kept for the
  operators (``ssh HOST reports [N]``) with the reporter, the reported, the table, the time
  and the reason (cleaned as chat is, within ``REPORT_REASON_MAX``). At most
  ``REPORTS_PER_DAY`` a day from one account, and one per reported name in
  ``REPORT_SAME_SECONDS``; the answer says it was kept, or why not.

Chat lines are hidden by the name they carry (:class:`~host.table_info.ChatLine`); the names
ignored are read by account when a table is opened (a rename waits until its player sits
nowhere, so the names a table shows do not change under it). What was already shown before a
``/ignore`` stays on that screen.
"""

from __future__ import annotations

import logging
import time
from typing import Protocol

from host.client import SharedTableClient
from net.limits import (
    IGNORE_MAX,
    REPORT_REASON_MAX,
    REPORT_SAME_SECONDS,
    REPORTS_PER_DAY,
)
from net.logfmt import about
from net.sanitize import clean_line, clean_name
from net.store.base import Store, store_call
from net.store.model import Account, Report, StorageError
from words import both

log = logging.getLogger("net.front.server")

TABLE_COMMANDS = frozenset({"ignore", "unignore", "report"})  # typed with a slash
DAY = 86400.0


class PlayersHost(Protocol):
    """What the players' commands need of the server."""

    store: Store


class PlayerError(ValueError):
    """A player's command that cannot run: its line (both languages) and exit status."""

    def __init__(self, line: str, status: int = 1) -> None:
        super().__init__(line)
        self.status = status


class Player:
    """One player's ``/ignore``, ``/unignore`` or ``/report`` (``client``: at a table, whose
    chat lines it hides from now on)."""

    def __init__(self, store: Store, address: str | None, account: Account,
                 client: SharedTableClient | None = None, table: str = "") -> None:
        self.store = store
        self.address = address  # the player's, for the log
        self.account = account
        self.client = client
        self.table = table

    async def run(self, head: str, rest: list[str]) -> tuple[str, int]:
        """The command's answer and exit status."""
        try:
            if head == "report":
                return await self.report(rest), 0
            if head == "ignore" and not rest:
                return await self.listing(), 0
            if len(rest) != 1:
                raise PlayerError(both("usage", usage=f"/{head} NAME"), status=2)
            return await self.ignore(rest[0], head == "ignore"), 0
        except PlayerError as exc:
            return str(exc), exc.status

    async def _other(self, name: str) -> int:
        """The account holding ``name`` (a name as a login has it, never one's own)."""
        if name == self.account.nickname:
            raise PlayerError(both("player_yourself"))
        store = self.store
        row = await store_call(store, store.keyless_row, clean_name(name)) \
            if clean_name(name) == name else None
        if row is None:
            raise PlayerError(both("op_no_player", name=clean_line(name, 30)))
        return row.account_id

    async def _ignored(self) -> list[tuple[int, str]]:
        store = self.store
        try:
            return await store_call(store, store.ignored_by, self.account.id)
        except StorageError:
            raise PlayerError(both("player_not_saved")) from None

    async def _written(self, done: bool) -> None:
        store = self.store
        if not done or not await store_call(store, store.flush, 5.0):
            raise PlayerError(both("player_not_saved"))

    async def listing(self) -> str:
        names = [name for _, name in await self._ignored()]
        return both("ignoring", names=", ".join(names)) if names else both("ignoring_none")

    async def ignore(self, name: str, on: bool) -> str:
        if self.account.id < 0:  # an account in memory only, while the store fails
            raise PlayerError(both("player_not_saved"))
        other = await self._other(name)
        ignored = await self._ignored()
        known = any(i == other for i, _ in ignored)
        store = self.store
        if on:
            if known:
                return both("ignored_already", name=name)
            if len(ignored) >= IGNORE_MAX:
                raise PlayerError(both("ignore_full", n=IGNORE_MAX))
            await self._written(await store_call(store, store.add_ignore, self.account.id,
                                                 other))
            names = {n for _, n in ignored} | {name}
        else:
            if not known:
                raise PlayerError(both("ignored_not", name=name))
            await self._written(await store_call(store, store.remove_ignore, self.account.id,
                                                 other))
            names = {n for i, n in ignored if i != other}
        if self.client is not None:
            hide(self.client, names)
        return both("ignored" if on else "unignored", name=name)

    async def report(self, rest: list[str]) -> str:
        if len(rest) < 2:
            raise PlayerError(both("usage", usage="/report NAME REASON"), status=2)
        if self.account.id < 0:
            raise PlayerError(both("player_not_saved"))
        name = rest[0]
        reason = clean_line(" ".join(rest[1:]), REPORT_REASON_MAX + 1)
        if len(reason) > REPORT_REASON_MAX:
            raise PlayerError(both("op_long_reason", most=REPORT_REASON_MAX), status=2)
        if not reason:
            raise PlayerError(both("usage", usage="/report NAME REASON"), status=2)
        other = await self._other(name)
        store = self.store
        now = time.time()
        try:
            made = await store_call(store, store.reports_by, self.account.id, now - DAY)
        except StorageError:
            raise PlayerError(both("player_not_saved")) from None
        if len(made) >= REPORTS_PER_DAY:
            raise PlayerError(both("report_day_full", n=REPORTS_PER_DAY))
        if any(who == other and at >= now - REPORT_SAME_SECONDS for who, at in made):
            raise PlayerError(both("report_again", name=name,
                                   minutes=int(REPORT_SAME_SECONDS // 60)))
        await self._written(await store_call(store, store.add_report, Report(
            now, self.account.id, self.account.nickname, other, name, self.table, reason)))
        log.info("report of %s: %s", name, reason,
                 extra=about(self.account.nickname, self.address, self.table))
        return both("report_kept", name=name)


def hide(client: SharedTableClient, names: set[str] | frozenset[str]) -> None:
    """``client``'s chat lines from ``names`` hidden from now on (host.client.SharedSeat)."""
    setattr(client, "ignored", frozenset(names))  # noqa: B010 (a SharedSeat's, any kind)


LOBBY_WORDS = frozenset({"report", "/report"})  # a report typed in the lobby's line


async def lobby_report(store: Store | None, account: Account, words: list[str]) -> str:
    """``report NAME REASON`` (or ``/report``) typed in the lobby: its answer (``store``
    None: a lobby with none, a test's, keeps nothing)."""
    if store is None:
        return both("player_not_saved")
    text, _ = await Player(store, None, account).run("report", words[1:])
    return text
