"""The lobby's frictions and one's own tables (issue 53, "the lobby" and "tables").

A word typed in the lobby made a table and seated its player (``clear`` did, and the typing
after it became game keys and chat): now a name that is no table yet is said so, and a second
Enter creates it (Esc cancels); an existing table's name, ``new`` and ``watch NAME`` act at
once. The seats' row was cut to 68 cells at every width (``ali…(away)`` at 100 columns) and
wrapped a rating onto a line of its own; ``1 hands``; a private table's seats held for the
invited showed as free. A finished game's table nobody is at held a place of its creator's
three for 10 minutes, and nobody could close his own table: its host now closes it (``close
NAME`` in the lobby, ``/close`` in its chat) while nobody else sits there.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.cells import cell_len
from textual.widgets import Input, Static

from host.table_info import ChatLine, SeatInfo, TableInfo, TableState
from net.commands import Command
from net.front.lobby import CreateTableScreen, LobbyApp, lobby_command
from net.front.server import MahjongServer
from net.limits import Limits
from net.runtime.config import TableConfig
from net.runtime.privacy import Privacy
from net.runtime.registry import Registry, TableLimit
from net.store import Account, SqliteStore
from testkit.ssh import MakeServer, PtyClient, new_key
from tests.support.waiting import until
from tests.test_net_abandoned import play_out_hand

ANN = Account(1, "ann")
CY = Account(3, "cy")


def lobby(reg: Any, account: Account = ANN) -> LobbyApp:
    return LobbyApp(SimpleNamespace(registry=reg), account)


def message(app: LobbyApp) -> str:
    return str(app.query_one("#msg", Static).render())


# --- a new name asks before it makes a table ---------------------------------------------------
async def test_a_word_typed_makes_no_table_until_enter_again() -> None:
    reg = Registry(TableConfig())
    app = lobby(reg)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"clear", "enter")
        await pilot.pause()
        said = message(app)
        assert "No table clear yet: Enter again to create it (yichun, 8 hands)" in said
        assert "Esc cancels" in said and "还没有牌桌 clear" in said
        assert app.return_value is None and "clear" not in reg.tables
        await pilot.press("enter")  # the same line again: the table it said
        await pilot.pause()
    assert app.return_value == Command("join", "clear")


async def test_esc_cancels_the_new_table_and_a_second_esc_leaves() -> None:
    app = lobby(Registry(TableConfig()))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"clear", "enter", "escape")
        await pilot.pause()
        assert message(app) == "" and app.query_one("#entry", Input).value == ""
        assert app.is_running
        await pilot.press(*"clear", "enter")  # asked again: the cancel forgot the first
        await pilot.pause()
        assert "Enter again" in message(app)
        await pilot.press("backspace", "enter")  # another line: another question
        await pilot.pause()
        assert "No table clea yet" in message(app) and app.return_value is None
        await pilot.press("escape", "escape")
        await pilot.pause()
    assert app.return_value is None and not app.is_running


async def test_an_open_table_new_and_watch_act_at_once() -> None:
    reg = Registry(TableConfig())
    reg.get_or_create("fri", "gejiu")
    app = lobby(reg)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"fri", "enter")
        await pilot.pause()
    assert app.return_value == Command("join", "fri")
    assert lobby_command(reg, ANN, ["watch", "fri"], None) == Command("watch", "fri")
    app = lobby(reg)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"new", "enter")
        await pilot.pause()
        assert isinstance(app.screen, CreateTableScreen)  # the form makes it at once


def test_the_plain_lobby_asks_for_the_same_line_again() -> None:
    reg = Registry(TableConfig())
    said = lobby_command(reg, ANN, ["sun", "yichun", "hands_per_game=1", "private"], None,
                         plain=True)
    assert isinstance(said, tuple)
    text, told = said
    assert text.startswith("No table sun yet: type the same line again to create it "
                           "(yichun, 1 hand, hands_per_game=1, private 私人)")
    other = lobby_command(reg, ANN, ["sun"], told, plain=True)  # another line: asked anew
    assert isinstance(other, tuple) and "(yichun, 8 hands)" in other[0]
    again = lobby_command(reg, ANN, ["sun", "yichun", "hands_per_game=1", "private"], told)
    assert again == Command("join", "sun", "yichun", (("hands_per_game", 1),),
                            private=Privacy())


# --- the rows fit the terminal ---------------------------------------------------------------
class Ratings:
    """Every seated player rated 1523 after 3 games (provisional: ``1523?``)."""

    def seat(self, rules: str, name: str) -> Any:
        return SimpleNamespace(rating=1523, games=3)

    def own(self, account_id: int) -> None:
        return None

    def refresh(self) -> None:
        pass


def listed(*infos: TableInfo) -> Any:
    return SimpleNamespace(listing=lambda: list(infos), quarantined={}, storage_problem=None,
                           exists=lambda name: False)


def away(*names: str) -> tuple[SeatInfo, SeatInfo, SeatInfo, SeatInfo]:
    seats = [SeatInfo(n, True, False) if n else SeatInfo("", False, False) for n in names]
    return seats[0], seats[1], seats[2], seats[3]


PLAYING = TableInfo("friday", "gejiu", (), away("alice", "bobby", "carol", "daniel"), 0,
                    TableState.PLAYING, 3, 8)


@pytest.mark.parametrize("width", [100, 80, 60])
async def test_the_seats_row_uses_the_width_and_never_wraps_a_rating(width: int) -> None:
    app = lobby(listed(PLAYING))
    app.ratings = Ratings()  # type: ignore[assignment]
    async with app.run_test(size=(width, 30)):
        text = app.tables_text().plain
    lines = text.splitlines()
    seats = [line for line in lines if line.lstrip().startswith(("E:", "W:"))]
    fit = lines if width >= 80 else seats  # the table's first row is 72 cells
    assert all(cell_len(line) <= width - 6 for line in fit), text  # padding, scroll bar
    assert "".join(seats).count("1523?") == 4  # each rating beside its seat, none alone
    if width >= 100:  # whole names on one line (they were cut to 'ali…(away)')
        assert seats == ["      E:alice(away) 1523? S:bobby(away) 1523? W:carol(away) 1523? "
                         "N:daniel(away) 1523?"]
    elif width == 80:  # E S and W N on two lines, whole
        assert seats == ["      E:alice(away) 1523? S:bobby(away) 1523?",
                         "      W:carol(away) 1523? N:daniel(away) 1523?"]


async def test_one_hand_and_seats_held_for_the_invited_are_said_so() -> None:
    one = TableInfo("quick", "gejiu", (("hands_per_game", 1),), away("", "", "", ""), 0,
                    TableState.WAITING, 0, 1)
    held = TableInfo("sat", "gejiu", (), away("ann", "", "", ""), 0, TableState.WAITING, 0, 8,
                     private=True, host="ann", host_id=1, invited=("bob 2", "cy 3"))
    app = lobby(listed(one, held))
    async with app.run_test(size=(100, 30)):
        text = app.tables_text().plain
    assert "1 hand, 4 free" in text and "1 hands" not in text
    assert "8 hands, 1 free" in text and "3 free" not in text
    assert "2 seats held for the invited, not here yet 为未到的受邀者保留2座" in text


# --- one's own tables: the limit, closing ------------------------------------------------------
async def test_a_finished_game_nobody_is_at_does_not_hold_a_place(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db.sqlite3")
    reg = Registry(TableConfig(bot_delay=0), store, limits=Limits(tables_per_account=1))
    done = reg.get_or_create("done", "gejiu", {"hands_per_game": 1}, creator=ANN)
    client = done.join(ANN)
    assert done.start() is None
    play_out_hand(done)
    assert done.state is TableState.OVER
    with pytest.raises(TableLimit):  # she is still at its game-over screen: it counts
        reg.check_create("next", creator=ANN)
    client.close()
    reg.check_create("next", creator=ANN)  # nobody there: it holds no place of hers
    reg.get_or_create("next", "gejiu", creator=ANN)
    assert "done" in reg.tables  # still listed until it ends unattended
    with pytest.raises(TableLimit):  # the new one, waiting, counts
        reg.check_create("third", creator=ANN)
    reg.close()
    store.close()


async def test_the_host_closes_a_table_nobody_else_sits_at(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db.sqlite3")
    ann = store.account_for_key("SHA256:a", "ann")
    bob = store.account_for_key("SHA256:b", "bob")
    reg = Registry(TableConfig(bot_delay=0), store)
    mine = reg.get_or_create("mine", "gejiu", {"hands_per_game": 2}, creator=ann)
    client = mine.join(ann)
    heard: list[Any] = []
    client.subscribe_info(heard.append)
    seated = mine.join(bob)
    said = lobby_command(reg, ann, ["close", "mine"], None)
    assert isinstance(said, tuple) and "bob sits at mine" in said[0]
    seated.close()  # before the game: his seat is free again
    said = lobby_command(reg, bob, ["close", "mine"], None)
    assert isinstance(said, tuple) and "only the table's host ann" in said[0]
    assert mine.start() is None
    play_out_hand(mine)  # one hand of two: kept for replay when the table closes
    watcher = mine.join(CY, spectate=True)  # watchers do not hold a table
    assert mine.chat_from(ann, "/close") is None
    assert "mine" not in reg.tables and not store.has_table("mine")
    closed = [x for x in heard if isinstance(x, ChatLine) and "closed by its host" in x.text]
    assert closed and "Q goes back to the lobby" in closed[0].text
    assert [(g.table_name, g.hands) for g in store.games_of(ann.id)] == [("mine", 1)]
    refused = mine.start()  # nothing more is played, said or saved
    assert refused is not None and refused.key == "table_closed"
    assert mine.chat_from(ann, "hello") == refused
    client.close()
    watcher.close()
    assert not store.has_table("mine")  # leaving saved nothing back
    said = lobby_command(reg, ann, ["close", "mine"], None)
    assert isinstance(said, tuple) and "no table mine" in said[0]
    reg.close()
    store.close()


async def test_close_in_the_lobby_over_ssh(make_server: MakeServer) -> None:
    server: MahjongServer = await make_server()
    key = new_key()
    made = PtyClient(80, 24)
    await made.connect(server.port, "ann", key, command="join sunday")
    await made.wait_for("press S")
    made.send("q")
    await until(lambda: "sunday" in server.registry.tables
                and server.registry.tables["sunday"].empty, what="ann left sunday")
    other = PtyClient(80, 24)
    await other.connect(server.port, "bob", new_key(), command="lobby")
    await other.wait_for("sunday")
    other.send("close sunday\r")
    await other.wait_for("only the table's host ann")
    host = PtyClient(80, 24)
    await host.connect(server.port, "ann", key, command="lobby")
    await host.wait_for("sunday")
    host.send("close sunday\r")
    await host.wait_for("table sunday is closed")
    assert "sunday" not in server.registry.tables
    for c in (made, other, host):
        await c.close()


# --- a lobby nobody types in costs nothing -----------------------------------------------------
async def test_an_idle_lobby_is_sent_nothing_until_its_list_changes(
        make_server: MakeServer) -> None:
    """The typing line's cursor blinked (a frame every half second) and the list was drawn
    again every second whether it changed or not: 100 sessions idle in the lobby took most of
    a core. Now nothing is sent to a lobby while nothing changes, and a new table still shows
    within the second."""
    server: MahjongServer = await make_server()
    idle = PtyClient(80, 24)
    await idle.connect(server.port, "ann", new_key(), command="lobby")
    await idle.wait_for("welcome")
    await asyncio.sleep(0.5)  # the first frames written
    before = idle.bytes_in
    await asyncio.sleep(1.3)  # two blinks and a look at the list
    assert idle.bytes_in == before
    maker = PtyClient(80, 24)
    await maker.connect(server.port, "bob", new_key(), command="join monday")
    await maker.wait_for("press S")
    await idle.wait_for("monday", timeout=3)
    assert idle.bytes_in > before
    for c in (idle, maker):
        await c.close()


async def test_the_lobbies_share_one_rate_of_drawing_their_list(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A list redraw costs milliseconds of the loop: with many lobby sessions, each draws a
    change no sooner than (lobby sessions / ``lobby_redraws_per_second``) s after its last,
    so a change of any table is no longer a burst of every lobby's redraw at once."""
    import net.front.lobby as lobby_module
    clock = [1000.0]
    monkeypatch.setattr(lobby_module, "_now", lambda: clock[0])
    monkeypatch.setattr(lobby_module, "_lobbies_open", lambda: 6)  # a redraw each 3 s
    reg = Registry(TableConfig())
    server = SimpleNamespace(registry=reg, limits=Limits(lobby_redraws_per_second=2))
    app = LobbyApp(server, ANN)

    def shown() -> str:
        return str(app.query_one("#tables", Static).render())

    async with app.run_test(size=(100, 30)):
        reg.get_or_create("early", "gejiu", creator=CY)
        app._refresh()
        assert "early" in shown()  # the first change: drawn at once
        reg.get_or_create("later", "gejiu", creator=CY)
        clock[0] += 2.9
        app._refresh()
        assert "later" not in shown()  # 2.9 s after the last redraw: not yet
        clock[0] += 0.2
        app._refresh()
        assert "later" in shown()
        reg.get_or_create("typed", "gejiu", creator=CY)
        app._refresh(force=True)  # a resize or a typed close: at once
        assert "typed" in shown()


