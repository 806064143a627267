"""What each command runs on a session (``net.front.session``): one object per kind.

- a text answer: an error in the command, ``help``, ``stats``, ``replay`` without a terminal
  (the list as text, or a game's record as JSON lines), ``rename NEWNAME``;
- the tables (``TextualTables``, ``PlainTables`` for ``--plain``): the lobby, and the table
  a join or watch command names, the lobby ⇄ table loop written once (``TableRun``): a
  session that opened in the lobby goes back to it when its player leaves a table, one
  started by join or watch ends there;
- the kept games (``net.front.kept_games``: replay, review, puzzles);
- a program playing a seat (``BotRun``, ``bot join NAME``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import unicodedata
from collections.abc import Awaitable
from dataclasses import replace
from functools import partial
from typing import Protocol

from host.client import SharedTableClient
from host.coach import Coach
from host.refusal import explain
from host.thinking import Budget
from net.cluster.remote import RoutedClient
from net.commands import HELP_TEXT, Command, locale_lang
from net.front import operators, player_chat, reclaim, replay
from net.front.bans import Moderation
from net.front.botsession import BotSession
from net.front.driver import clear_parser_cache
from net.front.hostfiles import AllowList, HostFile
from net.front.kept_games import PlainPuzzlesRun, PuzzlesRun, ReplayRun, ReviewRun
from net.front.lobby import LobbyApp
from net.front.operators import OperatorBus
from net.front.plain_session import plain_lobby
from net.front.remote_app import RemoteApp, RemoteSettings
from net.front.reviewing import ReviewPool, StoreReviews
from net.front.session import Session, SessionHost
from net.front.terminals import TermClass, dumb_text, shows_cjk, term_class
from net.front.tournaments import reply as tournament_reply
from net.runtime.registry import Registry
from net.sanitize import NAME_MAX, clean_name, mixed_script, skeleton
from net.store.base import store_call
from net.store.model import Account, LeaderRow, Renamed, StorageError
from tui.compat.ambiwidth import AmbiWidth
from tui.view.faces import Face
from words import both, tr

STOPPING_TEXT = both("stopping")
ERROR = both("error")  # the lead of a refusal's line: "error 错误: ..."

Board = list[tuple[str, list[LeaderRow], dict[str, str]]]


class CommandHost(SessionHost, Protocol):
    """What the commands need of the server (``net.front.server.MahjongServer``)."""

    reviews: ReviewPool  # the reviews' assessments
    operators: HostFile[AllowList] | None  # the operators' keys (``serve --operators``)
    moderation: Moderation  # the bans and mutes in force
    operator_bus: OperatorBus | None  # a server of several workers: the others told

    @property
    def registry(self) -> Registry: ...

    async def open_seat(self, command: Command, account: Account,
                        address: str | None = None) -> SharedTableClient | None: ...

    def stats_board(self) -> Board: ...

    def stats_text(self, board: Board | None = None) -> str: ...


def session_coach(host: CommandHost) -> Coach | None:
    """A session's coach (host.coach: shown only at a coach table): the server's thinking
    pool within the limits' share for one session; None where the server runs no pool
    (``--think-workers 0``: the coach then says it cannot)."""
    pool = host.registry.config.thinking
    if pool is None:
        return None
    limits = host.limits
    return Coach(pool, Budget(limits.coach_cpu_share, limits.coach_cpu_burst),
                 limit=limits.coach_seconds)


def start(host: CommandHost, session: Session) -> None:
    """The session's command started (its channel asked for a shell or a command)."""
    assert session.chan is not None
    if operators.answered_first(session, partial(start, host, session)):  # a ban, or wait
        return
    if session.command_error is not None:  # on a bot channel a JSON line (Session.reply)
        session.reply(session.command_error if session.bot_channel
                      else f"{ERROR}: {session.command_error}\n", status=2, code="usage")
        return
    command = session.command or Command("lobby")
    if command.name == "op":  # from a key not in the operators file: an unknown command
        operators.start(host, host.operators, session, list(command.words))
        return
    if command.name == "help":
        session.reply(HELP_TEXT)
        return
    loop = asyncio.get_running_loop()
    if command.name == "stats":
        session.task = loop.create_task(_answering(session, _stats(host, session)))
        return
    if command.name == "report":  # a text answer, with a terminal or without
        session.task = loop.create_task(_answering(session, player_chat.run_report(
            host, session, list(command.words))))
        return
    if command.name == "rename":  # a text answer, with a terminal or without
        session.task = loop.create_task(_answering(session,
                                                   _rename(host, session, command.nickname)))
        return
    if command.name == "tournament":  # a text answer, with a terminal or without
        session.task = loop.create_task(_answering(session, _tournament(host, session, command)))
        return
    if command.name == "replay" and session.term is None:  # text: the list, or the record
        session.task = loop.create_task(_answering(session,
                                                   _replay_text(host, session, command)))
        return
    if session.term is None and command.name != "bot":  # a usage error: the one line on -t
        session.reply(both("needs_terminal", sep="\n", command=command.name) + "\n", status=2,
                      code="usage")
        return
    if session.term is not None and term_class(session.term) is TermClass.DUMB \
            and not command.plain:
        session.conn.log(logging.INFO, "refused: TERM=%s cannot draw the table", session.term)
        session.reply(dumb_text(session.term), status=1)
        return
    if session.conn.account is None:  # its account is still being read (a database server)
        session.task = loop.create_task(_when_logged_in(host, session, command))
        return
    _admitted(host, session, command)


