"""``mahjong-ssh bot-check RECORD --seat S -- CMD ...``: a game record fed to a program over the
bot protocol (``docs/bot-protocol.md``), a regression check for a bot's author.

The program plays seat ``S`` of every hand of the record as in ``arena`` (the same
:class:`cli.arena.Program`: ``hello``, the events, a ``request`` for each of the seat's moves),
but what is played is always the record's move: each answer is compared with it, then the
record goes on. The command says how many answers agreed and, for each that differed, the hand
and the move (the record's ``i``). A refused line, a time-out or the program's exit is a
protocol error: the record's move is played for it (``played_for_you`` names it) and the
command exits with status 1; with ``--exact`` a differing answer does too. A record that cannot
be read, or a seat that will not do: one line saying why, status 2.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from cli.arena import Program
from cli.args import seconds
from cli.records import MAX_VIEW_BYTES, _names
from engine.actions import Action
from engine.record import RecordError, hand_from_header, parse_lines, replay_lines
from engine.review import seat_of
from engine.situation import SEAT_LETTERS
from engine.view import build_view

LABEL = "bot"  # the program's name in hello and in what is logged
MAX_LISTED = 50  # differing answers the text lists (--json gives them all)


def _fail(text: str) -> int:
    print(f"mahjong-ssh bot-check: {text}", file=sys.stderr)
    return 2


def _read(file: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The record's lines (every hand replayed and checked once, so that a bad record is
    refused before the program starts) and its ``game`` line; RecordError or OSError."""
    path = Path(file)
    size = path.stat().st_size
    if size > MAX_VIEW_BYTES:
        raise RecordError(f"{size} bytes: more than a game's record ({MAX_VIEW_BYTES} at most)")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError("not UTF-8 text: not a game record") from None
    lines = list(parse_lines(text))
    replay_lines(lines)
    game = next((obj for obj in lines if obj.get("type") == "game"), {})
    return lines, game


def cmd_bot_check(args: argparse.Namespace) -> int:
    try:
        lines, game = _read(args.record)
    except OSError as exc:
        return _fail(f"cannot read {args.record}: {exc.strerror}")
    except (RecordError, RecursionError) as exc:
        return _fail(f"{args.record}: {exc}")
    headers = [{k: v for k, v in obj.items() if k != "_line"} for obj in lines
               if obj.get("type") == "hand"]
    if not headers:
        return _fail(f"{args.record} holds no hand")
    try:
        seat = seat_of(args.seat, _names(game.get("names")))
    except ValueError as exc:
        return _fail(str(exc))
    argv = list(args.command)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        return _fail("no program to check: bot-check RECORD --seat S -- CMD [ARG ...]")
    first = hand_from_header(headers[0])
    try:
        program = Program(LABEL, shlex.join(argv), args.timeout, first.ruleset.name,
                          dict(first.ruleset.options), sys.stderr, argv=argv)
    except ValueError as exc:
        return _fail(str(exc))
    agreed = 0
    differed: list[dict[str, Any]] = []
    try:
        hand = None
        for obj in lines:
            kind = obj.get("type")
            if kind == "hand":
                hand = hand_from_header(headers.pop(0))
                program.see(hand, seat)
            elif kind == "action" and hand is not None:
                mover = SEAT_LETTERS.index(obj["seat"])
                played = Action.from_json(obj)
                if mover == seat:
                    answer, why = program.ask(build_view(hand, seat), played)
                    if why is None and answer == played:
                        agreed += 1
                    elif why is None:
                        differed.append({"hand": hand.hand_no, "move": obj.get("i"),
                                         "played": str(played), "answered": str(answer)})
                hand.apply(mover, played)
                program.see(hand, seat)
            if program.stats.exited is not None:
                break
    finally:
        program.stop()
    st = program.stats
    errors = sum(st.errors.values()) + st.timeouts + (st.exited is not None)
    status = 1 if errors or (args.exact and differed) else 0
    data = {"record": args.record, "seat": SEAT_LETTERS[seat], "command": program.command,
            "decisions": st.decisions, "agreed": agreed, "differed": differed,
            "timeouts": st.timeouts, "refused": st.refused, "errors": st.errors,
            "exited": st.exited, "commands": st.commands}
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return status
    refused = ", ".join(f"{k} {v}" for k, v in st.errors.items() if v)
    print(f"bot-check {args.record}, seat {SEAT_LETTERS[seat]}: {st.decisions} decisions, "
          f"{agreed} agreed with the record, {len(differed)} differed, {st.timeouts} time-outs, "
          f"{st.refused} refused answers" + (f" (refused lines: {refused})" if refused else "")
          + (f"; the program {st.exited}" if st.exited else ""))
    for d in differed[:MAX_LISTED]:
        print(f"  hand {d['hand']}, move {d['move']}: played {d['played']}, the program "
              f"answered {d['answered']}")
    if len(differed) > MAX_LISTED:
        print(f"  … and {len(differed) - MAX_LISTED} more (--json lists them all)")
    return status


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "bot-check", help="feed a game record to a program over the bot protocol "
        "(docs/bot-protocol.md): each of the seat's moves is asked of it and its answer "
        "compared with the move played")
    p.add_argument("record", help="a game record (arena --records, play's DATA/records, "
                   "ssh … replay ID > FILE)")
    p.add_argument("--seat", required=True,
                   help="the seat the program plays: E, S, W, N, 0-3, or the name of the "
                   "player who sat there")
    p.add_argument("--timeout", type=seconds, default=10.0, metavar="SECONDS",
                   help="the program's time per decision (default 10); then it is a "
                   "time-out, a protocol error")
    p.add_argument("--exact", action="store_true",
                   help="exit with status 1 also when an answer differs from the move played "
                   "(the record of the program's own earlier play)")
    p.add_argument("--json", action="store_true")
    p.add_argument("command", nargs="+", metavar="CMD",
                   help="the program and its arguments, after --, run without a shell")
    p.set_defaults(func=cmd_bot_check)
