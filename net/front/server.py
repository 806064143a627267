"""``mahjong-ssh serve``: one asyncssh server, one Textual app per SSH session, one table
registry shared by all, so that every table is one object whichever session acts on it.

Login: the SSH public key is the account, the SSH user name the nickname (made unique); with
``allow_anonymous`` a client without a key gets in by keyboard-interactive with no question,
under its nickname. Only session channels exist: no port, agent or X11 forwarding, no SFTP or
SCP, and the only commands are ``join NAME [--rules R] [--option KEY=VALUE ...] [--bots L]``
(the options and computer levels apply when the table is created), ``watch NAME``, ``stats``
and ``help``; a plain ``ssh -t`` opens the lobby. A join or watch command with bad arguments
gets the reason (exit status 2); anything else is refused.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import asyncssh

from engine.rating import label as rating_label
from engine.rulesets import RULESETS
from host.client import SharedTableClient
from host.local import default_data_dir
from host.refusal import explain
from net.commands import HELP_TEXT, Command, CommandError, locale_lang, parse_command
from net.front import reclaim, replay, reviewing
from net.front.botsession import BotSession
from net.front.compat_asyncssh import quiet_packet_log
from net.front.driver import SSHDriver, clear_parser_cache
from net.front.lobby import LobbyApp
from net.front.login import Connection, LoginGate
from net.front.plain_session import PlainChannel, plain_lobby
from net.front.remote_app import RemoteApp, RemoteSettings
from net.front.reviewing import ReviewPool, StoreReviews
from net.front.terminals import TermClass, dumb_text, shows_cjk, term_class
from net.front.trends import rating_note, trends
from net.game_id import shown_game_id
from net.limits import (
    BUDGETED,
    Limits,
    LogGate,
    RateLimit,
    clamp_size,
)
from net.runtime.registry import Registry
from net.runtime.shared_table import SharedTable, TableConfig
from net.sanitize import pad
from net.store.base import Store, store_call
from net.store.model import Account, LeaderRow, StorageError
from tui.apps.replay import ListedGame, ReplayGame
from tui.apps.review import ReviewGame
from tui.compat import compat_textual
from tui.compat.ambiwidth import ERASE, LATE_ANSWER, PROBE, PROBE_TIMEOUT, AmbiWidth, probe_answer
from tui.settings import Settings
from tui.view.faces import Face

if TYPE_CHECKING:

    from net.cluster.node import Node

log = logging.getLogger("net.front.server")


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 2222
    data_dir: Path = field(default_factory=default_data_dir)
    allow_anonymous: bool = True
    limits: Limits = field(default_factory=Limits)  # every limit on what a client controls
    table: TableConfig = field(default_factory=TableConfig)
    write_high_water: int = 256 * 1024
    # a server of several workers (net/cluster): the bus every worker joins, and the database
    # they share (None: the SQLite file in the data folder)
    nats_url: str | None = None
    db_url: str | None = None
    reuse_port: bool = False  # several worker processes listen on one port (SO_REUSEPORT)
    worker: int | None = None  # this worker's number under ``serve --workers N``
    # the processes expert players think in (host.thinking): None one per core but one, 0 none
    # (they think in a thread); the pool is made at start, its workers at the first decision
    think_workers: int | None = None


STOPPING_TEXT = ("The server is stopping; your game is saved and resumes when it is back. "
                 "服务器正在关闭，对局已保存，重启后继续。")
FULL_TEXT = ("The server is full ({n} sessions): try again later. "
             "服务器已满（{n} 个会话），请稍后再试。\n")
ADDRESS_FULL_TEXT = ("{n} sessions are open from your address already: close one first. "
                     "你的地址已打开 {n} 个会话，请先关闭一个。\n")
# --- no stdout/stderr redirection for SSH apps (tui.compat.compat_textual) ---------------
neutralise_redirects = compat_textual.neutralise_redirects


class Session(asyncssh.SSHServerSession):  # type: ignore[type-arg]
    """One session channel: a command's text, or a Textual app bound to the channel."""

    def __init__(self, server: MahjongServer, conn: Connection) -> None:
        self.server = server
        self.conn = conn
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.term: str | None = None
        self.size = (80, 24)
        self.command: Command | None = None
        self.command_error: str | None = None
        self.app: Any = None
        self.driver: SSHDriver | None = None
        self.plain: PlainChannel | None = None  # --plain: lines of text, no Textual app
        self._early: list[bytes] = []
        self._task: asyncio.Task[None] | None = None
        self.last_input = time.monotonic()
        self._idle: asyncio.TimerHandle | None = None
        self._account_id: int | None = None  # counted in the server's account_sessions
        self._early_bytes = 0
        self.ended = False
        self.stopping = False  # the server is stopping: the session is told so at its end
        rate = server.limits.input_packets_per_second
        self._packets = RateLimit(rate, 1.0, 2 * rate)  # input packets (see _throttle)
        self._resume: asyncio.TimerHandle | None = None
        self.throttled = 0  # times the channel stopped taking data for a moment
        # window changes: applied at most resizes_per_second, the last size winning
        self._resize: asyncio.TimerHandle | None = None
        self._resized_at = -1e9  # the loop's time the last one was applied
        self._address: str | None = None  # counted in the server's address_sessions
        self.bot: BotSession | None = None  # ``bot join``: a program plays a seat
        self._bot_done: asyncio.Event | None = None
        self._answering = False  # a text answer is being read from the store (replay)
        # East Asian ambiguous width (tui.compat.ambiwidth): what the probe found (None: no answer),
        # the player's setting (kept with the account; --ambiwidth for this session)
        self.ambi_detected: bool | None = None
        self.ambi_choice = AmbiWidth.AUTO
        self._probe: asyncio.Event | None = None  # set when the answer comes
        self._probe_until = 0.0  # an answer until this loop time still counts

    # --- asyncssh callbacks ---------------------------------------------------------------
    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan
        high = self.server.config.write_high_water
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
        chan = self.chan
        assert chan is not None
        if self.command_error is not None:
            self._text(f"error 错误: {self.command_error}\n", status=2)
            return
        command = self.command or Command("lobby")
        if command.name == "help":
            self._text(HELP_TEXT)
            return
        if command.name == "stats":
            self._task = asyncio.get_running_loop().create_task(self._stats())
            return
        if command.name == "replay" and self.term is None:  # text: the list, or the record
            self._answering = True
            self._task = asyncio.get_running_loop().create_task(self._replay_text(command))
            return
        if self.term is None and command.name != "bot":
            self._text("This needs a terminal: ssh -t ... 需要终端：请加 -t\n\n" + HELP_TEXT,
                       status=1)
            return
        if self.term is not None and term_class(self.term) is TermClass.DUMB \
                and not command.plain:
            self.conn.log(logging.INFO, "refused: TERM=%s cannot draw the table", self.term)
            self._text(dumb_text(self.term), status=1)
            return
        if self.conn.account is None:  # its account is still being read (a database server)
            self._task = asyncio.get_running_loop().create_task(self._when_logged_in(command))
            return
        self._start(command)

    async def _when_logged_in(self, command: Command) -> None:
        await self.conn.logged_in.wait()
        if self.conn.account is not None and self.chan is not None and not self.ended:
            self._start(command)

    def _start(self, command: Command) -> None:
        account = self.conn.account
        assert account is not None
        if self._server_full(account):
            return
        held = self.server.account_sessions
        if held[account.id] >= self.server.limits.sessions_per_account:
            self.conn.log(logging.INFO, "refused: %d sessions open for %s", held[account.id],
                          account.nickname)
            self._text(f"You have {held[account.id]} sessions open already: close one first. "
                       f"你已打开 {held[account.id]} 个会话，请先关闭一个。\n", status=1)
            return
        held[account.id] += 1
        self._account_id = account.id
        self._address = self.conn.address
        self.server.address_sessions[self._address] += 1
        run = self._run_bot(command) if command.name == "bot" else self._run_app(command)
        self._task = asyncio.get_running_loop().create_task(run)
        self.server.sessions.add(self)

    def _server_full(self, account: Account) -> bool:
        """Over ``sessions_total`` (past its reserve, unless ``account`` holds a seat here)
        or ``sessions_per_address``: the session is refused, told why (exit status 1)."""
        server, limits = self.server, self.server.limits
        total = len(server.sessions)
        if total >= limits.sessions_total or (
                total >= limits.sessions_total - limits.sessions_reserved
                and not server.holds_seat(account.id)):
            self.conn.log(logging.WARNING, "refused: the server is full (%d sessions)", total)
            self._text(FULL_TEXT.format(n=total), status=1)
            return True
        mine = server.address_sessions[self.conn.address]
        if mine >= limits.sessions_per_address:
            self.conn.log(logging.INFO, "refused: %d sessions open from this address", mine)
            self._text(ADDRESS_FULL_TEXT.format(n=mine), status=1)
            return True
        return False

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
        wide, rest = probe_answer(b"".join(self._early))
        if wide is None:
            return
        self._early, self._early_bytes = ([rest] if rest else []), len(rest)
        self._probe_answered(wide)

    def _probe_answered(self, wide: bool) -> None:
        self.ambi_detected = wide
        self._probe_until = 0.0
        if self._probe is not None:
            self._probe.set()
        self.conn.log(logging.DEBUG, "ambiguous-width characters: %s",
                      "wide" if wide else "narrow")

    def _late_probe_answer(self, wide: bool) -> None:
        """The probe answered after the first frame: the shown app redrawn for it."""
        if self.ambi_detected is not None or self.ended:
            return
        self._probe_answered(wide)
        app, driver = self.app, self.driver
        settings = getattr(app, "settings", None)
        if isinstance(settings, Settings) and hasattr(app, "apply_ambiwidth"):
            settings.detected = wide
            app.apply_ambiwidth()
        elif driver is not None and driver.ambiwide != self.ambiwide():
            driver.ambiwide = self.ambiwide()
            driver.repaint()

    async def _probe_terminal(self, command: Command) -> None:
        """Asks the terminal how wide it draws an ambiguous character (``tui.compat.ambiwidth``),
        before the first frame; a terminal that does not answer within ``PROBE_TIMEOUT`` is
        taken as narrow (its answer still counts for ``LATE_ANSWER`` seconds)."""
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
        if self._answering:  # a text answer still to write (ssh … replay < /dev/null)
            return True  # the channel stays open for it: its end closes it
        self._end_app()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._end_app()
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
    async def _stats(self) -> None:
        """``stats``: the board read (in a thread where the store waits on a database
        server), then written from the event loop."""
        board = await store_call(self.server.store, self.server.stats_board)
        if self.chan is not None and not self.ended:
            self._text(self.server.stats_text(board))

    def _text(self, text: str, status: int = 0) -> None:
        chan = self.chan
        assert chan is not None
        eol = "\r\n" if self.term is not None else "\n"
        chan.write(text.replace("\n", eol).encode("utf-8"))
        chan.exit(status)

    def _end_app(self) -> None:
        if self._bot_done is not None:
            self._bot_done.set()
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
            self._end_app()
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
                           high_water=self.server.config.write_high_water,
                           limits=self.server.limits, ambiwide=self.ambiwide(),
                           late_probe=late if self.ambi_detected is None else 0.0,
                           on_probe=self._late_probe_answer)
        self.driver = driver
        early, self._early = self._early, []
        self._early_bytes = 0
        for data in early:
            driver.feed(data)
        return driver

    async def _run_app(self, command: Command) -> None:
        account = self.conn.account
        assert account is not None and self.chan is not None
        env = self.chan.get_environment()
        colorterm = str(env.get("COLORTERM", "")) if env else ""
        lang = command.lang or locale_lang(env)
        asked = command.lang  # --lang, for join / watch, or for the tables the lobby enters
        status = 0
        client = None
        # a session that opened in the lobby goes back to it when its player leaves a table
        # (q, or the lobby's own errors); Ctrl-Q, or a session started by join / watch, ends
        from_lobby = command.name == "lobby"
        notice = ""
        store = self.server.store
        kept = None if account.guest else await store_call(store, store.load_settings, account.id)
        self.ambi_choice = (AmbiWidth.parse(command.ambiwidth)
                            or AmbiWidth.parse((kept or {}).get("ambiwidth"))
                            or AmbiWidth.AUTO)
        visit_ambiwidth = command.ambiwidth  # --ambiwidth: for this session, not kept
        try:
            if command.plain or (await self._settings(account, asked, lang)).plain:
                status = await self._run_plain(command, account, lang, asked)
                return
            await self._probe_terminal(command)
            if command.name == "replay":
                status = await self._replay(command, account, lang, asked, colorterm)
                return
            if command.name == "review":
                status = await self._review(command, account, lang, asked, colorterm)
                return
            while True:
                if command.name == "lobby":
                    lobby = LobbyApp(self.server, account, term=self.term or "xterm",
                                     colorterm=colorterm, notice=notice)
                    chosen = await self._run(lobby)
                    self._close_driver()
                    if not isinstance(chosen, Command) or self.ended or self.chan is None:
                        return
                    command = chosen
                    lang = command.lang or lang
                    asked = command.lang or asked
                    if command.ambiwidth is not None:  # typed in the lobby: for this visit
                        visit_ambiwidth = command.ambiwidth
                try:
                    client = await self.server.open_seat(command, account, self.conn.address)
                except ValueError as exc:  # TableExists, OptionError, unknown ruleset
                    if from_lobby:
                        notice, command = f"error 错误: {exc}", Command("lobby")
                        continue
                    self._write_line(f"error 错误: {explain(exc, lang)}")
                    status = 2
                    return
                if client is None:
                    if from_lobby:
                        notice = f"no table named {command.table} 没有这个牌桌"
                        command = Command("lobby")
                        continue
                    self._write_line(f"no table named {command.table} 没有这个牌桌")
                    status = 1
                    return
                settings = await self._settings(account, asked, lang, visit_ambiwidth)
                app = RemoteApp(client, settings, term=self.term or "xterm", colorterm=colorterm,
                                reviews=StoreReviews(store, self.server.reviews))
                if not shows_cjk(self.term or "") and settings.tiles is None:
                    app.face = Face.ASCII  # a VT or a text console: ASCII unless chosen
                await self._run(app)
                # what the settings screen chose holds for the lobby after it
                self.ambi_choice = AmbiWidth.parse(settings.ambiwidth) or AmbiWidth.AUTO
                visit_ambiwidth = settings.visit_ambiwidth  # None once picked there
                status = app.return_code or 0
                client.close()
                client = None
                self._close_driver()
                if (not from_lobby or app.ends_session or self.ended or self.chan is None
                        or status):
                    return
                notice, command = f"left {command.table} 已离开", Command("lobby")
        except Exception:
            self.conn.log(logging.ERROR, "session crashed", exc_info=True)
            status = 1
            with contextlib.suppress(Exception):
                self._write_line("\x1b[?1049l\x1b[?25hSorry: this session failed. 会话出错。")
        finally:
            if client is not None:
                client.close()
            self._close_driver()
            if self._idle is not None:
                self._idle.cancel()
                self._idle = None
            self.app = None
            self.driver = None
            self.ended = True
            self.server.sessions.discard(self)
            self._release_account()
            clear_parser_cache()
            reclaim.session_ended()
            chan = self.chan
            if chan is not None:
                with contextlib.suppress(Exception):
                    if self.stopping:
                        self._write_line(STOPPING_TEXT)
                    chan.exit(status)

    async def _run_plain(self, command: Command, account: Account, lang: str | None,
                         asked: str | None) -> int:
        """``--plain``: the lobby and the table as lines of text (net.front.plain_session),
        until the player leaves or the client goes; the session's exit status."""
        assert self.chan is not None
        plain = self.plain = PlainChannel(self.chan, self.server.config.write_high_water)
        self.app = plain  # the idle check and the end of the session stop it
        early, self._early = self._early, []
        self._early_bytes = 0
        for data in early:
            plain.feed(data)
        if self._idle is None:
            self._idle = asyncio.get_running_loop().call_later(
                self.server.limits.idle_seconds, self._check_idle)
        from_lobby = command.name == "lobby"
        notice = ""
        try:
            while not plain.done.is_set():
                settings = await self._settings(account, asked, lang)
                if command.name == "lobby":
                    chosen = await plain_lobby(plain, self.server, account, settings.lang,
                                               notice)
                    if chosen is None:
                        return 0
                    command = chosen
                    asked = command.lang or asked
                    settings = await self._settings(account, asked, lang)
                try:
                    client = await self.server.open_seat(command, account, self.conn.address)
                except ValueError as exc:  # TableExists, OptionError, unknown ruleset
                    notice = f"error 错误: {explain(exc, settings.lang)}"
                    if not from_lobby:
                        self._write_line(notice)
                        return 2
                    command = Command("lobby", plain=True)
                    continue
                if client is None:
                    notice = f"no table named {command.table} 没有这个牌桌"
                    if not from_lobby:
                        self._write_line(notice)
                        return 1
                    command = Command("lobby", plain=True)
                    continue
                await plain.play(client, settings)
                if not from_lobby:
                    break
                notice, command = f"left {command.table} 已离开", Command("lobby", plain=True)
            return 0
        finally:
            self.plain = None
            self._write_line("")

    async def _run_bot(self, command: Command) -> None:
        """``bot join NAME``: the program on the channel plays the seat (net.front.botsession)
        until it closes its output or the connection ends."""
        account = self.conn.account
        assert account is not None and self.chan is not None
        self._bot_done = asyncio.Event()
        status = 0
        client = None
        try:
            try:
                client = await self.server.open_seat(command, account, self.conn.address)
            except ValueError as exc:  # TableExists, OptionError, a limit, quarantined
                self._bot_error("refused", explain(exc, "en"))
                status = 2
                return
            if client is None or client.seat_index is None:
                self._bot_error("no_seat", f"table {command.table} has no free seat for a "
                                "bot (four players sit there) 没有空位")
                status = 1
                return
            chan = self.chan
            if chan is None or self.ended or self._bot_done.is_set():
                return  # the program closed its output (or left) while the seat was found
            self.conn.log(logging.INFO, "bot %s sits at %s", account.nickname, command.table)

            def write(data: bytes) -> None:
                try:
                    chan.write(data)
                except (BrokenPipeError, OSError):  # the channel is closing
                    if self._bot_done is not None:
                        self._bot_done.set()

            bot = BotSession(client, write, self.server.limits,
                             note=lambda level, text: self.conn.log(level, "%s", text),
                             unread=chan.get_write_buffer_size,
                             close=lambda why: self._bot_done.set() if self._bot_done else None)
            self.bot = bot
            early, self._early = self._early, []
            self._early_bytes = 0
            bot.start()
            for data in early:
                bot.feed(data)
            idle = self.server.limits.idle_seconds  # no line this long: closed, as a player
            while not self._bot_done.is_set():
                left = self.last_input + idle - time.monotonic()
                if left <= 0:
                    self.conn.log(logging.INFO, "bot idle, closing")
                    self._bot_error("idle", f"nothing received for {idle:g} s: the session "
                                    "is closed")
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._bot_done.wait(), left + 0.5)
        except Exception:
            self.conn.log(logging.ERROR, "bot session crashed", exc_info=True)
            status = 1
        finally:
            if self.bot is not None:
                self.bot.closed = True
                self.bot = None
            if client is not None:
                client.close()
            self.ended = True
            self.server.sessions.discard(self)
            self._release_account()
            chan = self.chan
            if chan is not None:
                with contextlib.suppress(Exception):
                    chan.exit(status)

    def _bot_error(self, code: str, message: str) -> None:
        if self.chan is not None:
            with contextlib.suppress(BrokenPipeError, OSError):
                    self.chan.write(json.dumps({"type": "error", "request": None, "code": code,
                                            "message": message}, ensure_ascii=False
                                           ).encode("utf-8") + b"\n")

    async def _replay(self, command: Command, account: Account, lang: str | None,
                      asked: str | None, colorterm: str) -> int:
        """``replay ID``: the viewer; ``replay``: the list, and the game chosen from it
        (leaving the game goes back to the list). The exit status: 2 for an unknown ID."""
        store = self.server.store
        settings = await self._settings(account, asked, lang)
        game_id = command.game_id
        while not self.ended and self.chan is not None:
            if not game_id:
                games = [] if account.guest else await replay.games_of(store, account.id)
                chosen = await self._choose_game(settings, games, colorterm)
                if chosen is None:
                    return 0
                game_id = chosen
            game = await self._kept_game(game_id)
            if game is None:
                return 2
            viewer = replay.RemoteReplayApp(game, settings, term=self.term or "xterm",
                                            colorterm=colorterm)
            await self._run(viewer)
            self._close_driver()
            if command.game_id or viewer.ends_session:
                return 0
            game_id = ""
        return 0

    async def _choose_game(self, settings: RemoteSettings, games: list[ListedGame], colorterm: str
                           ) -> str | None:
        """The list of the account's kept games; the ID chosen, ``None`` when left."""
        chooser = replay.RemoteReplayApp(None, settings, games, term=self.term or "xterm",
                                         colorterm=colorterm)
        chosen = await self._run(chooser)
        self._close_driver()
        if not isinstance(chosen, str) or chooser.ends_session:
            return None
        return chosen

    async def _kept_game(self, game_id: str) -> ReplayGame | None:
        """The kept game ``game_id`` re-run, or ``None`` after saying it is unknown."""
        try:
            return await replay.replay_game(self.server.store, game_id)
        except replay.GameNotFound as exc:
            self._write_line(f"error 错误: {exc}")
            return None

    async def _review(self, command: Command, account: Account, lang: str | None,
                      asked: str | None, colorterm: str) -> int:
        """``review ID``: the expert's review of the account's own seat in that game;
        ``review``: the list, and the game chosen from it (leaving the review goes back to
        the list). The exit status: 2 for an unknown ID or a game the account did not play."""
        store = self.server.store
        settings = await self._settings(account, asked, lang)
        game_id = command.game_id
        while not self.ended and self.chan is not None:
            games = [] if account.guest else await replay.games_of(store, account.id)
            if not game_id:
                chosen = await self._choose_game(settings, games, colorterm)
                if chosen is None:
                    return 0
                game_id = chosen
            game = await self._kept_game(game_id)
            if game is None:
                return 2
            seat = reviewing.seat_in(game, games, game_id, account.nickname)
            if seat is None:
                shown = shown_game_id(game_id)
                self._write_line(f"error 错误: you did not play in game {shown}: ssh … replay "
                                 f"{shown} shows it 你没有参加这局")
                return 2
            review = await asyncio.to_thread(ReviewGame.of, game, seat)  # the seat's views
            app = reviewing.RemoteReviewApp(review, self.server.reviews, settings,
                                            term=self.term or "xterm", colorterm=colorterm)
            await self._run(app)
            self._close_driver()
            if command.game_id or app.ends_session:
                return 0
            game_id = ""
        return 0

    async def _replay_text(self, command: Command) -> None:
        """``replay`` without a terminal: the list as text; ``replay ID``: the game's record
        as JSON lines (``ssh host replay ID > game.jsonl``, then ``mahjong-ssh replay
        game.jsonl --view``)."""
        await self.conn.logged_in.wait()  # its account may still be read (a database server)
        account = self.conn.account
        if account is None:
            self._answering = False
            return
        lang = command.lang or locale_lang(self.chan.get_environment() if self.chan else None)
        store = self.server.store
        status = 0
        try:
            if command.game_id:
                text = (await replay.kept_game(store, command.game_id)).record
            else:
                games = [] if account.guest else await replay.games_of(store, account.id)
                text = replay.listing_text(games, lang or "en")
        except replay.GameNotFound as exc:
            text, status = f"error 错误: {exc}\n", 2
        except StorageError as exc:
            text, status = f"error 错误: {exc}\n", 1
        finally:
            self._answering = False
        if self.chan is not None:
            with contextlib.suppress(OSError):  # the client left meanwhile
                self._text(text, status)

    async def _settings(self, account: Account, asked: str | None, fallback: str | None,
                        ambiwidth: str | None = None) -> RemoteSettings:
        """The player's settings: those kept with its key, else the defaults. The language:
        ``asked`` for (--lang) if given, else the kept one, else ``fallback`` (the client's
        locale). Ambiguous width: ``ambiwidth`` (--ambiwidth) for this visit if given, else
        the session's choice (the kept one, or what a table's settings screen chose), with
        what the probe found."""
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
        if not account.guest:
            settings.saver = partial(store.save_settings, account.id)
        return settings

    def _release_account(self) -> None:
        """The session no longer counts among its account's open sessions, nor its
        address's."""
        if self._address is not None:
            per_address = self.server.address_sessions
            per_address[self._address] -= 1
            if per_address[self._address] <= 0:
                del per_address[self._address]
            self._address = None
        if self._account_id is not None:
            held = self.server.account_sessions
            held[self._account_id] -= 1
            if held[self._account_id] <= 0:
                del held[self._account_id]
            self._account_id = None

    def _close_driver(self) -> None:
        if self.driver is not None:
            self.driver.close()
            self.driver = None

    async def _run(self, app: Any) -> Any:
        self.app = app
        app.driver_class = self._build_driver
        if self._idle is None:
            self._idle = asyncio.get_running_loop().call_later(
                self.server.limits.idle_seconds, self._check_idle)
        if self.ended:  # the client left while we were setting up
            return None
        result = await app.run_async(size=self.size)
        error = compat_textual.app_exception(app)
        if error is not None:  # Textual ended the app (its traceback went to stderr)
            self.conn.log(logging.ERROR, "the session's %s failed: %r", type(app).__name__, error)
        return result

    def _write_line(self, text: str) -> None:
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


