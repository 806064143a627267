"""``mahjong-ssh arena``: programs play seats over the bot protocol (``docs/bot-protocol.md``)
against each other or our computer levels, with the statistics ``simulate`` prints.

Each ``--seat "CMD"`` is started once (``shlex``-split, no shell) and plays its seat for the
whole match on stdin/stdout; the other seats are computer players of ``--bots LEVEL``. With
``--duplicate`` every deal is played four times with the players rotated through the seats,
as ``simulate --duplicate`` does, so a program's seat changes between plays (``game_start``
and ``hand_start`` name it). Every invariant and the leak check run after every action, as in
``simulate``.

The other seats' levels: one for all (``--bots hard``) or one per seat after the programs'
(``--bots hard,expert``), as ``bot join`` takes them.

A decision not answered within ``--timeout`` seconds, or answered with a line the protocol
refuses, is played by the timer's action (:func:`engine.expiry.expiry_action`: discard the
drawn tile, pass, decline to buy; never a win), logged on stderr and told to the program. An
answer to an earlier request (late, or a second one) is dropped, logged and told (``stale``),
and counted apart from the time-outs. Every refused line is also counted by its code
(``errors``). A program that exits (or closes its output) is reported at once and its seat is
played by the timer's action for the rest of the match; the summary names it and the arena
exits with status 1. With ``--strict`` the match stops instead at a program's first refused
line, time-out or exit (status 1): a bot's author wants the first mistake, not statistics
around it. The match is reproducible from its seed as long as no program times out (a
timeout depends on the machine's speed) and the programs are themselves deterministic.

A program's handshake (``hello``) is answered as a server answers it and shown in the summary
(``hello`` in ``--json``); its helpers (``waits``, ``value``) are answered while its request
waits, without a rate (the machine is its own).

``--records DIR`` writes each game played (each play of a deal, with ``--duplicate``) as a
game record (``docs/game-record.md``) that ``replay`` and ``review`` read as a server's.
``bot-check`` (:mod:`cli.botcheck`) feeds such a record back to a program.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from cli.args import table_options
from cli.simulate import print_report, report_data
from engine.actions import Action
from engine.botproto import (
    ANSWER_ERRORS,
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
    welcome,
)
from engine.bots import LEVELS, Player, make_player
from engine.record import dumps as record_dumps
from engine.record import hand_lines
from engine.rulesets import OptionError, find_ruleset
from engine.simulate import (
    ROTATIONS,
    Chunk,
    SimulationViolation,
    plan,
    play_chunk,
    rotation_levels,
)
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
    helpers: int = 0  # helper commands answered (waits, value)
    # the program's handshake, cleaned as a server cleans it (null: it sent none)
    hello: dict[str, Any] | None = None
    exited: str | None = None  # how it ended, if it did before the match
    # every refused line by its code (the document's error table), zeros included so that a
    # script reads any code without a default
    errors: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ANSWER_ERRORS, 0))


class StrictStop(Exception):
    """``--strict``: a program's first refused line, time-out or exit ends the match."""

    def __init__(self, program: Program, request: int | None, code: str, message: str) -> None:
        super().__init__(f"{program.label}: {code}: {message}")
        self.where = {"program": program.label, "command": program.command,
                      "play": program.play_no, "hand": program.hand_no, "request": request,
                      "code": code, "message": message}


