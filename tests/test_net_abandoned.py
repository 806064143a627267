"""Abandoned tables end, so nobody can shut table creation for good.

Guests from 32 addresses started 300 tables (S: computers in the empty seats) and left; a game
in progress kept its table open with nobody connected, for ever and again after a restart, and
every new player was refused ("the server has 300 open tables"). Now a table no session is
connected to ends ``table_unattended_seconds`` after the last one left, whatever its game's
state (after a restart: from the restart): out of the lobby, the store and the counts of open
tables, its unfinished game's finished hands kept for replay. The attack is built here small:
``tables_total`` 3, the tables' clock moved by hand.
"""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest

from engine.bots import make_player
from engine.replay import read_game
from engine.view import build_view
from host.clock import ManualClock
from net.front.server import MahjongServer
from net.limits import Limits
from net.runtime.registry import Registry, TableLimit
from net.runtime.shared_table import SharedTable, TableConfig
from net.store import Account, SqliteStore
from testkit.ssh import LoginClient, LoginClientSession, MakeServer, PtyClient, new_key
from tests.support.waiting import until

WINDOW = 600.0


def play_out_hand(table: SharedTable) -> None:
    """The next hand dealt if the last is over, then every seat's moves, as a computer
    player would make them, until it is over (at once: no turn of the event loop between
    them)."""
    bot = make_player("easy")
    game = table.game
    assert game is not None and game.hand is not None
    if game.hand.is_over:
        table.deal_next()
    hand = game.hand
    assert hand is not None
    while not hand.is_over:
        seat = hand.to_act()[0]
        assert table.apply(seat, bot.choose(build_view(hand, seat))) is None


def abandon(reg: Registry, name: str, who: Account, address: str,
            hands: int = 0) -> SharedTable:
    """A stranger's table: made, started with computers, ``hands`` hands played, left."""
    table = reg.get_or_create(name, "gejiu", creator=who, address=address)
    client = table.join(who)
    assert table.start() is None
    for _ in range(hands):
        play_out_hand(table)
    client.close()
    assert table.game is not None and not table.game.is_over
    return table


async def test_tables_abandoned_mid_game_end_and_free_the_servers_limits(
        tmp_path: Path) -> None:
    """Strangers from many addresses fill ``tables_total`` with started games and leave: a
    new player is refused until the window has passed, then admitted; the abandoned tables'
    rows are gone and their creators' own counts free again. A stranger's address keeps its
    hourly count (a rate of creations: forgetting ended tables would let one address make
    tables as fast as they end)."""
    clock = ManualClock()
    store = SqliteStore(tmp_path / "db.sqlite3")
    limits = Limits(tables_total=3, tables_per_address_hour=1, table_unattended_seconds=WINDOW)
    reg = Registry(TableConfig(bot_delay=0, bot_level="easy", clock=clock), store,
                   limits=limits)
    raiders = [Account(10 + i, f"raider{i}") for i in range(3)]
    for i, raider in enumerate(raiders):
        abandon(reg, f"raid{i}", raider, f"10.0.0.{i + 1}")
    newcomer = Account(99, "newcomer")
    with pytest.raises(TableLimit, match="the server has 3 open tables"):
        reg.get_or_create("mine", "gejiu", creator=newcomer, address="10.9.9.9")
    await clock.advance(WINDOW - 1)
    with pytest.raises(TableLimit):
        reg.get_or_create("mine", "gejiu", creator=newcomer, address="10.9.9.9")
    await clock.advance(1)
    assert reg.tables == {}
    assert store.load_tables() == []
    mine = reg.get_or_create("mine", "gejiu", creator=newcomer, address="10.9.9.9")
    assert reg.tables == {"mine": mine}
    with pytest.raises(TableLimit, match="1 table was created from your address"):
        reg.get_or_create("again", "gejiu", creator=raiders[0], address="10.0.0.1")
    reg.get_or_create("again", "gejiu", creator=raiders[0], address="10.0.0.4")
    reg.close()
    store.close()


async def test_a_players_own_abandoned_tables_stop_counting_against_him(
        tmp_path: Path) -> None:
    """A real player's own abandoned games held "you have 3 open tables you created" for
    good; a player who drops and comes back within the window finds his seat."""
    clock = ManualClock()
    store = SqliteStore(tmp_path / "db.sqlite3")
    reg = Registry(TableConfig(bot_delay=0, bot_level="easy", clock=clock), store,
                   limits=Limits(table_unattended_seconds=WINDOW))
    ann = Account(1, "ann")
    tables = [abandon(reg, f"a{i}", ann, "10.0.0.1") for i in range(3)]
    with pytest.raises(TableLimit, match="you have 3 open tables you created"):
        reg.get_or_create("a3", "gejiu", creator=ann)
    await clock.advance(WINDOW - 10)
    back = tables[0].join(ann)  # she comes back to one of them in time
    assert back.seat_index == 0
    await clock.advance(10)
    assert sorted(reg.tables) == ["a0"]
    reg.get_or_create("a3", "gejiu", creator=ann)  # two of hers ended: room again
    back.close()
    await clock.advance(WINDOW)
    assert reg.tables == {}  # a0 left again, and a3 made and never sat at: both ended
    reg.close()
    store.close()


