"""One SSH session channel: the bytes in and out (the terminal's type and size, window
changes, input throttled and kept until an app takes it, the ambiguous-width probe, the idle
check), the app bound to it, and the session's place among the server's counted sessions.
What each command runs on it is ``net.front.commands_run``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

import asyncssh
from textual.app import App

from net.commands import Command, CommandError, parse_command
from net.front.botsession import BotSession
from net.front.driver import SSHDriver
from net.front.plain_session import PlainChannel
from net.front.remote_app import RemoteSettings
from net.front.terminals import shows_cjk
from net.limits import Limits, RateLimit, clamp_size, count_down
from net.store.base import Store, store_call
from net.store.model import Account
from tui.compat import internals
from tui.compat.ambiwidth import (
    ERASE,
    LATE_ANSWER,
    PROBE,
    PROBE_TIMEOUT,
    AmbiWidth,
    column_wide,
    glyph_cells,
    probe_answers,
)
from tui.settings import Settings
from words import both

if TYPE_CHECKING:
    from net.front.login import Connection


class SessionHost(Protocol):
    """What a session needs of the server (``net.front.server.MahjongServer``)."""

    limits: Limits
    store: Store
    sessions: set[Session]  # the app sessions open (every one counts in sessions_total)
    account_sessions: Counter[int]  # open app sessions by account id
    address_sessions: Counter[str]  # open app sessions by address

    @property
    def write_high_water(self) -> int:
        """A channel's write buffer: past it, frames wait."""

    def holds_seat(self, account_id: int) -> bool: ...

    def start_session(self, session: Session) -> None:
        """What the session's command runs, started (``net.front.commands_run``)."""


class SessionApp(Protocol):
    """What the session asks of the app on its channel (a Textual app, or plain lines)."""

    def exit(self) -> None: ...


class TextualApp(SessionApp, Protocol):
    """A Textual app run on the channel (the lobby, a table, a replay, a review)."""

    driver_class: Any  # the session's driver factory (Textual calls it with the app)

    async def run_async(self, *, size: tuple[int, int] | None = None) -> Any: ...


