"""The thinking pool (host/thinking.py): expert decisions in worker processes, each table within
its CPU budget, ``hard`` in-process when the pool may not or cannot answer; the server's tables
and ``play`` awaiting it without holding up their event loop."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from cli.main import build_parser
from engine.actions import Action
from engine.bots import Player, make_player
from engine.game import Game
from engine.view import View, build_view
from host.local import LocalTable
from host.table_info import TableState
from host.thinking import Budget, PooledPlayer, ThinkingPool, TokenBucket
from net.commands import HELP_TEXT, parse_command
from net.front.lobby import BOT_NOTE
from net.runtime.shared_table import SharedTable, TableConfig
from net.store import Account
from testkit.ssh import MakeServer
from tests.support.waiting import until
from tui.apps.app import MahjongApp
from tui.apps.table_screen import TableScreen
from tui.settings import Settings

# Yichun, seed 15, 11 moves by hard (the first seat to move each time): then S's discard is one
# expert searches and decides otherwise than hard (found by a scan of seeds; the test checks it
# still does)
SEED, MOVES, SEAT = 15, 11, 1
SLOW = 0.5  # CPU seconds a slowed expert takes a decision (the loop's tests)


class Slowed:
    """A player that takes at least :data:`SLOW` of CPU (spinning) before its answer: a
    decision long enough that a loop held by it shows."""

    def __init__(self, player: Player) -> None:
        self.player = player

    def choose(self, view: View) -> Action:
        end = time.process_time() + SLOW
        action = self.player.choose(view)
        while time.process_time() < end:
            pass
        return action


def slowed(level: str) -> Player:
    """A worker's players, slowed (``ThinkingPool(players=slowed)``)."""
    return Slowed(make_player(level))


def searched_position() -> Game:
    game = Game("yichun", SEED)
    game.new_hand()
    hard = make_player("hard")
    for _ in range(MOVES):
        hand = game.hand
        assert hand is not None
        seat = next(s for s in range(4) if build_view(hand, s).my_move)
        game.apply(seat, hard.choose(build_view(hand, seat)))
    return game


def searched_view() -> View:
    hand = searched_position().hand
    assert hand is not None
    view = build_view(hand, SEAT)
    assert view.my_move
    return view


class Counting:
    """A fallback player that says how often it was asked (hard's answer)."""

    def __init__(self) -> None:
        self.calls = 0
        self.hard = make_player("hard")

    def choose(self, view: View) -> Action:
        self.calls += 1
        return self.hard.choose(view)


@pytest.fixture
async def pool() -> AsyncIterator[ThinkingPool]:
    p = ThinkingPool(1)
    p.warm()
    yield p
    p.close()


@pytest.fixture
async def slow_pool() -> AsyncIterator[ThinkingPool]:
    p = ThinkingPool(1, players=slowed)
    p.warm()
    yield p
    p.close()


async def test_the_pool_answers_what_the_expert_answers_in_process(pool: ThinkingPool) -> None:
    view = searched_view()
    here = make_player("expert").choose(view)
    assert here != make_player("hard").choose(view)  # a fallback would be seen
    fallback = Counting()
    assert await pool.decide("expert", view, fallback) == here
    assert fallback.calls == 0 and pool.stats.pooled == 1 and pool.stats.fallbacks == 0
    assert pool.stats.cpu_seconds > 0.01  # measured in the worker, not here


def test_a_token_bucket_fills_at_its_share_up_to_its_burst() -> None:
    now = [0.0]
    bucket = TokenBucket(Budget(share=0.5, burst=1.0), lambda: now[0])
    assert bucket.allows()
    bucket.spend(1.5)  # one long decision: half a second in debt
    assert not bucket.allows()
    now[0] = 0.9  # 0.45 s back: still in debt
    assert not bucket.allows()
    now[0] = 1.1
    assert bucket.allows()
    now[0] = 100.0
    bucket.spend(0.0)
    assert bucket.tokens == pytest.approx(1.0)  # never more than the burst


async def test_a_table_over_its_budget_gets_hard_in_process(pool: ThinkingPool) -> None:
    view = searched_view()
    now = [0.0]
    bucket = TokenBucket(Budget(share=0.01, burst=0.001), lambda: now[0])  # a tiny budget
    fallback = Counting()
    player = PooledPlayer(pool, "expert", fallback, bucket)
    expert = make_player("expert").choose(view)
    assert await player.decide(view) == expert  # the first goes to the pool (spends it all)
    assert fallback.calls == 0 and pool.stats.pooled == 1
    assert await player.decide(view) == make_player("hard").choose(view)
    assert fallback.calls == 1 and pool.stats.over_budget == 1
    now[0] = 1000.0  # the budget is back
    assert await player.decide(view) == expert
    assert pool.stats.pooled == 2 and fallback.calls == 1


