"""The game-result screen names the leader, or says the top is level."""

from __future__ import annotations

from engine.actions import Action
from engine.game import Game
from engine.tiles import parse_tile
from engine.view import build_view
from host.client import TableUpdate
from tui.view.faces import Face
from tui.view.result_text import game_result_lines


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


def test_result_lines_parsed_one_by_one_are_the_text_parsed_whole() -> None:
    """The result screens parse each line of markup once (cached) and join them: the same
    content as parsing the whole text, for every ruleset, viewer, tile face and language."""
    from textual.content import Content

    from engine.bots.normal import NormalPlayer
    from tui.view.result_text import hand_result_lines, lines_content

    player = NormalPlayer()
    checked = 0
    for rules in ("yichun", "shangrao", "gejiu"):
        game = Game(rules, 11, {"hands_per_game": 4})
        for _ in range(3):
            hand = game.new_hand()
            while not hand.is_over:
                seat = hand.to_act()[0]
                game.apply(seat, player.choose(build_view(hand, seat)))
            for viewer in range(4):
                update = TableUpdate(view=build_view(hand, viewer), totals=tuple(game.scores))
                for face in Face:
                    for lang in ("en", "zh"):
                        lines = hand_result_lines(update, lang, face, 60 + 8 * viewer)
                        whole = Content.from_markup("\n".join(lines))
                        joined = lines_content(lines)
                        assert joined.plain == whole.plain
                        assert joined.spans == whole.spans
                        checked += 1
                        _check_widths(update, face, lang)
        for lang in ("en", "zh"):
            over = TableUpdate(view=build_view(hand, 0), totals=tuple(game.scores),
                               game_over=True)
            lines = game_result_lines(over, lang)
            whole = Content.from_markup("\n".join(lines))
            assert (lines_content(lines).plain, lines_content(lines).spans) == (
                whole.plain, whole.spans)
    assert checked == 3 * 3 * 4 * len(Face) * 2


def _check_widths(update: TableUpdate, face: Face, lang: str) -> None:
    """The widths the result lines are wrapped by, worked out from their pieces, are the
    widths of the markup as Textual parses it."""
    from rich.cells import cell_len
    from textual.content import Content
    from textual.markup import escape

    from tui.view.result_text import meld_markup, meld_width, tiles_markup, tiles_width

    res = update.view.result
    if res is None:
        return

    def parsed(markup: str) -> int:
        return Content.from_markup(markup).cell_length

    for s in range(4):
        assert tiles_width(res.hands[s], face) == parsed(tiles_markup(res.hands[s], face))
        for m in res.melds[s]:
            assert meld_width(m, face, lang) == parsed(meld_markup(m, face, lang))
    for w in res.settlement.wins:
        for item in w.items:
            text = f"   {escape(item.zh)} {escape(item.en)}  [b]{escape(item.value)}[/]"
            assert parsed(text) == 6 + cell_len(item.zh) + cell_len(item.en) + cell_len(item.value)
            if item.tiles:
                assert tiles_width(item.tiles, face) == parsed(tiles_markup(item.tiles, face))


def test_a_hand_result_says_how_it_was_won() -> None:
    """The winner's line says how: self-drawn, or on whose discard (named from the reader's
    seat, or by wind for a spectator)."""
    from engine.bots.normal import NormalPlayer
    from engine.situation import WinMethod
    from tui.view.result_text import hand_result_lines

    player = NormalPlayer()
    seen: set[WinMethod] = set()
    game = Game("gejiu", 5, {"hands_per_game": 16})
    while len(seen) < 2:
        hand = game.new_hand()
        while not hand.is_over:
            seat = hand.to_act()[0]
            game.apply(seat, player.choose(build_view(hand, seat)))
        if not hand.wins:
            continue
        win = hand.wins[0]
        for viewer in (win.seat, None):
            view = build_view(hand, viewer)
            assert view.result is not None and view.result.how is win.how
            text = "\n".join(hand_result_lines(TableUpdate(view=view), "en", Face.ASCII, 80))
            line = next(ln for ln in text.splitlines() if "wins 胡" in ln)
            if win.how is WinMethod.DISCARD:
                assert win.from_seat is not None
                who = ("East", "South", "West", "North")[win.from_seat] if viewer is None \
                    else ("You", "Right", "Across", "Left")[(win.from_seat - viewer) % 4]
                assert f"{who}" in line and "discard 点炮" in line, line
                mine = "\n".join(hand_result_lines(
                    TableUpdate(view=build_view(hand, win.from_seat)), "en", Face.ASCII, 80))
                assert "on your discard 点炮" in mine  # the discarder reads "your"
            elif win.how is WinMethod.SELF_DRAW:
                assert "self-drawn 自摸" in line, line
        seen.add(win.how)


def test_an_earthly_hand_names_the_discarder() -> None:
    """地糊 is a win on the dealer's first discard: the line says whose (yours, for him)."""
    from testkit.scenario import rigged_hand
    from tui.view.result_text import hand_result_lines

    hand = rigged_hand("yichun", {
        0: "5p 123m 789m 111s 999s E", 1: "46p 234s 99p 568s W N F",
        2: "5p 456s 678p 345m 222m", 3: "34p 678p 456m 777s BB"})
    for seat, action in ((0, Action.discard(parse_tile("5p"))), (1, Action.pass_()),
                         (2, Action.win()), (3, Action.win())):
        hand.apply(seat, action)
    assert hand.is_over and len(hand.wins) == 2
    lines = {viewer: "\n".join(hand_result_lines(TableUpdate(view=build_view(hand, viewer)),
                                                 "en", Face.ASCII, 80))
             for viewer in (0, 2, None)}
    assert lines[0].count("on your first discard 地糊") == 2
    assert lines[2].count("on Across E's first discard 地糊") == 2
    assert lines[None].count("on East's first discard 地糊") == 2


def test_a_shangrao_result_shows_the_wild() -> None:
    """The 宝 of the hand (and its indicator) is on the result, and the wild tiles in the hands
    and in the winner's pattern are drawn as the table draws a wild."""
    from engine.bots.normal import NormalPlayer
    from tui.view.faces import small
    from tui.view.result_text import hand_result_lines, line_content

    player = NormalPlayer()
    game = Game("shangrao", 1)
    hand = game.new_hand()
    while not hand.is_over:
        seat = hand.to_act()[0]
        game.apply(seat, player.choose(build_view(hand, seat)))
    view = build_view(hand, None)
    assert view.wild is not None and view.wild_indicator is not None and hand.wins
    lines = hand_result_lines(TableUpdate(view=view), "en", Face.ASCII, 80)
    wild_line = next(ln for ln in lines if "宝 wild" in ln)
    assert small(view.wild, Face.ASCII) in wild_line
    assert small(view.wild_indicator, Face.ASCII) in wild_line
    held = sum(k == view.wild for s in range(4) for k in view.result.hands[s])  # type: ignore
    assert held and "\n".join(lines).count("$tile-wild") >= held + 1
    for ln in lines:
        line_content(ln)  # valid markup
