"""The plain front end (``--plain``, tui/plain/front.py): a whole hand played by typed lines against
the computer players, the claim prompt, the result, both languages, bad input, the timer's two
sentences, the line editor of an SSH terminal, ``play --plain`` on standard input, and
``join NAME --plain`` / ``watch NAME --plain`` / ``lobby --plain`` over SSH."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from engine.actions import ActionType
from engine.table import Phase
from engine.tiles import kind_to_str
from host.clock import ManualClock
from host.local import LocalTable
from net.commands import CommandError, parse_command
from net.front.server import MahjongServer
from testkit.ssh import PtyClient, new_key
from tests.support.waiting import until
from tui.plain.front import MAX_LINE, PlainTable
from tui.plain.terminal import LineEditor, run_local
from tui.plain.words import tile_name, tiles_names
from tui.settings import Settings


class Transcript:
    """A :class:`tui.plain.front.PlainOutput` that keeps what was written: every line and each
    prompt, in order."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.prompts: list[str] = []
        self.closed = False

    def say(self, lines: Sequence[str], prompt: str) -> None:
        for line in lines:
            assert "\n" not in line and "\x1b" not in line, line
        self.lines.extend(lines)
        self.prompts.append(prompt)
        self.lines.append(f"PROMPT {prompt}")

    def close(self) -> None:
        self.closed = True

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def since(self, mark: int) -> str:
        return "\n".join(self.lines[mark:])


def table(**kw: object) -> LocalTable:
    return LocalTable(bot_delay=0.0, timers=bool(kw.pop("timers", False)), **kw)  # type: ignore[arg-type]


def answer(plain: PlainTable, out: Transcript) -> str | None:
    """What a player types to the question now asked (read from the prompt, the view only to
    pick): pong when offered, else pass; in a turn win when possible, else discard the drawn
    tile by its name in notation (or the first tile by number). None: nothing is asked."""
    assert plain.update is not None
    view = plain.update.view
    if not view.my_move or view.phase is Phase.ENDED:
        return None
    if not out.prompts or out.prompts[-1] != plain.prompt():
        return None  # the question is not written yet
    prompt = out.prompts[-1]
    types = {a.type for a in view.legal}
    if view.phase is Phase.TURN:
        assert "Your turn" in prompt or "轮到你" in prompt, prompt
        if ActionType.WIN in types:
            return "w"
        return kind_to_str(view.drawn) if view.drawn is not None else "1"
    if view.phase is Phase.BUY:
        return "n"
    assert "(p)" in prompt if ActionType.PENG in types else True, prompt
    return "p" if ActionType.PENG in types else ""


async def play_hand(plain: PlainTable, out: Transcript, limit: int = 400) -> int:
    """Answer every question until the hand is over; the number of lines typed."""
    typed = 0
    while typed < limit:
        await until(lambda: plain.update is not None and (
            plain.update.view.phase is Phase.ENDED or answer(plain, out) is not None),
            10.0, "the table to ask or to end")
        assert plain.update is not None
        if plain.update.view.phase is Phase.ENDED:
            await until(lambda: plain.written, 5.0, "the result to be written")
            return typed
        line = answer(plain, out)
        assert line is not None
        version = (plain.update.view.events, plain.update.view.legal)
        plain.handle(line)
        typed += 1
        await until(lambda v=version: plain.update is not None and (
            plain.update.view.events, plain.update.view.legal) != v, 10.0, f"the answer {line!r}")
    raise AssertionError("the hand did not end")


async def test_a_whole_hand_in_plain_lines_with_a_claim_and_the_result() -> None:
    out = Transcript()
    t = table()
    plain = PlainTable(t, "en", out)
    plain.start()
    assert t.new_game("shangrao", {}, 4) is None
    await until(lambda: "Your hand: " in out.text, 5.0, "the start")
    start = out.text
    assert "Table: 上饶 Shangrao, hand 1 of 8." in start
    assert ("Seats: East you; South computer (on your right); West computer (across); "
            "North computer") in start
    assert "Your hand: " in start
    typed = await play_hand(plain, out)
    text = out.text
    assert typed > 3
    # the claim prompt, as a sentence with its choices by letter in the table's order (pass
    # first), after the discard said once (issue 53: not again in the question), and the
    # claim said after
    claim = next(p for p in out.prompts if "pung 碰 (p)" in p)
    assert claim.startswith("You may: Enter: pass 过; 1 ") and claim.endswith(" > ")
    asked = out.lines.index(f"PROMPT {claim}")
    assert " discards " in out.lines[asked - 1] and "discard" not in claim
    assert "You pung " in text and "pong" not in text
    # every other seat's moves as sentences
    for seat in ("South", "West", "North"):
        assert f"{seat} discards " in text
    assert "You draw " in text and "You discard " in text
    # the result: every hand shown, the win and its items, the payments, the totals
    result = text[text.index("Hand 1 is over."):]
    for seat in ("East (you): ", "South: ", "West: ", "North: "):
        assert f"\n{seat}" in result
    assert " wins with " in result and "Value " in result
    assert " pays " in result and "This hand: " in result and "Totals: " in result
    assert out.prompts[-1] == "Press Enter for the next hand. > "
    # Enter: the next hand is dealt
    mark = len(out.lines)
    plain.handle("")
    await until(lambda: "hand 2 of 8" in out.since(mark), 5.0, "the second hand")
    plain.handle("quit")
    assert out.closed and out.prompts[-1] == ""
    t.close()


