"""Finished games kept for replay (issue 26): the game ID, the store on both backends (kept
by ID, listed by account, safe from a table's deletion and its name's reuse, the migration of
older files), the engine's step-by-step rebuild, the viewer (Pilot, both languages, 80×24),
and ``mahjong-ssh replay FILE --view`` on good and bad files."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path

import asyncssh
import pytest
from textual.widgets import OptionList

from cli.main import main
from engine.bots import BasicPlayer
from engine.game import Game
from engine.record import RecordError, dumps, hand_lines
from engine.replay import read_game
from engine.simulate import play_hand
from net.front.server import MahjongServer
from net.game_id import ALPHABET, LENGTH, new_game_id, parse_game_id, shown_game_id
from net.store import STORE_VERSION, SavedTable, Store, TableRow, open_store
from testkit.ssh import PtyClient, new_key, run_command
from tests.test_net_saved_state import v0_database
from tui.apps.replay import GameListScreen, ListedGame, ReplayApp, ReplayGame, ReplayScreen
from tui.settings import Settings


def game_record(rules: str = "gejiu", seed: int = 5, hands: int = 2) -> tuple[str, list[str]]:
    """A game computer players play: its whole record, and each hand's block."""
    game = Game(rules, seed, {"hands_per_game": hands})
    players = [BasicPlayer() for _ in range(4)]
    blocks = []
    while not game.is_over:
        hand = game.new_hand()
        play_hand(hand, players)
        game.finish_hand()
        blocks.append(dumps(hand_lines(hand)))
    head = dumps([{"type": "game", "rules": rules, "seed": seed}])
    return head + "".join(blocks), blocks


def flushed(store: Store) -> Store:
    assert store.flush(30)
    return store


def row(name: str) -> TableRow:
    return TableRow(name, "gejiu", {}, SavedTable(seats=(None,) * 4, game_seed=5, game_no=1))


# --- the ID -----------------------------------------------------------------------------------
def test_game_ids_are_short_unambiguous_and_read_back_however_typed() -> None:
    ids = {new_game_id() for _ in range(500)}
    assert len(ids) == 500  # no repeats: 31**8 of them
    for game_id in ids:
        assert len(game_id) == LENGTH and set(game_id) <= set(ALPHABET)
        shown = shown_game_id(game_id)
        assert shown == f"{game_id[:4]}-{game_id[4:]}"
        assert parse_game_id(shown) == parse_game_id(shown.upper()) == game_id
        assert parse_game_id(shown.replace("-", " ")) == game_id
    assert not set("01ilo") & set(ALPHABET)
    for bad in ("", "abc", "k7m2-x9q", "k7m2-x9qdd", "k7m2-x9q0", "k7m2-x9ql", "a" * 100):
        assert parse_game_id(bad) is None


# --- the store, on both backends --------------------------------------------------------------
def test_a_kept_game_is_found_by_its_id_and_listed_for_its_players(any_store: Store) -> None:
    ann = any_store.account_for_key("SHA256:ann", "ann")
    bob = any_store.account_for_key("SHA256:bob", "bob")
    record, blocks = game_record()
    head = record[:record.index("\n") + 1]
    any_store.save_table(row("t1"))
    for n, block in enumerate(blocks, 1):
        any_store.finish_hand("t1", 1, n, block)
    any_store.keep_game("t1", 1, 2, "abcd2345", "gejiu", head, [(ann.id, 0, 12), (bob.id, 2, -4)])
    any_store.save_table(row("t2"))
    any_store.finish_hand("t2", 1, 1, blocks[0])
    any_store.keep_game("t2", 1, 1, "wxyz6789", "gejiu", head, [(ann.id, 3, 5)])
    flushed(any_store)
    kept = any_store.kept_game("abcd2345")
    assert kept is not None and kept.record == record  # the game line, then hands in order
    assert (kept.table_name, kept.rules, kept.names) == ("t1", "gejiu", ("ann", "", "bob", ""))
    assert kept.finished > 0
    assert any_store.kept_game("zzzz2222") is None
    listed = any_store.games_of(ann.id)
    assert [(g.game_id, g.seat, g.score, g.hands, g.table_name) for g in listed] == [
        ("wxyz6789", 3, 5, 1, "t2"), ("abcd2345", 0, 12, 2, "t1")]  # newest first
    assert [g.game_id for g in any_store.games_of(bob.id)] == ["abcd2345"]
    assert any_store.games_of(ann.id, limit=1)[0].game_id == "wxyz6789"
    assert any_store.games_of(12345) == []


