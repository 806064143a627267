"""Fewer bytes, the same picture (issue 57): the colour codes written as changes
(``tui.compat.sgr.compact``, at the SSH driver's flush) and the table's rows written from
their changed cells only (``TableView._row_part``) leave a terminal showing, cell by cell with
its attributes, what Textual's own writer shows."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

import pyte
import pytest
from rich.color import ColorSystem
from rich.style import Style
from textual.driver import Driver
from textual.drivers.headless_driver import HeadlessDriver

from bench.bench_tui import ScriptedClient
from testkit.terminal import shown_cell
from tui.apps.app import MahjongApp
from tui.compat.sgr import blank_change, change, compact
from tui.settings import Settings


def cells(screen: pyte.Screen) -> list[list[tuple[object, ...]]]:
    """What the screen shows, cell by cell (a blank's foreground colour and weight do not
    show: ``testkit.terminal.shown_cell``)."""
    return [[shown_cell(screen.buffer[y][x]) for x in range(screen.columns)]
            for y in range(screen.lines)]


def first_difference(a: pyte.Screen, b: pyte.Screen) -> tuple[object, ...] | None:
    for y, (ra, rb) in enumerate(zip(cells(a), cells(b), strict=True)):
        for x, (ca, cb) in enumerate(zip(ra, rb, strict=True)):
            if ca != cb:
                return (y, x, ca, cb)
    return None


STYLES = [
    Style(color="bright_white", bgcolor="bright_black"),
    Style(color="white", bgcolor="bright_black"),
    Style(bold=True, color="bright_yellow", bgcolor="bright_black"),
    Style(bold=True, underline=True, color="black", bgcolor="bright_white"),
    Style(bold=True, strike=True, color="black", bgcolor="white"),
    Style(dim=True, italic=True, color="red"),
    Style(reverse=True, color="green", bgcolor="blue"),
    Style(blink=True, color="color(208)", bgcolor="color(17)"),
    Style(color="#ff8800", bgcolor="#002040", underline=True),
    Style(italic=True),
    Style(),
]


def textual_frame(rng: random.Random, width: int, height: int) -> str:
    """A frame as Rich and Textual write one: cursor moves, then runs of text, each with its
    full SGR and a reset (an unstyled run with none), now and then an erase."""
    out = []
    for _ in range(rng.randint(1, 6)):
        y, x = rng.randrange(height), rng.randrange(width)
        out.append(f"\x1b[{y + 1};{x + 1}H")
        room = width - x
        while room > 0:
            n = rng.randint(1, min(room, 7))
            text = "".join(rng.choice("ab 中·") for _ in range(n))
            while len(text) + text.count("中") > room:
                text = text[:-1]
            if not text:
                break
            room -= len(text) + text.count("中")
            style = rng.choice(STYLES)
            system = rng.choice([ColorSystem.STANDARD, ColorSystem.EIGHT_BIT,
                                 ColorSystem.TRUECOLOR])
            out.append(style.render(text, color_system=system))
            if rng.random() < 0.05:
                out.append(rng.choice(["\x1b[K", "\x1b[2J", "\x1b[?2026h", "\x1b[?2026l"]))
    return "".join(out)


def test_compacted_frames_draw_what_textuals_draw() -> None:
    rng = random.Random(57)
    width, height = 30, 8
    old, new = pyte.Screen(width, height), pyte.Screen(width, height)
    old_stream, new_stream = pyte.Stream(old), pyte.Stream(new)
    sent = kept = 0
    for i in range(400):
        frame = textual_frame(rng, width, height)
        small = compact(frame)
        assert len(small) <= len(frame)
        sent += len(frame)
        kept += len(small)
        old_stream.feed(frame)
        new_stream.feed(small)
        assert (diff := first_difference(old, new)) is None, f"frame {i}: {diff}"
        # what is written next (Textual's runs) starts from the reset state
        assert old.cursor.attrs[1:] == new.cursor.attrs[1:], f"frame {i}"
    assert kept < sent * 0.85  # random styles: fewer common parts than a theme's


def test_codes_the_emulator_does_not_show_are_still_changed() -> None:
    """pyte keeps no faint (2) nor frame attributes: the transitions are checked here."""
    assert change("1;2;97", "1;97") == "\x1b[22;1m"  # 22 ends both bold and faint
    assert change("2", "") == "\x1b[m"
    assert change("97;100", "37;100") == "\x1b[37m"
    assert change("1;4;30;107", "1;30;107") == "\x1b[24m"
    assert change("38;2;1;2;3", "38;2;1;2;3;48;5;17") == "\x1b[48;5;17m"
    assert compact("\x1b[2mA\x1b[0m\x1b[1mB\x1b[0m") == "\x1b[2mA\x1b[0m\x1b[1mB\x1b[0m"
    assert compact("\x1b[0m\x1b[2mA\x1b[0m\x1b[1mB\x1b[0m") == "\x1b[0m\x1b[2mA\x1b[0;1mB\x1b[0m"
    # a sequence it does not model passes as it is, and the state is unknown after it
    assert compact("\x1b[0m\x1b[1mA\x1b[0m\x1b[1;99mB\x1b[0m\x1b[1mC\x1b[0m") == (
        "\x1b[0m\x1b[1mA\x1b[0m\x1b[1;99mB\x1b[0m\x1b[1mC\x1b[0m")


def test_blanks_are_drawn_keeping_what_they_do_not_show() -> None:
    """A space shows its background and the lines through or under it, not its foreground
    colour, weight or slant: before blanks only, those are left as they are (a tile, a
    blank, a tile of the same suit: the blank sets only the background)."""
    assert compact("\x1b[0m\x1b[1;31;44mA\x1b[0m\x1b[32;40m \x1b[0m\x1b[1;31;44mB\x1b[0m") == (
        "\x1b[0m\x1b[1;31;44mA\x1b[40m \x1b[44mB\x1b[0m")
    # an underline shows: set (its colour kept from the text); colours swapped: all set
    assert compact("\x1b[0m\x1b[31mA\x1b[0m\x1b[4;32m \x1b[0m") == (
        "\x1b[0m\x1b[31mA\x1b[4m \x1b[0m")
    assert compact("\x1b[0m\x1b[31mA\x1b[0m\x1b[7;32m \x1b[0m") == (
        "\x1b[0m\x1b[31mA\x1b[7;32m \x1b[0m")
    # text later in the same state (after a cursor move) sees the state set in full
    assert compact("\x1b[0m\x1b[1;31mA\x1b[0m\x1b[32m \x1b[1;1HB\x1b[0m") == (
        "\x1b[0m\x1b[1;31mA\x1b[0;32m \x1b[1;1HB\x1b[0m")
    # the table's writer: from a bold tile to the felt's blanks, the background alone
    assert blank_change("1;38;5;124;48;5;230", "38;5;230;48;5;22") == (
        "\x1b[48;5;22m", "1;38;5;124;48;5;22")
    assert blank_change("1;4;38;5;124;48;5;230", "38;5;230;48;5;22") == (
        "\x1b[24;48;5;22m", "1;38;5;124;48;5;22")


class PyteDriver(HeadlessDriver):
    """Renders like a terminal driver into a pyte screen, each frame compacted at ``flush``
    as ``net.front.driver.SSHDriver`` sends it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        width, height = kwargs["size"]
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.Stream(self.screen)
        self._out: list[str] = []

    @property
    def is_headless(self) -> bool:
        return False

    def write(self, data: str) -> None:
        self._out.append(data)

    sent = 0  # bytes sent

    def flush(self) -> None:
        data = compact("".join(self._out))
        self._out.clear()
        self.sent += len(data.encode())
        self.stream.feed(data)


