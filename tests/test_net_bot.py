"""``ssh HOST bot join NAME``: a program plays a seat over the bot protocol on an exec channel
(a real server on port 0, an asyncssh client without a PTY)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest

from host.clock import ManualClock
from host.table_info import TableState
from net.front.botsession import BotSession
from net.front.plain_session import table_line
from net.front.server import MahjongServer
from net.limits import Limits
from net.runtime.config import TableConfig
from net.runtime.shared_table import SharedTable
from net.store.model import Account
from testkit.ssh import BotClient, MakeServer, new_key, run_command
from tests.support.hand_tracker import HandTracker
from tests.support.waiting import until

ROOT = Path(__file__).resolve().parent.parent


def _choice(request: dict[str, Any]) -> int:
    legal = request["legal"]
    for x in legal:
        if x["action"]["a"] in ("win", "pond_win"):
            return int(x["id"])
    return int(legal[0]["id"])


async def _play_to_the_end(bot: BotClient, limit: int = 4000) -> dict[str, Any]:
    for _ in range(limit):
        line = await bot.read(20.0)
        assert line is not None, "the channel ended during the game"
        if line["type"] == "request":
            bot.send({"request": line["request"], "choice": _choice(line)})
        elif line["type"] == "game_end":
            return line
    raise AssertionError("no game_end")


async def test_a_bot_plays_a_whole_game(server: MahjongServer) -> None:
    bot = BotClient()
    key = new_key()
    await bot.connect(server.port, "robo", "bot join t1 --rules gejiu "
                      "--option hands_per_game=1", key)
    try:
        hello = await bot.read()
        assert hello is not None and hello["type"] == "hello" and hello["protocol"] == 1
        assert hello["table"] == "t1" and hello["rules"] == "gejiu" and hello["seat"] == 0
        table = server.registry.tables["t1"]
        info = table.info()
        assert info.seats[0].bot and info.seats[0].name == "robo"
        bot.send({"command": "start"})  # a seated player's S: computers in the empty seats
        end = await _play_to_the_end(bot)
        assert sum(end["scores"]) == 0
        kinds = {line["type"] for line in bot.lines}
        assert {"game_start", "hand_start", "deal", "draw", "discard", "request",
                "hand_end", "game_end"} <= kinds
        assert not [line for line in bot.lines if line["type"] == "error"]
        assert table.names()[0] == "robo [bot]"
        # the result is stored as a program's, and the leaderboard says so
        board = [(r.nickname, r.games, r.bot_games) for r in server.store.leaderboard()]
        assert board == [("robo", 1, 1)]
        stats = await run_command(server.port, "ann", "stats")
        assert "robo [bot]" in str(stats.stdout)
    finally:
        await bot.close()
    await until(lambda: not table.seats[0].clients, 5.0, "the bot's seat to empty")


async def test_garbage_never_hurts_the_table(server: MahjongServer) -> None:
    bot = BotClient()
    await bot.connect(server.port, "junk", "bot join t2 --option hands_per_game=1", new_key())
    try:
        await bot.read_until("hello")
        bot.send(b"\x1b[2J not json at all\n")
        error = await bot.read_until("error")
        assert error["code"] == "not_json"  # nothing was asked yet: nothing played
        bot.send({"command": "start"})
        request = await bot.read_until("request")
        number = request["request"]
        table = server.registry.tables["t2"]
        hand = table.game.hand if table.game is not None else None
        assert hand is not None
        before = len(hand.actions)
        bot.send(b"x" * 10000 + b"\n")  # over-long: refused, and the timer's action played
        error = await bot.read_until("error")
        assert error["code"] == "too_long" and error["request"] == number
        played = await bot.read_until("played_for_you")
        assert played["request"] == number and played["text"] == request["default"]
        await until(lambda: len(hand.actions) > before, 5.0, "the default action")
        # an illegal action, then a stale answer: refused, the table goes on
        request = await bot.read_until("request")
        bot.send({"request": request["request"], "action": "peng 9s"})
        error = await bot.read_until("error")
        assert error["code"] in ("illegal", "bad_action")
        bot.send({"request": request["request"], "choice": 0})
        error = await bot.read_until("error")
        assert error["code"] in ("stale", "no_request")
        # a flood of lines: past the rate, refused unread
        bot.send(b"".join(b'{"request": 0, "choice": 0}\n' for _ in range(200)))
        for _ in range(400):
            line = await bot.read(10.0)
            assert line is not None
            if line.get("code") == "too_fast":
                break
        else:
            raise AssertionError("no too_fast")
        await asyncio.sleep(2.5)  # the rate's bucket fills again
        told = [line for line in bot.lines if line.get("code") == "too_fast"]
        assert len(told) == 1  # once a burst
        asked = [line for line in bot.lines if line["type"] == "request"][-1]
        bot.send({"request": asked["request"], "choice": _choice(asked)})  # if still waiting
        end = await _play_to_the_end(bot)
        assert sum(end["scores"]) == 0
    finally:
        await bot.close()


async def test_bot_join_refusals(make_server: MakeServer) -> None:
    """Issue 54, bug 5: the command line's refusals were text (``error 错误: unknown
    ruleset …``) on the protocol's channel; each is one JSON line of the error shape, and
    the exit status says so."""
    srv = await make_server()
    for command, said, code in (("bot watch t1", "bot join NAME", "usage"),
                                ("bot join t1 --lang zh", "no --lang", "usage"),
                                ("bot join t1 --rules nosuch", "nosuch", "usage"),
                                ("bot join t1 --option turn_seconds=-4", "turn_seconds",
                                 "usage"),
                                ("bot", "bot join NAME", "usage")):
        r = await run_command(srv.port, "ann", command)
        lines = str(r.stdout).splitlines()
        assert r.exit_status == 2 and len(lines) == 1, (command, r.stdout)
        error = json.loads(lines[0])
        assert error["type"] == "error" and error["request"] is None, error
        assert error["code"] == code and said in error["message"], (command, error)
    # a full table has no seat for a bot
    bots = []
    for i in range(4):
        b = BotClient()
        await b.connect(srv.port, f"b{i}", "bot join full", new_key())
        await b.read_until("hello")
        bots.append(b)
    extra = BotClient()
    await extra.connect(srv.port, "late", "bot join full", new_key())
    line = await extra.read()
    assert line is not None and line["code"] == "no_seat"
    assert await extra.exit_status() == 1
    for b in [*bots, extra]:
        await b.close()


async def test_a_program_that_closes_its_output_at_once(
        server: MahjongServer, caplog: pytest.LogCaptureFixture) -> None:
    """``printf 'junk\\n' | ssh HOST bot join t4``: the session ends cleanly, nothing crashes
    (OpenSSH sends the input and its end at once, before the seat is found)."""
    open_seat = server.open_seat

    async def slow_open_seat(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.3)
        return await open_seat(*args, **kwargs)

    server.open_seat = slow_open_seat  # type: ignore[method-assign]
    for _ in range(3):
        bot = BotClient()
        await bot.connect(server.port, "quick", "bot join t4", new_key())
        assert bot.process is not None
        bot.send(b"junk\n")
        bot.process.stdin.write_eof()
        assert await bot.exit_status() == 0
        await bot.close()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    r = await run_command(server.port, "ann", "stats")  # the server serves on
    assert r.exit_status == 0


EXAMPLE_SEED = 1  # the example program gets 20 requests in this deal (seed 2: 11)


@pytest.mark.skipif(shutil.which("node") is None,
                    reason="node (Node.js) is not installed: the example bot is a Node script")
async def test_the_example_bot_plays_over_ssh(server: MahjongServer,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """``ssh HOST bot join t5`` with examples/simple-bot.js on the other end of the channel
    (as ``coproc`` or ``socat`` wire it): it starts the table, plays a game, and leaves. The
    program's start deals from a fixed seed (EXAMPLE_SEED), in which its hand is long enough for
    several requests: with a deal of chance the computers sometimes won within its first few
    turns (CI at 086df48: two requests)."""
    start = SharedTable.start
    monkeypatch.setattr(SharedTable, "start", lambda table, seed=None: start(
        table, EXAMPLE_SEED if seed is None else seed))
    bot = BotClient()
    await bot.connect(server.port, "nodebot", "bot join t5 --rules yichun "
                      "--option hands_per_game=1", new_key())
    assert bot.process is not None
    node = await asyncio.create_subprocess_exec(
        "node", str(ROOT / "examples" / "simple-bot.js"), "--start", "--one-game",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert node.stdin is not None and node.stdout is not None
    seen: list[str] = []

    async def table_to_bot() -> None:
        assert bot.process is not None and node.stdin is not None
        while raw := await bot.process.stdout.readline():
            seen.append(json.loads(raw)["type"])
            node.stdin.write(raw)
            with contextlib.suppress(ConnectionError):
                await node.stdin.drain()
        node.stdin.close()

    async def bot_to_table() -> None:
        assert bot.process is not None and node.stdout is not None
        while raw := await node.stdout.readline():
            bot.process.stdin.write(raw)
        bot.process.stdin.write_eof()

    pumps = [asyncio.ensure_future(table_to_bot()), asyncio.ensure_future(bot_to_table())]
    try:
        assert await asyncio.wait_for(node.wait(), 60) == 0
        await asyncio.wait_for(pumps[1], 10)
        assert await bot.exit_status() == 0
    finally:
        for pump in pumps:
            pump.cancel()
        if node.returncode is None:
            node.kill()
            await node.wait()
        await bot.close()
    assert seen[0] == "hello" and "game_end" in seen and "error" not in seen
    assert seen.count("request") > 5, seen.count("request")
    board = [(r.nickname, r.bot_games) for r in server.store.leaderboard()]
    assert board == [("nodebot", 1)]


async def test_an_idle_program_is_closed_as_a_player_is(make_server: MakeServer) -> None:
    srv = await make_server(limits=Limits(idle_seconds=1.0))
    bot = BotClient()
    await bot.connect(srv.port, "sleepy", "bot join t7", new_key())
    await bot.read_until("hello")
    line = await bot.read_until("error", 10.0)
    assert line["code"] == "idle"
    assert await bot.exit_status() == 0
    await until(lambda: not srv.registry.tables["t7"].seats[0].clients, 5.0, "the seat freed")
    await bot.close()


async def test_a_dropped_program_does_not_freeze_its_table(make_server: MakeServer) -> None:
    """Issue 54, bug 1: a program alone with computers drops in a claim window, nobody else
    connected: the claim timer plays its pass and, after the grace period, a computer plays
    the seat to the game's end, as when someone watches."""
    clock = ManualClock()
    srv = await make_server(clock=clock)
    bot = BotClient()
    await bot.connect(srv.port, "dropper", "bot join tf --rules gejiu "
                      "--option hands_per_game=1 --option claim_seconds=3", new_key())
    await bot.read_until("hello")
    t = srv.registry.tables["tf"]
    # a deal in which a claim window comes to the program: with a deal of chance, some hands
    # ended first and the test waited for a request that never came
    assert t.start(seed=1) is None
    for _ in range(400):
        request = await bot.read_until("request")
        if request["phase"] in ("claim", "rob"):
            break
        bot.send({"request": request["request"], "choice": _choice(request)})
    else:
        raise AssertionError("no claim window came up for the program")
    assert request["seconds"] == 3.0
    assert t.game is not None and t.game.hand is not None
    hand = t.game.hand
    version = hand.version
    assert hand.to_act() == [0]  # the computers answered: the window waits for the program
    await bot.close()
    await until(lambda: not t.seats[0].clients, what="the drop")
    assert t.empty and hand.version == version
    await clock.advance(3.0)
    await until(lambda: hand.version != version, 15.0, "the claim timer's pass")
    await clock.advance(t.config.grace_seconds)
    assert t.is_bot(0)
    await until(lambda: t.state is TableState.OVER, 20.0, "the computers to play on")


