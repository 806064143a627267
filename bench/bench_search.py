"""The expert's CPU over the decisions it searches, and a digest of what it chose
(``python -m bench.bench_search``).

Four ``hard`` players play each deal (the first hand of a one-hand game with the deal's seed);
every view in which the expert would search (two candidates or more) is kept, and the expert
then decides each kept view in turn, timed with ``time.process_time``. The digest of its
choices says whether two versions of the code decide alike: a change meant only to be faster
must leave it as it was. To compare two versions (each a ``git worktree``), run this file from
outside both, with ``PYTHONPATH`` at the version under test, alternating::

    cd /tmp && PYTHONPATH=OLD ~/p/.venv/bin/python ~/p/bench/bench_search.py --rules gejiu
    cd /tmp && PYTHONPATH=NEW ~/p/.venv/bin/python ~/p/bench/bench_search.py --rules gejiu

The views are collected by the code under test too, so both runs must collect the same ones:
the number of views is printed with the digest.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time

from engine.bots import make_player
from engine.bots.expert import ExpertPlayer
from engine.game import Game
from engine.view import View, build_view

RULESETS = ("yichun", "shangrao", "gejiu")


def searched_views(rules: str, deals: int, seed: int) -> list[View]:
    """The views of four ``hard`` players' hands (seeds ``seed`` …) that the expert searches."""
    expert = ExpertPlayer()
    out: list[View] = []
    for d in range(deals):
        hand = Game(rules, seed + d, {"hands_per_game": 1}).new_hand()
        players = [make_player("hard") for _ in range(4)]
        while not hand.is_over:
            seat = hand.to_act()[0]
            view = build_view(hand, seat)
            action = players[seat].choose(view)
            if view.my_move and view.viewer is not None and \
                    len(expert.candidates(view, action)) >= 2:
                out.append(view)
            hand.apply(seat, action)
    return out


def run(rules: str, deals: int, seed: int) -> str:
    views = searched_views(rules, deals, seed)
    expert = ExpertPlayer()
    chosen: list[str] = []
    times: list[float] = []
    for view in views:
        started = time.process_time()
        action = expert.choose(view)
        times.append(time.process_time() - started)
        chosen.append(repr(action))
    if not times:
        return f"{rules}: no searched view in {deals} deals from seed {seed}"
    digest = hashlib.sha1("\n".join(chosen).encode()).hexdigest()[:12]
    ms = sorted(1000 * t for t in times)
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    return (f"{rules}: {len(views)} searched views (deals {seed}-{seed + deals - 1}), "
            f"choices {digest}; CPU {sum(times):.2f} s, median {statistics.median(ms):.1f} ms, "
            f"p90 {p90:.1f} ms, max {ms[-1]:.1f} ms")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_search", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", choices=RULESETS, action="append",
                    help="a ruleset (again for more; default all three)")
    ap.add_argument("--deals", type=int, default=6)
    ap.add_argument("--seed", type=int, default=900)
    args = ap.parse_args([] if argv is None else argv)
    if not 1 <= args.deals <= 1000:
        ap.error("--deals is 1 to 1000")
    for rules in args.rules or RULESETS:
        print(run(rules, args.deals, args.seed), flush=True)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
