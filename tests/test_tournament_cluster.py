"""Tournaments on a server of several workers (issue 56, net/cluster/tournaments.py): two
workers in this process joined by a real NATS server and one database (a SQLite file, or
PostgreSQL as on several machines), as tests/test_cluster.py starts them. A tournament made
and started on one worker has its round's tables on both, is played to its end, and reads the
same from either; a worker killed mid-round has its tables taken over and the tournament
still ends, every table's result counted once; a player whose connection was on the dead
worker is told by the other's lobby where he plays and gets his seat there."""

from __future__ import annotations

import json
import time

import asyncssh
import pytest

from engine.tournament import FINISHED, Entry, Tournament
from net.cluster.directory import TAKEOVER_SECONDS
from net.front.server import MahjongServer
from net.runtime.tournaments import table_name
from net.store.model import Account
from testkit.ssh import new_key, run_command
from tests.support.nats import nats_server  # noqa: F401
from tests.support.waiting import until
from tests.test_cluster import Workers, join, kill, workers  # noqa: F401


async def run(server: MahjongServer, user: str, key: object, command: str) -> tuple[str, int]:
    r = await run_command(server.port, user, command, key)  # type: ignore[arg-type]
    return str(r.stdout) + str(r.stderr), int(r.exit_status or 0)


def owners(servers: list[MahjongServer], name: str) -> list[int]:
    """Which of ``servers`` run table ``name`` now (by index)."""
    return [i for i, s in enumerate(servers) if name in s.registry.tables]


async def stored_club(server: MahjongServer, key: asyncssh.SSHKey, rules: str, rounds: int,
                      seed: int, hands: int, computers: int, round_seconds: int = 0,
                      ann_plays: bool = False) -> Account:
    """Tournament ``club``, duplicate, hosted by ann (her account made by a command), stored
    as made: ``computers`` easy computers entered, and ann where ``ann_plays``."""
    await run(server, "ann", key, "tournament club")  # ann's account, made
    store = server.registry.store
    assert store is not None
    ann = store.account_for_key(key.get_fingerprint(), "ann")
    t = Tournament("club", rules, rounds, host=ann.id, seed=seed, duplicate=True,
                   options=(("hands_per_game", hands),), round_seconds=round_seconds)
    if ann_plays:
        t.join(Entry(ann.id, "ann"))
    for i in range(1, computers + 1):
        t.join(Entry(-i, f"bot{i}", "easy"))
    assert store.save_tournament(t) and store.flush(10)
    return ann


async def round1_made(servers: list[MahjongServer]) -> list[str]:
    """Round 1's two tables, once each runs on one worker: their names."""
    round1 = [table_name("club", 1, no) for no in (1, 2)]
    await until(lambda: all(len(owners(servers, n)) == 1 for n in round1), 15.0,
                "round 1's tables made")
    return round1


def club(server: MahjongServer) -> Tournament:
    store = server.registry.store
    assert store is not None
    t = store.load_tournament("club")
    assert t is not None
    return t


async def test_a_tournament_is_made_on_one_worker_and_played_on_both(
        workers: Workers) -> None:  # noqa: F811
    a, b = await workers(2)
    keys = {f"p{i}": new_key() for i in range(8)}
    text, status = await run(a, "p0", keys["p0"], "tournament new club --rules yichun "
                             "--option hands_per_game=1 --rounds 2 --duplicate")
    assert status == 0, text
    for i, (name, key) in enumerate(keys.items()):  # joined on either worker
        text, status = await run((a, b)[i % 2], name, key, "tournament join club")
        assert status == 0, text
    text, status = await run(b, "p1", keys["p1"], "tournament club")
    assert status == 0 and "p7" in text, text  # the other worker reads it from the store
    text, status = await run(b, "p0", keys["p0"], "tournament start club")
    assert status == 0, text
    servers = [a, b]
    # the round's tables, made through the directory: one on each worker
    round1 = await round1_made(servers)
    assert {owners(servers, n)[0] for n in round1} == {0, 1}
    # nobody came: computers cover every seat; the round's last result seats the next
    await until(lambda: club(a).state == FINISHED, 120.0, "the tournament's end")
    t = club(a)
    assert [r.over for r in t.played] == [True, True]
    for round_ in t.played:
        ids = [r.game_id for r in round_.results.values()]
        assert len(ids) == 2 and len(set(ids)) == 2 and all(len(i) == 8 for i in ids)
        for rt in round_.tables:
            assert len(owners(servers, table_name("club", round_.no, rt.no))) <= 1
    assert all(s.tables == 2 for s in t.standings())
    # the same whole result from either worker; its lobby's line no longer names it
    answers = [await run(s, "zed", new_key(), "tournament club --json") for s in servers]
    assert answers[0] == answers[1] and answers[0][1] == 0
    assert json.loads(answers[0][0])["state"] == "finished"


