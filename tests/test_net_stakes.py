"""Yichun 压鸽子 at a shared table (yichun.md §7.7, A-Y8): spectators back a seated player who
allows it, the stakes are fixed before each hand's break roll, settled by the engine, kept
across a restart and counted on the leaderboard; table options and computer levels."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.screen import Screen
from textual.widgets import Input, Select, Static

from engine.bots.basic import BasicPlayer
from engine.bots.hard import HardPlayer
from engine.bots.normal import NormalPlayer
from engine.rulesets import OptionError
from engine.situation import Spectator
from engine.table import Phase
from engine.view import build_view
from host.table_info import TableState
from net.commands import Command, CommandError, parse_command
from net.front.lobby import CreateTableScreen, LobbyApp
from net.runtime.config import parse_levels
from net.runtime.registry import Registry, TableExists
from net.runtime.shared_table import SharedTable, TableConfig
from net.store import Account, SqliteStore, Store
from tests.support.tui import screen_lines
from tests.support.waiting import until

ANN, WES, VAL = Account(1, "ann", "SHA256:a"), Account(2, "wes", "SHA256:w"), Account(3, "E")


def play_out(t: SharedTable) -> None:
    """Computer players act for every seat until the hand is over (no await: the table's
    own loop does not run meanwhile)."""
    game = t.game
    assert game is not None and game.hand is not None
    hand = game.hand
    for _ in range(2000):
        if hand.is_over:
            return
        seat = hand.to_act()[0]
        assert t.apply(seat, t.player(seat)[0].choose(build_view(hand, seat))) is None
    raise AssertionError("the hand did not end")


def new_table(store: Store | None, **options: object) -> tuple[Registry, SharedTable]:
    reg = Registry(TableConfig(bot_delay=0, bot_level="easy"), store)
    return reg, reg.get_or_create("y1", "yichun", {"hands_per_game": 2, **options})


async def test_a_stake_applies_from_the_next_hand_and_mirrors_its_player(
        tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db.sqlite3")
    for a in (ANN, WES, VAL):
        store.db.execute("INSERT INTO accounts (id, nickname, created, last_seen) "
                         "VALUES (?, ?, 0, 0)", (a.id, a.nickname))
    reg, t = new_table(store)
    t.join(ANN)
    t.start(seed=11)
    wes = t.join(WES, spectate=True)
    val = t.join(VAL, spectate=True)
    assert wes.stake(0) is None and val.stake(2) is None  # mid-hand: from the next hand
    assert t.game is not None and t.game.hand is not None
    assert t.game.hand.spectators == ()
    assert t.info().stakes == (("wes", 0), ("E*", 2)) and t.info().hand_stakes == ()
    play_out(t)
    t.deal_next()  # as the table loop deals the next hand
    hand = t.game.hand
    assert hand is not None and hand.hand_no == 2
    assert hand.spectators == (Spectator("wes", 0), Spectator("E*", 2))
    assert t.info().hand_stakes == (("wes", 0), ("E*", 2))
    assert wes.stake(1) is None  # a change now waits for a hand that never comes
    play_out(t)
    s = hand.settlement
    assert s is not None
    mirror = sum(tr.amount for tr in s.transfers if tr.payee == "wes") - sum(
        tr.amount for tr in s.transfers if tr.payer == "wes")
    assert s.spectators.get("wes", 0) == mirror
    primary = [tr for tr in s.transfers if isinstance(tr.payer, int) and isinstance(tr.payee, int)]
    seat0 = sum(tr.amount for tr in primary if tr.payee == 0) - sum(
        tr.amount for tr in primary if tr.payer == 0)
    wes = s.spectators.get("wes", 0)
    assert wes == seat0  # the spectator wins/loses exactly E's primary result
    assert sum(s.seats) + sum(s.spectators.values()) == 0 and wes != 0  # (seed: E's hand scores)
    assert t.game.is_over
    assert t.game.spectator_scores["wes"] == s.spectators.get("wes", 0)
    board = {r.nickname: r for r in store.leaderboard()}
    assert board["wes"].score == s.spectators.get("wes", 0) and board["wes"].hands == 1
    assert board["E"].score == s.spectators.get("E*", 0)
    assert board["ann"].score == t.game.scores[0] and board["ann"].hands == 2
    reg.close()
    store.close()


async def test_stakes_need_two_allowing_seats_and_bad_choices_are_refused() -> None:
    reg, t = new_table(None)
    ann = t.join(ANN)
    assert ann.stake(1) is not None  # a seated player does not stake
    for seat in (1, 2, 3):
        t.set_allow(seat, False)
    wes = t.join(WES, spectate=True)
    assert "does not allow" in str(wes.stake(1) or "")
    assert wes.stake(0) is None
    assert not t.info().stakes_enabled  # one seat allows: stakes are off
    t.start(seed=5)
    assert t.game is not None and t.game.hand is not None
    assert t.game.hand.spectators == () and t.stakes.fixed[1].stakes == ()
    others = [t.join(Account(10 + i, f"s{i}"), spectate=True) for i in range(4)]
    t.set_allow(1, True)
    assert t.info().stakes_enabled
    assert [c.stake(1) for c in others[:3]] == [None] * 3
    assert "at most 4" in str(others[3].stake(1) or "")
    assert others[0].stake(None) is None and others[3].stake(1) is None
    assert ann.set_allow(False) is None and t.seats[0].allow_spectators is False
    t.set_allow(2, True)  # S and W allow: stakes stay on
    play_out(t)
    t.deal_next()  # as the table loop deals the next hand
    assert t.game.hand is not None
    # E withdrew its permission: the stake on E is not applied; three stakes on S are
    assert {sp.backs for sp in t.game.hand.spectators} == {1}
    assert len(t.game.hand.spectators) == 3
    # a spectator who sits down loses the stake
    t.stand(ann)
    t.join(WES)
    assert 2 not in t.stakes.placed
    reg.close()
    reg2 = Registry(TableConfig())
    g = reg2.get_or_create("g", "gejiu")
    assert "no spectator stakes" in str(g.join(WES, spectate=True).stake(0) or "")
    off = reg2.get_or_create("o", "yichun", {"spectator_stakes": False})
    assert "no spectator stakes" in str(off.join(WES, spectate=True).stake(0) or "")


async def test_stakes_and_levels_survive_a_restart(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db.sqlite3")
    reg = Registry(TableConfig(bot_delay=0), store)
    t = reg.get_or_create("r1", "yichun", {"hands_per_game": 3, "base_point": 2},
                          bots=("easy", "easy", "easy", "easy"))
    t.join(ANN)
    t.set_allow(3, False)
    t.start(seed=21)
    wes = t.join(WES, spectate=True)
    assert wes.stake(1) is None
    play_out(t)
    t.deal_next()  # as the table loop deals the next hand
    for _ in range(12):  # into hand 2, with the stake applied
        hand = t.game.hand  # type: ignore[union-attr]
        seat = hand.to_act()[0]
        t.apply(seat, t.player(seat)[0].choose(build_view(hand, seat)))
    game = t.game
    assert game is not None and game.hand is not None
    reg.close()
    reg2 = Registry(TableConfig(bot_delay=0), store)
    assert reg2.load() == 1
    t2 = reg2.tables["r1"]
    assert t2.game is not None and t2.game.hand is not None
    assert t2.game.hand.actions == game.hand.actions
    assert t2.game.hand.spectators == (Spectator("wes", 1),)
    assert t2.game.hand.allow_spectators == (0, 1, 2)
    assert t2.stakes.placed == t.stakes.placed and t2.stakes.fixed == t.stakes.fixed
    assert t2.game.spectator_scores.get("wes", 0) == game.spectator_scores.get("wes", 0)
    assert [s.allow_spectators for s in t2.seats] == [True, True, True, False]
    assert t2.bot_levels == ("easy",) * 4 and t2.ruleset.options["base_point"] == 2
    store.close()


async def test_options_and_levels_when_a_table_is_created() -> None:
    reg = Registry(TableConfig())
    with pytest.raises(OptionError, match="max_lighters"):
        reg.get_or_create("x", "yichun", {"max_lighters": 9})
    with pytest.raises(OptionError, match="no option"):
        reg.get_or_create("x", "gejiu", {"discard_wins": True})
    assert "x" not in reg.tables
    t = reg.get_or_create("x", "shangrao", {"discard_wins": True, "turn_seconds": 0},
                          bots=parse_levels("easy,normal,hard,easy"))
    assert t.ruleset.options["discard_wins"] is True
    assert t.runner.timer_for(t.ruleset, Phase.TURN) == 0
    assert t.runner.timer_for(t.ruleset, Phase.CLAIM) == 8  # the default claim window
    kinds = [type(t.player(i)[0]) for i in range(4)]
    assert kinds == [BasicPlayer, NormalPlayer, HardPlayer, BasicPlayer]
    assert reg.get_or_create("x") is t and reg.get_or_create("x", "shangrao") is t
    with pytest.raises(TableExists, match="rules shangrao"):
        reg.get_or_create("x", "gejiu")
    with pytest.raises(TableExists, match="options"):
        reg.get_or_create("x", options={"discard_wins": False})
    assert reg.get_or_create("x", options={"discard_wins": True}) is t
    with pytest.raises(ValueError, match="computer level"):
        parse_levels("genius")
    assert parse_levels("HARD") == ("hard",) * 4
    await asyncio.sleep(0)


# --- creating a table from the lobby --------------------------------------------------------
def lobby_app() -> LobbyApp:
    server = SimpleNamespace(registry=Registry(TableConfig()))
    return LobbyApp(server, Account(1, "ann"))  # type: ignore[arg-type]


def message(screen: Screen[Any], selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_lobby_form_creates_a_table_with_options_and_levels() -> None:
    app = lobby_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("ctrl+n")
        form = app.screen
        assert isinstance(form, CreateTableScreen)
        assert form.query("#opt-max_lighters") and not form.query("#opt-discard_wins")
        form.query_one("#create-name", Input).value = "fri"
        form.query_one("#create-rules", Select).value = "shangrao"
        await pilot.pause()
        await pilot.pause()
        assert form.query("#opt-discard_wins") and not form.query("#opt-max_lighters")
        form.query_one("#opt-discard_wins", Input).focus()  # its meaning, in both languages
        await pilot.pause()
        about = message(form, "#create-about")
        assert "discarder pays for all three" in about and "放炮者包三家" in about
        form.query_one("#opt-hands_per_game", Input).value = "0"
        await pilot.press("ctrl+s")
        assert "at least 1" in message(form, "#create-msg")  # the ruleset's own message
        assert app.screen is form
        form.query_one("#opt-hands_per_game", Input).value = "4"
        form.query_one("#opt-discard_wins", Input).value = "maybe"
        await pilot.press("ctrl+s")
        assert "on/off" in message(form, "#create-msg")
        form.query_one("#opt-discard_wins", Input).value = "on"
        form.query_one("#bot-2", Select).value = "hard"
        await pilot.press("ctrl+s")
        await pilot.pause()
    assert app.return_value == Command(
        "join", "fri", "shangrao", (("discard_wins", True), ("hands_per_game", 4)),
        ("normal", "normal", "hard", "normal"))


async def test_lobby_lists_more_tables_than_fit_and_scrolls_to_them() -> None:
    """Twenty tables at 80×24: the list scrolls (PageDown / PageUp, the typing line keeping the
    focus), and the title, the help and the typing line stay in view."""
    app = lobby_app()
    for i in range(20):
        app.server.registry.get_or_create(f"t{i:02d}", "gejiu")

    def shown() -> str:  # the screen's text, as the terminal shows it
        return "\n".join(screen_lines(app))

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = shown()
        assert "t00" in text and "t19" not in text
        assert "welcome ann" in text and "PageDown" in text
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown", "pagedown")
        await pilot.pause()
        text = shown()
        assert "t19" in text and "t00" not in text
        assert "welcome ann" in text and "PageDown" in text
        await pilot.press(*"t19")  # still typing into the line
        assert app.query_one("#entry", Input).value == "t19"
        await pilot.press("pageup", "pageup", "pageup", "pageup", "pageup")
        await pilot.pause()
        assert "t00" in shown()
        await pilot.resize_terminal(40, 12)  # short: the help makes room for the tables
        await pilot.pause()
        text = shown()
        assert "PageDown" not in text and "t00" in text and "t01" in text
        await pilot.press("ctrl+n")  # tall again while the form is on top
        await pilot.resize_terminal(80, 24)
        await pilot.press("escape")
        await pilot.pause()
        assert "PageDown" in shown()


async def test_lobby_lists_the_tables_to_sit_at_first() -> None:
    """Waiting tables first, then those playing, finished games last; each group oldest
    first."""
    app = lobby_app()
    registry = app.server.registry
    states = {"over": TableState.OVER, "play": TableState.PLAYING, "wait1": TableState.WAITING,
              "between": TableState.BETWEEN, "wait2": TableState.WAITING}
    for name, state in states.items():
        info = dataclasses.replace(registry.get_or_create(name, "gejiu").info(), state=state)
        registry.tables[name] = SimpleNamespace(info=lambda info=info: info)  # type: ignore
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        text = "\n".join(screen_lines(app))
    order = [text.index(f"  {name} ") for name in ("wait1", "wait2", "play", "between", "over")]
    assert order == sorted(order)
    wait1 = next(ln for ln in text.splitlines() if "  wait1 " in ln)
    assert "8 hands, 4 free" in wait1 and "hand 0/" not in wait1  # before its first hand
    assert "hand 0/8" in next(ln for ln in text.splitlines() if "  play " in ln)


async def test_lobby_form_fits_a_narrow_terminal() -> None:
    """At 40 columns the form is as wide as the terminal and each field keeps room to type."""
    app = lobby_app()
    async with app.run_test(size=(40, 15)) as pilot:
        await pilot.press("ctrl+n")
        form = app.screen
        assert isinstance(form, CreateTableScreen)
        await pilot.pause()
        name = form.query_one("#create-name", Input)
        assert name.region.right <= 40 and name.region.width >= 15
        await pilot.press(*"tiny", "ctrl+s")
        await pilot.pause()
    assert isinstance(app.return_value, Command) and app.return_value.table == "tiny"


async def test_lobby_line_takes_a_ruleset_options_and_levels() -> None:
    app = lobby_app()
    async with app.run_test(size=(100, 40)) as pilot:
        entry = app.query_one("#entry", Input)
        entry.value = "sat gejiu first_roller=9"
        await pilot.press("enter")
        assert "at most 3" in message(app.screen, "#msg")
        entry.value = "sat gejiu first_roller=2 hands_per_game=3 bots=easy"
        await pilot.press("enter")
        await pilot.pause()
        assert app.return_value is None  # a new name: asked again before a table is made
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_value == Command(
        "join", "sat", "gejiu", (("first_roller", 2), ("hands_per_game", 3)), ("easy",) * 4)


def test_join_commands_carry_options_and_levels() -> None:
    c = parse_command("join f --rules yichun --option max_lighters=null -o base_point=5 "
                      "--option=spectator_stakes=off --bots=easy,normal,hard,hard")
    assert c == Command("join", "f", "yichun", (("base_point", 5), ("max_lighters", None),
                                                ("spectator_stakes", False)),
                        ("easy", "normal", "hard", "hard"))
    for bad, why in (("join f --option base_point=0", "at least 1"),
                     ("join f --rules shangrao --option max_lighters=1", "no option"),
                     ("join f --bots easy,hard", "computer level"),
                     ("join f --colour red", "unknown argument"),
                     ("join f --option", "needs a value")):
        with pytest.raises(CommandError, match=why) as info:
            parse_command(bad)
        assert info.value.shown


async def test_a_hard_computer_player_thinks_off_the_event_loop() -> None:
    """``hard`` decisions run in a thread (the loop serves every session meanwhile); the table
    still plays its hand to the end, each answer applied on the loop."""
    import threading

    reg = Registry(TableConfig(bot_delay=0, bot_level="hard", grace_seconds=0))
    t = reg.get_or_create("h1", "gejiu", {"hands_per_game": 1})
    ann = t.join(ANN)
    t.join(WES, spectate=True)  # somebody watches: the table runs
    assert t.start(seed=3) is None
    threads: set[int] = set()
    for seat in range(4):
        player = t.player(seat)[0]
        choose = player.choose

        def traced(view: Any, choose: Any = choose) -> Any:
            threads.add(threading.get_ident())
            return choose(view)

        player.choose = traced  # type: ignore[method-assign]
    ann.close()  # the human leaves: after the grace period (0 s) a computer plays the seat
    game = t.game
    assert game is not None and game.hand is not None
    await until(lambda: game.hand.is_over, 20.0, "the computer to finish the hand")
    assert game.hand.is_over and game.hand.settlement is not None
    assert threads and threading.get_ident() not in threads
    reg.close()


async def test_each_action_sends_each_seat_one_update_with_its_timer() -> None:
    """The next player's timer is in the update the action sends, not in a second update a
    moment later (a fifth more frames for nothing)."""
    import collections

    from engine.expiry import expiry_action
    from host.clock import ManualClock

    async def settle() -> None:  # the table's loop runs what each action left it (no timer
        for _ in range(10):  # runs out: the clock stands still)
            await asyncio.sleep(0)

    reg = Registry(TableConfig(bot_delay=0, clock=ManualClock()))
    t = reg.get_or_create("u1", "yichun", {"hands_per_game": 10})
    clients = [t.join(a) for a in (ANN, WES, VAL, Account(4, "kai", "SHA256:k"))]
    got: collections.Counter[int] = collections.Counter()
    timers: list[bool] = []
    for i, c in enumerate(clients):
        def seen(u: Any, i: int = i) -> None:
            got[i] += 1
            if u.view.my_move:
                timers.append(u.deadline is not None)
        c.subscribe(seen)
    if t.game is None:
        assert t.start(seed=1) is None
    await settle()
    got.clear()
    timers.clear()
    assert t.game is not None and t.game.hand is not None
    hand = t.game.hand
    actions = 0
    while actions < 40 and not hand.is_over:
        seat = hand.to_act()[0]
        client = next(c for c in clients if c.seat_index == seat)
        assert client.send(expiry_action(build_view(hand, seat))) is None
        actions += 1
        await settle()
    assert actions >= 20
    # at most one each (a seat whose view an action leaves as it was gets none)
    assert all(actions - 3 <= got[i] <= actions for i in range(4)), (dict(got), actions)
    assert timers and all(timers)  # whoever is to move has a running timer in that update
    reg.close()