async def test_every_timed_request_says_its_seconds(server: MahjongServer) -> None:
    """Issue 54, bug 2: the dealer's first turn (and buys, claims the computers answer
    first) said ``seconds: null`` (no limit) though their timers ran: the request went out
    before its timer started. Now every request of a timed table says the time left, and so
    does ``hello`` (the turn timer's default, 30 s)."""
    bot = BotClient()
    await bot.connect(server.port, "timed", "bot join tt --rules gejiu "
                      "--option hands_per_game=1", new_key())
    try:
        hello = await bot.read_until("hello")
        assert hello["seconds"] == 30.0
        # every option, defaults included (issue 54, the document)
        assert hello["options"]["turn_seconds"] == 30 and hello["options"]["claim_seconds"] == 8
        assert server.registry.tables["tt"].start(seed=4) is None  # the program deals first
        await _play_to_the_end(bot)
    finally:
        await bot.close()
    requests = [line for line in bot.lines if line["type"] == "request"]
    assert requests[0]["phase"] == "turn" and requests[0]["state"]["dealer"] == 0
    assert all(isinstance(r["seconds"], float) and r["seconds"] > 0 for r in requests), \
        [(r["phase"], r["seconds"]) for r in requests if not r["seconds"]]
    assert not [line for line in bot.lines if line["type"] in ("error", "played_for_you")]


