"""The SSH server end to end: a real server on port 0 with a temporary data folder, asyncssh
clients with a PTY drawing into pyte screens."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncssh
import pytest
from rich.cells import cell_len

from engine.table import Phase
from host.clock import ManualClock
from net.front.remote_app import RemoteApp
from net.front.server import MahjongServer
from net.limits import Limits
from net.runtime.seat_client import SeatClient
from net.runtime.shared_table import SharedTable
from testkit.ssh import (
    LightScreen,
    MakeServer,
    PtyClient,
    fast_config,
    new_key,
    run_command,
    start_server,
)
from tests.support.waiting import toast_says, until


async def join(srv: MahjongServer, name: str, key: asyncssh.SSHKey | None, command: str,
               width: int = 80, height: int = 24, term: str = "xterm-256color",
               env: dict[str, str] | None = None) -> PtyClient:
    c = PtyClient(width, height)
    await c.connect(srv.port, name, key, command=command, term=term, env=env)
    return c


async def seated(srv: MahjongServer, table: str, n: int) -> SharedTable:
    def sat() -> bool:
        t = srv.registry.tables.get(table)
        return t is not None and sum(1 for s in t.seats if s.clients) >= n

    await until(sat, 4.0, f"{n} players to sit at {table}")
    return srv.registry.tables[table]


def key_for(t: SharedTable, seat: int) -> str:
    """The key a player presses: Enter discards the cursor tile (the drawn one), x passes a
    claim; in the buying round Enter takes the highlighted choice."""
    update = t.update_for(seat)
    assert update is not None
    phase = update.view.phase
    if phase is Phase.TURN:
        return "\r"
    if phase is Phase.BUY:
        return "\r"  # the highlighted choice
    return "x"


async def play_by_keys(t: SharedTable, clients: dict[int, PtyClient], max_actions: int = 400,
                       stop=None, ready: Callable[[int], bool] | None = None) -> int:
    """Press keys in the sessions whose seat the table waits for, until the hand is over
    (once ``ready(seat)`` says the session has the view that asks for it: a session of
    another worker gets it over the bus, after the table moved on)."""
    game = t.game
    assert game is not None and game.hand is not None
    hand = game.hand
    n = 0
    while not hand.is_over and n < max_actions:
        if stop is not None and stop():
            return n
        waiting = [s for s in hand.to_act() if s in clients]
        if not waiting:  # the computer players' moves, or a claim window closing
            await until(lambda: hand.is_over or (stop is not None and stop())
                        or any(s in clients for s in hand.to_act()), 10.0, "a seat's move")
            continue
        seat = waiting[0]
        version = hand.version
        if ready is not None:
            await until(lambda s=seat, v=version: ready(s) or hand.version != v, 5.0,
                        f"seat {seat}'s session to see its move")
            if hand.version != version:
                continue
        clients[seat].send(key_for(t, seat))
        try:
            await until(lambda v=version: hand.version != v, 5.0, f"seat {seat}'s key")
        except AssertionError:
            raise AssertionError(f"seat {seat} key {key_for(t, seat)!r} phase "
                                 f"{hand.phase}:\n{clients[seat].text()}") from None
        n += 1
    return n


async def test_help_stats_and_refused_commands(server: MahjongServer) -> None:
    r = await run_command(server.port, "ann", "help")
    assert r.exit_status == 0 and "join NAME" in str(r.stdout)
    r = await run_command(server.port, "ann", "stats")
    assert r.exit_status == 0 and "Leaderboard" in str(r.stdout)
    for bad in ("scp -f x", "/usr/bin/rsync --server . x", "git-upload-pack 'x'"):
        with pytest.raises(asyncssh.ChannelOpenError):  # a protocol client gets no text
            await run_command(server.port, "ann", bad)
    # a mistyped command gets what was wrong and the commands, as help prints them (issue 24)
    for bad, why in (("jion friday", "unknown command 'jion'"), ("ls -la", "'ls'"),
                     ("stats now", "stats takes no arguments"), ("help me", "no arguments"),
                     ("join 'friday", "cannot read")):
        r = await run_command(server.port, "ann", bad)
        assert r.exit_status == 2 and why in str(r.stdout), (bad, r.stdout)
        assert "join NAME" in str(r.stdout) and "watch NAME" in str(r.stdout)
    r = await run_command(server.port, "ann", "jion friday")
    assert "did you mean join" in str(r.stdout)
    # a join or watch command with bad arguments gets the reason, and no table is made
    for bad, why in (("join", "usage"), ("join a;b", "bad table name"),
                     ("join t --rules yichun --option max_lighters=9", "at most 4"),
                     ("join t --rules gejiu --option discard_wins=on", "no option"),
                     ("join t --bots genius", "computer level"),
                     ("join t --option hands_per_game=two", "not a value")):
        r = await run_command(server.port, "ann", bad)
        assert r.exit_status == 2 and why in str(r.stdout), (bad, r.stdout)
    assert not server.registry.tables


async def test_no_port_forwarding_and_no_sftp(server: MahjongServer) -> None:
    async with asyncssh.connect("127.0.0.1", server.port, username="ann", known_hosts=None,
                                client_keys=[new_key()], agent_path=None) as conn:
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", server.port)
        with pytest.raises((asyncssh.ChannelOpenError, asyncssh.SFTPError)):
            await conn.start_sftp_client()
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)
    with pytest.raises(asyncssh.ChannelOpenError):
        await run_command(server.port, "ann", "scp -t /tmp/x")


async def test_exec_without_pty_needs_a_terminal(server: MahjongServer) -> None:
    r = await run_command(server.port, "ann", "join friday")
    assert r.exit_status == 2 and "ssh -t" in str(r.stdout)  # a usage error


async def test_four_players_play_a_hand_to_its_settlement(server: MahjongServer) -> None:
    keys = [new_key() for _ in range(4)]
    clients = [await join(server, f"p{i}", keys[i], "join friday --rules shangrao")
               for i in range(4)]
    t = await seated(server, "friday", 4)
    assert t.game is not None, "the hand starts when four people sit"
    by_seat: dict[int, PtyClient] = {}
    for seat in range(4):
        sc = t.seats[seat].clients[0]
        by_seat[seat] = clients[int(sc.account.nickname[1:])]
    for c in clients:
        await c.wait_for("上饶")
    # a key in one session shows in the other three
    mover = t.game.hand.to_act()[0]
    others = [c for s, c in by_seat.items() if s != mover]
    before = [c.text() for c in others]
    await play_by_keys(t, by_seat, max_actions=1)
    for c, old in zip(others, before, strict=True):
        await c.wait_for(lambda text, old=old: text != old)
    # ... and the whole hand by keys
    await play_by_keys(t, by_seat)
    assert t.game.hand.is_over and t.game.hand.settlement is not None
    for c in clients:
        await c.wait_for("Enter: next hand")
    rec = server.store.hand_records("friday")
    assert len(rec) == 1 and '"type": "result"' in rec[0]
    for c in clients:
        await c.close()


async def test_join_start_key_fills_seats_with_computer_players(server: MahjongServer) -> None:
    c = await join(server, "solo", new_key(), "join tuesday --rules gejiu")
    await c.wait_for("press S to start")
    t = server.registry.tables["tuesday"]
    assert t.game is None and t.rules == "gejiu"
    c.send("s")
    await until(lambda: t.game is not None, what="the start key")
    await c.wait_for("个旧")
    assert t.seats[1].occupant is None and t.is_bot(1)
    await c.close()


async def test_the_table_speaks_the_language_asked_for(server: MahjongServer) -> None:
    # --lang, else the locale the client's ssh sends (Debian's ssh_config: SendEnv LANG LC_*)
    zh = await join(server, "zh1", new_key(), "join lang1", env={"LANG": "zh_CN.UTF-8"})
    await zh.wait_for("press S")
    zh.send("s")
    await zh.wait_for("第1/")  # the status row in Chinese: 第1/8盘
    en = await join(server, "en1", new_key(), "watch lang1", env={"LANG": "zh_CN.UTF-8",
                                                                  "LC_ALL": "en_US.UTF-8"})
    await en.wait_for("Hand 1/")
    flag = await join(server, "zh2", new_key(), "watch lang1 --lang zh",
                      env={"LANG": "en_GB.UTF-8"})
    await flag.wait_for("第1/")
    plain = await join(server, "en2", new_key(), "watch lang1")
    await plain.wait_for("Hand 1/")
    lobby = await join(server, "zh3", new_key(), "lobby --lang zh")  # through the lobby
    await lobby.wait_for("welcome")
    lobby.send("lang2\r\r")  # a new table: Enter twice
    await lobby.wait_for("press S")
    lobby.send("s")
    await lobby.wait_for("第1/")
    for c in (zh, en, flag, plain, lobby):
        await c.close()


async def test_a_table_named_in_chinese(server: MahjongServer) -> None:
    """`join 周五` makes and seats table 周五 (names are letters of any script); the lobby
    lists it and sits a second player at it by its name; `stats` keeps its columns in line."""
    c = await join(server, "zhou", new_key(), "join 周五 --rules gejiu")
    await c.wait_for("press S")
    assert "周五" in server.registry.tables
    lobby = await join(server, "wu", new_key(), "lobby")
    await lobby.wait_for("周五")
    lobby.send("周五\r")
    await seated(server, "周五", 2)
    r = await run_command(server.port, "stats", "stats")
    rows = [line for line in str(r.stdout).splitlines() if "seated" in line]
    assert len(rows) == 1 and "周五" in rows[0]
    # 周五 is four cells wide: padded to 16 cells, the ruleset starts at cell 19 as for ASCII
    assert cell_len(rows[0].split("gejiu")[0]) == 19
    for x in (c, lobby):
        await x.close()


async def test_lobby_keys_arriving_in_one_packet_apply_in_order(server: MahjongServer) -> None:
    """A line edited and sent in one packet (a laggy link, a paste, tmux send-keys): Ctrl-U
    clears the typo first, then the name is typed and Enter sits at that table."""
    lobby = await join(server, "fast", new_key(), "lobby")
    await lobby.wait_for("welcome")
    lobby.send("fridya")
    await lobby.wait_for("fridya")
    lobby.send("\x15friday gejiu\r\r")  # a new table: Enter twice
    await seated(server, "friday", 1)
    assert server.registry.tables["friday"].rules == "gejiu"
    await lobby.close()


async def test_the_lobby_says_why_it_refused_a_line(server: MahjongServer) -> None:
    """The lobby's message line is on screen (it was hidden under the input), for every kind
    of refusal: no such table to watch, a table of another ruleset, a bad option."""
    lobby = await join(server, "picky", new_key(), "lobby")
    await lobby.wait_for("welcome")
    lobby.send("watch nosuch\r")
    await lobby.wait_for("no table nosuch")
    await join(server, "host", new_key(), "join busy --rules gejiu")
    await lobby.wait_for("busy")
    lobby.send("\x15busy yichun\r")
    await lobby.wait_for("already exists with rules gejiu")
    lobby.send("\x15other yichun max_lighters=9\r")
    await lobby.wait_for("max_lighters")
    assert "other" not in server.registry.tables
    await lobby.close()


async def test_help_and_settings_over_ssh_fit_a_session(server: MahjongServer) -> None:
    """? lists the table's keys and those only a session has (chat, 压鸽子, Ctrl-Q), not a
    settings file; the settings say they are kept with the key and offer no computer pace
    (the server's, for everyone at the table)."""
    c = await join(server, "helpme", new_key(), "join helptable", height=60)
    await c.wait_for("press S")
    c.send("s")
    await c.wait_for("Hand 1/")
    c.send("?")
    screen = await c.wait_for("Keys")
    for text in ("Chat 聊天", "Stake 压鸽子", "End the session 断开", "Leave the table"):
        assert text in screen, text
    assert "remapped" not in screen  # no settings file of one's own on the server
    c.send("\x1b")
    await c.wait_for(lambda t: "Keys" not in t)
    c.send("s")  # settings: only what a session can change, and how long it is kept
    screen = await c.wait_for("Kept with your SSH key")
    assert "Computer speed" not in screen and "Saved to" not in screen
    await c.close()


async def test_settings_are_kept_with_the_key_for_the_next_visit(
        server: MahjongServer) -> None:
    """What a player with a key picks in the settings (here the language) is there when the
    same key comes back; --lang (after join, or after lobby for the tables it enters) wins for
    that visit only, even when another setting is saved meanwhile; a nickname without a key
    keeps nothing."""
    key = new_key()
    c = await join(server, "keeper", key, "join keep1")
    await c.wait_for("press S")
    c.send("s")
    await c.wait_for("Hand 1/")
    c.send("s")  # settings: the language row comes first
    await c.wait_for("Kept with your SSH key")
    c.send("\x1b[C\r")  # the language row has the focus: → 中文, take it
    await c.wait_for(lambda t: "语言" in t and "Language" not in t)
    await c.close()
    again = await join(server, "keeper", key, "join keep1")
    await again.wait_for("第1/")  # in Chinese, with no --lang and an English locale
    await again.close()
    asked = await join(server, "keeper", key, "join keep1 --lang en")
    await asked.wait_for("Hand 1/")
    asked.send("t")  # another setting saved during an --lang visit: the visit's language isn't
    await asyncio.sleep(0.3)
    await asked.close()
    back = await join(server, "keeper", key, "join keep1")
    await back.wait_for("第1/")
    await back.close()
    lobby = await join(server, "keeper", key, "lobby --lang en")  # for the tables it enters
    await lobby.wait_for("welcome")
    lobby.send("keep1\r")
    await lobby.wait_for("Hand 1/")
    await lobby.close()
    anon = await join(server, "nokey", None, "join keep2")
    await anon.wait_for("press S")
    anon.send("s")
    await anon.wait_for("Hand 1/")
    anon.send("s")
    await anon.wait_for("last for this connection")
    await anon.close()


async def run_timers(t: SharedTable, clock: ManualClock, done: Callable[[], bool],
                     what: str, limit: int = 200) -> None:
    """Move ``clock`` from one of the table's timers to the next (each expiry plays, the
    computer players answer at once) until ``done``. A hand that ends meanwhile waits for
    its player to have read the result, with no timer: he is marked as having read it, as
    his Enter would (a hand ending at that point timed the wait out in one run)."""
    def hand_over() -> bool:
        hand = t.game.hand if t.game is not None else None
        return hand is not None and hand.is_over

    for _ in range(limit):
        if done():
            return
        await until(lambda: bool(t.runner.deadlines) or done() or hand_over(),
                    what=f"a timer ({what})")
        if done():
            return
        if not t.runner.deadlines:  # the result read, the next hand comes
            t.ready(0)
            await until(lambda: bool(t.runner.deadlines) or done(),
                        what=f"a timer after the hand ({what})")
            continue
        due = min(t.runner.deadlines.values())
        await clock.advance(max(0.0, due - clock.now()))
    raise AssertionError(f"{what}: not after {limit} timers")


async def test_an_idle_player_is_played_at_once_until_a_key(make_server: MakeServer) -> None:
    """A seated player whose turn timer runs out twice in a row is told so, and from then
    on his timer is 1 s (its expiry plays as ever: the drawn tile discarded, claims passed),
    so the others no longer wait out his full timer every turn; any key gives it back. The
    table runs on a manual clock: its timers run out when the test says, not in real time."""
    clock = ManualClock()
    server = await make_server(clock=clock)
    c = await join(server, "dozy", new_key(), "join dozy --rules gejiu --option turn_seconds=3 "
                   "--option claim_seconds=1 --option hands_per_game=99")
    await c.wait_for("press S")
    c.send("s")
    t = await seated(server, "dozy", 1)
    await until(lambda: t.game is not None, what="the start")
    await run_timers(t, clock, lambda: t.idle(0), "two expiries")
    await c.wait_for("Away")  # on the status line, not a notice over a seat
    assert t.info().seats[0].idle and not t.is_bot(0)  # his seat still, played by the timer
    lobby = await join(server, "look", new_key(), "lobby")  # the lobby says so too
    await lobby.wait_for("E:dozy(idle)")
    await lobby.close()
    short = t.config.idle_seconds

    def his_turn(seconds: float) -> bool:
        hand = t.game.hand if t.game is not None else None
        return (hand is not None and hand.phase is Phase.TURN and 0 in t.runner.deadlines
                and t.runner.timer_total.get(0) == seconds)

    await run_timers(t, clock, lambda: his_turn(short), "his short turn timer")
    c.send("\x1b[D")  # any key
    await until(lambda: not t.idle(0), what="the player back")
    assert t.runner.timeouts[0] == 0
    await run_timers(t, clock, lambda: his_turn(3.0), "his full turn timer again")
    await c.close()


async def test_the_chat_line_shows_what_was_said_before(server: MahjongServer) -> None:
    """/ opens the chat line with the table's latest lines above it, including those said
    before one came in (escape sequences in them already stripped)."""
    a = await join(server, "talker", new_key(), "join chatty")
    await a.wait_for("press S")
    for text in ("first \x1b[31mline", "second line"):
        a.send("/")
        await a.wait_for("Enter: send")
        a.send(text + "\r")
        await a.wait_for(lambda t: "Enter: send" not in t)
    table = server.registry.tables["chatty"]
    await until(lambda: len(table.chat_log) == 2, what="both lines said")
    b = await join(server, "latecomer", new_key(), "join chatty")
    await b.wait_for("press S")
    b.send("/")
    screen = await b.wait_for("talker: second line")
    assert "talker: first line" in screen and "\x1b" not in screen
    lines = screen.splitlines()
    first = next(i for i, ln in enumerate(lines) if "first line" in ln)
    second = next(i for i, ln in enumerate(lines) if "second line" in ln)
    assert first < second  # oldest first
    await a.close()
    await b.close()


async def test_leaving_a_table_goes_back_to_the_lobby_you_came_from(
        server: MahjongServer) -> None:
    """q at a table reached from the lobby returns to the lobby (saying which table was left),
    mid-game too (q q), with the seat kept for the player's return; Ctrl-Q ends the session.
    A session started by `join` ends when its player leaves, as before."""
    lobby = await join(server, "roamer", new_key(), "lobby")
    await lobby.wait_for("welcome")
    lobby.send("first gejiu\r\r")  # a new table: Enter twice
    await lobby.wait_for("press S")
    lobby.send("q")
    await lobby.wait_for("left first")
    assert not lobby.closed.is_set()
    lobby.send("second\r\r")
    t = await seated(server, "second", 1)
    await lobby.wait_for("press S")
    lobby.send("s")
    await until(lambda: t.game is not None, what="the start key")
    await lobby.wait_for("Hand 1/")
    lobby.send("qq")
    await lobby.wait_for("left second")
    assert t.seats[0].occupant is not None and t.seats[0].occupant.name == "roamer"
    lobby.send("second\r")  # back to the same seat, mid-game
    await lobby.wait_for("Hand 1/")
    lobby.send("\x11")  # Ctrl-Q
    await asyncio.wait_for(lobby.closed.wait(), 5)
    direct = await join(server, "direct", new_key(), "join third")
    await direct.wait_for("press S")
    direct.send("q")
    await asyncio.wait_for(direct.closed.wait(), 5)
    await lobby.close()
    await direct.close()


async def test_one_sessions_crash_ends_only_that_session_and_is_logged(
        server: MahjongServer, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A bug in a session's app (here the help key raises) ends that session, with an error in
    the server's log; the player beside it plays on, and the crashed player can come back."""
    from tui.apps.table_screen import TableScreen

    def broken(self: TableScreen) -> None:
        raise RuntimeError("a bug")

    keys = [new_key(), new_key()]
    a = await join(server, "ann", keys[0], "join crash")
    b = await join(server, "ben", keys[1], "join crash")
    await b.wait_for("ann")
    b.send("s")
    await a.wait_for("宜春")
    await b.wait_for("宜春")
    monkeypatch.setattr(TableScreen, "action_help", broken)
    a.send("?")
    await asyncio.wait_for(a.closed.wait(), 10)
    assert any("failed" in r.getMessage() and "a bug" in r.getMessage()
               for r in caplog.records if r.levelname == "ERROR")
    t = server.registry.tables["crash"]
    await until(lambda: len(server.sessions) == 1, what="the crashed session to go")
    monkeypatch.undo()
    await play_by_keys(t, {1: b}, max_actions=6)  # ben plays on (ann's seat: the computer)
    a2 = await join(server, "ann", keys[0], "join crash")
    await a2.wait_for("宜春")  # and ann is back at her seat
    for c in (a2, b):
        await c.close()


async def test_resize_and_a_tiny_terminal(server: MahjongServer) -> None:
    c = await join(server, "solo", new_key(), "join rs")
    await c.wait_for("press S")
    c.send("s")
    await c.wait_for("宜春")
    c.resize(100, 30)
    await c.wait_for(lambda text: any(line.rstrip() and len(line.rstrip()) > 80
                                      for line in text.splitlines()))
    c.resize(20, 8)
    await c.wait_for(lambda text: "80" in text and "24" in text and "plays on" in text)
    assert "paused" not in c.text()  # a shared table does not wait for one small terminal
    c.resize(80, 24)
    await c.wait_for("宜春")
    c.send(b"\xff\xfe\x00\x1b[\x1b]garbage\x9b\xc3")  # garbage bytes: the session survives
    c.resize(81, 24)
    await c.wait_for("宜春")
    assert not c.closed.is_set()
    await c.close()


async def test_reconnect_to_the_seat_mid_hand(make_server: MakeServer) -> None:
    clock = ManualClock()
    server = await make_server(clock=clock)
    key = new_key()
    c = await join(server, "rita", key, "join rc")
    await c.wait_for("press S")
    c.send("s")
    await c.wait_for("宜春")
    t = server.registry.tables["rc"]
    await play_by_keys(t, {0: c}, max_actions=6)
    hand = t.game.hand
    await until(lambda: 0 in hand.to_act() or hand.is_over, what="her turn again")
    w = await join(server, "wes", new_key(), "watch rc")  # a spectator sees the drop
    await w.wait_for("宜春")
    await c.close()
    await until(lambda: not t.seats[0].clients, what="the drop")
    assert t.seats[0].occupant is not None and not t.is_bot(0)  # grace period
    await clock.advance(t.config.grace_seconds - 0.01)
    assert not t.is_bot(0)  # the seat still waits for her
    assert hand.is_over or 0 in hand.to_act()
    await clock.advance(0.01)
    assert t.is_bot(0)
    # issue 54: a computer playing for her is "(computer)", apart from a program's "[bot]"
    assert t.names()[0] == "rita (computer)"
    await until(lambda: 0 not in hand.to_act() or hand.is_over, 5.0, "a bot for the seat")
    played = len(hand.actions)
    c2 = await join(server, "rita", key, "join rc")
    await c2.wait_for("宜春")
    assert t.seats[0].clients and not t.is_bot(0)
    assert len(hand.actions) >= played  # the bots played on (maybe into the next hand)
    assert t.names()[0] == "rita"
    await c2.close()
    await w.close()


async def test_drop_during_a_claim_window(make_server: MakeServer) -> None:
    clock = ManualClock()
    server = await make_server(clock=clock)
    key = new_key()
    c = await join(server, "cleo", key, "join cw --rules shangrao")
    await c.wait_for("press S")
    c.send("s")
    await c.wait_for("上饶")
    t = server.registry.tables["cw"]

    def in_claim() -> bool:
        h = t.game.hand
        return h.phase in (Phase.CLAIM, Phase.ROB) and 0 in h.to_act()

    def alone() -> bool:  # the claim window waits for her alone (the computers answered)
        return in_claim() and t.game.hand.to_act() == [0]

    for _ in range(8):
        await play_by_keys(t, {0: c}, stop=in_claim)
        if in_claim():
            await until(lambda: alone() or not in_claim(), what="the computers' answers")
            if alone():
                break
            continue
        if t.game.hand.is_over and not t.game.is_over:
            # as a player does: Enter on the hand's result, and the next hand starts (calling
            # the table's ``_new_hand`` raced the result screen, which then took the first key
            # of the new hand)
            ended = t.game.hand
            await c.wait_for(f"Hand {ended.hand_no} result")
            c.send("\r")
            await until(lambda h=ended: t.game.hand is not h, 10.0, "the next hand")
            await c.wait_for("Your turn" if 0 in t.game.hand.to_act() else "Wall")
    assert alone(), "no claim window came up for her alone"
    hand = t.game.hand
    version = hand.version
    w = await join(server, "wes", new_key(), "watch cw")
    await w.wait_for("上饶")
    await c.close()
    await until(lambda: not t.seats[0].clients, what="the drop")
    assert hand.version == version  # her claim waits out the grace period
    await clock.advance(t.config.grace_seconds)
    await until(lambda: hand.version != version, 5.0, "the claim window to close for the drop")
    c2 = await join(server, "cleo", key, "join cw")
    await c2.wait_for("上饶")
    assert t.seats[0].clients
    await c2.close()
    await w.close()


async def test_escape_sequences_in_nickname_and_chat_arrive_harmless(
        server: MahjongServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # asyncssh's own SASLprep already refuses control characters in a user name; switch it
    # off (client and server share the module here) to test our own cleaning behind it.
    import asyncssh.connection

    monkeypatch.setattr(asyncssh.connection, "saslprep", lambda s: s)
    evil = "ev\x1b]0;pwned\x07il\x1b[2J"
    a = await join(server, evil, None, "join esc")
    b = await join(server, "bob", new_key(), "join esc")
    t = await seated(server, "esc", 2)
    names = [s.occupant.name for s in t.seats if s.occupant]
    assert "evil~" in names and all("\x1b" not in n for n in names)  # a guest's name
    await b.wait_for("evil")
    a.send("/")
    await a.wait_for("Enter: send 发送")
    # a bracketed paste hands the raw text, escapes included, to the chat line
    a.send("\x1b[200~hi \x1b]52;c;cHduZWQ=\x07there\x1b[31m red\x1b[201~")
    await a.wait_for("red")
    a.send("\r")
    await b.wait_for(lambda text: "there" in text and "red" in text)
    raw = bytes(b.raw)
    assert b"\x1b]52;" not in raw and b"\x1b]0;" not in raw and b"pwned" not in raw
    await a.close()
    await b.close()


async def test_fifty_sessions_leave_no_live_app(server: MahjongServer) -> None:
    key = new_key()
    for batch in range(10):
        clients = [await join(server, f"u{batch}{i}", key if i == 0 else None, f"join leak{i}")
                   for i in range(5)]
        for c in clients:
            await c.wait_for("Table")
        for c in clients:
            await c.close()
    # and sessions that go lobby → table → lobby → table → lobby and quit
    from net.front.lobby import LobbyApp

    roamers = [await join(server, f"r{i}", None, "lobby") for i in range(5)]
    for round_ in range(2):
        for i, c in enumerate(roamers):
            await c.wait_for("welcome")
            c.send(f"roam{i}\r")
            if round_ == 0:  # a new name is made a table only when Enter comes again
                await c.wait_for("Enter again")
                c.send("\r")
        for c in roamers:
            await c.wait_for("press S")
            c.send("q")
        for i, c in enumerate(roamers):
            await c.wait_for(f"left roam{i}")
    for c in roamers:
        c.send("\x11")  # Ctrl-Q
        await c.close()
    await until(lambda: not server.sessions, what="sessions to end")

    def live() -> list[object]:
        gc.collect()
        return [o for o in gc.get_objects() if isinstance(o, RemoteApp | LobbyApp)]

    # what an app scheduled on the loop may hold its context (and so the app) a moment after
    # the session ended: freed within seconds, where a leak stays
    await until(lambda: not live(), 5.0, "the ended sessions' apps to be freed")
    assert sys.stdout is sys.__stdout__ or "PrintCapture" not in type(sys.stdout).__name__


async def test_connections_per_address_are_limited(tmp_path: Path) -> None:
    srv = await start_server(fast_config(tmp_path, limits=Limits(connections_per_address=2)))
    try:
        conns = [await asyncssh.connect("127.0.0.1", srv.port, username="x", known_hosts=None,
                                        client_keys=[new_key()], agent_path=None)
                 for _ in range(2)]
        with pytest.raises((asyncssh.Error, ConnectionError, OSError)):
            conn = await asyncssh.connect("127.0.0.1", srv.port, username="x",
                                          known_hosts=None, client_keys=[new_key()],
                                          agent_path=None)
            await conn.run("help", check=True)
        for conn in conns:
            conn.close()
    finally:
        await srv.close()


async def test_anonymous_login_can_be_turned_off(tmp_path: Path) -> None:
    srv = await start_server(fast_config(tmp_path, allow_anonymous=False))
    try:
        with pytest.raises(asyncssh.PermissionDenied):
            await run_command(srv.port, "anon", "help")
        r = await run_command(srv.port, "keyed", "help", key=new_key())
        assert r.exit_status == 0
    finally:
        await srv.close()


async def test_spectators_see_no_concealed_tile(server: MahjongServer) -> None:
    a = await join(server, "amy", new_key(), "join sp")
    await a.wait_for("press S")
    a.send("s")
    await a.wait_for("宜春")
    w = await join(server, "wes", new_key(), "watch sp")
    await w.wait_for("宜春")
    t = server.registry.tables["sp"]
    assert len(t.spectators) == 1
    assert t.spectators[0].spectating
    upd = t.update_for(None)
    assert upd is not None and upd.view.hand == () and upd.view.legal == ()
    # the seats by their winds and players' names: the spectator is not "You", and sits nowhere
    screen = await w.wait_for("Watching")
    # the computer seats named in the session's language, short enough for a side seat
    assert "You" not in screen and "East amy" in screen and "(computer)" in screen
    assert "电脑" not in screen
    mine = await a.wait_for("(computer)")  # the player reads the others' names, not its own
    assert "You E" in mine and "amy" not in mine
    await a.close()
    await w.close()


async def test_options_on_the_command_line_and_stakes_by_keys(server: MahjongServer) -> None:
    a = await join(server, "amy", new_key(),
                   "join ys --rules yichun --option hands_per_game=2 --option base_point=3 "
                   "--bots easy")
    await a.wait_for("press S")
    t = server.registry.tables["ys"]
    assert t.ruleset.options["base_point"] == 3 and t.bot_levels == ("easy",) * 4
    await a.wait_for("base_point=3")
    again = await join(server, "bob", new_key(), "join ys --rules gejiu")
    await again.closed.wait()
    assert again.exit_status == 2 and "already exists" in again.text()
    a.send("a")  # amy does not allow spectators ...
    await until(lambda: not t.seats[0].allow_spectators, what="the allow key")
    a.send("a")  # ... and allows them again
    await until(lambda: t.seats[0].allow_spectators, what="the allow key again")
    keys = await a.wait_for("a: allow spectators")  # a seated player's keys ...
    assert "S / Enter: start" in keys and "y: stake" not in keys
    w = await join(server, "wes", new_key(), "watch ys")
    keys = await w.wait_for("y: stake")  # ... and a spectator's: no start, no allow
    assert "S / Enter" not in keys and "allow spectators" not in keys
    assert "a seated player presses S" in keys
    w.send("y")
    await w.wait_for("Spectator stakes")
    w.send("2")  # S is a computer seat and allows by default
    await w.wait_for("stake set")
    assert [(s.name, s.backs) for s in t.stakes.placed.values()] == [("wes", 1)]
    w.send("\x1b")
    a.send("s")  # the stakes are fixed before the first hand's break roll
    await until(lambda: t.game is not None, what="the start")
    assert t.game is not None and t.game.hand is not None
    assert [(s.name, s.backs) for s in t.game.hand.spectators] == [("wes", 1)]
    await w.wait_for(toast_says("本盘你押 S"))
    await play_by_keys(t, {0: a}, max_actions=600)
    assert t.game.hand.is_over and t.game.hand.settlement is not None
    await w.wait_for(toast_says("your stake"))
    net = t.game.hand.settlement.spectators.get("wes", 0)
    await w.wait_for(toast_says(f"输赢: {net:+d}"))
    for c in (a, w, again):
        await c.close()


async def test_the_stake_box_scrolls_in_a_small_terminal(server: MahjongServer) -> None:
    """In a terminal too small for it, the 压鸽子 box wraps to the terminal's width and scrolls
    (↓ / End) to its choices, which work before they are seen as well."""
    a = await join(server, "amy", new_key(), "join yss --rules yichun")
    await a.wait_for("press S")
    t = server.registry.tables["yss"]
    w = await join(server, "wes", new_key(), "watch yss", width=30, height=12)
    await w.wait_for("Table")
    w.send("y")
    await w.wait_for("Spectator")
    assert "no stake" not in w.text()  # below the box's fold
    assert all(len(line.rstrip()) <= 30 for line in w.text().splitlines())
    w.send("\x1b[F")  # End
    await w.wait_for("no stake")
    w.send("3")
    await w.wait_for("stake set")
    assert [(s.name, s.backs) for s in t.stakes.placed.values()] == [("wes", 2)]
    for c in (a, w):
        await c.close()


async def test_the_benchmarks_light_screen_reads_as_pyte(server: MahjongServer) -> None:
    """``LightScreen`` (the benchmark's cheap terminal) shows what pyte shows, frame by frame,
    whatever the packet boundaries."""
    c = await join(server, "lena", new_key(), "join ls --rules shangrao")
    await c.wait_for("press S")
    c.send("s")
    await c.wait_for("上饶")
    t = server.registry.tables["ls"]
    await play_by_keys(t, {0: c}, max_actions=12)
    c.send("?")  # the help screen: other widgets, other sequences
    # (the help's own lines: the table's 宝 matched this while the help was still coming)
    await c.wait_for(lambda text: "Keys 按键" in text and text.count("\n") == 23)
    await asyncio.sleep(0.2)
    raw = bytes(c.raw)
    assert len(raw) > 5000
    rng = __import__("random").Random(5)
    for _ in range(3):
        light = LightScreen(80, 24)
        i = 0
        while i < len(raw):
            n = rng.choice([1, 2, 3, 7, 64, 1000, 5000])
            light.feed(raw[i:i + n])
            i += n
        assert light.display == c.screen.display
    await c.close()


async def test_a_session_has_one_table_screen_and_one_subscription(
        server: MahjongServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual calls each class's ``on_mount`` itself: the remote app must not call its base's
    again (that made a second table screen, and every update was delivered twice)."""
    from tui.apps.table_screen import TableScreen

    subscribed: list[SeatClient] = []
    subscribe = SeatClient.subscribe

    def counted(client: SeatClient, callback: Any) -> None:
        subscribed.append(client)
        subscribe(client, callback)

    monkeypatch.setattr(SeatClient, "subscribe", counted)
    c = await join(server, "una", new_key(), "join once")
    await c.wait_for("press S")
    (session,) = server.sessions
    app = session.app
    # a table still waiting for players: its screen is built when the game starts (it would
    # cost as much CPU as the rest of the connect)
    assert app.table_screen is None
    assert not any(isinstance(s, TableScreen) for s in app.screen_stack)
    # and the waiting screen is the session's first screen, with no blank screen beneath it
    assert [type(s).__name__ for s in app.screen_stack] == ["WaitingScreen"]
    # no tooltip widget composed into the session's screens (nothing of the table's has one)
    assert not app.screen.query("Tooltip")
    c.send("s")
    await c.wait_for("宜春")
    assert sum(isinstance(s, TableScreen) for s in app.screen_stack) == 1
    assert [type(s).__name__ for s in app.screen_stack] == ["TableScreen"]
    assert not app.screen.query("Tooltip") and app.screen.query("ToastRack")
    assert subscribed.count(app.seat_client) == 1
    delivered: list[object] = []
    apply_update = app.table_screen.apply_update

    def recording(update: object) -> None:
        delivered.append(update)
        apply_update(update)

    app.table_screen.apply_update = recording
    t = server.registry.tables["once"]
    await play_by_keys(t, {0: c}, max_actions=1)
    await until(lambda: len(delivered) >= 1, what="an update")
    await asyncio.sleep(0.2)
    assert len(delivered) == len({id(u) for u in delivered})  # no update applied twice
    await c.close()


async def test_the_cipher_is_aes_not_chacha(server: MahjongServer) -> None:
    """chacha20-poly1305 costs four times the CPU per frame in asyncssh: not offered."""
    c = await join(server, "cy", new_key(), "join ciphers")
    await c.wait_for("press S")
    assert c.conn is not None
    cipher = c.conn.get_extra_info("send_cipher")
    assert cipher is not None and "aes" in cipher and "chacha" not in cipher
    await c.close()


async def test_a_new_game_after_game_over_replaces_every_screen(server: MahjongServer) -> None:
    """From the waiting screen (the session's first), through a one-hand game to its game
    result, Enter starts the next game: one table screen, nothing beneath it."""
    c = await join(server, "nell", new_key(), "join ng --rules gejiu --option hands_per_game=1")
    await c.wait_for("press S")
    (session,) = server.sessions
    app = session.app
    c.send("s")
    await c.wait_for("个旧")
    t = server.registry.tables["ng"]
    first = app.table_screen
    seat = t.seats.index(next(s for s in t.seats if s.clients))
    await play_by_keys(t, {seat: c})
    await c.wait_for("Enter: game result")
    c.send("\r")
    await c.wait_for("Game over")
    assert [type(s).__name__ for s in app.screen_stack] == ["TableScreen", "GameResultScreen"]
    c.send("\r")
    await until(lambda: app.table_screen is not first, 5.0, "the next game's table")
    await c.wait_for(lambda text: "个旧" in text and "Game over" not in text)
    assert [type(s).__name__ for s in app.screen_stack] == ["TableScreen"]
    assert app.screen is app.table_screen and t.game is not None and t.game_no == 2
    await c.close()
