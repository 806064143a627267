"""Which worker owns which table: a JetStream key-value bucket, watched by every worker, with
one key per table and one per worker.

A table's key holds its :class:`~net.cluster.wire.Entry` (owner, the lobby's facts), written
with ``update(..., last=revision)`` (a write that only succeeds if nobody else wrote the key
since) when the table is made, taken over, let go, confirmed after a fence, or its lobby facts
change. The revision at which a worker acquired a table is its *fencing token*: the store
refuses the table's writes from any lower token (``Store.claim_table``), so a worker that lost
the table, paused or cut off, persists nothing either.

The leases are held by one :class:`~net.cluster.wire.Heartbeat` a worker, not by a write a
table: the worker rewrites its own key every :data:`RENEW_SECONDS`, again with ``last=``, and
holds all its tables while it does. No clock is shared between machines. A worker acts only
within :data:`VALID_SECONDS` of its last successful heartbeat, on its own monotonic clock;
every other worker notes, on its own clock, when it last saw that key (or the table's) change,
and takes a table over only after :data:`TAKEOVER_SECONDS` without a change, and only after
*fencing* its owner: deleting the owner's key at the revision it saw (read again from the
server first, so a watch that lags does not condemn a live worker). The owner's next heartbeat
then fails, so a worker that paused and resumed learns it was fenced before it acts, and
confirms each table with a write at the table's revision before acting for it again; one of
the two writes, its or the new owner's, fails. A heartbeat is seen after it succeeded, so by
the time anyone fences a worker, it has stopped acting for at least a second.
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

from nats.js.errors import BucketNotFoundError, KeyNotFoundError, KeyWrongLastSequenceError

from net.cluster import wire
from net.cluster.wire import Entry

log = logging.getLogger("net.cluster")

BUCKET = "mj_tables"
RENEW_SECONDS = 1.0  # a worker rewrites its heartbeat this often
VALID_SECONDS = 2.0  # and acts for its tables only this long after its last heartbeat
TAKEOVER_SECONDS = 3.0  # another worker takes a table over after this long without a change
FREE = ""  # the owner an entry names when its worker let it go (a clean stop)


def _b64(name: str) -> str:
    return base64.urlsafe_b64encode(name.encode("utf-8")).decode("ascii").rstrip("=")


def table_key(name: str) -> str:
    """A table's key in the bucket (names are any script; keys are [A-Za-z0-9_=-.])."""
    return "t." + _b64(name)


def worker_key(worker: str) -> str:
    """A worker's heartbeat key in the bucket."""
    return "w." + _b64(worker)


@dataclass
class Seen:
    """A table's entry as this worker last saw it, and when (on this worker's clock)."""

    entry: Entry
    revision: int
    seen_at: float


@dataclass
class Beat:
    """A worker's heartbeat as this worker last saw it, and when."""

    revision: int
    seen_at: float


class Directory:
    """This worker's copy of the bucket (kept by a watcher) and the writes to it."""

    def __init__(self, js: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.js = js
        self.clock = clock
        self.kv: Any = None
        self.entries: dict[str, Seen] = {}
        self.workers: dict[str, Beat] = {}  # the heartbeats seen, by worker
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
        if item.key.startswith("w."):
            self._beat_seen(item)
            return
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

    def _beat_seen(self, item: Any) -> None:
        if item.operation in ("DEL", "PURGE") or not item.value:
            for known in [w for w in self.workers if worker_key(w) == item.key]:
                del self.workers[known]  # fenced, or a clean stop
            return
        beat = wire.decode(item.value, self.clock())
        if not isinstance(beat, wire.Heartbeat) or worker_key(beat.worker) != item.key:
            log.warning("directory: key %s holds no heartbeat of its own", item.key)
            return
        self.workers[beat.worker] = Beat(int(item.revision), self.clock())

    async def stop(self) -> None:
        if self._watcher is not None:
            with contextlib.suppress(Exception):
                await self._watcher.stop()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    # --- reading ----------------------------------------------------------------------------
    def alive(self, seen: Seen, now: float) -> bool:
        """Whether the table's owner showed life lately: its heartbeat (or the entry) changed
        within :data:`TAKEOVER_SECONDS`."""
        if seen.entry.owner == FREE:
            return False
        beat = self.workers.get(seen.entry.owner)
        last = seen.seen_at if beat is None else max(seen.seen_at, beat.seen_at)
        return now - last < TAKEOVER_SECONDS

    def live(self, name: str) -> Seen | None:
        """The table's entry, if its owner showed life lately."""
        seen = self.entries.get(name)
        return seen if seen is not None and self.alive(seen, self.clock()) else None

    def stale(self) -> list[Seen]:
        """Entries whose owner stopped its heartbeat (or let them go)."""
        now = self.clock()
        return [s for s in self.entries.values() if not self.alive(s, now)]

    # --- writing ----------------------------------------------------------------------------
    async def _put(self, key: str, msg: wire.Message, last: int | None) -> int | None:
        """``msg`` under ``key``, made anew (``last`` None: if nobody has it) or over revision
        ``last`` (if it is still there): the new revision, else None (someone else wrote it).
        Raises on a transport error (nothing is known)."""
        data = wire.encode(msg, self.clock())
        try:
            if last is None:
                return int(await self.kv.create(key, data))
            return int(await self.kv.update(key, data, last=last))
        except KeyWrongLastSequenceError:
            return None

    async def create(self, entry: Entry) -> int | None:
        """The table's key, if nobody has it: its revision (the new owner's token), else
        None."""
        return await self._put(table_key(entry.name), entry, None)

    async def replace(self, entry: Entry, last: int) -> int | None:
        """Write ``entry`` if the key is still at revision ``last`` (:meth:`_put`)."""
        return await self._put(table_key(entry.name), entry, last)

    async def current(self, name: str) -> tuple[Entry, int] | None:
        """The table's entry and revision on the server now, not as watched; None if it has
        none. Raises on a transport error."""
        try:
            item = await self.kv.get(table_key(name))
        except KeyNotFoundError:
            return None
        entry = wire.decode(item.value or b"", self.clock())
        return (entry, int(item.revision)) if isinstance(entry, Entry) else None

    async def beat(self, worker: str, last: int | None) -> int | None:
        """Worker ``worker``'s heartbeat: its key written at revision ``last`` (None: made
        anew); the new revision, else None (fenced: someone deleted it). Raises on a
        transport error (nothing is known)."""
        return await self._put(worker_key(worker), wire.Heartbeat(worker), last)

    async def beat_now(self, worker: str) -> int | None:
        """The revision of ``worker``'s heartbeat on the server now, not as watched; None if
        it has none. Raises on a transport error."""
        try:
            return int((await self.kv.get(worker_key(worker))).revision)
        except KeyNotFoundError:
            return None

    async def fence(self, worker: str, last: int) -> bool:
        """``worker``'s heartbeat deleted if still at revision ``last``: its next one fails,
        so it knows to act no more before confirming its tables. False: it beat since."""
        try:
            await self.kv.delete(worker_key(worker), last=last)
        except KeyWrongLastSequenceError:
            return False
        self.workers.pop(worker, None)
        return True

    async def remove(self, name: str, last: int | None = None) -> None:
        with contextlib.suppress(Exception):
            await self.kv.delete(table_key(name), last=last)
