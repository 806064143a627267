"""``mahjong-ssh arena``: programs play seats over the bot protocol (``docs/bot-protocol.md``)
against each other or our computer levels, with the statistics ``simulate`` prints.

Each ``--seat "CMD"`` is started once (``shlex``-split, no shell) and plays its seat for the
whole match on stdin/stdout; the other seats are computer players of ``--bots LEVEL``. With
``--duplicate`` every deal is played four times with the players rotated through the seats,
as ``simulate --duplicate`` does, so a program's seat changes between plays (``game_start``
and ``hand_start`` name it). Every invariant and the leak check run after every action, as in
``simulate``.

A decision not answered within ``--timeout`` seconds, or answered with a line the protocol
refuses, is played by the timer's action (:func:`engine.expiry.expiry_action`: discard the
drawn tile, pass, decline to buy; never a win), logged on stderr and told to the program. An
answer to an earlier request (late, or a second one) is dropped, logged and told (``stale``),
and counted apart from the time-outs. A
program that exits (or closes its output) is reported at once and its seat is played by the
timer's action for the rest of the match; the summary names it and the arena exits with status
1. The match is reproducible from its seed as long as no program times out (a timeout depends
on the machine's speed) and the programs are themselves deterministic.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

from cli.args import table_options
from cli.simulate import print_report, report_data
from engine.actions import Action
from engine.botproto import MAX_ANSWER_BYTES, AnswerError, BotSeat, command_of, dumps
from engine.bots import LEVELS, Player, make_player
from engine.rulesets import OptionError, find_ruleset
from engine.simulate import ROTATIONS, SimulationViolation, plan, play_chunk
from engine.table import Hand
from engine.view import View, build_view

MAX_SEATS = 4
QUEUED_LINES = 64  # answer lines read ahead of the arena; the program waits beyond that
ROOM_LINES = 4096  # protocol lines waiting for a program that does not read them: then it is stuck
STOP_SECONDS = 2.0  # a program's time to exit once its input is closed, before it is killed

_EOF = object()


@dataclass
class ProgramStats:
    decisions: int = 0
    answered: int = 0
    timeouts: int = 0
    refused: int = 0
    stale: int = 0  # answers to an earlier request (late, or a second answer), dropped
    commands: int = 0  # a server's commands (start, new_game), ignored here
    exited: str | None = None  # how it ended, if it did before the match


class Program:
    """One program playing one seat over the bot protocol (a :class:`engine.bots.Player`)."""

    def __init__(self, label: str, command: str, timeout: float, rules: str,
                 options: dict[str, Any], log: IO[str]) -> None:
        self.label = label
        self.command = command
        self.timeout = timeout
        self.log = log
        self.stats = ProgramStats()
        self.bot = BotSeat()
        self.rules = rules
        self.hands = int(find_ruleset(rules, options).options["hands_per_game"])
        self._hand: Hand | None = None
        self._answers: queue.Queue[object] = queue.Queue(QUEUED_LINES)
        self._out: queue.Queue[bytes | None] = queue.Queue()
        self._buffer: list[dict[str, Any]] = []
        self.play_no = 0
        argv = shlex.split(command)
        if not argv:
            raise ValueError("an empty --seat command")
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         bufsize=0)
        except OSError as exc:
            raise ValueError(f"cannot start {command!r}: {exc}") from None
        threading.Thread(target=self._read, name=f"{label} reader", daemon=True).start()
        threading.Thread(target=self._write, name=f"{label} writer", daemon=True).start()
        self._send([BotSeat.hello(rules, options, label, timeout)])

    # --- the pipes (threads) ------------------------------------------------------------
    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            line = out.readline(MAX_ANSWER_BYTES + 2)
            if not line:
                self._answers.put(_EOF)
                return
            if not line.endswith(b"\n") and len(line) > MAX_ANSWER_BYTES:
                while True:  # the rest of the over-long line is read and dropped
                    rest = out.readline(65536)
                    if not rest or rest.endswith(b"\n"):
                        break
                self._answers.put(AnswerError(
                    "too_long", f"an answer line has at most {MAX_ANSWER_BYTES} bytes"))
                continue
            self._answers.put(line.rstrip(b"\r\n"))

    def _write(self) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        while True:
            data = self._out.get()
            if data is None:
                break
            try:
                stdin.write(data)
                stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                break
        with contextlib.suppress(BrokenPipeError, OSError):
            stdin.close()

    def _send(self, lines: Sequence[dict[str, Any]]) -> None:
        if lines and self.stats.exited is None:
            if self._out.qsize() > ROOM_LINES:
                self._died("stopped reading its input")
                return
            self._out.put(b"".join(dumps(line) for line in lines))

    # --- what the arena tells it --------------------------------------------------------
    def see(self, hand: Hand, seat: int) -> None:
        """The hand changed (``seat`` is the program's in this play): its new lines wait in
        the buffer until the program is asked, or the hand ends."""
        if hand is not self._hand:
            self._hand = hand
            self.play_no += 1
            if hand.hand_no == 1:
                self._buffer.append(self.bot.game_start(seat, self.rules, self.hands))
        view = build_view(hand, seat)
        self._buffer.extend(self.bot.update(view, self.timeout))
        if hand.is_over:
            if hand.hand_no >= self.hands and hand.settlement is not None:
                scores = [hand.scores_before[s] + hand.settlement.seats[s] for s in range(4)]
                self._buffer.append(BotSeat.game_end(scores))
            self._flush()

    def _flush(self) -> None:
        pending = self.bot.pending.number if self.bot.pending is not None else None
        gone = {line["request"] for line in self._buffer
                if line["type"] == "request" and line["request"] != pending}
        lines = [line for line in self._buffer
                 if line["type"] not in ("request", "cancel") or line["request"] not in gone]
        self._buffer = []
        self._send(lines)

    # --- Player ------------------------------------------------------------------------
    def choose(self, view: View) -> Action:
        self.stats.decisions += 1
        pending = self.bot.pending
        if pending is None or pending.legal != view.legal:
            self._buffer.append(self.bot.request(view, self.timeout))
            pending = self.bot.pending
        assert pending is not None
        self._flush()
        if self.stats.exited is not None:
            self.bot.answered()
            return pending.default
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            try:
                item = self._answers.get(timeout=max(left, 0.0)) if left > 0 else None
            except queue.Empty:
                item = None
            if item is None:
                self.stats.timeouts += 1
                self._note(f"no answer to request {pending.number} within {self.timeout:g} s: "
                           f"played {pending.default}")
                return self._played_for(pending.number, pending.default, "timeout")
            if item is _EOF:
                self._died("closed its output")
                self.bot.answered()
                return pending.default
            try:
                if isinstance(item, AnswerError):
                    raise item
                assert isinstance(item, bytes)
                if command_of(item) is not None:  # a server's command: nothing to do here
                    self.stats.commands += 1
                    continue
                action = self.bot.decode(item)
            except AnswerError as exc:
                if exc.code in ("stale", "no_request"):  # logged and told; not a time-out
                    self.stats.stale += 1
                    self._note(f"request {pending.number}: {exc.code}: {exc.message}")
                    self._send([BotSeat.error_event(pending.number, exc)])
                    continue
                self.stats.refused += 1
                self._note(f"request {pending.number}: {exc.code}: {exc.message}; played "
                           f"{pending.default}")
                self._send([BotSeat.error_event(pending.number, exc)])
                return self._played_for(pending.number, pending.default, "refused")
            self.stats.answered += 1
            self.bot.answered()
            return action

    def _played_for(self, number: int, action: Action, why: str) -> Action:
        self.bot.answered()
        self._send([BotSeat.timeout_event(number, action, why)])
        return action

    def _died(self, how: str) -> None:
        if self.stats.exited is not None:
            return
        try:
            code: int | None = self.proc.wait(STOP_SECONDS)  # its status, if it is ending
        except subprocess.TimeoutExpired:
            code = None
        self.stats.exited = f"{how}{'' if code is None else f' (exit status {code})'} " \
                            f"in play {self.play_no}"
        self._note(f"{self.stats.exited}: its seat is played by the timer's action from now on")

    def _note(self, text: str) -> None:
        print(f"arena: {self.label} ({self.command}): {text}", file=self.log)

    def stop(self) -> None:
        """The match is over: its input is closed, and it is killed if it does not exit."""
        self._out.put(None)
        try:
            self.proc.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def _watch(hand: Hand, players: Sequence[Player]) -> None:
    for seat, player in enumerate(players):
        if isinstance(player, Program):
            player.see(hand, seat)


def cmd_arena(args: argparse.Namespace) -> int:
    commands: list[str] = args.seat or []
    if not 1 <= len(commands) <= MAX_SEATS:
        print(f"error: arena needs 1 to {MAX_SEATS} --seat \"CMD\"", file=sys.stderr)
        return 2
    options = table_options(args.option)
    labels = [f"prog{i + 1}" for i in range(len(commands))]
    levels = labels + [args.bots] * (MAX_SEATS - len(commands))
    hands = args.deals * ROTATIONS if args.duplicate else args.deals
    try:
        chunks = plan(args.rules, hands, args.seed, options, True, levels, args.duplicate)
    except (OptionError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    game_options = dict(chunks[0].options)
    programs: dict[str, Program] = {}
    started = time.perf_counter()
    try:
        for label, command in zip(labels, commands, strict=True):
            programs[label] = Program(label, command, args.timeout, args.rules,
                                      dict(find_ruleset(args.rules, game_options).options),
                                      sys.stderr)

        def make(label: str) -> Player:
            return programs[label] if label in programs else make_player(label)

        report = play_chunk(chunks[0], make=make, watch=_watch)
        for chunk in chunks[1:]:
            report.merge(play_chunk(chunk, make=make, watch=_watch))
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SimulationViolation as exc:
        print(f"VIOLATION: {exc}", file=sys.stderr)
        return 1
    finally:
        for program in programs.values():
            program.stop()
    elapsed = time.perf_counter() - started
    data = report_data(report, elapsed)
    data["programs"] = [{"label": p.label, "command": p.command, **vars(p.stats)}
                        for p in programs.values()]
    died = any(p.stats.exited for p in programs.values())
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 1 if died else 0
    print_report(report, data, True, True, elapsed, title="arena ")
    print("  programs:")
    for p in programs.values():
        st = p.stats
        print(f"    {p.label}: {p.command}")
        print(f"      decisions {st.decisions}, answered {st.answered}, timeouts {st.timeouts}, "
              f"refused answers {st.refused}, stale answers {st.stale} (dropped), "
              f"commands {st.commands} (ignored)"
              + (f"; {st.exited}" if st.exited else ""))
    return 1 if died else 0


def add_parser(sub: Any, rules: Sequence[str]) -> None:
    from cli.args import positive, seconds

    p = sub.add_parser(
        "arena", help="programs play seats over the bot protocol (docs/bot-protocol.md) "
        "against each other or computer levels")
    p.add_argument("--rules", choices=rules, required=True)
    p.add_argument("--seat", action="append", metavar="CMD",
                   help="a program for the next seat (E, S, W, N in turn; 1 to 4 of them), "
                   "split like a shell command line but run without a shell")
    p.add_argument("--bots", choices=list(LEVELS), default="normal",
                   help="the computer level of the other seats (default normal)")
    p.add_argument("--deals", type=positive, default=10,
                   help="deals played (default 10); with --duplicate each is played 4 times")
    p.add_argument("--duplicate", action="store_true",
                   help="play every deal 4 times with the players rotated through the seats "
                   "(as simulate --duplicate); statistics per player, the 95%% interval over "
                   "deals")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=seconds, default=10.0, metavar="SECONDS",
                   help="a program's time per decision (default 10); then the timer's action "
                   "is played for it")
    p.add_argument("--option", action="append", metavar="KEY=VALUE")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_arena)