class Program:
    """One program playing one seat over the bot protocol (a :class:`engine.bots.Player`)."""

    def __init__(self, label: str, command: str, timeout: float, rules: str,
                 options: dict[str, Any], log: IO[str], strict: bool = False,
                 argv: Sequence[str] | None = None) -> None:
        self.label = label
        self.command = command
        self.timeout = timeout
        self.log = log
        self.strict = strict  # raise StrictStop at the first refused line, time-out or exit
        self.stats = ProgramStats()
        self.bot = BotSeat()
        self.rules = rules
        self.hands = int(find_ruleset(rules, options).options["hands_per_game"])
        self._hand: Hand | None = None
        self._answers: queue.Queue[object] = queue.Queue(QUEUED_LINES)
        self._out: queue.Queue[bytes | None] = queue.Queue()
        self._buffer: list[dict[str, Any]] = []
        self.play_no = 0
        self.hand_no = 0
        argv = list(argv) if argv is not None else shlex.split(command)
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
            self.hand_no = hand.hand_no
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
        return self.ask(view)[0]

    def ask(self, view: View, instead: Action | None = None) -> tuple[Action, str | None]:
        """The program's answer to the seat's move in ``view``, and None; or, where it gives
        none the table takes, the action played for it (``instead``, else the request's
        default: the timer's action) and why (``"timeout"``, ``"refused"``, ``"exited"``).
        ``--strict``: :class:`StrictStop` in place of the latter (a refused line's ``error``
        is told first)."""
        self.stats.decisions += 1
        pending = self.bot.pending
        if pending is None or pending.legal != view.legal:
            self._buffer.append(self.bot.request(view, self.timeout))
            pending = self.bot.pending
        assert pending is not None
        self._flush()
        played = pending.default if instead is None else instead
        if self.stats.exited is not None:
            self.bot.answered()
            self._stop_here(pending.number, "exited", self.stats.exited)
            return played, "exited"
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
                           f"{self._then(played)}")
                self._stop_here(pending.number, "timeout",
                                f"no answer within {self.timeout:g} s")
                self._played_for(pending.number, played, "timeout")
                return played, "timeout"
            if item is _EOF:
                self._died("closed its output")
                self.bot.answered()
                self._stop_here(pending.number, "exited", self.stats.exited or "")
                return played, "exited"
            try:
                if isinstance(item, AnswerError):
                    raise item
                assert isinstance(item, bytes)
                handshake = handshake_of(item)
                if handshake is not None:
                    self._hello(handshake)
                    continue
                command = command_line(item)
                if command is not None and command["command"] in HELPERS:
                    self.stats.helpers += 1  # answered at once, the decision's time runs on
                    self._send([self.bot.helper(command)])
                    continue
                if command is not None and command["command"] in COMMANDS:
                    self.stats.commands += 1  # a server's command: nothing to do here
                    continue
                if command is not None:
                    raise bad_command()
                action = self.bot.decode(item)
            except AnswerError as exc:
                self.stats.errors[exc.code] = self.stats.errors.get(exc.code, 0) + 1
                if exc.code in ("stale", "no_request", "bad_command", "bad_hello"):  # told
                    if exc.code in ("stale", "no_request"):
                        self.stats.stale += 1
                    self._note(f"request {pending.number}: {exc.code}: {exc.message}")
                    self._send([BotSeat.error_event(pending.number, exc)])
                    self._stop_here(pending.number, exc.code, exc.message)
                    continue
                self.stats.refused += 1
                self._note(f"request {pending.number}: {exc.code}: {exc.message}; "
                           f"{self._then(played)}")
                self._send([BotSeat.error_event(pending.number, exc)])
                self._stop_here(pending.number, exc.code, exc.message)
                self._played_for(pending.number, played, "refused")
                return played, "refused"
            self.stats.answered += 1
            self.bot.answered()
            return action, None

    def _hello(self, handshake: Handshake) -> None:
        """The program's handshake, cleaned as a server cleans it, told back (``welcome``)
        and kept for the summary."""
        # here: the offline commands start without the server's modules (tests/test_cli_startup)
        from net.front.botsession import clean_hello
        from net.limits import Limits

        name, version = clean_hello(handshake, Limits().bot_hello_chars)
        self.stats.hello = {"name": name, "version": version,
                            "features": list(handshake.features)}
        self._send([welcome(handshake, name, version)])

    def _played_for(self, number: int, action: Action, why: str) -> None:
        self.bot.answered()
        self._send([BotSeat.timeout_event(number, action, why)])

    def _then(self, played: Action) -> str:
        return "the match stops (--strict)" if self.strict else f"played {played}"

    def _stop_here(self, request: int | None, code: str, message: str) -> None:
        if self.strict:
            raise StrictStop(self, request, code, message)

    def _died(self, how: str) -> None:
        if self.stats.exited is not None:
            return
        try:
            code: int | None = self.proc.wait(STOP_SECONDS)  # its status, if it is ending
        except subprocess.TimeoutExpired:
            code = None
        self.stats.exited = f"{how}{'' if code is None else f' (exit status {code})'} " \
                            f"in play {self.play_no}"
        self._note(f"{self.stats.exited}: " + ("the match stops (--strict)" if self.strict else
                                               "its seat is played by the timer's action from "
                                               "now on"))

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


def other_levels(text: str) -> list[str]:
    """``--bots``: one computer level, or one per seat left to the computers (in seat order
    after the programs'; how many is checked once the programs are counted)."""
    levels = [w.strip().lower() for w in text.split(",")]
    for level in levels:
        if level not in LEVELS:
            raise argparse.ArgumentTypeError(
                f"unknown level {level!r} (one of: {', '.join(LEVELS)}), got {text!r}")
    return levels


