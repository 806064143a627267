"""Issue 53: a player who leaves a shared table at its game-over screen is out of the next
game (its seats, its results, its ratings), and a finished table whose other players have gone
is closable by its host (four OpenSSH-like sessions over a real server on port 0)."""

from __future__ import annotations

import json

from net.front.server import MahjongServer
from net.runtime.privacy import Admission
from net.store.model import Account
from testkit.ssh import PtyClient, new_key
from tests.support.waiting import until
from tests.test_net import join, play_by_keys, seated

NAMES = ("ann", "bob", "cat", "dan")


async def test_players_who_leave_at_game_over_are_not_in_the_next_game(
        server: MahjongServer) -> None:
    """ann and bob ask for a new game, cat presses q and dan's connection drops: the new game
    seats, rates and keeps only ann and bob (computers in the two other seats); cat and dan
    keep the one game they played. Once bob leaves too, ann, the host, closes the table."""
    command = "join yc --rules gejiu --option hands_per_game=1"
    clients = {"ann": await join(server, "ann", new_key(), command)}
    await seated(server, "yc", 1)  # ann made the table: she is its host
    for name in NAMES[1:]:
        clients[name] = await join(server, name, new_key(), command)
    t = await seated(server, "yc", 4)
    assert t.game is not None and t.game_no == 1
    by_seat: dict[int, PtyClient] = {}
    accounts: dict[str, Account] = {}
    for seat in range(4):
        account = t.seats[seat].clients[0].account
        accounts[account.nickname] = account
        by_seat[seat] = clients[account.nickname]
    seat_of = {name: t.seat_of(accounts[name].id) for name in NAMES}
    await play_by_keys(t, by_seat)
    assert t.game.is_over
    for c in clients.values():
        await c.wait_for("Enter: game result")
        c.send("\r")
        await c.wait_for("Game over")

    # the host may not close it while the others sit there (the words in the plural)
    refusal = t.close_by(accounts["ann"])
    assert refusal is not None and refusal.key == "close_others_many"
    assert "bob, cat, dan sit at yc" in refusal.text("en")

    clients["ann"].send("\r")
    clients["bob"].send("\r")
    await until(lambda: t.runner.game_ready >= {seat_of["ann"], seat_of["bob"]}, 5.0,
                "ann and bob to ask for a new game")
    clients["cat"].send("q")  # cat leaves the table
    await clients["dan"].close()  # dan's connection drops at the game-over screen
    await until(lambda: t.game_no == 2, 10.0, "the new game")

    stayed = {accounts["ann"].id, accounts["bob"].id}
    occupants = [s.occupant for s in t.seats]
    assert {o.account_id for o in occupants if o is not None} == stayed
    assert occupants[seat_of["cat"]] is None and occupants[seat_of["dan"]] is None
    names = t.names()
    assert not any("cat" in n or "dan" in n for n in names), names
    assert all(s.name in ("", "ann", "bob") for s in t.info().seats)

    # the new game played to its end: its results and ratings are ann's, bob's, computers'
    await play_by_keys(t, {seat_of["ann"]: clients["ann"], seat_of["bob"]: clients["bob"]})
    assert t.game.is_over and t.game_no == 2
    await until(lambda: bool(t.game_id), 5.0, "the second game kept")
    kept = server.store.kept_game(t.game_id)
    assert kept is not None
    head = json.loads(kept.record.splitlines()[0])
    assert sorted(n for n in head["names"] if n) == ["ann", "bob"]
    assert sorted(n for n in kept.names if n) == ["ann", "bob"]
    for name in ("ann", "bob"):
        assert len(server.store.games_of(accounts[name].id)) == 2
    for name in ("cat", "dan"):
        assert len(server.store.games_of(accounts[name].id)) == 1, name
    ratings = server.store.ratings("gejiu", list(NAMES))
    assert {name: ratings[name].games for name in NAMES} == {
        "ann": 2, "bob": 2, "cat": 1, "dan": 1}

    # a finished table whose other players have gone is its host's to close
    await clients["bob"].wait_for("Enter: game result")
    clients["bob"].send("\r")
    await clients["bob"].wait_for("Game over")
    refusal = t.close_by(accounts["ann"])
    assert refusal is not None and refusal.key == "close_others"
    assert "bob sits at yc" in refusal.text("en")
    clients["bob"].send("q")
    await until(lambda: t.seats[seat_of["bob"]].occupant is None, 5.0, "bob to leave")
    assert t.close_by(accounts["ann"]) is None
    for name in ("ann", "bob", "cat"):
        await clients[name].close()


def test_the_refusal_names_one_or_several_players() -> None:
    admission = Admission("yc", None, 1, "ann", None, lambda: None)
    host = Account(1, "ann")
    one = admission.may_close(host, ["bob"])
    many = admission.may_close(host, ["bob", "cat"])
    assert one is not None and many is not None
    assert one.text("en").startswith("bob sits at yc")
    assert many.text("en").startswith("bob, cat sit at yc")
    assert "bob, cat" in many.text("zh")
