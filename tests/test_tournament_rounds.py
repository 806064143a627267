"""A tournament's rounds played on one server (issue 56, layer 4): a round's tables made
together with the round's seed, each entry in its seat, computers filling the short tables;
an entry who is not there covered by a computer and given his seat when he joins; a table's
game ID kept; the round's last table seats the next; the whole survives a restart."""

from __future__ import annotations

import json

import asyncssh
import pytest

from engine.tournament import FINISHED, RUNNING, Entry, Tournament
from host.table_info import TableState
from net.commands import CommandError, parse_command
from net.front.server import MahjongServer
from net.front.tournaments import shown
from net.runtime.tournaments import table_name
from net.store.model import Account
from testkit.ssh import MakeServer, new_key, run_command
from tests.support.waiting import until
from tests.test_net import join

NAMES = ("ann", "bob", "cy", "dee", "eve")


async def _started(server: MahjongServer, rounds: int,
                   duplicate: bool = True) -> dict[str, asyncssh.SSHKey]:
    keys = {name: new_key() for name in NAMES}
    flag = " --duplicate" if duplicate else ""
    r = await run_command(server.port, "ann", f"tournament new club --rules yichun --option "
                          f"hands_per_game=2 --rounds {rounds}{flag}", keys["ann"])
    assert r.exit_status == 0, r.stdout
    for name in NAMES:
        r = await run_command(server.port, name, "tournament join club", keys[name])
        assert r.exit_status == 0, r.stdout
    r = await run_command(server.port, "ann", "tournament start club", keys["ann"])
    assert r.exit_status == 0, r.stdout
    return keys


def _club(server: MahjongServer) -> Tournament:
    return server.registry.tournaments.by_name["club"]


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_rounds_are_played_to_the_end(make_server: MakeServer,
                                            request: pytest.FixtureRequest, backend: str) -> None:
    db = {"db_url": request.getfixturevalue("pg_url")} if backend == "postgres" else {}
    server = await make_server(**db)
    keys = await _started(server, rounds=2)
    t = _club(server)
    round1 = t.played[0]
    tables = {rt.no: server.registry.tables[table_name("club", 1, rt.no)] for rt in round1.tables}
    assert len(tables) == 2
    for rt in round1.tables:
        table = tables[rt.no]
        # the round's one seed, the deal passed on after every hand, each entry in his seat
        assert table.game_seed == round1.seed and table.rotate_dealer and table.private
        for i, seat in enumerate(rt.seats):
            occupant = table.seats[i].occupant
            if seat.pid is None:  # a computer of the fill level
                assert occupant is None and table.bot_levels[i] == t.fill_level
            else:
                assert occupant is not None and occupant.account_id == seat.pid
    # an entry who comes takes his seat (and leaves it to his computer again)
    rt = round1.tables[0]
    wind, seat = next((i, s) for i, s in enumerate(rt.seats) if s.pid is not None)
    client = await join(server, seat.name, keys[seat.name],
                        f"join {table_name('club', 1, rt.no)} --plain")
    try:
        await until(lambda: bool(tables[rt.no].seats[wind].clients), 10.0, "his seat")
    finally:
        await client.close()
    # computers cover who is not there: round 1 ends, round 2 is seated and played
    await until(lambda: t.state == FINISHED, 120.0, "the tournament's end")
    assert [r.over for r in t.played] == [True, True]
    for round_ in t.played:
        assert len(round_.results) == len(round_.tables)
        for no, result in round_.results.items():
            assert len(result.nets) == 2 and len(result.game_id) == 8
            kept = server.registry.tables.get(table_name("club", round_.no, no))
            assert kept is None or kept.state is TableState.OVER
            if kept is not None:  # its one game counted: no other starts there
                refusal = kept.ask_new_game(0)
                assert refusal is not None and refusal.key == "tournament_table_done"
                assert kept.game_no == 1
    # a game each entry played in, kept for replay under its ID
    game_id = t.played[0].results[1].game_id
    store = server.registry.store
    assert store is not None and store.flush(10)  # a database server's writes are queued
    r = await run_command(server.port, "zed", f"replay {game_id}", new_key())
    assert r.exit_status == 0 and '"type": "game"' in str(r.stdout), r.stdout
    # the standings: every entry twice at a table; the duplicate scores sum to nothing
    rows = t.standings()
    assert sorted(r.name for r in rows) == sorted(NAMES)
    assert all(r.tables == 2 for r in rows)
    r = await run_command(server.port, "zed", "tournament club --json", new_key())
    data = json.loads(str(r.stdout))
    assert data["state"] == "finished" and data["rounds"][1]["seed"] == t.played[1].seed


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_round_survives_a_restart(make_server: MakeServer, request: pytest.FixtureRequest,
                                          backend: str) -> None:
    db = {"db_url": request.getfixturevalue("pg_url")} if backend == "postgres" else {}
    first = await make_server(grace_seconds=60.0, **db)  # nobody's computer plays before
    keys = await _started(first, rounds=2)
    t = _club(first)
    assert t.state == RUNNING and not t.played[0].results
    # an entry's lobby says where he plays now
    rt = t.played[0].tables[1]
    seated = next(s for s in rt.seats if s.pid is not None)
    lobby = await join(first, seated.name, keys[seated.name], "lobby --plain")
    try:
        await lobby.wait_for(f"Your table now: join {table_name('club', 1, rt.no)}")
    finally:
        await lobby.close()
    await first.close()
    server = await make_server(**db)  # the restart
    again = _club(server)
    assert again.played[0].tables == t.played[0].tables
    for rt in again.played[0].tables:
        table = server.registry.tables[table_name("club", 1, rt.no)]
        assert table.rotate_dealer and table.game_seed == again.played[0].seed
    await until(lambda: again.state == FINISHED, 120.0, "the tournament's end")
    assert all(r.over for r in again.played)


