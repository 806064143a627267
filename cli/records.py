"""``mahjong-ssh replay`` and ``record``: game records (docs/game-record.md) re-run and checked,
or written from a game computer players play."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.args import table_options
from cli.progress import HandProgress, wanted
from engine.bots import BasicPlayer
from engine.game import Game
from engine.record import RecordError, dumps, final_state, hand_lines, parse_lines, replay_lines
from engine.replay import GameSteps, read_game
from engine.rulesets import OptionError
from engine.scoring.common import seat_letter
from engine.simulate import play_hand

if TYPE_CHECKING:
    from tui.settings import Settings

MAX_VIEW_BYTES = 64 * 1024 * 1024  # a record file the viewer reads at most


def cmd_replay(args: argparse.Namespace) -> int:
    if getattr(args, "view", False):
        return _view(args)
    try:
        text = Path(args.file).read_text(encoding="utf-8")
        total = _hands_in(text) if wanted(args.quiet) else 0  # a second reading for the bar
        with HandProgress(total, "replay", quiet=args.quiet) as progress:
            hands = replay_lines(_counted(parse_lines(text), progress))
    except OSError as exc:
        print(f"error: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except RecordError as exc:
        print(f"error: {args.file}: {exc}", file=sys.stderr)
        return 1
    if not hands:
        print(f"error: {args.file} holds no hand", file=sys.stderr)
        return 1
    status = 0
    for r in hands:
        h = r.hand
        print(f"hand {h.hand_no} ({h.ruleset.name}, seed {h.seed}, dealer {'ESWN'[h.dealer]}): "
              f"{len(h.actions)} actions")
        if not h.is_over:
            print("  not finished: the record stops mid-hand")
        fs = final_state(h)
        for s in range(4):
            melds = " ".join(fs["melds"][s])
            print(f"  {'ESWN'[s]}: {fs['hands'][s]}  {melds}")
        if h.settlement is not None:
            s_ = h.settlement
            for w in s_.wins:
                print(f"  win {'ESWN'[w.seat]}: {w.pattern_zh} {w.pattern_en} ({w.value})")
            if not s_.wins:
                print("  no winner (exhaustive draw)")
            for t in s_.transfers:
                print(f"    {seat_letter(t.payer)} -> {seat_letter(t.payee)} {t.amount:6d}  "
                      f"{t.why}")
            print("  net: " + ", ".join(f"{seat_letter(k)} {v:+d}" for k, v in s_.parties()))
        if r.recorded_final is not None:
            if r.matches:
                print("  check: final state and settlement match the record")
            else:
                print("  CHECK FAILED: the replay differs from the recorded result")
                status = 1
    return status


class UnreadRecord(Exception):
    """A file that is not a finished game's record; ``status`` 2 when it cannot be opened."""

    def __init__(self, problem: str, status: int = 1) -> None:
        super().__init__(problem)
        self.status = status


def read_record(file: str) -> GameSteps:
    """The game of the record ``file``, or :class:`UnreadRecord` saying why not."""
    path = Path(file)
    try:
        size = path.stat().st_size
        if size > MAX_VIEW_BYTES:
            raise UnreadRecord(f"{file} is {size} bytes: more than a game's record "
                               f"({MAX_VIEW_BYTES} at most)")
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise UnreadRecord(f"cannot read {file}: {exc.strerror}", 2) from None
    except UnicodeDecodeError:
        raise UnreadRecord(f"{file} is not UTF-8 text: not a game record") from None
    try:
        return read_game(text)
    except RecordError as exc:
        raise UnreadRecord(f"{file}: {exc}") from None
    except RecursionError:
        raise UnreadRecord(f"{file}: nested too deep: not a game record") from None


def viewer_settings(args: argparse.Namespace, steps: GameSteps, path: Path
                    ) -> tuple[Settings, str]:
    """The player's settings with ``--lang`` and ``--tiles`` applied, and the game's label
    (its id, else the file's name) as the viewer shows it."""
    from tui.settings import Settings
    from tui.view.result_text import shown_game_id  # here: the parser starts without Textual

    settings = Settings.load()
    if args.lang:
        settings.lang = args.lang
    if args.tiles:
        settings.tiles = args.tiles
    game_id = steps.game.get("id")
    return settings, _printable(shown_game_id(game_id) if isinstance(game_id, str)
                                else path.name, 40)


def _view(args: argparse.Namespace) -> int:
    """``replay FILE --view``: the record checked, then the viewer (tui.apps.replay); a file that
    cannot be read or is not a finished game's record: one line saying why, status 1 (2
    when it cannot be opened)."""
    try:
        steps = read_record(args.file)
    except UnreadRecord as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.status
    from tui.apps.replay import ReplayApp, ReplayGame
    from tui.compat import compat_textual  # here: Textual (the other commands start without it)

    compat_textual.apply()
    settings, label = viewer_settings(args, steps, Path(args.file))
    ReplayApp(ReplayGame(steps, names=_names(steps.game.get("names")), label=label),
              settings).run()
    return 0


def _printable(text: str, most: int) -> str:
    """A name from a file: printable characters only (no escape sequence reaches the
    terminal), at most ``most``."""
    return "".join(c for c in text if c.isprintable())[:most]


def _names(value: Any) -> tuple[str, str, str, str]:
    """The players' names of a record's ``game`` line ("" for a computer or when absent)."""
    if not isinstance(value, list) or len(value) != 4:
        return ("", "", "", "")
    names = [_printable(v, 16) if isinstance(v, str) else "" for v in value]
    return (names[0], names[1], names[2], names[3])


def _hands_in(text: str) -> int:
    """The hand lines of a record, up to its first line that does not parse (the replay
    stops there and says why)."""
    n = 0
    try:
        for obj in parse_lines(text):
            n += obj.get("type") == "hand"
    except RecordError:
        pass
    return n


def _counted(lines: Iterable[dict[str, Any]],
             progress: HandProgress) -> Iterator[dict[str, Any]]:
    """The record's lines, counting on ``progress`` each hand the replay has finished (at the
    next hand's line, and at the end)."""
    started = False
    for obj in lines:
        if obj.get("type") == "hand":
            if started:
                progress.advance()
            started = True
        yield obj
    if started:
        progress.advance()


def cmd_record(args: argparse.Namespace) -> int:
    """Play one game with computer players and write its record (for examples and tests)."""
    try:
        game = Game(args.rules, args.seed,
                    {**table_options(args.option), "hands_per_game": args.hands})
    except (OptionError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    players = [BasicPlayer() for _ in range(4)]
    lines: list[dict[str, Any]] = [{"type": "game", "rules": args.rules, "seed": args.seed}]
    with HandProgress(args.hands, f"record {args.rules}", quiet=args.quiet) as progress:
        while not game.is_over:
            hand = game.new_hand()
            play_hand(hand, players)
            game.finish_hand()
            lines.extend(hand_lines(hand))
            progress.advance()
    out = dumps(lines)
    if args.out == "-":
        sys.stdout.write(out)
    else:
        Path(args.out).write_text(out, encoding="utf-8")
        print(f"wrote {args.out}: {len(game.history)} hands, scores "
              + " ".join(f"{'ESWN'[s]} {v:+d}" for s, v in enumerate(game.scores)))
    return 0
