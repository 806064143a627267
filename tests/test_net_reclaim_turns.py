"""Apps that end together are taken apart one a turn of the event loop (``net.front.reclaim``):
a crowd of sessions leaving at once (tables made, started and left by the dozen, issue 51's
abandoned-tables attack) would otherwise hold the loop for all of them in one turn, 10-20 ms
each, and every seated player's key behind them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from net.front import reclaim
from tui.compat import app_release


class FakeApp:
    """Stands for an ended Textual app: what ``release_app`` is given."""

    def __init__(self, name: str) -> None:
        self.name = name


async def test_apps_ended_together_are_taken_apart_one_a_turn(
        monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[str] = []

    def release_app(app: Any) -> int:
        taken.append(app.name)
        return 1

    monkeypatch.setattr(app_release, "release_app", release_app)
    apps = [FakeApp(f"app{i}") for i in range(5)]
    for app in apps:
        reclaim.app_ended(app)
    assert taken == []  # none in the turn they ended in
    seen = []
    for _ in range(5):
        await asyncio.sleep(0)  # one turn of the loop
        seen.append(len(taken))
    assert seen == [1, 2, 3, 4, 5]
    assert taken == [f"app{i}" for i in range(5)]  # in the order they ended
    await asyncio.sleep(0)
    assert taken == [f"app{i}" for i in range(5)]


async def test_an_app_that_fails_to_come_apart_does_not_stop_the_others(
        monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[str] = []

    def release_app(app: Any) -> int:
        taken.append(app.name)
        if app.name == "bad":
            raise RuntimeError("cannot be taken apart")
        return 1

    monkeypatch.setattr(app_release, "release_app", release_app)
    apps = [FakeApp("bad"), FakeApp("good")]
    loop = asyncio.get_running_loop()
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    try:
        for app in apps:
            reclaim.app_ended(app)
        for _ in range(3):
            await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(None)
    assert taken == ["bad", "good"]
    assert len(errors) == 1
    # later apps are still taken apart
    later = FakeApp("later")
    reclaim.app_ended(later)
    await asyncio.sleep(0)
    assert taken[-1] == "later"
