"""Tournaments for a club (issue 56): a set start (``--at``), private ones with invitations,
computers entered by the host, a round's games and other tables kept from its entrants until
the round is over, and an operator's close of a round's table that the round survives."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import asyncssh
import psycopg
import pytest

from engine.tournament import (
    FINISHED,
    OPEN,
    RUNNING,
    Entry,
    Tournament,
    TournamentError,
    parse_start,
)
from host.clock import ManualClock
from host.refusal import RefusedError
from net.commands import CommandError, parse_command
from net.front.server import MahjongServer
from net.limits import MAX_INVITES, TOURNAMENT_START_DAYS_MAX
from net.runtime.tournaments import table_name
from net.store import STORE_VERSION, Store, open_store
from net.store.model import Account
from net.store.postgres import PG_STORE_VERSION
from net.store.sqlite_file import open_sqlite
from testkit.ssh import MakeServer, new_key, run_command
from tests.support.waiting import until
from tests.test_net import join

NOON = datetime(2026, 12, 7, 12, 0, tzinfo=UTC).timestamp()


async def run(server: MahjongServer, user: str, key: asyncssh.SSHKey,
              command: str) -> tuple[str, int]:
    r = await run_command(server.port, user, command, key)
    return str(r.stdout) + str(r.stderr), int(r.exit_status or 0)


def _iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def _club(server: MahjongServer, name: str = "club") -> Tournament:
    return server.registry.tournaments.by_name[name]


# --- the command line ------------------------------------------------------------------------
def test_a_set_start_is_hh_mm_utc_or_iso_8601_with_its_offset() -> None:
    assert parse_start("13:30", NOON) == NOON + 5400  # the next 13:30 UTC: today
    assert parse_start("11:30", NOON) == NOON + 86400 - 1800  # past today: tomorrow's
    assert parse_start("12:00", NOON) == NOON + 86400
    assert parse_start("2026-12-07T21:00+08:00", NOON) == NOON + 3600
    assert parse_start("2026-12-07T13:00Z", NOON) == NOON + 3600
    for bad, code in (("2026-12-07T13:00", "tournament_at_bad"),  # whose 13:00?
                      ("25:00", "tournament_at_bad"), ("noon", "tournament_at_bad"),
                      ("2026-12-07T11:00Z", "tournament_at_past"),
                      ("2027-02-07T11:00Z", "tournament_at_far")):
        with pytest.raises(TournamentError) as exc:
            parse_start(bad, NOON + (3600 if code == "tournament_at_bad" else 0),
                        TOURNAMENT_START_DAYS_MAX * 86400)
        assert exc.value.code == code, bad


def test_the_club_commands_are_read_and_bounded() -> None:
    c = parse_command("tournament new club --rounds 3 --at 19:30 --private --invite bob,cy")
    assert c.starts == "19:30" and c.private is not None
    assert c.private.invited == ("bob", "cy")
    assert parse_command("tournament add club hard").words == ("add", "hard")
    assert parse_command("tournament invite club dee,eve").words == ("invite", "dee", "eve")
    many = ",".join(f"p{i}" for i in range(MAX_INVITES + 1))
    for bad in ("tournament new club --rounds 2 --at 25:00",
                "tournament new club --rounds 2 --at 2026-12-24T19:30",  # no offset
                "tournament new club --rounds 2 --at",
                "tournament new club --rounds 2 --invite bob",  # not --private
                f"tournament new club --rounds 2 --private --invite {many}",
                "tournament add club", "tournament add club genius",
                "tournament add club hard easy", "tournament invite club",
                "tournament invite club 'a[b'"):
        with pytest.raises(CommandError) as exc:
            parse_command(bad)
        assert exc.value.shown, bad


# --- 1. a set start --------------------------------------------------------------------------
async def test_a_set_start_starts_it_then_and_is_kept_across_a_restart(
        make_server: MakeServer) -> None:
    clock = ManualClock()
    server = await make_server(clock=clock, grace_seconds=600.0)
    ann = new_key()
    at = clock.wall() + 3600
    text, status = await run(server, "ann", ann, f"tournament new early --rounds 1 --at "
                             f"{_iso(clock.wall() - 60)}")
    assert status == 1 and "--at: that time has passed" in text, text
    text, status = await run(server, "ann", ann, "tournament new far --rounds 1 --at "
                             f"{_iso(clock.wall() + (TOURNAMENT_START_DAYS_MAX + 1) * 86400)}")
    assert status == 1 and f"at most {TOURNAMENT_START_DAYS_MAX} days ahead" in text, text
    text, status = await run(server, "ann", ann, f"tournament new club --rounds 1 --at {_iso(at)}")
    when = datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")
    assert status == 0 and f"starts {when}" in text, text
    text, status = await run(server, "ann", ann, f"tournament new few --rounds 1 --at {_iso(at)}")
    assert status == 0, text
    for name in ("ann", "bob", "cy", "dee"):
        key = ann if name == "ann" else new_key()
        _, status = await run(server, name, key, "tournament join club")
        assert status == 0
    _, status = await run(server, "ann", ann, "tournament join few")
    assert status == 0
    text, _ = await run(server, "zed", new_key(), "tournament club")
    assert f"open for entries, starts {when}" in text, text
    lobby = await join(server, "zed", new_key(), "lobby --plain")
    try:
        await lobby.wait_for(f"club (open for entries, starts {when}")
    finally:
        await lobby.close()
    # kept: a server on the same data after a restart starts it at its time
    await server.close()
    clock = ManualClock()
    server = await make_server(clock=clock, grace_seconds=600.0)
    assert _club(server).starts_at == pytest.approx(at) and _club(server).state == OPEN
    await clock.advance(at - clock.wall() - 5)
    assert _club(server).state == OPEN  # not yet
    await clock.advance(10)
    await until(lambda: _club(server).state == RUNNING, 10.0, "the set start")
    assert len(_club(server).played[0].tables) == 1
    # one entry: it stays open past its time, and says why
    few = _club(server, "few")
    assert few.state == OPEN
    text, _ = await run(server, "zed", new_key(), "tournament few")
    assert f"its start {when} came with fewer than four entries: its host starts it" in text


# --- 2. private -------------------------------------------------------------------------------
async def test_a_private_one_admits_its_host_and_the_invited(server: MahjongServer) -> None:
    keys = {name: new_key() for name in ("ann", "bob", "cy", "dee")}
    for name in ("bob", "cy"):  # an invitation names an account that keeps its name
        assert (await run(server, name, keys[name], "tournament"))[1] == 0
    text, status = await run(server, "ann", keys["ann"],
                             "tournament new club --rounds 1 --private --invite bob")
    assert status == 0, text
    for name in ("ann", "bob"):
        text, status = await run(server, name, keys[name], "tournament join club")
        assert status == 0, text
    text, status = await run(server, "cy", keys["cy"], "tournament join club")
    assert status == 1 and "tournament club is private: only its host ann and those invited " \
        "enter" in text, text
    text, status = await run(server, "bob", keys["bob"], "tournament invite club cy")
    assert status == 1 and "only the host of tournament club adds computers and invites" in text
    # listed as a private table is, with its mark; whom it invites is not shown to others
    text, _ = await run(server, "zed", new_key(), "tournament")
    assert "club: " in text and "私 private" in text, text
    text, _ = await run(server, "zed", new_key(), "tournament club --json")
    assert "invited" not in json.loads(text) and json.loads(text)["private"] is True
    # its host invites one more: a key's fingerprint too
    fingerprint = keys["dee"].get_fingerprint()
    text, status = await run(server, "ann", keys["ann"], f"tournament invite club cy,{fingerprint}")
    assert status == 0 and "Tournament club invites: bob, cy, SHA256:" in text, text
    for name in ("cy", "dee"):
        text, status = await run(server, name, keys[name], "tournament join club")
        assert status == 0, text
    assert [e.name for e in _club(server).entries] == ["ann", "bob", "cy", "dee"]
    # a name nobody keeps yet admits nobody (as at a private table): invited again once kept
    eve = new_key()
    text, status = await run(server, "ann", keys["ann"], "tournament invite club eve")
    assert status == 0 and "nobody keeps the name eve here" in text, text
    text, status = await run(server, "eve", eve, "tournament join club")
    assert status == 1 and "is private" in text, text
    text, status = await run(server, "ann", keys["ann"], "tournament invite club eve")
    assert status == 0 and "nobody keeps" not in text, text
    assert len(_club(server).invited) == 4  # bob, cy, dee's key, eve: the stale one replaced
    text, status = await run(server, "eve", eve, "tournament join club")
    assert status == 0, text
    text, status = await run(server, "ann", keys["ann"], "tournament new open --rounds 1")
    text, status = await run(server, "ann", keys["ann"], "tournament invite open bob")
    assert status == 1 and "tournament open is not private" in text, text


# --- 3. computers entered ---------------------------------------------------------------------
async def test_its_host_enters_computers_marked_in_the_standings(
        server: MahjongServer, monkeypatch: pytest.MonkeyPatch) -> None:
    ann, bob = new_key(), new_key()
    assert (await run(server, "ann", ann, "tournament new club --rounds 1 --option "
                      "hands_per_game=1"))[1] == 0
    text, status = await run(server, "bob", bob, "tournament add club hard")
    assert status == 1 and "only the host of tournament club" in text, text
    for level in ("hard", "easy", "expert"):
        text, status = await run(server, "ann", ann, f"tournament add club {level}")
        assert status == 0, text
    assert "expert 3 entered in tournament club (entries: 3)" in text, text
    monkeypatch.setattr("net.runtime.tournaments.TOURNAMENT_ENTRIES_MAX", 4)
    assert (await run(server, "bob", bob, "tournament join club"))[1] == 0
    text, status = await run(server, "ann", ann, "tournament add club normal")
    assert status == 1 and "is full (entries: 4)" in text, text
    monkeypatch.undo()
    text, _ = await run(server, "zed", new_key(), "tournament club")
    for name in ("hard 1", "easy 2", "expert 3"):
        assert f"{name} (computer)（电脑）" in text, text
    assert "bob (computer)" not in text
    _, status = await run(server, "ann", ann, "tournament start club")
    assert status == 0
    text, status = await run(server, "ann", ann, "tournament add club easy")
    assert status == 1 and "it takes no more entries" in text, text
    t = _club(server)
    await until(lambda: t.state == FINISHED, 120.0, "the tournament's end")
    assert {s.name for s in t.standings() if s.level is not None} == {"hard 1", "easy 2",
                                                                     "expert 3"}


# --- 4 and 5. a round's games kept back; an operator closes a round's table -------------------
async def test_a_rounds_games_wait_for_the_round_and_a_closed_table_counts(
        make_server: MakeServer, tmp_path: Path) -> None:
    op, ann, zed = new_key(), new_key(), new_key()
    ops = tmp_path / "operators"
    ops.write_text(op.export_public_key().decode())
    # ann's seat waits for her (no timer, no computer for 10 min): her table waits
    server = await make_server(operators_path=ops, grace_seconds=600.0)
    assert (await run(server, "ann", ann, "tournament new club --rounds 2 --duplicate "
                      "--option hands_per_game=1 --option turn_seconds=0"))[1] == 0
    assert (await run(server, "ann", ann, "tournament join club"))[1] == 0
    for _ in range(7):
        assert (await run(server, "ann", ann, "tournament add club easy"))[1] == 0
    assert (await run(server, "ann", ann, "tournament start club"))[1] == 0
    t = _club(server)
    round1 = t.played[0]
    (hers,) = [rt for rt in round1.tables if any(s.name == "ann" for s in rt.seats)]
    (theirs,) = [rt for rt in round1.tables if rt is not hers]
    await until(lambda: theirs.no in round1.results, 60.0, "the computers' table's end")
    game_id = round1.results[theirs.no].game_id
    assert len(game_id) == 8 and not round1.over
    store = server.registry.store
    assert store is not None and store.flush(10)
    # its replay waits for the round: for anyone, its own players too
    for name, key in (("zed", zed), ("ann", ann)):
        text, status = await run(server, name, key, f"replay {game_id}")
        assert status == 2 and "game of tournament club's round 1: it opens when every table " \
            "of the round has played" in text, text
    for command in (f"puzzles {game_id} --plain", f"review {game_id}", f"puzzles {game_id}"):
        refused = await join(server, "ann", ann, command, width=200)
        await until(lambda r=refused: r.closed.is_set(), 10.0, f"{command} refused")
        assert "it opens when every table of the round has played" in refused.text(), command
        await refused.close()
    # an entrant watches no other table of the round; anyone else may
    other = table_name("club", 1, theirs.no)
    assert other in server.registry.tables  # kept a while after its game, as any table
    watching = await join(server, "ann", ann, f"watch {other} --plain", width=200)
    await until(lambda: watching.closed.is_set(), 10.0, "the watch refused")
    assert "you play in tournament club: its other tables of round 1 are watched once " \
        "the round is over" in watching.text(), watching.text()
    await watching.close()
    stranger = await join(server, "zed", zed, f"watch {other} --plain")
    await stranger.wait_for("Game ID")  # its game (over), told to a stranger
    assert not stranger.closed.is_set()
    await stranger.close()
    # her table: she cannot close it (it has no host); the operator can, and the round goes on
    name = table_name("club", 1, hers.no)
    with pytest.raises(RefusedError):
        server.registry.close_table(name, Account(t.host, "ann", None))
    r = await run_command(server.port, "boss", f"close {name}", op)
    assert r.exit_status == 0, r.stdout
    await until(lambda: round1.over, 10.0, "the closed table counted")
    result = round1.results[hers.no]
    assert result.closed and len(result.nets) == 0  # no hand finished there
    assert len(t.played) == 2  # the next round seated
    text, _ = await run(server, "zed", zed, "tournament club")
    assert "closed by the operator after 0 hands" in text, text
    # the round over: its games open as any game's
    text, status = await run(server, "zed", zed, f"replay {game_id}")
    assert status == 0 and '"type": "game"' in text, text
    await run(server, "ann", ann, "tournament")  # she never came: the host's absence stops nothing
    await until(lambda: t.state == FINISHED or len(t.played[1].results) > 0, 120.0,
                "round 2 playing")


# --- the store: the set start, privacy and invitations (tournaments.setup) ---------------------
def _set_up() -> Tournament:
    t = Tournament("club", "gejiu", 2, host=1, seed=7, starts_at=NOON + 0.5, private=True,
                   invited=("bob 2", "SHA256:" + "x" * 43))
    t.join(Entry(1, "ann"))
    t.add_computer("expert")
    return t


def test_the_setup_is_kept(any_store: Store) -> None:
    t = _set_up()
    assert any_store.save_tournament(t) and any_store.flush(10)
    (back,) = any_store.load_tournaments()
    assert back == t and back.entries[1] == Entry(-1, "expert 1", "expert")
    t.invited += ("cy 3",)
    t.starts_at = None
    assert any_store.save_tournament(t) and any_store.flush(10)
    assert any_store.load_tournaments() == [t]


def test_older_databases_are_given_the_setup(tmp_path: Path,
                                             request: pytest.FixtureRequest) -> None:
    path = tmp_path / "old.db"
    open_sqlite(path).close()
    db = sqlite3.connect(path)  # the file as the version before left it
    db.executescript("ALTER TABLE tournaments DROP COLUMN setup; "
                     f"PRAGMA user_version = {STORE_VERSION - 1};")
    db.close()
    store = open_sqlite(path)
    assert store.version == STORE_VERSION == 10
    t = _set_up()
    assert store.save_tournament(t) and store.load_tournaments() == [t]
    store.close()
    url = request.getfixturevalue("pg_url")
    open_store(url).close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ALTER TABLE tournaments DROP COLUMN setup; "
                     f"UPDATE store_meta SET value = {PG_STORE_VERSION - 1} "
                     "WHERE key = 'version'")
    pg = open_store(url)
    try:
        assert pg.version == PG_STORE_VERSION == 9
        assert pg.save_tournament(t) and pg.flush(10) and pg.load_tournaments() == [t]
    finally:
        pg.close()


def test_the_players_guide_states_the_club_limits_as_they_are() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "playing.md").read_text("utf-8")
    section = text.split("## Tournaments", 1)[1].split("\n## ", 1)[0]
    assert f"at most {TOURNAMENT_START_DAYS_MAX} days ahead" in section
    assert f"(at most {MAX_INVITES} in all" in section