async def _answering(session: Session, answer: Awaitable[None]) -> None:
    """A text command's answer; an error it did not expect is logged and ends the session
    with one line and exit status 1, where the client would otherwise wait for ever."""
    try:
        await answer
    except Exception:
        session.conn.log(logging.ERROR, "a %s command failed",
                         session.command.name if session.command else "?", exc_info=True)
        if session.chan is not None:
            with contextlib.suppress(OSError):  # the client left meanwhile
                session.reply(f"{ERROR}: {both('command_failed')}\n", 1, code="internal")


async def _when_logged_in(host: CommandHost, session: Session, command: Command) -> None:
    await session.conn.logged_in.wait()
    if session.conn.account is not None and session.chan is not None and not session.ended:
        _admitted(host, session, command)


def _admitted(host: CommandHost, session: Session, command: Command) -> None:
    account = session.conn.account
    assert account is not None
    if not session.admit(account):
        return
    run = (BotRun(host, session, account).run(command) if command.name == "bot"
           else _app_session(host, session, account, command))
    session.task = asyncio.get_running_loop().create_task(run)


# --- text answers -------------------------------------------------------------------------
async def _stats(host: CommandHost, session: Session) -> None:
    """``stats``: the board read (in a thread where the store waits on a database server),
    then written from the event loop."""
    board = await store_call(host.store, host.stats_board)
    if session.chan is not None:
        with contextlib.suppress(OSError):  # the client left meanwhile
            session.reply(host.stats_text(board))


async def _replay_text(host: CommandHost, session: Session, command: Command) -> None:
    """``replay`` without a terminal: the list as text; ``replay ID``: the game's record as
    JSON lines (``ssh host replay ID > game.jsonl``, then ``mahjong-ssh replay game.jsonl
    --view``)."""
    await session.conn.logged_in.wait()  # its account may still be read (a database server)
    account = session.conn.account
    if account is None:
        return
    lang = command.lang or locale_lang(session.chan.get_environment() if session.chan
                                       else None)
    store = host.store
    status = 0
    try:
        if command.game_id:
            text = (await replay.kept_game(store, command.game_id,
                                           host.registry.tournaments.held_back)).record
        else:
            games = [] if account.guest else await replay.games_of(store, account.id)
            text = replay.listing_text(games, lang or "en")
    except replay.GameNotFound as exc:
        text, status = f"{ERROR}: {exc}\n", 2
    except StorageError as exc:
        text, status = f"{ERROR}: {exc}\n", 1
    if session.chan is not None:
        with contextlib.suppress(OSError):  # the client left meanwhile
            session.reply(text, status)


async def _tournament(host: CommandHost, session: Session, command: Command) -> None:
    await session.conn.logged_in.wait()  # its account may still be read (a database server)
    account = session.conn.account
    if account is not None and session.chan is not None:
        await tournament_reply(host, session, account, command)


