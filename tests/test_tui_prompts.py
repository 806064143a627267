"""Pilot tests of the prompts a whole game rarely reaches: Gejiu 报听 and 塘子烂糊 (rigged
tables), the Yichun 买 / 丢打火机 prompt, and key remapping from the settings file; the one
decision model both front ends render (the table's prompt, plain mode's question)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from rich.cells import cell_len

from engine.actions import Action, ActionType
from engine.game import Game
from engine.table import Phase
from engine.tiles import parse_tile, parse_tiles
from engine.view import View, build_view
from host.client import TableUpdate
from host.local import LocalTable
from testkit.scenario import rigged_hand
from tests.support.tui import DrawDiscard, table_text, wait_for
from tui.apps.app import MahjongApp
from tui.apps.table_screen import INDEX_KEYS, TABLE_BINDINGS, TableScreen
from tui.plain.front import PlainTable
from tui.settings import Settings
from tui.view.decisions import KEYS, decision
from tui.view.faces import Face
from tui.view.layout import build_rows
from tui.view.prompts import claim_prompt
from tui.view.seat_rows import INDEX_LABELS
from tui.view.tile_pieces import hand_tiles
from tui.view.ui_state import UiState


def gejiu_app(tmp_path: Path, hands: dict[int, str], draws: str, lang: str = "en",
              keys: dict[str, str] | None = None) -> tuple[MahjongApp, LocalTable, Game]:
    options = {"turn_seconds": 0, "claim_seconds": 0}
    hand = rigged_hand("gejiu", hands, draws=draws, dealer=0, seed=5, options=options)
    game = Game("gejiu", 5, options)
    table = LocalTable(bot_delay=0, timers=False, players={s: DrawDiscard() for s in (1, 2, 3)})
    settings = Settings.load(tmp_path / "settings.json")
    settings.tiles, settings.lang = "cjk", lang
    if keys:
        settings.keys = keys
    app = MahjongApp(table, settings, table_ready=True)
    game.hand = hand
    return app, table, game


async def test_gejiu_ting_by_keyboard(tmp_path: Path) -> None:
    """b discards the picked tile and declares 报听; the table shows 听 and the waits."""
    app, table, game = gejiu_app(tmp_path, {0: "123m 456p 789s 11s 55m E"}, "N W S 2p 7p")
    async with app.run_test(size=(80, 24)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        view = await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.TURN, "turn")
        assert "b: ready 报听" in table_text(app)
        tiles = hand_tiles(view)
        await pilot.press(INDEX_KEYS[tiles.index(parse_tile("5m"))])
        await pilot.press("b")  # 5m does not leave a ready hand: refused, with the reason
        await pilot.pause()
        assert not game.hand.seats[0].ting
        assert "报听" in table_text(app)
        await pilot.press(INDEX_KEYS[tiles.index(parse_tile("E"))])
        text = table_text(app)
        assert "Discard 东 → waits: 5萬×2 1條×2" in text
        assert "not possible" not in text  # moving the cursor clears the message
        await pilot.press("b")
        view = await wait_for(pilot, app, lambda v: v.seats[0].ting, "报听")
        await pilot.pause()
        text = table_text(app)
        print(text)
        assert "You E +0 庄 dealer 听 ready" in text
        assert "You ▶东 · You 报听" in text
        assert "waits: 5萬×2 1條×2" in text


async def test_gejiu_pond_win_by_keyboard(tmp_path: Path) -> None:
    """Fourteen discards of 烂牌 open the 塘子烂糊 prompt; d declares it and the result
    screen names it."""
    order = parse_tiles("Z 147m 258p 369s ESWN")
    app, table, game = gejiu_app(tmp_path, {0: "147m 258p 369s ESWNZ"}, "", lang="zh")
    async with app.run_test(size=(80, 24)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        for kind in order:
            view = await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.TURN,
                                  "turn")
            tiles = hand_tiles(view)
            await pilot.press(INDEX_KEYS[tiles.index(kind)])
            await pilot.press("enter")
            await pilot.pause()
        view = await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.DECLARE,
                              "塘子烂糊")
        await pilot.pause()
        text = table_text(app)
        print(text)
        assert "你的14张弃牌凑成塘子烂糊，胡吗？" in text
        assert "d 胡塘子烂糊 · x 过" in text
        assert "[过]  塘子烂糊" in text.splitlines()[-2]
        assert "轮到你" in text.splitlines()[0]
        await pilot.press("d")
        view = await wait_for(pilot, app, lambda v: v.phase is Phase.ENDED, "hand over")
        for _ in range(5):
            await pilot.pause()
        assert app.table_screen is not None and app.screen is app.table_screen
        result = app.table_screen.result_text
        print(result)
        assert "塘子烂糊" in result and "烂牌 Rotten" in result


async def test_yichun_buy_prompt_explains_buy_and_lighter(tmp_path: Path) -> None:
    options = {"turn_seconds": 0, "claim_seconds": 0}
    table = LocalTable(bot_delay=0, timers=False)
    settings = Settings.load(tmp_path / "settings.json")
    settings.tiles, settings.lang = "cjk", "en"
    app = MahjongApp(table, settings, rules="yichun", seed=7, options=options)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.BUY, "buy")
        await pilot.pause()
        text = table_text(app)
        print(text)
        # East deals hand 1 and must buy (issue 53): asked only for the lighter, and why
        assert "You must buy (买): a lighter too?" in text
        assert "The dealer always buys (庄家必买)" in text
        assert "Buy 买: your wins and payments ×2" in text
        assert "Lighter +打火机: all payments ×2 again" in text
        assert " 0 tiles" not in text  # nothing is dealt while buying
        # and the empty hand says why it is empty (issue 53)
        assert "The tiles are dealt once all four have chosen to buy or not" in text
        lighter = [a for a in view.legal if a.lighter and a.type is ActionType.BUY]
        assert lighter and "Buy 买 +打火机" in text.splitlines()[-2]
        await pilot.press("n")  # no "no" for the dealer: why (was "Nothing to do now")
        screen = app.table_screen
        assert screen is not None and screen.ui.message == "The dealer always buys (庄家必买)"
        await pilot.press("m")
        await wait_for(pilot, app, lambda v: v.seats[0].bought is True, "bought")
        await wait_for(pilot, app, lambda v: bool(v.hand), "dealt")
        await pilot.pause()
        assert "The tiles are dealt" not in table_text(app)


async def test_yichun_buying_in_turn_says_whose_choice_it_is(tmp_path: Path) -> None:
    """Issue 53: m pressed before one's turn to buy said "Nothing to do now" while the hand
    said the tiles come once all four have chosen; the seats choose in turn, the dealer (the
    player, East in hand 1) last."""
    table = LocalTable(bot_delay=0, timers=False)
    settings = Settings.load(tmp_path / "settings.json")
    settings.tiles, settings.lang = "cjk", "en"
    app = MahjongApp(table, settings, rules="yichun", seed=7,
                     options={"turn_seconds": 0, "claim_seconds": 0})
    table.set_bot_delay(30.0)  # the computer players think: the buy waits on South
    async with app.run_test(size=(80, 24)) as pilot:
        view = await wait_for(pilot, app, lambda v: v.phase is Phase.BUY and not v.my_move,
                              "the others buying")
        await pilot.pause()
        screen = app.table_screen
        assert screen is not None and view.dealer == 0
        text = table_text(app)
        print(text)
        assert "Buying in turn from the dealer's right, dealer last: Right S chooses" in text
        await pilot.press("m")
        assert screen.ui.message.startswith("Not your choice yet: Right S")
        assert "(in turn, the dealer last)" in screen.ui.message
        assert "Nothing to do now" not in table_text(app)


async def test_remapped_key_works(tmp_path: Path) -> None:
    """A key remapped in settings.json (binding id -> keys) drives the table."""
    app, table, game = gejiu_app(tmp_path, {0: "123m 456p 789s 11s 55m E"}, "N W S 2p 7p",
                                 keys={"cursor-left": "left,a"})
    async with app.run_test(size=(80, 24)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.TURN, "turn")
        screen = app.screen
        assert isinstance(screen, TableScreen)
        before = screen.ui.cursor
        await pilot.press("a")
        assert screen.ui.cursor == (before - 1) % 14
        assert len(INDEX_LABELS) == 14


def test_gejiu_claim_kongs_name_their_kong_tile() -> None:
    """Gejiu offers a 明杠 on a discard once per face-up kong tile: each choice names it."""
    hand = rigged_hand("gejiu", {0: "777m 456p 789s 11s 55m E"}, kong_tiles="1p 6s")
    view = build_view(hand, 0)
    seven = parse_tile("7m")
    view = dataclasses.replace(
        view, phase=Phase.CLAIM, my_move=True, window_tile=seven, window_from=1,
        legal=(Action.pass_(), Action(ActionType.PENG, tile=seven),
               Action(ActionType.MINGGANG, tile=seven, slot=0),
               Action(ActionType.MINGGANG, tile=seven, slot=1)))
    prompt = claim_prompt(view, "en", Face.CJK)
    assert prompt is not None
    labels = ["".join(t for t, _ in c.label) for c in prompt.choices]
    assert labels == ["Pass 过", "Pung 碰", "Kong 杠 (杠牌 1筒)", "Kong 杠 (杠牌 6條)"]


def many_claims_view() -> View:
    """A claim of 5m offering three chows, a pung, two Gejiu kongs and a win."""
    hand = rigged_hand("gejiu", {0: "3467m 5m 55m 456p 789s E"}, kong_tiles="1p 6s")
    view = build_view(hand, 0)
    five = parse_tile("5m")
    legal = (Action.pass_(),
             Action(ActionType.CHI, tiles=tuple(parse_tiles("34m"))),
             Action(ActionType.CHI, tiles=tuple(parse_tiles("46m"))),
             Action(ActionType.CHI, tiles=tuple(parse_tiles("67m"))),
             Action(ActionType.PENG, tile=five),
             Action(ActionType.MINGGANG, tile=five, slot=0),
             Action(ActionType.MINGGANG, tile=five, slot=1),
             Action.win())
    return dataclasses.replace(view, phase=Phase.CLAIM, my_move=True, window_tile=five,
                               window_from=3, legal=legal)


def test_many_claim_choices_take_the_log_row() -> None:
    """Three chows, a pung and two Gejiu kongs do not fit one row at 80 columns: the choices
    go on over the log's row, each whole."""
    view = many_claims_view()
    ui = UiState(lang="en", face=Face.CJK, prompt=claim_prompt(view, "en", Face.CJK))
    rows = build_rows(TableUpdate(view=view), ui, 80, 24)
    text = ["".join(t for _, t, _ in row) for row in rows[-2:]]
    for row in rows[-2:]:
        assert row and row[-1][0] + cell_len(row[-1][1]) <= 80
    both = " ".join(text)
    assert both.count("Chi 吃") == 3 and "Pung 碰" in both and "Win 胡" in both
    assert "(杠牌 1筒)" in both and "(杠牌 6條)" in both


