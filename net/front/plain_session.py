"""``--plain`` over SSH: a session's channel as lines of text (:mod:`tui.plain.front`) instead of a
Textual app, for a screen reader (``ssh -t HOST join NAME --plain``, ``watch NAME --plain``,
``lobby --plain``).

The client's terminal is in raw mode (``ssh -t``), so the keys arrive one by one:
:class:`~tui.plain.terminal.LineEditor` echoes them and makes lines. What the server writes is plain
text, each line ended by CR LF, the prompt last; no escape sequence is ever written. A client
that stops reading while the table plays on is let go once its unread output passes
``write_high_water`` (nothing more is buffered for it).
"""

from __future__ import annotations

import asyncio
from typing import Protocol

import asyncssh

from host.client import SharedTableClient
from host.coach import Coach, coach_table
from host.table_info import TableInfo, TableState
from net.commands import Command
from net.front import players
from net.front.lobby import lobby_command, motd_lines
from net.front.tournaments import lobby_lines as tournament_lines
from net.limits import Limits, clamp_size
from net.runtime.registry import Registry
from net.sanitize import clean_line
from net.store.model import Account
from tui.plain.front import PlainTable
from tui.plain.sentences import printable
from tui.plain.terminal import DEFAULT_WIDTH, LineEditor, TerminalOutput
from tui.plain.words import SEATS
from tui.settings import Settings
from tui.words.ruleset_title import rules_title
from words import TEXT, tr

# plain mode's lines wrap at the client's width, and at no fewer columns than these (a line of
# a few words is read better cut by the terminal than a word on each line)
PLAIN_MIN_COLUMNS = 20


