"""Waking a table's loop task: the one small mechanism the local and the server tables share."""

from __future__ import annotations

import asyncio
import time


class Waker:
    """A loop task sleeps in :meth:`wait` until someone calls :meth:`kick` or a deadline."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def kick(self) -> None:
        self._event.set()

    async def wait(self, deadline: float | None) -> bool:
        """Sleep until kicked (True) or until ``deadline``, a ``time.monotonic()`` (False)."""
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        finally:
            self._event.clear()
        return True
