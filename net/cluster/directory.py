"""Which worker owns which table: a JetStream key-value bucket, one key per table, watched by
every worker, and each table's lease kept in it.

A table's key holds its :class:`~net.cluster.wire.Entry` (owner, the lobby's facts). Its owner
rewrites the key every :data:`RENEW_SECONDS` with ``update(..., last=revision)``: a write that
only succeeds if nobody else wrote the key since, so two workers never both renew one lease.
The revision at which a worker acquired a table is its *fencing token*: the store refuses the
table's writes from any lower token (``Store.claim_table``), so a worker that lost the lease,
paused or cut off, persists nothing either.

No clock is shared between machines. An owner acts only within :data:`VALID_SECONDS` of its
last successful renewal, on its own monotonic clock; every other worker notes, on its own
clock, when it last saw the key change, and takes the table over only after
:data:`TAKEOVER_SECONDS` without a change. A renewal is seen after it succeeded, so by the
time anyone takes over, the old owner has stopped acting for at least a second.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nats.js.errors import BucketNotFoundError, KeyWrongLastSequenceError

from net.cluster import wire
from net.cluster.wire import Entry

log = logging.getLogger("net.cluster")

BUCKET = "mj_tables"
RENEW_SECONDS = 1.0  # an owner rewrites each of its tables' keys this often
VALID_SECONDS = 2.0  # and acts for a table only this long after its last renewal
TAKEOVER_SECONDS = 3.0  # another worker takes a table over after this long without a change
FREE = ""  # the owner an entry names when its worker let it go (a clean stop)


def table_key(name: str) -> str:
    """A table's key in the bucket (names are any script; keys are [A-Za-z0-9_=-.])."""
    return "t." + base64.urlsafe_b64encode(name.encode("utf-8")).decode("ascii").rstrip("=")


@dataclass
class Seen:
    """A table's entry as this worker last saw it, and when (on this worker's clock)."""

    entry: Entry
    revision: int
    seen_at: float

    def live(self, now: float) -> bool:
        return self.entry.owner != FREE and now - self.seen_at < TAKEOVER_SECONDS


class Directory:
    """This worker's copy of the bucket (kept by a watcher) and the writes to it."""

    def __init__(self, js: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.js = js
        self.clock = clock
        self.kv: Any = None
        self.entries: dict[str, Seen] = {}
        self.on_change: list[Callable[[str], None]] = []
        self._watcher: Any = None
        self._task: asyncio.Task[None] | None = None
        self.loaded = asyncio.Event()
        self.created = False  # this worker made the bucket (no lease of before survives)

    async def start(self) -> None:
        try:
            self.kv = await self.js.key_value(BUCKET)
        except BucketNotFoundError:
            await self._create_bucket()
            self.kv = await self.js.key_value(BUCKET)
        await self._start_watch()

    async def _start_watch(self) -> None:
        self.loaded = asyncio.Event()
        self._watcher = await self.kv.watchall()
        self._task = asyncio.get_running_loop().create_task(self._watch(), name="directory")
        await asyncio.wait_for(self.loaded.wait(), 10.0)

    async def rewatch(self) -> None:
        """Watch afresh (after the bus came back: a watch does not survive a NATS server's
        restart). Every entry is read again, and seen now."""
        await self.stop()
        await self._start_watch()
        log.info("directory: watching again (%d tables known)", len(self.entries))

    async def _create_bucket(self) -> None:
        """The bucket, kept on three servers of a NATS cluster (it survives one machine), or
        on the one server there is."""
        for replicas in (3, 1):
            try:
                await self.js.create_key_value(bucket=BUCKET, history=1, replicas=replicas)
                self.created = True
                log.info("directory: bucket %s created (%d replicas)", BUCKET, replicas)
                return
            except Exception as exc:  # a lone server cannot keep 3; another worker made it
                log.debug("directory: bucket with %d replicas: %s", replicas, exc)
                with contextlib.suppress(BucketNotFoundError):
                    await self.js.key_value(BUCKET)
                    return

    async def _watch(self) -> None:
        async for item in self._watcher:
            if item is None:  # the bucket's current contents are all in
                self.loaded.set()
                continue
            try:
                self._seen(item)
            except Exception:  # a bad entry must not stop the watch
                log.exception("directory: an entry could not be read (%s)", item.key)

    def _seen(self, item: Any) -> None:
        name: str | None = None
        if item.operation in ("DEL", "PURGE") or not item.value:
            for known in list(self.entries):
                if table_key(known) == item.key:
                    name = known
                    del self.entries[known]
        else:
            entry = wire.decode(item.value, self.clock())
            if not isinstance(entry, Entry) or table_key(entry.name) != item.key:
                log.warning("directory: key %s holds no entry of its own", item.key)
                return
            name = entry.name
            self.entries[name] = Seen(entry, int(item.revision), self.clock())
        if name is not None:
            for cb in list(self.on_change):
                cb(name)

    async def stop(self) -> None:
        if self._watcher is not None:
            with contextlib.suppress(Exception):
                await self._watcher.stop()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    # --- reading ----------------------------------------------------------------------------
    def live(self, name: str) -> Seen | None:
        """The table's entry, if its owner renewed it lately."""
        seen = self.entries.get(name)
        return seen if seen is not None and seen.live(self.clock()) else None

    def stale(self) -> list[Seen]:
        """Entries whose owner stopped renewing them (or let them go)."""
        now = self.clock()
        return [s for s in self.entries.values() if not s.live(now)]

    # --- writing ----------------------------------------------------------------------------
    async def create(self, entry: Entry) -> int | None:
        """The table's key, if nobody has it: its revision (the new owner's token), else
        None."""
        try:
            data = wire.encode(entry, self.clock())
            return int(await self.kv.create(table_key(entry.name), data))
        except KeyWrongLastSequenceError:
            return None

    async def replace(self, entry: Entry, last: int) -> int | None:
        """Write ``entry`` if the key is still at revision ``last``: the new revision, else
        None (someone else wrote it). Raises on a transport error (nothing is known)."""
        try:
            return int(await self.kv.update(table_key(entry.name), wire.encode(entry, self.clock()),
                                            last=last))
        except KeyWrongLastSequenceError:
            return None

    async def remove(self, name: str, last: int | None = None) -> None:
        with contextlib.suppress(Exception):
            await self.kv.delete(table_key(name), last=last)