async def _rename(host: CommandHost, session: Session, asked: str) -> None:
    """``rename NEWNAME``: the account plays as NEWNAME from now on, or why not (exit status
    2 for what is not a name, 1 for a name it cannot have now)."""
    await session.conn.logged_in.wait()  # its account may still be read (a database server)
    account = session.conn.account
    if account is None:
        return
    text, status = await _renamed(host, account, asked)
    if status == 0 and account.nickname != asked:  # this connection's next sessions too
        session.conn.log(logging.INFO, "%s renamed to %s", account.nickname, asked)
        session.conn.account = replace(account, nickname=asked)
    if session.chan is not None:
        with contextlib.suppress(OSError):  # the client left meanwhile
            session.reply(text + "\n", status)


async def _renamed(host: CommandHost, account: Account, asked: str) -> tuple[str, int]:
    """What ``rename`` says, and its exit status. A name is checked as a login's is (a clean
    name, no guest's mark, unlike any other account's); a seat or another session of the
    account's keeps the old name in use (a table's seat shows the name it sat with), so the
    rename waits for them to end."""
    name = clean_name(asked)
    if account.guest:
        return f"{ERROR}: {both('rename_guest', name=account.nickname)}", 1
    if name != asked:  # a look-alike's mixed scripts said as such, not as a length or a sign
        said = ("not_nickname_mixed" if mixed_script(unicodedata.normalize("NFKC", asked))
                else "not_nickname")
        return f"{ERROR}: {both(said, word=asked[:30], n=NAME_MAX)}", 2
    if name == account.nickname:
        return both("rename_same", name=name), 0
    if account.id < 0:  # an account in memory only, while the store fails
        return f"{ERROR}: {both('rename_unsaved')}", 1
    if host.account_sessions[account.id] or host.holds_seat(account.id):
        return f"{ERROR}: {both('rename_seated')}", 1
    store = host.store
    try:
        done = await store_call(store, store.rename_account, account.id, name)
    except StorageError:
        return f"{ERROR}: {both('rename_unsaved')}", 1
    if done is Renamed.TAKEN:
        return f"{ERROR}: {both('rename_taken', name=name)}", 1
    if done is Renamed.SEATED:
        return f"{ERROR}: {both('rename_seated')}", 1
    said = "renamed_keyless" if account.anonymous else "renamed"
    return both(said, name=name, old=account.nickname), 0


async def name_note(host: CommandHost, session: Session, account: Account,
                    lang: str | None = None) -> str:
    """Why a key's account plays under another name than the SSH user name of this login,
    for the lobby to say (in ``lang``, or both languages): that name is another player's,
    or the key keeps the name of its first visit; with how to change it. Empty when they
    agree, and for a keyless login (whose user name is its account)."""
    if account.guest or account.anonymous:
        return ""
    asked = clean_name(session.conn.username)
    if asked == account.nickname:
        return ""
    store = host.store
    free = (skeleton(asked) == skeleton(account.nickname)
            or await store_call(store, store.free_nickname, asked) == asked)
    key = "name_kept" if free else "name_taken"
    fields = {"name": account.nickname, "asked": asked}
    return tr(lang, key, **fields) if lang else both(key, **fields)


# --- a session with a terminal ------------------------------------------------------------
async def _app_session(host: CommandHost, session: Session, account: Account,
                       command: Command) -> None:
    """The lobby and the tables, plain or drawn, or the kept games, until the player leaves
    or the client goes; then the session's exit status (and, the server stopping, why)."""
    assert session.chan is not None
    env = session.chan.get_environment()
    colorterm = str(env.get("COLORTERM", "")) if env else ""
    lang = command.lang or locale_lang(env)
    asked = command.lang  # --lang, for join / watch, or for the tables the lobby enters
    status = 0
    store = host.store
    kept = None if account.guest else await store_call(store, store.load_settings, account.id)
    session.ambi_choice = (AmbiWidth.parse(command.ambiwidth)
                           or AmbiWidth.parse((kept or {}).get("ambiwidth"))
                           or AmbiWidth.AUTO)
    try:
        plain = command.plain or (await session.settings(account, asked, lang)).plain
        if plain and command.name == "puzzles":  # lines of text (net.front.plain_puzzles)
            status = await PlainPuzzlesRun(host, session, account).run(command, lang, asked)
            return
        if plain:
            status = await PlainTables(host, session, account, lang, asked).run(command)
            return
        await session.probe_terminal(command)
        if command.name in ("replay", "review", "puzzles"):
            kind = {"replay": ReplayRun, "review": ReviewRun}.get(command.name, PuzzlesRun)
            status = await kind(host, session, account, colorterm).run(command, lang, asked)
            return
        status = await TextualTables(host, session, account, lang, asked, colorterm,
                                     command.ambiwidth).run(command)
    except Exception:
        session.conn.log(logging.ERROR, "session crashed", exc_info=True)
        status = 1
        with contextlib.suppress(Exception):
            session.write_line("\x1b[?1049l\x1b[?25h" + both("session_failed"))
    finally:
        session.close_driver()
        session.stop_idle()
        session.app = None
        session.driver = None
        session.ended = True
        host.sessions.discard(session)
        session.release_account()
        clear_parser_cache()
        reclaim.session_ended()
        chan = session.chan
        if chan is not None:
            with contextlib.suppress(Exception):
                if session.farewell is not None:
                    session.write_line(session.farewell)
                    # removed by an operator (a kick, a ban, its table closed) or its table
                    # lost: never a success, whichever screen it was on (a lobby's ends 0)
                    status = status or 1
                elif session.stopping:
                    session.write_line(STOPPING_TEXT)
                chan.exit(status)


