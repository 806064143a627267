"""Chat at a shared table has a history to open and scroll (``v``), bounded; notices (chat
lines, the table's messages) never cover a seat; the "your timer ran out" notice is a line on
the status line, not a 14-line block over the right-hand player (issue 53, chat).

The chat was a toast of a few seconds in a 14-column strip over the right-hand player's
discards, with no history past the chat line's last eight lines."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rich.cells import cell_len
from textual.geometry import Region

from engine.bots.basic import BasicPlayer
from engine.game import Game
from engine.view import build_view
from host.client import TableUpdate, UpdateCallback
from host.table_info import ChatLine, SeatInfo, TableInfo, TableState
from tests.support.tui import screen_lines
from tests.test_room import HeldTable, waiting_table
from tui.apps.chat import ChatLogScreen
from tui.apps.room import SharedTableApp, WaitingScreen
from tui.settings import Settings
from tui.view.layout import MAX_HEIGHT, MAX_WIDTH
from tui.view.table import TableView
from words import tr

# every region of the table that draws a seat: its name and row, its hand or melds, its
# discards
SEAT_REGIONS = ("across", "left", "left-pond", "right", "right-pond", "pond-across",
                "pond-me", "me", "hand")


class PlayingTable(HeldTable):
    """A seat at a table in play: its one update, a hand part played (or over)."""

    def __init__(self, seat_index: int, update: TableUpdate) -> None:
        info = TableInfo("fri", update.view.rules, (),
                         tuple(SeatInfo(n or "bot", True, True) for n in update.names),
                         0, TableState.PLAYING, 1, 4)
        super().__init__(seat_index, info)
        self.update = update

    def current_update(self) -> TableUpdate | None:
        return self.update

    def subscribe(self, callback: UpdateCallback) -> None:
        callback(self.update)


def hand_update(rules: str, seat: int, moves: int | None) -> TableUpdate:
    """A hand after ``moves`` actions (None: played to its end), as ``seat`` sees it."""
    game = Game(rules, 9, {"hands_per_game": 4})
    hand = game.new_hand()
    player = BasicPlayer()
    done = 0
    while not hand.is_over and (moves is None or done < moves):
        who = hand.to_act()[0]
        game.apply(who, player.choose(build_view(hand, who)))
        done += 1
    return TableUpdate(view=build_view(hand, seat), totals=tuple(game.scores),  # type: ignore[arg-type]
                       hands_per_game=4, names=("ann", "龙" * 9, "", "wes"))


def app_for(client: HeldTable, tmp_path: Path, chat_kept: int = 200) -> SharedTableApp:
    settings = Settings.load(tmp_path / "settings.json")
    settings.lang = "en"
    return SharedTableApp(client, settings, chat_kept=chat_kept)


async def test_the_chat_history_keeps_the_lines_in_order_bounded(tmp_path: Path) -> None:
    client = HeldTable(1, waiting_table())  # its log: amy's "hello", said before
    app = app_for(client, tmp_path, chat_kept=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WaitingScreen) and "v: the chat so far" in "\n".join(
            screen_lines(app))
        for i in range(8):
            client.info_callbacks[0](ChatLine("bob", f"line {i}"))
        await pilot.pause()
        assert [line.text for line in app.chat_lines] == [f"line {i}" for i in range(3, 8)]
        await pilot.press("v")
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ChatLogScreen)
        shown = "\n".join(screen_lines(app))
        assert tr("en", "chat_log_title") in shown
        rows = [shown.index(f"bob: line {i}") for i in range(3, 8)]
        assert rows == sorted(rows) and "line 2" not in shown and "hello" not in shown
        client.info_callbacks[0](ChatLine("amy", "a new line"))  # heard while it is open
        await pilot.pause()
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert "line 3" not in shown and shown.index("bob: line 7") < shown.index(
            "amy: a new line")
        await pilot.press("slash")  # write from the history
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, WaitingScreen)


async def test_a_long_history_scrolls_and_opens_at_its_newest_line(tmp_path: Path) -> None:
    client = PlayingTable(1, hand_update("gejiu", 1, 30))
    app = app_for(client, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(3):
            await pilot.pause()
        assert app.table_screen is not None and app.screen is app.table_screen
        for i in range(60):
            client.info_callbacks[0](ChatLine("bob", f"line {i}"))
        await pilot.pause()
        await pilot.press("v")  # from the table
        for _ in range(3):
            await pilot.pause()
        assert isinstance(app.screen, ChatLogScreen)
        shown = "\n".join(screen_lines(app))
        assert "bob: line 59" in shown and "bob: line 0\n" not in shown
        await pilot.press("home")
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert "amy: hello" in shown and "line 59" not in shown
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.table_screen


def seat_cells(app: SharedTableApp) -> set[tuple[int, int]]:
    """Every cell a seat's region draws on the screen."""
    view = app.screen.query_one(TableView)
    width, height = view.size
    x0 = (width - min(width, MAX_WIDTH)) // 2
    y0 = (height - min(height, MAX_HEIGHT)) // 2
    cells = set()
    regions = view._tv_builder._regions  # the table's regions, as drawn (tui.view.layout)
    for name in SEAT_REGIONS:
        for y, spans in regions[name][1].items():
            for x, text, _ in spans:
                if text.strip():
                    cells.update((x0 + x + i, y0 + y) for i in range(cell_len(text)))
    return cells