async def test_a_full_queue_gets_hard_in_process() -> None:
    pool = ThinkingPool(1, max_queue=0)
    try:
        fallback = Counting()
        await pool.decide("expert", searched_view(), fallback)
        assert fallback.calls == 1 and pool.stats.queue_full == 1 and pool.stats.pooled == 0
        assert pool.worker_pids() == []  # nothing was started for it
    finally:
        pool.close()


async def test_a_killed_worker_is_replaced(pool: ThinkingPool) -> None:
    view = searched_view()
    fallback = Counting()
    expert = make_player("expert").choose(view)
    assert await pool.decide("expert", view, fallback) == expert
    (pid,) = pool.worker_pids()
    os.kill(pid, signal.SIGKILL)
    # the decision after the death is hard's, the executor dropped; the next, a new worker's
    answers = [await pool.decide("expert", view, fallback) for _ in range(2)]
    assert pool.stats.failed >= 1 and pool.stats.restarts == 1
    assert answers[-1] == expert and pool.stats.pooled == 2  # a new worker answers
    (new,) = pool.worker_pids()
    assert new != pid


async def test_a_killed_worker_mid_decision_leaves_the_table_to_hard(
        slow_pool: ThinkingPool) -> None:
    pool = slow_pool
    view = searched_view()
    fallback = Counting()
    await pool.decide("expert", view, fallback)  # the worker is up
    (pid,) = pool.worker_pids()
    task = asyncio.create_task(pool.decide("expert", view, fallback))
    await asyncio.sleep(0.1)  # it is deciding (SLOW)
    os.kill(pid, signal.SIGKILL)
    assert await asyncio.wait_for(task, 5) == make_player("hard").choose(view)
    assert fallback.calls == 1 and pool.stats.failed == 1 and pool.stats.restarts == 1


async def test_an_expert_seat_plays_a_hand_to_its_end_at_a_shared_table(
        pool: ThinkingPool) -> None:
    # E expert, the others easy: about twenty expert decisions, a few seconds; nobody seated,
    # one watching
    config = TableConfig(bot_delay=0.0, thinking=pool, think_budget=Budget(share=64.0))
    t = SharedTable("x", "yichun", {"hands_per_game": 1}, config,
                    bot_levels=("expert", "easy", "easy", "easy"))
    watcher = t.join(Account(1, "ann"), spectate=True)
    assert t.start(seed=5) is None
    try:
        game = t.game
        assert game is not None
        await until(lambda: len(game.history) == 1, 40.0, "the hand's end")
        assert t.state is TableState.OVER
        assert isinstance(t.player(0)[0], PooledPlayer)
        assert pool.stats.pooled > 5 and pool.stats.fallbacks == 0
    finally:
        watcher.close()
        t.close()


async def test_play_keeps_its_loop_while_an_expert_thinks(slow_pool: ThinkingPool) -> None:
    pool = slow_pool
    await pool.decide("expert", searched_view(), Counting())  # the worker is up
    game = searched_position()
    hand = game.hand
    assert hand is not None
    # the player sits at W; S (to move: the searched discard) is the pool's slowed expert
    table = LocalTable(seat=2, bot_delay=0.0, timers=False, thinking=None,
                       players={SEAT: PooledPlayer(pool, "expert"), 0: make_player("easy"),
                                3: make_player("easy")})
    actions = len(hand.actions)
    gaps: list[float] = []
    start = time.perf_counter()
    table.start_hand(game, hand)
    try:
        last = time.perf_counter()
        while len(hand.actions) == actions:  # the loop's turns while S decides
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now
            assert now - start < 20, "S never played"
        took = time.perf_counter() - start
    finally:
        table.close()
    assert pool.stats.pooled == 2
    assert took > SLOW  # the decision was long (in the loop it would have held it that long)
    assert max(gaps) < 0.1, f"the loop waited {max(gaps):.3f} s"
    assert len(gaps) > 10


async def test_the_server_makes_its_pool_counts_in_stats_and_shuts_it_down(
        make_server: MakeServer) -> None:
    srv = await make_server(think_workers=1)
    pool = srv.registry.config.thinking
    assert isinstance(pool, ThinkingPool) and pool.workers == 1
    assert pool.worker_pids() == []  # lazily: no process before an expert table
    t = srv.registry.get_or_create("deep", "yichun", {"hands_per_game": 4},
                                   bots=("expert", "easy", "easy", "easy"))
    watcher = t.join(Account(1, "ann"), spectate=True)
    assert t.start(seed=5) is None
    await until(lambda: pool.stats.pooled >= 3, 20.0, "expert decisions in the pool")
    assert "Expert players' thinking 电脑思考: " in srv.stats_text([])
    (pid,) = pool.worker_pids()
    watcher.close()
    await srv.close()
    with pytest.raises(RuntimeError):
        pool.executor()  # closed
    await until(lambda: not _alive(pid), 5.0, "the worker's end")


