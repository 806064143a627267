"""The table runner (engine/runner.py) at times it is told: no clock, no loop, no sleeps."""

from __future__ import annotations

import asyncio

import pytest

from engine.expiry import expiry_action
from engine.game import Game
from engine.runner import (
    COMPUTER,
    HUMAN,
    BotMove,
    Expire,
    NextHand,
    Pace,
    SeatState,
    TableRunner,
    Wait,
)
from engine.table import Phase
from engine.view import build_view
from host.clock import ManualClock

T0 = 1000.0
ALL_BOTS = (COMPUTER,) * 4
ME_FIRST = (HUMAN, COMPUTER, COMPUTER, COMPUTER)


def gejiu(**options: int) -> Game:
    game = Game("gejiu", 7, {"turn_seconds": 10, "claim_seconds": 4, **options})
    game.new_hand()
    return game


def play_expiries(game: Game, until_phase: Phase | None = None, limit: int = 500) -> None:
    """Play the hand on (every seat as its timer's expiry plays) until ``until_phase``."""
    hand = game.hand
    assert hand is not None
    for _ in range(limit):
        if hand.is_over or (until_phase is not None and hand.phase is until_phase):
            return
        seat = hand.to_act()[0]
        game.apply(seat, expiry_action(build_view(hand, seat)))
    raise AssertionError("the hand did not get there")


def test_a_computer_move_nobody_waits_on_comes_after_the_pause() -> None:
    game = gejiu()
    runner = TableRunner(Pace(bot_delay=0.5))
    assert runner.step(game, T0, ALL_BOTS) == Wait(T0 + 0.5)
    assert runner.step(game, T0 + 0.2, ALL_BOTS) == Wait(T0 + 0.5)  # the pause is kept
    assert runner.step(game, T0 + 0.5, ALL_BOTS) == BotMove(game.hand.to_act()[0], paced=True)


def test_no_pause_without_a_delay() -> None:
    game = gejiu()
    runner = TableRunner(Pace(bot_delay=0))
    assert runner.step(game, T0, ALL_BOTS) == BotMove(game.hand.dealer, paced=True)


def test_a_claim_by_a_computer_is_not_paced() -> None:
    game = gejiu()
    play_expiries(game, Phase.CLAIM)
    runner = TableRunner(Pace(bot_delay=5.0))
    step = runner.step(game, T0, ALL_BOTS)
    assert isinstance(step, BotMove) and not step.paced


def test_a_humans_turn_timer_starts_once_and_runs_out() -> None:
    game = gejiu()
    me = game.hand.dealer
    seats = tuple(HUMAN if s == me else COMPUTER for s in range(4))
    runner = TableRunner(Pace(bot_delay=0))
    assert runner.step(game, T0, seats) == Wait(T0 + 10)
    assert runner.step(game, T0 + 3, seats) == Wait(T0 + 10)  # started once, not again
    view = build_view(game.hand, me)
    assert runner.deadline(me, view) == (T0 + 10, 10.0)
    assert runner.deadline((me + 1) % 4, build_view(game.hand, (me + 1) % 4)) == (None, 0.0)
    assert runner.step(game, T0 + 10, seats) == Expire(me)
    runner.acted(me)
    assert runner.step(game, T0 + 11, seats) == Wait(T0 + 21)  # a new timer from now


def test_no_timer_when_timers_are_off_or_the_option_is_zero() -> None:
    game = gejiu()
    seats = tuple(HUMAN if s == game.hand.dealer else COMPUTER for s in range(4))
    assert TableRunner(Pace(timers=False)).step(game, T0, seats) == Wait(None)
    game0 = gejiu(turn_seconds=0)
    assert TableRunner(Pace()).step(game0, T0, seats) == Wait(None)


def test_two_turn_expiries_make_a_player_away_and_a_key_brings_him_back() -> None:
    game = gejiu()
    me = game.hand.dealer
    runner = TableRunner(Pace(idle_after=2, idle_seconds=1.0))
    runner.expired(me, Phase.CLAIM)  # a claim window left to run out is a pass
    assert not runner.idle(me)
    runner.expired(me, Phase.TURN)
    runner.expired(me, Phase.TURN)
    assert runner.idle(me)
    seats = tuple(HUMAN if s == me else COMPUTER for s in range(4))
    assert runner.step(game, T0, seats) == Wait(T0 + 1.0)  # his timer is short now
    assert runner.timer_total[me] == 1.0
    assert runner.active(me) is True and not runner.idle(me)
    assert runner.active(me) is False


