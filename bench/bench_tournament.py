"""Duplicate against raw scoring: how well a tournament's standings order computer levels.

Eight computer entries, four of a weaker level and four of a stronger, play the same
tournaments (the same seeds, so the same seating draws and deals) twice: once scored raw (each
table its own deals, ranked by the games' nets) and once duplicate (every table of a round the
round's deals, the deal passed on after every hand, ranked by the duplicate score;
engine/tournament.py). For each length of game it says, per format: how often the four
stronger entries finish above the four weaker, the pairs (stronger, weaker) in the wrong order
out of 16, and the spread of the final score within a level against the gap between the
levels' means (the fewer the deals a format needs to order the levels, the better it takes the
cards' luck out). Pure engine: no server, no clock; the tournament's own Swiss seating.

Run by hand (a few minutes on one core with the defaults)::

    .venv/bin/python -m bench.bench_tournament --rules yichun --tournaments 20 --rounds 4 \\
        --hands 1,2,4 --weak easy --strong hard
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.bots import make_player
from engine.game import Game
from engine.simulate import play_hand
from engine.tournament import Entry, Round, TableResult, Tournament


@dataclass(frozen=True)
class Outcome:
    ordered: bool  # every stronger entry above every weaker one
    inversions: int  # (stronger, weaker) pairs in the wrong order, of 16
    weak: tuple[float, ...]  # the final primary scores, by level
    strong: tuple[float, ...]


def play_table(rules: str, seed: int, hands: int, levels: Sequence[str],
               duplicate: bool) -> TableResult:
    """One table's game, its computer players of ``levels`` by seat."""
    game = Game(rules, seed, {"hands_per_game": hands}, rotate_dealer=duplicate)
    players = [make_player(level) for level in levels]
    while not game.is_over:
        if game.hand is not None and game.hand.is_over:
            game.finish_hand()
            if game.is_over:
                break
        hand = game.new_hand()
        play_hand(hand, players, check=False)
        game.finish_hand()
    return TableResult(tuple(h.net for h in game.history),
                       tuple(h.winners for h in game.history))


def run_tournament(rules: str, seed: int, rounds: int, hands: int, weak: str, strong: str,
                   duplicate: bool) -> Outcome:
    t = Tournament("bench", rules, rounds, host=0, seed=seed, duplicate=duplicate,
                   options=(("hands_per_game", hands),))
    for i in range(4):
        t.join(Entry(-1 - i, f"{weak}{i + 1}", weak))
        t.join(Entry(-5 - i, f"{strong}{i + 1}", strong))
    round_: Round | None = t.start()
    while round_ is not None:
        nxt = None
        for table in round_.tables:
            levels = [s.level or "normal" for s in table.seats]
            nxt = t.record(round_.no, table.no,
                           play_table(rules, table.seed, hands, levels, duplicate))
        round_ = nxt
    rows = t.standings()
    places = {r.pid: i for i, r in enumerate(rows)}
    stronger = [e.pid for e in t.entries if e.level == strong]
    weaker = [e.pid for e in t.entries if e.level == weak]
    inversions = sum(places[s] > places[w] for s in stronger for w in weaker)

    def score(pid: int) -> float:
        row = next(r for r in rows if r.pid == pid)
        return row.duplicate if duplicate else float(row.raw)

    return Outcome(inversions == 0, inversions, tuple(score(p) for p in weaker),
                   tuple(score(p) for p in stronger))


def summary(outcomes: Sequence[Outcome]) -> str:
    ordered = sum(o.ordered for o in outcomes) / len(outcomes)
    inversions = statistics.fmean(o.inversions for o in outcomes)
    weak = [x for o in outcomes for x in o.weak]
    strong = [x for o in outcomes for x in o.strong]
    gap = statistics.fmean(strong) - statistics.fmean(weak)
    spread = statistics.fmean((statistics.pstdev(weak), statistics.pstdev(strong)))
    ratio = gap / spread if spread else float("inf")
    return (f"ordered {ordered:6.1%}  wrong pairs {inversions:5.2f}/16  gap {gap:8.1f}  "
            f"spread {spread:8.1f}  gap/spread {ratio:5.2f}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_tournament")
    parser.add_argument("--rules", default="yichun")
    parser.add_argument("--tournaments", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--hands", default="1,2", help="hands a game, comma-separated")
    parser.add_argument("--weak", default="easy")
    parser.add_argument("--strong", default="hard")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(list(argv) if argv is not None else [])
    print(f"{args.tournaments} tournaments of 8 ({args.weak} x4, {args.strong} x4), "
          f"{args.rounds} rounds, {args.rules}")
    for hands in (int(h) for h in args.hands.split(",")):
        for duplicate in (False, True):
            started = time.perf_counter()
            outcomes = [run_tournament(args.rules, args.seed + n, args.rounds, hands, args.weak,
                                       args.strong, duplicate)
                        for n in range(args.tournaments)]
            deals = args.rounds * hands
            print(f"  hands a game: {hands} (deals an entry: {deals:3d}), "
                  f"{'duplicate' if duplicate else 'raw      '}: {summary(outcomes)}  "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
