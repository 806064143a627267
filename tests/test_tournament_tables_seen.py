"""A tournament's round table as a player meets it (issue 56, tried as a club would): the lobby
names the tournament where a private table names its host, and says the entrant's seat is
his; every such line fits the lobby's width, breaking before what it says of the player; a
seat whose entrant has not come yet waits his arrival time, not a dropped player's grace."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from rich.cells import cell_len

from host.table_info import SeatInfo, TableInfo, TableState
from net.front.lobby import LobbyApp
from net.runtime.seat_client import Seat
from net.store import Account

ANN = Account(1, "ann")


def _info(**fields: object) -> TableInfo:
    seats = (SeatInfo("ann", False, False),) + (SeatInfo("", False, False),) * 3
    return TableInfo("club-1-1", "gejiu", (), seats, 0,  # type: ignore[arg-type]
                     TableState.PLAYING, 1, 1, private=True, host_id=None,
                     **fields)  # type: ignore[arg-type]


async def _lobby(info: TableInfo, account: Account, width: int = 80) -> list[str]:
    registry = SimpleNamespace(listing=lambda: [info], quarantined={}, storage_problem=None,
                               exists=lambda name: False)
    app = LobbyApp(SimpleNamespace(registry=registry), account)
    async with app.run_test(size=(width, 30)):
        return app.tables_text().plain.splitlines()


@pytest.mark.parametrize(("account", "said"), [(ANN, "your seat 你的座位"),
                                               (Account(2, "zed"), "you may watch 可旁观")])
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
