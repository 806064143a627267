"""A finished game starts again when every present player asked for it (issue 24 item 2),
as a finished hand does: the runner's rule, at times it is told."""

from __future__ import annotations

from engine.game import Game
from engine.runner import COMPUTER, HUMAN, NextGame, Pace, SeatState, TableRunner, Wait
from tests.test_runner import T0, gejiu, play_expiries

TWO = (HUMAN, HUMAN, COMPUTER, COMPUTER)
AWAY = SeatState(None, False)  # dropped, within the grace period: nobody to wait for


def over() -> tuple[TableRunner, Game]:
    game = gejiu(hands_per_game=1)
    play_expiries(game)
    assert game.is_over
    return TableRunner(Pace(next_game_seconds=30.0)), game


def test_nobody_asked_the_table_stays_at_game_over() -> None:
    runner, game = over()
    assert runner.step(game, T0, TWO) == Wait(None)
    assert runner.waiting_for(game) == ()
    assert runner.step(game, T0 + 10**6, TWO) == Wait(None)


def test_one_ask_waits_for_the_other_present_player() -> None:
    runner, game = over()
    runner.step(game, T0, TWO)
    runner.ask_new_game(0, T0 + 1)
    assert runner.step(game, T0 + 2, TWO) == Wait(T0 + 31)
    assert runner.waiting_for(game) == (1,)
    runner.ask_new_game(1, T0 + 3)
    assert runner.step(game, T0 + 3, TWO) == NextGame()
    assert runner.waiting_for(game) == ()


def test_the_game_over_screen_s_time_runs_from_the_first_ask() -> None:
    runner, game = over()
    runner.ask_new_game(1, T0)
    assert runner.step(game, T0 + 29.9, TWO) == Wait(T0 + 30)
    assert runner.step(game, T0 + 30, TWO) == NextGame()
    untimed = TableRunner(Pace(next_game_seconds=None))
    untimed.ask_new_game(1, T0)
    assert untimed.step(game, T0 + 10**6, TWO) == Wait(None)


def test_a_dropped_or_away_player_is_not_waited_for() -> None:
    runner, game = over()
    runner.ask_new_game(0, T0)
    assert runner.step(game, T0, (HUMAN, AWAY, COMPUTER, COMPUTER)) == NextGame()
    runner, game = over()
    runner.timeouts[1] = 2  # let his turn's timer run out twice: away
    runner.ask_new_game(0, T0)
    assert runner.step(game, T0, TWO) == NextGame()


def test_the_ready_for_the_last_hand_is_not_an_ask_and_a_new_hand_forgets_them() -> None:
    runner, game = over()
    runner.ready.update({0, 1})  # Enter on the last hand's result
    assert runner.step(game, T0, TWO) == Wait(None)
    runner.ask_new_game(0, T0)
    runner.new_hand()
    assert runner.game_ready == set() and runner.game_asked_at is None
