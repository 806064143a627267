"""Waiting on a condition instead of for a fixed time."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any


async def until(cond: Callable[[], Any], timeout: float = 10.0, what: str = "condition", *,
                each_turn: Callable[[], None] | None = None) -> None:
    """Return as soon as ``cond()`` holds, failing after ``timeout`` seconds.

    The first checks come a turn of the loop apart (what the test waits for is usually one
    callback away); after that the waits back off to a few milliseconds, so that waiting on
    a socket or another task does not spin. ``each_turn`` checks a bound at every turn.
    """
    end = time.monotonic() + timeout
    delay = 0.0
    turns = 0
    while True:
        if each_turn is not None:
            each_turn()
        if cond():
            return
        if time.monotonic() > end:
            raise AssertionError(f"timed out: {what}")
        await asyncio.sleep(delay)
        turns += 1
        if turns >= 20:
            delay = min(0.01, max(delay * 2, 0.0005))
