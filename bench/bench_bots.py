"""Decision time of the computer players per level and ruleset (the goals: median <= 2 ms
for ``normal``, <= 20 ms for ``hard``, so that a table never waits on them; ``expert``, which
thinks in a process of its own at a server: median <= 300 ms, p99 <= 1 s on one core).

Four players of one level play seeded hands without the per-action checks; every
``choose(view)`` call is timed (the view is built outside the timing). Medians are quoted
because the machine is shared. Run: `.venv/bin/python -m bench bots`.
"""

from __future__ import annotations

import statistics
import time

from engine.actions import Action
from engine.bots import make_player
from engine.game import Game
from engine.view import View, build_view

HANDS = 12
EXPERT_HANDS = 4  # four expert players: a few minutes a ruleset


class Timed:
    def __init__(self, level: str, times: list[float]) -> None:
        self.player = make_player(level)
        self.times = times

    def choose(self, view: View) -> Action:
        started = time.perf_counter()
        action = self.player.choose(view)
        self.times.append(time.perf_counter() - started)
        return action


def decision_times(rules: str, level: str, hands: int = HANDS, seed: int = 7) -> list[float]:
    times: list[float] = []
    players = [Timed(level, times) for _ in range(4)]
    game = Game(rules, seed, {"hands_per_game": hands})
    for _ in range(hands):
        hand = game.new_hand()
        while not hand.is_over:
            seat = hand.to_act()[0]
            hand.apply(seat, players[seat].choose(build_view(hand, seat)))
        game.finish_hand()
    return times


def main() -> None:
    print(f"{'level':7} {'ruleset':9} {'decisions':>9} {'median ms':>10} {'p90 ms':>8} "
          f"{'p99 ms':>8} {'max ms':>8}   ({HANDS} hands, {EXPERT_HANDS} for expert; four "
          "players of the level)")
    for level in ("easy", "normal", "hard", "expert"):
        for rules in ("yichun", "shangrao", "gejiu"):
            decision_times(rules, level, 1 if level == "expert" else 2, seed=99)  # warm up
            ts = sorted(decision_times(rules, level,
                                       EXPERT_HANDS if level == "expert" else HANDS))
            ms = [t * 1000 for t in ts]
            p90 = ms[int(0.9 * (len(ms) - 1))]
            p99 = ms[int(0.99 * (len(ms) - 1))]
            print(f"{level:7} {rules:9} {len(ms):9d} {statistics.median(ms):10.3f} "
                  f"{p90:8.3f} {p99:8.2f} {ms[-1]:8.2f}")


if __name__ == "__main__":
    main()
