"""The time bank (issue 53, the table option ``time_bank``): each decision runs its own time
(``turn_seconds``, ``claim_seconds``), then the seat's bank for the hand; what a decision did
not use of the bank carries to the seat's next decision of the hand, every bank is full again
each hand, and a bank run out plays for the player as a timer did. Driven at told times, then
through a local table on a manual clock, then as the status line and plain mode say it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.cells import cell_len

from engine.expiry import expiry_action
from engine.game import Game
from engine.record import parse_lines, replay_lines
from engine.rulesets import RULESETS
from engine.runner import COMPUTER, HUMAN, Expire, Pace, TableRunner, Wait
from engine.table import Phase
from engine.view import build_view
from host.client import TableUpdate
from host.clock import ManualClock
from host.local import LocalTable
from tests.support.tui import DrawDiscard
from tui.view.canvas import Canvas
from tui.view.status_row import draw_status_row
from tui.view.timer_text import bank_shown, next_timer_change, timer_state
from tui.view.ui_state import UiState

T0 = 1000.0
GOLDEN = Path(__file__).parent / "golden"


def banked_game(**options: int) -> Game:
    game = Game("gejiu", 7, {"turn_seconds": 10, "claim_seconds": 4, "time_bank": 20,
                             **options})
    game.new_hand()
    return game


def to_my_next_turn(game: Game, me: int) -> None:
    """Every seat plays as its timer's expiry would until ``me`` is to discard again."""
    hand = game.hand
    assert hand is not None
    for _ in range(200):
        seat = hand.to_act()[0]
        if seat == me and hand.phase is Phase.TURN:
            return
        game.apply(seat, expiry_action(build_view(hand, seat)))
    raise AssertionError("no next turn")


def test_the_option_is_off_by_default_in_every_ruleset() -> None:
    for cls in RULESETS.values():
        assert cls().options["time_bank"] == 0
    game = Game("gejiu", 7, {"turn_seconds": 10})
    game.new_hand()
    assert game.hand is not None
    me = game.hand.dealer
    seats = tuple(HUMAN if s == me else COMPUTER for s in range(4))
    runner = TableRunner(Pace(bot_delay=0))
    assert runner.step(game, T0, seats) == Wait(T0 + 10)  # as before: no bank
    assert runner.banked_for(me, build_view(game.hand, me)) == 0.0


def test_the_bank_drains_after_the_turn_time_and_carries_over_within_the_hand() -> None:
    game = banked_game()
    assert game.hand is not None
    me = game.hand.dealer
    seats = tuple(HUMAN if s == me else COMPUTER for s in range(4))
    runner = TableRunner(Pace(bot_delay=0))
    assert runner.step(game, T0, seats) == Wait(T0 + 30)  # 10 s of its own, then 20 of bank
    view = build_view(game.hand, me)
    assert runner.deadline(me, view) == (T0 + 30, 10.0)
    assert runner.banked_for(me, view) == 20.0
    # he plays 15 s after the timer started: 5 s of the bank are spent
    action = expiry_action(view)
    game.apply(me, action)
    runner.acted(me, T0 + 15)
    assert runner.bank_left(me, game.ruleset) == 15.0
    to_my_next_turn(game, me)
    t1 = T0 + 100
    assert runner.step(game, t1, seats) == Wait(t1 + 10 + 15)  # what is left carries over
    assert runner.banked_for(me, build_view(game.hand, me)) == 15.0
    # a move within the turn's own time spends nothing
    game.apply(me, expiry_action(build_view(game.hand, me)))
    runner.acted(me, t1 + 9)
    assert runner.bank_left(me, game.ruleset) == 15.0
    # the next hand: every bank is full again
    runner.new_hand()
    assert runner.bank_left(me, game.ruleset) == 20.0


def test_a_bank_run_out_plays_for_the_player_and_is_gone_for_the_hand() -> None:
    game = banked_game()
    assert game.hand is not None
    me = game.hand.dealer
    seats = tuple(HUMAN if s == me else COMPUTER for s in range(4))
    runner = TableRunner(Pace(bot_delay=0, idle_after=None))
    assert runner.step(game, T0, seats) == Wait(T0 + 30)
    assert runner.step(game, T0 + 29.9, seats) == Wait(T0 + 30)  # in the bank, still waiting
    assert runner.step(game, T0 + 30, seats) == Expire(me)
    runner.expired(me, Phase.TURN)
    assert runner.bank_left(me, game.ruleset) == 0.0
    game.apply(me, expiry_action(build_view(game.hand, me)))
    to_my_next_turn(game, me)
    assert runner.step(game, T0 + 50, seats) == Wait(T0 + 60)  # only the turn's own time


