"""``stats`` and the lobby show each leader's recent trend as a sparkline: the query of recent
games, the sparkline of their running total, the ``stats`` column and the lobby's short board
(read at most every half minute)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from engine import rating as elo
from net.front.lobby import LobbyApp
from net.front.server import MahjongServer
from net.front.trends import (
    LOBBY_SECONDS,
    RESULTS_SETTLE,
    TREND_GAMES,
    LobbyLeaders,
    trend,
    trends,
)
from net.runtime.registry import Registry
from net.runtime.shared_table import TableConfig
from net.store import Account, SqliteStore, Store
from testkit.ssh import MakeServer, new_key, run_command
from tests.test_net import join


def _store(tmp_path: Path) -> tuple[SqliteStore, Account, Account]:
    store = SqliteStore(tmp_path / "db.sqlite3")
    ann = store.account_for_key("SHA256:a", "ann")
    bob = store.account_for_key("SHA256:b", "bob")
    return store, ann, bob


def test_recent_scores_are_the_last_games_oldest_first(any_store: Store) -> None:
    store = any_store
    ann = store.account_for_key("SHA256:a", "ann")
    bob = store.account_for_key("SHA256:b", "bob")
    for g in range(1, 13):  # ann: +1 … +12; bob the opposite
        store.finish_game("t", g, "gejiu", [(ann.id, 0, g, 1, 4), (bob.id, 1, -g, 0, 4)])
    store.finish_game("s", 1, "shangrao", [(ann.id, 0, 900, 1, 4)])  # another ruleset
    store.finish_stakes("t", 13, "gejiu", [(bob.id, 50, 4)])  # a spectator's stake counts
    store.flush(10.0)
    got = store.recent_scores("gejiu", ["ann", "bob", "nobody"], TREND_GAMES)
    assert got["ann"] == list(range(12 - TREND_GAMES + 1, 13))
    assert got["bob"] == [-g for g in range(13 - TREND_GAMES + 1, 13)] + [50]
    assert "nobody" not in got
    assert store.recent_scores("shangrao", ["ann"], TREND_GAMES) == {"ann": [900]}
    assert store.recent_scores("gejiu", [], TREND_GAMES) == {}
    assert trends(store, "gejiu", ["ann", "nobody"])["nobody"] == ""


def test_trend_is_the_running_total_on_its_own_scale() -> None:
    assert trend([3, -1, 5]) == "▁▄▃█"  # 0, 3, 2, 7
    assert trend([-2, -2]) == "█▅▁"  # 0, -2, -4: a half rounds up
    assert trend([0, 0]) == "▄▄▄"
    assert trend([]) == ""


def test_stats_shows_each_leaders_trend(tmp_path: Path) -> None:
    store, ann, bob = _store(tmp_path)
    for g, score in enumerate((5, 5, -20, 30), 1):
        store.finish_game("t", g, "gejiu", [(ann.id, 0, score, 1, 4), (bob.id, 1, -score, 0, 4)])
    fake = SimpleNamespace(store=store, registry=Registry(TableConfig()), node=None)
    text = MahjongServer.stats_text(fake)  # type: ignore[arg-type]
    rows = {line.split()[1]: line for line in text.splitlines() if line[:3].strip().isdigit()}
    assert "recent 近况" in text
    assert rows["ann"].endswith(trend([5, 5, -20, 30]))
    assert rows["bob"].endswith(trend([-5, -5, 20, -30]))
    assert trend([5, 5, -20, 30]) != trend([-5, -5, 20, -30])
    store.close()


class CountingStore:
    """A store that counts the lobby's reads."""

    def __init__(self, store: SqliteStore) -> None:
        self.inner = store
        self.reads = 0

    def rulesets_played(self) -> list[str]:
        self.reads += 1
        return self.inner.rulesets_played()

    def leaderboard(self, **kw: Any) -> Any:
        return self.inner.leaderboard(**kw)

    def recent_scores(self, *args: Any) -> Any:
        return self.inner.recent_scores(*args)


def test_the_lobby_board_is_read_at_most_every_half_minute(tmp_path: Path) -> None:
    store, ann, bob = _store(tmp_path)
    store.finish_game("t", 1, "yichun", [(ann.id, 0, 8, 1, 4), (bob.id, 1, -8, 0, 4)])
    counting = CountingStore(store)
    now = [100.0]
    leaders = LobbyLeaders(counting, clock=lambda: now[0])
    first = leaders.text().plain
    assert "Leaders 排行榜" in first and "宜春 Yichun" in first
    lines = [line for line in first.splitlines() if "ann" in line or "bob" in line]
    rated = {n: elo.label(r.rating, r.games) for n, r in store.ratings("yichun",
                                                                       ["ann", "bob"]).items()}
    assert lines[0].split()[-4:] == ["ann", rated["ann"], "+8", trend([8])]
    assert lines[1].split()[-4:] == ["bob", rated["bob"], "-8", trend([-8])]
    store.finish_game("t", 2, "yichun", [(ann.id, 0, -30, 0, 4), (bob.id, 1, 30, 1, 4)])
    now[0] += LOBBY_SECONDS - 1
    assert leaders.text().plain == first and counting.reads == 1  # kept
    now[0] += 1
    again = leaders.text().plain
    assert counting.reads == 2 and again.index("bob") < again.index("ann")
    assert LobbyLeaders(None).text().plain == ""
    assert LobbyLeaders.shared(store) is LobbyLeaders.shared(store)  # one for every lobby
    assert LobbyLeaders.shared(None) is not LobbyLeaders.shared(None)
    store.close()


