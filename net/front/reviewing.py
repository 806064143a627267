"""The review over SSH: ``r`` on a game's game-over screen opens the expert's review of the
player's own play (``tui.apps.review``), read from the store like ``ssh host replay ID``; so does
``ssh host review [ID]`` (:class:`RemoteReviewApp`).

The assessments of every review in this server process run in one process pool
(:class:`ReviewPool`: one worker at a lower priority, :mod:`host.review_pool`), made the first
time a review asks and shut down with the server; never on the event loop, nor in a thread of
it. Each review screen queues at most two at a time, so reviews open together take turns, and
a review left (q, Esc) or disconnected cancels what it had queued.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from engine.review import REVIEW_SAMPLES, Assessment, Decision, assess
from host.client import TableUpdate
from host.review_pool import niced_pool
from net.front import replay
from net.front.remote_app import ServerSide
from net.store.base import Store
from tui.apps.puzzles import PuzzleScreen
from tui.apps.replay import ListedGame, ReplayGame
from tui.apps.review import ReviewApp, ReviewGame, ReviewUnavailable
from tui.settings import Settings
from words import tr

log = logging.getLogger(__name__)


class ReviewPool:
    """The server's one process for assessments, started when a review first needs it."""

    def __init__(self, samples: int = REVIEW_SAMPLES) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self.samples = samples  # sampled hidden hands per action (engine.review's)
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
    """A session's :class:`~tui.apps.review.ReviewSource`: the game kept under the game-over
    view's ID (``held``: why one is not shown now, a tournament round's), and the server's
    pool."""

    def __init__(self, store: Store, pool: ReviewPool, held: replay.Held | None = None) -> None:
        self.store = store
        self.pool = pool
        self.held = held

    @property
    def samples(self) -> int:
        return self.pool.samples

    async def game(self, update: TableUpdate, lang: str) -> ReplayGame:
        if not update.game_id:
            raise ReviewUnavailable(tr(lang, "rv_no_game"))
        try:
            return await replay.replay_game(self.store, update.game_id, self.held)
        except replay.GameNotFound as exc:
            raise ReviewUnavailable(tr(lang, "rv_not_found", why=exc)) from None

    def submit(self, decision: Decision, samples: int) -> Future[Assessment]:
        return self.pool.submit(decision, samples)


def seat_in(game: ReplayGame, games: list[ListedGame], game_id: str, nickname: str
            ) -> int | None:
    """The account's seat in the game kept under ``game_id``: from its list of games (its
    ``game_players`` rows), else the one seat the record names it at; None: not its game."""
    for g in games:
        if g.game_id == game_id:
            return g.seat
    seats = [s for s, name in enumerate(game.names) if name and name == nickname]
    return seats[0] if len(seats) == 1 else None


class RemoteReviewApp(ServerSide, ReviewApp):
    """``ssh host review ID``: the review for one SSH session, the client's terminal, nothing
    acting on the server (:class:`~net.front.remote_app.ServerSide`)."""

    def __init__(self, review: ReviewGame, pool: ReviewPool, settings: Settings,
                 term: str = "xterm", colorterm: str = "") -> None:
        super().__init__(review, pool.submit, settings, pool.samples)
        self.client_terminal(term, colorterm)


class RemotePuzzleApp(RemoteReviewApp):
    """``ssh host puzzles ID``: the costly decisions of one's own play as puzzles
    (:class:`~tui.apps.puzzles.PuzzleScreen`), the review's pool assessing them."""

    TITLE = "mahjong-ssh puzzles"
    SCREEN = PuzzleScreen