async def test_a_request_whose_time_is_up_is_not_sent() -> None:
    """Issue 54, bug 2: after a reconnect a request came with ``seconds: 0.0`` and its
    answer was refused as stale. A request whose timer has run out is not sent: the timer
    plays it now, and the update that follows tells what it played."""
    clock = ManualClock()
    t = SharedTable("tu", "gejiu", {"hands_per_game": 1},
                    TableConfig(bot_delay=0.0, bot_level="easy", clock=clock))
    client = t.join(Account(1, "late"), bot=True)
    lines: list[dict[str, Any]] = []
    session = BotSession(client, lambda data: lines.extend(
        json.loads(x) for x in data.splitlines()), Limits())
    session.start()
    try:
        assert t.start(seed=3) is None
        game = t.game
        assert game is not None and game.hand is not None
        await until(lambda: 0 in t.runner.deadlines, 5.0, "the program's timer")
        asked = [line for line in lines if line["type"] == "request"]
        assert asked and asked[-1]["seconds"] > 0
        session.bot.answered()  # as after a reconnect: a new session, nothing asked yet
        t.runner.deadlines[0] = clock.now()  # its time is up, the table not yet told
        update = t.update_for(0)
        assert update is not None and update.view.my_move
        before = len(lines)
        session._update(update)
        assert not [line for line in lines[before:] if line["type"] == "request"]
    finally:
        session.close()
        t.close()