def notice_regions(app: SharedTableApp) -> list[Region]:
    """Where each notice (toast) is on the screen."""
    return [toast.region for toast in app.screen.query("Toast")]


async def test_no_notice_covers_a_seat(tmp_path: Path) -> None:
    long = "a chat line as long as a toast takes, and longer still: " * 2
    for size in ((80, 24), (120, 40), (170, 56)):
        client = PlayingTable(1, hand_update("gejiu", 1, 40))
        app = app_for(client, tmp_path)
        async with app.run_test(size=size, notifications=True) as pilot:
            for _ in range(3):
                await pilot.pause()
            assert app.table_screen is not None and app.screen is app.table_screen
            client.info_callbacks[0](ChatLine("bob", long))
            app.notify("压鸽子 this hand you back 本盘你押 E ann", markup=False)
            app.notify(long, markup=False, severity="warning")
            for _ in range(4):
                await pilot.pause()
            notices = notice_regions(app)
            assert len(notices) == 3 and any(r.area for r in notices)
            seats = seat_cells(app)
            assert len(seats) > 100
            for region in notices:
                covered = {(x, y) for x in range(region.x, region.right)
                           for y in range(region.y, region.bottom)}
                assert not covered & seats, (size, region)
            # the timer ran out twice: said on the status line, no notice over the table
            back = client.table_info
            seats_info = list(back.seats)
            seats_info[1] = replace(seats_info[1], idle=True)
            client.info_callbacks[0](replace(back, seats=tuple(seats_info)))
            for _ in range(3):
                await pilot.pause()
            top = screen_lines(app)[(size[1] - min(size[1], MAX_HEIGHT)) // 2]
            assert "Away" in top, top
            assert len(notice_regions(app)) == 3
            await pilot.press("x")  # any key: back (the server clears the flag)
            client.info_callbacks[0](back)
            for _ in range(3):
                await pilot.pause()
            assert "Away" not in "\n".join(screen_lines(app))
            for i in range(5):  # a burst: the newest stay, where they cover no seat
                app.notify(f"notice {i}", markup=False)
            for _ in range(4):
                await pilot.pause()
            shown = [str(toast.render()) for toast in app.screen.query("Toast")]
            assert len(shown) == 3 and "notice 4" in shown[-1], shown


async def test_over_a_hand_result_notices_leave_the_summary_clear(tmp_path: Path) -> None:
    update = hand_update("yichun", 1, None)
    assert update.view.result is not None
    client = PlayingTable(1, update)
    app = app_for(client, tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        for _ in range(3):
            await pilot.pause()
        screen = app.table_screen
        assert screen is not None and screen.result is not None
        client.info_callbacks[0](ChatLine("bob", "gg " * 30))
        for _ in range(4):
            await pilot.pause()
        notices = notice_regions(app)
        page = screen.result_text.splitlines()
        summary = page.index(tr("en", "res_hands"))  # the rows above the hands
        assert notices and all(r.y >= summary and r.bottom <= 23 for r in notices), (
            notices, summary)
        await pilot.press("enter")  # the result closed: over the table's centre again
        for _ in range(3):
            await pilot.pause()
        assert screen.result is None
        client.info_callbacks[0](ChatLine("bob", "next"))
        for _ in range(4):
            await pilot.pause()
        notices = notice_regions(app)
        assert notices and all(r.y >= 6 and r.bottom <= 14 for r in notices), notices

