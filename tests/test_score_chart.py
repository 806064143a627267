"""The game-over screen draws each player's running score as a sparkline: the functions on known
inputs, the chart's width, its marks in the ASCII face, the screen at 80×24 in both languages,
and a finished game over SSH."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual.content import Content

from engine.bots.normal import NormalPlayer
from engine.game import Game, HandSummary
from engine.view import build_view
from host.client import TableUpdate
from net.front.server import MahjongServer
from testkit.ssh import new_key
from tests.support.tui import running, screen_lines
from tests.support.waiting import until
from tests.test_net import join, play_by_keys, seated
from tui.view.faces import Face
from tui.view.score_chart import (
    ASCII_MARKS,
    BLOCKS,
    SEAT_COLOURS,
    running_scores,
    sample,
    score_chart_lines,
    sparkline,
)


def _summary(n: int, net: tuple[int, int, int, int]) -> HandSummary:
    return HandSummary(n, 0, n, (), net, (), 0)


def finished(rules: str, seed: int, hands: int, viewer: int | None = 0) -> TableUpdate:
    """A game computer players played to its end, as the game-over screen gets it."""
    game = Game(rules, seed, {"hands_per_game": hands})
    player = NormalPlayer()
    while not game.is_over:
        hand = game.new_hand()
        while not hand.is_over:
            seat = hand.to_act()[0]
            game.apply(seat, player.choose(build_view(hand, seat)))
        game.finish_hand()
    return TableUpdate(view=build_view(hand, viewer), totals=tuple(game.scores),  # type: ignore[arg-type]
                       history=tuple(game.history), game_over=True)


def test_running_scores_start_at_zero_and_add_each_hand() -> None:
    history = [_summary(1, (3, -1, -1, -1)), _summary(2, (-6, 2, 2, 2))]
    assert running_scores(history) == [[0, 3, -3], [0, -1, 1], [0, -1, 1], [0, -1, 1]]


def test_sample_keeps_the_ends_and_spreads_the_rest() -> None:
    assert sample([1, 2, 3], 5) == [1, 2, 3]
    assert sample(list(range(10)), 4) == [0, 3, 6, 9]
    assert sample(list(range(100)), 2) == [0, 99]
    assert sample([4, 5], 1) == [5]


def test_sparkline_levels() -> None:
    assert sparkline([0, 5, 10], 0, 10) == "▁▅█"
    assert sparkline([-7, 0, 7], -7, 7) == "▁▅█"
    assert sparkline([0, 5, 10], 0, 10, ASCII_MARKS) == "_-^"
    assert sparkline([0, 2, 3, 4], 0, 4, ASCII_MARKS) == "_-~^"
    assert sparkline([3, 3], 3, 3) == "▄▄"  # a level line, neither top nor bottom
    assert sparkline([0, 1, 2, 3, 4], 0, 4, "abc") == "abbcc"  # halves round up
    assert sparkline([0, 10], 0, 10, "ab") == "ab"


def test_the_chart_reads_the_game() -> None:
    update = TableUpdate(view=finished("gejiu", 5, 1).view, game_over=True, history=(
        _summary(1, (9, -3, -3, -3)), _summary(2, (-3, 9, -3, -3))), totals=(6, 6, -6, -6))
    lines = score_chart_lines(update, "en", Face.CJK)
    plain = [Content.from_markup(x).plain for x in lines]
    assert plain[0].startswith("Running score") and "▁ -6 … █ +9" in plain[0]
    assert "2 hands" in plain[0]
    you, right, across, left = plain[1:]
    # 0, +9, +6 on the scale -6 … +9, three cells a hand
    assert you.split() == ["You", "E", "▄▄▄███▇▇▇", "+6"]
    assert right.split() == ["Right", "S", "▄▄▄▂▂▂▇▇▇", "+6"]
    assert across.split()[-2:] == left.split()[-2:] == ["▄▄▄▂▂▂▁▁▁", "-6"]
    for s, line in enumerate(lines[1:]):
        assert f"[{SEAT_COLOURS[s]} on $tile-face]" in line
    zh = [Content.from_markup(x).plain for x in score_chart_lines(update, "zh", Face.CJK)]
    assert zh[0].startswith("累计得分") and "2盘" in zh[0] and zh[1].split()[0] == "自己·东"


@pytest.mark.parametrize("hands", [1, 8, 200])
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("face", list(Face))
def test_the_chart_fits_its_width(hands: int, lang: str, face: Face) -> None:
    update = finished("gejiu", 7, hands) if hands < 200 else _long_game()
    for width in (76, 50):
        lines = score_chart_lines(update, lang, face, width)
        assert len(lines) == 5
        for line in lines:
            assert Content.from_markup(line).cell_length <= width, line
        marks = {ch for line in lines[1:] for ch in Content.from_markup(line).plain.split()[-2]}
        allowed = set(ASCII_MARKS if face is Face.ASCII else BLOCKS)
        assert marks <= allowed and marks
    if face is Face.ASCII and lang == "en":  # nothing but ASCII on a terminal without blocks
        text = "\n".join(Content.from_markup(x).plain for x in lines)
        assert text.isascii(), text


def _long_game() -> TableUpdate:
    history = tuple(_summary(i, (i % 5 - 2, 2 - i % 5, (i % 3) - 1, 1 - i % 3))
                    for i in range(1, 201))
    update = finished("gejiu", 5, 1)
    totals = tuple(sum(h.net[s] for h in history) for s in range(4))
    lines = score_chart_lines(TableUpdate(view=update.view, history=history,
                                          totals=totals, game_over=True), "en", Face.CJK)  # type: ignore[arg-type]
    assert "a mark ≈" in Content.from_markup(lines[0]).plain
    return TableUpdate(view=update.view, history=history, totals=totals,  # type: ignore[arg-type]
                       game_over=True)


def test_no_chart_before_a_hand_is_booked() -> None:
    view = finished("gejiu", 5, 1).view
    assert score_chart_lines(TableUpdate(view=view, game_over=True), "en", Face.CJK) == []


def test_a_spectator_and_named_players() -> None:
    update = finished("yichun", 3, 2, viewer=None)
    plain = [Content.from_markup(x).plain for x in score_chart_lines(update, "en", Face.CJK)]
    assert [line.split()[0] for line in plain[1:]] == ["East", "South", "West", "North"]
    named = TableUpdate(view=update.view, history=update.history, totals=update.totals,
                        game_over=True, names=("ann", "", "a-very-long-player-name", ""))
    plain = [Content.from_markup(x).plain for x in score_chart_lines(named, "en", Face.CJK)]
    assert plain[1].startswith(" East · ann") and "…" in plain[3]
    assert len({cell_len(line) for line in plain[1:]}) == 1  # the sparklines line up


@pytest.mark.parametrize("lang,face", [("en", Face.CJK), ("zh", Face.GLYPH),
                                       ("en", Face.ASCII), ("zh", Face.ASCII)])
async def test_the_game_over_screen_shows_the_chart_at_80x24(lang: str, face: Face) -> None:
    from tui.apps.screens import GameResultScreen

    update = finished("gejiu", 5, 8)
    async with running("gejiu", 3) as (_client, app, pilot):
        app.settings.lang = lang
        app.face = face
        app.push_screen(GameResultScreen(update))
        await pilot.pause()
        await pilot.pause()
        rows = [line.rstrip() for line in screen_lines(app)]
    assert len(rows) == 24 and all(cell_len(row) <= 80 for row in rows)
    title = "累计得分" if lang == "zh" else "Running score"
    top = next(i for i, row in enumerate(rows) if row.lstrip().startswith(title))
    marks = ASCII_MARKS if face is Face.ASCII else BLOCKS
    for s, row in enumerate(rows[top + 1:top + 5]):
        words = row.split()
        assert set(words[-2]) <= set(marks), row
        assert int(words[-1]) == update.totals[s]
    keys = "Enter 新游戏" if lang == "zh" else "Enter: new game"
    assert any(keys in row for row in rows[top + 5:])  # the page's keys still show


async def test_a_finished_game_over_ssh_shows_the_chart(server: MahjongServer) -> None:
    """Two hands played by keys over SSH at 80×24: the game-over page has the chart, each
    player's line ending with the table's final score."""
    c = await join(server, "cara", new_key(), "join chart --rules gejiu --option "
                   "hands_per_game=2")
    await c.wait_for("press S")
    c.send("s")
    await c.wait_for("个旧")
    t = await seated(server, "chart", 1)
    seat = t.seats.index(next(s for s in t.seats if s.clients))
    await play_by_keys(t, {seat: c})
    await c.wait_for("Enter: next hand")
    c.send("\r")
    await until(lambda: t.game is not None and t.game.hand is not None
                and t.game.hand.hand_no == 2, 10.0, "the second hand")
    await play_by_keys(t, {seat: c})
    await c.wait_for("Enter: game result")
    c.send("\r")
    text = await c.wait_for("Running score")
    rows = text.splitlines()
    top = next(i for i, row in enumerate(rows) if "Running score" in row)
    assert t.game is not None
    for s, row in enumerate(rows[top + 1:top + 5]):
        words = row.split()
        assert set(words[-2]) <= set(BLOCKS), row
        assert int(words[-1]) == t.game.scores[s]
    await c.close()


def test_a_game_of_one_hand_says_hand() -> None:
    update = TableUpdate(view=finished("gejiu", 5, 1).view, game_over=True,
                         history=(_summary(1, (9, -3, -3, -3)),), totals=(9, -3, -3, -3))
    head = Content.from_markup(score_chart_lines(update, "en", Face.CJK)[0]).plain
    assert "1 hand" in head and "1 hands" not in head
