"""A store that waits on a database server (PostgreSQL: ``Store.off_loop``) is never called
from the event loop on the paths a player's login and session take: a key's account, a
keyless name's lookup and its guest account, the kept settings, the lobby's leaderboard. A
slow database holds up that one login, not every screen of the process."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

from net.front.server import MahjongServer
from net.front.trends import LobbyLeaders, boards_reading
from testkit.ssh import MakeServer, PtyClient, new_key, run_command
from tests.support.waiting import until
from tests.test_net import join

WATCHED = ("account_for_key", "keyless_row", "free_nickname", "guest_account",
           "load_settings", "rulesets_played", "leaderboard")


class Calls(list[tuple[str, bool]]):
    """The watched calls made (name, on the loop's thread), and how many run now."""

    running = 0
    store: Any = None

    async def settled(self) -> None:
        """Until no watched call runs and the lobby's boards read nothing: the server may
        then close its store (a SQLite connection closed under a thread still reading it
        would take the process down)."""
        await until(lambda: self.running == 0 and not boards_reading(self.store),
                    10.0, "the store's calls to end")


def watch_store(server: MahjongServer, delay: float = 0.0) -> Calls:
    """Mark the server's store as a database server's and record, for each watched call,
    whether it ran on the event loop's thread (each waits ``delay`` seconds)."""
    store = server.store
    calls = Calls()
    calls.store = store
    store.off_loop = True  # type: ignore[misc]

    def wrapped(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kw: Any) -> Any:
            calls.running += 1
            try:
                calls.append((name, threading.current_thread() is threading.main_thread()))
                if delay:
                    time.sleep(delay)
                return call(*args, **kw)
            finally:
                calls.running -= 1
        return run

    for name in WATCHED:
        setattr(store, name, wrapped(name, getattr(store, name)))
    return calls


async def test_a_keys_login_and_its_lobby_read_the_store_off_the_loop(
        make_server: MakeServer) -> None:
    server = await make_server()
    calls = watch_store(server, delay=0.3)
    ticks = 0
    stop = False

    async def tick() -> None:  # the loop keeps turning while the account is read
        nonlocal ticks
        while not stop:
            ticks += 1
            await asyncio.sleep(0.02)

    ticker = asyncio.get_running_loop().create_task(tick())
    started = ticks
    c = await join(server, "ann", new_key(), "lobby")
    await c.wait_for("welcome ann", timeout=10)
    stop = True
    await ticker
    names = {name for name, _ in calls}
    assert {"account_for_key", "load_settings"} <= names
    assert [name for name, on_loop in calls if on_loop] == []
    assert ticks - started >= 10  # 0.3 s reads each: the loop ran all along
    await c.close()
    await calls.settled()


async def test_a_keyless_guest_reads_the_store_off_the_loop(make_server: MakeServer) -> None:
    server = await make_server(allow_anonymous=True)
    calls = watch_store(server)
    c = PtyClient()
    await c.connect(server.port, "wes", None, command="lobby")
    await c.wait_for("welcome wes", timeout=10)
    names = {name for name, _ in calls}
    assert {"keyless_row", "guest_account"} <= names
    assert [name for name, on_loop in calls if on_loop] == []
    await c.close()
    await calls.settled()


async def test_the_lobby_leaderboard_of_a_database_server_is_read_in_a_thread(
        make_server: MakeServer) -> None:
    server = await make_server()
    calls = watch_store(server)
    board = LobbyLeaders(server.store)
    board.text()
    await until(lambda: any(name == "leaderboard" or name == "rulesets_played"
                            for name, _ in calls), 5.0, "the board read")
    await calls.settled()
    assert [name for name, on_loop in calls if on_loop] == []


async def test_commands_without_a_terminal_wait_for_a_slow_account(
        make_server: MakeServer) -> None:
    server = await make_server()
    calls = watch_store(server, delay=0.3)
    listed = await asyncio.wait_for(run_command(server.port, "ann", "replay", key=new_key()), 15)
    assert listed.exit_status == 0, listed.stderr
    assert str(listed.stdout).strip()  # the (empty) list's text, not a crashed session
    stats = await asyncio.wait_for(run_command(server.port, "bob", "stats", key=new_key()), 15)
    assert stats.exit_status == 0 and "Leaderboard" in str(stats.stdout)
    await calls.settled()
