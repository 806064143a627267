"""Ratings over SSH: games with computer players (one hand each) rate their player against
the levels' fixed references, ``stats`` shows the ratings (SQLite, and PostgreSQL whose reads
run in a thread), and the lobby shows them beside the seated players and in its title."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.cells import cell_len

from engine import rating as elo
from net.front.lobby import LobbyApp
from net.front.trends import RATING_SECONDS, LobbyRatings, rating_title
from net.runtime.registry import Registry
from net.runtime.shared_table import TableConfig
from net.store import Account, SqliteStore
from net.store.model import ComputerSeat, Rating
from testkit.ssh import MakeServer, new_key, run_command
from tests.support.waiting import until
from tests.test_cluster import sees_its_move
from tests.test_net import join, play_by_keys


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_games_with_computers_rate_the_player_and_stats_shows_it(
        make_server: MakeServer, request: pytest.FixtureRequest, backend: str) -> None:
    config = {"db_url": request.getfixturevalue("pg_url")} if backend == "postgres" else {}
    server = await make_server(**config)
    key = new_key()
    c = await join(server, "ann", key, "join r1 --rules gejiu --option hands_per_game=1 "
                   "--bots normal,easy,hard,normal")
    await c.wait_for("press S")
    c.send("s")
    await c.wait_for("个旧")
    t = server.registry.tables["r1"]
    (seat,) = [i for i, s in enumerate(t.seats) if s.clients]
    want = elo.START
    for game_no in (1, 2):
        await until(lambda n=game_no: t.game is not None and t.game_no == n
                    and t.game.hand is not None, 5.0, f"game {game_no}")
        await c.wait_for(lambda text: "个旧" in text and "Game over" not in text)
        # with PostgreSQL a session sees a move once the store has it: keys wait for that
        await play_by_keys(t, {seat: c}, ready=sees_its_move([server], t))
        game = t.game
        assert game is not None and game.is_over
        entrants = [elo.Entrant(want, game.scores[i], game_no - 1) if i == seat else
                    elo.Entrant(elo.reference("gejiu", t.bot_levels[i]), game.scores[i],
                                fixed=True) for i in range(4)]
        want = elo.updated(entrants)[seat]
        assert server.store.flush(10)
        got = server.store.ratings("gejiu", ["ann"])["ann"]
        assert (got.games, got.rating) == (game_no, pytest.approx(want))
        if game_no == 1:
            await c.wait_for("Enter: game result")  # the hand's result is shown: Enter then
            c.send("\r")
            await c.wait_for("Game over")
            c.send("\r")  # a new game
    r = await run_command(server.port, "bob", "stats")
    out = str(r.stdout)
    assert r.exit_status == 0 and "rating" in out
    (row,) = [line for line in out.splitlines() if re.match(r"\s+1\s+ann\s", line)]
    assert row.split()[2] == elo.label(want, 2) and row.split()[3] == "2"  # 1500-ish, 2 games
    refs = elo.REFERENCE["gejiu"]
    assert (f"computer 电脑: easy {elo.shown(refs['easy'])} · normal 1500 · hard "
            f"{elo.shown(refs['hard'])} · expert {elo.shown(refs['expert'])}\n"
            "     ? provisional 暂定") in out
    assert all(cell_len(line) <= 80 for line in out.splitlines())
    lobby = await join(server, "ann", key, "lobby")  # ann still at the game's result
    await lobby.wait_for(f"your rating 等级分: 个旧 gejiu {elo.label(want, 2)}")
    await lobby.wait_for(f"{'ESWN'[seat]}:ann {elo.label(want, 2)}")
    await lobby.wait_for(f"computer 电脑: normal 1500, easy {elo.shown(refs['easy'])}, "
                         f"hard {elo.shown(refs['hard'])}, normal 1500")
    await c.close()  # leaving a finished game frees the seat (nobody else asked for another)
    await lobby.wait_for(lambda text: "E:- S:- W:- N:-" in text)
    await lobby.close()


def test_the_lobby_shows_seated_ratings_the_computers_and_ones_own(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db.sqlite3")
    ann = store.account_for_key("SHA256:a", "ann")
    bob = store.account_for_key("SHA256:b", "bob")
    guest = store.guest_account("visitor")
    refs = elo.REFERENCE["shangrao"]
    store.finish_game("old", 1, "shangrao", [(ann.id, 0, 20, 1, 4), (bob.id, 1, -20, 0, 4)],
                      [ComputerSeat(2, 0, refs["hard"]), ComputerSeat(3, 0, refs["hard"])],
                      seed=4)
    reg = Registry(TableConfig())
    t = reg.get_or_create("friday", "shangrao", {}, ("normal", "normal", "easy", "hard"))
    for account in (ann, bob):
        t.join(account)
    server = SimpleNamespace(registry=reg, store=store)
    now = [50.0]
    ratings = LobbyRatings(store, clock=lambda: now[0])
    app = LobbyApp(server, ann)  # type: ignore[arg-type]
    app.ratings = ratings
    app.heading()  # asks for the viewer's own
    app.tables_text()  # asks for the seated names, and reads what was asked
    assert ratings.seat("shangrao", "ann") is not None
    listing = app.tables_text().plain
    have = store.ratings("shangrao", ["ann", "bob"])
    a, b = (elo.label(have[n].rating, have[n].games) for n in ("ann", "bob"))
    assert a.endswith("?") and int(a[:-1]) > 1500 > int(b[:-1])
    assert f"E:ann {a} S:bob {b} W:- N:-" in listing
    assert (f"computer 电脑: normal 1500, normal 1500, easy {elo.shown(refs['easy'])}, "
            f"hard {elo.shown(refs['hard'])}") in listing
    assert app.heading().plain.endswith(f"your rating 等级分: 上饶 shangrao {a}")
    # a guest's lobby: no rating line (guests are not rated)
    visitor = LobbyApp(server, Account(guest.id, guest.nickname, None, guest=True))  # type: ignore[arg-type]
    assert "your rating" not in visitor.heading().plain
    # long names are shortened so that the seats stay within 80 columns
    long = reg.get_or_create("long", "shangrao")
    for name in ("wwwwwwwwwwwwwww1", "wwwwwwwwwwwwwww2", "wwwwwwwwwwwwwww3"):
        long.join(store.account_for_key(f"SHA256:{name}", name))
    store.finish_game("old", 2, "shangrao", [(store.account_for_key("SHA256:" + n, n).id, i,
                                              10 * i, 0, 4) for i, n in enumerate(
        ("wwwwwwwwwwwwwww1", "wwwwwwwwwwwwwww2", "wwwwwwwwwwwwwww3"))], seed=5)
    now[0] += RATING_SECONDS
    app.tables_text()
    assert all(cell_len(line) <= 74 for line in app.tables_text().plain.splitlines())
    assert "wwwwwww" in app.tables_text().plain and "…" in app.tables_text().plain
    reg.close()
    store.close()


def test_the_lobby_reads_ratings_at_most_every_few_seconds(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db.sqlite3")
    ann = store.account_for_key("SHA256:a", "ann")
    reads: list[str] = []
    inner = store.ratings

    def counted(rules: str, names: list[str]) -> dict[str, object]:
        reads.append(rules)
        return inner(rules, names)  # type: ignore[return-value]

    store.ratings = counted  # type: ignore[method-assign]
    now = [0.0]
    ratings = LobbyRatings(store, clock=lambda: now[0])
    assert ratings.seat("gejiu", "ann") is None
    ratings.refresh()
    assert reads == ["gejiu"] and ratings.seat("gejiu", "ann") is None  # unrated yet
    store.finish_game("t", 1, "gejiu", [(ann.id, 0, 5, 1, 4)],
                      [ComputerSeat(1, -5, elo.START)], seed=1)
    now[0] += 5
    ratings.refresh()
    assert reads == ["gejiu"]  # kept for a while
    now[0] += RATING_SECONDS  # 15 s in all: read again
    ratings.seat("gejiu", "ann")
    ratings.refresh()
    got = ratings.seat("gejiu", "ann")
    assert reads == ["gejiu", "gejiu"] and got is not None and got.games == 1
    # a name not read before is read within a second, not after the whole wait
    ratings.seat("yichun", "ann")
    now[0] += 1
    ratings.refresh()
    assert reads[-1] == "yichun" and ratings.seat("gejiu", "ann") == got  # added to, kept
    store.close()


def test_the_own_rating_line_drops_english_names_before_a_ruleset() -> None:
    """Issue 53 bug 3: every ruleset is kept while leaving out the English names makes the
    line fit; a ruleset is dropped (the least played, last) only when even that does not."""
    three = {"gejiu": Rating(1532.4, 3), "yichun": Rating(1490, 2), "shangrao": Rating(1510, 1)}
    assert rating_title(three, 200) == ("your rating 等级分: 个旧 gejiu 1532? · 宜春 yichun "
                                        "1490? · 上饶 shangrao 1510?")
    assert rating_title(three, 78) == rating_title(three, 200)
    assert rating_title(three, 77) == "your rating 等级分: 个旧 1532? · 宜春 1490? · 上饶 1510?"
    assert rating_title(three, 56) == "your rating 等级分: 个旧 1532? · 宜春 1490? · 上饶 1510?"
    assert rating_title(three, 55) == "your rating 等级分: 个旧 1532? · 宜春 1490?"
    assert rating_title(three, 30) == "your rating 等级分: 个旧 1532?"
    assert rating_title(three, 10) == ""
    for width in (200, 100, 78, 76, 60, 56, 55, 40, 30):
        assert cell_len(rating_title(three, width)) <= width


async def test_the_lobby_s_own_rating_line_uses_the_terminal_s_width(
        make_server: MakeServer) -> None:
    """Issue 53 bug 3 over SSH: three rulesets rated, the lobby's title keeps all three with
    their English names where the terminal is wide, and all three in Chinese at 80 columns."""
    server = await make_server()
    key = new_key()
    ann = server.store.account_for_key(key.get_fingerprint("sha256"), "ann")
    for seed, rules in enumerate(("gejiu", "yichun", "shangrao"), 1):
        server.store.finish_game(f"t{seed}", 1, rules, [(ann.id, 0, 5, 1, 4)],
                                 [ComputerSeat(1, -5, elo.START)], seed=seed)
    assert server.store.flush(10)
    mine = server.store.ratings_of(ann.id)
    assert set(mine) == {"gejiu", "yichun", "shangrao"}
    wide = await join(server, "ann", key, "lobby", width=200)
    await wide.wait_for(f"上饶 shangrao {elo.label(mine['shangrao'].rating, 1)}")
    assert "个旧 gejiu" in wide.text() and "宜春 yichun" in wide.text()
    await wide.close()
    narrow = await join(server, "ann", key, "lobby", width=80)
    await narrow.wait_for(f"上饶 {elo.label(mine['shangrao'].rating, 1)}")
    assert "个旧 " in narrow.text() and "宜春 " in narrow.text()
    await narrow.close()
