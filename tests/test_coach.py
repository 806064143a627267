"""The coach at a practice table (issue 56): the table option ``coach=on`` (off by default,
never rated), the coach's key at the table (an assessment at a discard and at a claim, shown
over the table's top rows), its refusals (a table without the coach, a spectator), plain
mode's ``coach``, and that it names no concealed tile of another seat."""

from __future__ import annotations

import asyncio
import re
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from engine.actions import Action
from engine.bots.basic import BasicPlayer
from engine.game import Game
from engine.rulesets import RULESETS, OptionError, find_ruleset, parse_option_pairs
from engine.table import Phase
from engine.tiles import Kind, kind_to_str
from engine.view import View, build_view
from host.client import TableUpdate, UpdateCallback
from host.clock import SYSTEM_CLOCK, Clock
from host.coach import Coach, refusal
from host.refusal import Refusal
from host.table_info import SeatInfo, TableInfo, TableState
from host.thinking import ThinkingPool
from net.front.lobby import LobbyApp
from net.front.plain_session import table_line
from net.front.server import MahjongServer
from net.runtime.results import GameEnd
from net.runtime.seat_client import Occupant, Seat
from net.runtime.stakes import StakeBook
from net.store import Account, Store
from testkit.ssh import PtyClient, new_key
from tests.support.tui import table_text
from tests.support.waiting import until
from tui.apps.app import MahjongApp
from tui.apps.room import option_lines
from tui.plain.front import PlainTable
from tui.plain.sentences import Sentences
from tui.settings import Settings
from tui.view.result_text import game_result_lines
from words import both, tr

SEED = 5  # Yichun seed 5: E has a buy to choose, then a discard among several, then a claim


class CoachClient:
    """A table whose every seat plays BasicPlayer's moves, advanced by the test to the next
    decision of seat ``seat`` (None: a spectator's view) of a phase."""

    clock: Clock = SYSTEM_CLOCK
    controls_pace = False

    def __init__(self, coach: bool = True, seat: int | None = 0, rules: str = "yichun",
                 seed: int = SEED) -> None:
        self.viewer = seat
        self.seat = seat if seat is not None else 0
        self.game = Game(rules, seed, {"hands_per_game": 4, "coach": coach})
        self.game.new_hand()
        self.player = BasicPlayer()
        self.callbacks: list[UpdateCallback] = []

    def update(self) -> TableUpdate:
        hand = self.game.hand
        assert hand is not None
        return TableUpdate(view=build_view(hand, self.viewer), hands_per_game=4)

    def own_view(self) -> View:
        hand = self.game.hand
        assert hand is not None
        return build_view(hand, self.seat)

    def to_decision(self, phase: Phase, skip: int = 0) -> View:
        """Play on until seat 0 has a decision of more than one action in ``phase`` (after
        ``skip`` such decisions), and show it."""
        hand = self.game.hand
        assert hand is not None
        while not hand.is_over:
            view = self.own_view()
            if view.my_move and len(view.legal) > 1 and view.phase is phase:
                if skip == 0:
                    self.publish()
                    return view
                skip -= 1
            seat = hand.to_act()[0]
            self.game.apply(seat, self.player.choose(build_view(hand, seat)))
        raise AssertionError(f"no {phase} decision in this hand")

    def publish(self) -> None:
        for cb in list(self.callbacks):
            cb(self.update())

    def subscribe(self, callback: UpdateCallback) -> None:
        self.callbacks.append(callback)
        callback(self.update())

    def send(self, action: Action) -> Refusal | None:
        return Refusal.of("illegal", reason="test")

    def next_hand(self) -> None:
        pass

    def new_game(self, rules: str, options: Mapping[str, Any],
                 seed: int | None) -> Refusal | None:
        return None

    def set_paused(self, paused: bool) -> bool:
        return False

    def set_bot_delay(self, seconds: float) -> None:
        pass

    def close(self) -> None:
        pass


class ViewsPool(ThinkingPool):
    """The thinking pool, recording the views the coach hands it."""

    def __init__(self) -> None:
        super().__init__(1)
        self.views: list[View] = []

    async def assess(self, view: View, samples: int, seconds: float,
                     bucket: Any = None) -> Any:
        self.views.append(view)
        return await super().assess(view, samples, seconds, bucket)


@pytest.fixture
def pool() -> Any:
    made = ViewsPool()
    yield made
    made.close()


def named_tiles(text: str) -> set[str]:
    """The tiles a text names in the project's notation (``5m``, ``E``, ``Z``…: the tests'
    apps show the ASCII face)."""
    return set(re.findall(r"[1-9][mps]|\b[ESWNZFB]\b", text))


