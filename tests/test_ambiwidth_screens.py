"""Every screen on a terminal that draws East Asian ambiguous-width characters two cells wide
(``testkit.terminal.CjkScreen``): the table mid-hand with melds and a timer bar, a claim
prompt, Shangrao's wild, Gejiu's 斗地主, a hand's result, help and settings, at 80×24 and
100×30, in both languages and every tile face. What Textual writes goes to the test terminal
through a driver that, as the SSH and ``play`` drivers do, writes in the narrow glyph set
once the app has set it for wide ambiguous characters; every row must take exactly the
terminal's width, with no character drawn over another. (The lobby and waiting room are
tried over SSH in ``test_ambiwidth.py``.)"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyte
import pytest
from textual.drivers import headless_driver

from bench.bench_tui import ScriptedClient
from engine.actions import Action
from engine.table import Phase
from engine.tiles import parse_tile
from engine.view import View, build_view
from host.client import TableUpdate
from host.clock import SYSTEM_CLOCK
from testkit.scenario import rigged_hand
from testkit.terminal import CjkScreen
from tests.test_tui_layout import crowded_view
from tui.apps.app import MahjongApp
from tui.compat.ambiwidth import is_ambiguous, to_narrow
from tui.settings import Settings
from tui.view.faces import Face


class TerminalDriver(headless_driver.HeadlessDriver):
    """Textual's headless driver, but writing every frame to ``screen`` (a test terminal),
    in the narrow glyph set while ``ambiwide`` is set (``MahjongApp.apply_ambiwidth``)."""

    screen: CjkScreen
    ambiwide = False

    @property
    def is_headless(self) -> bool:
        return False  # so that the app writes its frames

    def write(self, data: str) -> None:
        self.stream.feed(to_narrow(data) if self.ambiwide else data)

    @classmethod
    def on(cls, screen: CjkScreen) -> type[TerminalDriver]:
        stream = pyte.Stream(screen)
        return type("TerminalDriverOn", (cls,), {"screen": screen, "stream": stream})


class FixedClient(ScriptedClient):
    """A table that shows one update (its timer running)."""

    def __init__(self, rules: str, view: View) -> None:
        super().__init__(rules, seed=1)
        self.update = TableUpdate(view=view, deadline=SYSTEM_CLOCK.now() + 20.0,
                                  timer_seconds=30.0, hands_per_game=8,
                                  names=("", "龙" * 6, "bot 电脑", "wes"))

    def publish(self) -> None:
        for cb in self.callbacks:
            cb(self.update)


def claim_view() -> View:
    """Shangrao: East may chi the 5m North discarded, two ways (tests/test_tui_layout.py)."""
    hand = rigged_hand("shangrao", {0: "3456m 99p 111s 78s EE F"}, wild="B",
                       draws="2p 3p 5m", seed=3)
    hand.apply(0, Action.discard(parse_tile("F")))
    for _seat in (1, 2, 3):
        while hand.phase is Phase.CLAIM:
            for s in hand.to_act():
                hand.apply(s, Action.pass_())
        assert hand.drawn is not None
        hand.apply(hand.current, Action.discard(hand.drawn // 4))
        while hand.phase is Phase.CLAIM and 0 not in hand.to_act():
            for s in hand.to_act():
                hand.apply(s, Action.pass_())
    view = build_view(hand, 0)
    assert view.phase is Phase.CLAIM and view.my_move
    return view


def doudizhu_view() -> View:
    """Gejiu: a 斗地主 circuit running (the dealer's 9m followed by S, not yet by W)."""
    hands = {0: "9m 123p 456p 789p 11s 22s", 1: "9m 234s 567s 88s 123m E",
             2: "9m 345m 345p 33s 44p S F", 3: "9m 456s 777s 55p 66p W B"}
    hand = rigged_hand("gejiu", hands, draws="Z Z Z F")
    for seat, tile in ((0, "9m"), (1, "9m"), (2, "S")):
        hand.apply(seat, Action.discard(parse_tile(tile)))
        while hand.phase is Phase.CLAIM:
            hand.apply(hand.to_act()[0], Action.pass_())
    view = build_view(hand, 3)
    assert view.doudizhu
    return view


def wild_view() -> View:
    """Shangrao: the 宝 (5m) in hand and shown as the wild."""
    return build_view(rigged_hand("shangrao", {0: "5m 19m 19p 19s ESWNZ 2p B"}, wild="5m"), 0)


def ended_client(rules: str) -> ScriptedClient:
    """A table whose hand has just ended: its result is shown."""
    client = ScriptedClient(rules, seed=5)
    hand = client.game.hand
    assert hand is not None
    while not hand.is_over:
        client.step()
    return client


TABLES: dict[str, Callable[[], Any]] = {
    "melds": lambda: FixedClient("yichun", crowded_view("yichun")),
    "claim": lambda: FixedClient("shangrao", claim_view()),
    "wild": lambda: FixedClient("shangrao", wild_view()),
    "doudizhu": lambda: FixedClient("gejiu", doudizhu_view()),
    "result": lambda: ended_client("gejiu"),
    "help": lambda: FixedClient("shangrao", crowded_view("shangrao")),
    "settings": lambda: FixedClient("gejiu", crowded_view("gejiu")),
}


async def show(name: str, lang: str, size: tuple[int, int], ambiwide: bool,
               monkeypatch: pytest.MonkeyPatch, check: Callable[[MahjongApp, CjkScreen], None],
               narrow_terminal: bool = False) -> None:
    screen = CjkScreen(*size, ambiwide=not narrow_terminal)
    monkeypatch.setattr(headless_driver, "HeadlessDriver", TerminalDriver.on(screen))
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.load(Path(tmp) / "s.json")
        settings.lang = lang
        settings.ambiwidth = "wide" if ambiwide else "narrow"
        app = MahjongApp(TABLES[name](), settings, table_ready=True)
        async with app.run_test(size=size) as pilot:
            for _ in range(8):
                await pilot.pause()
            if name == "help":
                app.show_help()
            elif name == "settings":
                app.show_settings()
            for face in Face:
                app.set_face(face)
                for _ in range(6):
                    await pilot.pause()
                if name == "result":  # the result page is what is shown
                    assert app.table_screen is not None and app.table_screen.result_text
                check(app, screen)


def lines_up(app: MahjongApp, screen: CjkScreen) -> None:
    assert screen.problems() == [], (app.face, "\n".join(screen.display))
    shown = "".join(screen.display)
    assert not any(is_ambiguous(ch) for ch in shown)
    assert shown.strip()


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=["80x24", "100x30"])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", list(TABLES))
async def test_every_screen_lines_up_on_a_wide_terminal(
        name: str, lang: str, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    await show(name, lang, size, True, monkeypatch, lines_up)


@pytest.mark.parametrize("name", ["melds", "settings"])
async def test_without_the_glyph_set_the_wide_terminal_falls_apart(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: drawn as for a narrow terminal, the rows are too wide."""

    def falls_apart(app: MahjongApp, screen: CjkScreen) -> None:
        assert screen.problems() != []

    await show(name, "en", (80, 24), False, monkeypatch, falls_apart)


async def test_a_narrow_terminal_gets_the_characters_as_before(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def as_before(app: MahjongApp, screen: CjkScreen) -> None:
        assert screen.problems() == []
        assert any(is_ambiguous(ch) for ch in "".join(screen.display))  # │ ─ · as always

    await show("melds", "en", (80, 24), False, monkeypatch, as_before, narrow_terminal=True)