def test_a_kept_game_survives_its_tables_deletion_and_the_names_reuse(any_store: Store) -> None:
    ann = any_store.account_for_key("SHA256:ann", "ann")
    _record, blocks = game_record(hands=2)
    _other, other_blocks = game_record(seed=9, hands=1)
    any_store.save_table(row("t1"))
    for n, block in enumerate(blocks, 1):
        any_store.finish_hand("t1", 1, n, block)
    any_store.keep_game("t1", 1, 2, "abcd2345", "gejiu", "", [(ann.id, 0, 12)])
    any_store.delete_table("t1")
    # a new table of the same name: its game 1 of one hand overwrites hand 1's row
    any_store.save_table(row("t1"))
    any_store.finish_hand("t1", 1, 1, other_blocks[0])
    any_store.keep_game("t1", 1, 1, "efgh2345", "gejiu", "", [(ann.id, 1, -3)])
    flushed(any_store)
    first = any_store.kept_game("abcd2345")
    second = any_store.kept_game("efgh2345")
    assert first is not None and first.record == "".join(blocks)
    assert second is not None and second.record == other_blocks[0]  # not the old hand 2
    assert len(read_game(first.record).hands) == 2 and len(read_game(second.record).hands) == 1


def test_games_finished_before_replay_existed_get_an_id_when_the_file_migrates(
        tmp_path: Path) -> None:
    path = v0_database(tmp_path / "db.sqlite3", {})
    _record, blocks = game_record(hands=2)
    db = sqlite3.connect(path)
    for n, block in enumerate(blocks, 1):
        db.execute("INSERT INTO hands VALUES ('old', 1, ?, ?, 5)", (n, block))
    db.execute("INSERT INTO results VALUES ('old', 1, 1, 0, 7, 1, 2, 'gejiu', 5)")
    db.execute("INSERT INTO results VALUES ('old', 1, 2, 1, -7, 0, 2, 'gejiu', 5)")
    db.execute("INSERT INTO results VALUES ('gone', 1, 1, 0, 1, 0, 1, 'gejiu', 4)")  # no hands
    db.commit()
    db.close()
    store = open_store(path)
    assert store.version == STORE_VERSION
    listed = store.games_of(1)
    assert [(g.table_name, g.score, g.hands) for g in listed] == [("old", 7, 2)]
    kept = store.kept_game(listed[0].game_id)
    assert kept is not None and kept.record == "".join(blocks)
    assert kept.names == ("ann", "bob", "", "")
    store.close()


# --- the engine: step by step -----------------------------------------------------------------
def test_a_hand_rebuilt_at_any_move_is_the_hand_as_it_was_played() -> None:
    record, _blocks = game_record("yichun", seed=3, hands=1)
    steps = read_game(record)
    hand = steps.hands[0]
    assert hand.moves > 10 and steps.problems == ()
    at_end = hand.at(hand.moves)
    assert at_end.is_over and at_end.settlement is not None
    mid = [list(st.concealed) for st in hand.at(7).seats]
    hand.at(hand.moves)
    assert [list(st.concealed) for st in hand.at(7).seats] == mid  # backwards: rebuilt
    assert not hand.at(7).is_over and len(hand.at(7).actions) == 7
    assert len(hand.at(-5).actions) == 0 and len(hand.at(10**6).actions) == hand.moves


def test_only_finished_readable_records_are_viewed() -> None:
    _record, blocks = game_record(hands=1)
    unfinished = "".join(line + "\n" for line in blocks[0].splitlines()[:-2])  # a live hand
    with pytest.raises(RecordError, match="not finished"):
        read_game(unfinished)
    with pytest.raises(RecordError, match="no hand"):
        read_game('{"type": "game", "rules": "gejiu", "seed": 1}\n')
    with pytest.raises(RecordError, match="line 1: not JSON"):
        read_game("{oops\n")
    edited = blocks[0].replace('"result"', '"resultat"')
    with pytest.raises(RecordError, match="unknown line type"):
        read_game(edited)


# --- the viewer -------------------------------------------------------------------------------
def viewer_app(lang: str = "en", tiles: str = "ascii", hands: int = 2) -> ReplayApp:
    record, _blocks = game_record("gejiu", seed=5, hands=hands)
    settings = Settings()
    settings.lang, settings.tiles = lang, tiles
    return ReplayApp(ReplayGame(read_game(record), ("ann", "", "bob", ""), "abcd-2345"),
                     settings)