def own_tiles(view: View) -> set[str]:
    """The tiles the seat may name: its own concealed and drawn tiles, the tile under claim."""
    kinds: list[Kind] = [*view.hand]
    if view.drawn is not None:
        kinds.append(view.drawn)
    if view.window_tile is not None:
        kinds.append(view.window_tile)
    return {kind_to_str(k) for k in kinds}


# --- the option -----------------------------------------------------------------------------
def test_the_coach_option_is_off_by_default_and_on_off_only() -> None:
    for rules in RULESETS:
        assert find_ruleset(rules, {}).options["coach"] is False
        assert parse_option_pairs(["coach=on"], RULESETS[rules]) == {"coach": True}
        assert parse_option_pairs(["coach=关"], RULESETS[rules]) == {"coach": False}
        with pytest.raises(OptionError, match="on/off"):
            parse_option_pairs(["coach=3"], RULESETS[rules])
        with pytest.raises(OptionError):
            find_ruleset(rules, {"coach": "maybe"})


def test_a_coach_game_is_kept_and_rated_by_no_store(any_store: Store) -> None:
    ann = any_store.account_for_key("SHA256:ann", "ann")
    bob = any_store.account_for_key("SHA256:bob", "bob")
    rows = [(ann.id, 0, 30, 2, 4), (bob.id, 1, -30, 1, 4)]
    any_store.finish_game("t", 1, "gejiu", rows, seed=7, rated=False)
    assert any_store.flush(30)
    assert any_store.ratings("gejiu", ["ann", "bob"]) == {}
    any_store.finish_game("u", 1, "gejiu", rows, seed=8)  # the same game at a rated table
    assert any_store.flush(30)
    assert set(any_store.ratings("gejiu", ["ann", "bob"])) == {"ann", "bob"}


