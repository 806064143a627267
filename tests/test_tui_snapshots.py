"""Snapshots of the table (pytest-textual-snapshot) at 80×24 and 120×40, a fixed seed, for each
ruleset and each tile face; plus the hand result and help screens. Update with
``pytest tests/test_tui_snapshots.py --snapshot-update`` after a deliberate change."""

from __future__ import annotations

from pathlib import Path

import pytest

from host.local import LocalTable
from tui.apps.app import MahjongApp
from tui.settings import Settings


def make_app(rules: str, face: str, tmp_path: Path, lang: str = "en") -> MahjongApp:
    settings = Settings.load(tmp_path / "settings.json")
    settings.tiles = face
    settings.lang = lang
    table = LocalTable(bot_delay=0, timers=False)
    return MahjongApp(table, settings, rules=rules, seed=11)


async def until_my_turn(pilot) -> None:  # type: ignore[no-untyped-def]
    app = pilot.app
    for _ in range(200):
        await pilot.pause()
        u = app.update
        if u is not None and u.view.my_move and u.view.phase.value == "turn":
            break
    else:
        raise AssertionError("the table never reached our turn")
    await pilot.pause()


async def through_buy_to_turn(pilot) -> None:  # type: ignore[no-untyped-def]
    app = pilot.app
    for _ in range(200):
        await pilot.pause()
        u = app.update
        if u is not None and u.view.my_move:
            if u.view.phase.value == "turn":
                break
            await pilot.press("x" if u.view.phase.value != "buy" else "enter")
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("face", ["cjk", "glyph", "ascii"])
@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_table_snapshot(snap_compare, rules: str, face: str, size: tuple[int, int],  # type: ignore[no-untyped-def]
                        tmp_path: Path) -> None:
    app = make_app(rules, face, tmp_path, lang="zh" if face == "glyph" else "en")
    assert snap_compare(app, terminal_size=size, run_before=through_buy_to_turn)


def test_too_small_snapshot(snap_compare, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app("gejiu", "cjk", tmp_path)
    assert snap_compare(app, terminal_size=(70, 20), run_before=until_my_turn)


def test_replay_viewer_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """The replay viewer at 80×24: a Yichun game's first hand at move 30, seen from South."""
    from engine.bots import BasicPlayer
    from engine.game import Game
    from engine.record import dumps, hand_lines
    from engine.replay import read_game
    from engine.simulate import play_hand
    from tui.apps.replay import ReplayApp, ReplayGame

    game = Game("yichun", 11, {"hands_per_game": 1})
    hand = game.new_hand()
    play_hand(hand, [BasicPlayer() for _ in range(4)])
    settings = Settings()
    settings.tiles = "cjk"
    app = ReplayApp(ReplayGame(read_game(dumps(hand_lines(hand))), ("ann", "", "bob", ""),
                               "abcd-2345"), settings)

    async def to_move_30(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.press("3", "0", "enter", "tab")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=to_move_30)
