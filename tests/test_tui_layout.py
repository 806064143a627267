"""The table layout: nothing overflows at 80×24, row diffs, faces, hints, help and prompts."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.binding import Binding

from engine.actions import Action
from engine.game import Game
from engine.melds import MeldType
from engine.table import Phase
from engine.tiles import parse_tile, parse_tiles
from engine.view import MeldView, PondView, View, build_view
from host.client import TableUpdate
from testkit.scenario import rigged_hand
from tui.apps.table_screen import TABLE_BINDINGS
from tui.settings import Settings
from tui.view.canvas import Row
from tui.view.cells import wrap_cells
from tui.view.faces import Face, big, glyph, small, small_width
from tui.view.hints import ready_hint, unseen_counts
from tui.view.layout import MAX_HEIGHT, MAX_WIDTH, TableRows, build_rows
from tui.view.prompts import claim_prompt
from tui.view.result_text import help_lines, key_label
from tui.view.ui_state import UiState
from tui.words.rules_text import SUMMARIES
from words import tr


def crowded_view(rules: str) -> View:
    """Every seat with four kongs (face-down and claimed ones) and a 24-tile pond."""
    hand = rigged_hand(rules, {0: "123m 456p 789s EEE SS"}, seed=1)
    view = build_view(hand, 0)
    kinds = parse_tiles("1m 9m 1p 9p 1s 9s E S W N Z F B 5m 5p 5s 2m 3p 4s 6m 7p 8s 2p 3s")
    seats = []
    for p in view.seats:
        melds = (
            MeldView(MeldType.MGANG, tuple([parse_tile("8m")] * 4), parse_tile("8m"),
                     (p.seat + 1) % 4),
            MeldView(MeldType.AGANG, None, None, None),
            MeldView(MeldType.CHI, tuple(parse_tiles("789p")), parse_tile("8p"),
                     (p.seat + 3) % 4),
            MeldView(MeldType.BGANG, tuple([parse_tile("Z")] * 4), parse_tile("Z"),
                     (p.seat + 2) % 4),
        )
        pond = tuple(PondView(k, 1 if i == 3 else None, i == 5) for i, k in enumerate(kinds))
        seats.append(dataclasses.replace(p, melds=melds, pond=pond, concealed_count=1,
                                         ting=True, lighter=True, bought=True, flown=2,
                                         score=-12345))
    return dataclasses.replace(view, seats=tuple(seats), hand=(parse_tile("E"),),
                               drawn=parse_tile("E"), last_discard=(1, kinds[-1]))


def assert_fits(rows: list[tuple[tuple[int, str, str], ...]], width: int) -> None:
    """No span of a row overlaps the one before it, and no row is wider than ``width``."""
    for y, row in enumerate(rows):
        end = 0
        for x, text, _style in row:
            assert x >= end, f"row {y}: span at {x} overlaps the previous one ending at {end}"
            end = x + cell_len(text)
        assert end <= width, f"row {y} is {end} cells wide"


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
@pytest.mark.parametrize("face", list(Face))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_nothing_overflows_at_80x24(rules: str, face: Face, lang: str) -> None:
    view = crowded_view(rules)
    update = TableUpdate(view=view, deadline=10.0, timer_seconds=30.0, hands_per_game=8,
                         names=("龙" * 12, "x" * 40, "bot 电脑", "wes (away)"))
    ui = UiState(face=face, lang=lang, now=5.0, message="x" * 200)
    rows = build_rows(update, ui, 80, 24)
    assert len(rows) == 24
    assert_fits(rows, 80)
    flat = "".join(t for row in rows for _, t, _ in row)
    # every pond's latest discard and every seat's melds are on screen
    assert small(view.seats[1].pond[-1].kind, face) in flat
    assert flat.count(small(parse_tile("Z"), face)) >= 4


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("watching", [False, True])
def test_players_names_fit_and_a_spectator_is_nobody(lang: str, watching: bool) -> None:
    """Each seat shows its player's name (cut with … to its room, a CJK name by cells); a
    player does not read its own, a spectator reads all four and seats named by their winds,
    with no "You" (it sits nowhere) and no hand."""
    view = crowded_view("yichun")
    view = dataclasses.replace(view, seats=tuple(  # melds and flags leave room for names
        dataclasses.replace(p, score=12, melds=p.melds[:1], ting=False, flown=0)
        for p in view.seats))
    if watching:
        view = dataclasses.replace(view, viewer=None, hand=(), drawn=None, my_move=False,
                                   legal=())
    names = ("龙" * 12, "x" * 40, "bot 电脑", "wes (away)")
    update = TableUpdate(view=view, deadline=10.0, timer_seconds=30.0, hands_per_game=8,
                         names=names)
    rows = build_rows(update, UiState(lang=lang, now=5.0), 80, 24)
    assert_fits(rows, 80)
    flat = "\n".join("".join(t for _, t, _ in row) for row in rows)
    assert "bot" in flat and "wes" in flat and "xxx…" in flat  # as much as fits, then …
    assert ("龙龙" in flat) is watching  # one's own name only when watching
    you = tr(lang, "watching") if watching else ("You E" if lang == "en" else "自己·东")
    assert you in flat
    if watching:
        assert "You" not in flat and "自己" not in flat
        assert ("East" if lang == "en" else "东家") in flat
    # every seat whose tiles are not shown says how many it holds: a spectator's four
    assert flat.count(tr(lang, "tiles_left", n=1)) == (4 if watching else 3)


def test_seats_are_placed_from_the_viewer() -> None:
    """上家 on the left, 下家 on the right, 对家 across — for every viewer seat."""
    hand = rigged_hand("gejiu", {0: "123m 456p 789s EEE SS"}, seed=2)
    for viewer in range(4):
        update = TableUpdate(view=build_view(hand, viewer), hands_per_game=8)
        rows = build_rows(update, UiState(lang="en"), 80, 24)
        left = [t for x, t, _ in rows[2] if x < 18]
        right = [t for x, t, _ in rows[2] if x >= 62]
        wind = "ESWN"
        assert f"Left {wind[(viewer + 3) % 4]}" in "".join(left)
        assert f"Right {wind[(viewer + 1) % 4]}" in "".join(right)
        assert f"Across {wind[(viewer + 2) % 4]}" in "".join(t for _, t, _ in rows[1])


@pytest.mark.parametrize("size", [(200, 60), (MAX_WIDTH + 1, MAX_HEIGHT + 3), (300, 30)])
def test_a_large_terminal_gets_the_table_at_its_largest_size_centred(
        size: tuple[int, int]) -> None:
    """Past MAX_WIDTH × MAX_HEIGHT the table is drawn at that size in the middle of the
    screen: the same rows as on a terminal of exactly that size, moved."""
    width, height = size
    view = crowded_view("yichun")
    update = TableUpdate(view=view, deadline=10.0, timer_seconds=30.0, hands_per_game=8)
    ui = UiState(lang="en", now=5.0)
    w, h = min(width, MAX_WIDTH), min(height, MAX_HEIGHT)
    inner = build_rows(update, ui, w, h)
    rows = build_rows(update, ui, width, height)
    assert len(rows) == height
    x0, y0 = (width - w) // 2, (height - h) // 2
    assert x0 > 0 or y0 > 0
    assert rows[:y0] == [()] * y0 and rows[y0 + h:] == [()] * (height - y0 - h)
    for a, b in zip(inner, rows[y0:y0 + h], strict=True):
        assert b == tuple((x + x0, text, style) for x, text, style in a)
    # drawn again by the same builder after the terminal shrank and grew back: nothing stale
    builder = TableRows()
    builder.build(update, ui, width, height)
    assert builder.build(update, ui, width - 7, height) == build_rows(update, ui, width - 7,
                                                                      height)
    assert builder.build(update, ui, width, height) == rows


def test_too_small_shows_a_notice() -> None:
    view = crowded_view("yichun")
    rows = build_rows(TableUpdate(view=view), UiState(lang="en"), 60, 20)
    text = " ".join(t for row in rows for _, t, _ in row)
    assert "80×24" in text and "60×20" in text and "paused" in text
    # at a shared table the game goes on, and the notice says so
    rows = build_rows(TableUpdate(view=view), UiState(lang="en", small_waits=False), 60, 20)
    text = " ".join(t for row in rows for _, t, _ in row)
    assert "plays on" in text and "paused" not in text
    # a spectator has no timer: the table plays on, and nothing of "your" timer
    watching = dataclasses.replace(view, viewer=None)
    for waits in (True, False):
        rows = build_rows(TableUpdate(view=watching), UiState(lang="en", small_waits=waits),
                          60, 20)
        text = " ".join(t for row in rows for _, t, _ in row)
        assert "plays on" in text and "timer" not in text and "paused" not in text


@pytest.mark.parametrize("waits", [True, False])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_small_notice_breaks_between_words(lang: str, waits: bool) -> None:
    view = crowded_view("gejiu")
    rows = build_rows(TableUpdate(view=view), UiState(lang=lang, small_waits=waits), 20, 8)
    lines = [" ".join(t for _, t, _ in row) for row in rows if row]
    message = tr(lang, "too_small" if waits else "too_small_live", w=20, h=8)
    assert all(cell_len(line) <= 18 for line in lines)
    if lang == "en":  # every word whole, in order
        assert " ".join(lines).split() == message.split()
    else:  # every character in order; none of 。，） starts a line
        assert "".join(lines).replace(" ", "") == message.replace(" ", "")
        assert not any(line[0] in "。，）" for line in lines)


def test_wrap_cells() -> None:
    assert wrap_cells("Please enlarge the terminal", 10) == ["Please", "enlarge", "the", "terminal"]
    assert wrap_cells("abcdefghijkl mn", 5) == ["abcde", "fghij", "kl mn"]  # a long word is cut
    assert wrap_cells("现在 20×8）。游戏", 8) == ["现在", "20×8）。", "游戏"]
    assert wrap_cells("", 5) == [""]


@pytest.mark.parametrize("face", list(Face))
def test_faces_have_fixed_cell_widths(face: Face) -> None:
    for k in range(34):
        assert cell_len(small(k, face)) == small_width(face)
        top, bottom = big(k, face)
        assert cell_len(top) == cell_len(bottom) == 4
    assert glyph(parse_tile("Z")) == "中"  # never 🀄
    assert "\U0001F004" not in "".join(small(k, Face.GLYPH) for k in range(34))
    assert small(parse_tile("5m"), Face.ASCII) == "5m"
    assert big(parse_tile("5m"), Face.CJK) == (" 五 ", " 萬 ")


def test_waits_hint_counts_unseen_tiles() -> None:
    hand = rigged_hand("yichun", {0: "123m 456p 789s 11s 5m 6m Z"}, seed=4)
    view = build_view(hand, 0)
    tiles = list(view.hand) + ([view.drawn] if view.drawn is not None else [])
    cursor = tiles.index(parse_tile("Z"))
    discard, waits = ready_hint(view, cursor)
    assert discard == parse_tile("Z")
    assert sorted(waits) == parse_tiles("4m 7m")
    unseen = unseen_counts(view)
    assert unseen[parse_tile("4m")] <= 4 and unseen[parse_tile("1s")] <= 2


def test_claim_prompt_lists_each_chi_set() -> None:
    hand = rigged_hand("shangrao", {0: "3456m 99p 111s 78s EE F"}, wild="B",
                       draws="2p 3p 5m", seed=3)
    # E discards F; S, W and N discard what they draw (N: 5m)
    hand.apply(0, Action.discard(parse_tile("F")))
    for seat in (1, 2, 3):
        while hand.phase is Phase.CLAIM:
            for s in hand.to_act():
                hand.apply(s, Action.pass_())
        assert hand.current == seat and hand.drawn is not None
        hand.apply(seat, Action.discard(hand.drawn // 4))
        while hand.phase is Phase.CLAIM and 0 not in hand.to_act():
            for s in hand.to_act():
                hand.apply(s, Action.pass_())
    view = build_view(hand, 0)
    prompt = claim_prompt(view, "en", Face.ASCII)
    assert prompt is not None
    assert [c.hotkey for c in prompt.choices] == ["pass", "chi", "chi"]


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_help_lists_every_pattern_and_key(rules: str) -> None:
    text = "\n".join(help_lines(rules, "en", TABLE_BINDINGS, {}))
    for p in SUMMARIES[rules].patterns + SUMMARIES[rules].modifiers:
        assert p.zh in text and p.en in text
    # the keys and what they do, not the binding ids (issue 53, J): those are in
    # docs/playing.md, which the one line on remapping names
    docs = (Path(__file__).parent.parent / "docs" / "playing.md").read_text("utf-8")
    for b in TABLE_BINDINGS:
        assert b.id is not None
        assert (f"({b.id})" not in text and b.description in text) or b.id.startswith(
            ("pick-", "result-"))
        assert f"`{b.id}`" in docs or b.id.startswith("pick-")
    assert "cursor-left" not in text and "pick-1" not in text and "result-up" not in text
    assert "`pick-1` … `pick-14`" in docs
    assert "1 2 3 4 5 6 7 8 9 0 - = [ ]  pick tile 1–14 选牌" in text
    assert "↑ ↓ PgUp PgDn Home End  scroll a hand's result" in text
    assert "docs/playing.md" in text
    # each key as the keyboard shows it (issue 53: the chat key was listed as ``slash``)
    chat = [line for line in help_lines(rules, "en", [Binding("slash", "chat", "Chat 聊天",
                                                                id="chat")], {})
            if "Chat 聊天" in line]
    assert len(chat) == 1 and chat[0].split()[0] == "/"
    assert [key_label(k) for k in ("slash", "ctrl+q", "question_mark,f1", "x")] == [
        "/", "Ctrl+Q", "?/F1", "x"]


def test_settings_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    s = Settings.load(path)
    assert s.lang == "en"
    s.lang, s.tiles, s.keys = "zh", "glyph", {"win": "h"}
    assert s.save() == path
    again = Settings.load(path)
    assert (again.lang, again.tiles, again.keys) == ("zh", "glyph", {"win": "h"})
    path.write_text("not json", encoding="utf-8")
    assert Settings.load(path).lang == "en"


def test_game_scores_reach_the_update() -> None:
    game = Game("gejiu", 1)
    game.new_hand()
    assert game.hand is not None
    update = TableUpdate(view=build_view(game.hand, 0), hands_per_game=game.hands_per_game)
    rows = build_rows(update, UiState(lang="zh"), 120, 40)
    assert "第1/8盘" in "".join(t for _, t, _ in rows[0])


def test_spans_and_rows_are_shared_tuples_and_their_tables_stay_bounded(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two tables drawing the same view get the very same span and row objects (what a region
    keeps is then never new to the garbage collector); the shared tables are emptied when
    they grow past their bound, and drawing goes on the same."""
    from tui.view import canvas, layout

    game = Game("shangrao", 4)
    game.new_hand()
    assert game.hand is not None
    update = TableUpdate(view=build_view(game.hand, 0), hands_per_game=game.hands_per_game)
    ui = UiState(lang="en")
    a = layout.TableRows().build(update, ui, 80, 24)
    b = layout.TableRows().build(update, ui, 80, 24)
    assert a == b and any(a)
    assert all(ra is rb for ra, rb in zip(a, b, strict=True))
    assert all(sa is sb for ra, rb in zip(a, b, strict=True) for sa, sb in zip(ra, rb, strict=True))
    monkeypatch.setattr(canvas, "_SPANS_MAX", 10)
    monkeypatch.setattr(canvas, "_ROWS_MAX", 3)
    c = layout.TableRows().build(update, ui, 80, 24)  # starts past both bounds: emptied first
    assert c == a
    assert len(canvas._SPANS) <= 10 + sum(len(r) for r in c)
    assert len(canvas._ROWS) <= 3 + len(c) + 1


