"""Ratings in the store (net/store/ratings.py), on SQLite and PostgreSQL alike: applied with
a game's results, once per game, computers at their fixed references, guests unrated."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine import rating as elo
from net.store import SavedSeat, SavedTable, Store, TableRow, open_store
from net.store.model import ComputerSeat
from net.store.sqlite import STORE_VERSION


def flushed(store: Store) -> Store:
    assert store.flush(30)
    return store


def bots(rules: str, level: str, *seat_scores: tuple[int, int]) -> list[ComputerSeat]:
    return [ComputerSeat(s, sc, elo.reference(rules, level)) for s, sc in seat_scores]


def test_a_game_with_computers_rates_the_human_only(any_store: Store) -> None:
    ann = any_store.account_for_key("SHA256:ann", "ann")
    computers = bots("gejiu", "normal", (1, 10), (2, -20), (3, -30))
    any_store.finish_game("t", 1, "gejiu", [(ann.id, 0, 40, 3, 4)], computers, seed=11)
    flushed(any_store)
    got = any_store.ratings("gejiu", ["ann", "nobody"])
    assert set(got) == {"ann"}
    assert got["ann"].games == 1
    assert got["ann"].rating == pytest.approx(elo.START + elo.K_PROVISIONAL / 2)  # beat 3 equals
    assert any_store.ratings("yichun", ["ann"]) == {}
    assert any_store.ratings_of(ann.id) == {"gejiu": got["ann"]}


def test_a_replayed_finish_counts_once_and_another_seed_counts_again(any_store: Store) -> None:
    ann = any_store.account_for_key("SHA256:ann", "ann")
    bob = any_store.account_for_key("SHA256:bob", "bob")
    rows = [(ann.id, 0, 30, 2, 4), (bob.id, 1, -30, 1, 4)]
    computers = bots("yichun", "easy", (2, 5), (3, -5))
    for _ in range(3):  # the owner's finish, then the same game replayed after a takeover
        any_store.finish_game("t", 1, "yichun", rows, computers, seed=99)
    flushed(any_store)
    once = any_store.ratings("yichun", ["ann", "bob"])
    assert once["ann"].games == once["bob"].games == 1
    assert once["ann"].rating > elo.START > once["bob"].rating
    easy = elo.reference("yichun", "easy")
    want = elo.updated([elo.Entrant(elo.START, 30), elo.Entrant(elo.START, -30),
                        elo.Entrant(easy, 5, fixed=True), elo.Entrant(easy, -5, fixed=True)])
    assert (once["ann"].rating, once["bob"].rating) == pytest.approx((want[0], want[1]))
    # a table of the same name made later plays another seed: its game 1 is a new game
    any_store.finish_game("t", 1, "yichun", rows, computers, seed=100)
    flushed(any_store)
    twice = any_store.ratings("yichun", ["ann", "bob"])
    assert twice["ann"].games == 2 and twice["ann"].rating > once["ann"].rating


def test_four_humans_keep_the_sum_and_the_leaderboard_shows_ratings(any_store: Store) -> None:
    names = ["ann", "bob", "cy", "dee"]
    ids = [any_store.account_for_key(f"SHA256:{n}", n).id for n in names]
    scores = [12, 40, -20, -32]
    rows = [(a, i, s, 1, 4) for i, (a, s) in enumerate(zip(ids, scores, strict=True))]
    any_store.finish_game("t", 1, "shangrao", rows, seed=3)
    flushed(any_store)
    got = any_store.ratings("shangrao", names)
    assert sum(r.rating for r in got.values()) == pytest.approx(4 * elo.START)
    assert [n for n in sorted(names, key=lambda n: -got[n].rating)] == ["bob", "ann", "cy", "dee"]
    board = any_store.leaderboard(rules="shangrao", by_rating=True)
    assert [r.nickname for r in board] == ["bob", "ann", "cy", "dee"]
    assert board[0].rating == pytest.approx(got["bob"].rating) and board[0].rated == 1
    assert all(r.rating is None for r in any_store.leaderboard())  # no ruleset: no rating


def test_guests_are_unrated_opponents(any_store: Store) -> None:
    ann = any_store.account_for_key("SHA256:ann", "ann")
    guest = any_store.guest_account("visitor")
    any_store.finish_game("t", 1, "gejiu", [(ann.id, 0, -10, 0, 4), (guest.id, 1, 10, 1, 4),
                                            (-5, 2, 0, 0, 4)],  # made while the db failed
                          bots("gejiu", "hard", (3, 0)), seed=1)
    flushed(any_store)
    got = any_store.ratings("gejiu", ["ann", guest.nickname])
    assert set(got) == {"ann"}
    # ann lost to the guest (at the start rating), drew the temporary account and the hard bot
    hard = elo.reference("gejiu", "hard")
    want = elo.changes([elo.Entrant(elo.START, -10), elo.Entrant(elo.START, 10, fixed=True),
                        elo.Entrant(elo.START, 0, fixed=True), elo.Entrant(hard, 0, fixed=True)])
    assert got["ann"].rating == pytest.approx(elo.START + want[0])


def test_the_leaderboard_puts_the_rated_first_by_rating(any_store: Store) -> None:
    ann = any_store.account_for_key("SHA256:ann", "ann")
    bob = any_store.account_for_key("SHA256:bob", "bob")
    cy = any_store.account_for_key("SHA256:cy", "cy")
    any_store.finish_game("t", 1, "gejiu", [(ann.id, 0, 90, 3, 4), (bob.id, 1, -90, 0, 4)],
                          seed=5)
    any_store.finish_game("u", 1, "gejiu", [(bob.id, 0, 0, 1, 4), (ann.id, 1, 0, 0, 4)],
                          seed=6)
    any_store.finish_stakes("t", 1, "gejiu", [(cy.id, 500, 4)])  # a spectator: no rating
    flushed(any_store)
    by_score = [r.nickname for r in any_store.leaderboard(rules="gejiu")]
    assert by_score == ["cy", "ann", "bob"]
    by_rating = any_store.leaderboard(rules="gejiu", by_rating=True)
    assert [r.nickname for r in by_rating] == ["ann", "bob", "cy"]
    assert by_rating[2].rating is None and by_rating[2].rated == 0
    assert by_rating[0].rated == 2


def test_a_fenced_finish_rates_nothing(two_stores: tuple[Store, Store]) -> None:
    old, new = two_stores
    ann = old.account_for_key("SHA256:ann", "ann")
    old.save_table(TableRow("t", "gejiu", {}, SavedTable(
        seats=(SavedSeat(ann.id, "ann"), None, None, None), game_seed=7)))
    flushed(old)
    assert old.claim_table("t", 1) and new.claim_table("t", 2)
    old.finish_game("t", 1, "gejiu", [(ann.id, 0, 10, 1, 4)],
                    bots("gejiu", "easy", (1, -10)), seed=7)
    flushed(old)
    assert new.ratings("gejiu", ["ann"]) == {} and new.leaderboard(rules="gejiu") == []
    new.finish_game("t", 1, "gejiu", [(ann.id, 0, 10, 1, 4)],
                    bots("gejiu", "easy", (1, -10)), seed=7)
    flushed(new)
    assert new.ratings("gejiu", ["ann"])["ann"].games == 1


def test_a_version_2_file_gains_the_rating_tables(tmp_path: Path) -> None:
    path = tmp_path / "mahjong.sqlite3"
    open_store(path).close()
    db = sqlite3.connect(path)  # back to what version 2 wrote: no ratings
    db.executescript("DROP TABLE ratings; DROP TABLE rated_games; PRAGMA user_version = 2;")
    db.close()
    again = open_store(path)
    assert again.version == STORE_VERSION == 10
    ann = again.account_for_key("SHA256:ann", "ann")
    again.finish_game("t", 1, "gejiu", [(ann.id, 0, 1, 1, 4)], bots("gejiu", "normal", (1, 0)))
    assert again.ratings("gejiu", ["ann"])["ann"].games == 1
    again.close()