@pytest.mark.parametrize("when", ["mid-game", "its game over, not yet counted"])
async def test_a_worker_killed_mid_round_loses_no_result(workers: Workers,  # noqa: F811
                                                         when: str) -> None:
    a, b = await workers(2, bot_delay=0.02)
    host = new_key()
    # eight computers entered: no one to wait for, the games play at once
    await stored_club(a, host, "yichun", 2, seed=4242, hands=2, computers=8)
    text, status = await run(a, "ann", host, "tournament start club")
    assert status == 0, text
    servers = [a, b]
    round1 = await round1_made(servers)
    dead = a if owners(servers, round1[0]) == [0] else b
    alive = b if dead is a else a
    assert dead.shared_board is not None
    await dead.shared_board.stop()  # as SIGKILL would: it records and makes nothing more
    table = dead.registry.tables[round1[0]]
    if when == "mid-game":
        assert table.game is not None and not table.game.is_over
    else:  # it ended there, its result not recorded: the taker counts it
        await until(lambda: table.game is not None and table.game.is_over, 60.0, "its end")
        assert 1 not in club(alive).played[0].results
    kill(dead)
    await until(lambda: all(n in alive.registry.tables for n in round1), TAKEOVER_SECONDS + 8.0,
                "the takeover of the dead worker's table")
    await until(lambda: club(alive).state == FINISHED, 180.0, "the tournament's end")
    t = club(alive)
    assert [r.over for r in t.played] == [True, True]
    for round_ in t.played:
        assert sorted(round_.results) == [1, 2]
        for result in round_.results.values():  # its whole game, counted once
            assert len(result.nets) == 2 and len(result.game_id) == 8
    # round 2's tables were all made by the worker that lives
    for rt in t.played[1].tables:
        assert table_name("club", 2, rt.no) not in dead.registry.tables



async def test_a_player_on_the_dead_worker_comes_back_to_his_seat_on_the_other(
        workers: Workers) -> None:  # noqa: F811
    a, b = await workers(2, bot_delay=0.02, grace_seconds=5.0)
    key = new_key()
    ann = await stored_club(a, key, "yichun", 1, seed=99, hands=1, computers=3, ann_plays=True)
    text, status = await run(b, "ann", key, "tournament start club")
    assert status == 0, text
    servers = [a, b]
    name = table_name("club", 1, 1)
    await until(lambda: len(owners(servers, name)) == 1, 15.0, "the round's table made")
    dead, alive = (a, b) if owners(servers, name) == [0] else (b, a)
    wind = next(i for i, s in enumerate(club(a).played[0].tables[0].seats) if s.pid == ann.id)
    client = await join(dead, "ann", key, f"join {name}")  # her connection on its worker
    table = dead.registry.tables[name]
    await until(lambda: bool(table.seats[wind].clients), 10.0, "her seat")
    assert dead.shared_board is not None
    await dead.shared_board.stop()
    kill(dead)
    await client.close()
    await until(lambda: name in alive.registry.tables, TAKEOVER_SECONDS + 8.0, "the takeover")
    # the other worker's lobby says where she plays; she joins there and has her seat
    lobby = await join(alive, "ann", key, "lobby --plain")
    try:
        await lobby.wait_for(f"Your table now: join {name}")
    finally:
        await lobby.close()
    back = await join(alive, "ann", key, f"join {name}")
    taken = alive.registry.tables[name]
    try:
        await until(lambda: bool(taken.seats[wind].clients), 10.0, "her seat again")
        occupant = taken.seats[wind].occupant
        assert occupant is not None and occupant.account_id == ann.id
    finally:
        await back.close()
    # she leaves: her computer plays on, the tournament ends on the worker that lives
    await until(lambda: club(alive).state == FINISHED, 120.0, "the tournament's end")