def body(screen: ReplayScreen) -> str:
    from tui.view.result_text import lines_content

    return "\n".join(lines_content([x]).plain for x in screen.body_lines(78))


async def test_the_viewer_steps_moves_hands_and_seats() -> None:
    app = viewer_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert (screen.hand_index, screen.move, screen.seat) == (0, 0, 0)
        assert "(the deal: no move yet)" in body(screen)
        await pilot.press("right", "right", "right")
        assert screen.move == 3
        await pilot.press("left")
        assert screen.move == 2 and "move 2/" in screen.title_text()
        await pilot.press("end")
        assert screen.move == screen.steps.moves
        assert "Hand 1 result" in body(screen)  # the last move: the settlement
        await pilot.press("right")
        assert screen.move == screen.steps.moves  # no further
        await pilot.press("home")
        assert screen.move == 0
        await pilot.press("1", "2", "enter")
        assert screen.move == 12 and "Hand 1 result" not in body(screen)
        await pilot.press("9", "9", "9", "9", "enter")
        assert screen.move == screen.steps.moves
        await pilot.press("4", "escape")  # cancels the digits, stays
        assert screen.typed == "" and app.screen is screen
        await pilot.press("pagedown")
        assert (screen.hand_index, screen.move) == (1, 0) and "hand 2/2" in screen.title_text()
        await pilot.press("pagedown")
        assert screen.hand_index == 1
        await pilot.press("left_square_bracket")
        assert screen.hand_index == 0
        await pilot.press("right_square_bracket")
        assert screen.hand_index == 1
        await pilot.press("tab")
        assert screen.seat == 1 and "seen from S computer" in screen.title_text()
        await pilot.press("tab", "tab", "tab")
        assert screen.seat == 0
        await pilot.press("shift+tab")
        assert screen.seat == 3
        await pilot.press("q")
    assert app.return_value is None


async def test_every_hand_is_open_from_any_seat() -> None:
    app = viewer_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("5")
        await pilot.press("enter")
        hand = screen.steps.at(5)
        from tui.view.faces import Face, small

        for _viewer in range(4):
            text = body(screen)
            for st in hand.seats:  # each seat's concealed tiles are drawn, whoever looks
                kinds = sorted(t // 4 for t in st.concealed
                               if not (t == hand.drawn and hand.current is not None
                                       and st is hand.seats[hand.current]))
                assert " ".join(small(k, Face.ASCII) for k in kinds) in text
            await pilot.press("tab")
        assert screen.seat == 0


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_viewer_speaks_both_languages_and_fits_80_by_24(lang: str) -> None:
    app = viewer_app(lang, tiles="cjk")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("right", "right", "right", "right", "right", "right")
        if lang == "zh":
            assert "重看" in screen.title_text() and "第1/2盘" in screen.title_text()
            assert "行牌记录" in body(screen) and "换视角" in screen.keys_text()
        else:
            assert "Replay" in screen.title_text() and "Moves" in body(screen)
            assert "Tab seat" in screen.keys_text()
        shot = app.export_screenshot()
        assert "abcd-2345" in shot
        for widget_id in ("#rp-title", "#rp-body", "#rp-keys"):
            region = screen.query_one(widget_id).region
            assert region.right <= 80 and region.bottom <= 24 and region.height >= 1
        # the table itself, without scrolling, in the body's rows: the four seats at least
        assert screen.query_one("#rp-body").region.height >= 18
        from tui.view.result_text import lines_content

        for line in screen.body_lines(76):
            assert lines_content([line]).cell_length <= 76
        await pilot.press("end")
        assert ("第1盘结果" if lang == "zh" else "Hand 1 result") in body(screen)


async def test_the_list_opens_the_game_chosen() -> None:
    games = [ListedGame("abcd2345", 1_700_000_000.0, "gejiu", "t1", 0, 12, 2),
             ListedGame("wxyz6789", 1_690_000_000.0, "yichun", "t2", 2, -4, 1)]
    app = ReplayApp(None, Settings(), games)
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, GameListScreen)
        options = app.screen.query_one(OptionList)
        assert options.option_count == 2
        assert "abcd-2345" in str(options.get_option_at_index(0).prompt)
        await pilot.press("down", "enter")
    assert app.return_value == "wxyz6789"
    empty = ReplayApp(None, Settings(), [])
    async with empty.run_test(size=(80, 24)) as pilot:
        assert "No finished game yet" in str(empty.screen.query_one("#rp-list-none").render())
        await pilot.press("q")
    assert empty.return_value is None


