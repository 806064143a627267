"""A Textual driver bound to one SSH channel, so that many sessions share one process.

Everything runs on the event loop: no threads, no termios, no signals (``LinuxDriver`` installs
process-wide handlers and reads the server's stdin, so it is never used here). Output goes to
the channel as UTF-8; input is decoded incrementally and fed to Textual's xterm parser.

Slow clients (``channel.write`` buffers without limit): once the channel's write buffer passes
``high_water`` bytes the driver stops writing frames; when the client drains, it asks the app
for one full repaint, at its next frame or, when the app has nothing new to draw, at the next
look at the buffer (every ``DRAIN_POLL`` seconds while dropping). What sets the terminal's
state rather than draws (its title, a desktop notification: ``write_control``) is still sent,
a repaint would not bring it back.

Keys that arrive together (one SSH packet: a laggy link, a paste without bracketed paste) are
handed to the app one at a time: after a key Textual dispatches through its queues (one the
table does not act on at once), the rest wait until the app has settled (its queues and the
shown screen's are empty), so a key that opens a screen — ``/`` for chat — has it open and
focused before the text typed into it arrives, and nothing typed meant for the chat line runs
as a table key.

Input is bounded (``net.limits.Limits``), whatever a client sends: bytes wait in a backlog of
at most ``input_backlog`` bytes, and one turn of the event loop parses at most ``input_chunk``
characters and ``input_events_per_turn`` events of it (the rest on the next turn), so one
session never holds the loop for long; a burst that overflows the backlog is dropped until the
backlog has drained, and the parser then starts afresh. Events parsed behind a key being
dispatched wait in a queue of at most ``input_events_backlog``; once it is full, what follows
is shed unparsed (parsing is most of an event's cost) until it has room again. After
any event it posts, the driver holds what follows, so a flood of mouse or focus reports is
bounded as keys are. A bracketed paste longer than the backlog is cut: the
app gets its first ``input_backlog`` characters, the rest is dropped up to the paste's end
marker (Textual's parser would buffer the whole paste). The player is told once, the first
time input is dropped; a parser error is logged once, with its traceback only at DEBUG.

East Asian ambiguous width (``tui.compat.ambiwidth``): with ``ambiwide`` set (the session's terminal
draws ``│ · →`` two cells wide) every frame goes out in the narrow glyph set. The session
probes the terminal before the app starts; an answer that comes later (``late_probe``
seconds) arrives here as a cursor position report and is handed to ``on_probe``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from codecs import getincrementaldecoder
from collections import deque
from collections.abc import Callable
from enum import Enum
from typing import Any, Protocol

from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.driver import Driver
from textual.geometry import Size
from textual.message import Message

from net import metrics
from net.limits import Limits, LogBudget, clamp_size
from tui.compat import internals
from tui.compat.ambiwidth import column_wide, to_narrow
from tui.compat.client_parser import ClientParser
from tui.compat.sgr import compact
from words import both

log = logging.getLogger("net.front.driver")

ESC_TIMEOUT = 0.12  # the parser's own Esc timeout is 0.1 s
HIGH_WATER = 256 * 1024  # bytes buffered for a client before frames are dropped
# seconds between looks at a slow client's write buffer while frames are dropped: a client that
# drains while the app draws nothing new still gets the screen as it is now
DRAIN_POLL = 0.05
SETTLE_POLL = 0.002  # seconds between looks at whether the app is done with a posted key
SETTLE_MAX = 0.5  # a key waits at most this long behind the one before it
DROP_NOTICE = both("keys_dropped")
PASTE_START = "\x1b[200~"  # bracketed paste (mode 2004), as the terminal sends it
PASTE_END = "\x1b[201~"
SEQUENCE_MAX = 33  # Esc and the 32 characters past which Textual's parser gives a sequence up


class Paste(Enum):
    """Where the input stream is, as to bracketed paste (followed by the driver itself)."""

    OUTSIDE = "outside"
    INSIDE = "inside"  # the parser is buffering a paste
    CUT = "cut"  # a paste was cut at the limit: the rest is dropped up to its end marker


def marker_tail(text: str, marker: str) -> str:
    """The end of ``text`` that could begin ``marker`` (split across reads)."""
    for n in range(min(len(marker) - 1, len(text)), 0, -1):
        if marker.startswith(text[-n:]):
            return text[-n:]
    return ""


class Channel(Protocol):
    """What the driver needs of an SSH channel (asyncssh's ``SSHServerChannel``)."""

    def write(self, data: bytes) -> None: ...

    def get_write_buffer_size(self) -> int: ...

    def is_closing(self) -> bool: ...


def clear_parser_cache() -> None:
    """Needed for ended apps to be freed: ``XTermParser._parse_extended_key`` is a class-level
    ``lru_cache`` whose keys hold parsers (and through their last key event, whole apps)."""
    internals.clear_parser_cache()


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
        limits: Limits = Limits(),  # noqa: B008 - frozen: one shared default is safe
        ambiwide: bool = False,
        late_probe: float = 0.0,
        on_probe: Callable[[bool], None] | None = None,
    ) -> None:
        self.limits = limits
        self.size = clamp_size(*size, limits) if size else clamp_size(80, 24, limits)
        super().__init__(app, debug=debug, mouse=mouse, size=self.size)
        self.channel = channel
        self.high_water = high_water
        self.dropping = False  # frames are being dropped until the client drains
        self.frames_dropped = 0
        self._parser: XTermParser | None = None
        self._decoder = getincrementaldecoder("utf-8")(errors="replace")
        self._input_enabled = False
        self._input_off = False
        # input: bytes waiting to be parsed (at most ``input_backlog``); past it a burst is
        # dropped until the backlog has drained (``_overflow``), then the parser starts afresh
        self._backlog = bytearray()
        self._overflow = False
        self._chunk = max(2, limits.input_chunk)
        self._budget = self._chunk  # characters this turn of the loop may still parse
        self._turn_events = 0  # events the parser gave this turn
        self._turn_handle: asyncio.Handle | None = None
        self._paste = Paste.OUTSIDE
        self._paste_len = 0  # characters of the current paste given to the parser
        self._carry = ""  # the stream's last characters that may begin the awaited marker
        self.bytes_dropped = 0  # input bytes that did not fit the backlog
        self.events_dropped = 0  # events (or plain characters) past the events backlog
        self.paste_dropped = 0  # characters of pastes cut at the limit
        self.chars_parsed = 0  # characters taken from the backlog (decoded)
        self.parser_errors = 0
        self.told = False  # the player was told that input was dropped
        self._debug_log = LogBudget(limits.log_lines_per_connection)
        self._out: list[str] = []  # this frame's pieces, sent by ``flush``
        self._controls: list[str] = []  # those of them written by ``write_control``
        self._tick_handle: asyncio.TimerHandle | None = None
        self._drain_handle: asyncio.TimerHandle | None = None
        # events parsed but not yet given to the app, behind a key it is still dispatching
        self._held: deque[Message] = deque()
        self._holding = False
        self._held_since = 0.0
        self._release_handle: asyncio.TimerHandle | None = None
        self._closed = False
        self.ambiwide = ambiwide  # frames in the narrow glyph set (tui.compat.ambiwidth)
        # the probe went unanswered before the app started: an answer until this loop time
        # still counts (handed to ``on_probe``)
        self._probe_until = self._loop.time() + late_probe if late_probe > 0 else 0.0
        self.on_probe = on_probe

    @property
    def backlog_bytes(self) -> int:
        """Input bytes waiting to be parsed."""
        return len(self._backlog)

    @property
    def events_held(self) -> int:
        """Parsed events waiting behind a key the app has yet to dispatch."""
        return len(self._held)

    @property
    def holding(self) -> bool:
        """Whether the next events wait for the app to dispatch the one posted last."""
        return self._holding

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

    def write_control(self, data: str) -> None:
        """Buffer ``data``, a sequence that sets the terminal's state rather than draws (its
        title, a notification: ``tui.apps.attention``), after the frames written before it
        and never inside one. Unlike a frame it is sent even while frames are dropped for a
        slow client: the repaint that follows draws every frame dropped, but a title set back
        or a notification dropped would stay lost. It is a few bytes a turn at most."""
        if self._closed:
            return
        self.write(data)
        self._controls.append(data)

    def flush(self) -> None:
        if not self._out:
            return
        data = "".join(self._out)
        controls = "".join(self._controls)
        self._out.clear()
        self._controls.clear()
        data = compact(data)  # the colour codes as changes (tui.compat.sgr): fewer bytes
        if self.ambiwide:
            data = to_narrow(data)
        channel = self.channel
        if self._closed or channel.is_closing():
            return
        buffered = channel.get_write_buffer_size()
        if self.dropping:
            if buffered > self.high_water // 4:
                self.frames_dropped += 1
                self._send(controls)
                return
            self._send(controls)
            self.drained()  # caught up without telling us: repaint everything
            return  # this frame is stale: the repaint follows
        if buffered > self.high_water:
            log.info("client slow: dropping frames")
            self.dropping = True
            self.frames_dropped += 1
            self._send(controls)
            self._watch_drain()
            return
        self._send(data)
        metrics.frame_written(getattr(self._app, "client", None))

    def _send(self, data: str) -> None:
        if not data:
            return
        raw = data.encode("utf-8", "replace")
        try:
            self.channel.write(raw)
        except Exception:  # the channel closed under us
            self._closed = True

    def drained(self) -> None:
        """The client caught up: stop dropping and repaint the whole screen."""
        if self._drain_handle is not None:
            self._drain_handle.cancel()
            self._drain_handle = None
        if self.dropping and not self._closed:
            self.dropping = False
            self.repaint()

    def _watch_drain(self) -> None:
        """Look at the write buffer every ``DRAIN_POLL`` seconds until the client has caught
        up: the frame dropped last may be the app's last for a while (a toast, a move, then
        nothing until the player acts), and a flush alone would leave it unseen."""
        if self._drain_handle is None and not self._closed:
            self._drain_handle = self._loop.call_later(DRAIN_POLL, self._drain_check)

    def _drain_check(self) -> None:
        self._drain_handle = None
        if not self.dropping or self._closed:
            return
        if self.channel.is_closing():
            return
        if self.channel.get_write_buffer_size() > self.high_water // 4:
            self._watch_drain()
            return
        self.drained()

    def repaint(self) -> None:
        """The whole screen drawn again (a Resize of the same size alone redraws only the
        widgets whose place changed)."""
        width, height = self.size
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))
        if isinstance(self._app, App):
            internals.repaint_all(self._app)

    # --- input ----------------------------------------------------------------------------
    def send_message(self, message: Message) -> None:
        self._app.post_message(message)

    def feed(self, data: bytes | str) -> None:
        """Bytes from the client (asyncssh ``data_received``): into the backlog, as much as
        fits; parsed now if this turn of the loop has parsed less than ``input_chunk``."""
        if self._closed:
            return
        raw = data.encode("utf-8", "replace") if isinstance(data, str) else data
        if not raw:
            return
        metrics.key_arrived(getattr(self._app, "client", None))
        if self._overflow:  # the rest of a burst that overflowed: dropped until caught up
            self._dropped_bytes(len(raw))
            return
        room = self.limits.input_backlog - len(self._backlog)
        if len(raw) > room:
            self._backlog += raw[:max(room, 0)]
            self._dropped_bytes(len(raw) - max(room, 0))
            self._overflow = True
        else:
            self._backlog += raw
        self._drain()

    def _drain(self) -> None:
        """Parse from the backlog what this turn's budget allows; the rest on the next turn."""
        if not self._input_enabled or self._parser is None or self._closed:
            return
        backlog, decoder = self._backlog, self._decoder
        per_turn = max(1, self.limits.input_events_per_turn)
        while backlog and self._budget > 0 and self._turn_events < per_turn:
            pending = 1 if decoder.getstate()[0] else 0  # a split character: one more
            # about as many characters as this turn may still parse events (a plain
            # character is one event; a sequence of up to 33 characters a few)
            n = min(self._budget - pending, len(backlog),
                    max(SEQUENCE_MAX, per_turn - self._turn_events))
            if n <= 0:
                break
            chunk = bytes(backlog[:n])
            del backlog[:n]
            text = decoder.decode(chunk)
            self._budget -= max(n, len(text))
            self.chars_parsed += len(text)
            if text:
                self._route(text)
        if not backlog and self._overflow:
            self._resync()
        if self._turn_handle is None and (backlog or self._budget < self._chunk
                                          or self._turn_events):
            self._turn_handle = self._loop.call_soon(self._next_turn)
        self._schedule_tick()

    def _next_turn(self) -> None:
        self._turn_handle = None
        self._budget = self._chunk
        self._turn_events = 0
        if self._backlog or self._overflow:
            self._drain()

    def _dropped_bytes(self, n: int) -> None:
        self.bytes_dropped += n
        metrics.limit_hit("input_backlog")
        self._tell()

    def _tell(self) -> None:
        """Tell the player, once, that input was dropped."""
        if self.told:
            return
        self.told = True
        log.info("input dropped: more than the limits allow at once")
        notify = getattr(self._app, "notify", None)
        if notify is not None:
            with contextlib.suppress(Exception):
                notify(DROP_NOTICE, severity="warning", markup=False)

    def _resync(self) -> None:
        """The backlog has drained after input was dropped: what the parser holds belongs to
        a stream with a gap in it. A paste it was buffering is given to the app as it stands;
        the rest (half an escape sequence, half a character) is dropped with the parser."""
        self._overflow = False
        if self._paste is Paste.INSIDE:
            self._parse(PASTE_END)
        self._paste, self._paste_len, self._carry = Paste.OUTSIDE, 0, ""
        self._decoder.reset()
        self._finish_parser()
        self._parser = ClientParser()

    def _route(self, text: str) -> None:
        """Give ``text`` to the parser, following bracketed pastes: a paste is cut at
        ``input_backlog`` characters (the parser gets its end marker from us), and what
        follows is dropped up to the client's own end marker."""
        cap = self.limits.input_backlog
        while text:
            carry = self._carry
            joined = carry + text
            if self._paste is Paste.OUTSIDE:
                at = joined.find(PASTE_START)
                if at < 0:
                    self._carry = marker_tail(joined, PASTE_START)
                    self._parse(text)
                    return
                n = at + len(PASTE_START) - len(carry)  # through the marker
                self._parse(text[:n], opens_paste=True)
                text, self._carry = text[n:], ""
                self._paste, self._paste_len = Paste.INSIDE, 0
            elif self._paste is Paste.INSIDE:
                at = joined.find(PASTE_END)
                content = len(text) if at < 0 else max(0, at - len(carry))
                room = cap - self._paste_len
                if content <= room:
                    if at < 0:
                        self._parse(text)
                        self._paste_len += content
                        self._carry = marker_tail(joined, PASTE_END)
                        return
                    n = at + len(PASTE_END) - len(carry)
                    self._parse(text[:n])
                    text, self._carry = text[n:], ""
                    self._paste = Paste.OUTSIDE
                    continue
                # too long: the paste's first ``cap`` characters, ended by us
                self._parse(text[:room] + PASTE_END)
                self._carry = marker_tail(carry + text[:room], PASTE_END)
                text = text[room:]
                self._paste = Paste.CUT
                self._tell()
            else:  # CUT: dropped up to the client's end marker
                at = joined.find(PASTE_END)
                if at < 0:
                    self.paste_dropped += len(text)
                    self._carry = marker_tail(joined, PASTE_END)
                    return
                n = at + len(PASTE_END) - len(carry)
                self.paste_dropped += n
                text, self._carry = text[n:], ""
                self._paste = Paste.OUTSIDE

    def _parse(self, text: str, opens_paste: bool = False) -> None:
        """``text`` through the parser, its events to ``_take``, in pieces of about as many
        characters as the events backlog has room for (each plain character is one event),
        so that once it is full the rest is shed (``_shed``) rather than parsed."""
        cap = self.limits.input_events_backlog
        while text:
            parser = self._parser
            if parser is None:
                return
            if self._holding and len(self._held) >= cap and self._paste is Paste.OUTSIDE:
                self._shed(text, opens_paste)
                return
            piece = text[:max(SEQUENCE_MAX, cap - len(self._held))]
            text = text[len(piece):]
            try:
                for message in parser.feed(piece):
                    self._take(message)
            except Exception as exc:  # a parser error must not end the session
                self._parser_failed(exc)

    def _shed(self, text: str, opens_paste: bool) -> None:
        """The events backlog is full: ``text`` (outside a paste) is dropped unparsed, as the
        events it would make would be (parsing is most of an event's cost). A parser
        inside an escape sequence starts afresh; a paste's start marker that ends ``text``
        still opens the paste."""
        self.events_dropped += len(text)
        self._tell()
        parser = self._parser
        if parser is None:
            return
        if opens_paste or internals.parser_in_escape(parser):
            self._finish_parser()
            parser = self._parser = ClientParser()
        if opens_paste:
            self.events_dropped -= len(PASTE_START)
            try:
                for message in parser.feed(PASTE_START):
                    self._take(message)
            except Exception as exc:
                self._parser_failed(exc)

    def _parser_failed(self, exc: Exception) -> None:
        """Bad input broke the parser: a fresh one (what it held of this read is lost). One
        line at INFO for the driver's life; tracebacks only at DEBUG, within the log budget."""
        self.parser_errors += 1
        if self.parser_errors == 1:
            log.info("input parser reset after bad input (%s); later ones are not logged",
                     type(exc).__name__)
        if log.isEnabledFor(logging.DEBUG) and self._debug_log.allow():
            log.debug("input parser error", exc_info=exc)
        self._finish_parser()
        self._parser = ClientParser()
        if self._paste is Paste.INSIDE:  # the new parser is outside the paste: drop its rest
            self._paste = Paste.CUT

    def _take(self, message: Message) -> None:
        """A parsed event, given to the app now unless it must wait behind a posted one."""
        self._turn_events += 1
        if isinstance(message, events.Resize):
            return  # an in-band resize report: the terminal's size is the SSH channel's
        if isinstance(message, events.CursorPosition):
            self._probe_answered(message)
            return  # no screen of ours asks for the cursor's position: only the probe
        if self._holding:
            if len(self._held) >= self.limits.input_events_backlog:
                self.events_dropped += 1
                self._tell()
                return
            self._held.append(message)
        elif self._process(message):
            self._hold_from_now()

    def _probe_answered(self, message: events.CursorPosition) -> None:
        """A late answer to the session's probe: the terminal's ambiguous width after all."""
        if not self._probe_until or self._loop.time() > self._probe_until:
            return
        self._probe_until = 0.0
        if self.on_probe is not None:
            self.on_probe(column_wide(message.x + 1))

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

    def process_message(self, message: Message) -> None:
        super().process_message(message)
        # Textual keeps the buttons pressed and never released (a flood of mouse-down reports)
        down = getattr(self, "_down_buttons", None)
        if isinstance(down, list) and len(down) > 8:
            down[:] = list(dict.fromkeys(down))

    def _hold_from_now(self) -> None:
        """Hold what comes next until the app has dispatched the event just posted."""
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
            if self._process(message):
                self._hold_from_now()
                return

    def _settled(self) -> bool:
        """Whether the app has nothing left to dispatch: its queue, the shown screen's and
        those of the screen's widgets are empty."""
        app = self._app
        if internals.messages_pending(app):
            return False
        screen = internals.shown_screen(app)
        if screen is None:
            return True
        return not any(internals.messages_pending(node)
                       for node in screen.walk_children(with_self=True))

    def _schedule_tick(self) -> None:
        parser = self._parser
        if parser is None or not internals.parser_in_escape(parser):  # no pending Esc
            return
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        self._tick_handle = self._loop.call_later(ESC_TIMEOUT, self._tick)

    def _tick(self) -> None:
        self._tick_handle = None
        parser = self._parser
        if parser is None or self._backlog:  # what follows the Esc is still to be parsed
            return
        try:
            for message in parser.tick():
                self._take(message)
        except Exception as exc:
            self._parser_failed(exc)
        if not internals.parser_in_escape(parser):  # timed out: a marker's start too
            self._carry = ""
        self._schedule_tick()

    def resize(self, width: int, height: int) -> None:
        width, height = clamp_size(width, height, self.limits)
        self.size = (width, height)
        self._size = self.size
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))

    # --- modes ----------------------------------------------------------------------------
    def start_application_mode(self) -> None:
        self._parser = ClientParser()
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
        if self._backlog and isinstance(self._app, App):
            # keys typed before the app started (while the session probed the terminal):
            # given once its first screen is up, so the first of them is not lost to a
            # screen that has no focused widget yet
            self._app.call_after_refresh(self._enable_input)
        else:
            self._enable_input()

    def _enable_input(self) -> None:
        if self._closed or self._input_enabled or self._input_off:
            return
        self._input_enabled = True
        self._drain()  # what arrived before the app started

    def disable_input(self) -> None:
        self._input_enabled = False
        self._input_off = True  # stopped: input held back at the start is not given later
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None
        if self._release_handle is not None:
            self._release_handle.cancel()
            self._release_handle = None
        if self._drain_handle is not None:
            self._drain_handle.cancel()
            self._drain_handle = None
        if self._turn_handle is not None:
            self._turn_handle.cancel()
            self._turn_handle = None
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

    def suspend_application_mode(self) -> None:  # Ctrl-Z would stop the server: no suspend
        pass

    def resume_application_mode(self) -> None:
        pass

    @property
    def can_suspend(self) -> bool:
        return False

    def open_url(self, url: str, new_tab: bool = True) -> None:  # would open on the server
        pass

    def deliver_binary(self, *args: Any, **kwargs: Any) -> None:  # would write the server's disk
        raise RuntimeError("file delivery is disabled over SSH")

    def _finish_parser(self) -> None:
        parser = self._parser
        self._parser = None
        if parser is not None:
            internals.finish_parser(parser)

    def close(self) -> None:
        """Finish the parser's generator and clear the class-level cache, either of which would keep
        the ended app alive."""
        self.flush()  # the terminal's modes, restored by ``stop_application_mode``
        self._closed = True
        self.disable_input()
        self._finish_parser()
        self._backlog.clear()
        clear_parser_cache()
