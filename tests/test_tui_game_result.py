"""The game-result screen names the leader, or says the top is level."""

from __future__ import annotations

from engine.game import Game
from engine.view import build_view
from tui.client import TableUpdate
from tui.result_text import game_result_lines


def _lines(totals: tuple[int, int, int, int]) -> str:
    hand = Game("gejiu", 1).new_hand()
    update = TableUpdate(view=build_view(hand, 0), totals=totals, game_over=True)
    return "\n".join(game_result_lines(update, "en"))


def test_single_winner() -> None:
    text = _lines((5, -3, -1, -1))
    assert "Winner:" in text and "Level" not in text


def test_level_at_the_top() -> None:
    text = _lines((0, 0, 0, 0))
    assert "Level at the top:" in text and "Winner:" not in text
    assert _lines((4, 4, -4, -4)).count(",") >= 1
