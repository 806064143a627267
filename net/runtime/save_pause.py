"""The disk-full pause: a table whose writes the store holds unsaved (a full disk, a database
that cannot be written) applies and shows nothing more until the store has written what it
holds; the held writes are tried again on the table's clock, and at every write the table
makes meanwhile (a player joining)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from host.clock import Clock, Timer
from net.logfmt import about
from net.store.base import Store

log = logging.getLogger("net.runtime.shared_table")  # a table's lines, all under its logger


class SavePause:
    """Table ``name``'s pause. ``on_pause``, ``on_resume``: the table tells its sessions."""

    def __init__(self, name: str, store: Store | None, clock: Clock, retry_seconds: float,
                 on_pause: Callable[[], None], on_resume: Callable[[], None]) -> None:
        self.name = name
        self.store = store
        self.clock = clock
        self.retry_seconds = retry_seconds
        self.on_pause = on_pause
        self.on_resume = on_resume
        self.paused = False  # nothing is applied or shown until the held writes are saved
        self._timer: Timer | None = None
        self._closed = False

    def check(self) -> None:
        """After the table's writes: pause it if the store holds one of them (it could not
        be saved), resume it if the store has now written all it held."""
        store = self.store
        if store is None or self._closed:
            return
        if store.unsaved(self.name):
            if not self.paused:
                self.paused = True
                log.warning("table %s: paused, its writes cannot be saved", self.name,
                            extra=about(table=self.name))
                self._schedule()
                self.on_pause()
        elif self.paused:
            self.paused = False
            self._cancel()
            log.warning("table %s: resumed, its writes are saved again", self.name,
                        extra=about(table=self.name))
            self.on_resume()

    def saved_up(self) -> bool:
        """Whether the table may move on: nothing of it is held unsaved by the store (tried
        again now if something is)."""
        store = self.store
        if store is None or not (self.paused or store.unsaved(self.name)):
            return True
        return self._retry()

    def _retry(self) -> bool:
        """Try the held writes now; True when the table is no longer paused."""
        if self.store is not None:
            self.store.retry(self.name)
        self.check()
        return not self.paused

    def _schedule(self) -> None:
        if self._timer is not None or self._closed:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a test building tables by hand): its next write tries again
        self._timer = self.clock.call_later(self.retry_seconds, self._tick)

    def _tick(self) -> None:
        self._timer = None
        if self.paused and not self._retry():
            self._schedule()

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def close(self) -> None:
        self._closed = True
        self._cancel()