async def test_a_rounds_time_limit_is_kept_by_each_tables_owner(
        workers: Workers) -> None:  # noqa: F811
    a, b = await workers(2)
    key = new_key()
    # a thousand hands a game: only the limit ends them within the test
    await stored_club(a, key, "gejiu", 1, seed=7, hands=1000, computers=8, round_seconds=1)
    text, status = await run(b, "ann", key, "tournament start club")
    assert status == 0, text
    servers = [a, b]
    round1 = await round1_made(servers)
    assert {owners(servers, n)[0] for n in round1} == {0, 1}
    await until(lambda: club(a).state == FINISHED, 120.0, "the round's end by its limit")
    for result in club(a).played[0].results.values():
        assert 1 <= len(result.nets) < 1000 and len(result.game_id) == 8


async def test_a_takeover_gives_a_round_no_more_time(workers: Workers) -> None:  # noqa: F811
    a, b = await workers(2, bot_delay=0.02)
    key = new_key()
    # ten minutes a round, a thousand hands a game: the test ends only if the round's time,
    # counted from its table's making, is up when the table is taken over
    await stored_club(a, key, "gejiu", 1, seed=7, hands=1000, computers=4, round_seconds=600)
    store = a.registry.store
    assert store is not None
    text, status = await run(a, "ann", key, "tournament start club")
    assert status == 0, text
    servers = [a, b]
    name = table_name("club", 1, 1)
    await until(lambda: len(owners(servers, name)) == 1, 15.0, "the round's table made")
    dead, alive = (a, b) if owners(servers, name) == [0] else (b, a)
    made_by = dead.registry.store
    assert made_by is not None and made_by.flush(10)  # its row written (PostgreSQL: queued)
    # as if the table had been made eleven minutes ago
    change = store._change  # type: ignore[attr-defined]
    assert change("UPDATE tables SET created = created - 660 WHERE name = ?", (name,)) == 1
    assert dead.shared_board is not None
    await dead.shared_board.stop()
    kill(dead)
    await until(lambda: name in alive.registry.tables, TAKEOVER_SECONDS + 8.0, "the takeover")
    await until(lambda: club(alive).state == FINISHED, 120.0, "the round's end by its limit")
    (result,) = club(alive).played[0].results.values()
    assert 1 <= len(result.nets) < 1000


async def test_a_set_start_is_kept_by_every_worker(workers: Workers) -> None:  # noqa: F811
    a, b = await workers(2)
    store = a.registry.store
    assert store is not None
    # made by a worker that is gone (nobody timed its start): the others read it and start it
    t = Tournament("club", "gejiu", 1, host=1, seed=7, duplicate=True,
                   options=(("hands_per_game", 1),), starts_at=time.time() + 2)
    for i in range(1, 5):
        t.join(Entry(-i, f"bot{i}", "easy"))
    assert store.save_tournament(t) and store.flush(10)
    await until(lambda: club(a).state == FINISHED, 60.0, "its start at its time, and its end")
    assert len(club(b).played[0].results) == 1


async def test_a_name_whose_round_tables_another_worker_runs_is_refused(
        workers: Workers) -> None:  # noqa: F811
    a, b = await workers(2)
    client = await join(b, "zed", new_key(), "join cup-1-1")  # a table of that shape, on b
    try:
        await until(lambda: any(i.name == "cup-1-1" for i in a.registry.listing()), 10.0,
                    "a sees b's table")
        text, status = await run(a, "ann", new_key(), "tournament new cup --rounds 1")
        assert status != 0 and "already" in text, text
    finally:
        await client.close()
