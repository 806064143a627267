"""``ssh HOST bot join NAME``: a program on the client's side plays a seat over the bot protocol
(``docs/bot-protocol.md``, :mod:`engine.botproto`) on an exec channel.

The seat is taken as a player's is (the key's account) and marked as a bot's; the session
talks to its table only through :class:`host.client.SharedTableClient`, so it plays whichever
worker owns the table. The table's own timers play for a program that does not answer in
time, as for a person (its turn's timer, the claim window). A line the protocol refuses (too
long, not JSON, an unknown id, an illegal action) is logged, told to the program as an
``error`` and the timer's action is played at once; lines beyond ``bot_lines_per_second`` are
refused unread. Nothing a program sends reaches the table except a legal action of its seat.

A session that comes into a game under way (a reconnect) is told one ``resync`` with the
seat's state, not a history it did not see (:meth:`engine.botproto.BotSeat.joined`). A
request its timer played is told as ``played_for_you`` (the move, ``why: timeout``), and the
seat coming to count as away (its turns' timers ran out twice) and back, as ``away`` and
``back``. A second ``bot join`` of the same account to the seat replaces this session
(:meth:`BotSession.replace`: ``replaced``).

A request is sent when the seat's timer for it starts (at a claim window the computers answer
first, and the timer starts after them), so it always says the seconds left; one whose time is
already up is not sent (the timer is playing it). A table with no timer for the phase asks at
once, ``seconds`` null.

Besides answers, a program may send ``{"command": "start"}`` (start the game now, computer
players in the empty seats: a seated player's S; refused once the game has begun) and
``{"command": "new_game"}`` (after a game: ready for another; refused before the game is
over). A line with a ``command`` field is never taken as an answer: a command the protocol
does not know is refused (``bad_command``) and costs no decision. The helpers ``waits`` and
``value`` are answered at once from the seat's view, within ``bot_helpers_per_second``. A
program's handshake (``{"hello": {"name", "version", "features"}}``) is cleaned
(:func:`clean_hello`), answered (``welcome``) and shown with the seat's ``[bot]`` mark
(:meth:`host.client.SharedTableClient.set_program`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from engine.botproto import (
    COMMANDS,
    HELPERS,
    MAX_ANSWER_BYTES,
    AnswerError,
    BotSeat,
    Handshake,
    bad_command,
    command_line,
    dumps,
    handshake_of,
    told_from_start,
    welcome,
)
from engine.rulesets import Ruleset, find_ruleset
from engine.runner import phase_seconds
from engine.table import Phase
from host.client import SharedTableClient, TableUpdate
from host.refusal import Refusal
from host.table_info import TableState
from net import metrics
from net.limits import Limits, RateLimit
from net.sanitize import clean_line

log = logging.getLogger("net.front.botsession")


def clean_hello(handshake: Handshake, size: int) -> tuple[str, str]:
    """A handshake's name and version as shown: one clean line each (no escapes or
    controls, net.sanitize's rules), brackets made parentheses (they sit inside ``[bot: …]``),
    at most ``size`` characters."""
    name, version = (clean_line(text, size).replace("[", "(").replace("]", ")")
                     for text in (handshake.name, handshake.version))
    return name, version


class BotSession:
    """One program's seat: table updates → protocol lines, protocol lines → actions."""

    def __init__(self, client: SharedTableClient, write: Callable[[bytes], None],
                 limits: Limits, note: Callable[[int, str], None] | None = None,
                 unread: Callable[[], int] | None = None,
                 close: Callable[[str], None] | None = None) -> None:
        self.client = client
        self._write = write
        self.limits = limits
        self._note = note or (lambda level, text: log.log(level, "%s", text))
        self._unread = unread  # bytes written and not yet taken by the program
        self._close = close  # ends the session, with a last line for the program
        self.bot = BotSeat()
        self.rate = RateLimit(limits.bot_lines_per_second, 1.0,
                              2 * limits.bot_lines_per_second)
        self.helper_rate = RateLimit(limits.bot_helpers_per_second, 1.0,
                                     2 * limits.bot_helpers_per_second)
        self.program = ""  # the program's name and version, as its handshake said (cleaned)
        self._buffer = bytearray()
        self._skipping = False  # inside an over-long line, until its newline
        self._game_no: int | None = None
        self._ended_hand: tuple[int, int] | None = None  # (game, hand) readied after its end
        self._game_over_sent: int | None = None
        self.refused = 0
        self.answered = 0
        self._too_fast = False  # the last line was over the rate (and the program told)
        self.closed = False
        self.replaced = False  # a newer session of the same account took the seat
        self._ruleset: Ruleset | None = None  # the table's, with every option's value
        self._asked_until: float | None = None  # the pending request's deadline (clock's)
        self._away = False  # the seat counts as away (its turn's timer ran out repeatedly)

    # --- the table's side ---------------------------------------------------------------
    def start(self) -> None:
        info = self.client.info()
        self._ruleset = find_ruleset(info.rules, dict(info.options))
        seconds = self._ruleset.options.get("turn_seconds")
        hello = BotSeat.hello(info.rules, dict(self._ruleset.options), self.client.nickname,
                              float(seconds) if seconds else None)
        hello.update({"table": info.name, "seat": self.client.seat_index,
                      "state": info.state.value})
        self._send([hello])
        self.client.subscribe(self._update)

    def _timing(self, update: TableUpdate) -> tuple[float | None, bool]:
        """(the seconds left of the seat's timer, whether its move may be asked about now).
        A phase the table times is asked about once its timer runs with time left: not
        while the computers answer a claim window first (the timer starts after them), nor
        when its time is up (the timer plays the move now, and the next update tells)."""
        if update.deadline is not None:
            seconds = round(update.deadline - self.client.clock.now(), 3)
            return seconds, seconds > 0
        timed = self._ruleset is not None and phase_seconds(self._ruleset,
                                                            update.view.phase) > 0
        return None, not timed

    def _update(self, update: TableUpdate) -> None:
        if self.closed:
            return
        lines: list[dict[str, Any]] = []
        seat = self.client.seat_index
        if seat is None:
            return
        game_no = self.client.game_no
        if game_no != self._game_no:
            joining = self._game_no is None and not (update.view.hand_no == 1
                                                     and told_from_start(update.view))
            self._game_no = game_no
            if joining:  # a game under way: a resync, not a history the program never saw
                self.bot.joined(update.hands_per_game)
            else:
                lines.append(self.bot.game_start(seat, update.view.rules,
                                                 update.hands_per_game, update.totals))
        seconds, ask = self._timing(update)
        until = self._asked_until
        expired = until is not None and self.client.clock.now() >= until
        told = self.bot.update(update.view, seconds, ask, expired)
        if any(line["type"] == "request" for line in told):
            self._asked_until = update.deadline
        lines.extend(told)
        self._away_or_back(seat, lines)
        if update.view.phase is Phase.ENDED:
            key = (game_no, update.view.hand_no)
            if self._ended_hand != key:
                self._ended_hand = key
                self.client.next_hand()  # a program is ready as soon as it is told
            if update.game_over and self._game_over_sent != game_no:
                self._game_over_sent = game_no
                lines.append(BotSeat.game_end(update.totals))
        self._send(lines)

    def _away_or_back(self, seat: int, lines: list[dict[str, Any]]) -> None:
        """``away`` when the seat comes to count as away (its turn's timer ran out
        repeatedly: its timers are short until it answers), ``back`` when an answer ends
        that."""
        away = self.client.info().seats[seat].idle
        if away != self._away:
            self._away = away
            lines.append({"type": "away" if away else "back", "seat": seat})

    def _send(self, lines: list[dict[str, Any]]) -> None:
        if not lines or self.closed:
            return
        if self._unread is not None and self._unread() > self.limits.bot_unread_bytes:
            metrics.limit_hit("bot_unread_bytes")
            self._stop("the program reads nothing: its session is closed")
            return
        self._write(b"".join(dumps(line) for line in lines))

    def _stop(self, why: str) -> None:
        self._note(logging.INFO, f"bot session closed: {why}")
        self.closed = True
        if self._close is not None:
            self._close(why)

    # --- the program's side -------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Bytes from the channel: complete lines are handled; a line longer than
        :data:`MAX_ANSWER_BYTES` is refused and skipped up to its newline."""
        while data and not self.closed:
            nl = data.find(b"\n")
            part, data = (data, b"") if nl < 0 else (data[:nl], data[nl + 1:])
            if self._skipping:
                if nl >= 0:
                    self._skipping = False
                continue
            if len(self._buffer) + len(part) > MAX_ANSWER_BYTES:
                self._buffer.clear()
                self._skipping = nl < 0
                self._refuse(AnswerError("too_long", f"an answer line has at most "
                                         f"{MAX_ANSWER_BYTES} bytes"))
                continue
            self._buffer += part
            if nl >= 0:
                line = bytes(self._buffer).rstrip(b"\r")
                self._buffer.clear()
                if line.strip():
                    self._line(line)

    def _line(self, line: bytes) -> None:
        if not self.rate.allow():
            self.refused += 1
            metrics.limit_hit("bot_lines_per_second")
            if not self._too_fast:  # told once a burst, not once a line
                self._too_fast = True
                self._refuse(AnswerError(
                    "too_fast", f"at most {self.limits.bot_lines_per_second} lines a second: "
                    f"lines are dropped unread until the rate is kept"), play=False)
            return
        self._too_fast = False
        try:
            handshake = handshake_of(line)
        except AnswerError as exc:
            self._refuse(exc, play=False)
            return
        if handshake is not None:
            self._hello(handshake)
            return
        command = command_line(line)
        if command is not None:
            if command["command"] in HELPERS:
                self._helper(command)
            else:
                self._command(str(command["command"]))
            return
        try:
            action = self.bot.decode(line)
        except AnswerError as exc:
            self._refuse(exc, play=exc.code not in ("stale", "no_request"))
            return
        pending = self.bot.pending
        self.bot.answered()  # before the send: the send's own update may ask again
        refusal = self.client.send(action)
        if refusal is not None:
            self._table_refused(pending.number if pending else None, refusal)
            return
        self.answered += 1

    def _hello(self, handshake: Handshake) -> None:
        """The program's handshake: its name and version cleaned (no escapes, no brackets,
        bounded) are shown with the seat's ``[bot]`` mark, and told back (``welcome``)."""
        name, version = clean_hello(handshake, self.limits.bot_hello_chars)
        self.program = " ".join(part for part in (name, version) if part)
        self._note(logging.INFO, f"bot program: {self.program!r}")
        self._send([welcome(handshake, name, version)])
        self.client.set_program(self.program)

    def _helper(self, command: dict[str, Any]) -> None:
        """A helper (``waits``, ``value``): answered from the seat's newest view at once,
        within ``bot_helpers_per_second``; never an answer, so it costs no decision."""
        if not self.helper_rate.allow():
            self.refused += 1
            self._send([BotSeat.error_event(None, AnswerError(
                "too_fast", f"at most {self.limits.bot_helpers_per_second} helper commands "
                f"a second: this one is dropped"))])
            return
        self._send([self.bot.helper(command)])

    def _command(self, command: str) -> None:
        if command not in COMMANDS:  # refused, and not the waiting request's answer
            error = bad_command()
            self.refused += 1
            self._note(logging.INFO, f"bot command refused: {error.message}")
            self._send([BotSeat.error_event(None, error)])
            return
        state = self.client.state
        if command == "start":
            refusal = self.client.start() if state is TableState.WAITING else \
                Refusal("game_started")
        elif state is TableState.OVER:
            info = self.client.info()
            refusal = self.client.new_game(info.rules, dict(info.options), None)
        else:
            refusal = Refusal("game_not_over")
        if refusal is not None:
            self._send([{"type": "error", "request": None, "code": "refused",
                         "message": refusal.text("en")}])

    def _refuse(self, error: AnswerError, play: bool = True) -> None:
        """A refused line: logged, told, and (for an answer to the waiting request) the
        timer's action played at once."""
        self.refused += 1
        pending = self.bot.pending
        self._note(logging.INFO, f"bot answer refused: {error.code}: {error.message[:120]}")
        lines = [BotSeat.error_event(pending.number if pending else None, error)]
        self._send(lines)
        if not play or pending is None:
            return
        self.bot.answered()
        self._send([BotSeat.timeout_event(pending.number, pending.default, "refused")])
        refusal = self.client.send(pending.default)
        if refusal is not None:
            self._table_refused(pending.number, refusal)

    def _table_refused(self, number: int | None, refusal: Refusal) -> None:
        """The table refused the action (its move went meanwhile): told, and asked again if
        the seat still has a move."""
        self._send([{"type": "error", "request": number, "code": "refused",
                     "message": refusal.text("en")}])
        update = self.client.current_update()
        if update is not None:
            self._update(update)

    def replace(self, message: str) -> None:
        """A newer ``bot join`` of the same account took the seat: told (``replaced``), and
        this session ends."""
        self._send([{"type": "error", "request": None, "code": "replaced",
                     "message": message}])
        self.replaced = True
        self._stop("replaced by a newer session of the same account")

    def close(self) -> None:
        self.closed = True
        self.client.close()