async def test_commands_as_the_document_says(make_server: MakeServer) -> None:
    """Issue 54, bug 4: an unknown command is ``bad_command`` (not "no request is waiting")
    and costs no decision while a request waits; ``new_game`` before a game is over and a
    second ``start`` are refused, saying why."""
    clock = ManualClock()  # nothing moves by itself: the request waits
    srv = await make_server(clock=clock)
    bot = BotClient()
    await bot.connect(srv.port, "cmd", "bot join tc --rules gejiu --option hands_per_game=1",
                      new_key())
    try:
        await bot.read_until("hello")
        t = srv.registry.tables["tc"]
        bot.send({"command": "dance"})
        error = await bot.read_until("error")
        assert error["code"] == "bad_command" and error["request"] is None
        bot.send({"command": "new_game"})
        error = await bot.read_until("error")
        assert error["code"] == "refused" and "not over" in error["message"]
        assert t.state is TableState.WAITING
        bot.send({"command": "start"})
        request = await bot.read_until("request")
        bot.send({"command": "start"})
        error = await bot.read_until("error")
        assert error["code"] == "refused" and "begun" in error["message"]
        assert t.game is not None and t.game.hand is not None
        hand = t.game.hand
        before = len(hand.actions)
        for line in ({"command": "strat"}, {"command": 5, "choice": 0}):
            bot.send(line)
            error = await bot.read_until("error")
            assert error["code"] == "bad_command" and error["request"] is None
        assert len(hand.actions) == before and 0 in hand.to_act()
        action = request["legal"][-1]
        bot.send({"request": request["request"], "choice": action["id"]})
        await until(lambda: len(hand.actions) > before, 5.0, "the program's own answer")
        assert hand.actions[before][1].to_json() == action["action"]
        assert not [line for line in bot.lines if line["type"] == "played_for_you"]
    finally:
        await bot.close()


