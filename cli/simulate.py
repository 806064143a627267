"""``mahjong-ssh simulate``: computer players play with every invariant checked, in one process
or several (``--jobs``); a readable summary or ``--json``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

from cli.args import table_options
from cli.histogram import points_histogram
from cli.progress import HandProgress, count_hand, count_in_worker, shared_count
from engine.record import dumps, hand_lines
from engine.rulesets import OptionError
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


def cmd_simulate(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    record = open(args.record, "w", encoding="utf-8") if args.record else None  # noqa: SIM115

    progress = HandProgress(args.hands, f"simulate {args.rules}", quiet=args.quiet)

    def write_record(hand: Hand) -> None:
        if record is not None:
            record.write(dumps(hand_lines(hand)))
        progress.advance()

    if args.duplicate and (not args.seats or args.hands % ROTATIONS):
        if record is not None:
            record.close()
        print(f"error: --duplicate needs --seats and --hands a multiple of {ROTATIONS} "
              f"(hands played: each deal is played {ROTATIONS} times)", file=sys.stderr)
        return 2
    try:
        with progress:
            report = _run(args, record, write_record, progress)
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
    data = report_data(report, elapsed)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    print_report(report, data, bool(args.seats), not args.fast, elapsed)
    return 0


def print_report(report: SimulationReport, data: dict[str, Any], named: bool, checks: bool,
                 elapsed: float, title: str = "") -> None:
    """The readable summary ``simulate`` prints (``arena`` prints the same); ``named``: the
    seats have labels (levels, programs), so the per-level table is shown."""
    if report.duplicate:
        print(f"{title}{report.rules}: {report.hands} hands, duplicate: {report.deals} deals × "
              f"{ROTATIONS} plays (levels rotated through the seats), seed {report.seed}, "
              f"0 violations")
    else:
        print(f"{title}{report.rules}: {report.hands} hands, seed {report.seed}, 0 violations")
    print(f"  actions {report.actions}, drawn hands (荒牌) {report.draws}, "
          f"hands with several winners {report.multi_winner_hands}")
    print("  wins by pattern:")
    for name, n in report.wins_by_pattern.most_common():
        print(f"    {n:6d}  {name}")
    print("  wins by method: " + ", ".join(f"{k} {v}" for k, v in report.win_methods.items()))
    print(f"  mean payment per hand: {report.mean_payment():.2f}")
    print("  net per seat: " + ", ".join(f"{'ESWN'[s]} {v:+d}" for s, v in
                                          enumerate(report.seat_net)))
    if named:
        if report.duplicate:
            print(f"  points per hand (95% interval over the {report.deals} deals: a level's "
                  f"sample is its mean over a deal's {ROTATIONS} plays), win rate, "
                  f"deal-in rate:")
        else:
            print("  points per hand (95% interval), win rate, deal-in rate:")
        for st in report.seat_stats() + report.label_stats():
            print(f"    {st.name:12} {st.mean:+8.3f} ± {st.ci95:6.3f}   win {st.win_rate:6.1%}"
                  f"   deal-in {st.deal_in_rate:6.1%}")
    for line in points_histogram(report):
        print(line)
    print(f"  {data['hands_per_second']} hands/s ({elapsed:.2f} s, checks "
          f"{'on' if checks else 'off'})")


def _run(args: argparse.Namespace, record: Any, on_hand: Callable[[Hand], None],
         progress: HandProgress) -> SimulationReport:
    """The run, in this process or in ``--jobs`` processes; ``on_hand`` gets every hand played
    here (to record it and count it)."""
    if args.jobs > 1:
        return _simulate_apart(args, record, progress)
    return simulate(
        args.rules, args.hands, args.seed, options=table_options(args.option),
        check=not args.fast, on_hand=on_hand, levels=args.seats, duplicate=args.duplicate,
    )


CHUNKS_PER_JOB = 8  # duplicate mode: deal blocks per process, so that none waits long for another


def _simulate_apart(args: argparse.Namespace, record: Any,
                    progress: HandProgress) -> SimulationReport:
    """``simulate --jobs N``: the run's chunks (games, or blocks of deals) played in N
    processes and merged in order: the same report, records and violations as one process
    gives, only sooner. The workers count the hands they finish for the whole run's bar."""
    from concurrent.futures import ProcessPoolExecutor  # here: only --jobs loads multiprocessing

    deals = args.hands // ROTATIONS if args.duplicate else 0
    chunks = plan(args.rules, args.hands, args.seed, table_options(args.option), not args.fast,
                  args.seats, args.duplicate,
                  deals_per_chunk=-(-deals // (args.jobs * CHUNKS_PER_JOB)) if deals else 0)
    report: SimulationReport | None = None
    count = shared_count(progress.enabled)
    with ProcessPoolExecutor(max_workers=min(args.jobs, len(chunks)),
                             initializer=count_in_worker, initargs=(count,)) as pool:
        futures = [pool.submit(_play_apart, chunk, record is not None) for chunk in chunks]
        for part, text, violation in progress.in_order(futures, count):
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
        count_hand()

    try:
        return play_chunk(chunk, on_hand=on_hand), "".join(texts), None
    except SimulationViolation as exc:
        return None, "".join(texts), exc


def report_data(report: SimulationReport, elapsed: float) -> dict[str, Any]:
    """A finished run's figures as ``--json`` prints them (and :func:`print_report` reads)."""
    data = report.to_json()
    data["seconds"] = round(elapsed, 3)
    data["hands_per_second"] = round(report.hands / elapsed, 1) if elapsed > 0 else None
    data["violations"] = 0
    return data
