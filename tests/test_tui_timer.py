"""The turn timer is redrawn when what it shows changes, and only then."""

from __future__ import annotations

import pytest

from engine.game import Game
from engine.view import build_view
from tui.client import TableUpdate
from tui.layout import _timer_state, next_timer_change


@pytest.mark.parametrize("seconds", [30.0, 15.0, 7.3])
def test_next_timer_change_catches_every_change(seconds: float) -> None:
    game = Game("yichun", 1, {})
    game.new_hand()
    assert game.hand is not None
    update = TableUpdate(view=build_view(game.hand, 0), deadline=100.0, timer_seconds=seconds)
    fires = [100.0 - seconds - 0.37]
    while (at := next_timer_change(update, fires[-1])) is not None:
        assert at > fires[-1]
        fires.append(at)
    assert len(fires) < 3 * seconds  # about one redraw a second, not one every 0.25 s
    assert _timer_state(update, fires[-1]) == (0, 0, True)
    # between two redraws (but for the last 2.5 ms before one) the timer shows what was drawn
    for start, end in zip(fires, [*fires[1:], 100.5], strict=True):
        shown = _timer_state(update, start)
        t = start
        while t < end - 0.0025:
            assert _timer_state(update, t) == shown
            t += 0.001


def test_no_timer_no_redraw() -> None:
    game = Game("yichun", 1, {})
    game.new_hand()
    assert game.hand is not None
    view = build_view(game.hand, 0)
    assert next_timer_change(TableUpdate(view=view), 0.0) is None
    assert next_timer_change(TableUpdate(view=view, deadline=5.0, timer_seconds=10.0), 6.0) is None
