"""The review over SSH: ``r`` on a game's game-over screen opens the expert's review of the
player's own play (``tui.review``), read from the store like ``ssh host replay ID``.

The assessments of every review in this server process run in one process pool
(:class:`ReviewPool`: one worker at a lower priority, :mod:`tui.review_pool`), made the first
time a review asks and shut down with the server; never on the event loop, nor in a thread of
it. Each review screen queues at most two at a time, so reviews open together take turns, and
a review left (q, Esc) or disconnected cancels what it had queued.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from engine.bots.expert import SAMPLES
from engine.review import Assessment, Decision, assess
from net.front import replay
from net.store.base import Store
from tui.client import TableUpdate
from tui.i18n import tr
from tui.replay import ReplayGame
from tui.review import ReviewUnavailable
from tui.review_pool import niced_pool

log = logging.getLogger(__name__)


class ReviewPool:
    """The server's one process for assessments, started when a review first needs it."""

    def __init__(self, samples: int = SAMPLES) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self.samples = samples  # sampled hidden hands per action (the expert's own count)
        self.closed = False
        self.submitted = 0

    @property
    def started(self) -> bool:
        return self._pool is not None

    def submit(self, decision: Decision, samples: int) -> Future[Assessment]:
        """Queue ``decision``'s assessment; a worker that died is replaced once."""
        if self.closed:
            raise RuntimeError("the server is stopping")
        if self._pool is None:
            self._pool = niced_pool()
        try:
            future = self._pool.submit(assess, decision, samples)
        except BrokenProcessPool:  # its worker died (killed, out of memory): a new one
            log.warning("the review process died: starting another")
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = niced_pool()
            future = self._pool.submit(assess, decision, samples)
        self.submitted += 1
        return future

    def close(self) -> None:
        """Cancel what is queued and let the worker go (it ends after the assessment it is on,
        a fraction of a second)."""
        self.closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


class StoreReviews:
    """A session's :class:`~tui.review.ReviewSource`: the game kept under the game-over
    view's ID, and the server's pool."""

    def __init__(self, store: Store, pool: ReviewPool) -> None:
        self.store = store
        self.pool = pool

    @property
    def samples(self) -> int:
        return self.pool.samples

    async def game(self, update: TableUpdate, lang: str) -> ReplayGame:
        if not update.game_id:
            raise ReviewUnavailable(tr(lang, "rv_no_game"))
        try:
            return await replay.replay_game(self.store, update.game_id)
        except replay.GameNotFound as exc:
            raise ReviewUnavailable(tr(lang, "rv_not_found", why=exc)) from None

    def submit(self, decision: Decision, samples: int) -> Future[Assessment]:
        return self.pool.submit(decision, samples)
