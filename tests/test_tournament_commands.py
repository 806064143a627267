"""``ssh HOST tournament …`` (issue 56, layer 3): made, joined once per key, started by its
host with four entries at least, shown (standings, round, tables) and as JSON without the
seeds of a round not over; bounded names, options and rounds; kept across a restart."""

from __future__ import annotations

import json
from pathlib import Path

import asyncssh
import pytest

from engine.tournament import Entry, TableResult, Tournament
from net.commands import Command, CommandError, parse_command
from net.front.server import MahjongServer
from net.front.tournaments import shown
from net.limits import (
    TOURNAMENT_ENTRIES_MAX,
    TOURNAMENT_NAME_CELLS,
    TOURNAMENT_ROUND_MINUTES_MAX,
    TOURNAMENT_ROUNDS_MAX,
    TOURNAMENTS_OPEN_MAX,
    TOURNAMENTS_PER_ACCOUNT,
)
from net.runtime.registry import TableQuarantined
from testkit.ssh import MakeServer, new_key, run_command
from tests.test_net import join


async def run(server: MahjongServer, user: str, key: asyncssh.SSHKey,
              command: str) -> tuple[str, int]:
    r = await run_command(server.port, user, command, key)
    return str(r.stdout) + str(r.stderr), int(r.exit_status or 0)


def test_the_command_line_is_read_and_bounded() -> None:
    c = parse_command("tournament new club --rules gejiu --option hands_per_game=4 "
                      "--rounds 3 --duplicate")
    assert c == Command("tournament", "club", "gejiu", (("hands_per_game", 4),),
                        words=("new",), rounds=3, duplicate=True)
    assert parse_command("tournament") == Command("tournament", words=("list",))
    assert parse_command("tournament club --json").as_json
    assert parse_command("tournament join club").words == ("join",)
    assert parse_command("tournament start club").words == ("start",)
    for bad in ("tournament new club", "tournament new club --rounds 0",
                "tournament new club --rounds 21", "tournament new club --rounds x",
                "tournament new 'a b' --rounds 2", "tournament new club --rounds 2 --bots x",
                "tournament new club --rounds 2 --option hands_per_game=0",
                "tournament new club --rounds 2 --rules mahjong", "tournament join",
                "tournament join club extra", "tournament club --yaml",
                "tournament new " + "x" * 40 + " --rounds 2"):
        with pytest.raises(CommandError) as exc:
            parse_command(bad)
        assert exc.value.shown, bad


async def test_made_joined_started_and_shown(make_server: MakeServer) -> None:
    server = await make_server()
    keys = {name: new_key() for name in ("ann", "bob", "cy", "dee", "eve")}
    text, status = await run(server, "ann", keys["ann"],
                             "tournament new club --rules yichun --rounds 2 --duplicate")
    assert status == 0 and "Tournament club made" in text, text
    assert "比赛 club 已创建（宜春 Yichun，轮数：2，复式）" in text, text  # each language's words
    text, status = await run(server, "ann", keys["ann"], "tournament new club --rounds 2")
    assert status == 1 and "there is a tournament club already" in text, text
    for name in ("ann", "bob", "cy"):
        text, status = await run(server, name, keys[name], "tournament join club")
        assert status == 0 and "You are in tournament club" in text, text
    text, status = await run(server, "bob", keys["bob"], "tournament join club")
    assert status == 1 and "you are in tournament club already" in text, text
    # three entries: not started; not by another than its host
    text, status = await run(server, "ann", keys["ann"], "tournament start club")
    assert status == 1 and "four entries at least" in text, text
    text, status = await run(server, "dee", keys["dee"], "tournament join club")
    assert status == 0
    text, status = await run(server, "bob", keys["bob"], "tournament start club")
    assert status == 1 and "only the host" in text, text
    text, status = await run(server, "eve", keys["eve"], "tournament join club")
    text, status = await run(server, "ann", keys["ann"], "tournament start club")
    assert status == 0 and "started: round 1, tables: 2" in text, text
    text, status = await run(server, "eve", new_key(), "tournament join club")
    assert status == 1 and "it takes no more entries" in text, text
    # shown: the head, the standings, the round's tables with a computer filling each
    text, status = await run(server, "zed", new_key(), "tournament club")
    assert status == 0, text
    assert "Tournament club: 宜春 Yichun, duplicate, playing, round 1 of 2, entries: 5" in text
    assert "host ann" in text and "Standings (duplicate score" in text, text
    assert text.count("(computer, fills the table)") == 3, text  # 5 people: 3 computers
    assert "table 1 (join club-1-1):" in text and "table 2 (join club-1-2):" in text, text
    for name in keys:
        assert name in text
    # the list, and the JSON: the whole, but no seed of a round not over
    text, status = await run(server, "zed", new_key(), "tournament")
    assert status == 0 and "club: 宜春 Yichun, duplicate, playing, entries: 5" in text, text
    text, status = await run(server, "zed", new_key(), "tournament club --json")
    data = json.loads(text)
    assert data["state"] == "running" and len(data["rounds"][0]["tables"]) == 2
    assert [e["name"] for e in data["entries"]] == ["ann", "bob", "cy", "dee", "eve"]
    assert "seed" not in data and "seed" not in data["rounds"][0]
    assert all("seed" not in t for t in data["rounds"][0]["tables"])
    text, status = await run(server, "zed", new_key(), "tournament nope")
    assert status == 1 and "no tournament nope" in text, text
    # kept: a server on the same data folder after a restart shows it the same
    await server.close()
    again = await make_server()
    text2, status = await run(again, "zed", new_key(), "tournament club --json")
    back = json.loads(text2)  # its games may have gone on meanwhile: who sits where is kept
    assert status == 0 and back["entries"] == data["entries"], text2
    assert [t["seats"] for t in back["rounds"][0]["tables"]] == [
        t["seats"] for t in data["rounds"][0]["tables"]]


