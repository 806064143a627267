"""No calls (``z``) turned on during one's own claim window (issue 53): the pass it plays after
its thinking pause closes the window for every screen at the table, and the table's next move
is shown where it is to be made (the player's own turn with its discard prompt, another
player's turn on his screen). The pause's timer was made while the key was handled at once
(``MahjongApp.key_now``) and kept that key's batch of apps to draw: the pass it sent published
the table's next view into that batch long gone, and no screen drew it until the table moved
again (the turn timer 30 s later). Two players over SSH at a shared table on a manual clock;
then with a time bank, whose bank the pass leaves whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.table import Phase
from engine.tiles import parse_tile
from host.clock import ManualClock
from host.refusal import Refusal
from net.front.server import MahjongServer
from net.runtime.shared_table import SharedTable
from testkit.ssh import MakeServer, PtyClient, new_key
from tests.support.tui import table_text, wait_for
from tests.support.waiting import until
from tests.test_auto_toggles import DRAWS, ME, make_app
from tests.test_net import join, key_for, seated
from tui.apps.table_screen import AUTO_PASS_PAUSE, TableScreen
from words import tr

WindowWanted = Callable[[SharedTable, int, int], bool]


async def two_players(server: MahjongServer, command: str
                      ) -> tuple[SharedTable, dict[str, PtyClient], dict[str, int]]:
    """ann and bob at one table (computers in the other seats), its first hand dealt."""
    ann = await join(server, "ann", new_key(), command)
    await ann.wait_for("press S")
    bob = await join(server, "bob", new_key(), command)
    t = await seated(server, "az", 2)
    ann.send("s")
    await until(lambda: t.game is not None and t.game.hand is not None, 5.0, "the deal")
    seat_of = {c.account.nickname: i for i, s in enumerate(t.seats) for c in s.clients}
    return t, {"ann": ann, "bob": bob}, seat_of


async def to_claim_window(t: SharedTable, clients: dict[int, PtyClient], me: int,
                          wanted: WindowWanted) -> None:
    """Play by keys (the other human passes his claims, the computers play) until a claim
    window waits for seat ``me`` alone and ``wanted(t, me, discarder)`` holds; every other
    window of ``me`` is passed by hand."""
    for _ in range(3000):
        game = t.game
        assert game is not None
        hand = game.hand
        assert hand is not None
        if hand.is_over:
            if game.is_over:
                break
            ended = hand
            for c in clients.values():
                await c.wait_for(f"Hand {ended.hand_no} result")
                c.send("\r")
            await until(lambda h=ended: t.game is not None and t.game.hand is not h, 10.0,
                        "the next hand")
            continue
        waiting = [s for s in hand.to_act() if s in clients]
        if not waiting:
            await until(lambda h=hand: h.is_over or any(s in clients for s in h.to_act()),
                        10.0, "a seat's move")
            continue
        in_window = hand.phase in (Phase.CLAIM, Phase.ROB)
        if in_window and hand.to_act() == [me] and hand.last_discard is not None \
                and wanted(t, me, hand.last_discard[0]):
            # what the session shows is this window, before its key
            await clients[me].wait_for("Claim window")
            return
        seat = next((s for s in waiting if s != me), waiting[0])
        if seat == me and in_window and len(hand.to_act()) > 1:
            # wait for the others' answers first: the window may then be ours alone
            others = [s for s in hand.to_act() if s != me]
            if not any(s in clients for s in others):
                await until(lambda h=hand, v=hand.version: h.version != v
                            or h.to_act() == [me], 10.0, "the computers' answers")
                continue
        version = hand.version
        await until(lambda s=seat, v=version: _shows(t, s, v), 5.0, f"seat {seat}'s view")
        clients[seat].send(key_for(t, seat))
        await until(lambda h=hand, v=version: h.version != v, 5.0, f"seat {seat}'s key")
    raise AssertionError("no such claim window came up")


def _shows(t: SharedTable, seat: int, version: int) -> bool:
    update = t.update_for(seat)
    return update is not None and update.view.my_move


def status(c: PtyClient) -> str:
    return c.text().splitlines()[0] if c.text() else ""


async def test_no_calls_in_ones_own_claim_window_then_ones_turn(
        make_server: MakeServer) -> None:
    """ann turns no calls on in the window of her left-hand player's discard: the pass goes
    after the pause, she draws, and her screen has her turn with its discard prompt (not the
    claim window, not an error); bob's screen moves on too."""
    clock = ManualClock()
    server = await make_server(clock=clock)
    t, by_name, seat_of = await two_players(server, "join az --rules shangrao")
    me, other = seat_of["ann"], seat_of["bob"]
    by_seat = {me: by_name["ann"], other: by_name["bob"]}
    await to_claim_window(t, by_seat, me, lambda t, me, d: (d + 1) % 4 == me)
    game = t.game
    assert game is not None and game.hand is not None
    hand = game.hand
    ann, bob = by_name["ann"], by_name["bob"]
    ann.send("z")
    await ann.wait_for("No calls on")
    assert hand.phase is Phase.CLAIM and hand.to_act() == [me]  # the pause: still open
    await clock.advance(AUTO_PASS_PAUSE[1] + 0.1)
    await until(lambda: hand.phase is Phase.TURN and hand.to_act() == [me], 5.0,
                "the auto-pass and ann's draw")
    await ann.wait_for(lambda text: "Your turn" in text.splitlines()[0], timeout=5.0)
    text = ann.text()
    assert "Claim window" not in text and "not possible" not in text
    assert "Discard" in text or "Enter" in text  # the turn's prompt
    await bob.wait_for(lambda text: "Claim window" not in text.splitlines()[0], timeout=5.0)
    ann.send("\r")  # her discard, from the screen she sees
    await until(lambda: hand.is_over or me not in hand.to_act(), 5.0, "ann's discard")
    for c in by_name.values():
        await c.close()


