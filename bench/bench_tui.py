"""CPU time and bytes written per table update, headless, with the real output captured.

The app runs under a driver that is not headless (so Textual renders and writes every frame)
but writes into a counter instead of a terminal. A scripted client plays computer moves for all
four seats, one action per update, and publishes each new view of seat E to the app exactly as a
table would; after each update the benchmark waits until the app is idle (the frame is written).

Reported per update (median, p90): CPU of the app's side (the engine's own work — the move and
the views — measured separately and subtracted) and bytes written to the terminal.
Goal at 80×24: ≤ 2 ms and ≤ 3 KB median (≤ 1 ms for the SSH latency goals).

Each update is followed by a plain ``asyncio.sleep`` of :data:`GAP` (longer than Textual's
frame period, so the frame is written within it), as on the server, where nothing else touches
the app between two updates. ``--pilot`` waits with ``Pilot.pause()`` instead: that wait posts
messages to the app, the screen and the table and polls for idleness, a CPU cost of its own
that every figure then includes. Also reported: the app's CPU per second while nothing happens
(timers).

Run: ``.venv/bin/python -m bench.bench_tui [updates] [WxH] [--pilot]``.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from textual.driver import Driver
from textual.drivers.headless_driver import HeadlessDriver

from engine.actions import Action
from engine.bots.basic import BasicPlayer
from engine.game import Game
from engine.view import build_view
from host.client import TableUpdate, UpdateCallback
from host.clock import SYSTEM_CLOCK, Clock
from host.refusal import Refusal
from tui.apps.app import MahjongApp
from tui.compat.sgr import compact
from tui.settings import Settings


class CountingDriver(HeadlessDriver):
    """Renders like a terminal driver; counts the bytes it would send: a frame's writes are
    joined and compacted at ``flush`` as ``net.front.driver.SSHDriver`` sends them
    (``tui.compat.sgr.compact``), unless ``compact`` is off (the bytes before it)."""

    written = 0
    compact = True
    frames: list[str] | None = None  # each frame as sent, when a list is set (dumps)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._out: list[str] = []

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        self._out.append(data)

    def flush(self) -> None:
        if not self._out:
            return
        data = "".join(self._out)
        self._out.clear()
        if CountingDriver.compact:
            data = compact(data)
        if CountingDriver.frames is not None:
            CountingDriver.frames.append(data)
        CountingDriver.written += len(data.encode("utf-8"))


class BenchApp(MahjongApp):
    def _build_driver(
        self, headless: bool, inline: bool, mouse: bool, size: tuple[int, int] | None
    ) -> Driver:
        return CountingDriver(self, debug=False, mouse=False, size=size)


class ScriptedClient:
    """A table whose every seat is a computer player, advanced one action at a time."""

    seat = 0
    clock: Clock = SYSTEM_CLOCK

    def __init__(self, rules: str, seed: int) -> None:
        self.game = Game(rules, seed, {"hands_per_game": 1000})
        self.game.new_hand()
        self.players = [BasicPlayer() for _ in range(4)]
        self.callbacks: list[UpdateCallback] = []
        self.engine_seconds = 0.0

    def subscribe(self, callback: UpdateCallback) -> None:
        self.callbacks.append(callback)
        self.publish()

    def publish(self) -> None:
        hand = self.game.hand
        assert hand is not None
        update = TableUpdate(view=build_view(hand, self.seat), hands_per_game=1000,
                             totals=tuple(self.game.scores))  # type: ignore[arg-type]
        for cb in self.callbacks:
            cb(update)

    def step(self) -> None:
        t0 = time.process_time()
        hand = self.game.hand
        assert hand is not None
        if hand.is_over:
            self.game.new_hand()
        else:
            seat = hand.to_act()[0]
            action = self.players[seat].choose(build_view(hand, seat))
            self.game.apply(seat, action)
        hand = self.game.hand
        assert hand is not None
        update = TableUpdate(view=build_view(hand, self.seat), hands_per_game=1000,
                             totals=tuple(self.game.scores))  # type: ignore[arg-type]
        self.engine_seconds += time.process_time() - t0
        for cb in self.callbacks:
            cb(update)

    def send(self, action: Action) -> Refusal | None:
        return Refusal.of("illegal", reason="benchmark")

    def next_hand(self) -> None:
        pass

    def new_game(self, rules: str, options: Mapping[str, Any],
                 seed: int | None) -> Refusal | None:
        return None

    def set_paused(self, paused: bool) -> bool:
        return False

    controls_pace = False

    def set_bot_delay(self, seconds: float) -> None:
        pass

    def close(self) -> None:
        pass


GAP = 0.025  # seconds after each update (Textual writes a frame at most every 1/60 s)


async def _settle(pilot: Any, use_pilot: bool) -> None:
    if use_pilot:
        await pilot.pause()
    else:
        await asyncio.sleep(GAP)


async def measure(
    rules: str, updates: int, size: tuple[int, int], use_pilot: bool = False
) -> tuple[list[float], list[int], float]:
    client = ScriptedClient(rules, seed=2024)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load(Path(tmp) / "settings.json")
        settings.tiles = "cjk"
        app = BenchApp(client, settings, table_ready=True)
        cpu: list[float] = []
        sizes: list[int] = []
        async with app.run_test(size=size) as pilot:
            for _ in range(20):
                await pilot.pause()
            # the result screen would cover the table: keep it from opening
            app._result_shown = (app._game_no, 10**9)
            await asyncio.sleep(0.5)
            t0 = time.process_time()
            await asyncio.sleep(1.0)
            idle = time.process_time() - t0  # CPU in one second without updates
            for _ in range(updates):
                hand = client.game.hand
                assert hand is not None
                app._result_shown = (app._game_no, hand.hand_no)
                if hand.is_over:
                    client.step()
                    await _settle(pilot, use_pilot)
                    continue
                before_bytes = CountingDriver.written
                engine_before = client.engine_seconds
                t0 = time.process_time()
                client.step()
                app._result_shown = (app._game_no, client.game.hand.hand_no)  # type: ignore[union-attr]
                await _settle(pilot, use_pilot)
                total = time.process_time() - t0
                cpu.append(total - (client.engine_seconds - engine_before))
                sizes.append(CountingDriver.written - before_bytes)
    return cpu, sizes, idle


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    use_pilot = "--pilot" in sys.argv[1:]
    updates = int(args[0]) if args and args[0].isdigit() else 300
    w, h = (int(x) for x in args[1].split("x")) if len(args) > 1 else (80, 24)
    gc.set_threshold(10_000, 20, 100)
    wait = "Pilot.pause()" if use_pilot else f"sleep {GAP * 1000:.0f} ms"
    print(f"table updates at {w}x{h}, {updates} per ruleset, then {wait} "
          "(CPU excludes the engine's work)")
    for rules in ("yichun", "shangrao", "gejiu"):
        cpu, sizes, idle = asyncio.run(measure(rules, updates, (w, h), use_pilot))
        print(
            f"{rules:9s} CPU median {statistics.median(cpu) * 1000:5.2f} ms  "
            f"p90 {_pct(cpu, 0.9) * 1000:5.2f} ms   "
            f"bytes median {statistics.median(sizes) / 1024:5.2f} KB  "
            f"p90 {_pct([float(s) for s in sizes], 0.9) / 1024:5.2f} KB  (n={len(cpu)})  "
            f"idle {idle * 1000:4.2f} ms/s"
        )


if __name__ == "__main__":
    main()