def test_the_lobby_lists_the_leaders_after_the_tables(tmp_path: Path) -> None:
    store, ann, bob = _store(tmp_path)
    reg = Registry(TableConfig())
    reg.get_or_create("friday", "gejiu")
    store.finish_game("t", 1, "gejiu", [(ann.id, 0, 3, 1, 4), (bob.id, 1, -3, 0, 4)])
    server = SimpleNamespace(registry=reg, store=store)
    listing = LobbyApp(server, ann).tables_text().plain  # type: ignore[arg-type]
    assert listing.index("friday") < listing.index("Leaders 排行榜") < listing.index("ann")
    assert "Leaders" not in LobbyApp(SimpleNamespace(registry=reg),  # type: ignore[arg-type]
                                     ann).tables_text().plain
    empty = SqliteStore(tmp_path / "empty.sqlite3")  # no game finished yet: no board
    assert "Leaders" not in LobbyApp(SimpleNamespace(registry=reg, store=empty),  # type: ignore[arg-type]
                                     ann).tables_text().plain
    reg.close()
    store.close()
    empty.close()


async def test_the_lobby_s_leaders_are_stats_s_ranking_with_the_ratings(
        make_server: MakeServer) -> None:
    """Issue 53 bug 6: ann has the most points but bob the better rating (he won three of
    their four games): ``stats`` and the lobby's leaders both rank bob first, by rating, and
    both show the ratings."""
    server = await make_server()
    store = server.store
    ann = store.account_for_key("SHA256:a", "ann")
    bob = store.account_for_key("SHA256:b", "bob")
    store.finish_game("t", 1, "yichun", [(ann.id, 0, 100, 1, 4), (bob.id, 1, -100, 0, 4)],
                      seed=1)
    for g in (2, 3, 4):
        store.finish_game("t", g, "yichun", [(ann.id, 0, -10, 0, 4), (bob.id, 1, 10, 1, 4)],
                          seed=g)
    assert store.flush(10)
    have = store.ratings("yichun", ["ann", "bob"])
    assert have["bob"].rating > have["ann"].rating
    rated = {n: elo.label(r.rating, r.games) for n, r in have.items()}
    out = str((await run_command(server.port, "carl", "stats")).stdout)
    rows = [line.split() for line in out.splitlines() if line[:3].strip().isdigit()]
    assert [(r[1], r[2], r[-3]) for r in rows] == [("bob", rated["bob"], "-70"),
                                                   ("ann", rated["ann"], "+70")]
    lobby = await join(server, "carl", new_key(), "lobby")
    await lobby.wait_for("Leaders 排行榜")
    text = lobby.text()
    leaders = [line.split() for line in text[text.index("Leaders"):].splitlines()
               if " ann " in line or " bob " in line]
    assert [row[-5:-1] for row in leaders] == [["1", "bob", rated["bob"], "-70"],
                                               ["2", "ann", rated["ann"], "+70"]], text
    await lobby.close()


class KeptCountingStore(CountingStore):
    """A counting store that says how many games' results it was handed, as a store does."""

    @property
    def results_kept(self) -> int:
        return self.inner.results_kept


def test_the_lobby_board_is_read_again_once_a_game_is_kept(tmp_path: Path) -> None:
    """A player back in the lobby from a game sees it on the board (its ratings line, read
    every few seconds, had it while the board kept the one before for half a minute)."""
    store, ann, bob = _store(tmp_path)
    store.finish_game("t", 1, "yichun", [(ann.id, 0, 8, 1, 4), (bob.id, 1, -8, 0, 4)])
    counting = KeptCountingStore(store)
    now = [100.0]
    leaders = LobbyLeaders(counting, clock=lambda: now[0])
    first = leaders.text().plain
    assert counting.reads == 1 and first.index("ann") < first.index("bob")
    now[0] += 1
    assert leaders.text().plain == first and counting.reads == 1  # nothing new: kept
    store.finish_game("t", 2, "yichun", [(ann.id, 0, -30, 0, 4), (bob.id, 1, 30, 1, 4)])
    again = leaders.text().plain
    assert counting.reads == 2 and again.index("bob") < again.index("ann")
    now[0] += RESULTS_SETTLE  # once more, for a database server's writer thread
    leaders.text()
    assert counting.reads == 3
    now[0] += 1
    leaders.text()
    assert counting.reads == 3  # then every LOBBY_SECONDS again
    store.close()