def test_never_away_without_idle_after() -> None:
    runner = TableRunner(Pace(idle_after=None))
    for _ in range(5):
        runner.expired(0, Phase.TURN)
    assert not runner.idle(0)


def test_a_dropped_players_seat_waits_out_its_grace_then_a_computer_plays() -> None:
    game = gejiu()
    me = game.hand.dealer
    dropped = tuple(SeatState(T0 + 20) if s == me else COMPUTER for s in range(4))
    runner = TableRunner(Pace(bot_delay=0))
    assert runner.step(game, T0, dropped) == Wait(T0 + 10)  # his timer first
    runner.acted(me)  # (say he had pressed a key before he dropped)
    runner.deadlines.clear()
    game_no_timer = gejiu(turn_seconds=0)
    assert runner.step(game_no_timer, T0, dropped) == Wait(T0 + 20)  # the grace's end
    assert runner.step(game_no_timer, T0 + 20, dropped) == BotMove(me, paced=True)


def test_a_finished_hand_waits_for_every_present_player() -> None:
    game = gejiu()
    play_expiries(game)
    runner = TableRunner(Pace(next_hand_seconds=60))
    seats = (HUMAN, HUMAN, SeatState(None, False), COMPUTER)  # W dropped, N a computer
    assert runner.step(game, T0, seats) == Wait(T0 + 60)
    runner.ready.update({0})
    assert runner.step(game, T0 + 1, seats) == Wait(T0 + 60)
    runner.expired(1, Phase.TURN)
    runner.expired(1, Phase.TURN)  # an away player is not waited for
    assert runner.step(game, T0 + 2, seats) == NextHand()
    runner.timeouts[1] = 0
    assert runner.step(game, T0 + 60, seats) == NextHand()  # the result screen's time is up


def test_without_a_result_time_the_hand_waits_as_long_as_it_takes() -> None:
    game = gejiu()
    play_expiries(game)
    runner = TableRunner(Pace(next_hand_seconds=None))
    assert runner.step(game, T0, ME_FIRST) == Wait(None)
    assert runner.step(game, T0 + 1e6, ME_FIRST) == Wait(None)
    runner.ready.add(0)
    assert runner.step(game, T0 + 1e6, ME_FIRST) == NextHand()


def test_an_unwatched_table_or_a_finished_game_sleeps() -> None:
    game = gejiu()
    runner = TableRunner(Pace(bot_delay=0))
    assert runner.step(game, T0, ALL_BOTS, watched=False) == Wait(None)
    assert runner.step(None, T0, ALL_BOTS) == Wait(None)
    over = Game("gejiu", 3, {"hands_per_game": 1})
    over.new_hand()
    play_expiries(over)
    assert over.is_over
    assert runner.step(over, T0, (HUMAN,) * 4) == Wait(None)


def test_a_timer_stops_for_a_seat_no_longer_to_act() -> None:
    game = gejiu()
    me = game.hand.dealer
    seats = (HUMAN,) * 4
    runner = TableRunner(Pace(bot_delay=0))
    runner.step(game, T0, seats)
    assert me in runner.deadlines
    game.apply(me, expiry_action(build_view(game.hand, me)))
    runner.step(game, T0 + 1, seats)
    assert me not in runner.deadlines


async def test_a_manual_clock_wakes_a_waiter_at_its_deadline_not_before() -> None:
    clock = ManualClock(start=0.0)
    event = asyncio.Event()
    task = asyncio.ensure_future(clock.wait(event, 5.0))
    await clock.advance(4.9)
    assert not task.done()
    await clock.advance(0.1)
    assert task.done() and task.result() is False
    task = asyncio.ensure_future(clock.wait(event, None))
    await clock.advance(100)
    assert not task.done()
    event.set()
    for _ in range(5):  # the event's waiter, asyncio.wait's, then the clock's own
        await asyncio.sleep(0)
    assert task.done() and task.result() is True
    with pytest.raises(ValueError):
        await clock.advance(-1)
