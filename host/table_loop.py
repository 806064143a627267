"""The asyncio loop around :class:`engine.runner.TableRunner`, shared by ``play`` and the server.

The runner decides what is due; this loop asks it, sleeps until the answer's time (or until
something changes: :meth:`TableLoop.kick`), lets a computer player choose (off the event loop
for the deep ones), and hands every move to its :class:`TableHost`, which applies, stores and
publishes it. :class:`host.local.LocalTable` and ``net.runtime.registry.SharedTable`` are hosts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from engine.actions import Action
from engine.bots import Player
from engine.expiry import expiry_action
from engine.game import Game
from engine.runner import BotMove, Expire, NextGame, NextHand, SeatState, TableRunner, Wait
from engine.view import View, build_view
from host.client import TableUpdate
from host.clock import SYSTEM_CLOCK, Clock
from host.refusal import Refusal

log = logging.getLogger("host.table_loop")


@runtime_checkable
class Deliberating(Protocol):
    """A computer player that decides elsewhere (:class:`host.thinking.PooledPlayer`: in a
    worker process): the loop awaits its answer."""

    async def decide(self, view: View) -> Action: ...


class TableHost(Protocol):
    """What a table loop needs of the table it runs."""

    @property
    def game(self) -> Game | None: ...

    def seat_states(self, now: float) -> Sequence[SeatState]:
        """Who plays each of the four seats at ``now``."""

    def watched(self) -> bool:
        """Whether the table plays on now (not while it is paused)."""

    def player(self, seat: int) -> tuple[Player, bool]:
        """The computer player for ``seat``, and whether it thinks in a thread (a
        :class:`Deliberating` one thinks where it says)."""

    def play(self, seat: int, action: Action) -> Refusal | None:
        """Apply ``action`` for ``seat`` (and store and publish it): None, or why not."""

    def deal_next(self) -> None:
        """Deal the next hand (and tell the runner: :meth:`TableRunner.new_hand`)."""

    def next_game(self) -> None:
        """Start a new game with the same rules and options (every player asked for it)."""

    def expired(self, seat: int) -> None:
        """The timer of ``seat`` ran out and its expiry was played."""

    def publish(self) -> None:
        """Send each seat its update, where it changed."""


def table_update(game: Game, runner: TableRunner, seat: int | None,
                 names: tuple[str, str, str, str]) -> TableUpdate | None:
    """What ``seat`` (None: a spectator) sees of ``game`` now, with its timer; None before the
    first hand."""
    if game.hand is None:
        return None
    view = build_view(game.hand, seat)
    deadline, total = runner.deadline(seat, view)
    return TableUpdate(
        view=view,
        deadline=deadline,
        timer_seconds=total,
        bank_seconds=runner.banked_for(seat, view),
        totals=(game.scores[0], game.scores[1], game.scores[2], game.scores[3]),
        history=tuple(game.history),
        hands_per_game=game.hands_per_game,
        game_over=game.is_over,
        names=names,
        waiting_for=runner.waiting_for(game),
    )


class Waker:
    """A loop task sleeps in :meth:`wait` until someone calls :meth:`kick` or a deadline."""

    def __init__(self, clock: Clock = SYSTEM_CLOCK) -> None:
        self._event = asyncio.Event()
        self.clock = clock

    def kick(self) -> None:
        self._event.set()

    async def wait(self, deadline: float | None) -> bool:
        """Sleep until kicked (True) or until ``deadline`` on the clock (False)."""
        try:
            return await self.clock.wait(self._event, deadline)
        finally:
            self._event.clear()


class TableLoop:
    """One task per table: asks the runner, waits, plays."""

    def __init__(self, host: TableHost, runner: TableRunner, clock: Clock = SYSTEM_CLOCK,
                 name: str = "table") -> None:
        self.host = host
        self.runner = runner
        self.clock = clock
        self.name = name
        self.waker = Waker(clock)
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._yielded: tuple[int, int] | None = None  # the move the loop last yielded before
        # nothing is due until a deadline or a kick: a test waits for this before its next key
        self.waiting = False

    def start(self) -> None:
        """Run the loop (it runs until :meth:`close`); if it runs, wake it."""
        self.waiting = False
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self.name)
        else:
            self.waker.kick()

    def kick(self) -> None:
        """Something changed: ask the runner again now."""
        self.waiting = False  # until the loop has asked and found nothing due
        self.waker.kick()

    def close(self) -> None:
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _run(self) -> None:
        try:
            while not self._closed:
                await self.turn()
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug here must not take the program down
            log.exception("%s: loop failed", self.name)

    async def turn(self) -> None:
        """One step: whatever the runner says is due now, or a wait for the next."""
        host, runner = self.host, self.runner
        game = host.game
        now = self.clock.now()
        step = runner.step(game, now, host.seat_states(now), host.watched())
        if isinstance(step, Wait) or game is None or game.hand is None:
            host.publish()
            self.waiting = True
            try:
                await self.waker.wait(step.until if isinstance(step, Wait) else None)
            finally:
                self.waiting = False
            return
        if isinstance(step, NextHand):
            host.deal_next()
            return
        if isinstance(step, NextGame):
            host.next_game()
            return
        hand = game.hand
        stamp = (id(hand), hand.version)
        seat = step.seat
        if isinstance(step, Expire):
            runner.expired(seat, hand.phase)
            with contextlib.suppress(StopIteration):  # no move the timer may play (none seen)
                error = host.play(seat, expiry_action(build_view(hand, seat)))
                if error:
                    log.error("%s: the timer's move for seat %s was refused: %s",
                              self.name, seat, error)
            host.expired(seat)
            return
        assert isinstance(step, BotMove)
        if step.paced and self._yielded != stamp:
            # a move nobody else waits on: let the screens run before it, then ask again
            self._yielded = stamp
            await asyncio.sleep(0)
            return
        player, threaded = host.player(seat)
        view = build_view(hand, seat)
        if threaded or isinstance(player, Deliberating):
            # A deep player thinks in a thread, or in another process (host.thinking): the
            # loop (every session's screen) gets the interpreter back at least every switch
            # interval instead of waiting out the decision. The view is a snapshot; if the
            # table moved on meanwhile (a claim, a timer) the answer is dropped.
            if isinstance(player, Deliberating):
                action = await player.decide(view)
            else:
                action = await asyncio.to_thread(player.choose, view)
            if host.game is not game or (id(game.hand), game.hand.version) != stamp:
                return
        else:
            action = player.choose(view)
        error = host.play(seat, action)
        if error:
            log.error("%s: the computer player of seat %s played an illegal action: %s",
                      self.name, seat, error)
            host.play(seat, expiry_action(build_view(hand, seat)))
