"""Deep computer players' decisions in worker processes: a lazily made process pool, a CPU
budget per table, and ``hard`` in-process whenever the pool may not or cannot answer.

``expert`` (:class:`engine.bots.ExpertPlayer`) takes 50–400 ms of CPU a decision, sometimes a
second. In a thread it would still share the interpreter lock with every session's screen on
the event loop, so it thinks in another process: :class:`ThinkingPool` sends the seat's
:class:`~engine.view.View` (a frozen dataclass, it pickles) and the level to a worker, which
keeps one player per level (a decision is a pure function of the view, so any worker answers
the same) and sends back the :class:`~engine.actions.Action` and the CPU it took. Workers are
spawned (never forked from a process with an event loop and threads), run at ``nice`` 10 so
the screens come first, and there are ``cpu_count - 1`` of them by default.

Each table spends from a :class:`TokenBucket` (``share`` seconds of worker CPU per second of
wall time on average, ``burst`` at once), and the pool's queue is bounded: a decision over the
table's budget, or with the queue full, is made by ``hard`` in a thread of this process instead
(a few milliseconds) — a server full of expert tables keeps its screens responsive and shares
the workers fairly between its tables. A worker that dies breaks its executor: the pool makes a
new one for the next decision, and the decisions in flight are made by ``hard`` at once (not
retried: the view that was being searched may be what killed the worker, and a retry would wait
out a new worker's start on top). A worker that takes longer than ``timeout`` is also answered
for by ``hard``. Every fallback is counted in :class:`ThinkingStats` and logged (debug), with a
summary line at most once a minute.

Used by the server (``serve --think-workers N``, net.runtime) and by ``play`` (one worker), so
it lives beside :mod:`host.table_loop`, which awaits :meth:`PooledPlayer.decide`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Final

from engine.actions import Action
from engine.bots import Player, make_player
from engine.review import Assessment, advise
from engine.view import View
from host.review_pool import _tracker_running as tracker_running

log = logging.getLogger("host.thinking")

POOLED_LEVELS: Final = frozenset({"expert"})  # the levels whose decisions go to the pool
FALLBACK_LEVEL: Final = "hard"  # who decides when the pool may not or cannot
NICE: Final = 10  # the workers' niceness: the event loop's screens come first
TIMEOUT: Final = 10.0  # seconds a decision may take in a worker before hard answers instead
SUMMARY_EVERY: Final = 60.0  # seconds between the fallbacks' summary lines in the log


def default_workers() -> int:
    """One worker per core but one (the event loop keeps a core), at least one."""
    return max(1, (os.cpu_count() or 1) - 1)


# --- in the worker process ------------------------------------------------------------------
_players: dict[str, Player] = {}
_make: list[Callable[[str], Player]] = [make_player]  # the pool's ``players``


def _init_worker(nice: int, players: Callable[[str], Player] = make_player) -> None:
    """Each worker: lower its priority, leave Ctrl-C in the terminal to its parent (which
    ends it as it stops; the worker would only print a traceback), load the players before the
    first decision."""
    if nice:
        with contextlib.suppress(OSError, AttributeError):  # AttributeError: no os.nice
            os.nice(nice)
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _make[0] = players
    import engine.bots.expert  # noqa: F401  (the import is the start-up cost: pay it now)


def _decide(level: str, view: View) -> tuple[Action, float]:
    """In a worker: ``level``'s action for ``view`` and the CPU seconds it took."""
    start = time.process_time()
    player = _players.get(level)
    if player is None:
        player = _players[level] = _make[0](level)
    action = player.choose(view)
    return action, time.process_time() - start


def _advise(view: View, samples: int) -> tuple[Assessment, float]:
    """In a worker: the coach's assessment of ``view``'s decision (:func:`engine.review.advise`)
    and the CPU seconds it took."""
    start = time.process_time()
    assessed = advise(view, samples)
    return assessed, time.process_time() - start


def _ready() -> int:
    """In a worker: nothing (a first task that makes the executor start its workers)."""
    return os.getpid()


# --- in the server (or ``play``) --------------------------------------------------------------
@dataclass(frozen=True)
class Budget:
    """A table's share of the workers: ``share`` seconds of worker CPU per second of wall time
    on average, and at most ``burst`` seconds ahead of that."""

    share: float = 0.5
    burst: float = 2.0


class TokenBucket:
    """A table's CPU budget (:class:`Budget`): full at first, it fills at ``share`` per second
    up to ``burst``; each decision's CPU is taken out after it (it may go below zero: the table
    then waits out its debt, in ``hard`` decisions)."""

    def __init__(self, budget: Budget, now: Callable[[], float] = time.monotonic) -> None:
        self.budget = budget
        self.now = now
        self.tokens = budget.burst
        self._at = now()

    def _refill(self) -> None:
        t = self.now()
        self.tokens = min(self.budget.burst, self.tokens + max(0.0, t - self._at)
                          * self.budget.share)
        self._at = t

    def allows(self) -> bool:
        """Whether a decision may go to the pool now (something is left in the bucket)."""
        self._refill()
        return self.tokens > 0

    def spend(self, seconds: float) -> None:
        self._refill()
        self.tokens -= seconds


