"""``mahjong-ssh review FILE --seat S``: one seat's play in a finished game, weighed by the
``expert`` computer player (``engine.review``), on a screen (``tui.apps.review``) or as plain text
(``--text``). A file or a seat that will not do: one line saying why, exit status 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cli.args import whole
from cli.progress import HandProgress
from cli.records import UnreadRecord, _names, read_record, viewer_settings
from engine.replay import GameSteps
from engine.review import REVIEW_SAMPLES, assess, decisions, seat_of

MAX_SAMPLES = 4096


def add_parser(sub: Any) -> None:
    p = sub.add_parser("review", help="review one seat's play in a finished game's record: "
                       "the expert's choice and the expected points of each option")
    p.add_argument("file", help="a game record (JSON lines: play's DATA/records, ssh … "
                   "replay ID > FILE)")
    p.add_argument("--seat", required=True,
                   help="the seat reviewed: E, S, W, N, 0-3, or the name of the player who "
                   "sat there")
    p.add_argument("--samples", type=whole(1, MAX_SAMPLES), default=REVIEW_SAMPLES,
                   help=f"sampled hidden hands per action (default {REVIEW_SAMPLES}; fewer: "
                   "sooner, wider intervals)")
    p.add_argument("--lang", choices=["zh", "en"], default=None)
    p.add_argument("--tiles", choices=["cjk", "glyph", "ascii"], default=None)
    p.add_argument("--text", action="store_true",
                   help="print the review as plain text (a line per decision, then the "
                   "summary) instead of the screen")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar on stderr with --text (there is none when stderr is "
                   "not a terminal)")
    p.set_defaults(func=cmd_review)


def _fail(text: str) -> int:
    print(f"mahjong-ssh review: {text}", file=sys.stderr)
    return 2


def cmd_review(args: argparse.Namespace) -> int:
    try:
        steps = read_record(str(Path(args.file)))
    except UnreadRecord as exc:
        return _fail(str(exc))
    names = _names(steps.game.get("names"))
    try:
        seat = seat_of(args.seat, names)
    except ValueError as exc:
        return _fail(str(exc))
    settings, label = viewer_settings(args, steps, Path(args.file))
    if args.text:
        return _text(steps, seat, names, label, args.samples, settings.lang, args.quiet)
    from host.review_pool import niced_pool
    from tui.apps.replay import ReplayGame
    from tui.apps.review import ReviewApp, ReviewGame, pool_submit
    from tui.compat import compat_textual

    compat_textual.apply()
    review = ReviewGame.of(ReplayGame(steps, names=names, label=label), seat)
    pool = niced_pool()
    try:
        ReviewApp(review, pool_submit(pool), settings, args.samples).run()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return 0


def _text(steps: GameSteps, seat: int, names: tuple[str, str, str, str], label: str,
          samples: int, lang: str, quiet: bool) -> int:
    """``--text``: every decision assessed here, in order, then the review printed."""
    from tui.words.review_text import review_text
    from tui.words.ruleset_title import rules_title
    from words import seat_wind, tr

    todo = decisions(steps, seat)
    rules = str(steps.hands[0].header.get("rules", ""))
    who = f"{seat_wind(seat, lang)} {names[seat]}".strip()
    head = tr(lang, "rv_text_head", id=label, rules=rules_title(rules, lang), seat=who,
              samples=samples)
    done = []
    with HandProgress(len(todo), "review", unit="decisions", quiet=quiet) as progress:
        for d in todo:
            done.append(assess(d, samples))
            progress.advance()
    sys.stdout.write(review_text(head, done, lang))
    return 0