class PlainChannel:
    """One session's channel in plain mode: the keys in, lines out. The session calls
    :meth:`feed` with what arrives and :meth:`exit` when the client goes."""

    def __init__(self, chan: asyncssh.SSHServerChannel[bytes], high_water: int,
                 limits: Limits = Limits()) -> None:  # noqa: B008 - frozen
        self.chan = chan
        self.limits = limits
        self.high_water = high_water
        self.done = asyncio.Event()
        self.lines: asyncio.Queue[str] = asyncio.Queue(maxsize=16)
        self.editor = LineEditor(self.write, self._line, self.exit)
        # a player who leaves a table goes back to the lobby he came from, if any: leaving
        # ends the table's loop (:meth:`play`), not the session
        self.output = TerminalOutput(self.write, "\r\n", typed=lambda: self.editor.text,
                                     width=self.width)

    def width(self) -> int:
        """The client's columns as it last said them, within the session's limits (a window
        size is the client's to claim); 80 where it said none."""
        columns = self.chan.get_terminal_size()[0] or DEFAULT_WIDTH
        return max(clamp_size(columns, 24, self.limits)[0], PLAIN_MIN_COLUMNS)

    def write(self, text: str) -> None:
        if self.done.is_set():
            return
        try:
            if self.chan.get_write_buffer_size() > self.high_water:
                self.exit()  # the client reads nothing: no more output is kept for it
                return
            self.chan.write(text.encode("utf-8"))
        except (OSError, asyncssh.Error, BrokenPipeError):
            self.exit()

    def feed(self, data: bytes) -> None:
        if not self.done.is_set():
            self.editor.feed(data)

    def _line(self, line: str) -> None:
        self.output.echoed()  # Enter took the cursor to a new line
        if self.lines.full():  # typed faster than anything is read: dropped
            return
        self.lines.put_nowait(line)

    def exit(self) -> None:
        self.done.set()

    async def next_line(self) -> str | None:
        """The next line typed, or None when the client went."""
        get = asyncio.ensure_future(self.lines.get())
        stop = asyncio.ensure_future(self.done.wait())
        try:
            done, _ = await asyncio.wait({get, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
        if get in done:
            return get.result()
        get.cancel()
        return None

    async def play(self, client: SharedTableClient, settings: Settings,
                   coach: Coach | None = None) -> None:
        """Sit (or watch) at the table in plain lines until the player leaves or goes
        (``coach``: at a coach table, plain mode's ``coach`` asks it)."""
        plain = PlainTable(client, settings.lang, self.output, settings=settings, coach=coach)
        plain.start()
        try:
            while not plain.closed:
                line = await self.next_line()
                if line is None:
                    break
                plain.handle(line)
        finally:
            plain.close()


class LobbyServer(Protocol):
    @property
    def registry(self) -> Registry: ...


def table_line(n: int, info: TableInfo, lang: str, account: Account | None = None) -> str:
    """A table of the lobby in one sentence (as ``account`` may sit there: a private table
    it is not invited to has no free seat for it)."""
    held = info.held if info.private else 0  # seats held for the invited are not free
    free = sum(1 for seat in info.seats if not seat.name) - held
    away, program = tr(lang, "pl_away"), tr(lang, "pl_bot")
    names = ", ".join(f"{SEATS[lang][i]} {printable(s.name)[:24]}"
                      + ((program.replace("]", f": {printable(s.program)}]") if s.program
                          else program) if s.bot else "")
                      + ("" if s.connected else away)
                      for i, s in enumerate(info.seats) if s.name)
    state = tr(lang, f"pl_{info.state.name.lower()}", n=free, hand=info.hand_no,
               hands=info.hands_per_game)
    if (account is not None and info.state is TableState.WAITING
            and not info.admits(account.id, account.nickname, account.key_fingerprint,
                                account.guest)):
        state = tr(lang, "pl_waiting_uninvited", n=free)
    if held and info.state is TableState.WAITING:
        state += ", " + tr(lang, "lobby_held", n=held)
    if coach_table(info.options):  # a practice table: never rated
        state += ", " + tr(lang, "coach_unrated")
    return tr(lang, "pl_table", n=n, name=printable(info.name), rules=rules_title(info.rules, lang),
              state=state, names=names or tr(lang, "pl_nobody"), watching=info.spectators)


async def plain_lobby(channel: PlainChannel, server: LobbyServer, account: Account,
                      lang: str, notice: str = "") -> Command | None:
    """The lobby as a numbered list of tables and a prompt; the command of the table chosen
    (``--plain`` kept), or None when the player leaves."""
    registry = server.registry
    full_told: str | None = None
    infos: list[TableInfo] = []

    def listing() -> list[str]:
        nonlocal infos
        infos = sorted(registry.listing(), key=lambda i: list(TableState).index(i.state))
        out = [tr(lang, "p_lobby_welcome", n=len(infos))]
        if not infos:
            out.append(tr(lang, "p_lobby_none"))
        out += [table_line(i + 1, info, lang, account) for i, info in enumerate(infos)]
        # the tournaments not finished, and where this player plays now
        return [*out, *tournament_lines(registry, lang, account.id)]

    ask = tr(lang, "p_lobby_ask") + " > "
    motd = [printable(line) for line in motd_lines(server)]  # the host's message of the day
    lines = ([printable(notice)] if notice else []) + motd + listing()
    channel.output.say(lines, ask)
    while True:
        line = await channel.next_line()
        if line is None:
            return None
        words = clean_line(line).split()
        said: list[str] = []
        if not words:
            said = listing()
        elif words[0].lower() in ("q", "exit", *TEXT["quit"]):
            return None
        elif words[0].lower() in ("l", "ls", *TEXT["list"]):
            said = listing()
        elif words[0].lower() in players.LOBBY_WORDS:  # kept for the operators, or why not
            said = [await players.lobby_report(getattr(server, "store", None), account, words)]
        else:
            if words[0].lower() in ("watch", "close") and len(words) == 2 and words[1].isdigit():
                words[1] = _numbered(infos, words[1]) or words[1]
            elif words[0].isdigit():
                name = _numbered(infos, words[0])
                if name is None:
                    said = [tr(lang, "p_lobby_no_number", n=words[0][:6])]
                else:
                    words[0] = name
            if not said:
                result = lobby_command(registry, account, words, full_told, plain=True)
                if isinstance(result, Command):
                    return Command(result.name, result.table, result.rules, result.options,
                                   result.bots, result.lang or lang, plain=True)
                message, full_told = result
                said = [message]
        channel.output.say(said, ask)


def _numbered(infos: list[TableInfo], word: str) -> str | None:
    n = int(word[:6])
    return infos[n - 1].name if 1 <= n <= len(infos) else None

