"""The screens at 80×24 name the players (by name, computer players as such) and keep what
they show whole: a side seat's flags, the waiting screen's levels, a chat line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from host.client import TableUpdate
from tests.test_tui_layout import assert_fits, crowded_view
from tui.view.layout import build_rows
from tui.view.seat_rows import side_name_below
from tui.view.ui_state import UiState
from words import seat_label, tr


def screen_lines(rows: list[tuple[tuple[int, str, str], ...]]) -> list[str]:
    """The rows as the terminal shows them (spans placed at their columns)."""
    from rich.cells import cell_len

    out = []
    for row in rows:
        line, end = "", 0
        for x, text, _style in row:
            line += " " * (x - end) + text
            end = x + cell_len(text)
        out.append(line)
    return out


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_side_seat_never_loses_its_flags_at_80x24(rules: str, lang: str) -> None:
    """A dealer who declared 报听, with ten tiles, at the side of an 80×24 screen
    still reads as the dealer and ready; with every flag at once, none is dropped."""
    view = crowded_view(rules)
    left = 3  # the viewer is E: N sits on the left, S on the right
    plain = tuple(dataclasses.replace(p, melds=p.melds[:1], concealed_count=10, ting=False,
                                      lighter=False, bought=None, flown=0) for p in view.seats)
    plain = tuple(dataclasses.replace(p, ting=p.seat == left) for p in plain)
    for seats, dealer in ((plain, left), (view.seats, 1), (view.seats, left)):
        v = dataclasses.replace(view, seats=seats, dealer=dealer)
        update = TableUpdate(view=v, deadline=10.0, timer_seconds=30.0, hands_per_game=8,
                             names=("", "x" * 40, "bot 电脑", "wes (away)"))
        rows = build_rows(update, UiState(lang=lang, now=5.0), 80, 24)
        assert_fits(rows, 80)
        for seat, side in ((left, range(0, 18)), (1, range(62, 80))):
            # under the head, or under the name where it takes a line of its own
            below = side_name_below(update.names[seat], seat_label(0, seat, lang), 18)
            flags_row = "".join(t for x, t, _ in rows[3 + below] if x in side)
            p = v.seats[seat]
            want: list[tuple[str, str]] = []  # (the flag's word, its one-character form)
            if seat == dealer:
                want.append((tr(lang, "flag_dealer"), tr(lang, "flag_dealer_short")))
            if p.ting:
                want.append((tr(lang, "flag_ting"), tr(lang, "flag_ting_short")))
            if p.lighter:
                want.append((tr(lang, "flag_lighter"),) * 2)
            if p.flown:
                want.append((tr(lang, "flag_flown", n=p.flown),
                             tr(lang, "flag_flown_short", n=p.flown)))
            if rules == "yichun" and p.bought is not None:
                want.append((tr(lang, "flag_buy"),) * 2)
            assert want or seat != left
            for long, short in want:
                assert long in flags_row or short in flags_row, (seat, long, flags_row)


def _played_game(hands: int = 2) -> TableUpdate:
    """A Yichun game played to its end by computer players, as seat E sees it, with names."""
    from engine.bots.normal import NormalPlayer
    from engine.game import Game
    from engine.view import build_view

    player = NormalPlayer()
    game = Game("yichun", 3, {"hands_per_game": hands})
    for _ in range(hands):
        hand = game.new_hand()
        while not hand.is_over:
            seat = hand.to_act()[0]
            game.apply(seat, player.choose(build_view(hand, seat)))
    return TableUpdate(view=build_view(hand, 0), totals=tuple(game.scores),  # type: ignore[arg-type]
                       history=tuple(game.history), game_over=True,
                       names=("", "wes", "bot 电脑", "龙" * 9))


def _plain(lines: list[str]) -> list[str]:
    from textual.content import Content

    return [Content.from_markup(line).plain for line in lines]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_results_name_the_players_as_the_table_does(lang: str) -> None:
    """The hand's result and the game-over table name the players, not only their
    seats, and the game-over table's last column has a header."""
    from tui.view.faces import Face
    from tui.view.result_text import game_result_lines, hand_result_lines

    update = _played_game()
    res = update.view.result
    assert res is not None and res.settlement.wins
    hand = _plain(hand_result_lines(update, lang, Face.CJK if lang == "zh" else Face.ASCII))
    winner = res.settlement.wins[0].seat
    name = ("", "wes", "bot 电脑", "龙" * 9)[winner]
    totals = hand[hand.index(next(x for x in hand if tr(lang, "res_totals") in x)):]
    assert any("wes" in x for x in totals) and any("bot 电脑" in x for x in totals)
    assert any("龙龙…" in x for x in totals)  # a long name cut to its room
    label = tr(lang, "res_winner", who="\0", pattern="").split("\0")[1]  # " wins 胡: "
    who = f"{seat_label(0, winner, lang)} {name}" if name else seat_label(0, winner, lang)
    assert any(x.startswith(who[:len(who) - 1]) and label.strip()[:1] in x for x in hand), hand
    game = _plain(game_result_lines(update, lang))
    head = next(i for i, x in enumerate(game) if tr(lang, "game_won_by") in x)
    assert "wes" in game[head + 1] and "bot 电脑" in game[head + 1]
    assert tr(lang, "game_hand", n=1) in game[head + 2]


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_computer_players_are_named_as_such_with_their_level(lang: str) -> None:
    """``play``'s computer players are named in the docs' words with their level ("normal
    (computer)", "普通电脑"; they were all "bot", which the docs use for a program), whole at
    80×24: a side seat's name takes a line of its own where it does not fit beside the seat."""
    from host.local import LocalTable
    from words import computer_name

    levels = {1: "normal", 2: "hard", 3: "expert"}
    table = LocalTable(timers=False, bot_delay=0,
                       bot_names={s: computer_name(lang, v) for s, v in levels.items()})
    got: list[TableUpdate] = []
    table.subscribe(got.append)
    table.set_paused(True)
    assert table.new_game("gejiu", {}, 5) is None
    table.set_paused(True)
    update = got[-1]
    names = tuple(computer_name(lang, levels[s]) if s else "" for s in range(4))
    assert update.names == names
    assert names[1] == ("normal (computer)" if lang == "en" else "普通电脑")
    rows = build_rows(update, UiState(lang=lang, now=0.0), 80, 24)
    assert_fits(rows, 80)
    text = "\n".join(screen_lines(rows))
    for name in names[1:]:
        assert name in text, text
    assert "bot" not in text
    table.loop.close()


