"""The ``mahjong-ssh`` command: serve, play, simulate, replay, score.

This module is the process's edge: it reads arguments and files, prints, and times. The rules
live in ``engine`` (pure), the screens in ``tui``, the server in ``net``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli import score
from engine.record import (
    RecordError,
    dumps,
    final_state,
    hand_lines,
    parse_lines,
    replay_lines,
)
from engine.rulesets import RULESETS, OptionError, parse_option_pairs
from engine.simulate import (
    ROTATIONS,
    Chunk,
    SimulationReport,
    SimulationViolation,
    plan,
    play_chunk,
    simulate,
)
from engine.table import Hand
from themes import THEME_NAMES


def _options(pairs: list[str] | None) -> dict[str, Any]:
    """``--option key=value`` → {key: value} (the engine's one parser; the ruleset checks the
    values): whole numbers, on/off words, unlimited words."""
    try:
        return parse_option_pairs(pairs or [])
    except OptionError as exc:
        raise SystemExit(str(exc)) from None


# --- simulate --------------------------------------------------------------------------------


def cmd_simulate(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    record = open(args.record, "w", encoding="utf-8") if args.record else None  # noqa: SIM115

    def write_record(hand: Hand) -> None:
        if record is not None:
            record.write(dumps(hand_lines(hand)))

    if args.duplicate and (not args.seats or args.hands % ROTATIONS):
        if record is not None:
            record.close()
        print(f"error: --duplicate needs --seats and --hands a multiple of {ROTATIONS} "
              f"(hands played: each deal is played {ROTATIONS} times)", file=sys.stderr)
        return 2
    try:
        if args.jobs > 1:
            report = _simulate_apart(args, record)
        else:
            report = simulate(
                args.rules, args.hands, args.seed, options=_options(args.option),
                check=not args.fast, on_hand=write_record, levels=args.seats,
                duplicate=args.duplicate,
            )
    except SimulationViolation as exc:
        print(f"VIOLATION: {exc}", file=sys.stderr)
        hands = exc.hand_no
        extra = "".join(f" --option {o}" for o in args.option or [])
        if args.seats:
            extra += " --seats " + ",".join(args.seats)
        if args.duplicate:
            hands = -(-hands // ROTATIONS) * ROTATIONS  # up to the end of the deal
            extra += " --duplicate"
        print(
            f"reproduce: mahjong-ssh simulate --rules {args.rules} --seed {exc.seed} "
            f"--hands {hands}{extra}",
            file=sys.stderr,
        )
        return 1
    except OptionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if record is not None:
            record.close()
    elapsed = time.perf_counter() - started
    data = report.to_json()
    data["seconds"] = round(elapsed, 3)
    data["hands_per_second"] = round(report.hands / elapsed, 1) if elapsed > 0 else None
    data["violations"] = 0
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    if report.duplicate:
        print(f"{report.rules}: {report.hands} hands, duplicate: {report.deals} deals × "
              f"{ROTATIONS} plays (levels rotated through the seats), seed {report.seed}, "
              f"0 violations")
    else:
        print(f"{report.rules}: {report.hands} hands, seed {report.seed}, 0 violations")
    print(f"  actions {report.actions}, draws {report.draws}, "
          f"hands with several winners {report.multi_winner_hands}")
    print("  wins by pattern:")
    for name, n in report.wins_by_pattern.most_common():
        print(f"    {n:6d}  {name}")
    print("  wins by method: " + ", ".join(f"{k} {v}" for k, v in report.win_methods.items()))
    print(f"  mean payment per hand: {report.mean_payment():.2f}")
    print("  net per seat: " + ", ".join(f"{'ESWN'[s]} {v:+d}" for s, v in
                                          enumerate(report.seat_net)))
    if args.seats:
        if report.duplicate:
            print(f"  points per hand (95% interval over the {report.deals} deals: a level's "
                  f"sample is its mean over a deal's {ROTATIONS} plays), win rate, "
                  f"deal-in rate:")
        else:
            print("  points per hand (95% interval), win rate, deal-in rate:")
        for st in report.seat_stats() + report.label_stats():
            print(f"    {st.name:12} {st.mean:+8.3f} ± {st.ci95:6.3f}   win {st.win_rate:6.1%}"
                  f"   deal-in {st.deal_in_rate:6.1%}")
    print(f"  {data['hands_per_second']} hands/s ({elapsed:.2f} s, checks "
          f"{'off' if args.fast else 'on'})")
    return 0


CHUNKS_PER_JOB = 8  # duplicate mode: deal blocks per process, so that none waits long for another


def _simulate_apart(args: argparse.Namespace, record: Any) -> SimulationReport:
    """``simulate --jobs N``: the run's chunks (games, or blocks of deals) played in N
    processes and merged in order: the same report, records and violations as one process
    gives, only sooner."""
    from concurrent.futures import ProcessPoolExecutor

    deals = args.hands // ROTATIONS if args.duplicate else 0
    chunks = plan(args.rules, args.hands, args.seed, _options(args.option), not args.fast,
                  args.seats, args.duplicate,
                  deals_per_chunk=-(-deals // (args.jobs * CHUNKS_PER_JOB)) if deals else 0)
    report: SimulationReport | None = None
    with ProcessPoolExecutor(max_workers=min(args.jobs, len(chunks))) as pool:
        for part, text, violation in pool.map(_play_apart, chunks,
                                              [record is not None] * len(chunks)):
            if record is not None:
                record.write(text)
            if violation is not None:
                pool.shutdown(cancel_futures=True)  # the run stops at its first violation
                raise violation
            assert part is not None
            if report is None:
                report = part
            else:
                report.merge(part)
    assert report is not None
    return report


def _play_apart(chunk: Chunk, keep_record: bool
                ) -> tuple[SimulationReport | None, str, SimulationViolation | None]:
    """In a worker process: a chunk's report, its hands' records (if wanted) and the
    violation that stopped it, if one did (its record then ends at the violation)."""
    texts: list[str] = []

    def on_hand(hand: Hand) -> None:
        if keep_record:
            texts.append(dumps(hand_lines(hand)))

    try:
        return play_chunk(chunk, on_hand=on_hand), "".join(texts), None
    except SimulationViolation as exc:
        return None, "".join(texts), exc


def _whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` (argparse names the option)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            limits = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {limits}, got {value}")
        return value

    return parse


_port = _whole(0, 65535)  # 0: any free port
_positive = _whole(1)


def _play_levels(text: str) -> tuple[str, str, str]:
    """``play --bots``: one computer level for the three seats, or one each for S, W, N."""
    from engine.bots import LEVELS

    levels = [w.strip().lower() for w in text.split(",")]
    if len(levels) == 1:
        levels *= 3
    if len(levels) != 3:
        raise argparse.ArgumentTypeError(
            f"one level, or three (for S,W,N; you sit at E), got {len(levels)}: {text!r}")
    for level in levels:
        if level not in LEVELS:
            raise argparse.ArgumentTypeError(
                f"unknown level {level!r} (one of: {', '.join(LEVELS)})")
    return levels[0], levels[1], levels[2]


def _seconds(text: str) -> float:
    """A duration in seconds, not negative."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of seconds, got {text!r}") from None
    if not value >= 0 or value == float("inf"):  # also refuses nan
        raise argparse.ArgumentTypeError(f"seconds must be 0 or more, got {text}")
    return value


