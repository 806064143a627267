"""Waiting on a condition instead of for a fixed time."""

from __future__ import annotations

import asyncio
import re
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


def toast_says(words: str) -> Callable[[str], bool]:
    """A screen predicate: ``words`` are in a notice (a toast, ``▌``-bordered, in the narrow
    right-hand column, where a notice wraps over several rows) or anywhere on one row."""
    def seen(text: str) -> bool:
        # a notice's row is its text after the border, up to the table showing past its end
        rows = [re.split(r"\s{2,}", row.split("▌", 1)[1].strip())[0]
                for row in text.splitlines() if "▌" in row]
        joined = " ".join(rows)
        return words in text or words in joined or words in joined.replace(" ", "")

    return seen
