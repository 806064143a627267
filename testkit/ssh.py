"""A real server on port 0 and asyncssh clients with a PTY that render into a virtual screen
(pyte), for ``tests/`` and ``bench/``: outside the installed packages, as pyte is a dev-only
dependency."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from codecs import getincrementaldecoder
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import asyncssh
import pyte
from wcwidth import wcwidth

from host.clock import SYSTEM_CLOCK
from net import serve
from net.front.server import MahjongServer, ServerConfig
from net.runtime.config import TableConfig
from testkit.terminal import CjkScreen

# what the ``make_server`` fixture gives: start a server with ``fast_config(tmp, **config)``
MakeServer = Callable[..., Awaitable[MahjongServer]]


def fast_config(data_dir: Path, **table: Any) -> ServerConfig:
    """A fast server: no bot pause, short grace, the quickest computer players, port 0; its
    tables on ``clock`` (a test's ManualClock) when one is given."""
    tc = TableConfig(bot_delay=table.pop("bot_delay", 0.0),
                     grace_seconds=table.pop("grace_seconds", 1.0),
                     arrival_seconds=table.pop("arrival_seconds", 1.0),
                     next_hand_seconds=table.pop("next_hand_seconds", 60.0),
                     bot_level=table.pop("bot_level", "easy"),
                     clock=table.pop("clock", SYSTEM_CLOCK))
    return ServerConfig(host="127.0.0.1", port=0, data_dir=data_dir, table=tc, **table)


async def start_server(config: ServerConfig) -> MahjongServer:
    return await serve.start_server(config)


_PARTIAL = re.compile(r"\x1b(\[[0-9;?<=>]*[ -/]*)?\Z")
# what changes no cell and moves no cursor: colours (SGR) and private modes (``CSI ? ...``)
_IGNORED = re.compile(r"\x1b\[(?:\?[0-9;?<=>]*[ -/]*[@-~]|[0-9;?<=>]*[ -/]*m)")
# the rest, split into text and controls; a lone ESC (not a sequence) is dropped
_CONTROL = re.compile(r"(\x1b\[[0-9;?<=>]*[ -/]*[@-~]|\x1b[^\[]|\x1b|[\r\n\x08])")
_PARAMS = re.compile(r"[0-9;?<=>]*")
_NARROW = "\u1100"  # below it every character takes one cell
_CELLS: dict[str, list[str]] = {}  # a span's cells, for every LightScreen of the process


def _cells(text: str) -> list[str]:
    """The cells a span of text takes: a wide character and an empty cell after it, nothing
    for a character of no width."""
    if max(text) < _NARROW:
        return list(text)
    cells = []
    for ch in text:
        width = 1 if ch < _NARROW else wcwidth(ch)
        if width == 1:
            cells.append(ch)
        elif width == 2:
            cells += (ch, "")
    return cells


class LightScreen:
    """A terminal screen that knows just what Textual sends: cursor moves (CUP and relative),
    text (wide characters take two cells), erases; colours and modes are skipped.

    Much cheaper than pyte (docs/performance.md), so a benchmark's hundreds of clients measure
    the server, not themselves: colours are cut out of a chunk in one pass, a span of text is
    written as one slice of cells (kept for the next time the span comes), and a row is joined
    into a string only when read after a change. ``display`` reads as pyte's does (tests
    compare the two); ``version`` counts the chunks fed, so a reader can tell a screen that has
    not changed.
    """

    def __init__(self, columns: int = 80, lines: int = 24) -> None:
        self.columns = columns
        self.lines = lines
        self.grid = [[" "] * columns for _ in range(lines)]
        self._rows: list[str | None] = [None] * lines  # each row's text, until it changes
        self.x = self.y = 0
        self.version = 0
        self._decoder = getincrementaldecoder("utf-8")(errors="replace")
        self._held = ""
        # where a terminal's answers go (the cursor position report, ``CSI 6n``); None: none
        self.write_process_input: Callable[[str], None] | None = None

    def resize(self, lines: int, columns: int) -> None:
        self.grid = [(row + [" "] * columns)[:columns] for row in self.grid[:lines]]
        self.grid += [[" "] * columns for _ in range(lines - len(self.grid))]
        self._rows = [None] * lines
        self.lines, self.columns = lines, columns
        self.x, self.y = min(self.x, columns - 1), min(self.y, lines - 1)
        self.version += 1

    @property
    def display(self) -> list[str]:
        return [self.row(y) for y in range(self.lines)]

    def row(self, y: int) -> str:
        text = self._rows[y]
        if text is None:
            text = self._rows[y] = "".join(self.grid[y])
        return text

    def feed(self, data: bytes) -> None:
        text = self._held + self._decoder.decode(data)
        self._held = ""
        cut = text.rfind("\x1b")
        if cut >= 0 and _PARTIAL.match(text, cut):  # a sequence cut by the packet: kept
            self._held, text = text[cut:], text[:cut]
        self.version += 1
        pieces = _CONTROL.split(_IGNORED.sub("", text))
        lines, columns = self.lines, self.columns
        for i, piece in enumerate(pieces):
            if not piece:
                continue
            if not i & 1:
                self._text(piece)
            elif piece[0] == "\x1b":
                if len(piece) > 2 and piece[1] == "[":
                    final = piece[-1]
                    if final == "H" and len(piece) > 3 and piece[2] != "?" and ":" not in piece:
                        # the cursor's address, Textual's every row: parsed here at once
                        row_s, _, col_s = piece[2:-1].partition(";")
                        if row_s.isdigit() and (not col_s or col_s.isdigit()):
                            row_n = int(row_s) or 1
                            col_n = int(col_s) if col_s else 1
                            self.y = min(row_n, lines) - 1
                            self.x = min(col_n or 1, columns) - 1
                            continue
                    params = _PARAMS.match(piece, 2).group()  # type: ignore[union-attr]
                    self._csi(params, piece[2 + len(params):])
            elif piece == "\r":
                self.x = 0
            elif piece == "\n":
                self.y = min(self.y + 1, lines - 1)
            else:  # "\x08"
                self.x = max(self.x - 1, 0)

    def _text(self, text: str) -> None:
        y, x, columns = self.y, self.x, self.columns
        row = self.grid[y]
        self._rows[y] = None
        cells = _CELLS.get(text)
        if cells is None:  # Textual writes the same spans again and again: cells kept
            cells = _cells(text)
            if len(_CELLS) >= 8192:
                _CELLS.clear()
            _CELLS[text] = cells
        n = len(cells)
        if x + n <= columns:
            row[x:x + n] = cells
            self.x = min(x + n, columns - 1)
            return
        for ch in text:  # past the right edge: what fits, a wide character whole or not at all
            width = 1 if ch < _NARROW else wcwidth(ch)
            if width <= 0:
                continue
            if x + width > columns:
                break
            row[x] = ch
            if width == 2:
                row[x + 1] = ""
            x += width
        self.x = min(x, columns - 1)

    def _csi(self, params: str, final: str) -> None:
        if params.startswith("?") or final == "m":
            return
        if final == "n" and params == "6" and self.write_process_input is not None:
            self.write_process_input(f"\x1b[{self.y + 1};{self.x + 1}R")
            return
        args = [int(a) if a else 0 for a in params.split(";")] if params else []
        n = args[0] if args and args[0] else 1
        if final in "Hf":
            row = args[0] if args and args[0] else 1
            col = args[1] if len(args) > 1 and args[1] else 1
            self.y, self.x = min(row, self.lines) - 1, min(col, self.columns) - 1
        elif final == "A":
            self.y = max(self.y - n, 0)
        elif final == "B":
            self.y = min(self.y + n, self.lines - 1)
        elif final == "C":
            self.x = min(self.x + n, self.columns - 1)
        elif final == "D":
            self.x = max(self.x - n, 0)
        elif final == "G":
            self.x = min(n, self.columns) - 1
        elif final == "K":
            mode = args[0] if args else 0
            start, end = {0: (self.x, self.columns), 1: (0, self.x + 1)}.get(
                mode, (0, self.columns))
            self.grid[self.y][start:end] = [" "] * (end - start)
            self._rows[self.y] = None
        elif final == "J":
            mode = args[0] if args else 0
            if mode == 0:
                self.grid[self.y][self.x:] = [" "] * (self.columns - self.x)
                rows = range(self.y + 1, self.lines)
            elif mode == 1:
                self.grid[self.y][:self.x + 1] = [" "] * (self.x + 1)
                rows = range(self.y)
            else:
                rows = range(self.lines)
            self._rows[self.y] = None
            for y in rows:
                self.grid[y] = [" "] * self.columns
                self._rows[y] = None


class LoginClient(asyncssh.SSHClient):
    """A client without a key: answers the keyboard-interactive login with ``answers`` in
    turn, one a challenge, then with ``passphrase`` (to every prompt, so a new name's
    passphrase is chosen and repeated), or with Enter (a guest) when it is None.
    ``challenges`` counts the prompts it was sent and ``shown`` keeps what each said (its
    instructions, then its prompts, a line each), as a person at OpenSSH reads them; past
    ``give_up`` of them it stops answering, so the login fails at once instead of at the
    server's timeout."""

    def __init__(self, passphrase: str | None = None, give_up: int | None = None,
                 answers: Sequence[str] = ()) -> None:
        self.passphrase = passphrase
        self.give_up = give_up
        self.answers = list(answers)
        self.challenges = 0
        self.shown: list[str] = []

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(self, name: str, instructions: str, lang: str,
                                  prompts: Any) -> list[str] | None:
        self.challenges += 1
        self.shown.append("\n".join([instructions, *(str(p) for p, _echo in prompts)]))
        if self.give_up is not None and self.challenges > self.give_up:
            return None  # asyncssh abandons the exchange
        if self.answers and prompts:
            return [self.answers.pop(0) for _ in prompts]
        return [self.passphrase or "" for _ in prompts]


class LoginClientSession(asyncssh.SSHClientSession):  # type: ignore[type-arg]
    def __init__(self, owner: PtyClient) -> None:
        self.owner = owner

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.owner._received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner.closed.set()

    def exit_status_received(self, status: int) -> None:
        self.owner.exit_status = status


class PtyClient:
    """One player's terminal: an SSH session with a PTY drawn into a pyte screen."""

    def __init__(self, width: int = 80, height: int = 24, light: bool = False,
                 ambiwide: bool = False, answers: bool = True,
                 tiles_wide: bool = False) -> None:
        """``ambiwide``: a terminal drawing ambiguous-width characters two cells wide
        (``testkit.terminal.CjkScreen``); ``tiles_wide``: one drawing mahjong tiles two cells
        wide (as tmux); ``answers``: it answers the cursor position request (``CSI 6n``), as
        terminals do."""
        self.screen: Any
        self.stream: Any
        if light:  # the benchmark's many clients: see ``LightScreen``
            self.screen = self.stream = LightScreen(width, height)
        else:
            self.screen = (CjkScreen(width, height, ambiwide, tiles_wide)
                           if ambiwide or tiles_wide else pyte.Screen(width, height))
            self.stream = pyte.ByteStream(self.screen)
        if answers:
            self.screen.write_process_input = self._answer
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.changed = asyncio.Event()
        self.closed = asyncio.Event()
        self.exit_status: int | None = None
        self.raw = bytearray()
        self.bytes_in = 0
        self.keep_raw = True
        self.on_data: Callable[[PtyClient], None] | None = None

    async def connect(self, port: int, username: str, key: asyncssh.SSHKey | None = None,
                      command: str | None = None, term: str = "xterm-256color",
                      pty: bool = True, window: int = 2 * 1024 * 1024,
                      env: dict[str, str] | None = None,
                      passphrase: str | None = None, host: str = "127.0.0.1") -> PtyClient:
        self.conn = await asyncssh.connect(
            host, port, username=username, known_hosts=None,
            client_keys=[key] if key is not None else None, agent_path=None,
            client_factory=partial(LoginClient, passphrase), kbdint_auth=key is None,
            preferred_auth=(
                "publickey" if key is not None else "keyboard-interactive"),
        )
        self.chan, _ = await self.conn.create_session(
            lambda: LoginClientSession(self), command,
            term_type=term if pty else None,
            term_size=(self.screen.columns, self.screen.lines) if pty else None,
            encoding=None, window=window, env=tuple((env or {}).items()),
        )
        return self

    def _answer(self, text: str) -> None:
        """The terminal's answer to a request of the program's (the cursor's position)."""
        if self.chan is not None:
            self.chan.write(text.encode("utf-8"))

    def _received(self, data: bytes) -> None:
        self.bytes_in += len(data)
        if self.keep_raw:
            self.raw.extend(data)
        self.stream.feed(data)
        self.changed.set()
        if self.on_data is not None:
            self.on_data(self)

    def text(self) -> str:
        try:
            return "\n".join(self.screen.display)
        except IndexError:
            # pyte's ``display`` fails on a wide character's empty second cell left without
            # the wide character (half of it overwritten): the cells as they are instead
            screen = self.screen
            return "\n".join("".join(screen.buffer[y][x].data for x in range(screen.columns))
                             for y in range(screen.lines))

    def send(self, keys: str | bytes) -> None:
        assert self.chan is not None
        self.chan.write(keys.encode() if isinstance(keys, str) else keys)

    def resize(self, width: int, height: int) -> None:
        assert self.chan is not None
        self.screen.resize(height, width)
        self.chan.change_terminal_size(width, height)

    async def wait_for(self, predicate: str | Callable[[str], bool],
                       timeout: float = 10.0) -> str:
        check = (lambda t: predicate in t) if isinstance(predicate, str) else predicate
        end = time.monotonic() + timeout
        while True:
            text = self.text()
            if check(text):
                return text
            left = end - time.monotonic()
            if left <= 0 or self.closed.is_set():
                raise AssertionError(f"timed out waiting for {predicate!r}; screen:\n{text}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.5))

    async def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            with contextlib.suppress(Exception):
                await self.conn.wait_closed()


async def run_command(port: int, username: str, command: str,
                      key: asyncssh.SSHKey | None = None,
                      passphrase: str | None = None,
                      address: str | None = None,
                      give_up: int | None = None) -> asyncssh.SSHCompletedProcess:
    """``ssh -p PORT HOST COMMAND`` without a PTY; from ``address`` (a loopback address
    such as 127.0.0.5) where given; the passphrase given to at most ``give_up`` prompts
    (:class:`LoginClient`)."""
    async with asyncssh.connect(
        "127.0.0.1", port, username=username, known_hosts=None,
        client_keys=[key] if key is not None else None, agent_path=None, kbdint_auth=key is None,
        client_factory=partial(LoginClient, passphrase, give_up),
        local_addr=(address, 0) if address is not None else None,
    ) as conn:
        return await conn.run(command, check=False)


def new_key() -> asyncssh.SSHKey:
    """A fresh client key."""
    return asyncssh.generate_private_key("ssh-ed25519")


class BotClient:
    """``ssh -p PORT HOST bot join NAME`` without a PTY: a program's end of the bot protocol
    (docs/bot-protocol.md), one JSON object a line each way."""

    def __init__(self) -> None:
        self.conn: asyncssh.SSHClientConnection | None = None
        self.process: asyncssh.SSHClientProcess[bytes] | None = None
        self.lines: list[dict[str, Any]] = []  # every line read, in order

    async def connect(self, port: int, username: str, command: str,
                      key: asyncssh.SSHKey | None = None) -> None:
        self.conn = await asyncssh.connect(
            "127.0.0.1", port, username=username, known_hosts=None,
            client_keys=[key] if key is not None else None, agent_path=None,
            kbdint_auth=key is None, client_factory=partial(LoginClient, None))
        self.process = await self.conn.create_process(command, encoding=None)

    async def read(self, timeout: float = 10.0) -> dict[str, Any] | None:
        """The next line (None at the end of the channel)."""
        import json

        assert self.process is not None
        raw = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        if not raw:
            return None
        line: dict[str, Any] = json.loads(raw)
        self.lines.append(line)
        return line

    async def read_until(self, kind: str, timeout: float = 20.0) -> dict[str, Any]:
        """Lines up to the next one of type ``kind`` (which is returned)."""
        deadline = time.monotonic() + timeout
        while True:
            line = await self.read(max(0.1, deadline - time.monotonic()))
            if line is None:
                raise EOFError(f"the channel ended before a {kind!r} line")
            if line.get("type") == kind:
                return line

    def send(self, line: dict[str, Any] | bytes) -> None:
        import json

        assert self.process is not None
        data = line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n"
        self.process.stdin.write(data)

    async def exit_status(self, timeout: float = 10.0) -> int | None:
        assert self.process is not None
        await asyncio.wait_for(self.process.wait_closed(), timeout)
        return self.process.exit_status

    async def close(self) -> None:
        if self.process is not None:
            self.process.stdin.write_eof()
        if self.conn is not None:
            self.conn.close()
            with contextlib.suppress(Exception):
                await self.conn.wait_closed()