def _levels(text: str) -> list[str]:
    from engine.bots import LEVELS

    levels = [x.strip() for x in text.split(",")]
    if len(levels) != 4 or any(x not in LEVELS for x in levels):
        raise argparse.ArgumentTypeError(
            f"four levels separated by commas, each one of {', '.join(LEVELS)}: got {text!r}")
    return levels


# --- replay ----------------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text(encoding="utf-8")
        hands = replay_lines(parse_lines(text))
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
                payer = "ESWN"[t.payer] if isinstance(t.payer, int) else t.payer
                payee = "ESWN"[t.payee] if isinstance(t.payee, int) else t.payee
                print(f"    {payer} -> {payee} {t.amount:6d}  {t.why}")
            print("  net: " + ", ".join(
                f"{'ESWN'[k] if isinstance(k, int) else k} {v:+d}" for k, v in s_.parties()))
        if r.recorded_final is not None:
            if r.matches:
                print("  check: final state and settlement match the record")
            else:
                print("  CHECK FAILED: the replay differs from the recorded result")
                status = 1
    return status


# --- record (play bots and write a record) ----------------------------------------------------


def cmd_record(args: argparse.Namespace) -> int:
    """Play one game with computer players and write its record (for examples and tests)."""
    from engine.bots import BasicPlayer
    from engine.game import Game
    from engine.simulate import play_hand

    try:
        game = Game(args.rules, args.seed,
                    {**_options(args.option), "hands_per_game": args.hands})
    except (OptionError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    players = [BasicPlayer() for _ in range(4)]
    lines: list[dict[str, Any]] = [{"type": "game", "rules": args.rules, "seed": args.seed}]
    while not game.is_over:
        hand = game.new_hand()
        play_hand(hand, players)
        game.finish_hand()
        lines.extend(hand_lines(hand))
    out = dumps(lines)
    if args.out == "-":
        sys.stdout.write(out)
    else:
        Path(args.out).write_text(out, encoding="utf-8")
        print(f"wrote {args.out}: {len(game.history)} hands, scores "
              + " ".join(f"{'ESWN'[s]} {v:+d}" for s, v in enumerate(game.scores)))
    return 0


# --- serve / play ------------------------------------------------------------------------------


def cmd_serve(args: argparse.Namespace) -> int:
    from net import server

    return int(server.main(args))


def cmd_backup(args: argparse.Namespace) -> int:
    """``mahjong-ssh backup [--data DIR] [--force] FILE``: exit 0 with what it wrote, 1 with
    one line saying why not."""
    from net.store import StorageError, backup
    from tui.local import default_data_dir

    data = Path(args.data) if args.data else default_data_dir()
    try:
        report = backup(data / "mahjong.sqlite3", Path(args.file), force=args.force)
    except StorageError as exc:
        print(f"mahjong-ssh backup: {exc}", file=sys.stderr)
        return 1
    print(report.describe())
    print(f"to restore: stop the server, copy {report.path} over {data / 'mahjong.sqlite3'}, "
          f"remove mahjong.sqlite3-wal and mahjong.sqlite3-shm beside it, start the server")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from tui import local, textual_fixes

    textual_fixes.apply()
    return int(local.main(args))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mahjong-ssh",
        description="Chinese regional mahjong (宜春 Yichun, 上饶 Shangrao, 个旧 Gejiu) "
        "for four players over SSH.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    rules = sorted(RULESETS)

    p = sub.add_parser("serve", help="run the SSH server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=_port, default=2222)
    p.add_argument("--data", default=None, help="data directory (host key, database)")
    p.add_argument("--no-anonymous", action="store_true",
                   help="refuse clients without an SSH key")
    p.add_argument("--grace", type=_seconds, default=None,
                   help="seconds a dropped player's seat waits before a computer player takes "
                   "it (default 20)")
    p.add_argument("--bot-delay", type=_seconds, default=None,
                   help="computer players' pause before a move, seconds (default 0.5)")
    p.add_argument("--max-per-address", type=_positive, default=None,
                   help="connections allowed from one address (default 20)")
    p.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                   help="change one limit on what clients control (repeatable; the names are "
                   "net/limits.py's fields, e.g. chat_per_minute=10, tables_total=50)")
    p.add_argument("--limits", type=Path, default=None, metavar="FILE",
                   help="limits from a TOML file's [limits] table (--limit words win)")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("backup", help="copy the server's database while it runs (SQLite's "
                       "online backup); restore: stop the server, copy the file over "
                       "DATA/mahjong.sqlite3, remove its -wal and -shm files")
    p.add_argument("--data", default=None, help="the server's data directory")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.add_argument("file", help="the backup to write (refused if it exists, unless --force)")
    p.set_defaults(func=cmd_backup)

    p = sub.add_parser("play", help="play against three computer players in this terminal")
    p.add_argument("--rules", choices=rules, default=None)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--lang", choices=["zh", "en"], default=None)
    p.add_argument("--tiles", choices=["cjk", "glyph", "ascii"], default=None)
    p.add_argument("--theme", choices=THEME_NAMES, default=None)
    p.add_argument("--bots", type=_play_levels, default=None, metavar="LEVEL[,LEVEL,LEVEL]",
                   help="computer players: easy, normal (default) or hard; one, or one per "
                   "seat S,W,N")
    p.add_argument("--data", default=None,
                   help="data directory (game records go to DATA/records)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("simulate", help="computer players play; every invariant is checked")
    p.add_argument("--rules", choices=rules, required=True)
    p.add_argument("--hands", type=_positive, default=1000,
                   help="hands played (default 1000); with --duplicate a multiple of 4, "
                   "HANDS/4 deals each played 4 times")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--option", action="append", metavar="KEY=VALUE")
    p.add_argument("--json", action="store_true")
    p.add_argument("--fast", action="store_true", help="skip the per-action checks")
    p.add_argument("--record", metavar="FILE", help="write every hand's game record to FILE")
    p.add_argument("--seats", type=_levels, metavar="L,L,L,L",
                   help="computer level per seat E,S,W,N (easy, normal, hard); default all easy")
    p.add_argument("--duplicate", action="store_true",
                   help="duplicate (1 vs 3 rotation): play every deal (a hand's seed, dealer "
                   "and zero scores) 4 times, seat s getting level L[(s - r) %% 4] in play r, "
                   "with fresh players each play; statistics per level, the 95%% interval "
                   "over deals. Needs --seats")
    p.add_argument("--jobs", type=_whole(1, 256), default=1, metavar="N",
                   help="play in N processes (default 1): the same results, sooner on a "
                   f"machine with N cores (this one has {os.cpu_count()})")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("replay", help="re-run a game record, check it, print the result")
    p.add_argument("file")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("record", help="play a game with computer players and write its record")
    p.add_argument("--rules", choices=rules, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hands", type=_positive, default=1)
    p.add_argument("--option", action="append", metavar="KEY=VALUE")
    p.add_argument("--out", default="-")
    p.set_defaults(func=cmd_record)

    score.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader closed the output (| head): stop quietly
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (no flush error at exit)
        return 0


if __name__ == "__main__":
    sys.exit(main())
