"""A Textual driver bound to one SSH channel (``docs``: design/ssh-textual.md).

Everything runs on the event loop: no threads, no termios, no signals (``LinuxDriver`` installs
process-wide handlers and reads the server's stdin, so it is never used here). Output goes to
the channel as UTF-8; input is decoded incrementally and fed to Textual's xterm parser.

Slow clients (pitfall 7): once the channel's write buffer passes ``high_water`` bytes the
driver stops writing frames; when the client drains, it asks the app for one full repaint.

Keys that arrive together (one SSH packet: a laggy link, a paste without bracketed paste) are
handed to the app one at a time: after a key Textual dispatches through its queues (one the
table does not act on at once), the rest wait until the app has settled (its queues and the
shown screen's are empty), so a key that opens a screen — ``/`` for chat — has it open and
focused before the text typed into it arrives, and nothing typed meant for the chat line runs
as a table key.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from codecs import getincrementaldecoder
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from textual import events
from textual._xterm_parser import XTermParser
from textual.driver import Driver
from textual.geometry import Size
from textual.message import Message

log = logging.getLogger("net.driver")

ESC_TIMEOUT = 0.12  # the parser's own Esc timeout is 0.1 s
HIGH_WATER = 256 * 1024  # bytes buffered for a client before frames are dropped
SETTLE_POLL = 0.002  # seconds between looks at whether the app is done with a posted key
SETTLE_MAX = 0.5  # a key waits at most this long behind the one before it


class Channel(Protocol):
    """What the driver needs of an SSH channel (asyncssh's ``SSHServerChannel``)."""

    def write(self, data: bytes) -> None: ...

    def get_write_buffer_size(self) -> int: ...

    def is_closing(self) -> bool: ...


def clear_parser_cache() -> None:
    """Pitfall 3a: ``XTermParser._parse_extended_key`` is a class-level ``lru_cache`` whose
    keys hold parsers (and through their last key event, whole apps)."""
    cache_clear = getattr(XTermParser._parse_extended_key, "cache_clear", None)
    if cache_clear is not None:
        cache_clear()


class SSHDriver(Driver):
    """One session's terminal: the SSH channel."""

    def __init__(
        self,
        app: Any,
        *,
        channel: Channel,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
        high_water: int = HIGH_WATER,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self.channel = channel
        self.size = size or (80, 24)
        self.high_water = high_water
        self.dropping = False  # frames are being dropped until the client drains
        self.frames_dropped = 0
        self.bytes_written = 0
        self._parser: XTermParser | None = None
        self._decode = getincrementaldecoder("utf-8")(errors="replace").decode
        self._input_enabled = False
        self._pending: list[str] = []
        self._out: list[str] = []  # this frame's pieces, sent by ``flush``
        self._tick_handle: asyncio.TimerHandle | None = None
        # events parsed but not yet given to the app, behind a key it is still dispatching
        self._held: deque[Message] = deque()
        self._holding = False
        self._held_since = 0.0
        self._release_handle: asyncio.TimerHandle | None = None
        self._closed = False

    @classmethod
    def factory(cls, channel: Channel, **kwargs: Any) -> Callable[..., SSHDriver]:
        """A ``driver_class`` stand-in for ``App._build_driver`` bound to ``channel``."""

        def build(app: Any, *, debug: bool = False, mouse: bool = True,
                  size: tuple[int, int] | None = None) -> SSHDriver:
            return cls(app, channel=channel, debug=debug, mouse=mouse, size=size, **kwargs)

        return build

    # --- output ---------------------------------------------------------------------------
    def write(self, data: str) -> None:
        """Buffer ``data``; ``flush`` (Textual calls it after each frame, and the loop's next
        turn at the latest) sends the frame as one channel write: one SSH packet, one socket
        send, instead of one per piece (sync start, the update, sync end)."""
        if self._closed:
            return
        if not self._out:
            self._loop.call_soon(self.flush)
        self._out.append(data)

    def flush(self) -> None:
        if not self._out:
            return
        data = "".join(self._out)
        self._out.clear()
        channel = self.channel
        if self._closed or channel.is_closing():
            return
        buffered = channel.get_write_buffer_size()
        if self.dropping:
            if buffered > self.high_water // 4:
                self.frames_dropped += 1
                return
            self.drained()  # caught up without telling us: repaint everything
            return  # this frame is stale: the repaint follows
        if buffered > self.high_water:
            log.info("client slow: dropping frames")
            self.dropping = True
            self.frames_dropped += 1
            return
        raw = data.encode("utf-8", "replace")
        self.bytes_written += len(raw)
        try:
            channel.write(raw)
        except Exception:  # the channel closed under us
            self._closed = True

    def drained(self) -> None:
        """The client caught up: stop dropping and repaint the whole screen."""
        if self.dropping and not self._closed:
            self.dropping = False
            self.repaint()

    def repaint(self) -> None:
        width, height = self.size
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))

    # --- input ----------------------------------------------------------------------------
    def send_message(self, message: Message) -> None:
        self._app.post_message(message)

    def feed(self, data: bytes | str) -> None:
        """Bytes from the client (asyncssh ``data_received``)."""
        text = self._decode(data) if isinstance(data, bytes) else data
        if not text:
            return
        if not self._input_enabled or self._parser is None:
            self._pending.append(text)
            return
        self._feed_text(text)

    def _feed_text(self, text: str) -> None:
        parser = self._parser
        assert parser is not None
        try:
            for message in parser.feed(text):
                self._take(message)
        except Exception:  # a parser error must not end the session: start a fresh parser
            log.info("input parser reset after bad input", exc_info=True)
            self._finish_parser()
            self._parser = XTermParser()
        self._schedule_tick()

    def _take(self, message: Message) -> None:
        """A parsed event, given to the app now unless it must wait behind a posted key."""
        if self._holding:
            self._held.append(message)
        elif self._process(message) and isinstance(message, events.Key | events.Paste):
            self._hold_from_now()

    def _process(self, message: Message) -> bool:
        """A parsed event: a key the app can act on at once (``key_now``) is handled as it
        arrives, without the four loop turns of Textual's key dispatch; the rest is posted.
        Returns whether it was posted (the app has yet to dispatch it)."""
        if isinstance(message, events.Key):
            key_now = getattr(self._app, "key_now", None)
            if key_now is not None and key_now(message):
                return False
        self.process_message(message)
        return True

    def _hold_from_now(self) -> None:
        """Hold what comes next until the app has dispatched the key just posted."""
        self._holding = True
        self._held_since = self._loop.time()
        if self._release_handle is None and not self._closed:
            self._release_handle = self._loop.call_later(SETTLE_POLL, self._release)

    def _release(self) -> None:
        self._release_handle = None
        if self._closed:
            self._held.clear()
            return
        if not self._settled() and self._loop.time() - self._held_since < SETTLE_MAX:
            self._release_handle = self._loop.call_later(SETTLE_POLL, self._release)
            return
        self._holding = False
        held = self._held
        while held:
            message = held.popleft()
            if self._process(message) and isinstance(message, events.Key | events.Paste):
                self._hold_from_now()
                return

    def _settled(self) -> bool:
        """Whether the app has nothing left to dispatch: its queue, the shown screen's and
        those of the screen's widgets are empty."""
        app = self._app
        if not app._message_queue.empty():
            return False
        stack = app._screen_stack
        if not stack:
            return True
        return all(node._message_queue.empty()
                   for node in stack[-1].walk_children(with_self=True))

    def _schedule_tick(self) -> None:
        parser = self._parser
        if parser is None or parser._timeout_time is None:  # no pending Esc
            return
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        self._tick_handle = self._loop.call_later(ESC_TIMEOUT, self._tick)

    def _tick(self) -> None:
        self._tick_handle = None
        parser = self._parser
        if parser is None:
            return
        try:
            for message in parser.tick():
                self._take(message)
        except Exception:
            self._finish_parser()
            self._parser = XTermParser()
        self._schedule_tick()

    def resize(self, width: int, height: int) -> None:
        width, height = max(1, width), max(1, height)
        self.size = (width, height)
        self._size = self.size
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))

    # --- modes ----------------------------------------------------------------------------
    def start_application_mode(self) -> None:
        self._parser = XTermParser()
        w = self.write
        w("\x1b[?1049h")  # alt screen
        if self._mouse:
            w("\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h")  # mouse, SGR encoding
        w("\x1b[?25l")  # hide cursor
        w("\x1b[?1004h")  # focus reports
        w("\x1b[?2004h")  # bracketed paste
        w("\x1b[?7l")  # no line wrap
        width, height = self.size
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))
        self._input_enabled = True
        pending, self._pending = self._pending, []
        for text in pending:
            self._feed_text(text)

    def disable_input(self) -> None:
        self._input_enabled = False
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None
        if self._release_handle is not None:
            self._release_handle.cancel()
            self._release_handle = None
        self._held.clear()
        self._holding = False

    def stop_application_mode(self) -> None:
        self.disable_input()
        w = self.write
        w("\x1b[?2004l")
        w("\x1b[?7h")
        if self._mouse:
            w("\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l")
        w("\x1b[?1004l")
        w("\x1b[?1049l")  # leave the alt screen
        w("\x1b[?25h")  # show cursor

    def suspend_application_mode(self) -> None:  # pitfall 4: no suspend over SSH
        pass

    def resume_application_mode(self) -> None:
        pass

    @property
    def can_suspend(self) -> bool:
        return False

    def open_url(self, url: str, new_tab: bool = True) -> None:  # pitfall 4
        pass

    def deliver_binary(self, *args: Any, **kwargs: Any) -> None:  # pitfall 4
        raise RuntimeError("file delivery is disabled over SSH")

    def _finish_parser(self) -> None:
        parser = self._parser
        self._parser = None
        if parser is not None:
            with contextlib.suppress(Exception):
                parser._gen.close()
            parser._tokens.clear()

    def close(self) -> None:
        """Pitfall 3a: finish the parser's generator and clear the class-level cache."""
        self.flush()  # the terminal's modes, restored by ``stop_application_mode``
        self._closed = True
        self.disable_input()
        self._finish_parser()
        self._pending.clear()
        clear_parser_cache()
