"""Notices a newcomer's tryout found still drawn where they covered something (issue 53, its
follow-up G, retried at 80×24): chat toasts over the help, the settings' keys line and the
chat history (repeating the line its list shows), the auto toggles' notices cut at the
centre's width, and a chat toast drawn over such a notice.

Over any screen but the table's (the table, the waiting room) a chat line is not toasted: it
is in the history, and the next toast back at the table counts the lines heard meanwhile."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from textual.pilot import Pilot

from host.table_info import ChatLine
from tests.support.tui import screen_lines
from tests.test_chat_history import PlayingTable, app_for, hand_update
from tui.apps.chat import ChatLogScreen, ChatScreen
from tui.apps.room import CHAT_TOAST_GAP, SharedTableApp
from tui.apps.screens import GameResultScreen, HelpScreen, SettingsScreen
from tui.apps.table_screen import TableScreen
from words import tr


async def settle(pilot: Pilot[None], times: int = 4) -> None:
    for _ in range(times):
        await pilot.pause()


def toasts(app: SharedTableApp) -> list[str]:
    return [str(t.render()) for t in app.screen.query("Toast")]


def said(client: PlayingTable, who: str, text: str) -> None:
    client.info_callbacks[0](ChatLine(who, text))


async def test_no_chat_toast_over_the_help_or_the_settings_and_the_return_counts(
        tmp_path: Path) -> None:
    for key, kind in (("question_mark", HelpScreen), ("s", SettingsScreen)):
        client = PlayingTable(1, hand_update("gejiu", 1, 30))
        app = app_for(client, tmp_path)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await settle(pilot, 3)
            assert isinstance(app.screen, TableScreen)
            await pilot.press(key)
            await settle(pilot, 3)
            assert isinstance(app.screen, kind)
            said(client, "ann", "can you see this over it?")
            await settle(pilot)
            said(client, "bob", "and this one?")
            await settle(pilot)
            assert toasts(app) == [], (kind, toasts(app))
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, TableScreen)
            more = tr("en", "chat_more", n=1)
            assert toasts(app) == [f"bob: and this one?  ({more})"], toasts(app)


async def test_chat_is_toasted_on_the_game_result_where_players_say_whether_they_go_on(
        tmp_path: Path) -> None:
    client = PlayingTable(1, hand_update("gejiu", 1, None))
    app = app_for(client, tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot, 3)
        assert app.update is not None
        app.push_screen(GameResultScreen(replace(app.update, game_over=True)))
        await settle(pilot, 3)
        assert isinstance(app.screen, GameResultScreen)
        said(client, "ann", "again?")
        await settle(pilot)
        assert toasts(app) == ["ann: again?"]


async def test_a_chat_toast_at_the_table_is_taken_off_as_another_screen_opens(
        tmp_path: Path) -> None:
    for key, kind in (("v", ChatLogScreen), ("question_mark", HelpScreen)):
        client = PlayingTable(1, hand_update("gejiu", 1, 30))
        app = app_for(client, tmp_path)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await settle(pilot, 3)
            said(client, "ann", "hi all, shangrao now")
            await settle(pilot)
            assert toasts(app) == ["ann: hi all, shangrao now"]
            await pilot.press(key)
            await settle(pilot)
            assert isinstance(app.screen, kind)
            assert toasts(app) == [], (kind, toasts(app))  # it stayed its 6 s over the screen
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, TableScreen)
            assert toasts(app) == []  # seen already: not told again


async def test_a_line_heard_while_writing_one_is_shown_above_the_input(tmp_path: Path
                                                                      ) -> None:
    client = PlayingTable(1, hand_update("gejiu", 1, 30))
    app = app_for(client, tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot, 3)
        await pilot.press("slash")
        await settle(pilot, 3)
        assert isinstance(app.screen, ChatScreen)
        said(client, "ann", "heard while you write")
        await settle(pilot)
        assert toasts(app) == []  # the toast was drawn over the input line
        assert "ann: heard while you write" in str(
            app.screen.query_one("#chat-log").render())
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen) and toasts(app) == []


def centre_text(app: SharedTableApp) -> str:
    """The table centre's text (between the side seats' rules), its rows joined."""
    assert isinstance(app.screen, TableScreen)
    rows = []
    for row in app.screen.table.rows:
        line, pos = "", 0
        for x, text, _ in row:
            line += " " * max(0, x - pos) + text
            pos = max(pos, x) + len(text)
        rows.append(line)
    parts = [r.split("│")[1] for r in rows if r.count("│") >= 2]
    return " ".join(p.strip() for p in parts)


async def test_the_toggles_notices_are_read_whole_at_80x24(tmp_path: Path) -> None:
    tried = 0
    for rules in ("gejiu", "yichun", "shangrao"):
        for lang in ("en", "zh"):
            client = PlayingTable(1, hand_update(rules, 1, 30))
            app = app_for(client, tmp_path)
            app.settings.lang = lang
            async with app.run_test(size=(80, 24), notifications=True) as pilot:
                await settle(pilot, 3)
                for key, what in (("z", "pass"), ("u", "win"), ("o", "discard")):
                    await pilot.press(key)
                    await settle(pilot, 2)
                    sentence = tr(lang, f"auto_{what}_set")
                    shown = centre_text(app)
                    assert sentence.replace(" ", "") in shown.replace(" ", ""), (
                        rules, lang, sentence, shown)
                    tried += 1
    assert tried == 3 * 2 * 3


def screen_centre(app: SharedTableApp) -> str:
    """The centre's text as the terminal shows it (toasts drawn over the table included)."""
    parts = [r.split("│")[1] for r in screen_lines(app) if r.count("│") >= 2]
    return " ".join(p.strip() for p in parts)


async def test_a_chat_toast_keeps_off_the_tables_notice(tmp_path: Path) -> None:
    """A chat line came over the no-calls notice (or the notice under a chat toast): the
    toast was drawn over the notice's last line, and both read as one garbled line."""
    line = "and over settings? a line long enough to take two rows of a toast"
    tried = 0
    for rules in ("gejiu", "yichun", "shangrao"):
        for chat_first in (True, False):
            client = PlayingTable(1, hand_update(rules, 1, 30))
            app = app_for(client, tmp_path)
            async with app.run_test(size=(80, 24), notifications=True) as pilot:
                await settle(pilot, 3)
                if chat_first:
                    said(client, "ann", line)
                    await settle(pilot)
                await pilot.press("z")
                await settle(pilot)
                if not chat_first:
                    said(client, "ann", line)
                    await settle(pilot)
                assert len(toasts(app)) == 1, toasts(app)
                sentence = tr("en", "auto_pass_set")
                shown = screen_centre(app)
                assert " ".join(sentence.split()) in " ".join(shown.split()), (
                    rules, chat_first, shown)
                assert "ann: and over settings?" in shown, shown
                tried += 1
    assert tried == 6


async def test_a_line_read_in_the_history_is_not_toasted_on_the_return(tmp_path: Path
                                                                      ) -> None:
    """A line heard while the history is open, soon after a toast (its gap still running),
    was toasted on the return to the table, though it had been read there."""
    client = PlayingTable(1, hand_update("gejiu", 1, 30))
    app = app_for(client, tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot, 3)
        said(client, "ann", "first")
        await settle(pilot)
        assert toasts(app) == ["ann: first"]
        await pilot.press("v")
        await settle(pilot)
        said(client, "bob", "read in the history")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TableScreen) and toasts(app) == []
        await pilot.pause(CHAT_TOAST_GAP + 0.5)  # the gap's timer has run
        await settle(pilot)
        assert toasts(app) == [], toasts(app)