def come_back(session: Session, account: Account, command: Command) -> str:
    """The ssh command that brings the player back to ``command``'s table (its seat, or
    its place as a spectator): the address and port this connection reached, the account's
    name (a guest's: the one it asked for)."""
    host, port = "HOST", 22
    with contextlib.suppress(Exception):
        sock = session.conn.conn.get_extra_info("sockname") if session.conn.conn else None
        if sock:
            host, port = str(sock[0]), int(sock[1])
    if ":" in host:
        host = f"[{host}]"
    verb = "watch" if command.name == "watch" else "join"
    plain = " --plain" if command.plain else ""
    at = "" if port == 22 else f" -p {port}"
    # a guest's name (its mark) is never given again: the name it logged in with
    name = clean_name(session.conn.username) if account.guest else account.nickname
    return f"ssh -t{at} {name}@{host} {verb} {command.table}{plain}"


def table_farewell(session: Session, account: Account, client: SharedTableClient,
                   command: Command) -> None:
    """The session's last line, when it leaves a table it did not choose to leave: the
    table lost with its worker (a server of several), or this process stopping; with how to
    come back. Nothing where the player left, or the client went."""
    lost = isinstance(client, RoutedClient) and client.lost
    if not (lost or session.stopping) or session.chan is None:
        return
    line = come_back(session, account, command)
    key = ("table_lost" if lost else
           "stopping_moves" if isinstance(client, RoutedClient) else "stopping_table")
    session.farewell = both(key, sep="\r\n", table=command.table, line=line)


class TableRun:
    """The lobby ⇄ table loop: the lobby's choice (or the command's table) opened, a refusal
    said (in the lobby, or as the session's end: exit status 2, or 1 for a watch of no
    table), the table played, and back to the lobby when the session opened there."""

    lobby_command = Command("lobby")

    def __init__(self, host: CommandHost, session: Session, account: Account,
                 lang: str | None, asked: str | None) -> None:
        self.host = host
        self.session = session
        self.account = account
        self.lang = lang  # the client's locale, or --lang
        self.asked = asked  # --lang, for join / watch, or for the tables the lobby enters

    def going(self) -> bool:
        return True

    async def note_lang(self) -> str | None:
        """The language of the lobby's notices (None: both)."""
        return None

    async def lobby(self, notice: str) -> Command | None:
        """The lobby shown (with ``notice``): the join or watch command chosen there, or
        None when the player left it."""
        raise NotImplementedError

    async def refused(self, exc: ValueError, from_lobby: bool) -> str:
        """What is said of a seat refused (in the lobby, or as the session's last line)."""
        raise NotImplementedError

    async def play(self, client: SharedTableClient, command: Command) -> tuple[int, bool]:
        """The table played to its end, ``client`` closed: the exit status, and whether the
        session may go back to the lobby."""
        raise NotImplementedError

    async def run(self, command: Command) -> int:
        from_lobby = command.name == "lobby"
        notice = (await name_note(self.host, self.session, self.account,
                                  await self.note_lang()) if from_lobby else "")
        while self.going():
            if command.name == "lobby":
                chosen = await self.lobby(notice)
                if chosen is None:
                    return 0
                command = chosen
            try:
                client = await self.host.open_seat(command, self.account,
                                                   self.session.conn.address)
                if client is not None:  # its chat: /ignore, /report, an operator's commands
                    await player_chat.at_table(self.host, self.session, self.account, client,
                                           command.table)
                if client is not None and self.host.operators is not None:
                    operators.at_table(self.host, self.host.operators, self.session, client)
            except ValueError as exc:  # TableExists, OptionError, unknown ruleset
                notice = await self.refused(exc, from_lobby)
                if not from_lobby:
                    self.session.write_line(notice)
                    return 2
                command = self.lobby_command
                continue
            if client is None:
                notice = both("no_table_named", table=command.table)
                if not from_lobby:
                    self.session.write_line(notice)
                    return 1
                command = self.lobby_command
                continue
            status, more = await self.play(client, command)
            if not from_lobby or not more:
                return status
            notice, command = both("left_table", table=command.table), self.lobby_command
        return 0