async def test_the_hand_in_chinese() -> None:
    out = Transcript()
    t = table()
    plain = PlainTable(t, "zh", out)
    plain.start()
    assert t.new_game("gejiu", {}, 1) is None
    await play_hand(plain, out)
    text = out.text
    assert "牌桌：个旧，第1/" in text and "座位：东家 你" in text and "手牌：" in text
    assert "你可以：" in text and "Enter 过" in text and "你碰" in text
    assert "第1盘结束。" in text and "总分：" in text
    assert out.prompts[-1] == "按 Enter 开始下一盘。 > "
    t.close()


def test_tile_names_in_both_languages() -> None:
    assert tile_name(22, "en") == "5 bamboo" and tile_name(11, "en") == "3 dot"
    assert tile_name(6, "en") == "7 character" and tile_name(27, "zh") == "东风"
    assert tile_name(31, "zh") == "红中" and tile_name(4, "zh") == "五万"
    assert (tiles_names([0, 1, 2, 9, 27, 27], "en")
            == "1 2 3 characters, 1 dot, east wind, east wind")
    assert tiles_names([0, 1, 2, 9, 31], "zh") == "一二三万 一筒 红中"


async def test_bad_input_gets_a_sentence_and_changes_nothing() -> None:
    out = Transcript()
    t = table()
    plain = PlainTable(t, "en", out)
    plain.start()
    assert t.new_game("shangrao", {}, 4) is None
    await until(lambda: plain.update is not None and plain.update.view.my_move, 10.0, "a turn")
    assert plain.update is not None
    view = plain.update.view
    assert view.phase is Phase.TURN
    version = t.game.hand.version if t.game and t.game.hand else -1

    def said(line: str) -> str:
        mark = len(out.lines)
        plain.handle(line)
        return out.since(mark)

    assert "Not understood: zzz. Type help" in said("zzz")
    assert "That line is too long (at most 200 characters)." in said("x" * (MAX_LINE + 1))
    assert "No choice 99: choose 1 to 14." in said("99")
    missing = next(k for k in range(34) if k not in view.hand and k != view.drawn)
    assert f"You have no {tile_name(missing, 'en')}." in said(kind_to_str(missing))
    assert "Commands:" in said("help")
    assert "Your hand by number: 1: " in said("hand")
    assert "tiles left in the wall." in said("table")
    assert "\x1b" not in said("\x1b[2J\x07")  # control characters are dropped, not echoed
    assert t.game is not None and t.game.hand is not None and t.game.hand.version == version
    # each of these re-said the question as the prompt
    assert out.prompts[-1].startswith("Your turn: type a tile to discard")
    # and a discard by number plays: the fourteenth is the drawn tile (or the dealer's last)
    last = view.drawn if view.drawn is not None else view.hand[-1]
    plain.handle("14")
    await until(lambda: "You discard " in out.text, 5.0, "the discard")
    assert f"You discard {tile_name(last, 'en')}." in out.text
    plain.handle("p")
    assert "It is not your move now." in out.text or "That claim" in out.text
    t.close()


async def test_the_timer_is_said_at_its_start_and_a_few_seconds_before_its_end() -> None:
    clock = ManualClock()
    out = Transcript()
    t = table(timers=True, clock=clock)
    plain = PlainTable(t, "en", out)
    plain.start()
    assert t.new_game("shangrao", {"turn_seconds": 20}, 4) is None
    await until(lambda: plain.update is not None and plain.update.view.my_move
                and plain.update.view.phase is Phase.TURN, 10.0, "a turn")
    await until(lambda: "You have 20 seconds." in out.text, 5.0, "the timer's start")
    assert "seconds left" not in out.text
    await clock.advance(14.5)
    assert "seconds left" not in out.text
    await clock.advance(1.0)
    assert "5 seconds left!" in out.text
    assert out.text.count("5 seconds left!") == 1
    await clock.advance(5.0)
    await until(lambda: "Your timer ran out: the table played for you." in out.text, 5.0,
                "the timer's move")
    t.close()


