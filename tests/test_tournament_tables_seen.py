"""A tournament's round table as a player meets it (issue 56, tried as a club would): the lobby
names the tournament where a private table names its host, and says the entrant's seat is
his; every such line fits the lobby's width, breaking before what it says of the player; a
seat whose entrant has not come yet waits his arrival time, not a dropped player's grace."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import asyncssh
import pytest
from rich.cells import cell_len

from engine.tournament import FINISHED
from host.table_info import SeatInfo, TableInfo, TableState
from net.commands import Command
from net.front.lobby import LobbyApp, lobby_command
from net.front.server import MahjongServer
from net.runtime.seat_client import Seat
from net.runtime.shared_table import SharedTable
from net.runtime.tournaments import table_name
from net.store import Account
from testkit.ssh import MakeServer, new_key, run_command
from tests.support.waiting import until
from tests.test_net import join

ANN = Account(1, "ann")


def _info(**fields: object) -> TableInfo:
    seats = (SeatInfo("ann", False, False),) + (SeatInfo("", False, False),) * 3
    return TableInfo("club-1-1", "gejiu", (), seats, 0,  # type: ignore[arg-type]
                     TableState.PLAYING, 1, 1, private=True, host_id=None,
                     **fields)  # type: ignore[arg-type]


async def _lobby(info: TableInfo, account: Account, width: int = 80) -> list[str]:
    # tournament club's entrants: ann (seated here) and bob (at another of its tables)
    club = SimpleNamespace(entries=[SimpleNamespace(pid=1), SimpleNamespace(pid=4)])
    registry = SimpleNamespace(listing=lambda: [info], quarantined={}, storage_problem=None,
                               exists=lambda name: False,
                               tournaments=SimpleNamespace(by_name={"club": club},
                                                           listed=lambda: [],
                                                           table_of=lambda pid: None))
    app = LobbyApp(SimpleNamespace(registry=registry), account)
    async with app.run_test(size=(width, 30)):
        return app.tables_text().plain.splitlines()


@pytest.mark.parametrize(("account", "said"), [
    (ANN, "your seat 你的座位"), (Account(2, "zed"), "you may watch 可旁观"),
    (Account(4, "bob"), "its entrants may not watch now 本轮选手不可旁观")])
async def test_a_round_table_names_its_tournament_and_the_players_seat(
        account: Account, said: str) -> None:
    lines = await _lobby(_info(tournament="club", invited=("ann 1",)), account)
    text = "\n".join(lines)
    assert "a round of tournament club" in text and said in text
    assert "host 桌主 ?" not in text  # a round's table has no host of its own


async def test_a_private_tables_line_breaks_before_what_it_says_of_the_player() -> None:
    info = _info(host="a-rather-long-name", invited=("bob 2",))
    lines = await _lobby(info, Account(3, "zed"))
    row = next(i for i, line in enumerate(lines) if "host 桌主 a-rather-long-name" in line)
    assert "not invited" in lines[row + 1]  # its own row, not wrapped mid-phrase
    assert all(cell_len(line) <= 80 - 4 for line in lines), lines


def test_a_seat_with_its_own_grace_is_covered_after_it() -> None:
    seat = Seat(dropped_at=100.0)
    assert seat.covered_at(20.0) == 120.0
    seat.grace = 60.0  # an entrant not come yet: his arrival time
    assert seat.covered_at(20.0) == 160.0



# --- over SSH: a round's table waits for its entrant, and its end says where he goes next -----
async def _one_round(srv: MahjongServer) -> tuple[SharedTable, asyncssh.SSHKey]:
    """Tournament ``club`` of ann and three computer entries, one round of one Gejiu hand,
    started: its round's table, and ann's key."""
    ann = new_key()
    for command in ("tournament new club --rules gejiu --option hands_per_game=1 --rounds 1",
                    "tournament add club easy", "tournament add club easy",
                    "tournament add club easy", "tournament join club",
                    "tournament start club"):
        r = await run_command(srv.port, "ann", command, ann)
        assert r.exit_status == 0, (command, r.stdout)
    return srv.registry.tables[table_name("club", 1, 1)], ann


def _seat_of(table: SharedTable, name: str) -> int:
    return next(i for i, s in enumerate(table.seats)
                if s.occupant is not None and s.occupant.name == name)


async def test_a_round_table_waits_for_its_entrant_his_arrival_time(
        make_server: MakeServer) -> None:
    srv = await make_server(arrival_seconds=600.0)
    table, ann = await _one_round(srv)
    seat = table.seats[_seat_of(table, "ann")]
    assert seat.grace == 600.0 and seat.dropped_at is not None
    assert not table.is_bot(_seat_of(table, "ann"), seat.dropped_at + 60)  # a grace's time on
    client = await join(srv, "ann", ann, f"join {table.name} --plain")
    try:
        await until(lambda: bool(seat.clients), 10.0, "ann at her seat")
        assert seat.grace is None  # come: a later drop has the table's grace
    finally:
        await client.close()


@pytest.mark.parametrize("plain", [False, True])
async def test_a_round_tables_end_says_where_the_next_round_is(make_server: MakeServer,
                                                              plain: bool) -> None:
    srv = await make_server()  # ann never comes: computers play her seat after a second
    table, ann = await _one_round(srv)
    t = srv.registry.tournaments.by_name["club"]
    await until(lambda: t.state == FINISHED, 60.0, "the tournament's end")
    assert table.info().tournament == "club"
    client = await join(srv, "ann", ann, f"join {table.name}" + (" --plain" if plain else ""))
    try:
        if plain:
            await client.wait_for("Tournament club: type quit", 20.0)
            return
        await client.wait_for("Enter: game result", 20.0)
        client.send("\r")
        text = await client.wait_for("the lobby shows your next table", 20.0)
        assert "Enter / q: leave" in text and "Enter: new game" not in text
        client.send("\r")  # no new game here: Enter leaves
        await asyncio.wait_for(client.closed.wait(), 20.0)
    finally:
        await client.close()


async def test_the_lobby_says_the_entrants_table_on_its_own_line_and_takes_join_name(
        make_server: MakeServer) -> None:
    srv = await make_server(arrival_seconds=600.0)
    table, _ = await _one_round(srv)
    t = srv.registry.tournaments.by_name["club"]
    ann = next(Account(e.pid, e.name) for e in t.entries if e.name == "ann")
    app = LobbyApp(srv, ann)
    async with app.run_test(size=(80, 30)):
        lines = app.tables_text().plain.splitlines()
    listed = [line for line in lines if "Tournaments: club" in line]
    assert listed and all(cell_len(line) <= 80 - 6 for line in listed), lines  # no wrap
    # first, above the tables (a player back from a drop sees it on a small screen)
    assert lines[0] == f"  Your table now: join {table.name} · 你现在的牌桌：join {table.name}"
    assert sum("Your table now" in line for line in lines) == 1
    # what the line says, typed in the lobby, sits her there (it made a table named "join")
    command = lobby_command(srv.registry, ann, ["join", table.name], None)
    assert isinstance(command, Command) and command.name == "join"
    assert command.table == table.name