def test_an_away_player_draws_nothing_from_the_bank() -> None:
    game = banked_game()
    assert game.hand is not None
    me = game.hand.dealer
    seats = tuple(HUMAN if s == me else COMPUTER for s in range(4))
    runner = TableRunner(Pace(bot_delay=0, idle_after=2, idle_seconds=1.0))
    runner.expired(me, Phase.TURN)
    runner.expired(me, Phase.TURN)
    assert runner.step(game, T0, seats) == Wait(T0 + 1.0)
    assert runner.banked_for(me, build_view(game.hand, me)) == 0.0


async def test_a_local_table_runs_out_the_bank_then_plays_the_drawn_tile() -> None:
    clock = ManualClock(T0)
    table = LocalTable(bot_delay=0, clock=clock, players={s: DrawDiscard() for s in (1, 2, 3)})
    got: list[TableUpdate] = []
    table.subscribe(got.append)
    assert table.new_game("gejiu", {"turn_seconds": 5, "claim_seconds": 3, "time_bank": 12},
                          11) is None
    for _ in range(50):
        await asyncio.sleep(0)
        if got and got[-1].view.my_move and got[-1].view.phase is Phase.TURN:
            break
    update = got[-1]
    view = update.view
    assert view.my_move and view.phase is Phase.TURN
    start = clock.now()
    assert update.deadline == start + 17 and update.timer_seconds == 5.0
    assert update.bank_seconds == 12.0
    assert timer_state(update, start + 1) == (8, 4, False)
    assert bank_shown(update, start + 1) == 12
    assert timer_state(update, start + 9) == (7, 0, True)  # 8 s of 12 of the bank left
    assert bank_shown(update, start + 9) == 8
    drawn = view.drawn
    await clock.advance(16.9)
    await asyncio.sleep(0)
    assert len(got[-1].view.seats[view.viewer or 0].pond) == 0  # the bank still runs
    await clock.advance(0.2)
    for _ in range(20):
        await asyncio.sleep(0)
    me = view.viewer or 0
    pond = [p for p in got if len(p.view.seats[me].pond) == 1]
    assert pond, "the timer played for the player"
    assert drawn is None or pond[0].view.seats[me].pond[0].kind == drawn
    assert table.runner.bank_left(me, table.game.ruleset) == 0.0  # type: ignore[union-attr]
    table.close()


def test_the_timer_is_redrawn_as_the_bank_runs_down() -> None:
    game = Game("yichun", 1, {})
    game.new_hand()
    assert game.hand is not None
    update = TableUpdate(view=build_view(game.hand, 0), deadline=100.0, timer_seconds=5.0,
                         bank_seconds=12.0)
    fires = [83.0]
    while (at := next_timer_change(update, fires[-1])) is not None:
        assert at > fires[-1]
        fires.append(at)
    assert len(fires) < 3 * 17
    for start, end in zip(fires, [*fires[1:], 100.5], strict=True):
        shown = (timer_state(update, start), bank_shown(update, start))
        t = start
        while t < end - 0.0025:
            assert (timer_state(update, t), bank_shown(update, t)) == shown
            t += 0.01


def status_text(update: TableUpdate, ui: UiState, width: int) -> str:
    """The status line as its cells read (a span drawn later over an earlier one wins)."""
    canvas = Canvas(width, 1)
    draw_status_row(canvas, update, ui, 0, timer_state(update, ui.now))
    cells = [" "] * (width + 2)
    for x, text, _style in canvas.rows[0]:
        for ch in text:
            cells[x] = ch
            if cell_len(ch) == 2:
                cells[x + 1] = ""
            x += cell_len(ch)
    return "".join(cells[:width])


def test_the_status_line_says_the_bank_and_the_toggles() -> None:
    game = Game("yichun", 1, {"time_bank": 20})
    game.new_hand()
    assert game.hand is not None
    update = TableUpdate(view=build_view(game.hand, 0), deadline=100.0, timer_seconds=5.0,
                         bank_seconds=12.0, hands_per_game=8)
    wide = status_text(update, UiState(lang="en", now=97.0), 120)
    assert "5s + bank 12s" not in wide and "0s + bank 3s" in wide
    assert "5s + bank 12s" in status_text(update, UiState(lang="en", now=83.2), 120)
    assert "5+12s" in status_text(update, UiState(lang="en", now=83.2), 80)
    assert "5秒 + 备用12秒" in status_text(update, UiState(lang="zh", now=83.2), 120)
    on = UiState(lang="en", now=83.2, auto=("pass", "win", "discard"))
    assert "Auto: no calls, win, discard drawn" in status_text(update, on, 140)
    short = status_text(update, on, 80)
    assert "[过胡切]" in short and "5+12s" in short


def test_an_existing_record_replays_identically() -> None:
    for rules in ("yichun", "shangrao", "gejiu"):
        text = (GOLDEN / f"{rules}.jsonl").read_text(encoding="utf-8")
        assert "time_bank" not in text  # made before the option
        hands = replay_lines(parse_lines(text))
        assert all(r.matches for r in hands)
        assert all(r.hand.ruleset.options["time_bank"] == 0 for r in hands)