async def test_no_calls_with_a_time_bank_moves_the_next_player_on(
        make_server: MakeServer) -> None:
    """Shangrao with a time bank (turn 5 s + bank 20 s): one player (``ann`` here, whichever
    of the two sits where the other draws after her window) turns no calls on in a window
    after which the other is to draw. The pass goes within the window's own time, the bank
    whole; the other's screen has his turn and his timer, never a claim window that is over
    (he saw the window his time bank ran on, and 'it is not your move' at his key)."""
    clock = ManualClock()
    server = await make_server(clock=clock)
    t, by_name, seat_of = await two_players(
        server, "join az --rules shangrao --option time_bank=20 --option turn_seconds=5")
    # the one who passes is not the other's left-hand player (whose discard it would be)
    ann, bob = by_name["ann"], by_name["bob"]
    if (seat_of["bob"] - seat_of["ann"]) % 4 == 1:
        ann, bob = bob, ann
    me, other = (seat_of["ann"], seat_of["bob"]) if ann is by_name["ann"] else (
        seat_of["bob"], seat_of["ann"])
    by_seat = {me: ann, other: bob}
    await to_claim_window(t, by_seat, me, lambda t, me, d: (d + 1) % 4 == other)
    game = t.game
    assert game is not None and game.hand is not None
    hand = game.hand
    ann.send("z")
    await ann.wait_for("No calls on")
    await clock.advance(AUTO_PASS_PAUSE[1] + 0.1)
    await until(lambda: hand.phase is Phase.TURN and hand.to_act() == [other], 5.0,
                "the auto-pass and bob's draw")
    assert t.runner.bank_left(me, game.ruleset) == 20.0
    await bob.wait_for(lambda text: "Your turn" in text.splitlines()[0], timeout=5.0)
    assert "bank" in status(bob) or "+" in status(bob)
    await ann.wait_for(lambda text: "Claim window" not in text.splitlines()[0], timeout=5.0)
    assert "not possible" not in ann.text() and "waiting for" not in bob.text()
    bob.send("\r")  # his discard, from the screen he sees
    await until(lambda: hand.is_over or other not in hand.to_act(), 5.0, "bob's discard")
    for c in by_name.values():
        await c.close()


async def test_a_local_table_too_and_a_refused_auto_pass_is_no_error_of_the_players(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At a table alone (tests/test_auto_toggles' rigged hand: 上家's 5m is a chi for us), z
    in the window passes after the pause and our turn comes with the drawn tile. A pass the
    table refuses (it moved on from the view the toggle acted on) is not said to the player
    as his error: he typed nothing, and the engine's words are not his to read."""
    app, table, game, clock = make_app(tmp_path, ME, DRAWS)
    async with app.run_test(size=(100, 30)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.TURN, "turn")
        await pilot.press("right_square_bracket", "enter")  # 發 out, by hand
        await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.CLAIM
                       and v.window_tile == parse_tile("5m"), "chi")
        send = app.client.send
        refusal = Refusal.of("illegal_not_now", move="pass", phase="turn")
        monkeypatch.setattr(app.client, "send", lambda action: refusal)
        await pilot.press("z")
        await clock.advance(AUTO_PASS_PAUSE[1] + 0.01)
        for _ in range(10):
            await pilot.pause()
        assert screen.ui.message == tr("en", "auto_pass_set")  # not the refusal
        assert "not possible" not in table_text(app)
        monkeypatch.setattr(app.client, "send", send)
        await pilot.press("z", "z")  # off and on again: the toggle passes this window
        await clock.advance(AUTO_PASS_PAUSE[1] + 0.01)
        view = await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.TURN,
                              "our turn after the pass")
        assert view.drawn == parse_tile("9p")
        text = table_text(app)
        assert "Your turn" in text.splitlines()[0] and "Claim window" not in text