async def test_a_server_without_a_pool_thinks_in_a_thread(make_server: MakeServer) -> None:
    srv = await make_server(think_workers=0)
    assert srv.registry.config.thinking is None
    t = srv.registry.get_or_create("deep", "yichun", bots=("expert",) * 4)
    player, threaded = t.player(0)
    assert threaded and not isinstance(player, PooledPlayer)


def _alive(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped if it is our child and ended
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


EXIT_WHILE_THINKING = """
import asyncio, atexit, os, sys
from pathlib import Path
from net import serve
from net.store import Account
from testkit.ssh import fast_config

async def main(data):
    srv = await serve.start_server(fast_config(data, think_workers=1))
    pool = srv.registry.config.thinking
    t = srv.registry.get_or_create("deep", "yichun", {"hands_per_game": 4}, bots=("expert",) * 4)
    t.join(Account(1, "ann"), spectate=True)
    t.start(seed=3)
    while pool.stats.pooled < 3 or not pool.in_flight:  # stopped while an expert thinks
        await asyncio.sleep(0.01)
    (data / "pid").write_text(" ".join(map(str, pool.worker_pids())))
    await srv.close()

if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
    atexit._run_exitfuncs()  # as serve does before os._exit: multiprocessing joins its own
    os._exit(0)
"""


def test_a_server_stopping_while_an_expert_thinks_ends_at_once(tmp_path: Path) -> None:
    script = tmp_path / "stop.py"
    script.write_text(EXIT_WHILE_THINKING)
    started = time.monotonic()
    pids: list[int] = []
    try:
        done = subprocess.run([sys.executable, str(script), str(tmp_path)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              timeout=30, cwd=Path(__file__).resolve().parent.parent,
                              env={**os.environ, "PYTHONPATH": "."})
        pids = [int(x) for x in (tmp_path / "pid").read_text().split()]
        assert done.returncode == 0, done.stderr
        assert time.monotonic() - started < 20
        assert pids and not any(_alive(pid) for pid in pids)  # no worker left behind
    finally:
        if not pids and (tmp_path / "pid").exists():
            pids = [int(x) for x in (tmp_path / "pid").read_text().split()]
        for pid in pids:  # a worker the test left behind, if it failed
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


async def test_the_play_app_answers_keys_while_an_expert_thinks(
        slow_pool: ThinkingPool, tmp_path: Path) -> None:
    pool = slow_pool
    await pool.decide("expert", searched_view(), Counting())  # the worker is up
    game = searched_position()
    hand = game.hand
    assert hand is not None
    table = LocalTable(seat=2, bot_delay=0.0, timers=False,
                       players={SEAT: PooledPlayer(pool, "expert"), 0: make_player("easy"),
                                3: make_player("easy")})
    settings = Settings.load(tmp_path / "settings.json")
    settings.tiles, settings.lang = "ascii", "en"
    app = MahjongApp(table, settings, table_ready=True)
    actions = len(hand.actions)
    async with app.run_test(size=(80, 24)) as pilot:
        table.start_hand(game, hand)  # S (the pool's slowed expert) thinks about its discard
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TableScreen)
        cursors = [screen.ui.cursor]
        for _ in range(3):  # the cursor along the hand
            await pilot.press("left")
            cursors.append(screen.ui.cursor)
        assert len(hand.actions) == actions  # all answered while S was still thinking
        assert len(set(cursors)) == 4, cursors
        await until(lambda: len(hand.actions) > actions, 20.0, "S's discard")
    table.close()
    assert pool.stats.pooled == 2


def test_expert_is_offered_where_the_levels_are() -> None:
    assert parse_command("join deep --bots expert").bots == ("expert",) * 4
    assert parse_command("join deep --bots hard,expert,easy,normal").bots == (
        "hard", "expert", "easy", "normal")
    assert build_parser().parse_args(["play", "--bots", "expert"]).bots == ("expert",) * 3
    args = build_parser().parse_args(["serve", "--think-workers", "3", "--think-share", "0.25"])
    assert (args.think_workers, args.think_share) == (3, 0.25)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--think-share", "0"])
    assert "expert" in BOT_NOTE and "expert" in HELP_TEXT


def test_the_workers_of_a_server_share_the_cores_for_thinking(tmp_path: Path) -> None:
    import argparse

    from net.front.server import ServerConfig
    from net.supervisor import worker_command

    config = ServerConfig(data_dir=tmp_path)
    cmd = worker_command(argparse.Namespace(workers=2), config, 1, "nats://127.0.0.1:4222")
    given = int(cmd[cmd.index("--think-workers") + 1])
    assert given == max(1, ((os.cpu_count() or 1) - 1) // 2)
    cmd = worker_command(argparse.Namespace(workers=2, think_workers=0, think_share=0.2),
                         config, 1, "nats://127.0.0.1:4222")
    assert cmd.count("--think-workers") == 1 and cmd[cmd.index("--think-workers") + 1] == "0"
    assert cmd[cmd.index("--think-share") + 1] == "0.2"