async def test_an_abandoned_game_keeps_its_finished_hands_for_replay_unrated(
        tmp_path: Path) -> None:
    clock = ManualClock()
    store = SqliteStore(tmp_path / "db.sqlite3")
    reg = Registry(TableConfig(bot_delay=0, bot_level="easy", clock=clock), store,
                   limits=Limits(table_unattended_seconds=WINDOW))
    ann = Account(store.account_for_key("SHA256:a", "ann").id, "ann")
    played = abandon(reg, "two", ann, "10.0.0.1", hands=2)
    seed = played.game_seed
    abandon(reg, "none", ann, "10.0.0.1")  # no hand finished: nothing to replay
    await clock.advance(WINDOW)
    assert reg.tables == {}
    games = store.games_of(ann.id)
    assert [(g.table_name, g.hands, g.seat) for g in games] == [("two", 2, 0)]
    kept = store.kept_game(games[0].game_id)
    assert kept is not None and kept.names[0] == "ann"
    steps = read_game(kept.record)
    assert len(steps.hands) == 2 and steps.problems == ()
    assert steps.game["unfinished"] is True and steps.game["seed"] == seed
    assert store.leaderboard() == []  # leaving is neither a win nor a loss
    reg.close()
    store.close()


async def test_after_a_restart_the_abandoned_tables_end_a_window_later(tmp_path: Path) -> None:
    """``restored 300 tables``, every new player refused: now the restored tables nobody comes
    back to end a window after the restart (their game kept), and the server admits again."""
    clock = ManualClock()
    store = SqliteStore(tmp_path / "db.sqlite3")
    limits = Limits(tables_total=3, table_unattended_seconds=WINDOW)
    config = TableConfig(bot_delay=0, bot_level="easy", clock=clock)
    reg = Registry(config, store, limits=limits)
    ann = Account(store.account_for_key("SHA256:a", "ann").id, "ann")
    for i in range(3):
        abandon(reg, f"raid{i}", Account(10 + i, f"raider{i}"), f"10.0.0.{i + 1}",
                hands=1 if i == 0 else 0)
    await clock.advance(WINDOW / 2)
    reg.close()  # stopped (or killed) with the tables open
    store.close()

    store = SqliteStore(tmp_path / "db.sqlite3")
    reg = Registry(config, store, limits=limits)
    assert reg.load() == 3
    reg.resume()
    with pytest.raises(TableLimit, match="the server has 3 open tables"):
        reg.get_or_create("mine", "gejiu", creator=ann)
    await clock.advance(WINDOW / 2)  # the old session's time does not count
    assert len(reg.tables) == 3
    back = reg.tables["raid2"].join(Account(12, "raider2"))  # one comes back: his table stays
    await clock.advance(WINDOW / 2)
    assert sorted(reg.tables) == ["raid2"] and back.seat_index == 0
    assert sorted(row.name for row in store.load_tables()) == ["raid2"]
    assert [g.table_name for g in store.games_of(10)] == ["raid0"]  # its finished hand kept
    assert reg.get_or_create("mine", "gejiu", creator=ann).creator == ann.id
    reg.close()
    store.close()


# --- over SSH, from several addresses ---------------------------------------------------------
async def connect_from(port: int, address: str, username: str, key: asyncssh.SSHKey,
                       command: str) -> PtyClient:
    """A player's terminal whose connection comes from ``address`` (a loopback address:
    the server sees each as another client's)."""
    c = PtyClient(80, 24)
    c.conn = await asyncssh.connect(
        "127.0.0.1", port, username=username, known_hosts=None, client_keys=[key],
        agent_path=None, client_factory=lambda: LoginClient(None), preferred_auth="publickey",
        local_addr=(address, 0))
    c.chan, _ = await c.conn.create_session(
        lambda: LoginClientSession(c), command, term_type="xterm-256color",
        term_size=(80, 24), encoding=None)
    return c


async def test_a_server_attacked_by_table_creation_admits_a_new_player_later(
        make_server: MakeServer) -> None:
    """Three strangers, each from its own address, make a table, press S and go; a new
    player is refused; once the window has passed on the tables' clock, his table opens."""
    clock = ManualClock()
    server: MahjongServer = await make_server(
        clock=clock, limits=Limits(tables_total=3, tables_per_address_hour=1,
                                   table_unattended_seconds=WINDOW))
    for i in range(3):
        c = await connect_from(server.port, f"127.0.0.{i + 2}", f"raider{i}", new_key(),
                               f"join raid{i}")
        await c.wait_for("press S")
        c.send("s")
        await c.wait_for("Hand 1/")
        await c.close()
    registry = server.registry

    def abandoned() -> bool:
        return len(registry.tables) == 3 and all(
            t.humans_connected == 0 and t.game is not None for t in registry.tables.values())

    await until(abandoned, what="three started tables left by everyone")
    key = new_key()
    refused = await connect_from(server.port, "127.0.0.9", "newcomer", key, "join mine")
    await refused.wait_for("the server has 3 open tables")
    await refused.close()
    await clock.advance(WINDOW)
    assert registry.tables == {}
    admitted = await connect_from(server.port, "127.0.0.9", "newcomer", key, "join mine")
    await admitted.wait_for("press S")
    assert sorted(registry.tables) == ["mine"]
    await admitted.close()


def test_the_window_is_a_limit_the_command_line_sets() -> None:
    from net.limits import parse_limit_pairs

    limits = Limits().with_values(parse_limit_pairs(["table_unattended_seconds=90"]))
    assert limits.table_unattended_seconds == 90.0
    assert Limits().table_unattended_seconds == 600.0
    reg = Registry(TableConfig(), limits=limits)
    assert reg.get_or_create("t", "gejiu").unattended_seconds == 90.0
    reg.close()