class TextualTables(TableRun):
    """The lobby and the tables drawn by Textual apps."""

    def __init__(self, host: CommandHost, session: Session, account: Account,
                 lang: str | None, asked: str | None, colorterm: str,
                 ambiwidth: str | None) -> None:
        super().__init__(host, session, account, lang, asked)
        self.colorterm = colorterm
        self.visit_ambiwidth = ambiwidth  # --ambiwidth: for this session, not kept

    async def lobby(self, notice: str) -> Command | None:
        session = self.session
        lobby = LobbyApp(self.host, self.account, term=session.term or "xterm",
                         colorterm=self.colorterm, notice=notice)
        chosen = await session.run_app(lobby)
        session.close_driver()
        if not isinstance(chosen, Command) or session.ended or session.chan is None:
            return None
        self.lang = chosen.lang or self.lang
        self.asked = chosen.lang or self.asked
        if chosen.ambiwidth is not None:  # typed in the lobby: for this visit
            self.visit_ambiwidth = chosen.ambiwidth
        return chosen

    async def refused(self, exc: ValueError, from_lobby: bool) -> str:
        return f"{ERROR}: {exc}" if from_lobby else f"{ERROR}: {explain(exc, self.lang)}"

    async def play(self, client: SharedTableClient, command: Command) -> tuple[int, bool]:
        session = self.session
        try:
            settings = await session.settings(self.account, self.asked, self.lang,
                                              self.visit_ambiwidth)
            app = RemoteApp(client, settings, term=session.term or "xterm",
                            colorterm=self.colorterm,
                            reviews=StoreReviews(self.host.store, self.host.reviews,
                                                 self.host.registry.tournaments.held_back),
                            chat_kept=self.host.limits.chat_lines_kept)
            app.coach = session_coach(self.host)
            if not shows_cjk(session.term or "") and settings.tiles is None:
                app.face = Face.ASCII  # a VT or a text console: ASCII unless chosen
            if isinstance(client, RoutedClient):  # its table lost: the app ends, not freezes
                client.on_lost = app.exit
            await session.run_app(app)
            table_farewell(session, self.account, client, command)
            # what the settings screen chose holds for the lobby after it
            session.ambi_choice = AmbiWidth.parse(settings.ambiwidth) or AmbiWidth.AUTO
            session.face_told = session.face_told or not settings.face_note_due
            self.visit_ambiwidth = settings.visit_ambiwidth  # None once picked there
            status = app.return_code or (1 if session.farewell else 0)
        finally:
            client.close()
        session.close_driver()
        return status, not (app.ends_session or session.ended or session.chan is None
                            or status)


