"""Plain mode on a terminal: :class:`LineEditor` turns a terminal's raw keys (an SSH PTY) into
lines, echoing them; :class:`TerminalOutput` writes the plain table's lines and its prompt, and
writes the prompt and the line being typed again after lines that arrive meanwhile;
:func:`run_local` is ``mahjong-ssh play --plain`` on standard input and output."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import re
import shutil
import sys
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from rich.cells import cell_len

from engine.rulesets import DEFAULT_RULES
from host.client import TableClient
from host.coach import Coach
from tui.plain.front import IDLE_PROMPT, MAX_LINE, PlainTable
from tui.settings import Settings

DEFAULT_WIDTH: Final = 80  # a terminal's columns where the client does not say


class LineEditor:
    """A terminal in raw mode (an SSH PTY) sends keys; this makes lines of them and echoes what
    is typed: printable characters, Backspace, Ctrl-U (erase the line), Enter; Ctrl-C or Ctrl-D
    (on an empty line) end. Escape sequences (arrow keys, function keys) are dropped whole. A
    line is bounded: the keys after :data:`MAX_LINE` characters are dropped (one bell)."""

    def __init__(self, echo: Callable[[str], None], on_line: Callable[[str], None],
                 on_end: Callable[[], None], max_line: int = MAX_LINE) -> None:
        self.echo = echo
        self.on_line = on_line
        self.on_end = on_end
        self.max_line = max_line
        self.buffer: list[str] = []
        self._esc = ""  # an escape sequence being skipped
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._rang = False

    @property
    def text(self) -> str:
        return "".join(self.buffer)

    def feed(self, data: bytes) -> None:
        for ch in self._decoder.decode(data):
            self._key(ch)

    def _key(self, ch: str) -> None:
        if self._esc:
            self._esc += ch
            if len(self._esc) == 2 and ch not in "[O":
                self._esc = ""  # ESC and one character (Alt-key)
            elif (len(self._esc) > 2 and "@" <= ch <= "~") or len(self._esc) > 16:
                self._esc = ""
            return
        if ch == "\x1b":
            self._esc = ch
        elif ch in "\r\n":
            line, self.buffer = self.text, []
            self._rang = False
            self.echo("\r\n")
            self.on_line(line)
        elif ch in "\x7f\x08":
            if self.buffer:
                self._erase(max(1, cell_len(self.buffer.pop())))
        elif ch == "\x15":  # Ctrl-U
            w = cell_len(self.text)
            self.buffer = []
            if w:
                self._erase(w)
        elif ch in "\x03\x04":  # Ctrl-C; Ctrl-D
            if ch == "\x03" or not self.buffer:
                self.on_end()
        elif unicodedata.category(ch)[0] == "C":
            return
        elif len(self.buffer) >= self.max_line:
            if not self._rang:
                self._rang = True
                self.echo("\a")
        else:
            self.buffer.append(ch)
            self.echo(ch)

    def _erase(self, cells: int) -> None:
        """Rub out the last ``cells`` cells typed."""
        self.echo("\b" * cells + " " * cells + "\b" * cells)


_NO_BREAK_BEFORE: Final = "，。；：、！？）」』》…,.;:!?)"  # punctuation stays on its word's line
_NO_BREAK_AFTER: Final = "（「『《("


def _breaks(word: str) -> list[str]:
    """``word`` (no spaces) in the pieces a line may break between: whole where it is
    Latin, between the characters of Chinese (but never inside its brackets' and stops'
    neighbours)."""
    pieces: list[str] = []
    for ch in word:
        if pieces and (cell_len(ch) < 2 or ch in _NO_BREAK_BEFORE
                       or pieces[-1][-1] in _NO_BREAK_AFTER):
            pieces[-1] += ch
        else:
            pieces.append(ch)
    return pieces


def wrap(line: str, width: int) -> list[str]:
    """``line`` in lines of at most ``width`` cells, broken at spaces (and between Chinese
    characters), never inside a word: the terminal itself would cut a word anywhere. A word
    wider than the whole line is the one thing cut; ``width`` 0 (not a terminal) cuts none."""
    if width < 8 or cell_len(line) <= width:
        return [line]
    out: list[str] = []
    cur, used = "", 0
    for m in re.finditer(r"(\s*)(\S+)", line):
        space = m.group(1) if cur or not out else ""
        for i, piece in enumerate(_breaks(m.group(2))):
            gap = space if i == 0 else ""
            need = cell_len(gap) + cell_len(piece)
            if cur and used + need > width:
                out.append(cur)
                cur, used, gap = "", 0, ""
            cur, used = cur + gap + piece, used + cell_len(gap) + cell_len(piece)
            while used > width:  # one word wider than the terminal
                cut = 0
                while cell_len(cur[:cut + 1]) <= width:
                    cut += 1
                out.append(cur[:cut])
                cur = cur[cut:]
                used = cell_len(cur)
    if cur or not out:
        out.append(cur)
    return out


class TerminalOutput:
    """A :class:`PlainOutput` on a terminal: lines end with ``eol`` and are wrapped at spaces
    to the terminal's ``width`` (asked at each write: the client may resize it; 80 where it
    is not known; 0 for a pipe, never wrapped); the prompt and the line being typed are
    written again after lines that arrive meanwhile. Where the last thing written was the
    bare idle prompt, a line starts over it (``\\r``) instead of under it, so a transcript
    holds no empty prompts."""

    def __init__(self, write: Callable[[str], None], eol: str = "\r\n",
                 typed: Callable[[], str] = lambda: "",
                 closed: Callable[[], None] = lambda: None, terminal: bool = True,
                 width: Callable[[], int] = lambda: DEFAULT_WIDTH) -> None:
        self.write = write
        self.eol = eol
        self.width = width
        self.terminal = terminal  # False: a pipe or a file, where no idle prompt is written
        self.typed = typed
        self._closed = closed
        self.shown = ""  # the prompt now shown at the end of the output

    def say(self, lines: Sequence[str], prompt: str) -> None:
        if not self.terminal and prompt == IDLE_PROMPT:
            prompt = ""
        if not lines and prompt == self.shown:
            return
        typed = self.typed()
        out = []
        if self.shown:
            if self.shown == IDLE_PROMPT and not typed:
                out.append("\r")
            else:
                out.append(self.eol)
        width = self.width()
        for line in lines:
            out += [part + self.eol for part in wrap(line, width)]
        # the question's last word keeps its "> " (the reply is typed after it)
        question, mark = (prompt[:-3], " > ") if prompt.endswith(" > ") else (prompt, "")
        *above, last = wrap(question, width - len(mark) if width else 0)
        out += [part + self.eol for part in above]
        out.append(last + mark + typed)
        self.shown = prompt
        text = "".join(out)
        if text.startswith("\r") and lines and cell_len(lines[0]) < len(IDLE_PROMPT):
            text = "\r" + " " * len(IDLE_PROMPT) + text
        self.write(text)

    def ring(self) -> None:
        """The terminal's bell (the table waits for the player and the bell is on); not into
        a pipe or a file."""
        if self.terminal:
            self.write("\a")

    def echoed(self) -> None:
        """The player pressed Enter: the cursor is on a fresh line, no prompt shown."""
        self.shown = ""

    def close(self) -> None:
        self._closed()


# --- mahjong-ssh play --plain -----------------------------------------------------------------
async def run_local(table: TableClient, lang: str, rules: str | None, seed: int | None,
                    options: Mapping[str, Any] | None = None,
                    reader: asyncio.StreamReader | None = None,
                    write: Callable[[str], None] | None = None,
                    settings: Settings | None = None, coach: Coach | None = None) -> int:
    """Play at ``table`` in plain lines: standard input (or ``reader``) one line at a time,
    standard output (or ``write``); ``coach`` answers ``coach`` at a coach table. Returns
    the exit status."""
    if write is None:
        def write(text: str) -> None:
            sys.stdout.write(text)
            sys.stdout.flush()
    done = asyncio.Event()
    tty = sys.stdout.isatty()
    out = TerminalOutput(write, eol="\n", closed=done.set, terminal=tty,
                         width=lambda: shutil.get_terminal_size().columns if tty else 0)
    plain = PlainTable(table, lang, out, rules=rules, options=options, settings=settings,
                       coach=coach)
    if reader is None:
        reader = await _stdin_reader()
    plain.start()
    refused = table.new_game(rules or DEFAULT_RULES, dict(options or {}), seed)
    if refused is not None and options:  # saved options no longer valid: the defaults
        refused = table.new_game(rules or DEFAULT_RULES, {}, seed)
    if refused is not None:
        write(refused.text(lang) + "\n")
        return 2
    pending = bytearray()
    too_long = False
    while not done.is_set():
        read = asyncio.ensure_future(reader.read(4096))
        stop = asyncio.ensure_future(done.wait())
        finished, _ = await asyncio.wait({read, stop}, return_when=asyncio.FIRST_COMPLETED)
        if read not in finished:
            read.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await read
            break
        stop.cancel()
        data = read.result()
        if not data:  # end of input
            if pending and not too_long:
                _line(plain, out, bytes(pending))
            plain.close()
            break
        pending += data
        while b"\n" in pending:
            raw, _, rest = bytes(pending).partition(b"\n")
            pending = bytearray(rest)
            if too_long:
                too_long = False
                continue
            _line(plain, out, raw)
        if len(pending) > MAX_LINE * 4:  # a line too long: said once, the rest dropped
            pending.clear()
            if not too_long:
                too_long = True
                out.echoed()
                plain.handle("x" * (MAX_LINE + 1))
    plain.close()
    return 0


def _line(plain: PlainTable, out: TerminalOutput, raw: bytes) -> None:
    out.echoed()  # the terminal echoed the line and its newline
    plain.handle(raw.decode("utf-8", "replace").rstrip("\r"))


async def _stdin_reader() -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE * 8)
    protocol = asyncio.StreamReaderProtocol(reader)
    await loop.connect_read_pipe(lambda: protocol, sys.stdin)
    return reader
