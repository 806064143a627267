"""``mahjong-ssh score``: the settlement calculator on the command line (``docs/score.md``).

One situation (a JSON object) on stdin or ``--file F``; or ``--batch FILE`` with one object per
line, one result line per input line, in order (a bad line gives ``{"error": "..."}`` on its
line and the batch goes on). A readable table by default, ``--json`` for the structure,
``--lang zh|en``. Exit status for a single situation: 0 settled, 1 the hand does not win,
2 malformed input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from engine.calculator import (
    not_a_win_json,
    render_not_a_win,
    render_text,
    score_json,
    score_object,
    settlement_to_json,
)
from engine.scoring import NotAWinError, SituationError
from engine.scoring.common import seat_letter

EXIT_OK = 0
EXIT_NOT_A_WIN = 1
EXIT_MALFORMED = 2

# ``score --help``: plain text for a terminal (the docstring is for the source's readers), and
# it names only what a player has: the pages of the source and the help at a table
HELP = """\
Settle one hand as the table does: what happened (who won, with which tiles, how, the kongs,
the ruleset's own facts) as a JSON object in; each pattern and modifier, every payment and
each seat's net out.

One situation on standard input or in --file F; or --batch FILE with one object per line, one
result line per input line, in order (a bad line gives {"error": "..."} on its line and the
batch goes on). A readable table by default, --json for the structure, --lang zh|en.
Exit status for a single situation: 0 settled, 1 the hand does not win, 2 malformed input.

For example:
  echo '{"rules": "gejiu", "wins": [{"seat": "S", "hand": "123m 456p 789s EEE 5m",
         "tile": "5m", "how": "discard", "from": "W"}]}' | mahjong-ssh score

Every field of a situation, with examples: docs/score.md in the source (the README links it).
Each ruleset's patterns and payments: docs/rules/yichun.en.md, shangrao.en.md, gejiu.en.md
(中文: .zh.md), the same pages that ? opens at a table.
"""


def add_parser(subparsers: Any) -> None:
    """Register the ``score`` sub-command on an ``argparse`` sub-parsers object."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "score",
        help="settle a hand: JSON situation in, payments out",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--file", "-f", metavar="F", help="read one situation from F (default stdin)")
    src.add_argument("--batch", metavar="FILE",
                     help="one JSON situation per line; one result line per input line")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--lang", choices=("en", "zh"), default="en",
                   help="language shown first (both are always shown)")
    p.set_defaults(func=run)


def batch_lines(lines: Iterable[str], as_json: bool = True, lang: str = "en") -> Iterator[str]:
    """One output line per input line (blank lines give ``{"error": "empty line"}``)."""
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            yield json.dumps({"error": f"line {n}: empty line"}, ensure_ascii=False)
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            yield json.dumps({"error": f"line {n}: not JSON: {exc}"}, ensure_ascii=False)
            continue
        result = score_json(obj)
        if as_json or ("error" in result and result.get("win") is not False):
            yield json.dumps(result, ensure_ascii=False)
        else:
            yield _one_line_text(obj, lang)


def _one_line_text(obj: Any, lang: str) -> str:
    try:
        _situation, settlement = score_object(obj)
    except NotAWinError as err:
        return render_not_a_win(err, lang)
    net = " ".join(f"{seat_letter(p)} {v:+d}" for p, v in settlement.parties())
    pats = "; ".join(f"{'ESWN'[w.seat]} {w.pattern_zh} {w.pattern_en} {w.value}"
                     for w in settlement.wins) or "荒牌 drawn hand"
    return f"{pats} | net {net}"


def run_single(text: str, as_json: bool, lang: str, out: TextIO, err: TextIO) -> int:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        print(f"score: input is not JSON: {exc}", file=err)
        return EXIT_MALFORMED
    try:
        situation, settlement = score_object(obj)
    except NotAWinError as exc:
        if as_json:
            print(json.dumps(not_a_win_json(exc), ensure_ascii=False), file=out)
        else:
            print(render_not_a_win(exc, lang), file=out)
        return EXIT_NOT_A_WIN
    except (SituationError, ValueError) as exc:
        print(f"score: {exc}", file=err)
        return EXIT_MALFORMED
    if as_json:
        print(json.dumps(settlement_to_json(settlement, situation), ensure_ascii=False,
                         indent=2), file=out)
    else:
        print(render_text(settlement, lang, situation), file=out)
    return EXIT_OK


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Entry point of the sub-command; returns the exit status."""
    out = out or sys.stdout
    err = err or sys.stderr
    if args.batch:
        try:
            fh = open(args.batch, encoding="utf-8")  # noqa: SIM115 (closed below)
        except OSError as exc:
            print(f"score: cannot read --batch file: {exc}", file=err)
            return EXIT_MALFORMED
        with fh:  # a closed output (| head) is the reader's choice, not a bad file
            try:
                for line in batch_lines(fh, args.json, args.lang):
                    print(line, file=out)
            except BrokenPipeError:
                raise
            except OSError as exc:
                print(f"score: cannot read --batch file: {exc}", file=err)
                return EXIT_MALFORMED
        return EXIT_OK
    if args.file:
        try:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as exc:
            print(f"score: cannot read --file: {exc}", file=err)
            return EXIT_MALFORMED
    else:
        text = sys.stdin.read()
    return run_single(text, args.json, args.lang, out, err)
