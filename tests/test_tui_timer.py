"""The turn timer is redrawn when what it shows changes, and only then."""

from __future__ import annotations

import pytest

from engine.game import Game
from engine.view import build_view
from host.client import TableUpdate
from host.clock import ManualClock
from tui.view.timer_text import next_timer_change
from tui.view.timer_text import timer_state as _timer_state


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


async def test_the_table_screen_counts_down_without_textual_timers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The table's timer is redrawn as its seconds change, by loop timers: a Textual ``Timer``
    per session per move (a task each, a ``repr`` and a signature inspected per firing) was 5%
    of the server's CPU. The fallback redraw after a sent move is one too."""
    import re
    import tempfile
    from dataclasses import replace
    from pathlib import Path

    import textual.timer

    from bench.bench_tui import ScriptedClient
    from tui.apps.app import MahjongApp
    from tui.apps.table_screen import TableScreen
    from tui.settings import Settings

    made: list[object] = []
    init = textual.timer.Timer.__init__

    def recording(self: textual.timer.Timer, target: object, *args: object, **kw: object) -> None:
        made.append(target)
        init(self, target, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(textual.timer.Timer, "__init__", recording)
    import textual._callback  # Textual's signature inspection of each callback it invokes

    inspected: list[object] = []
    count = textual._callback._count_parameters

    def counting(func: object) -> int:
        inspected.append(func)
        return count(func)  # type: ignore[arg-type]

    monkeypatch.setattr(textual._callback, "_count_parameters", counting)
    client = ScriptedClient("gejiu", seed=3)
    clock = client.clock = ManualClock()
    with tempfile.TemporaryDirectory() as tmp:
        app = MahjongApp(client, Settings.load(Path(tmp) / "s.json"), table_ready=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, TableScreen)
            made.clear()  # Textual's own (the screen's update timer)

            def seconds() -> int:
                text = "".join(t for _, t, _ in screen.table.rows[0])
                m = re.search(r"(\d+)s", text)
                assert m is not None, text
                return int(m.group(1))

            base = client.callbacks[0]
            for _ in range(10):  # moves, each with a fresh deadline
                client.step()
                update = app.update
                assert update is not None
                base(replace(update, deadline=clock.now() + 2.6, timer_seconds=3.0))
                await pilot.pause()
            assert seconds() == 3
            inspected.clear()
            await clock.advance(1.3)  # the screen's own tick is on the client's clock
            assert seconds() == 2  # the countdown moved on its own
            assert inspected == []  # and no callback's signature was inspected for it
            await pilot.pause()
            screen.action_confirm()  # Enter: a discard, or "not your turn": no Textual timer
            await pilot.pause()
    assert not [t for t in made if isinstance(t, TableScreen)]