# Ciphers the server offers. Not chacha20-poly1305, which clients prefer: asyncssh does it
# several times slower than AES-GCM or AES-CTR with an EtM MAC (docs/performance.md), and every
# frame of every session is encrypted on the one event loop. All are standard; OpenSSH then
# picks aes128-ctr.
# the libraries' loggers whose lines go through the server's log budget (asyncio's "socket.send()
# raised exception." for every write to a lost connection, asyncssh's own)
LIBRARY_LOGGERS = ("asyncio", "asyncssh", "asyncssh.sftp")

ENCRYPTION_ALGS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr",
                   "aes192-ctr", "aes256-ctr")


class MahjongServer:
    """The server: SSH listener, table registry and store."""

    def __init__(self, config: ServerConfig, store: Store, registry: Registry,
                 node: Node | None = None) -> None:
        compat_textual.apply()  # no cyclic garbage per line drawn
        reclaim.install()  # a closed connection's and its transport's cycles let go of
        quiet_packet_log()
        self.config = config
        self.limits = config.limits
        self.data_dir = Path(config.data_dir)
        self.store = store  # accounts, settings, results: the front reads them through it
        self.registry = registry  # the tables this process runs (net.runtime)
        self.account_sessions: Counter[int] = Counter()  # open app sessions by account id
        self.address_sessions: Counter[str] = Counter()  # open app sessions by address
        # every log line of the server's (the event loop's and asyncssh's too: start())
        self.log_gate = LogGate(config.limits.log_lines_per_minute)
        self._log_report: asyncio.TimerHandle | None = None
        self.gate = LoginGate(self.limits, store, self.log_gate,
                              allow_anonymous=config.allow_anonymous,
                              open_session=partial(Session, self))
        self.sessions: set[Session] = set()
        self.acceptor: asyncssh.SSHAcceptor | None = None
        self.host_key: asyncssh.SSHKey | None = None
        self.port = config.port
        self.node = node  # this worker's part in a server of several (net.cluster)
        self.reviews = ReviewPool()  # the reviews' assessments: one niced process, when asked

    def host_key_path(self) -> Path:
        return self.data_dir / "ssh_host_ed25519_key"

    def holds_seat(self, account_id: int) -> bool:
        """Whether the account has a seat at one of this process's tables (a player coming
        back to it may use the sessions kept in reserve)."""
        return any(table.seat_of(account_id) is not None
                   for table in list(self.registry.tables.values()))

    def _report_log(self) -> None:
        """Once a minute: how many log lines the budget left out, if any."""
        left_out = self.log_gate.take_suppressed()
        if left_out:
            log.warning("%d log lines were left out in the last minute (over %d a minute)",
                        left_out, self.limits.log_lines_per_minute, extra=BUDGETED)
        self._log_report = asyncio.get_running_loop().call_later(60.0, self._report_log)

    def load_host_key(self) -> asyncssh.SSHKey:
        """Generated once (mode 0600) in the data folder."""
        return load_host_key(self.host_key_path())

    async def start(self) -> int:
        neutralise_redirects()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            os.chmod(self.data_dir, 0o700)
        self.host_key = self.load_host_key()
        for name in LIBRARY_LOGGERS:  # their lines through the server's budget too
            logging.getLogger(name).addFilter(self.log_gate)
        self._log_report = asyncio.get_running_loop().call_later(60.0, self._report_log)
        if self.node is not None:
            await self.node.start()  # one worker of several: it takes tables as it goes
        else:
            restored = self.registry.load()
            if restored or restored.quarantined:
                log.info("restored %d tables, quarantined %d", restored, restored.quarantined)
            self.registry.resume()
        self.acceptor = await asyncssh.create_server(
            self.gate.connection,
            self.config.host,
            self.config.port,
            server_host_keys=[self.host_key],
            encoding=None,
            line_editor=False,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            sftp_factory=None,
            allow_pty=True,
            kbdint_auth=self.config.allow_anonymous,
            password_auth=False,
            login_timeout=self.limits.login_grace,
            server_version="mahjong-ssh",  # not the library and its version
            keepalive_interval=15,
            keepalive_count_max=4,
            encryption_algs=ENCRYPTION_ALGS,
            reuse_port=self.config.reuse_port or None,
        )
        self.port = self.acceptor.sockets[0].getsockname()[1]
        return self.port

    async def open_seat(self, command: Command, account: Account,
                        address: str | None = None) -> SharedTableClient | None:
        """The seat (or spectator's place) a join or watch command asks for, wherever its
        table runs: None for a watch of no table; ValueError with the reason it cannot be had
        (quarantined, a limit, other settings)."""
        if self.node is not None:
            return await self.node.open_seat(command, account, address)
        table = self.table_for(command, account, address)
        if table is None:
            return None
        return table.join(account, spectate=command.name == "watch", bot=command.bot)

    def table_for(self, command: Command, account: Account | None = None,
                  address: str | None = None) -> SharedTable | None:
        """The table a join or watch command names: a join creates it (within the table
        limits, as ``account`` from ``address``). ValueError with the reason it cannot
        (quarantined, a limit, other settings)."""
        if command.name == "watch":
            return self.registry.find(command.table)
        return self.registry.get_or_create(command.table, command.rules, dict(command.options),
                                           command.bots, creator=account, address=address,
                                           privacy=command.private)

    def stats_board(self) -> list[tuple[str, list[LeaderRow], dict[str, str]]]:
        """What ``stats`` reads from the store (:func:`stats_board`)."""
        return stats_board(self.store)

    def stats_text(self, board: list[tuple[str, list[LeaderRow], dict[str, str]]] | None
                   = None) -> str:
        """The leaderboard, one per ruleset (their points are on different scales) ordered by
        rating, then the tables. ``board``: :meth:`stats_board`, read already."""
        lines = ["Leaderboard 排行榜"]
        if board is None:
            board = stats_board(self.store)
        if not board:
            lines += ["", "No finished games yet. 还没有完成的对局。"]
        for rules, leaders, recent in board:
            cls = RULESETS.get(rules)
            lines += ["", f"{cls.zh} {cls.en}" if cls is not None else rules]
            lines.append(f"{'#':>3}  {'player':<16} {'rating':>6} {'games':>5} {'hands':>5} "
                         f"{'wins':>4} {'score':>7} {'a hand':>6}  recent 近况")
            for i, r in enumerate(leaders, 1):
                per = f"{r.score / r.hands:+.2f}" if r.hands else "-"
                name = f"{r.nickname} [bot]" if r.bot_games else r.nickname
                shown = rating_label(r.rating, r.rated) if r.rating is not None else "-"
                lines.append(f"{i:>3}  {pad(name, 16)} {shown:>6} {r.games:>5} "
                             f"{r.hands:>5} {r.wins:>4} {r.score:>+7} {per:>6}  "
                             f"{recent[r.nickname]}".rstrip())
            lines.append(rating_note(rules))
        infos = self.registry.listing()
        lines += ["", f"Tables 牌桌: {len(infos)}"]
        for info in infos:
            seated = sum(1 for s in info.seats if s.name)
            lines.append(f"  {pad(info.name, 16)} {info.rules:<9} {seated}/4 seated  "
                         f"{info.state.value}" + ("  私 private" if info.private else ""))
        pool = self.registry.config.thinking
        if pool is not None and (pool.stats.pooled or pool.stats.fallbacks):
            lines.append(f"Expert players' thinking 电脑思考: {pool.stats.line()}")
        if self.node is not None:  # which worker answered (in a server of several)
            lines.append(f"\nServed by worker {self.node.name}.")
        return "\n".join(lines) + "\n"

    async def close(self) -> None:
        """Stop: no new connections, every session told the server is stopping and ended
        (what it played is already saved: every action is written as it is applied), the
        tables and the database closed."""
        if self.acceptor is not None:
            self.acceptor.close()
        if self._log_report is not None:
            self._log_report.cancel()
            self._log_report = None
        for name in LIBRARY_LOGGERS:
            logging.getLogger(name).removeFilter(self.log_gate)
        for session in list(self.sessions):
            session.stopping = True
            session._end_app()
        tasks = [s._task for s in list(self.sessions) if s._task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=1.0)
        if self.acceptor is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.acceptor.wait_closed(), 0.2)
        if self.node is not None:
            await self.node.stop()
        self.reviews.close()
        self.registry.close()
        if self.config.table.thinking is not None:
            self.config.table.thinking.close()
        self.store.close()