# --- the command line -------------------------------------------------------------------------
def test_replay_view_refuses_bad_files_in_one_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    cases = {
        "missing.jsonl": None,
        "corrupt.jsonl": "{not json\n",
        "binary.jsonl": b"\xff\xfe\x00garbage",
        "empty.jsonl": "",
        "deep.jsonl": "[" * 100_000 + "\n",
    }
    _record, blocks = game_record(hands=1)
    cases["unfinished.jsonl"] = "".join(x + "\n" for x in blocks[0].splitlines()[:-2])
    cases["illegal.jsonl"] = blocks[0].replace('"a": "discard"', '"a": "peng"', 1)
    for name, content in cases.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif content is not None:
            path.write_text(content, encoding="utf-8")
        status = main(["replay", str(path), "--view"])
        err = capsys.readouterr().err
        assert status in (1, 2), name
        assert err.startswith("error: ") and err.count("\n") == 1, (name, err)
        assert "Traceback" not in err


def test_replay_view_opens_a_good_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record, _blocks = game_record(hands=1)
    head = {"type": "game", "rules": "gejiu", "seed": 5, "id": "abcd2345",
            "names": ["ann", "\x1b[2Jevil", 3, ""]}
    record = json.dumps(head) + "\n" + record
    path = tmp_path / "game.jsonl"
    path.write_text(record, encoding="utf-8")
    monkeypatch.setenv("MAHJONG_SSH_CONFIG_DIR", str(tmp_path))
    opened: list[ReplayGame] = []

    def run(self: ReplayApp) -> None:  # the app itself is driven by the Pilot tests above
        assert self.game is not None
        opened.append(self.game)

    monkeypatch.setattr(ReplayApp, "run", run)
    assert main(["replay", str(path), "--view", "--lang", "zh"]) == 0
    assert opened and opened[0].label == "abcd-2345" and len(opened[0].steps.hands) == 1
    assert opened[0].names == ("ann", "[2Jevil", "", "")  # no escape reaches the terminal
    path.write_text(record.split("\n", 1)[1], encoding="utf-8")  # no game line: the file's name
    assert main(["replay", str(path), "--view"]) == 0
    assert opened[1].label == "game.jsonl" and opened[1].names == ("", "", "", "")


def test_a_postgresql_database_of_version_1_keeps_its_finished_games(pg_url: str) -> None:
    store = open_store(pg_url)
    ann = store.account_for_key("SHA256:ann", "ann")
    _record, blocks = game_record(hands=1)
    store.finish_hand("old", 1, 1, blocks[0])
    store.finish_game("old", 1, "gejiu", [(ann.id, 2, 9, 1, 1)])
    flushed(store)
    store.close()
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as db:  # as a version 1 server left it
        db.execute("DROP TABLE games")
        db.execute("DROP TABLE game_players")
        db.execute("UPDATE store_meta SET value = 1 WHERE key = 'version'")
    again = open_store(pg_url)
    listed = again.games_of(ann.id)
    assert [(g.table_name, g.seat, g.score) for g in listed] == [("old", 2, 9)]
    kept = again.kept_game(listed[0].game_id)
    assert kept is not None and kept.record == blocks[0] and kept.names[2] == "ann"
    again.close()


# --- over SSH ---------------------------------------------------------------------------------
async def run_eof(port: int, username: str, command: str,
                  key: asyncssh.SSHKey) -> asyncssh.SSHCompletedProcess:
    """``ssh HOST COMMAND < /dev/null``: the client's EOF comes before the answer."""
    async with asyncssh.connect("127.0.0.1", port, username=username, known_hosts=None,
                                client_keys=[key], agent_path=None) as conn:
        return await asyncio.wait_for(conn.run(command, input="", check=False), 10)