def test_the_decision_keys_are_the_tables_bindings() -> None:
    """The letters plain mode takes for a decision are the table's keys (its bindings by id)."""
    bound = {b.id: b.key for b in TABLE_BINDINGS}
    assert {key: bound[key] for key in KEYS} == {key: typed[0] for key, typed in KEYS.items()}
    assert KEYS["buy"][0] == "m" and KEYS["no-buy"][0] == "n"


class _Quiet:
    def say(self, lines: object, prompt: str) -> None:
        pass

    def close(self) -> None:
        pass


def test_both_front_ends_offer_one_decision_under_the_same_keys() -> None:
    """The table's prompt and plain mode's question are one decision: the same options in the
    same order, plain mode numbering them and taking the table's key of each (a key several
    options share with their rank: c1, c2)."""
    claim = many_claims_view()
    buy = dataclasses.replace(claim, phase=Phase.BUY, window_tile=None, legal=(
        Action(ActionType.BUY), Action(ActionType.BUY, lighter=True),
        Action(ActionType.NO_BUY), Action(ActionType.NO_BUY, lighter=True)))
    plain = PlainTable(LocalTable(bot_delay=0, timers=False), "en", _Quiet())
    for view, keys in (
            (claim, [("", "x"), ("1", "c1"), ("2", "c2"), ("3", "c3"), ("4", "p"), ("5", "k1"),
                     ("6", "k2"), ("7", "w")]),
            (buy, [("1", "n"), ("2",), ("3", "m"), ("4",)])):
        prompt, d = claim_prompt(view, "en", Face.CJK), decision(view)
        assert prompt is not None and d is not None
        said = plain.answers(view, d)
        assert [c.option.action for c in said] == [c.action for c in prompt.choices]
        assert [c.typed[:2] for c in said] == keys
        assert [c.option.key for c in said] == [c.hotkey for c in prompt.choices]
    d = decision(claim)
    assert d is not None
    said = plain.answers(claim, d)
    assert said[1].words == "1 chow 吃 3 4 5 characters (c1)"
    assert said[5].words == "5 kong 杠 (k1) with kong tile 1: 1 dot"