def stats_board(store: Store) -> list[tuple[str, list[LeaderRow], dict[str, str]]]:
    """What ``stats`` reads from ``store``: each ruleset played, its leaders (by rating, then
    the unrated by score) and their trends."""
    board = []
    for rules in store.rulesets_played():
        leaders = store.leaderboard(rules=rules, by_rating=True)
        board.append((rules, leaders, trends(store, rules, [r.nickname for r in leaders])))
    return board


def load_host_key(path: Path) -> asyncssh.SSHKey:
    """The host key in ``path``, generated there once (mode 0600) if there is none."""
    if path.exists():
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519", comment="mahjong-ssh host key")
    fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key.export_private_key())
    return key


def fingerprint_banner(server: MahjongServer) -> str:
    assert server.host_key is not None
    config = server.config
    return banner(config.host, server.port, server.host_key,
                  f"(data: {server.data_dir}"
                  f"{', database: ' + safe_url(config.db_url) if config.db_url else ''})")


def banner(host: str, port: int, host_key: asyncssh.SSHKey, serving: str) -> str:
    """What ``serve`` prints once it listens: where, with what (``serving``), the host key's
    fingerprint for the players to compare, and the lines they type."""
    shown = "HOST" if host in ("0.0.0.0", "::", "") else host
    return (
        f"mahjong-ssh serving on {host}:{port} {serving}\n"
        f"host key fingerprint: {host_key.get_fingerprint('sha256')}\n"
        f"connect:  ssh -t -p {port} YOURNAME@{shown} join TABLE\n"
        f"lobby:    ssh -t -p {port} YOURNAME@{shown}\n"
    )


def safe_url(url: str) -> str:
    """A database URL without its password, for the banner."""
    head, at, tail = url.rpartition("@")
    if not at:
        return url
    scheme, _, cred = head.partition("://")
    return f"{scheme}://{cred.split(':', 1)[0]}@{tail}"