class Session(asyncssh.SSHServerSession):  # type: ignore[type-arg]
    """One session channel: a command's text, or a Textual app bound to the channel."""

    def __init__(self, server: SessionHost, conn: Connection) -> None:
        self.server = server
        self.conn = conn
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.term: str | None = None
        self.size = (80, 24)
        self.command: Command | None = None
        self.command_error: str | None = None
        # ``bot join …``: the channel speaks the bot protocol, so even a refusal of its
        # command line is a JSON line (:meth:`reply`), never text a program cannot read
        self.bot_channel = False
        self.app: SessionApp | None = None
        self.driver: SSHDriver | None = None
        self.plain: PlainChannel | None = None  # --plain: lines of text, no Textual app
        self._early: list[bytes] = []
        self.task: asyncio.Task[None] | None = None
        self.last_input = time.monotonic()
        self._idle: asyncio.TimerHandle | None = None
        self._account_id: int | None = None  # counted in the server's account_sessions
        self._early_bytes = 0
        self.ended = False
        self.stopping = False  # the server is stopping: the session is told so at its end
        # the session's last line, said in place of the stopping one where it knows more:
        # how to come back to the table it was at (net.front.commands_run.come_back)
        self.farewell: str | None = None
        rate = server.limits.input_packets_per_second
        self._packets = RateLimit(rate, 1.0, 2 * rate)  # input packets (see _throttle)
        self._resume: asyncio.TimerHandle | None = None
        self.throttled = 0  # times the channel stopped taking data for a moment
        # window changes: applied at most resizes_per_second, the last size winning
        self._resize: asyncio.TimerHandle | None = None
        self._resized_at = -1e9  # the loop's time the last one was applied
        self._address: str | None = None  # counted in the server's address_sessions
        self.bot: BotSession | None = None  # ``bot join``: a program plays a seat
        self.bot_done: asyncio.Event | None = None
        self.input_ended = False  # the client sent its EOF: no key will come
        # East Asian ambiguous width (tui.compat.ambiwidth): what the probe found (None: no answer),
        # the player's setting (kept with the account; --ambiwidth for this session)
        self.ambi_detected: bool | None = None
        self.ambi_choice = AmbiWidth.AUTO
        self._probe: asyncio.Event | None = None  # set when both answers came
        self._probe_answers = 0  # answers taken so far (the ambiguous character's first)
        # the cells the terminal drew the probe's glyph tile in (None: no answer): the glyph
        # face only where it is one (tui.settings.Settings.face_shown)
        self.glyph_cells: int | None = None
        # a saved face the terminal cannot show was said (once a session: TextualTables.play
        # takes it from the table's settings)
        self.face_told = False
        self._probe_until = 0.0  # an answer until this loop time still counts

    # --- asyncssh callbacks ---------------------------------------------------------------
    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan
        high = self.server.write_high_water
        chan.set_write_buffer_limits(high=high, low=high // 4)

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int],
                      term_modes: Any) -> bool:
        term = "".join(ch for ch in (term_type or "")[:40] if ch.isalnum() or ch in "-_.+")
        self.term = term or "xterm"
        self.size = clamp_size(term_size[0], term_size[1], self.server.limits)
        return True

    def terminal_size_changed(self, width: int, height: int, pixwidth: int,
                              pixheight: int) -> None:
        """A window change: the size is kept at once, and given to the screen at most
        ``resizes_per_second`` (each is a redraw of the whole screen): a storm of them costs
        one redraw an interval, of the last size."""
        self.size = clamp_size(width, height, self.server.limits)
        if self.driver is None or self._resize is not None:
            return  # the app starts at self.size / the pending one takes the last size
        loop = asyncio.get_running_loop()
        wait = self._resized_at + 1.0 / max(1, self.server.limits.resizes_per_second) \
            - loop.time()
        if wait <= 0:
            self._apply_size()
        else:
            self._resize = loop.call_later(wait, self._apply_size)

    def _apply_size(self) -> None:
        self._resize = None
        self._resized_at = asyncio.get_running_loop().time()
        if self.driver is not None and not self.ended:
            self.driver.resize(*self.size)

    def shell_requested(self) -> bool:
        self.command = Command("lobby")
        return True

    def exec_requested(self, command: str) -> bool:
        self.bot_channel = command.split()[:1] == ["bot"]
        try:
            self.command = parse_command(command)
        except CommandError as exc:
            self.conn.log(logging.INFO, "refused command %r: %s", command[:80], exc)
            if not exc.shown:
                return False
            self.command_error = str(exc)
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        return False  # no SFTP, nothing else

    def break_received(self, msec: int) -> bool:
        return False

    def session_started(self) -> None:
        self.server.start_session(self)

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.last_input = time.monotonic()
        if not self._packets.allow():
            self._throttle()
        if self.bot is not None:
            self.bot.feed(data)
        elif self.driver is not None:
            self.driver.feed(data)
        elif self.plain is not None:
            self.plain.feed(data)
        elif self._early_bytes + len(data) <= self.server.limits.input_backlog:
            self._early.append(data)  # typed before the app started; more is dropped
            self._early_bytes += len(data)
            if self._probe is not None and not self._probe.is_set():
                self._take_probe_answer()

    def _take_probe_answer(self) -> None:
        """The probe's answer, if it is in what came before the app started: taken out of
        it (the keys typed meanwhile stay, in order)."""
        columns, rest = probe_answers(b"".join(self._early), 2 - self._probe_answers)
        if not columns:
            return
        self._early, self._early_bytes = ([rest] if rest else []), len(rest)
        for column in columns:  # the ambiguous character's, then the glyph tile's
            self._probe_answers += 1
            if self._probe_answers == 1:
                self._probe_answered(column_wide(column))
            else:
                self.glyph_cells = glyph_cells(column)
                self.conn.log(logging.DEBUG, "glyph tiles: %d cells", self.glyph_cells)
        if self._probe_answers == 2 and self._probe is not None:
            self._probe.set()

    def _probe_answered(self, wide: bool) -> None:
        self.ambi_detected = wide
        self._probe_until = 0.0
        self.conn.log(logging.DEBUG, "ambiguous-width characters: %s",
                      "wide" if wide else "narrow")

    def _late_probe_answer(self, wide: bool) -> None:
        """The probe answered after the first frame: the shown app redrawn for it."""
        if self.ambi_detected is not None or self.ended:
            return
        self._probe_answered(wide)
        app, driver = self.app, self.driver
        settings = getattr(app, "settings", None)
        redraw = getattr(app, "apply_ambiwidth", None)
        if isinstance(settings, Settings) and redraw is not None:
            settings.detected = wide
            redraw()
        elif driver is not None and driver.ambiwide != self.ambiwide():
            driver.ambiwide = self.ambiwide()
            driver.repaint()

    async def probe_terminal(self, command: Command) -> None:
        """Asks the terminal how wide it draws an ambiguous character (``tui.compat.ambiwidth``)
        and a glyph tile, before the first frame; a terminal that does not answer within
        ``PROBE_TIMEOUT`` is taken as narrow (its answer still counts for ``LATE_ANSWER``
        seconds; the glyph tile's then goes unheard: the glyph face is kept)."""
        if command.ambiwidth is not None or self.chan is None:
            return  # told on the command line: no need to ask
        self._probe = asyncio.Event()
        loop = asyncio.get_running_loop()
        self.chan.write(PROBE.encode("utf-8"))
        self._take_probe_answer()  # an answer that came with keys before
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._probe.wait(), PROBE_TIMEOUT)
        if self.ambi_detected is None:
            self._probe_until = loop.time() + LATE_ANSWER
        if self.chan is not None:
            self.chan.write(ERASE.encode("utf-8"))

    def ambiwide(self) -> bool:
        """Whether this session's screens are drawn for wide ambiguous characters."""
        return self.ambi_choice.wide(self.ambi_detected)

    def _throttle(self) -> None:
        """Over ``input_packets_per_second``: the channel stops taking data for a quarter of
        a second. What the client sends meanwhile waits in its window (SSH flow control: no
        window adjust is sent), so it cannot keep the loop busy with packets."""
        chan = self.chan
        if chan is None or self._resume is not None:
            return
        self.throttled += 1
        chan.pause_reading()
        self._resume = asyncio.get_running_loop().call_later(0.25, self._resume_reading)

    def _resume_reading(self) -> None:
        self._resume = None
        if self.chan is not None and not self.ended:
            self.chan.resume_reading()

    def eof_received(self) -> bool:
        """The client's input ended (``ssh -n``, ``< /dev/null``, a script's pipe closed),
        often before the command's answer is written: the app or the program's seat ends as
        when its player leaves, but the channel stays open (True) for all the command still
        prints; the command's end closes it with its exit status (``reply``, or the last
        ``exit`` of ``net.front.commands_run``)."""
        self.input_ended = True
        self.end_app()
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self.end_app()
        self.chan = None
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None
        if self._resize is not None:
            self._resize.cancel()
            self._resize = None
        self.conn.session_closed(self)

    def pause_writing(self) -> None:
        pass

    def resume_writing(self) -> None:
        if self.driver is not None:
            self.driver.drained()

    # --- plumbing -------------------------------------------------------------------------
    def admit(self, account: Account) -> bool:
        """The session counted among the server's, its account's and its address's; False
        (the client told why, exit status 1) over ``sessions_total`` (past its reserve,
        unless ``account`` holds a seat here), ``sessions_per_address`` or
        ``sessions_per_account``."""
        if self._server_full(account):
            return False
        held = self.server.account_sessions
        if held[account.id] >= self.server.limits.sessions_per_account:
            self.conn.log(logging.INFO, "refused: %d sessions open for %s", held[account.id],
                          account.nickname, limit="sessions_per_account")
            self.reply(both("account_full", n=held[account.id]) + "\n", status=1)
            return False
        held[account.id] += 1
        self._account_id = account.id
        self._address = self.conn.address
        self.server.address_sessions[self._address] += 1
        self.server.sessions.add(self)
        return True

    def _server_full(self, account: Account) -> bool:
        server, limits = self.server, self.server.limits
        total = len(server.sessions)
        if total >= limits.sessions_total or (
                total >= limits.sessions_total - limits.sessions_reserved
                and not server.holds_seat(account.id)):
            self.conn.log(logging.WARNING, "refused: the server is full (%d sessions)", total,
                          limit="sessions_total")
            self.reply(both("sessions_full", n=total) + "\n", status=1)
            return True
        mine = server.address_sessions[self.conn.address]
        if mine >= limits.sessions_per_address:
            self.conn.log(logging.INFO, "refused: %d sessions open from this address", mine,
                          limit="sessions_per_address")
            self.reply(both("address_full", n=mine) + "\n", status=1)
            return True
        return False

    def take_early(self) -> list[bytes]:
        """What the client typed before an app started, handed to it (and no longer kept)."""
        early, self._early = self._early, []
        self._early_bytes = 0
        return early

    def open_plain(self) -> PlainChannel:
        """The session as lines of text (``--plain``): its channel read and written by a
        :class:`PlainChannel` from now on, what was typed before handed to it, and the idle
        check on (``plain`` and ``app`` set: the end of the session stops it)."""
        assert self.chan is not None
        plain = self.plain = PlainChannel(self.chan, self.server.write_high_water,
                                          self.server.limits)
        self.app = plain
        for data in self.take_early():
            plain.feed(data)
        self.watch_idle()
        return plain

    def watch_idle(self) -> None:
        """The session ends after ``idle_seconds`` without input."""
        if self._idle is None:
            self._idle = asyncio.get_running_loop().call_later(
                self.server.limits.idle_seconds, self._check_idle)

    def stop_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def reply(self, text: str, status: int = 0, code: str = "refused") -> None:
        """``text`` to the client, then the channel's exit ``status``. On a bot channel a
        refusal is one line of the protocol's error shape, ``code`` naming it (the text cut
        before the command help a person would be shown)."""
        chan = self.chan
        assert chan is not None
        if self.bot_channel and status != 0:
            message = text.split("\n\n")[0].strip()
            chan.write(json.dumps({"type": "error", "request": None, "code": code,
                                   "message": message}, ensure_ascii=False).encode("utf-8")
                       + b"\n")
            chan.exit(status)
            return
        eol = "\r\n" if self.term is not None else "\n"
        chan.write(text.replace("\n", eol).encode("utf-8"))
        chan.exit(status)

    def end_app(self) -> None:
        if self.bot_done is not None:
            self.bot_done.set()
        app = self.app
        if app is not None and not self.ended:
            self.ended = True
            with contextlib.suppress(Exception):
                app.exit()

    def _check_idle(self) -> None:
        self._idle = None
        if self.app is None or self.ended:
            return
        idle = self.server.limits.idle_seconds
        left = self.last_input + idle - time.monotonic()
        if left <= 0:
            self.conn.log(logging.INFO, "idle, closing")
            self.end_app()
            return
        self._idle = asyncio.get_running_loop().call_later(left + 0.5, self._check_idle)

    def _build_driver(self, app: Any, *, debug: bool = False, mouse: bool = True,
                      size: tuple[int, int] | None = None) -> SSHDriver:
        chan: Any = self.chan
        if chan is None:
            # the client left (or was closed for a flood) while the app was starting: it gets
            # a channel that takes nothing and ends at once, instead of failing in Textual
            # (whose traceback, printed with its locals, costs the loop a tenth of a second)
            chan = _GONE
            asyncio.get_running_loop().call_soon(app.exit)
        late = self._probe_until - asyncio.get_running_loop().time()
        driver = SSHDriver(app, channel=chan, debug=debug, mouse=mouse, size=self.size,
                           high_water=self.server.write_high_water,
                           limits=self.server.limits, ambiwide=self.ambiwide(),
                           late_probe=late if self.ambi_detected is None else 0.0,
                           on_probe=self._late_probe_answer)
        self.driver = driver
        for data in self.take_early():
            driver.feed(data)
        return driver

    async def settings(self, account: Account, asked: str | None, fallback: str | None,
                       ambiwidth: str | None = None) -> RemoteSettings:
        """The player's settings: those kept with its key, else the defaults. The language:
        ``asked`` for (--lang) if given, else the kept one, else ``fallback`` (the client's
        locale). Ambiguous width: ``ambiwidth`` (--ambiwidth) for this visit if given, else
        the session's choice (the kept one, or what a table's settings screen chose), with
        what the probe found. The face: the kept one where the terminal can show it (a VT or
        a text console gets ASCII, a terminal drawing glyph tiles two cells wide CJK), said
        by the first table of the session that shows another."""
        store = self.server.store
        kept = None if account.guest else await store_call(store, store.load_settings,
                                                           account.id)
        settings = RemoteSettings.from_data(kept or {})
        if kept is not None and kept.get("lang") in ("en", "zh"):
            settings.kept_lang = settings.lang
        visit = asked or (fallback or settings.lang if settings.kept_lang is None else None)
        if visit:  # this visit's language, not kept unless picked in the settings
            settings.lang = settings.visit_lang = visit
        settings.kept_ambiwidth = settings.ambiwidth
        settings.ambiwidth = self.ambi_choice.value
        if ambiwidth is not None:
            settings.ambiwidth = settings.visit_ambiwidth = ambiwidth
        settings.detected = self.ambi_detected
        settings.glyph_cells = self.glyph_cells
        settings.ascii_only = not shows_cjk(self.term or "")
        settings.face_note_due = not self.face_told  # the table's app says it, and clears it
        if not account.guest:
            settings.saver = partial(store.save_settings, account.id)
        return settings

    def release_account(self) -> None:
        """The session no longer counts among its account's open sessions, nor its
        address's."""
        if self._address is not None:
            count_down(self.server.address_sessions, self._address)
            self._address = None
        if self._account_id is not None:
            count_down(self.server.account_sessions, self._account_id)
            self._account_id = None

    def close_driver(self) -> None:
        if self.driver is not None:
            self.driver.close()
            self.driver = None

    async def run_app(self, app: TextualApp) -> Any:
        """``app`` run on the channel to its end: what it returned (None if the client left
        before it started)."""
        self.app = app
        app.driver_class = self._build_driver
        self.watch_idle()
        if self.ended or self.input_ended:  # the client left, or ended its input, meanwhile
            return None
        result = await app.run_async(size=self.size)
        error = internals.app_exception(app) if isinstance(app, App) else None
        if error is not None:  # Textual ended the app (its traceback went to stderr)
            self.conn.log(logging.ERROR, "the session's %s failed: %r", type(app).__name__, error)
        return result

    def write_line(self, text: str) -> None:
        if self.chan is not None:
            self.chan.write((text + "\r\n").encode("utf-8"))


class _GoneChannel:
    """A session's channel once its client has left: it takes nothing."""

    def write(self, data: bytes) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return True


_GONE = _GoneChannel()
