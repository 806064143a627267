"""A key the table screen can act on is handled as its bytes arrive (``MahjongApp.key_now``),
not after four turns of the event loop; anything else still goes through Textual's dispatch.
The updates it causes are drawn, each app in its own context, as the key's action returns."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.message import Message

from bench.bench_tui import ScriptedClient
from engine.actions import Action
from engine.table import Phase
from engine.view import build_view
from host.client import TableUpdate
from host.refusal import Refusal
from tests.support.tui import running
from tests.support.waiting import until
from tui.apps.app import MahjongApp
from tui.apps.screens import HelpScreen
from tui.compat import internals
from tui.settings import Settings


class Nothing(Message):
    pass


def key(name: str) -> events.Key:
    return events.Key(name, name if len(name) == 1 else None)


async def test_a_table_key_is_acted_on_at_once() -> None:
    async with running("gejiu", 9) as (_client, app, _pilot):
        screen = app.table_screen
        assert screen is not None and screen.update is not None
        before = screen.ui.cursor
        assert app.key_now(key("left"))  # no pause: done when the call returns
        assert screen.ui.cursor != before
        assert app.key_now(key("right"))
        assert screen.ui.cursor == before


async def test_other_keys_and_other_moments_are_left_to_textual() -> None:
    async with running("gejiu", 9) as (_client, app, pilot):
        screen = app.table_screen
        assert screen is not None
        assert not app.key_now(key("y"))  # bound to nothing
        assert not app.key_now(key("ctrl+q"))  # the app's own binding, not the table's
        app.post_message(Nothing())  # something waits in the app's queue: keep the order
        assert not app.key_now(key("left"))
        await pilot.pause()
        assert app.key_now(key("left"))
        app.push_screen(HelpScreen(app.update.view.rules if app.update else "gejiu"))
        await pilot.pause()
        assert not app.key_now(key("left"))  # the help screen is on top
        app.pop_screen()
        await pilot.pause()
        assert app.key_now(key("left"))
        app.set_keymap({"cursor-left": "j"})  # a remapped key follows the keymap
        await pilot.pause()
        assert not app.key_now(key("left"))
        before = screen.ui.cursor
        assert app.key_now(key("j"))
        assert screen.ui.cursor != before


class SharedClient(ScriptedClient):
    """Two apps at one table: seat 0's app plays, seat 1's watches; ``send`` applies the
    action and tells both apps at once (as the server's table does)."""

    def __init__(self, rules: str, seed: int, seat: int) -> None:
        super().__init__(rules, seed)
        self.seat = seat
        self.others: list[SharedClient] = []

    def update(self) -> TableUpdate:
        hand = self.game.hand
        assert hand is not None
        return TableUpdate(view=build_view(hand, self.seat), hands_per_game=1000,
                           totals=tuple(self.game.scores))  # type: ignore[arg-type]

    def send(self, action: Action) -> Refusal | None:
        hand = self.game.hand
        assert hand is not None
        hand.apply(self.seat, action)
        for client in [self, *self.others]:
            update = client.update()
            for cb in client.callbacks:
                cb(update)
        return None

    def new_game(self, rules: str, options: Mapping[str, Any],
                 seed: int | None) -> Refusal | None:
        return None


async def test_the_key_s_updates_are_drawn_as_it_returns_each_in_its_own_app() -> None:
    mine = SharedClient("gejiu", 5, seat=0)
    theirs = SharedClient("gejiu", 5, seat=1)
    theirs.game = mine.game
    mine.others = [theirs]
    hand = mine.game.hand
    assert hand is not None
    while hand.to_act()[0] != 0 or build_view(hand, 0).phase is not Phase.TURN:
        seat = hand.to_act()[0]
        hand.apply(seat, mine.players[seat].choose(build_view(hand, seat)))
    with tempfile.TemporaryDirectory() as tmp:
        a = MahjongApp(mine, Settings.load(Path(tmp) / "a.json"), table_ready=True)
        b = MahjongApp(theirs, Settings.load(Path(tmp) / "b.json"), table_ready=True)
        async with a.run_test(size=(80, 24)) as pa, b.run_test(size=(80, 24)) as pb:
            for _ in range(5):
                await pa.pause()
                await pb.pause()
            sa, sb = a.table_screen, b.table_screen
            assert sa is not None and sb is not None and sa.update is not None
            drawn: list[tuple[str, object]] = []
            for name, screen in (("a", sa), ("b", sb)):
                apply = screen.apply_update

                def recording(update: TableUpdate, name: str = name, apply: Any = apply
                              ) -> None:
                    drawn.append((name, internals.current_app()))
                    apply(update)

                screen.apply_update = recording  # type: ignore[method-assign]
            discards = len(sa.update.view.seats[0].pond)
            assert a.key_now(key("enter"))  # discard the selected tile
            # both drawn before key_now returned, each as its own app
            assert sorted(drawn, key=lambda d: d[0]) == [("a", a), ("b", b)]
            assert len(sa.update.view.seats[0].pond) == discards + 1
            assert sb.update is not None
            assert len(sb.update.view.seats[0].pond) == discards + 1


async def test_keys_that_open_screens_or_quit_work_at_once_too() -> None:
    async with running("yichun", 3) as (_client, app, pilot):
        assert app.key_now(key("question_mark"))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert not app.key_now(key("q"))  # the help screen's keys are Textual's to handle
        app.pop_screen()
        await pilot.pause()
        assert app.key_now(key("q")) and app.is_running  # once: "press again to quit"
        assert app.key_now(key("q"))
        await pilot.pause()
        assert internals.exiting(app)


async def test_paced_work_runs_one_item_a_loop_turn_in_its_own_context() -> None:
    import asyncio
    import contextvars

    from tui.apps.app import paced

    who: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")
    ran: list[str] = []
    for name in ("a", "b", "c"):
        token = who.set(name)
        paced(lambda: ran.append(who.get()))
        who.reset(token)
    assert ran == []
    await asyncio.sleep(0)
    assert ran == ["a"]  # one a turn: keys read in between are handled between them
    await asyncio.sleep(0)
    assert ran == ["a", "b"]
    await asyncio.sleep(0)
    assert ran == ["a", "b", "c"]


KEY_COUNT = 150
TABLE_KEYS = ("enter", "enter", "enter", "space", "left", "right", "home", "end", "x", "w",
              "p", "c", "k", "b", "n", "t", "1", "5", "0", "minus", "equals_sign",
              "left_square_bracket", "right_square_bracket", "up", "down", "pageup", "z")
OTHER_KEYS = ("escape", "question_mark", "s", "slash", "tab", "h", "g", "r", "a", "backspace",
              "f1", "ctrl+l", "ctrl+n")


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
async def test_random_keys_never_break_a_game(rules: str, tmp_path: Path) -> None:
    """A monkey at the keyboard: 150 keys a ruleset, mostly the table's own keys, now and then
    anything else (help, settings, chat, keys nothing is bound to), into a game against computer
    players, result pages included. The app stays up, every action it sent was legal, the game
    went on, and a screen opened over the table closes with Escape."""
    import random

    from host.local import LocalTable
    from tui.apps.table_screen import TableScreen

    rng = random.Random(f"11 {rules}")
    table = LocalTable(bot_delay=0, timers=False)
    settings = Settings.load(tmp_path / f"{rules}.json")
    app = MahjongApp(table, settings, table_ready=True)
    async with app.run_test(size=(80, 24)) as pilot:
        assert table.new_game(rules, {"hands_per_game": 2}, 5) is None
        sent: list[str | None] = []
        send = table.send

        def checked(action: Action, send: Callable[[Action], str | None] = send,
                    sent: list[str | None] = sent) -> str | None:
            error = send(action)
            sent.append(error)
            return error

        table.send = checked  # type: ignore[method-assign]
        for _ in range(KEY_COUNT):
            # the computer players have answered: each key meets the table as a player would
            await until(lambda: table.loop.waiting, what="the computer players")
            await pilot.pause()  # and the screen has their moves
            on_table = isinstance(app.screen, TableScreen)
            keys = TABLE_KEYS if on_table and rng.random() < 0.9 else OTHER_KEYS
            await pilot.press(rng.choice(keys))
            if not app.is_running:
                break
        assert app.is_running
        for _ in range(5):
            if isinstance(app.screen, TableScreen):
                break
            await pilot.press("escape")
        assert isinstance(app.screen, TableScreen)
        assert len(sent) >= 5 and all(error is None for error in sent)
        game = table.game
        assert game is not None and game.hand is not None
        # the game went on: four rounds of the table at least (the keys are the same each run,
        # as the computer players answer before each one)
        assert len(game.hand.actions) >= 16 or game.hand.hand_no > 1


async def test_a_screen_closes_itself_only_when_it_is_on_top() -> None:
    """``close_screen``: an Esc still queued for a page that is no longer on top pops
    nothing (Textual's ``dismiss`` would pop the screen on top, whichever it is)."""
    from textual.app import App
    from textual.screen import Screen

    from tui.apps.screens import close_screen

    app: App[None] = App()
    async with app.run_test() as pilot:
        below, top = Screen[None](), Screen[None]()
        await app.push_screen(below)
        await app.push_screen(top)
        assert not close_screen(below)
        await pilot.pause()
        assert app.screen is top and len(app.screen_stack) == 3
        assert close_screen(top)
        await pilot.pause()
        assert app.screen is below


@pytest.mark.parametrize("key_name", ["q", "escape"])
async def test_q_and_escape_leave_from_the_game_result(key_name: str) -> None:
    """The game-over page offers "q: leave": q (and Escape) leave, as its footer says."""
    from dataclasses import replace

    from tui.apps.screens import GameResultScreen

    async with running("yichun", 3) as (_client, app, pilot):
        update = app.update
        assert update is not None
        app.push_screen(GameResultScreen(replace(update, game_over=True)))
        await pilot.pause()
        assert isinstance(app.screen, GameResultScreen)
        await pilot.press(key_name)
        await pilot.pause()
        assert internals.exiting(app)