@dataclass
class ThinkingStats:
    """What the pool did since it was made: decisions answered by a worker (and their CPU),
    and those made by ``hard`` in-process instead, by why."""

    pooled: int = 0
    cpu_seconds: float = 0.0
    over_budget: int = 0  # the table had spent its share
    queue_full: int = 0  # the pool had ``max_queue`` decisions in flight
    failed: int = 0  # a worker died (or raised) while deciding
    timed_out: int = 0  # a worker took longer than ``timeout``
    restarts: int = 0  # executors made again after a worker died
    # the coach's assessments (host.coach): answered, and their CPU; not answered in time
    coached: int = 0
    coach_cpu_seconds: float = 0.0
    coach_late: int = 0
    _summarised: tuple[int, float] = field(default=(0, 0.0), repr=False)

    @property
    def fallbacks(self) -> int:
        return self.over_budget + self.queue_full + self.failed + self.timed_out

    def line(self) -> str:
        return (f"{self.pooled} decisions in worker processes ({self.cpu_seconds:.1f} s CPU), "
                f"{self.fallbacks} by {FALLBACK_LEVEL} instead (over a table's budget "
                f"{self.over_budget}, queue full {self.queue_full}, worker failed "
                f"{self.failed}, too slow {self.timed_out}); workers restarted "
                f"{self.restarts} times")


