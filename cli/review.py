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
from cli.records import MAX_VIEW_BYTES, _names, _printable
from engine.record import RecordError
from engine.replay import GameSteps, read_game
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


def _read(path: Path) -> GameSteps | str:
    """The record's game, or what is wrong with the file."""
    try:
        size = path.stat().st_size
        if size > MAX_VIEW_BYTES:
            return f"{path} is {size} bytes: more than a game's record ({MAX_VIEW_BYTES} at most)"
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror}"
    except UnicodeDecodeError:
        return f"{path} is not UTF-8 text: not a game record"
    try:
        return read_game(text)
    except RecordError as exc:
        return f"{path}: {exc}"
    except RecursionError:
        return f"{path}: nested too deep: not a game record"


def cmd_review(args: argparse.Namespace) -> int:
    path = Path(args.file)
    steps = _read(path)
    if isinstance(steps, str):
        return _fail(steps)
    names = _names(steps.game.get("names"))
    try:
        seat = seat_of(args.seat, names)
    except ValueError as exc:
        return _fail(str(exc))
    from tui.settings import Settings
    from tui.view.result_text import shown_game_id  # here: the parser starts without Textual

    settings = Settings.load()
    if args.lang:
        settings.lang = args.lang
    if args.tiles:
        settings.tiles = args.tiles
    game_id = steps.game.get("id")
    label = _printable(shown_game_id(game_id) if isinstance(game_id, str) else path.name, 40)
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
