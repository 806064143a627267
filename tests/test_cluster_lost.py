"""A worker lost under a connected session (issue 53, a worker's loss): the session's table
taken over by another worker goes on and the player is told so; a table that cannot be
found again, or a worker that stops, ends the session with a line in both languages saying
what happened and the ssh command that brings the player back (net/cluster/remote.py
RoutedClient, net/front/commands_run.py table_farewell). Two workers in this process, as in
tests/test_cluster.py; tests/test_cluster_processes.py SIGKILLs a real one."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from net.cluster.directory import TAKEOVER_SECONDS
from net.cluster.natsd import NatsServer
from net.cluster.remote import RoutedClient
from net.front.server import MahjongServer
from testkit.ssh import PtyClient, fast_config, new_key, start_server
from tests.support.nats import nats_server  # noqa: F401
from tests.support.waiting import until
from tests.test_cluster import join, kill, owned


@pytest.fixture
async def two(tmp_path: Path, nats_server: NatsServer  # noqa: F811
              ) -> AsyncIterator[Callable[[], Any]]:
    started: list[MahjongServer] = []

    async def make() -> tuple[MahjongServer, MahjongServer]:
        for _ in range(2):
            started.append(await start_server(fast_config(
                tmp_path / "data", nats_url=nats_server.url, grace_seconds=30.0)))
        return started[0], started[1]

    yield make
    for srv in reversed(started):
        with contextlib.suppress(Exception):
            await srv.close()


def screen(c: PtyClient) -> str:
    """The screen as one line: a long line wraps at the right edge."""
    return "".join(c.screen.display)


async def seated_apart(a: MahjongServer, b: MahjongServer) -> tuple[PtyClient, PtyClient]:
    """p0 on worker a (which owns table thu), p1 on worker b, a hand under way."""
    c0 = await join(a, "p0", new_key(), "join thu", width=120)
    await c0.wait_for("press S")
    c1 = await join(b, "p1", new_key(), "join thu", width=120)
    await c1.wait_for("p0")
    c0.send("s")
    await owned([a, b], "thu", seated=2)
    for c in (c0, c1):
        await c.wait_for("宜春")
    assert "thu" in a.registry.tables
    return c0, c1


async def test_a_table_taken_over_goes_on_and_the_player_is_told(
        two: Callable[[], Any]) -> None:
    a, b = await two()
    c0, c1 = await seated_apart(a, b)
    kill(a)
    # a toast in a narrow strip: the words wrap
    await c1.wait_for(lambda t: "The table goes on," in t and "牌桌继续" in t,
                      TAKEOVER_SECONDS + 8.0)
    assert not c1.closed.is_set()
    await c1.close()
    await c0.close()


async def test_a_table_not_found_again_ends_the_session_saying_how_to_come_back(
        two: Callable[[], Any]) -> None:
    a, b = await two()
    c0, c1 = await seated_apart(a, b)

    async def nowhere(_client: Any) -> None:
        return None

    routed = [getattr(s.app, "seat_client", None) for s in b.sessions]
    assert len(routed) == 1 and isinstance(routed[0], RoutedClient)
    routed[0]._rejoin = nowhere  # as if no worker took thu over in time
    kill(a)
    line = f"ssh -t -p {b.port} p1@127.0.0.1 join thu"
    await until(lambda: line in screen(c1), TAKEOVER_SECONDS + 8.0, "the way back said")
    text = screen(c1)
    assert "was lost" in text and "回来请输入" in text
    await until(c1.closed.is_set, 5.0, "the session to end")
    assert c1.exit_status == 1
    await c0.close()


async def test_a_stopping_worker_says_the_table_goes_on_and_how_to_come_back(
        two: Callable[[], Any]) -> None:
    a, b = await two()
    c0, c1 = await seated_apart(a, b)
    await b.close()  # p1's worker (SIGTERM): thu, run by a, goes on
    await until(lambda: "p1@127.0.0.1 join thu" in screen(c1), 5.0, "the way back said")
    text = screen(c1)
    assert "table thu goes on in another" in text and "在另一进程继续" in text
    await c0.close()
