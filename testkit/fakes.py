"""Stand-ins for what the SSH driver is given (a channel, an app) and a process's memory, for
``tests/`` and ``bench/``."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from net.front.driver import SSHDriver


def rss_mb(pid: int | str = "self") -> float:
    """A process's resident memory in MB (``/proc/PID/status``), 0.0 where there is none."""
    try:
        m = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    except OSError:
        return 0.0
    return int(m.group(1)) / 1024 if m else 0.0


class FakeChannel:
    """An SSH channel for a driver without a connection: what is written, and a write buffer
    of ``buffered`` bytes."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.writes = 0
        self.buffered = 0
        self.closing = False

    def write(self, data: bytes) -> None:
        self.out.extend(data)
        self.writes += 1

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def is_closing(self) -> bool:
        return self.closing


def driver_factory(made: list[SSHDriver], **kwargs: Any) -> Callable[..., SSHDriver]:
    """An app's ``driver_class``: an :class:`SSHDriver` on a :class:`FakeChannel` (with
    ``kwargs``), each one built appended to ``made``."""
    factory = SSHDriver.factory(FakeChannel(), **kwargs)

    def build(*args: Any, **more: Any) -> SSHDriver:
        made.append(factory(*args, **more))
        return made[-1]
    return build


class FakeApp:
    """What the driver needs of an app, recording what it is given (its queues empty: every
    posted key counts as dispatched at once)."""

    def __init__(self) -> None:
        self.messages: list[Any] = []
        self._message_queue: asyncio.Queue[Any] = asyncio.Queue()
        self._screen_stack: list[Any] = []

    def post_message(self, message: Any) -> bool:
        self.messages.append(message)
        return True

    def busy(self, busy: bool = True) -> None:
        """The app has a message yet to dispatch (``busy``), or has dispatched all it got."""
        if busy:
            self._message_queue.put_nowait("busy")
        else:
            while not self._message_queue.empty():
                self._message_queue.get_nowait()

    def pressed(self) -> list[str]:
        from textual import events

        return [m.key for m in self.messages if isinstance(m, events.Key)]