async def test_the_waiting_screen_lists_computer_levels_only_for_empty_seats(
        tmp_path: object) -> None:
    """Four people sitting, the waiting screen names no computer player; an empty
    seat says which level will play it."""
    from pathlib import Path

    from host.table_info import SeatInfo, TableInfo, TableState
    from tests.test_room import HeldTable, app_at, shown

    ann = SeatInfo("ann", True, True)
    four = TableInfo("fri", "gejiu", (), (ann, ann, ann, ann), 0, TableState.WAITING, 0, 4)
    app = app_at(HeldTable(1, four), Path(str(tmp_path)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = shown(app)
        assert "normal" not in text and "computer player" not in text
    one = dataclasses.replace(four, seats=(ann, SeatInfo("", False, False), ann, ann),
                              bot_levels=("normal", "hard", "normal", "normal"))
    app = app_at(HeldTable(0, one), Path(str(tmp_path)))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        text = shown(app)
        assert "a hard computer player" in text and text.count("normal") == 0


async def test_a_chat_line_stays_inside_the_centre_at_80x24(
        tmp_path: object) -> None:
    """A chat toast over the table stays inside the centre box, off its borders and off the
    side seats' columns (it covered the right-hand player's discards)."""
    from pathlib import Path

    from textual.widget import Widget

    from bench.bench_tui import ScriptedClient
    from tui.apps.app import MahjongApp
    from tui.settings import Settings

    for width in (80, 100, 120):
        app = MahjongApp(ScriptedClient("gejiu", seed=1),
                         Settings.load(Path(str(tmp_path)) / "s.json"), table_ready=True)
        async with app.run_test(size=(width, 24), notifications=True) as pilot:
            app.notify("p2: " + "a rather long chat line " * 3, markup=False)
            toasts: list[Widget] = []
            for _ in range(20):
                await pilot.pause()
                toasts = list(app.screen.query("Toast"))  # Textual's, by its CSS type
                if toasts and toasts[0].region.width:
                    break
            assert toasts, "no toast shown"
            region = toasts[0].region
            side_w = min(30, 18 + (width - 80) // 4)  # tui.view.layout's side columns
            assert region.x > side_w and region.right < width - side_w, (width, region)


def test_a_player_who_left_keeps_his_away_mark_in_the_game_results_columns() -> None:
    """The game result's columns are 9 cells: ``bob (away)`` read ``bob (awa…`` there."""
    from tui.view.cells import fit_name

    assert fit_name("bob (away)", 9) == "bob(away)"
    assert fit_name("alexandra (away)", 9) == "al…(away)"
    assert fit_name("bob (away)", 12) == "bob (away)"  # whole where it fits
    assert fit_name("normal (computer)", 9) == "computer"
    assert fit_name("alexandra", 6) == "alexa…"


async def test_the_game_result_marks_one_who_leaves_after_it_is_shown(tmp_path: Path) -> None:
    """A shared table's game result shown, then a player leaves (the table's next update
    names him ``(away)``): the names under the seats follow, not only the waiting line."""
    from dataclasses import replace

    from rich.text import Text

    from tests.test_chat_history import PlayingTable, app_for, hand_update
    from tui.apps.screens import GameResultScreen

    client = PlayingTable(1, hand_update("gejiu", 1, None))
    app = app_for(client, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(3):
            await pilot.pause()
        assert app.update is not None
        over = replace(app.update, game_over=True)
        screen = GameResultScreen(over)
        app.push_screen(screen)
        await pilot.pause()
        result = screen.query_one("#game-result")
        assert "(away)" not in Text.from_markup(str(result.render())).plain
        screen.show_waiting(replace(over, names=("ann", "", "", "wes (away)")))
        await pilot.pause()
        assert "wes(away)" in str(result.render())