async def test_a_friend_replays_a_game_by_its_id_over_ssh(server: MahjongServer) -> None:
    """One player plays a one-hand game with computer players; its ID is on the game-over
    screen; his list has it; a friend (another key) opens it by its ID and steps through;
    an unknown or mistyped ID is refused with status 2."""
    from tests.support.waiting import until
    from tests.test_net import join, play_by_keys

    ann_key, bob_key = new_key(), new_key()
    c = await join(server, "ann", ann_key, "join r1 --rules gejiu --option hands_per_game=1")
    await c.wait_for("press S")
    c.send("s")
    await c.wait_for("个旧")
    t = server.registry.tables["r1"]
    seat = t.seats.index(next(s for s in t.seats if s.clients))
    await play_by_keys(t, {seat: c})
    await c.wait_for("Enter: game result")
    c.send("\r")
    screen = await c.wait_for("Game ID")
    await until(lambda: bool(t.game_id), 5.0, "the game's ID")
    shown = shown_game_id(t.game_id)
    assert f"ssh … replay {shown}" in screen
    await c.close()
    assert server.store.flush(10)

    listing = await run_eof(server.port, "ann", "replay", ann_key)  # no PTY: text
    assert listing.exit_status == 0 and shown in str(listing.stdout)
    assert "r1" in str(listing.stdout) and "个旧" in str(listing.stdout)
    record = await run_eof(server.port, "bob", f"replay {shown}", bob_key)
    assert record.exit_status == 0
    exported = read_game(str(record.stdout))  # the record, for --view
    assert len(exported.hands) == 1 and exported.game["names"][seat] == "ann"
    assert exported.game["id"] == t.game_id

    lst = PtyClient(80, 24)
    await lst.connect(server.port, "ann", ann_key, command="replay")
    await lst.wait_for(shown)
    lst.send("\r")  # the only game, highlighted
    await lst.wait_for("Replay")
    await lst.close()

    friend = PtyClient(80, 24)
    await friend.connect(server.port, "bob", bob_key, command=f"replay {shown.upper()}")
    text = await friend.wait_for("move 0/")
    assert "seen from E" in text and "ann" in text
    friend.send("\x1b[C")  # →
    await friend.wait_for("move 1/")
    friend.send("\x1b[F")  # End
    await friend.wait_for("Hand 1 result")
    friend.send("\t")
    await friend.wait_for("seen from S")
    friend.send("q")
    await asyncio.wait_for(friend.closed.wait(), 10)
    assert friend.exit_status == 0
    await friend.close()

    unknown = await run_command(server.port, "bob", "replay zzzz-zzzz", bob_key)
    assert unknown.exit_status == 2 and "no finished game" in str(unknown.stdout)
    typo = await run_command(server.port, "bob", "replay 12345", bob_key)
    assert typo.exit_status == 2 and "not a game ID" in str(typo.stdout)
    pty_unknown = PtyClient(80, 24)
    await pty_unknown.connect(server.port, "bob", bob_key, command="replay zzzz-zzzz")
    await asyncio.wait_for(pty_unknown.closed.wait(), 10)
    assert pty_unknown.exit_status == 2 and "no finished game" in pty_unknown.text()
    await pty_unknown.close()
    empty = await run_command(server.port, "bob", "replay", bob_key)
    assert empty.exit_status == 0 and "No finished game yet" in str(empty.stdout)


@pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH's ssh is not installed")
async def test_openssh_without_a_terminal_gets_the_list_after_its_eof(
        server: MahjongServer, tmp_path: Path) -> None:
    """OpenSSH sends its EOF (stdin: /dev/null) with the command, before the answer is read
    from the store: the channel must stay open for it."""
    key = new_key()
    key_file = tmp_path / "id_ed25519"
    key_file.write_bytes(key.export_private_key())
    key_file.chmod(0o600)
    for command, status, says in (("replay", 0, "No finished game yet"),
                                  ("replay zzzz-2222", 2, "no finished game")):
        proc = await asyncio.create_subprocess_exec(
            "ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o",
            "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-i", str(key_file),
            "-p", str(server.port), "cy@127.0.0.1", command,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        out, _err = await asyncio.wait_for(proc.communicate(), 20)
        assert proc.returncode == status and says in out.decode()


async def test_each_hands_settlement_shows_the_running_totals_after_it() -> None:
    record, _blocks = game_record("gejiu", seed=5, hands=2)
    steps = read_game(record)
    game = Game("gejiu", 5, {"hands_per_game": 2})
    players = [BasicPlayer() for _ in range(4)]
    after: list[list[int]] = []
    while not game.is_over:
        play_hand(game.new_hand(), players)
        game.finish_hand()
        after.append(list(game.scores))
    assert any(any(t) for t in after)  # a game whose totals are not all zero
    app = ReplayApp(ReplayGame(steps, ("ann", "", "bob", ""), "abcd-2345"), Settings())
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        for index, totals in enumerate(after):
            screen.hand_index = index
            await pilot.press("end")
            text = body(screen)
            rows = [line for line in text.splitlines() if "   →  " in line]
            assert [int(line.rsplit(None, 1)[1]) for line in rows] == totals, text