async def test_a_host_has_a_few_at_once(make_server: MakeServer) -> None:
    server = await make_server()
    key = new_key()
    for i in range(3):
        _, status = await run(server, "ann", key, f"tournament new t{i} --rounds 1")
        assert status == 0
    text, status = await run(server, "ann", key, "tournament new t3 --rounds 1")
    assert status == 1 and "the most tournaments not finished you may (3)" in text, text


async def test_the_lobby_lists_the_tournaments_with_their_state(
        make_server: MakeServer) -> None:
    first = await make_server()
    key = new_key()
    _, status = await run(first, "ann", key, "tournament new spring --rounds 2 --duplicate")
    assert status == 0
    await first.close()
    server = await make_server()  # read with the tables at start, before any command
    plain = await join(server, "ann", key, "lobby --plain")
    try:
        text = await plain.wait_for("spring (duplicate, open for entries, round 0/2)")
        assert "Tournaments: spring" in text and "ssh … tournament" in text, text
    finally:
        await plain.close()
    drawn = await join(server, "bob", new_key(), "lobby --lang zh")
    try:
        await drawn.wait_for("spring (duplicate, open for entries, round 0/2)")
        await drawn.wait_for("spring（复式，报名中，第 0/2 轮）")
    finally:
        await drawn.close()


def test_shown_standings_and_tables_as_the_round_goes() -> None:
    t = Tournament("club", "gejiu", 2, host=1, seed=5, duplicate=True, host_name="ann")
    for i, name in enumerate(("ann", "bob", "cy", "dee", "eve"), 1):
        t.join(Entry(i, name))
    round1 = t.start()
    first = round1.tables[0]
    t.record(1, 1, TableResult(((30, -10, -10, -10),), ((0,),), "k7m2x9qd"))
    text = shown(t)
    # an ended table is not offered to join; its game's ID is kept back until the round ends
    assert "table 1: " in text and "join club-1-1" not in text and "over, game -" in text, text
    assert "k7m2x9qd" not in text, text
    assert "table 2 (join club-1-2):" in text and "playing" in text, text
    assert "seed" not in text, text
    t.record(1, 2, TableResult(((6, -2, -2, -2),), ((0,),), "p3r4s5t6"))
    text = shown(t)
    # the ID as every screen shows it, with its dash
    assert "over, game k7m2-x9qd" in text and f"seed {round1.seed}" in text, text
    assert "Round 2:" in text and "round 2 of 2" in text, text
    # the standings: east of table 1 first (+30 against +6: +24 duplicate), raw beside it
    rows = [line for line in text.splitlines() if line.strip()[:2] in ("1.", "2.", "3.")]
    assert first.seats[0].name in rows[0] and "+24" in rows[0] and "+30" in rows[0], text


def test_the_players_guide_states_the_limits_as_they_are() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "playing.md").read_text("utf-8")
    section = text.split("## Tournaments", 1)[1].split("\n## ", 1)[0]
    said = (f"at most {TOURNAMENT_NAME_CELLS} cells; 1 to {TOURNAMENT_ROUNDS_MAX} rounds; at\n"
            f"  most {TOURNAMENT_ENTRIES_MAX} entries; {TOURNAMENTS_PER_ACCOUNT} tournaments not "
            f"finished per host and {TOURNAMENTS_OPEN_MAX} on the server")
    assert said in section
    assert f"(`--minutes M`, 1 to {TOURNAMENT_ROUND_MINUTES_MAX})" in section


async def test_a_rounds_table_names_are_kept_for_it(server: MahjongServer) -> None:
    key = new_key()
    server.registry.get_or_create("spring-1-1")  # a table of that name: no tournament spring
    text, status = await run(server, "ann", key, "tournament new spring --rounds 1")
    assert status == 1 and "there is a tournament spring already" in text, text
    _, status = await run(server, "ann", key, "tournament new club --rounds 1")
    assert status == 0
    with pytest.raises(TableQuarantined) as exc:
        server.registry.get_or_create("club-2-10")
    assert "club-2-10 is the name of a tournament's table" in str(exc.value.refusal)
    assert server.registry.get_or_create("club-2") is not None  # not a round's table's name