async def test_a_lobby_that_ended_no_longer_slows_the_others() -> None:
    """The shared rate counts the lobbies running, not those ended but not yet collected."""
    import net.front.lobby as lobby_module
    before = lobby_module._lobbies_open()
    app = lobby(Registry(TableConfig()))
    async with app.run_test(size=(100, 30)):
        assert lobby_module._lobbies_open() == before + 1
    assert lobby_module._lobbies_open() == before
    assert app in lobby_module._LOBBIES  # still referenced here, yet not counted


def test_at_most_two_lobbies_draw_their_list_in_one_turn_of_the_loop() -> None:
    """Lobbies whose ticks fell in one busy turn of the loop drew their lists all at once (a
    burst of 20-30 redraws stalled every player for 200 ms): the others wait for their next."""
    import net.front.lobby as lobby_module
    share = lobby_module._TurnShare(per_turn=2)

    async def takes(n: int) -> list[bool]:
        return [share.take() for _ in range(n)]

    async def two_turns() -> tuple[list[bool], list[bool]]:
        first = await takes(4)
        await asyncio.sleep(0)  # the next turn
        return first, await takes(3)

    assert asyncio.run(two_turns()) == ([True, True, False, False], [True, True, False])
    share.taken = 2  # as a loop that ended before its next turn leaves it
    assert asyncio.run(takes(3)) == [True, True, False]  # another loop: its own count
