"""Colour is never the only signal: the seat to act, the hand's cursor, the 宝 wild tiles, the
latest discard, the chosen prompt choice and the settings' choices each carry a text mark, in
every face (read here from the table's text, which has no colour at all). No mark is of East
Asian ambiguous width."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from textual.widgets import Checkbox, RadioButton, RadioSet

from bench.bench_tui import ScriptedClient
from engine.game import Game
from engine.table import Phase
from engine.tiles import parse_tile
from engine.view import View, build_view
from host.local import LocalTable
from testkit.scenario import rigged_hand
from tests.support.tui import DrawDiscard, table_text, wait_for
from themes import CONTRAST
from tui.apps import marked
from tui.apps.app import MahjongApp
from tui.apps.screens import SettingsScreen
from tui.apps.table_screen import TableScreen
from tui.settings import Settings
from tui.view import seat_rows
from tui.view.canvas import Canvas
from tui.view.faces import Face, small, small_width

ME = "3456m 99p 111s 78s BB F"  # two 宝 (B, the wild)
DRAWS = "2p 3p 5m 9p 4p E 2p 1s"


def make_app(face: str, tmp_path: Path) -> tuple[MahjongApp, LocalTable, Game]:
    hand = rigged_hand("shangrao", {0: ME}, draws=DRAWS, tail="9s", dealer=0, seed=3,
                       wild="B", options={"turn_seconds": 0, "claim_seconds": 0})
    game = Game("shangrao", 3, {"turn_seconds": 0, "claim_seconds": 0})
    table = LocalTable(bot_delay=0, timers=False, players={s: DrawDiscard() for s in (1, 2, 3)})
    settings = Settings.load(tmp_path / "settings.json")
    settings.tiles, settings.lang = face, "en"
    app = MahjongApp(table, settings, table_ready=True)
    game.hand = hand
    return app, table, game


def index_row(text: str) -> str:
    return next(r for r in text.splitlines() if r.lstrip().startswith(("1 ", ">1")))


def test_no_mark_is_of_ambiguous_width() -> None:
    marks = (seat_rows.LAST_AFTER + seat_rows.LAST_BEFORE + seat_rows.CURSOR_MARK
             + seat_rows.WILD_MARK + seat_rows.WILD_MARK_ASCII + marked.CURSOR
             + marked.MarkedRadioButton.ON + marked.MarkedRadioButton.OFF
             + marked.MarkedCheckbox.ON + marked.MarkedCheckbox.OFF + "[]")
    for ch in marks:
        assert unicodedata.east_asian_width(ch) != "A", ch


@pytest.mark.parametrize("face", ["cjk", "glyph", "ascii"])
async def test_marks_are_in_the_text(face: str, tmp_path: Path) -> None:
    app, table, game = make_app(face, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        view = await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.TURN, "turn")
        screen = app.screen
        assert isinstance(screen, TableScreen)
        text = table_text(app)
        # the seat to act: ▶ before one's own seat, none before the others
        assert any(r.startswith("▶") for r in text.splitlines()), text
        assert text.count("▶") == 1, text
        # the cursor (at first on the last tile, key ]) and each 宝 (B) under its key
        keys = index_row(text).split()
        wild = seat_rows.WILD_MARK_ASCII if face == "ascii" else seat_rows.WILD_MARK
        tiles = [*view.hand, *([view.drawn] if view.drawn is not None else [])]
        assert len(keys) == len(tiles) == 14
        for i, (key, kind) in enumerate(zip(keys, tiles, strict=True)):
            label = seat_rows.INDEX_LABELS[i]
            expected = (">" if i == screen.ui.cursor else "") + label + (
                wild if kind == view.wild else "")
            assert key == expected, keys
        assert "".join(keys).count(wild) == 2 and "".join(keys).count(">") == 1
        await pilot.press("1")  # the cursor moves: so does its mark
        keys = index_row(table_text(app)).split()
        assert keys[0] == ">1" and not keys[-1].startswith(">"), keys

        # at the claim prompt (上家's 5m, once the others have played): the latest discard
        # has < after it in its seat's pond, and only it
        await pilot.press("right_square_bracket", "enter")
        view = await wait_for(pilot, app, lambda v: v.my_move and v.phase is Phase.CLAIM,
                              "the claim")
        assert view.window_tile == parse_tile("5m")
        text = table_text(app)
        assert text.count(seat_rows.LAST_AFTER) + text.count(seat_rows.LAST_BEFORE) == 1, text
        assert small(parse_tile("5m"), Face(face)) + seat_rows.LAST_AFTER in text, text
        prompt = screen.ui.prompt
        assert prompt is not None
        action_row = next(r for r in text.splitlines() if "[" in r and "]" in r
                          and not r.lstrip().startswith("1"))
        assert action_row.count("[") == 1 and action_row.count("]") == 1, action_row
        before = action_row.index("[")
        await pilot.press("right")  # the next choice: the brackets move with it
        row = next(r for r in table_text(app).splitlines() if "[" in r and "]" in r
                   and not r.lstrip().startswith("1"))
        assert row.index("[") > before, (action_row, row)


def plain(widget: RadioButton | Checkbox) -> str:
    return widget.render().plain  # type: ignore[union-attr]


async def test_settings_choices_are_marked_in_text(tmp_path: Path) -> None:
    app, table, game = make_app("cjk", tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert game.hand is not None
        table.start_hand(game, game.hand)
        await pilot.pause()
        app.show_settings()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        for _ in range(3):
            await pilot.pause()

        def marks(set_id: str) -> list[str]:
            return [plain(b) for b in screen.query_one(f"#{set_id}", RadioSet)
                    .query(RadioButton)]

        assert [m[1:] for m in marks("lang")] == ["(*) English ", "( ) 中文 "]
        assert marks("tiles")[0].endswith("(*) Chinese characters ") and (
            "( ) ASCII letters" in marks("tiles")[2])
        assert [plain(c)[-3:] for c in screen.query(Checkbox)] == ["[X]", *["[ ]"] * 5]
        lang = screen.query_one("#lang", RadioSet)
        lang.focus()
        await pilot.pause()
        assert marks("lang")[0].startswith(">"), marks("lang")
        await pilot.press("right")  # the cursor to 中文, not chosen yet
        await pilot.pause()
        assert marks("lang") == [" (*) English ", ">( ) 中文 "], marks("lang")
        await pilot.press("tab")  # the next row: the cursor mark goes with the focus
        await pilot.pause()
        assert not any(m.startswith(">") for m in marks("lang")), marks("lang")
        assert marks("tiles")[0] == ">(*) Chinese characters ", marks("tiles")
        screen.query_one("#bell", Checkbox).focus()
        await pilot.pause()
        assert plain(screen.query_one("#bell", Checkbox)).startswith(">[ ]")
        await pilot.press("enter")
        await pilot.pause()
        assert plain(screen.query_one("#bell", Checkbox)).startswith(">[X]")
        assert app.settings.bell


OKABE_ITO = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7",
             "#000000", "#FFFFFF"}


def test_the_contrast_theme_is_okabe_ito_and_greys() -> None:
    colours = [CONTRAST.primary, CONTRAST.secondary, CONTRAST.accent, CONTRAST.background,
               CONTRAST.surface, CONTRAST.panel, CONTRAST.foreground, CONTRAST.success,
               CONTRAST.warning, CONTRAST.error, *CONTRAST.variables.values()]
    for colour in colours:
        assert colour is not None
        c = colour.upper()
        grey = len(c) == 7 and c[1:3] == c[3:5] == c[5:7]  # a neutral: black to white
        assert c in OKABE_ITO or grey, colour


def test_the_latest_discard_s_mark_goes_before_it_at_a_full_row_s_end() -> None:
    client = ScriptedClient("gejiu", seed=5)

    def seen() -> View:
        assert client.game.hand is not None
        return build_view(client.game.hand, 0)

    view = seen()
    while not (view.last_discard is not None and view.phase is Phase.CLAIM
               and len(view.seats[view.last_discard[0]].pond) >= 2):
        client.step()
        view = seen()
    assert view.last_discard is not None
    seat = view.last_discard[0]
    n = len(view.seats[seat].pond)
    for face in Face:
        pitch = small_width(face) + 1
        for w, before in ((n * pitch + 1, False), (n * pitch - 1, True)):  # room after, none
            c = Canvas(80, 4)
            seat_rows.draw_pond(c, view, seat, 2, 0, w, 4, face)
            row = "".join(t for _, t, _ in c.frozen()[0])
            tile = small(view.seats[seat].pond[-1].kind, face)
            mark = seat_rows.LAST_BEFORE + tile if before else tile + seat_rows.LAST_AFTER
            assert mark in row and len(c.frozen()[1]) == 0, (face, w, row)