class ThinkingPool:
    """The process pool deep players think in (module docstring). The executor is made at the
    first decision (or :meth:`warm`); :meth:`close` shuts it down."""

    def __init__(self, workers: int | None = None, max_queue: int | None = None,
                 timeout: float = TIMEOUT, nice: int = NICE,
                 clock: Callable[[], float] = time.monotonic,
                 players: Callable[[str], Player] = make_player) -> None:
        self.workers = workers if workers is not None else default_workers()
        if self.workers < 1:
            raise ValueError("a thinking pool needs at least one worker")
        # decisions in flight before the next goes to hard: each worker busy and one waiting
        self.max_queue = max_queue if max_queue is not None else 2 * self.workers
        self.timeout = timeout
        self.nice = nice
        self.clock = clock
        # what makes a worker's player for a level (a module-level function: it is pickled to
        # the workers); tests give slower ones
        self.players = players
        self.stats = ThinkingStats()
        self.in_flight = 0
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._lock = threading.Lock()  # the executor is made once, even from two threads
        self._closed = False

    # --- the executor ---------------------------------------------------------------------
    def executor(self) -> concurrent.futures.ProcessPoolExecutor:
        """The executor, made now if there is none (the first decision, or after a worker
        died)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the thinking pool is closed")
            if self._executor is None:
                tracker_running()  # with the real stderr, also inside a Textual app
                self._executor = concurrent.futures.ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init_worker, initargs=(self.nice, self.players))
            return self._executor

    def warm(self) -> None:
        """Start the workers now (a table with a deep player is starting): the first decision
        does not wait out their start-up (a second or so for a spawned interpreter and the
        engine's import)."""
        if self._closed or self._executor is not None:
            return
        with contextlib.suppress(RuntimeError, BrokenProcessPool):
            ex = self.executor()
            for _ in range(self.workers):
                ex.submit(_ready)

    def worker_pids(self) -> list[int]:
        """The worker processes' ids (tests kill one)."""
        ex = self._executor
        procs = getattr(ex, "_processes", None) or {}
        return [p.pid for p in list(procs.values()) if p.pid is not None]

    def _broken(self, executor: concurrent.futures.ProcessPoolExecutor) -> None:
        """``executor`` lost a worker: drop it, the next decision makes a new one."""
        with self._lock:
            if self._executor is not executor:
                return  # another decision replaced it already
            self._executor = None
        self.stats.restarts += 1
        log.warning("a thinking worker died: its pool is replaced (%s)", self.stats.line())
        executor.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Shut the workers down (the server stops): decisions in flight end as fallbacks."""
        with self._lock:
            self._closed = True
            ex, self._executor = self._executor, None
        if ex is not None:
            # the workers are ended, not waited for: a stopping server (or play) does not wait
            # out a decision, and a worker left deciding for a task that is gone would keep
            # the executor (and the process's exit, which joins it) waiting on it
            procs = list((getattr(ex, "_processes", None) or {}).values())  # shutdown drops it
            ex.shutdown(wait=False, cancel_futures=True)
            for proc in procs:
                with contextlib.suppress(Exception):
                    proc.terminate()

    # --- a decision -----------------------------------------------------------------------
    async def decide(self, level: str, view: View, fallback: Player,
                     bucket: TokenBucket | None = None) -> Action:
        """``level``'s action for ``view`` from a worker; ``fallback``'s, in a thread of this
        process, when ``bucket`` is spent, the queue is full, or the worker fails."""
        why = self._refusal(bucket)
        if why is None:
            executor = None
            self.in_flight += 1
            try:
                executor = self.executor()
                future = executor.submit(_decide, level, view)
                action, cpu = await asyncio.wait_for(asyncio.wrap_future(future), self.timeout)
            except TimeoutError:
                self.stats.timed_out += 1
                why = "too slow"
            except (BrokenProcessPool, RuntimeError, OSError) as exc:
                # a dead worker breaks the executor (BrokenProcessPool); RuntimeError: it was
                # shut down meanwhile (the pool closed, or replaced by another decision)
                self.stats.failed += 1
                why = f"worker failed: {type(exc).__name__}"
                if executor is not None and isinstance(exc, BrokenProcessPool):
                    self._broken(executor)
            finally:
                self.in_flight -= 1
            if why is None:
                self.stats.pooled += 1
                self.stats.cpu_seconds += cpu
                if bucket is not None:
                    bucket.spend(cpu)
                return action
        log.debug("%s decision by %s in-process: %s", level, FALLBACK_LEVEL, why)
        self._summary()
        return await asyncio.to_thread(fallback.choose, view)

    async def assess(self, view: View, samples: int, seconds: float,
                     bucket: TokenBucket | None = None) -> Assessment | str:
        """The coach's assessment of ``view``'s decision from a worker, within ``seconds``
        (the turn's time left, bounded by the caller) and ``bucket``; else why not, as a
        word's key: ``coach_late`` (not answered in time: a worker keeps on with it, as the
        answer is dropped, but a queued one is taken off), ``coach_busy`` (over the budget, or
        the queue full: the table's own computer players come first), ``coach_failed``."""
        if self._closed or (bucket is not None and not bucket.allows()) \
                or self.in_flight >= self.max_queue:
            return "coach_failed" if self._closed else "coach_busy"
        executor = None
        self.in_flight += 1
        try:
            executor = self.executor()
            future = executor.submit(_advise, view, samples)
            try:
                assessed, cpu = await asyncio.wait_for(asyncio.wrap_future(future),
                                                       max(0.0, seconds))
            except TimeoutError:
                future.cancel()
                self.stats.coach_late += 1
                return "coach_late"
        except (BrokenProcessPool, RuntimeError, OSError) as exc:
            log.debug("the coach's assessment failed: %s", type(exc).__name__)
            if executor is not None and isinstance(exc, BrokenProcessPool):
                self._broken(executor)
            return "coach_failed"
        finally:
            self.in_flight -= 1
        self.stats.coached += 1
        self.stats.coach_cpu_seconds += cpu
        if bucket is not None:
            bucket.spend(cpu)
        return assessed

    def _refusal(self, bucket: TokenBucket | None) -> str | None:
        """Why this decision may not go to the pool (None: it may)."""
        if self._closed:
            self.stats.failed += 1
            return "the pool is closed"
        if bucket is not None and not bucket.allows():
            self.stats.over_budget += 1
            return "the table is over its budget"
        if self.in_flight >= self.max_queue:
            self.stats.queue_full += 1
            return "the queue is full"
        return None

    def _summary(self) -> None:
        """A line in the log about the fallbacks, at most every :data:`SUMMARY_EVERY`."""
        count, at = self.stats._summarised
        now = self.clock()
        if self.stats.fallbacks > count and (count == 0 or now - at >= SUMMARY_EVERY):
            self.stats._summarised = (self.stats.fallbacks, now)
            log.info("thinking: %s", self.stats.line())


class PooledPlayer:
    """A seat's deep player at a table: it decides in ``pool`` within the table's ``bucket``
    (:meth:`decide`, awaited by :class:`host.table_loop.TableLoop`), ``fallback`` answering
    when the pool does not. :meth:`choose` decides in-process (the plain :class:`Player`)."""

    def __init__(self, pool: ThinkingPool, level: str, fallback: Player | None = None,
                 bucket: TokenBucket | None = None) -> None:
        self.pool = pool
        self.level = level
        self.fallback = fallback if fallback is not None else make_player(FALLBACK_LEVEL)
        self.bucket = bucket
        self._own: Player | None = None

    def choose(self, view: View) -> Action:
        if self._own is None:
            self._own = make_player(self.level)
        return self._own.choose(view)

    async def decide(self, view: View) -> Action:
        return await self.pool.decide(self.level, view, self.fallback, self.bucket)