def test_the_log_keeps_only_the_events_it_draws() -> None:
    """Across a whole hand the log's cache holds no more than the events it looked at (those
    on its row, and the one that did not fit), never the hand's, and an event drawn again
    reuses its spans."""
    from engine.bots.basic import BasicPlayer
    from engine.view import EVENTS_IN_VIEW
    from tui.view import layout

    game = Game("gejiu", 2)
    game.new_hand()
    hand = game.hand
    assert hand is not None
    rows = layout.TableRows()
    ui = UiState(lang="en")
    player = BasicPlayer()
    reused = 0
    biggest = 0
    while not hand.is_over:
        seat = hand.to_act()[0]
        hand.apply(seat, player.choose(build_view(hand, seat)))
        before = dict(rows._log._events)
        rows.build(TableUpdate(view=build_view(hand, 0), hands_per_game=8), ui, 80, 24)
        biggest = max(biggest, len(rows._log._events))
        reused += sum(1 for k, v in rows._log._events.items() if before.get(k) is v)
    assert len(hand.events) > 40
    assert 0 < biggest <= EVENTS_IN_VIEW < len(hand.events)
    assert reused > len(hand.events)


def _screen_text(rows: list[Row]) -> list[str]:
    out = []
    for row in rows:
        line, x = "", 0
        for x0, text, _ in row:
            line += " " * max(0, x0 - x) + text
            x = max(x, x0) + cell_len(text)
        out.append(line)
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_many_winning_tiles_wrap_in_the_centre(lang: str) -> None:
    """Nine waits (1112345678999m) do not fit one centre line: they wrap, each whole, none
    cut off and nothing past the centre's frame."""
    hand = rigged_hand("gejiu", {0: "1112345678999m 5p"})
    hand.apply(0, Action.discard(parse_tile("5p")))
    rows = build_rows(TableUpdate(view=build_view(hand, 0)), UiState(lang=lang), 80, 24)
    lines = _screen_text(rows)
    hint = [ln for ln in lines if "萬×" in ln]
    assert len(hint) == 2
    text = " ".join(hint)
    for rank in "123456789":
        assert f"{rank}萬×" in text
    assert all(cell_len(ln) <= 80 for ln in lines)
    for ln in hint:  # inside the frame: between the two rules of the centre
        left, right = ln.index("│"), ln.rindex("│")
        assert left < ln.index("萬×") and ln.rindex("萬×") < right