class Recorder:
    """``--records DIR``: each game of the match as a game record (``docs/game-record.md``),
    one file a game, written hand by hand (a match stopped mid-hand leaves the record of the
    hand so far). Normal mode: a chunk is a game, ``game-001.jsonl``; duplicate mode: each play
    of a deal is a one-hand game, ``deal-001-play-1.jsonl`` (play ``r`` + 1 seats the players
    rotated ``r`` times). The ``game`` line names the programs' seats by their label (a
    computer's is ``""``, as on a server) and every seat's player in ``levels``."""

    def __init__(self, folder: Path, rules: str, commands: dict[str, str]) -> None:
        self.folder = folder
        self.rules = rules
        self.commands = commands
        self.files = 0
        self._chunk: Chunk | None = None
        self._games = 0  # normal mode: the games (chunks) begun
        self._plays = 0  # duplicate mode: the plays of the current chunk recorded
        self._out: IO[str] | None = None

    def chunk(self, chunk: Chunk) -> None:
        self._chunk = chunk
        self._games += 1
        self._plays = 0
        self.close()

    def hand(self, hand: Hand) -> None:
        chunk = self._chunk
        assert chunk is not None
        labels = chunk.levels or ()
        if chunk.duplicate:
            deal, rotation = divmod(self._plays, ROTATIONS)
            self._plays += 1
            self._open(f"deal-{chunk.first + deal + 1:03d}-play-{rotation + 1}.jsonl",
                       chunk.seeds[deal], rotation_levels(labels, rotation))
        elif self._out is None:
            self._open(f"game-{self._games:03d}.jsonl", chunk.seeds[0], tuple(labels))
        assert self._out is not None
        self._out.write(record_dumps(hand_lines(hand)))
        self._out.flush()
        if chunk.duplicate:
            self.close()

    def _open(self, name: str, seed: int, seated: Sequence[str]) -> None:
        self.close()
        self._out = open(self.folder / name, "w", encoding="utf-8")  # noqa: SIM115
        self.files += 1
        game = {"type": "game", "rules": self.rules, "seed": seed,
                "names": [who if who in self.commands else "" for who in seated],
                "levels": list(seated)}
        self._out.write(record_dumps([game]))

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None


def cmd_arena(args: argparse.Namespace) -> int:
    commands: list[str] = args.seat or []
    if not 1 <= len(commands) <= MAX_SEATS:
        print(f"error: arena needs 1 to {MAX_SEATS} --seat \"CMD\"", file=sys.stderr)
        return 2
    options = table_options(args.option)
    labels = [f"prog{i + 1}" for i in range(len(commands))]
    others = MAX_SEATS - len(commands)
    bots: list[str] = args.bots
    if len(bots) == 1:
        bots = bots * others
    if len(bots) != others:
        print(f"error: --bots takes one level, or one for each of the {others} seats after the "
              f"programs' ({len(commands)}), got {len(bots)}: {','.join(bots)}",
              file=sys.stderr)
        return 2
    levels = labels + bots
    hands = args.deals * ROTATIONS if args.duplicate else args.deals
    try:
        chunks = plan(args.rules, hands, args.seed, options, True, levels, args.duplicate)
    except (OptionError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    recorder = None
    if args.records is not None:
        try:
            Path(args.records).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"error: cannot make {args.records}: {exc.strerror}", file=sys.stderr)
            return 2
        recorder = Recorder(Path(args.records), args.rules, dict(zip(labels, commands,
                                                                     strict=True)))
    game_options = dict(chunks[0].options)
    programs: dict[str, Program] = {}
    finished = 0
    started = time.perf_counter()

    def on_hand(hand: Hand) -> None:
        nonlocal finished
        finished += hand.is_over
        if recorder is not None:
            recorder.hand(hand)

    stopped: dict[str, Any] | None = None
    try:
        for label, command in zip(labels, commands, strict=True):
            programs[label] = Program(label, command, args.timeout, args.rules,
                                      dict(find_ruleset(args.rules, game_options).options),
                                      sys.stderr, strict=args.strict)

        def make(label: str) -> Player:
            return programs[label] if label in programs else make_player(label)

        report = None
        for chunk in chunks:
            if recorder is not None:
                recorder.chunk(chunk)
            part = play_chunk(chunk, make=make, watch=_watch, on_hand=on_hand)
            if report is None:
                report = part
            else:
                report.merge(part)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SimulationViolation as exc:  # the engine wraps what a player raises: --strict's
        if not isinstance(exc.__cause__, StrictStop):  # stop is the cause, no violation
            print(f"VIOLATION: {exc}", file=sys.stderr)
            return 1
        stopped = exc.__cause__.where
    except OSError as exc:  # --records: a file that cannot be written
        print(f"error: cannot write a record in {args.records}: {exc.strerror}",
              file=sys.stderr)
        return 2
    finally:
        for program in programs.values():
            program.stop()
        if recorder is not None:
            recorder.close()
    elapsed = time.perf_counter() - started
    stats = [{"label": p.label, "command": p.command, **vars(p.stats)}
             for p in programs.values()]
    if stopped is not None:
        return _stopped(args, stopped, stats, finished, recorder)
    assert report is not None
    data = report_data(report, elapsed)
    data["programs"] = stats
    data["stopped"] = None
    if recorder is not None:
        data["records"] = {"folder": str(args.records), "files": recorder.files}
    died = any(p.stats.exited for p in programs.values())
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 1 if died else 0
    print_report(report, data, True, True, elapsed, title="arena ")
    _print_programs(programs.values())
    if recorder is not None:
        print(f"  records: {recorder.files} files in {args.records}")
    return 1 if died else 0