async def _track(bot: BotClient, tracker: HandTracker, requests: int | None = None,
                 ) -> dict[str, Any]:
    """Play (answers by :func:`_choice`), keeping the hand from the events alone, checked at
    every request; up to ``requests`` answers, or to the game's end (its line returned)."""
    for _ in range(4000):
        line = await bot.read(20.0)
        assert line is not None, "the channel ended during the game"
        tracker.feed(line)
        if line["type"] == "request":
            assert tracker.agrees(line), (tracker.elements(), line["state"])
            if requests is not None:
                requests -= 1
                if requests < 0:
                    return line
            bot.send({"request": line["request"], "choice": _choice(line)})
        elif line["type"] == "game_end":
            return line
    raise AssertionError("no game_end")


async def test_a_reconnected_bot_keeps_the_right_hand(server: MahjongServer) -> None:
    """Issue 54, bug 3: a reconnect was told a history that never happened (``game_start``
    with the scores now, a ``deal`` that was the hand now, its earlier draws without their
    tiles; on a finished table, the middle of a hand). A program that keeps its hand from
    the events only, dropped mid-hand and back, and back again after the game, ends with
    the right tiles: a session that comes into a game under way gets one ``resync``."""
    key = new_key()
    command = "bot join tr --rules gejiu --option hands_per_game=1"
    first = BotClient()
    await first.connect(server.port, "keeper", command, key)
    table = server.registry.tables["tr"]
    try:
        await first.read_until("hello")
        assert table.start(seed=11) is None
        tracker = HandTracker()
        await _track(first, tracker, requests=4)  # a request left waiting at the drop
    finally:
        await first.close()
    assert not tracker.problems
    await until(lambda: not table.seats[0].clients, 5.0, "the drop")
    again = BotClient()
    await again.connect(server.port, "keeper", command, key)
    try:
        hello = await again.read_until("hello")
        assert hello["state"] == "playing" and hello["seat"] == 0
        tracker = HandTracker()
        end = await _track(again, tracker)
        assert sum(end["scores"]) == 0
    finally:
        await again.close()
    assert not tracker.problems, tracker.problems
    types = [line["type"] for line in again.lines]
    assert types[1] == "resync" and "game_start" not in types
    assert types.index("resync") < types.index("request")
    await until(lambda: not table.seats[0].clients, 5.0, "the second drop")
    late = BotClient()
    await late.connect(server.port, "keeper", command, key)
    try:
        await late.read_until("hello")
        resync = await late.read()
        assert resync is not None and resync["type"] == "resync"
        assert resync["state"]["phase"] == "ended" and resync["hand_no"] == 1
        assert (await late.read() or {}).get("type") == "hand_end"
        assert (await late.read() or {}).get("type") == "game_end"
    finally:
        await late.close()


async def test_a_timed_out_request_is_played_for_the_bot_and_it_is_told(
        make_server: MakeServer) -> None:
    """Issue 54, bug 6: on a server a request its timer played was only cancelled, and the
    program never heard its seat counted as away, nor back. Now the timer's move is told
    (``played_for_you``, ``why: timeout``, the move), two turns let run out are ``away``,
    and its next answer ``back``."""
    clock = ManualClock()
    srv = await make_server(clock=clock)
    bot = BotClient()
    await bot.connect(srv.port, "late", "bot join to --rules gejiu --option hands_per_game=1",
                      new_key())
    try:
        await bot.read_until("hello")
        t = srv.registry.tables["to"]
        assert t.start(seed=4) is None  # the program deals first: its turn
        timed_out = []
        while len(timed_out) < 2:
            request = await bot.read_until("request")
            if request["phase"] != "turn":
                bot.send({"request": request["request"], "choice": _choice(request)})
                continue
            await clock.advance(request["seconds"])
            played = await bot.read_until("played_for_you")
            assert played["request"] == request["request"] and played["why"] == "timeout"
            assert played["text"] == request["default"]
            timed_out.append(request["request"])
        away = await bot.read_until("away")
        assert away["seat"] == 0
        request = await bot.read_until("request")
        assert request["seconds"] <= 1.0  # an away seat's short timer
        bot.send({"request": request["request"], "choice": _choice(request)})
        back = await bot.read_until("back")
        assert back["seat"] == 0
    finally:
        await bot.close()
    cancelled = {line["request"] for line in bot.lines if line["type"] == "cancel"}
    assert not cancelled & set(timed_out)