def test_the_line_editor_echoes_and_bounds_what_is_typed() -> None:
    echoed: list[str] = []
    lines: list[str] = []
    ended: list[bool] = []
    ed = LineEditor(echoed.append, lines.append, lambda: ended.append(True), max_line=5)
    ed.feed(b"5s\r")
    assert lines == ["5s"] and "".join(echoed) == "5s\r\n"
    ed.feed(b"abc\x7f\x7fz\r")  # Backspace twice
    assert lines[-1] == "az"
    ed.feed(b"\x1b[A\x1b[1;5Chand\r")  # arrow keys are dropped whole
    assert lines[-1] == "hand"
    ed.feed(b"xyz\x15ok\r")  # Ctrl-U erases the line
    assert lines[-1] == "ok"
    echoed.clear()
    ed.feed(b"1234567890\r")  # at most five characters; one bell
    assert lines[-1] == "12345" and echoed.count("\a") == 1
    ed.feed("中".encode()[:2])
    ed.feed("中".encode()[2:] + b"\x7f\r")  # a wide character split over two packets
    assert lines[-1] == ""
    assert not ended
    ed.feed(b"\x04")
    assert ended


async def test_play_plain_on_standard_input() -> None:
    reader = asyncio.StreamReader()
    written: list[str] = []
    t = table()
    reader.feed_data(b"help\n")
    task = asyncio.ensure_future(run_local(t, "en", "gejiu", 1, reader=reader,
                                           write=written.append))
    await until(lambda: "Commands:" in "".join(written), 5.0, "the help")
    reader.feed_data(b"y" * (MAX_LINE * 5) + b"\nquit\n")
    assert await asyncio.wait_for(task, 5.0) == 0
    text = "".join(written)
    assert "Table: 个旧 Gejiu" in text and "That line is too long" in text
    assert "You left the table." in text and "\x1b" not in text
    t.close()