def test_a_hand_that_wins_on_every_tile_says_so() -> None:
    """Shangrao 宝吊头 (the wild beside four sets) wins on any tile: "any tile", not 34."""
    hand = rigged_hand("shangrao", {0: "5m 123p 456p 789s EEE 9p"}, wild="5m")
    hand.apply(0, Action.discard(parse_tile("9p")))
    rows = build_rows(TableUpdate(view=build_view(hand, 0)), UiState(lang="en"), 80, 24)
    text = "\n".join(_screen_text(rows))
    assert "Waits:  any tile (" in text or "Waits: any tile (" in text
    assert "×" not in text.split("Waits")[1].split("\n")[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_key_line_warns_before_a_wild_is_thrown(lang: str) -> None:
    """Shangrao: with the cursor on the 宝 the key line says that throwing it (飞宝) doubles
    this player's win and payments; on another tile it says nothing of it."""
    hand = rigged_hand("shangrao", {0: "5m 19m 19p 19s ESWNZ 2p B"}, wild="5m")
    view = build_view(hand, 0)
    tiles = [k for k in view.hand]
    fly = tr(lang, "k_fly")
    for cursor, kind in enumerate([*tiles, view.drawn]):
        rows = build_rows(TableUpdate(view=view), UiState(lang=lang, cursor=cursor), 80, 24)
        text = "\n".join(_screen_text(rows))
        assert (fly in text) == (kind == parse_tile("5m")), (cursor, kind)
        assert all(cell_len(ln) <= 80 for ln in _screen_text(rows))


def test_the_centre_shows_the_running_doudizhu_circuit() -> None:
    """Gejiu 斗地主: every view (players' and spectators') carries the running circuit's
    discards; the centre names the dealer's tile and who followed it, until the circuit is
    complete or void."""
    hands = {
        0: "9m 123p 456p 789p 11s 22s",
        1: "9m 234s 567s 88s 123m E",
        2: "9m 345m 345p 33s 44p S F",
        3: "9m 456s 777s 55p 66p W B",
    }
    hand = rigged_hand("gejiu", hands, draws="Z Z Z F")
    assert build_view(hand, 0).doudizhu == ()
    steps = [(0, "9m"), (1, "9m"), (2, "S")]
    for n, (seat, tile) in enumerate(steps, start=1):
        hand.apply(seat, Action.discard(parse_tile(tile)))
        while hand.phase is Phase.CLAIM:  # nobody claims here
            hand.apply(hand.to_act()[0], Action.pass_())
        for viewer in (0, 1, 2, 3, None):
            assert build_view(hand, viewer).doudizhu == tuple(
                parse_tile(t) for _, t in steps[:n])
    text = "\n".join(_screen_text(build_rows(TableUpdate(view=build_view(hand, 3)),
                                              UiState(lang="en"), 80, 24)))
    line = next(ln for ln in text.splitlines() if "斗地主" in ln)
    assert "9萬" in line and "S ✓" in line and "W ✗" in line
    hand.apply(3, Action.discard(parse_tile("W")))  # the circuit is complete: a new one starts
    while hand.phase is Phase.CLAIM:
        hand.apply(hand.to_act()[0], Action.pass_())
    assert build_view(hand, 3).doudizhu == ()
    text = "\n".join(_screen_text(build_rows(TableUpdate(view=build_view(hand, 3)),
                                              UiState(lang="en"), 80, 24)))
    assert "斗地主" not in text


def test_nearly_every_winning_tile_is_said_as_the_exceptions() -> None:
    """Waits on most kinds read "any tile except" the few that do not win; all 34 "any tile";
    fewer are listed one by one."""
    from tui.view.hints import WAITS_BUT_MAX, waits_pieces

    view = crowded_view("shangrao")
    ui = UiState(lang="en")
    losers = [parse_tile(t) for t in ("1m", "E", "B")]
    waits = {k: "" for k in range(34) if k not in losers}
    text = "".join(t for t, _ in waits_pieces(view, ui, (None, waits)) or [])
    assert "any tile except 1萬 东 白 (" in text and "×" not in text
    text = "".join(t for t, _ in waits_pieces(view, ui, (None, {k: "" for k in range(34)}))
                   or [])
    assert "any tile (" in text and "except" not in text
    few = {k: "" for k in range(34 - WAITS_BUT_MAX - 1)}
    text = "".join(t for t, _ in waits_pieces(view, ui, (None, few)) or [])
    assert "any tile" not in text and text.count("×") == len(few)


def test_the_log_adds_moves_at_the_right_and_restarts_only_when_full() -> None:
    """Each move is added after the row so far (whose cells stay as they are on screen, so a
    move writes only its own cells); when one no longer fits the row starts again with the
    moves that fill about half of it. The newest move is always on the row."""
    from engine.bots.basic import BasicPlayer
    from tui.view.log_text import event_pieces

    game = Game("gejiu", 2)
    hand = game.new_hand()
    rows = TableRows()
    ui = UiState(lang="en")
    player = BasicPlayer()
    before: Row = ()
    kept = restarts = 0
    while not hand.is_over:
        seat = hand.to_act()[0]
        hand.apply(seat, player.choose(build_view(hand, seat)))
        view = build_view(hand, 0)
        row = rows.build(TableUpdate(view=view, hands_per_game=8), ui, 80, 24)[-1]
        assert cell_len(_screen_text([row])[0].rstrip()) <= 79
        newest = next((e for e in reversed(view.events)
                       if event_pieces(e, 0, "en", ui.face) is not None), None)
        if newest is not None:
            text = "".join(t for t, _ in event_pieces(newest, 0, "en", ui.face) or [])
            assert _screen_text([row])[0].rstrip().endswith(text.rstrip())
        if row[:len(before)] == before:
            kept += 1
        else:
            restarts += 1
            assert cell_len(_screen_text([row])[0].rstrip()) <= 80 // 2 + 2
        before = row
    assert restarts >= 2 and kept > 2 * restarts