async def test_a_second_bot_join_for_one_seat_replaces_the_first(server: MahjongServer) -> None:
    """Issue 54, bug 5: a second ``bot join`` with the same key to the same table made a
    second live session for one seat, neither told. The newer takes the seat; the older is
    told (``replaced``) and ends with exit status 1."""
    key = new_key()
    older, newer = BotClient(), BotClient()
    await older.connect(server.port, "twin", "bot join tw --option hands_per_game=1", key)
    try:
        await older.read_until("hello")
        await newer.connect(server.port, "twin", "bot join tw", key)
        hello = await newer.read_until("hello")
        assert hello["seat"] == 0
        told = await older.read_until("error")
        assert told["code"] == "replaced" and "tw" in told["message"]
        assert await older.exit_status() == 1
        table = server.registry.tables["tw"]
        await until(lambda: len(table.seats[0].clients) == 1, 5.0, "one session at the seat")
        newer.send({"command": "start"})
        end = await _play_to_the_end(newer)
        assert sum(end["scores"]) == 0
        assert not [line for line in newer.lines if line["type"] == "error"]
    finally:
        await older.close()
        await newer.close()


async def test_handshake_helpers_and_tsumogiri_on_a_server(make_server: MakeServer) -> None:
    """Issue 54, what bot authors expect: a program's ``hello`` (cleaned, bounded) is shown
    with its ``[bot]`` mark in the table's names and the lobby's seats and answered by
    ``welcome``; ``waits`` and ``value`` are answered from the seat's view while a request
    waits, cost no decision, and past ``bot_helpers_per_second`` are ``too_fast``; every
    discard says ``tsumogiri``."""
    clock = ManualClock()  # nothing moves by itself: the request waits
    srv = await make_server(clock=clock, limits=Limits(bot_helpers_per_second=2))
    bot = BotClient()
    await bot.connect(srv.port, "robo", "bot join th --rules gejiu --option hands_per_game=1",
                      new_key())
    try:
        await bot.read_until("hello")
        t = srv.registry.tables["th"]
        bot.send({"hello": {"name": "robo\x1b[31m[x]" + "y" * 40, "version": "2.0\n",
                            "features": ["waits", "nonsense"]}})
        told = await bot.read_until("welcome")
        name = "robo(x)" + "y" * 17
        assert told == {"type": "welcome", "name": name, "version": "2.0",
                        "features": ["waits"]}
        assert t.names()[0] == f"robo [bot: {name} 2.0]"
        assert t.info().seats[0].program == f"{name} 2.0"
        assert f"robo [bot: {name} 2.0]" in table_line(1, t.info(), "en")  # the plain lobby
        bot.send({"command": "start"})
        request = await bot.read_until("request")
        assert t.game is not None and t.game.hand is not None
        hand = t.game.hand
        before = len(hand.actions)
        bot.send({"command": "waits"})
        waits = await bot.read_until("waits")
        assert waits["request"] == request["request"] and isinstance(waits["after"], list)
        bot.send({"command": "value", "tile": "5m"})
        value = await bot.read_until("value")
        assert value["request"] == request["request"] and "result" in value
        assert value["situation"]["wins"][0]["seat"] == "ESWN"[request["state"]["seat"]]
        for _ in range(6):  # past the rate: refused, still no decision lost
            bot.send({"command": "waits"})
        error = await bot.read_until("error")
        assert error["code"] == "too_fast" and error["request"] is None
        assert len(hand.actions) == before and 0 in hand.to_act()
        # a discard of its own where it may (its event's tsumogiri is checked below); a
        # claim's first choice else (a discard came before it)
        discards = [c for c in request["legal"] if c["action"]["a"] == "discard"]
        choice = (discards or request["legal"])[0]
        bot.send({"request": request["request"], "choice": choice["id"]})
        await until(lambda: len(hand.actions) > before, 15.0, "the program's own answer")
        # read on until a discard event (bot.lines holds what was read: the program's own
        # discard may come after the error line read above)
        if not any(line["type"] == "discard" for line in bot.lines):
            await bot.read_until("discard")
        for line in bot.lines:
            if line["type"] == "discard":
                assert isinstance(line["tsumogiri"], bool), line
        assert not [line for line in bot.lines if line["type"] == "played_for_you"]
    finally:
        await bot.close()
