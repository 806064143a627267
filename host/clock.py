"""The clock a table runs on: the system's monotonic clock, or one a test moves by hand.

A table reads the time and waits for deadlines only through a :class:`Clock`, so a test can
run a turn timer, a grace period or a result screen's wait in no time: it advances a
:class:`ManualClock` and the table acts as if that much time had passed.
"""

from __future__ import annotations

import asyncio
import contextvars
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""

    async def wait(self, event: asyncio.Event, deadline: float | None) -> bool:
        """Until ``event`` is set (True) or the clock reaches ``deadline`` (False; None:
        no deadline)."""

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Call ``callback`` from the event loop ``delay`` seconds from now (unless
        cancelled)."""

    def wall(self) -> float:
        """The wall clock's time (Unix seconds): for a time people set, as a tournament's
        start; it moves as :meth:`now` does."""


class SystemClock:
    """``time.monotonic()`` and asyncio's own timeouts."""

    def now(self) -> float:
        return time.monotonic()

    async def wait(self, event: asyncio.Event, deadline: float | None) -> bool:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)

    def wall(self) -> float:
        return time.time()


SYSTEM_CLOCK = SystemClock()


class ManualClock:
    """A clock that moves only when :meth:`advance` is called (for tests and tutorials)."""

    def __init__(self, start: float | None = None) -> None:
        # near the system clock's reading, so a deadline shown on a screen still makes sense
        self._now = time.monotonic() if start is None else start
        self._wall_start = time.time() - self._now  # wall() moves with now(), from today's
        self._tick: asyncio.Event | None = None
        self._timers: list[tuple[float, int, _ManualTimer]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    async def wait(self, event: asyncio.Event, deadline: float | None) -> bool:
        while True:
            if event.is_set():
                return True
            if deadline is not None and self._now >= deadline:
                return False
            if self._tick is None:
                self._tick = asyncio.Event()
            tick = self._tick
            waits = {asyncio.ensure_future(event.wait()), asyncio.ensure_future(tick.wait())}
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for w in waits:
                    w.cancel()

    def wall(self) -> float:
        return self._wall_start + self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = _ManualTimer(callback, contextvars.copy_context())
        heapq.heappush(self._timers, (self._now + max(0.0, delay), next(self._order), timer))
        return timer

    async def advance(self, seconds: float) -> None:
        """Move the clock on, call the timers that fell due, and let every waiter whose
        deadline passed run."""
        if seconds < 0:
            raise ValueError("a monotonic clock does not go back")
        self._now += seconds
        while self._timers and self._timers[0][0] <= self._now:
            _, _, timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                timer.context.run(timer.callback)  # in the context it was made in, as asyncio
        tick, self._tick = self._tick, None
        if tick is not None:
            tick.set()
        for _ in range(3):  # the woken tasks run, and what they schedule at once
            await asyncio.sleep(0)


class _ManualTimer:
    def __init__(self, callback: Callable[[], None], context: contextvars.Context) -> None:
        self.callback = callback
        self.context = context
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True