async def test_a_rounds_time_limit_ends_its_games_a_hand_later(server: MahjongServer) -> None:
    board = server.registry.tournaments
    host = Account(1, "ann", None)
    # a thousand hands a game: only the limit ends them within the test
    t = await board.create("slow", host, "gejiu", {"hands_per_game": 1000}, 1, True,
                           round_seconds=1)
    for i, name in enumerate(NAMES, 1):
        await board.join("slow", Account(i, name, None))
    await board.start("slow", host)
    await until(lambda: t.state == FINISHED, 120.0, "the round's end by its limit")
    (round1,) = t.played
    for result in round1.results.values():
        assert 1 <= len(result.nets) < 1000 and len(result.game_id) == 8
    assert "A round's time limit: 1 min; then each table plays one more hand" in shown(t)


def test_the_limit_is_typed_in_minutes() -> None:
    c = parse_command("tournament new club --rounds 2 --minutes 45")
    assert c.round_minutes == 45
    for bad in ("0", "601", "x"):
        with pytest.raises(CommandError):
            parse_command(f"tournament new club --rounds 2 --minutes {bad}")


async def test_computers_entered_play_their_own_seats(server: MahjongServer) -> None:
    board = server.registry.tournaments
    host = Account(1, "ann", None)
    t = await board.create("bots", host, "shangrao", {"hands_per_game": 1}, 1, True)
    await board.join("bots", host)
    for i, level in enumerate(("easy", "hard", "expert"), 1):
        t.join(Entry(-i, f"{level}-{i}", level))  # the model takes computers as entries
    await board.start("bots", host)
    (rt,) = t.played[0].tables
    table = server.registry.tables[table_name("bots", 1, 1)]
    for i, seat in enumerate(rt.seats):
        if seat.level is not None:  # no one to wait for: the computer of its level plays
            assert table.seats[i].occupant is None and table.bot_levels[i] == seat.level
    await until(lambda: t.state == FINISHED, 120.0, "the tournament's end")
    assert sorted(r.name for r in t.standings()) == ["ann", "easy-1", "expert-3", "hard-2"]