class _Recorder:
    """A store that records what a game's end asks of it."""

    def __init__(self) -> None:
        self.rated: list[bool] = []

    def finish_hand(self, *args: Any) -> None:
        pass

    def finish_game(self, *args: Any, rated: bool = True, **kwargs: Any) -> None:
        self.rated.append(rated)

    def finish_stakes(self, *args: Any) -> None:
        pass

    def keep_game(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("coach", [True, False])
def test_a_coach_tables_game_end_asks_for_no_rating(coach: bool) -> None:
    game = Game("gejiu", 3, {"hands_per_game": 1, "coach": coach})
    game.new_hand()
    player = BasicPlayer()
    hand = game.hand
    assert hand is not None
    while not hand.is_over:
        seat = hand.to_act()[0]
        game.apply(seat, player.choose(build_view(hand, seat)))
    assert game.is_over
    store = _Recorder()
    seats = [Seat(Occupant(1, "ann")), Seat(), Seat(), Seat()]
    end = GameEnd(store, "t", 1, "gejiu", 3, game, seats)  # type: ignore[arg-type]
    assert end.hand_over(("normal",) * 4, StakeBook(None)) is not None
    assert store.rated == [not coach]


# --- the key at the table -----------------------------------------------------------------
async def _press_coach(app: MahjongApp, pilot: Any) -> str:
    """Press the coach's key; the answer shown over the table once it comes."""
    screen = app.table_screen
    assert screen is not None
    await pilot.press("e")
    await until(lambda: bool(screen.coach_said) or screen.ui.message not in (
        "", tr("en", "coach_asking")), timeout=120, what="the coach's answer")
    return screen.coach_said


async def test_the_coach_key_shows_the_experts_view_at_a_discard_and_a_claim(
        pool: ViewsPool) -> None:
    client = CoachClient()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load(Path(tmp) / "s.json")
        settings.tiles = "ascii"  # the tiles named in notation
        app = MahjongApp(client, settings, table_ready=True)
        app.coach = Coach(pool, limit=120)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            view = client.to_decision(Phase.TURN)
            await pilot.pause()
            screen = app.table_screen
            assert screen is not None
            assert "e: coach" in table_text(app)  # the key hint, at a coach table only
            said = await _press_coach(app, pilot)
            assert said.startswith("Coach: discard "), said
            assert "Points expected this hand" in said and "▶" in said
            assert named_tiles(said) <= own_tiles(view), said
            assert pool.views[-1] == view  # the seat's own view, and nothing else
            # the panel leaves the hand's rows clear: the bottom rows are the table's own
            panel = screen.coach_panel
            assert panel.region.bottom <= 24 - 8

            view = client.to_decision(Phase.CLAIM)
            await pilot.pause()
            assert not screen.coach_said  # the discard's answer went with its decision
            said = await _press_coach(app, pilot)
            assert said.startswith("Coach: "), said
            assert named_tiles(said) <= own_tiles(view), said
            assert pool.views[-1] == view and view.viewer == 0
            pool.views.clear()
            await pilot.press("e")  # again: the panel is taken off, nothing asked
            await pilot.pause()
            assert not screen.coach_said and not pool.views


async def test_a_second_press_while_thinking_does_not_ask_again(pool: ViewsPool) -> None:
    client = CoachClient()
    with tempfile.TemporaryDirectory() as tmp:
        app = MahjongApp(client, Settings.load(Path(tmp) / "s.json"),
                         table_ready=True)
        app.coach = Coach(pool, limit=120)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            client.to_decision(Phase.TURN)
            await pilot.pause()
            screen = app.table_screen
            assert screen is not None
            await pilot.press("e")
            await pilot.pause()
            await pilot.press("e")
            await pilot.pause()
            assert screen.ui.message == tr("en", "coach_thinking")
            await until(lambda: bool(screen.coach_said), timeout=120, what="the answer")
            assert len(pool.views) == 1


@pytest.mark.parametrize(("coach", "seat", "why"), [(False, 0, "coach_off"),
                                                    (True, None, "coach_spectator")])
async def test_the_coach_key_refuses_without_a_coach_and_to_a_spectator(
        pool: ViewsPool, coach: bool, seat: int | None, why: str) -> None:
    client = CoachClient(coach=coach, seat=seat)
    with tempfile.TemporaryDirectory() as tmp:
        app = MahjongApp(client, Settings.load(Path(tmp) / "s.json"),
                         table_ready=True)
        app.coach = Coach(pool, limit=120)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            client.to_decision(Phase.TURN)
            await pilot.pause()
            screen = app.table_screen
            assert screen is not None
            await pilot.press("e")
            await pilot.pause()
            assert screen.ui.message == tr("en", why)
            assert not screen.coach_said and not pool.views
            assert "e: coach" not in table_text(app)


async def test_the_coach_is_dropped_when_its_decision_has_gone(pool: ViewsPool) -> None:
    client = CoachClient()
    with tempfile.TemporaryDirectory() as tmp:
        app = MahjongApp(client, Settings.load(Path(tmp) / "s.json"),
                         table_ready=True)
        app.coach = Coach(pool, limit=120)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            client.to_decision(Phase.TURN)
            await pilot.pause()
            screen = app.table_screen
            assert screen is not None
            await pilot.press("e")
            await pilot.pause()
            client.to_decision(Phase.TURN, skip=1)  # the player's next turn, meanwhile
            await pilot.pause()
            await until(lambda: pool.stats.coached + pool.stats.coach_late >= 1, timeout=120,
                        what="the answer")
            for _ in range(5):
                await pilot.pause()
            assert not screen.coach_said


# --- plain mode -------------------------------------------------------------------------------
class Lines:
    """A plain output that keeps what is said."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def say(self, lines: Sequence[str], prompt: str) -> None:
        self.lines += lines

    def close(self) -> None:
        pass


async def _plain(client: CoachClient, coach: Coach, lang: str = "en"
                 ) -> tuple[PlainTable, Lines]:
    out = Lines()
    plain = PlainTable(client, lang, out, coach=coach)
    plain.start()
    return plain, out


async def test_plain_modes_coach_says_the_experts_view_in_sentences(pool: ViewsPool) -> None:
    client = CoachClient()
    plain, out = await _plain(client, Coach(pool, limit=120))
    view = client.to_decision(Phase.TURN)
    await asyncio.sleep(0.1)
    out.lines.clear()
    plain.handle("coach")
    await until(lambda: any(line.startswith("Coach: ") for line in out.lines), timeout=120,
                what="the coach's sentences")
    await until(lambda: plain.written, what="the lines written")
    said = "\n".join(out.lines)
    assert tr("en", "coach_asking") in said
    assert "(expert)" in said and "▶" not in said
    assert named_tiles(said.replace(tr("en", "coach_asking"), "")) <= own_tiles(view)
    plain.close()

    zh_client = CoachClient()
    plain, out = await _plain(zh_client, Coach(pool, limit=120), "zh")
    zh_client.to_decision(Phase.CLAIM)
    await asyncio.sleep(0.1)
    plain.handle("教练")
    await until(lambda: any(line.startswith("教练：") for line in out.lines), timeout=120,
                what="the coach's sentences in Chinese")
    plain.close()


@pytest.mark.parametrize(("coach", "seat", "why"), [(False, 0, "coach_off"),
                                                    (True, None, "coach_spectator")])
async def test_plain_modes_coach_refuses_without_a_coach_and_to_a_spectator(
        pool: ViewsPool, coach: bool, seat: int | None, why: str) -> None:
    client = CoachClient(coach=coach, seat=seat)
    plain, out = await _plain(client, Coach(pool, limit=120))
    client.to_decision(Phase.TURN)
    await asyncio.sleep(0.1)
    plain.handle("coach")
    assert tr("en", why) in out.lines
    assert not pool.views
    plain.close()


async def test_the_coach_reads_only_the_seats_own_view(pool: ViewsPool) -> None:
    """What the coach is given is the view the seat's screen has: of the other seats only how
    many tiles they hold (the expert samples them), and a spectator's view is refused."""
    client = CoachClient()
    view = client.to_decision(Phase.TURN)
    for seat in view.to_json()["seats"]:
        assert set(seat) & {"hand", "tiles", "concealed_tiles"} == set()
    advice = await Coach(pool).advise(build_view(client.game.hand, None), None)  # type: ignore[arg-type]
    assert advice.assessment is None and advice.why == "coach_spectator"
    assert not pool.views


# --- over SSH -------------------------------------------------------------------------------
def _raw(client: PtyClient) -> str:
    return bytes(client.raw).decode("utf-8", "replace")


async def test_coach_over_ssh_in_plain_mode_for_the_seated_and_not_the_watcher(
        server: MahjongServer) -> None:
    """The session's coach is the server's thinking pool (net.front.commands_run
    .session_coach): asked at a coach table's decision, answered in sentences; refused to a
    watcher there and to a player at a table without it."""
    player = PtyClient(100, 40)
    await player.connect(server.port, "ann", new_key(), command=(
        "join cc --option coach=on --option turn_seconds=0 --option claim_seconds=0 --plain"))
    await player.wait_for("Type start")
    player.send("start\r")
    t = server.registry.tables["cc"]
    await until(lambda: t.game is not None, 10.0, "the start")

    def deciding() -> bool:
        update = t.update_for(0)
        return update is not None and refusal(update.view) is None

    await until(deciding, 20.0, "a decision of the player's")
    await asyncio.sleep(0.3)  # its question said
    player.send("coach\r")
    await until(lambda: "Coach: " in _raw(player), 120.0, "the coach's answer")
    assert tr("en", "coach_asking") in _raw(player)

    watcher = PtyClient(100, 40)
    await watcher.connect(server.port, "bob", new_key(), command="watch cc --plain")
    await watcher.wait_for("You watch")
    watcher.send("coach\r")
    await until(lambda: tr("en", "coach_spectator") in _raw(watcher), 10.0, "the refusal")
    await watcher.close()
    await player.close()

    other = PtyClient(100, 40)
    await other.connect(server.port, "cy", new_key(), command="join nc --plain")
    await other.wait_for("Type start")
    other.send("start\r")
    nc = server.registry.tables["nc"]
    await until(lambda: nc.game is not None, 10.0, "the start")
    other.send("coach\r")
    await until(lambda: tr("en", "coach_off") in _raw(other), 10.0, "the refusal")
    await other.close()


# --- never rated, and said so -------------------------------------------------------------
def _info(coach: bool) -> TableInfo:
    seats = tuple(SeatInfo(n, True, False) if n else SeatInfo("", False, False)
                  for n in ("ann", "", "", ""))
    options = (("coach", True),) if coach else ()
    return TableInfo("practice", "gejiu", options, seats, 0,  # type: ignore[arg-type]
                     TableState.WAITING, 0, 8)


def _game_over(coach: bool) -> TableUpdate:
    client = CoachClient(coach=coach)
    return TableUpdate(view=client.own_view(), game_over=True, totals=(5, -5, 0, 0))


@pytest.mark.parametrize("coach", [True, False])
async def test_a_coach_table_is_said_unrated_in_the_lobby_its_info_and_its_result(
        coach: bool) -> None:
    info = _info(coach)
    registry = SimpleNamespace(listing=lambda: [info], quarantined={}, storage_problem=None,
                               exists=lambda name: False)
    app = LobbyApp(SimpleNamespace(registry=registry), Account(1, "ann"))
    async with app.run_test(size=(100, 30)):
        lobby = app.tables_text().plain
    plain_lobby = {lang: table_line(1, info, lang) for lang in ("en", "zh")}
    options = "\n".join(option_lines(info))
    update = _game_over(coach)
    result = {lang: "\n".join(game_result_lines(update, lang)) for lang in ("en", "zh")}
    plain_result = {lang: "\n".join(Sentences(lang).game_lines(update)) for lang in ("en", "zh")}
    assert (both("coach_unrated") in lobby) is coach
    assert ("coach=on" in options and "unrated" in options) is coach
    for lang in ("en", "zh"):
        mark = tr(lang, "coach_unrated")
        assert (mark in plain_lobby[lang]) is coach
        assert (mark in result[lang]) is coach
        assert (mark in plain_result[lang]) is coach
