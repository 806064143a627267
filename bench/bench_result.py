"""The CPU one session spends at a hand's end: showing the hand's result (drawn over the
table by the table widget), then Enter and the next hand's first view (the table drawn again
in full, twice: as it closes the result and for the new hand).

One app at 80×24 with a real driver writing to a counter (``bench.bench_tui.BenchApp``), at a
table of computer players (``ScriptedClient``), for each ruleset; the first hand (imports,
first build of the screen) is left out. Result lines are parsed piece by piece, each piece
(a tile, a name, a label) once per process, as on the server, where the four sessions of a
table share them: the pieces new in each hand are parsed here too.

Run: ``.venv/bin/python -m bench result`` (``MJ_BENCH_HANDS``, default 8 per ruleset).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.bench_tui import BenchApp, ScriptedClient
from tui.settings import Settings


async def _hand_ends(rules: str, hands: int) -> tuple[list[float], list[float]]:
    client = ScriptedClient(rules, seed=7)
    shown: list[float] = []
    next_hand: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load(Path(tmp) / "s.json")
        app = BenchApp(client, settings, table_ready=True)
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(10):
                await pilot.pause()
            while len(shown) < hands + 1:
                hand = client.game.hand
                assert hand is not None
                if hand.is_over:
                    t0 = time.process_time()
                    await pilot.press("enter")  # leave the result screen
                    client.game.new_hand()
                    client.publish()  # as the table does once every seat pressed Enter
                    await asyncio.sleep(0.05)
                    next_hand.append(time.process_time() - t0)
                    continue
                t0 = time.process_time()
                client.step()
                await asyncio.sleep(0.05)
                if client.game.hand is not None and client.game.hand.is_over:
                    shown.append(time.process_time() - t0)
    return shown[1:], next_hand[1:]


def main() -> None:
    hands = int(os.environ.get("MJ_BENCH_HANDS", "8"))
    for rules in ("yichun", "shangrao", "gejiu"):
        shown, nxt = asyncio.run(_hand_ends(rules, hands))
        print(f"{rules:9s} CPU per session: show the result median "
              f"{statistics.median(shown) * 1000:.1f} ms (max {max(shown) * 1000:.1f}); "
              f"Enter and the next hand median {statistics.median(nxt) * 1000:.1f} ms "
              f"(max {max(nxt) * 1000:.1f}); {len(shown)} hands", flush=True)


if __name__ == "__main__":
    main()
