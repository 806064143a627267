"""The players' levers at a table and over SSH that need a session (issue 55): ``/ignore``,
``/unignore`` and ``/report`` in a table's chat, and ``ssh HOST report NAME REASON``. What they
do is :mod:`net.front.players`' (which the lobbies use too, below the session: it names no
session, so that no import cycle runs through the session)."""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from typing import TYPE_CHECKING

from host.client import SharedTableClient
from net.front.operators import chat_through, tell
from net.front.players import TABLE_COMMANDS, Player, PlayersHost, hide
from net.store.base import store_call
from net.store.model import Account, StorageError

if TYPE_CHECKING:
    from net.front.session import Session


async def at_table(host: PlayersHost, session: Session, account: Account,
                   client: SharedTableClient, table: str) -> None:
    """``client`` hides the chat of the names ``account`` ignores (read now from the store;
    none where it cannot be read), and its chat runs ``/ignore``, ``/unignore`` and
    ``/report`` for its player, their answer told to that player alone."""
    store = host.store
    if account.id >= 0:
        with contextlib.suppress(StorageError):
            hide(client, {name for _, name in await store_call(store, store.ignored_by,
                                                               account.id)})
    running: set[asyncio.Task[None]] = set()
    seat = weakref.ref(client)

    def handle(session: Session, text: str) -> bool:
        words = text.split()
        head = words[0][1:].lower() if words and words[0].startswith("/") else ""
        if head not in TABLE_COMMANDS:
            return True
        player = Player(store, session.conn.address, account, seat(), table)
        task = asyncio.get_running_loop().create_task(_answer(session, player, head,
                                                              words[1:]))
        running.add(task)  # the loop keeps only a weak reference
        task.add_done_callback(running.discard)
        return False

    chat_through(client, handle, session)


async def _answer(session: Session, player: Player, head: str, rest: list[str]) -> None:
    text, _ = await player.run(head, rest)
    tell(session, text)


async def run_report(host: PlayersHost, session: Session, words: list[str]) -> None:
    """``ssh HOST report NAME REASON``: its answer, then its exit status."""
    await session.conn.logged_in.wait()  # its account may still be read (a database server)
    account = session.conn.account
    if account is None:
        return
    text, status = await Player(host.store, session.conn.address,
                                account).run("report", words)
    if session.chan is not None:
        with contextlib.suppress(OSError):  # the client left meanwhile
            session.reply(text + "\n", status)