def test_the_command_line_flag(tmp_path: Path) -> None:
    env = {**os.environ, "MAHJONG_SSH_CONFIG_DIR": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    run = subprocess.run([sys.executable, "-m", "cli.main", "play", "--plain", "--rules",
                          "yichun", "--seed", "3", "--lang", "zh"], input="hand\nquit\n",
                         capture_output=True, text=True, timeout=60, env=env, check=False)
    assert run.returncode == 0, run.stderr
    assert "牌桌：宜春" in run.stdout and "你已离开牌桌。" in run.stdout
    assert "\x1b" not in run.stdout


def test_plain_on_the_ssh_command_line() -> None:
    assert parse_command("join fri --plain").plain
    assert parse_command("join fri --rules gejiu --plain --lang zh").lang == "zh"
    assert parse_command("watch fri --plain").plain
    lobby = parse_command("lobby --plain --lang zh")
    assert lobby.plain and lobby.lang == "zh" and lobby.name == "lobby"
    assert not parse_command("join fri").plain
    with pytest.raises(CommandError):
        parse_command("lobby --plainer")


async def test_join_and_watch_plain_over_ssh(server: MahjongServer) -> None:
    player = PtyClient(100, 40)
    await player.connect(server.port, "ann", new_key(), command="join fri --plain")
    await player.wait_for("Type start to begin now")
    player.send("say hi\r")
    await player.wait_for("ann says: hi")
    player.send("start\r")
    t = server.registry.tables["fri"]
    await until(lambda: t.game is not None, 5.0, "the start")
    watcher = PtyClient(100, 40)
    await watcher.connect(server.port, "bob", new_key(), command="watch fri --plain")
    await watcher.wait_for("You watch: no concealed tile is shown.")
    game = t.game
    assert game is not None and game.hand is not None
    hand = game.hand
    moves = 0
    while moves < 6 and not hand.is_over:
        await until(lambda: hand.is_over or 0 in hand.to_act(), 10.0, "my move")
        if hand.is_over:
            break
        update = t.update_for(0)
        assert update is not None
        view = update.view
        raw = bytes(player.raw).decode("utf-8", "replace")
        if view.phase is Phase.BUY:
            await until(lambda: "uy (买) this hand" in bytes(player.raw).decode(
                "utf-8", "replace"), 5.0, "the buy question")
            key = "m"  # buy, the table's key
        elif view.phase is Phase.TURN:
            await until(lambda: bytes(player.raw).decode("utf-8", "replace").rstrip().endswith(
                "or its number. >"), 5.0, "the turn's prompt")
            key = kind_to_str(view.drawn) if view.drawn is not None else "1"
        else:
            await until(lambda: "You may:" in bytes(player.raw).decode("utf-8", "replace"),
                        5.0, "the claim prompt")
            key = ""
        del raw
        version = hand.version
        player.send(key + "\r")
        await until(lambda v=version: hand.version != v, 5.0, f"the key {key!r}")
        moves += 1
    text = bytes(player.raw).decode("utf-8", "replace")
    assert "You discard " in text or "You buy" in text
    seen = bytes(watcher.raw).decode("utf-8", "replace")
    await watcher.wait_for(lambda _: "East discards " in bytes(watcher.raw).decode(
        "utf-8", "replace") or hand.is_over)
    seen = bytes(watcher.raw).decode("utf-8", "replace")
    # plain text only: no escape sequence, every line ended by CR LF
    for raw_bytes in (player.raw, watcher.raw):
        assert b"\x1b" not in raw_bytes
        assert b"\n" not in bytes(raw_bytes).replace(b"\r\n", b"")
    assert "Your hand" not in seen  # a spectator is shown no concealed tile
    player.send("quit\r")
    await until(lambda: player.closed.is_set(), 5.0, "the session's end")
    assert player.exit_status == 0
    watcher.send("\x03")  # Ctrl-C ends the session
    await until(lambda: watcher.closed.is_set(), 5.0, "the watcher's end")
    await player.close()
    await watcher.close()


async def test_the_plain_lobby_lists_tables_by_number(server: MahjongServer) -> None:
    first = PtyClient(100, 40)
    await first.connect(server.port, "ann", new_key(), command="join sun --plain")
    await first.wait_for("Type start")
    c = PtyClient(100, 40)
    await c.connect(server.port, "cat", new_key(), command="lobby --plain --lang zh")
    await c.wait_for("1 sun：")
    c.send("7\r")
    await c.wait_for("没有第7张牌桌。")
    c.send("1\r")  # sits at table 1
    await c.wait_for("南家 cat")
    c.send("quit\r")  # back in the lobby
    await c.wait_for("left sun")
    c.send("quit\r")
    await until(lambda: c.closed.is_set(), 5.0, "the session's end")
    assert b"\x1b" not in c.raw
    await c.close()
    await first.close()


async def test_plain_on_and_off_are_kept_in_the_settings(tmp_path: Path) -> None:
    settings = Settings.load(tmp_path / "settings.json")
    out = Transcript()
    t = table()
    plain = PlainTable(t, "en", out, settings=settings)
    plain.start()
    plain.handle("plain on")
    assert "Plain mode stays on" in out.text
    assert Settings.load(tmp_path / "settings.json").plain
    plain.handle("plain off")
    assert "Plain mode is off from the next start" in out.text
    assert not Settings.load(tmp_path / "settings.json").plain
    plain.handle("plain maybe")
    assert "Type plain off" in out.text
    t.close()


async def test_the_plain_setting_is_kept_with_the_key_over_ssh(server: MahjongServer) -> None:
    key = new_key()
    first = PtyClient(100, 40)
    await first.connect(server.port, "dee", key, command="join mon --plain")
    await first.wait_for("Type start")
    first.send("plain on\r")
    await first.wait_for("Plain mode stays on")
    first.send("quit\r")
    await until(lambda: first.closed.is_set(), 5.0, "the first visit's end")
    await first.close()
    again = PtyClient(100, 40)  # no --plain: the kept setting
    await again.connect(server.port, "dee", key, command="join mon")
    await again.wait_for("Type start")
    assert b"\x1b" not in again.raw
    await again.close()


async def test_a_compulsory_buy_is_said_so_and_the_hand_waits_for_the_deal() -> None:
    seen: set[bool] = set()
    for seed in range(1, 40):
        out = Transcript()
        t = table()
        plain = PlainTable(t, "en", out)
        plain.start()
        assert t.new_game("yichun", {}, seed) is None
        game = t.game
        assert game is not None
        def asked(plain: PlainTable = plain, out: Transcript = out) -> bool:
            return plain.update is not None and (
                plain.update.view.phase is not Phase.BUY or (
                    plain.update.view.my_move and bool(out.prompts)
                    and out.prompts[-1] == plain.prompt()))

        await until(asked, 10.0, "the buy question")
        assert plain.update is not None and game.hand is not None
        if plain.update.view.phase is not Phase.BUY:
            t.close()
            continue  # East had no choice to make (a compulsory buy is asked all the same)
        must = 0 in game.hand.compelled
        prompt = out.prompts[-1]
        assert ("You must buy" in prompt) is must, prompt
        # and why (issue 53): East deals hand 1
        assert ("The dealer always buys (庄家必买)." in prompt) is must, prompt
        assert ("(n)" in prompt) is not must, prompt
        mark = len(out.lines)
        plain.handle("hand")
        assert "dealt once everyone has decided" in out.since(mark)
        seen.add(must)
        t.close()
        if seen == {True, False}:
            break
    assert seen == {True, False}


async def test_a_buy_typed_before_ones_turn_says_whose_choice_it_is() -> None:
    """Issue 53: the seats choose in turn from the dealer's right, the dealer last; a buy
    typed before one's turn said only that it was not one's move."""
    out = Transcript()
    t = LocalTable(bot_delay=30.0, timers=False)  # the computers think: South is choosing
    plain = PlainTable(t, "en", out)
    plain.start()
    assert t.new_game("yichun", {}, 7) is None
    await until(lambda: plain.update is not None and plain.update.view.phase is Phase.BUY,
                10.0, "the buy phase")
    mark = len(out.lines)
    plain.handle("m")
    said = out.since(mark)
    t.close()
    assert "Not your choice yet: buying goes in turn from the dealer's right, the dealer " \
        "last, and South" in said, said
    assert "It is not your move now." not in said


LOOK_COMMANDS = ("waits", "听", "hand", "table", "scores", "log 3", "again")


def asked_again(plain: PlainTable, out: Transcript, command: str) -> list[str]:
    """What ``command`` is answered with, checked to be an answer: its lines (none only for
    ``again``), the same question after them, and nothing sent to the table."""
    assert plain.update is not None
    before, prompt = plain.update.view, plain.prompt()
    mark = len(out.lines)
    plain.handle(command)
    said = out.lines[mark:]
    assert said[-1] == f"PROMPT {prompt}", (command, said)
    lines = said[:-1]
    assert bool(lines) is (command != "again"), (command, prompt, lines)
    assert not any("Not understood" in line for line in lines), (command, prompt, lines)
    assert plain.update.view is before  # a question for the table, never an answer to it
    return lines


async def test_every_prompt_answers_the_commands_that_say_the_table_again() -> None:
    """Issue 53, bug 7: ``waits`` (and hand, table, scores, log, again) typed at any question
    gets its answer and the question again: the buy, a claim, a turn, the hand's result."""
    out = Transcript()
    t = table()
    plain = PlainTable(t, "en", out)
    plain.start()
    assert t.new_game("yichun", {}, 1) is None
    kinds: set[str] = set()
    for _ in range(400):
        await until(lambda: plain.update is not None and (
            plain.update.view.phase is Phase.ENDED or answer(plain, out) is not None),
            10.0, "the table to ask or to end")
        assert plain.update is not None
        view = plain.update.view
        await until(lambda: plain.written, 5.0, "the question to be written")
        kind = "result" if view.phase is Phase.ENDED else view.phase.value
        if kind not in kinds:
            kinds.add(kind)
            for command in LOOK_COMMANDS:
                asked_again(plain, out, command)
            if kind == "claim":
                waits = asked_again(plain, out, "waits")
                assert waits[0].startswith("You wait on: "), waits
        if view.phase is Phase.ENDED:
            break
        line = answer(plain, out)
        assert line is not None
        version = (view.events, view.legal)
        plain.handle(line)
        await until(lambda v=version: plain.update is not None and (
            plain.update.view.events, plain.update.view.legal) != v, 10.0, f"the answer {line!r}")
    assert kinds >= {"buy", "claim", "turn", "result"}, kinds
    t.close()


async def test_the_commands_that_say_the_table_are_answered_before_the_deal(
        server: MahjongServer) -> None:
    """Issue 53, bug 7: at a shared table still waiting for its players, ``waits``, ``hand``,
    ``table`` … were "Not understood"; they say that nothing is dealt yet."""
    player = PtyClient(100, 40)
    await player.connect(server.port, "ann", new_key(), command="join fri --plain")
    await player.wait_for("Type start to begin now")
    for command in ("waits", "hand", "table", "scores", "log", "听"):
        mark = len(player.raw)
        player.send(command + "\r")
        await player.wait_for(lambda _, m=mark: bytes(player.raw[m:]).decode(
            "utf-8", "replace").endswith("quit to leave. > "))
        said = bytes(player.raw[mark:]).decode("utf-8", "replace")
        assert "The game has not begun: nothing is dealt yet." in said, said
        assert "Not understood" not in said, said
    player.send("quit\r")
    await until(lambda: player.closed.is_set(), 5.0, "the session's end")
    await player.close()
