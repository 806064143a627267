"""The coach at a practice table (the table option ``coach=on``, never rated): a seated player
asks for the expert's view of the decision in front of him, the review's assessment of it
(:func:`engine.review.advise`: the choices the expert weighs, their figures, its choice, and
why), live.

The assessment reads only the seat's own :class:`~engine.view.View`, the one its screen was
sent (its own concealed tiles, never another seat's): the expert samples the hidden tiles as
it does at the table. It takes 50–400 ms of CPU, so it runs in the thinking pool's worker
processes (:meth:`host.thinking.ThinkingPool.assess`), never on the event loop: within the
turn's time left (at most :attr:`Coach.limit`), and within the player's own CPU share (a
:class:`~host.thinking.TokenBucket`), so that coaching never starves the tables' computer
players. One at a time: a second ask while one is thinking is answered "still thinking", not
queued. The fronts (the table screen's key, plain mode's ``coach``) drop an answer that comes
after the decision has gone (:func:`decision_key`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from engine.review import REVIEW_SAMPLES, Assessment
from engine.table import Phase
from engine.view import View
from host.client import TableUpdate
from host.thinking import Budget, ThinkingPool, TokenBucket

COACH_OPTION: Final = "coach"  # the table option
# the most an assessment may take where the turn has no timer (seconds), and a player's CPU
# share of the pool: about one assessment every 4 s on average, 4 at once (the server passes
# its own, net.limits)
COACH_SECONDS: Final = 10.0
COACH_BUDGET: Final = Budget(share=0.1, burst=1.5)


def coach_table(options: Any) -> bool:
    """Whether a table of these options (a view's pairs, a mapping) has the coach."""
    pairs = options.items() if hasattr(options, "items") else options
    return any(key == COACH_OPTION and bool(value) for key, value in pairs)


def refusal(view: View | None) -> str | None:
    """Why the coach may not assess now, as a word's key (None: it may): not a coach table, a
    spectator, no decision in front of the player (not his move, or one action only)."""
    if view is None:
        return "coach_nothing"
    if not coach_table(view.options):
        return "coach_off"
    if view.viewer is None:
        return "coach_spectator"
    if not view.my_move or len(view.legal) < 2 or view.phase is Phase.ENDED:
        return "coach_nothing"
    return None


def ask(update: TableUpdate | None, coach: Coach | None, now: float
        ) -> tuple[str, None] | tuple[None, float | None]:
    """Whether a seat's coach may be asked now, for both front ends: ``(why, None)`` with the
    word's key of why not (:func:`refusal`, no coach on this server, one already thinking),
    or ``(None, seconds)`` with the turn's time left (None: no timer)."""
    why = refusal(update.view if update is not None else None)
    if why is None and coach is None:
        why = "coach_failed"
    if why is None and coach is not None and coach.thinking:
        why = "coach_thinking"
    if why is not None or update is None or coach is None:
        return why or "coach_failed", None
    return None, (update.deadline - now if update.deadline is not None else None)


def decision_key(view: View) -> tuple[Any, ...]:
    """What tells one decision from the next: an answer for another is dropped."""
    return (view.hand_no, view.phase.value, view.current, view.remaining,
            sum(len(p.pond) for p in view.seats), sum(len(p.melds) for p in view.seats),
            view.legal)


@dataclass(frozen=True)
class Advice:
    """The coach's answer: the assessment, or why none (a word's key)."""

    assessment: Assessment | None
    why: str = ""


class Coach:
    """One player's coach (a session's, or ``play``'s): the pool's workers, his CPU share. A
    coach without a pool makes one of one worker at its first ask (``play``), closed with it."""

    def __init__(self, pool: ThinkingPool | None = None, budget: Budget = COACH_BUDGET,
                 limit: float = COACH_SECONDS, samples: int = REVIEW_SAMPLES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.pool = pool
        self._own = pool is None
        self.bucket = TokenBucket(budget, clock)
        self.limit = limit
        self.samples = samples
        self.thinking = False  # an assessment is in flight

    async def advise(self, view: View, seconds: float | None) -> Advice:
        """The assessment of ``view``'s decision within ``seconds`` (the turn's time left;
        None: no timer) and :attr:`limit`; while another is thinking, ``coach_thinking``."""
        why = refusal(view)
        if why is not None:
            return Advice(None, why)
        if self.thinking:
            return Advice(None, "coach_thinking")
        if self.pool is None:
            self.pool = ThinkingPool(1)
        budget = self.limit if seconds is None else min(self.limit, seconds)
        self.thinking = True
        try:
            answer = await self.pool.assess(view, self.samples, budget, self.bucket)
        finally:
            self.thinking = False
        if isinstance(answer, str):
            return Advice(None, answer)
        return Advice(answer)

    def close(self) -> None:
        """The player leaves: a pool of the coach's own is shut down."""
        if self._own and self.pool is not None:
            self.pool.close()
            self.pool = None