def _stopped(args: argparse.Namespace, stopped: dict[str, Any], stats: list[dict[str, Any]],
             finished: int, recorder: Recorder | None) -> int:
    """``--strict`` stopped the match: where and why, and what the programs did so far."""
    if args.json:
        data: dict[str, Any] = {"rules": args.rules, "seed": args.seed, "hands": finished,
                                "stopped": stopped, "programs": stats}
        if recorder is not None:
            data["records"] = {"folder": str(args.records), "files": recorder.files}
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 1
    request = "" if stopped["request"] is None else f", request {stopped['request']}"
    print(f"arena {args.rules}, seed {args.seed}: stopped (--strict) after {finished} hands "
          f"finished: {stopped['program']} in play {stopped['play']} (hand "
          f"{stopped['hand']}{request}): {stopped['code']}: {stopped['message']}")
    for st in stats:
        errors = ", ".join(f"{k} {v}" for k, v in st["errors"].items() if v)
        print(f"  {st['label']}: {st['command']}: decisions {st['decisions']}, answered "
              f"{st['answered']}, timeouts {st['timeouts']}"
              + (f", refused lines: {errors}" if errors else ""))
    if recorder is not None:
        print(f"  records: {recorder.files} files in {args.records} (the last one stops where "
              f"the match did)")
    return 1


def _print_programs(programs: Any) -> None:
    print("  programs:")
    for p in programs:
        st = p.stats
        errors = ", ".join(f"{k} {v}" for k, v in st.errors.items() if v)
        hello = st.hello
        said = " ".join(part for part in (hello["name"], hello["version"]) if part) \
            if hello else ""
        print(f"    {p.label}{f' [bot: {said}]' if said else ''}: {p.command}")
        print(f"      decisions {st.decisions}, answered {st.answered}, timeouts {st.timeouts}, "
              f"refused answers {st.refused}, stale answers {st.stale} (dropped), "
              f"commands {st.commands} (ignored), helpers {st.helpers}"
              + (f"; refused lines by code: {errors}" if errors else "")
              + (f"; {st.exited}" if st.exited else ""))


def add_parser(sub: Any, rules: Sequence[str]) -> None:
    from cli.args import positive, seconds

    p = sub.add_parser(
        "arena", help="programs play seats over the bot protocol (docs/bot-protocol.md) "
        "against each other or computer levels")
    p.add_argument("--rules", choices=rules, required=True)
    p.add_argument("--seat", action="append", metavar="CMD",
                   help="a program for the next seat (E, S, W, N in turn; 1 to 4 of them), "
                   "split like a shell command line but run without a shell")
    p.add_argument("--bots", type=other_levels, default=["normal"],
                   metavar="LEVEL[,LEVEL...]",
                   help="the computer level of the other seats: one for all, or one per seat "
                   f"after the programs' ({', '.join(LEVELS)}; default normal)")
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
    p.add_argument("--strict", action="store_true",
                   help="stop at a program's first refused line, time-out or exit (status 1), "
                   "saying where")
    p.add_argument("--records", metavar="DIR",
                   help="write each game (each play of a deal with --duplicate) as a game "
                   "record in DIR, for replay, review and bot-check")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_arena)