class PlainTables(TableRun):
    """``--plain``: the lobby and the table as lines of text (net.front.plain_session)."""

    lobby_command = Command("lobby", plain=True)

    async def run(self, command: Command) -> int:
        session = self.session
        self.plain = session.open_plain()
        try:
            return await super().run(command)
        finally:
            session.plain = None
            session.write_line("")

    def going(self) -> bool:
        return not self.plain.done.is_set()

    async def _settings(self) -> RemoteSettings:
        return await self.session.settings(self.account, self.asked, self.lang)

    async def note_lang(self) -> str | None:
        return (await self._settings()).lang

    async def lobby(self, notice: str) -> Command | None:
        settings = await self._settings()
        chosen = await plain_lobby(self.plain, self.host, self.account, settings.lang, notice)
        if chosen is not None:
            self.asked = chosen.lang or self.asked
        return chosen

    async def refused(self, exc: ValueError, from_lobby: bool) -> str:
        return f"{ERROR}: {explain(exc, (await self._settings()).lang)}"

    async def play(self, client: SharedTableClient, command: Command) -> tuple[int, bool]:
        if isinstance(client, RoutedClient):  # its table lost: the session ends saying so
            client.on_lost = self.plain.exit
        await self.plain.play(client, await self._settings(), session_coach(self.host))
        table_farewell(self.session, self.account, client, command)
        return (1, False) if self.session.farewell else (0, True)


# --- the kept games -----------------------------------------------------------------------
# --- a program playing a seat -------------------------------------------------------------
class BotRun:
    """``bot join NAME``: the program on the channel plays the seat (net.front.botsession)
    until it closes its output or the connection ends."""

    def __init__(self, host: CommandHost, session: Session, account: Account) -> None:
        self.host = host
        self.session = session
        self.account = account

    async def run(self, command: Command) -> None:
        host, session, account = self.host, self.session, self.account
        assert session.chan is not None
        done = session.bot_done = asyncio.Event()
        status = 0
        client = None
        try:
            try:
                client = await host.open_seat(command, account, session.conn.address)
            except ValueError as exc:  # TableExists, OptionError, a limit, quarantined
                self._error("refused", explain(exc, "en"))
                status = 2
                return
            if client is None or client.seat_index is None:
                self._error("no_seat", both("bot_no_seat", table=command.table))
                status = 1
                return
            chan = session.chan
            if chan is None or session.ended or done.is_set():
                return  # the program closed its output (or left) while the seat was found
            session.conn.log(logging.INFO, "bot %s sits at %s", account.nickname, command.table,
                             table=command.table)
            self._replace_older(client)

            def write(data: bytes) -> None:
                try:
                    chan.write(data)
                except (BrokenPipeError, OSError):  # the channel is closing
                    done.set()

            bot = BotSession(client, write, host.limits,
                             note=lambda level, text: session.conn.log(
                                 level, "%s", text, table=command.table),
                             unread=chan.get_write_buffer_size,
                             close=lambda why: done.set())
            session.bot = bot
            early = session.take_early()
            bot.start()
            for data in early:
                bot.feed(data)
            idle = host.limits.idle_seconds  # no line this long: closed, as a player
            while not done.is_set():
                left = session.last_input + idle - time.monotonic()
                if left <= 0:
                    session.conn.log(logging.INFO, "bot idle, closing", table=command.table)
                    self._error("idle", f"nothing received for {idle:g} s: the session "
                                "is closed")
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(done.wait(), left + 0.5)
            if bot.replaced:
                status = 1
        except Exception:
            session.conn.log(logging.ERROR, "bot session crashed", exc_info=True)
            status = 1
        finally:
            if session.bot is not None:
                session.bot.closed = True
                session.bot = None
            if client is not None:
                client.close()
            session.ended = True
            host.sessions.discard(session)
            session.release_account()
            chan = session.chan
            if chan is not None:
                with contextlib.suppress(Exception):
                    chan.exit(status)

    def _replace_older(self, client: SharedTableClient) -> None:
        """A second ``bot join`` of the same account to the same seat: the newer session
        takes it (the older may be a connection that died unnoticed), and the older is told
        (``replaced``) and ends. Two programs never answer for one seat."""
        table = client.info().name
        for other in list(self.host.sessions):
            old = other.bot
            if (old is None or other is self.session or old.closed
                    or other.conn.account is None or other.conn.account.id != self.account.id
                    or old.client.seat_index != client.seat_index
                    or old.client.info().name != table):
                continue
            other.conn.log(logging.INFO, "bot %s replaced at %s by a newer session",
                           self.account.nickname, table)
            old.replace(both("bot_replaced", table=table))

    def _error(self, code: str, message: str) -> None:
        chan = self.session.chan
        if chan is not None:
            with contextlib.suppress(BrokenPipeError, OSError):
                chan.write(json.dumps({"type": "error", "request": None, "code": code,
                                       "message": message}, ensure_ascii=False
                                      ).encode("utf-8") + b"\n")
