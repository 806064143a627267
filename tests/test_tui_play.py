"""Pilot tests: whole hands of each ruleset played by keyboard alone.

The table is rigged (``testkit.scenario.rigged_hand``) and the other three seats discard every
tile they draw and pass every claim, so each hand goes: discard 發 → 上家 discards 5m and we chi
with a choice (two sets offered, the second chosen) → discard → 下家 discards 9p and we peng →
discard → 对家 discards E and we pass the peng → we draw the fourth 1s, kong it, and win on the
replacement. Every step is asserted on the view the app shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.actions import Action, ActionType
from engine.game import Game
from engine.melds import MeldType
from engine.table import Phase
from engine.tiles import parse_tile, parse_tiles
from host.client import TableUpdate
from host.local import LocalTable
from testkit.scenario import rigged_hand
from tests.support.tui import DrawDiscard, wait_for
from tui.apps.app import MahjongApp
from tui.apps.table_screen import TableScreen
from tui.settings import Settings
from tui.view.faces import Face
from tui.view.result_text import readable_why
from tui.view.ui_state import UiState

ME = "3456m 99p 111s 78s EE F"
DRAWS = "2p 3p 5m 9p 4p E 2p 1s"


def make_app(rules: str, tmp_path: Path) -> tuple[MahjongApp, LocalTable, Game]:
    """An app on a rigged hand; the test starts the hand inside ``run_test``."""
    kwargs: dict[str, object] = {}
    if rules == "shangrao":
        kwargs["wild"] = "B"
    if rules == "gejiu":
        kwargs["kong_tiles"] = "9s 2m"
        tail = ""
    else:
        tail = "9s"
    hand = rigged_hand(rules, {0: ME}, draws=DRAWS, tail=tail, dealer=0, seed=3,
                       options={"turn_seconds": 0, "claim_seconds": 0}, **kwargs)  # type: ignore[arg-type]
    game = Game(rules, 3, {"turn_seconds": 0, "claim_seconds": 0})
    table = LocalTable(bot_delay=0, timers=False, players={s: DrawDiscard() for s in (1, 2, 3)})
    settings = Settings.load(tmp_path / "settings.json")
    settings.tiles = "ascii"
    settings.lang = "en"
    app = MahjongApp(table, settings, table_ready=True)
    game.hand = hand
    return app, table, game


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
async def test_whole_hand_by_keyboard(rules: str, tmp_path: Path) -> None:
    app, table, game = make_app(rules, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TableScreen)

        # 1. our first turn: pick 發 with its index key and discard it with Enter
        view = await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.TURN, "turn")
        assert list(view.hand) == parse_tiles(ME)
        await pilot.press("right_square_bracket")  # the 14th tile: F
        assert screen.ui.cursor == 13
        await pilot.press("enter")
        view = await wait_for(pilot, app, lambda v: len(v.seats[0].pond) == 1, "discard")
        assert view.seats[0].pond[0].kind == parse_tile("F")

        # 2. 上家 (N, on our left) discards 5m: two chi sets are offered, each its own choice
        view = await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.CLAIM, "chi")
        assert view.window_tile == parse_tile("5m") and view.window_from == 3
        prompt = screen.ui.prompt
        assert prompt is not None
        chis = [c.action for c in prompt.choices if c.hotkey == "chi"]
        assert [a.tiles for a in chis if a] == [tuple(parse_tiles("34m")),
                                                tuple(parse_tiles("46m"))]
        assert prompt.choices[screen.ui.selected].hotkey == "pass"  # Pass is the default
        await pilot.press("c")  # first chi set highlighted
        await pilot.press("c")  # second chi set highlighted
        assert prompt.choices[screen.ui.selected].action == chis[1]
        await pilot.press("enter")
        view = await wait_for(pilot, app, lambda v: len(v.seats[0].melds) == 1, "chi meld")
        meld = view.seats[0].melds[0]
        assert meld.type is MeldType.CHI and meld.tiles == tuple(parse_tiles("456m"))
        assert meld.source == 3 and meld.claimed == parse_tile("5m")

        # after a chi: discard at once (3m is the first tile)
        assert view.my_move and view.phase is Phase.TURN and view.drawn is None
        await pilot.press("1")
        await pilot.press("enter")

        # 3. 下家 (S, on our right) discards 9p: peng
        view = await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.CLAIM
                              and v.window_tile == parse_tile("9p"), "peng")
        assert view.window_from == 1
        await pilot.press("p")
        view = await wait_for(pilot, app, lambda v: len(v.seats[0].melds) == 2, "peng meld")
        assert view.seats[0].melds[1].type is MeldType.PENG
        assert view.seats[0].melds[1].source == 1
        await pilot.press("1")  # 5m
        await pilot.press("enter")

        # 4. 对家 (W, across) discards E: we could peng, we pass
        view = await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.CLAIM
                              and v.window_tile == parse_tile("E"), "E claim")
        assert view.window_from == 2
        assert any(a.type is ActionType.PENG for a in view.legal)
        await pilot.press("x")
        # 5. we draw the fourth 1s: kong it (Gejiu: choose the kong tile), win on the
        #    replacement with the win key
        view = await wait_for(pilot, app, lambda v: v.my_move and v.drawn is not None
                              and any(a.type is ActionType.ANGANG for a in v.legal), "kong")
        assert len(view.seats[0].melds) == 2  # the pass took nothing
        assert view.seats[2].pond[-1].kind == parse_tile("E")
        assert view.seats[2].pond[-1].claimed_by is None
        assert view.drawn == parse_tile("1s")
        await pilot.press("k")
        if rules == "gejiu":
            assert screen.ui.prompt is not None and screen.ui.prompt.kind == "kong"
            await pilot.press("enter")  # the first kong tile: 9s
        view = await wait_for(pilot, app, lambda v: v.my_move
                              and Action.win() in v.legal, "win offered")
        assert view.seats[0].melds[-1].type is MeldType.AGANG
        await pilot.press("w")
        view = await wait_for(pilot, app, lambda v: v.phase is Phase.ENDED, "hand over")
        for _ in range(5):
            await pilot.pause()
        assert view.result is not None and view.result.winners == (0,)
        assert app.screen is screen and screen.table.page_shown
        text = screen.result_text
        win = view.result.settlement.wins[0]
        for item in win.items:
            assert item.zh in text and item.en in text and item.value in text
        assert win.pattern_zh in text
        flat = " ".join(text.split())  # long payment lines continue on the next line
        for t in view.result.settlement.transfers:
            assert " ".join(readable_why(t.reason, Face.ASCII, app.settings.lang).split()) in flat
        assert "[agang" not in text  # melds in the reasons are shown as tiles
        # the help screen names the hand's pattern
        await pilot.press("question_mark")
        await pilot.pause()
        help_text = str(app.screen.query_one("#help").render())
        assert win.pattern_zh in help_text


async def test_a_discard_draws_the_new_view_once_not_the_old_one_first(tmp_path: Path) -> None:
    """An accepted key does not repaint the old view (without its prompt) before the table's
    update arrives: one redraw per update."""
    app, table, game = make_app("yichun", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.TURN, "turn")
        shown: list[object] = []
        show = screen.table.show

        def counting(update: TableUpdate | None, ui: UiState) -> None:
            shown.append(update)
            show(update, ui)

        screen.table.show = counting  # type: ignore[method-assign]
        before = screen.update
        await pilot.press("enter")
        await wait_for(pilot, app, lambda v: len(v.seats[0].pond) == 1, "discard")
        assert before not in shown  # the old view was not painted again
        assert shown, "the new view was drawn"


async def test_settings_rows_start_on_their_chosen_button(tmp_path: Path) -> None:
    """In the settings, a row's highlight starts on the chosen button: a Chinese player's
    ← Enter on the language row (focused when the screen opens) moves to English (Textual
    started every row on its first button, so the arrow went the wrong way and Enter took 中文
    again)."""
    from textual.widgets import RadioSet

    app, table, game = make_app("gejiu", tmp_path)
    app.settings.lang = "zh"
    async with app.run_test(size=(80, 24)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        await wait_for(pilot, app, lambda v: v.my_move, "a turn")
        await pilot.press("s")
        # the settings screen, its choices highlighted (RadioSet._selected, which
        # tui.compat.internals.highlight_radio sets and guards: radio_highlight)
        for _ in range(40):
            await pilot.pause()
            if [r._selected for r in app.screen.query(RadioSet)][:2] == [1, 2]:
                break
        assert [r._selected for r in app.screen.query(RadioSet)][:2] == [1, 2]  # 中文, ascii
        await pilot.press("left", "enter")
        await pilot.pause()
        assert app.settings.lang == "en"


@pytest.mark.parametrize("bell", [False, True])
async def test_the_bell_rings_when_the_table_turns_to_you(bell: bool, tmp_path: Path) -> None:
    """With the setting on, the terminal bell rings once each time the table starts waiting
    for this player (its turn, a claim offered), not on every update; off by default."""
    app, table, game = make_app("gejiu", tmp_path)
    assert Settings().bell is False
    app.settings.bell = bell
    rings: list[bool] = []
    app.bell = lambda: rings.append(True)  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.TURN, "turn")
        assert len(rings) == (1 if bell else 0)
        await pilot.press("left", "right")  # redraws of the same turn ring nothing more
        await pilot.pause()
        assert len(rings) == (1 if bell else 0)
        await pilot.press("enter")
        await wait_for(pilot, app, lambda v: v.my_move, "the table back at this seat")
        assert len(rings) == (2 if bell else 0)