class PyteApp(MahjongApp):
    pyte: PyteDriver | None = None

    def _build_driver(
        self, headless: bool, inline: bool, mouse: bool, size: tuple[int, int] | None
    ) -> Driver:
        self.pyte = PyteDriver(self, debug=False, mouse=False, size=size)
        return self.pyte


def textuals_own(app: MahjongApp, width: int, height: int) -> pyte.Screen:
    """The whole screen as Textual's compositor and Rich write it, in a fresh terminal."""
    from tui.view.table import TableView

    screen = pyte.Screen(width, height)
    stream = pyte.Stream(screen)
    table = app.screen.query_one(TableView)
    shown = list(table._tv_shown)  # rendered here, not written to the app's terminal
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        stream.feed(f"\x1b[{y + 1};1H" + strip.render(app.console))
    table._tv_shown[:] = shown
    return screen


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
async def test_table_frames_draw_what_textuals_writer_draws(
    rules: str, size: tuple[int, int]
) -> None:
    client = ScriptedClient(rules, seed=57)
    width, height = size
    with tempfile.TemporaryDirectory() as tmp:
        app = PyteApp(client, Settings.load(Path(tmp) / "settings.json"), table_ready=True)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            for i in range(70):
                hand = client.game.hand
                assert hand is not None
                app._result_shown = (app._game_no, hand.hand_no + (1 if hand.is_over else 0))
                client.step()
                await pilot.pause()
                if i % 7 == 3:
                    await pilot.press("left")
                    await pilot.pause()
                driver = app.pyte
                assert driver is not None
                driver.flush()
                want = textuals_own(app, width, height)
                assert (diff := first_difference(driver.screen, want)) is None, (
                    f"update {i}: (row, column, shown, Textual's) {diff}")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_hand_results_shown_over_the_table_and_closed_draw_what_textual_draws(
    size: tuple[int, int]
) -> None:
    """A hand's result is a page over the table, its rows written as the change from the
    table's rows the terminal shows, and the table's rows, when it closes, as the change from
    the page's: each leaves what Textual's own writer shows, in fewer bytes than the rows
    written whole: the page's blanks where the table's felt is blank are skipped."""
    from tui.view.table import TableView

    client = ScriptedClient("yichun", seed=57)
    width, height = size
    results = 0
    with tempfile.TemporaryDirectory() as tmp:
        app = PyteApp(client, Settings.load(Path(tmp) / "settings.json"), table_ready=True)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            driver = app.pyte
            assert driver is not None
            screen = app.table_screen
            assert screen is not None

            def check(what: str) -> int:
                """The bytes sent since the last check, once the terminal shows what
                Textual's writer shows."""
                assert driver is not None
                driver.flush()
                want = textuals_own(app, width, height)
                assert (diff := first_difference(driver.screen, want)) is None, (
                    f"{what}: (row, column, shown, Textual's) {diff}")
                sent, driver.sent = driver.sent, 0
                return sent

            check("start")
            while results < 2:
                client.step()
                await pilot.pause()
                await pilot.pause()
                # the hand's last update, then its result over it
                check(f"update {client.game.hand.hand_no}")  # type: ignore[union-attr]
                if screen.result is None:
                    continue
                results += 1
                ended = screen.result
                table = screen.query_one(TableView)
                await pilot.press("enter")
                await pilot.pause()
                assert screen.result is None
                closed = check("the result closed")
                table._tv_shown[:] = [None] * len(table._tv_shown)  # as if unknown: whole
                table._paint_all()
                whole = check("the table written whole")
                screen.show_result(ended)
                over = check("the result over the table")
                table._tv_shown[:] = [None] * len(table._tv_shown)
                table._paint_all()
                page = check("the result written whole")
                assert closed < whole * 0.9 and over < page * 0.9, (closed, whole, over, page)
                await pilot.press("enter")
                await pilot.pause()
                check("the result closed again")
    assert results == 2


