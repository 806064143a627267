"""The auto toggles (issue 53): no calls (z), auto-win (u), auto-discard the drawn tile (o),
one key each, for the session, shown on the status line. A pass by the toggle waits a player's
thinking time, so the claim window does not close at once and tell the table; a win is taken
at once; the drawn tile goes out only when there is no win or kong to decide.

The table is rigged as in tests/test_tui_play.py (Yichun; the other seats discard what they
draw and pass): we discard 發, 上家 discards 5m (a chi for us), we draw 9p, 对家 discards E (a
pung for us), we draw the fourth 1s (a kong)."""

from __future__ import annotations

from pathlib import Path

from engine.actions import ActionType
from engine.game import Game
from engine.table import Phase
from engine.tiles import parse_tile
from host.clock import ManualClock
from host.local import LocalTable
from testkit.scenario import rigged_hand
from tests.support.tui import DrawDiscard, wait_for
from tui.apps.app import MahjongApp
from tui.apps.table_screen import AUTO_PASS_PAUSE, TableScreen
from tui.settings import Settings

ME = "3456m 99p 111s 78s EE F"
DRAWS = "2p 3p 5m 9p 4p E 2p 1s"
WINS = "123m 456m 789m 11p 23p F"  # after 發: waits on 1p or 4p


def make_app(tmp_path: Path, me: str, draws: str) -> tuple[MahjongApp, LocalTable, Game,
                                                           ManualClock]:
    options = {"turn_seconds": 0, "claim_seconds": 0}
    hand = rigged_hand("yichun", {0: me}, draws=draws, tail="9s", dealer=0, seed=3,
                       options=options)
    game = Game("yichun", 3, options)
    clock = ManualClock()
    table = LocalTable(bot_delay=0, timers=False, clock=clock,
                       players={s: DrawDiscard() for s in (1, 2, 3)})
    settings = Settings.load(tmp_path / "settings.json")
    settings.tiles = "ascii"
    settings.lang = "en"
    app = MahjongApp(table, settings, table_ready=True)
    game.hand = hand
    return app, table, game, clock


async def test_no_calls_passes_after_a_pause_and_auto_discard_stops_at_a_kong(
        tmp_path: Path) -> None:
    app, table, game, clock = make_app(tmp_path, ME, DRAWS)
    async with app.run_test(size=(100, 30)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        screen.auto_rng.seed(5)
        await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.TURN, "turn")
        await pilot.press("right_square_bracket", "enter")  # 發 out, by hand
        await pilot.press("z", "o")
        assert screen.ui.auto == ("pass", "discard")
        await pilot.pause()
        status = "".join(t for _, t, _ in screen.table.rows[0])
        assert "Auto: no calls, discard drawn" in status
        # 上家's 5m: a chi is offered; the toggle passes it, but not at once
        await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.CLAIM
                       and v.window_tile == parse_tile("5m"), "chi")
        await clock.advance(AUTO_PASS_PAUSE[0] - 0.01)  # a quick player's thinking time
        for _ in range(20):
            await pilot.pause()
        assert app.update is not None and app.update.view.my_move  # still open
        await clock.advance(AUTO_PASS_PAUSE[1] - AUTO_PASS_PAUSE[0] + 0.02)
        # the pass went; we draw 9p (nothing to decide: out at once), 对家's E is passed too
        view = await wait_for(pilot, app, lambda v: any(
            d.kind == parse_tile("9p") for d in v.seats[0].pond), "9p out")
        await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.CLAIM
                       and v.window_tile == parse_tile("E"), "E pung")
        await clock.advance(AUTO_PASS_PAUSE[1] + 0.01)
        # the fourth 1s: a kong to decide, so the drawn tile stays
        view = await wait_for(pilot, app, lambda v: v.my_move and v.drawn == parse_tile("1s"),
                              "1s")
        for _ in range(20):
            await pilot.pause()
        assert app.update is not None
        view = app.update.view
        assert view.my_move and view.drawn == parse_tile("1s")
        assert any(a.type is ActionType.ANGANG for a in view.legal)
        assert not any(p.kind == parse_tile("1s") for p in view.seats[0].pond)
        await pilot.press("o")  # off again, and said so
        assert tuple(screen.ui.auto) == ("pass",)
        assert screen.ui.message == "Auto-discard off"


async def test_auto_win_takes_the_win_offered(tmp_path: Path) -> None:
    app, table, game, _clock = make_app(tmp_path, WINS, "2s 3s 5s 4p")
    async with app.run_test(size=(100, 30)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.TURN, "turn")
        await pilot.press("right_square_bracket", "enter")
        await pilot.press("u")
        assert screen.ui.auto == ("win",)
        view = await wait_for(pilot, app, lambda v: v.phase is Phase.ENDED, "the win")
        assert view.result is not None and view.result.winners == (0,)


def test_the_toggles_keys_are_free_and_in_the_help() -> None:
    from tui.apps.table_screen import TABLE_BINDINGS
    keys = [k for b in TABLE_BINDINGS for k in b.key.split(",")]
    assert len(keys) == len(set(keys))
    bound = {b.id: b.key for b in TABLE_BINDINGS}
    assert (bound["auto-pass"], bound["auto-win"], bound["auto-discard"]) == ("z", "u", "o")
