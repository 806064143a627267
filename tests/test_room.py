"""The shared table's screens and app (``tui.apps.room``) run on any :class:`SharedTableClient`:
here a table held in the test, with no server behind it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from engine.actions import Action
from host.client import SharedTableClient, TableUpdate, UpdateCallback
from host.clock import SYSTEM_CLOCK, Clock
from host.refusal import Refusal
from host.table_info import ChatLine, InfoCallback, SeatInfo, TableInfo, TableState
from tests.support.tui import record_notices, screen_lines
from tui.apps.chat import ChatScreen
from tui.apps.room import SharedTableApp, StakeScreen, WaitingScreen
from tui.settings import Settings

EMPTY = SeatInfo("", False, False)


class HeldTable:
    """A seat at a waiting table the test holds: what the app asks of it is recorded."""

    controls_pace = False

    def __init__(self, seat_index: int | None, info: TableInfo) -> None:
        self.seat_index = seat_index
        self.seat = seat_index or 0
        self.table_info = info
        self.said: list[str] = []
        self.stakes: list[int | None] = []
        self.starts = 0
        self.info_callbacks: list[InfoCallback] = []

    @property
    def spectating(self) -> bool:
        return self.seat_index is None

    @property
    def nickname(self) -> str:
        return "kim"

    @property
    def state(self) -> TableState:
        return self.table_info.state

    @property
    def game_no(self) -> int:
        return 0

    @property
    def chat_log(self) -> Sequence[ChatLine]:
        return (ChatLine("amy", "hello"),)

    @property
    def clock(self) -> Clock:
        return SYSTEM_CLOCK

    def info(self) -> TableInfo:
        return self.table_info

    def current_update(self) -> TableUpdate | None:
        return None

    def subscribe(self, callback: UpdateCallback) -> None:
        pass

    def subscribe_info(self, callback: InfoCallback) -> None:
        self.info_callbacks.append(callback)
        callback(self.table_info)

    def send(self, action: Action) -> Refusal | None:
        return Refusal("spectator_play")

    def next_hand(self) -> None:
        pass

    def new_game(self, rules: str, options: Mapping[str, Any],
                 seed: int | None) -> Refusal | None:
        return None

    def set_paused(self, paused: bool) -> bool:
        return False

    def set_bot_delay(self, seconds: float) -> None:
        pass

    def close(self) -> None:
        pass

    def poke(self) -> None:
        pass

    def start(self) -> Refusal | None:
        self.starts += 1
        return Refusal("seated_start") if self.spectating else None

    def chat(self, text: str) -> Refusal | None:
        self.said.append(text)
        return None

    def stake(self, backs: int | None) -> Refusal | None:
        self.stakes.append(backs)
        return None

    def set_allow(self, allow: bool) -> Refusal | None:
        return None


def waiting_table(stakes: bool = False) -> TableInfo:
    return TableInfo("fri", "yichun", (("hands_per_game", 4),),
                     (SeatInfo("ann", True, True), EMPTY, EMPTY, EMPTY), 1,
                     TableState.WAITING, 0, 4, stakes_possible=stakes)


def app_at(client: SharedTableClient, tmp_path: Path, lang: str = "en") -> SharedTableApp:
    settings = Settings.load(tmp_path / "settings.json")
    settings.lang = lang
    return SharedTableApp(client, settings)


def shown(app: SharedTableApp) -> str:
    return "\n".join(screen_lines(app))


async def test_a_seat_waits_chats_and_starts_on_a_table_without_a_server(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client = HeldTable(1, waiting_table())
    app = app_at(client, tmp_path)
    notices = record_notices(monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WaitingScreen)
        text = shown(app)
        assert "Table 牌桌 fri" in text and "ann" in text and "hands_per_game=4" in text
        assert "press S to start now" in text
        # S starts here; at the table s is the settings (issue 53): the screen says which
        flat = " ".join(text.split())
        assert "S here in the waiting room; at the table s opens the settings" in flat, text
        assert "在等候室按 S 立即开始" in flat, text
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(app.screen, ChatScreen)
        assert "amy: hello" in shown(app)  # said before this seat came in
        app.screen.query_one(Input).value = "hi all"
        await pilot.press("enter")
        await pilot.pause()
        assert client.said == ["hi all"] and isinstance(app.screen, WaitingScreen)
        client.info_callbacks[0](ChatLine("amy", "welcome"))  # heard: a toast
        await pilot.pause()
        assert notices(app) == ["amy: welcome"]
        await pilot.press("s")
        assert client.starts == 1


async def test_a_spectator_hears_why_not_and_stakes_on_a_table_without_a_server(
        tmp_path: Path) -> None:
    client = HeldTable(None, waiting_table(stakes=True))
    app = app_at(client, tmp_path, lang="zh")
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        assert "a seated player presses S" in shown(app) and "y: stake" in shown(app)
        await pilot.press("s")
        await pilot.pause()
        assert client.starts == 1 and "只有入座的玩家可以开始" in shown(app)  # its language
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, StakeScreen)
        await pilot.press("2")
        await pilot.pause()
        assert client.stakes == [1] and "stake set" in shown(app)


async def test_a_program_in_a_seat_is_marked_in_the_waiting_room(tmp_path: Path) -> None:
    info = TableInfo("fri", "gejiu", (), (SeatInfo("ann", True, True),
                                          SeatInfo("robo", True, True, bot=True), EMPTY, EMPTY),
                     0, TableState.WAITING, 0, 4)
    app = app_at(HeldTable(0, info), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = shown(app)
        assert "robo  [bot 程序]" in text and "ann  [bot" not in text