def test_a_line_with_nothing_in_common_stops_where_both_rows_are_blank() -> None:
    """A prompt line replaced by a shorter one shares no span with it, and was written whole,
    80 cells: now it is written to where the longer text ended (the blanks after it are
    blanks of one style in both rows, as the terminal shows them already)."""
    from tui.view.row_diff import changed_stretches
    old = ((0, " Waiting for the others", "dim"), (23, " " * 57, "text"))
    new = ((0, " [Pass 过]", "prompt"), (10, " " * 70, "text"))
    stretches = changed_stretches(old, new, 80)
    assert stretches is not None
    assert [(a, b) for a, b, _ in stretches] == [(0, 23)]
    assert stretches[0][2] == [(0, " [Pass 过]", "prompt"), (10, " " * 13, "text")]
    # the other way round, the new text longer: written to its end
    back = changed_stretches(new, old, 80)
    assert back is not None and [(a, b) for a, b, _ in back] == [(0, 23)]


def test_a_separator_between_two_changes_is_skipped_with_a_cursor_move() -> None:
    """The status row's wall count and turn change, the separator between them (a colour of
    its own) does not: written again it cost two colour changes, skipped a cursor move."""
    from tui.view.row_diff import changed_stretches
    old = ((46, "59 ", "text"), (49, "│", "dim"), (50, " Right S to play", "text"))
    new = ((46, "58 ", "text"), (49, "│", "dim"), (50, " Across W to play", "text"))
    stretches = changed_stretches(old, new, 80)
    assert stretches is not None
    assert [(a, b) for a, b, _ in stretches] == [(47, 49), (50, 67)]
    # a separator of the same colour as what is around it is cheaper to write again
    same = tuple((x, t, "text") for x, t, _ in new)
    stretches = changed_stretches(tuple((x, t, "text") for x, t, _ in old), same, 80)
    assert stretches is not None and len(stretches) == 1
