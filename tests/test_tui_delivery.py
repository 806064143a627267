"""Table updates reach the table screen without a message per move when that screen is shown,
in the app's own context, never out of order; everything else goes through ``TableUpdated``."""

from __future__ import annotations

import contextvars
from dataclasses import replace

import pytest
from textual.pilot import Pilot

from bench.bench_tui import ScriptedClient
from engine.table import Phase
from host.client import TableUpdate
from tests.support.tui import running, table_text
from tui.apps.app import MahjongApp, TableUpdated
from tui.compat import internals
from tui.view.table import TableView


async def test_moves_and_the_result_are_applied_directly() -> None:
    """Every update of a hand, its end included, is drawn without a message (the result is
    drawn over the table, on a later turn of the loop), in the app's own context."""
    posted: list[TableUpdate] = []
    applied: list[tuple[TableUpdate, object]] = []
    async with running("gejiu", 9) as (client, app, pilot):
        screen = app.table_screen
        assert screen is not None and app.screen is screen
        post = app.post_message

        def recording_post(message: object) -> bool:
            if isinstance(message, TableUpdated):
                posted.append(message.update)
            return post(message)  # type: ignore[arg-type]

        app.post_message = recording_post  # type: ignore[method-assign]
        apply = screen.apply_update

        def recording_apply(update: TableUpdate) -> None:
            applied.append((update, internals.current_app()))
            apply(update)

        screen.apply_update = recording_apply  # type: ignore[method-assign]
        # another app's context, as when another session's key makes the move
        other = contextvars.copy_context()
        assert internals.active_app is not None  # Textual's (guarded by tui.compat.internals)
        other.run(internals.active_app.set, MahjongApp(client, app.settings))
        callback = client.callbacks[0]
        client.callbacks[0] = lambda u: other.run(callback, u)
        moves = 0
        while not client.game.hand.is_over:  # type: ignore[union-attr]
            client.step()
            moves += 1
            await pilot.pause()
        assert posted == []
        assert len(applied) >= moves - 1 and applied[-1][0].view.phase is Phase.ENDED
        assert all(who is app for _, who in applied)  # drawn as this app, not the other
        for _ in range(5):
            await pilot.pause()
        assert app.screen is screen and "Hand 1 result" in screen.result_text


async def test_an_update_never_overtakes_one_still_queued() -> None:
    """An update that went through a message (a screen was changing) is drawn before any
    later one: those follow it through the queue until it has been handled."""
    async with running("yichun", 2) as (client, app, pilot):
        screen = app.table_screen
        assert screen is not None
        seen: list[TableUpdate] = []
        apply = screen.apply_update

        def recording(update: TableUpdate) -> None:
            seen.append(update)
            apply(update)

        screen.apply_update = recording  # type: ignore[method-assign]
        client.step()
        first = app._undelivered
        assert first is not None
        app._undelivered = None
        app._post_update(first)  # queued; the app has not had its turn yet
        later: list[TableUpdate | None] = []
        for _ in range(3):  # deliveries the loop runs before the app's turn
            client.step()
            later.append(app._undelivered)
            app._deliver()
        for _ in range(5):
            await pilot.pause()
        sent = [first, *later]
        order = [next(i for i, u in enumerate(sent) if u is x) for x in seen]
        assert order == sorted(set(order))  # in order (queued ones may be coalesced)
        assert seen[-1] is later[-1] and app.update is later[-1] and app._queued is None
        # and with nothing queued, the next move is drawn directly again
        client.step()
        await pilot.pause()
        assert app._queued is None and seen[-1] is app.update


async def test_on_a_large_terminal_the_result_is_shown_in_the_tables_box() -> None:
    """Past the table's largest size the table is centred, and a hand's result is drawn in
    the same box: its first line where the table's first row was, one cell in."""
    from tui.view.layout import MAX_HEIGHT, MAX_WIDTH

    width, height = MAX_WIDTH + 40, MAX_HEIGHT + 10
    x0, y0 = 20, 5
    async with running("shangrao", 3, size=(width, height)) as (client, app, pilot):
        screen = app.table_screen
        assert screen is not None
        table = screen.table
        assert table.rows[y0] and table.rows[y0][0][0] >= x0  # the status row
        assert not any(table.rows[:y0])
        while not client.game.hand.is_over:  # type: ignore[union-attr]
            client.step()
            await pilot.pause()
        for _ in range(5):
            await pilot.pause()
        assert table.page_shown
        strips = [table.render_line(y) for y in range(height)]
        assert all(strip.cell_length == width for strip in strips)
        lines = [strip.text for strip in strips]
        assert not any(line.strip() for line in lines[:y0])
        assert lines[y0][:x0 + 1].strip() == "" and lines[y0][x0 + 1:].startswith("Hand 1 result")
        keys = next(y for y, line in enumerate(lines) if "next hand" in line)
        assert y0 < keys < y0 + MAX_HEIGHT and not any(line.strip() for line in lines[keys + 1:])


async def test_each_hand_result_is_shown_over_the_table() -> None:
    """The table screen shows each hand's result over the table (no screen of its own): that
    hand's result, scrolled to the top; Enter closes it and draws the table again in full, and
    the last hand's Enter leads to the game result."""
    from tui.apps.screens import GameResultScreen

    async with running("gejiu", 4) as (client, app, pilot):
        shown: list[str] = []
        deliver = client.callbacks[0]

        def last_hand(update: TableUpdate) -> None:  # the second hand ends the game
            over = update.view.phase is Phase.ENDED and update.view.hand_no == 2
            deliver(replace(update, game_over=over, hands_per_game=2))

        client.callbacks[0] = last_hand
        screen = app.table_screen
        assert screen is not None
        table = screen.table
        for hand_no in (1, 2):
            while not client.game.hand.is_over:  # type: ignore[union-attr]
                client.step()
                await pilot.pause()
            for _ in range(5):
                await pilot.pause()
            assert app.screen is screen and table.page_shown
            text = screen.result_text
            assert f"Hand {hand_no} result" in text
            keys = text.splitlines()[-1]
            assert ("game result" in keys) == (hand_no == 2)
            assert table.page_top == 0
            shown.append(text)
            if hand_no == 1:
                await pilot.press("end")  # read to the end, then go on
                assert table.page_top > 0
                await pilot.press("home")
                assert table.page_top == 0
                await pilot.press("pagedown")
                assert table.page_top > 1
                await pilot.press("up")
                top = table.page_top
                await pilot.press("down")
                assert table.page_top == top + 1
                await pilot.press("w", "1", "left")  # the table's own keys do nothing now
                assert table.page_shown and screen.result is not None
                await pilot.press("enter")
                assert not table.page_shown and screen.result_text == ""
                assert table.rows_refreshed == table.size.height  # the table, whole again
                client.game.new_hand()
                client.publish()
                for _ in range(5):
                    await pilot.pause()
                assert app.screen is screen and not table.page_shown
                assert "Hand 2" in table_text(app)
        assert shown[0] != shown[1]
        await pilot.press("enter")  # the last hand: the game's result
        for _ in range(5):
            await pilot.pause()
        assert isinstance(app.screen, GameResultScreen)


async def result_view(client: ScriptedClient, app: MahjongApp, pilot: Pilot[None]) -> TableView:
    """Play the hand to its end; the table widget, showing the result."""
    while not client.game.hand.is_over:  # type: ignore[union-attr]
        client.step()
        await pilot.pause()
    for _ in range(5):
        await pilot.pause()
    screen = app.table_screen
    assert screen is not None and app.screen is screen and screen.result is not None
    assert screen.table.page_shown
    return screen.table


async def test_the_result_lines_are_drawn_as_styled_and_scroll_with_an_indicator(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The result page draws each line of the result (after a one-cell margin) with its
    styles, then the keys. When it does not fit, the lines scroll above the keys, which keep
    the last row, and a one-column indicator shows where the rows shown are."""
    async with running("gejiu", 4) as (client, app, pilot):
        await pilot.resize_terminal(80, 12)
        view = await result_view(client, app, pilot)
        lines = view.page_text.splitlines()
        body, keys = lines[:-1], lines[-1]
        width, height = view.size
        assert (width, height) == (80, 12) and len(lines) > height and "Enter" in keys
        shown = [view.render_line(y) for y in range(height)]
        assert all(strip.cell_length == width for strip in shown)
        for y, strip in enumerate(shown[:-1]):
            assert strip.text[:-1].rstrip() == (" " + body[y]).rstrip()
        assert shown[-1].text[:-1].strip() == keys  # the keys stay in sight
        marks = [strip.text[-1] for strip in shown]
        assert marks[0] == "▐" and marks[-2] == " " and marks[-1] == " "  # thumb at the top
        styled = [seg for strip in shown for seg in strip if seg.text.strip()]
        assert len({seg.style for seg in styled}) > 2  # tiles and titles keep their colours
        await pilot.press("end")
        await pilot.pause()
        shown = [view.render_line(y) for y in range(height)]
        assert shown[-2].text[:-1].strip() == body[-1].strip()  # the last line, at the end
        assert shown[-1].text[:-1].strip() == keys
        assert shown[-2].text[-1] == "▐" and shown[0].text[-1] == " "
        await pilot.press("home")
        await pilot.pause()
        assert view.render_line(0).text[:-1].rstrip() == (" " + body[0]).rstrip()
        await pilot.resize_terminal(80, 40)  # it fits: no indicator, the keys after the lines
        for _ in range(3):
            await pilot.pause()
        shown = [view.render_line(y) for y in range(40)]
        lines = view.page_text.splitlines()
        assert len(lines) < 40 and all(strip.cell_length == 80 for strip in shown)
        assert [strip.text.rstrip() for strip in shown[:len(lines)]] == [
            (" " + line).rstrip() for line in lines]
        await pilot.resize_terminal(80, 12)
        for _ in range(3):
            await pilot.pause()
        # the app's line filters apply to these lines too (here: monochrome)
        from textual.filter import Monochrome

        filters = app.get_line_filters()
        monkeypatch.setattr(app, "get_line_filters", lambda: [*filters, Monochrome()])
        view.notify_style_update()
        colours = [seg.style.color.triplet for y in range(height - 1)
                   for seg in view.render_line(y)
                   if seg.style and seg.style.color and seg.text.strip(" ▐")]
        assert colours and all(c is not None and c.red == c.green == c.blue for c in colours)


async def test_the_result_is_laid_out_again_for_a_new_width() -> None:
    from rich.cells import cell_len

    async with running("yichun", 2) as (client, app, pilot):
        view = await result_view(client, app, pilot)
        wide = view.page_text
        await pilot.resize_terminal(50, 24)
        for _ in range(3):
            await pilot.pause()
        narrow = view.page_text
        assert narrow != wide  # long payment lines are broken again for 46 cells
        assert max(cell_len(line) for line in narrow.splitlines()) < max(
            cell_len(line) for line in wide.splitlines())


def test_result_lines_parsed_by_pieces_equal_the_whole_line_parsed() -> None:
    """Each result line is parsed piece by piece (tiles, names, labels: each once per process);
    the content must be exactly the whole line's: the same text and the same styled spans."""
    from textual.content import Content

    from engine.view import build_view
    from tui.view.faces import Face
    from tui.view.result_text import hand_result_lines, line_content, markup_chunks

    pieces = 0
    for rules in ("yichun", "shangrao", "gejiu"):
        client = ScriptedClient(rules, seed=3)
        for _ in range(3):  # hands
            hand = client.game.hand
            assert hand is not None
            while not hand.is_over:
                client.step()
            for viewer in range(4):
                update = TableUpdate(view=build_view(hand, viewer), hands_per_game=4,
                                     totals=tuple(client.game.scores))  # type: ignore[arg-type]
                for face in Face:
                    for lang in ("en", "zh"):
                        for line in hand_result_lines(update, lang, face, 60):
                            whole = Content.from_markup(line)
                            parsed = line_content(line)
                            assert parsed.plain == whole.plain, line
                            assert parsed.spans == whole.spans, line
                            pieces += len(markup_chunks(line)) > 1
            client.step()  # the next hand
    assert pieces > 100
    assert markup_chunks("[b]x [dim]y[/] z[/] w") == ["[b]x [dim]y[/] z[/]", " w"]
    assert markup_chunks(r"a \[b] [i]c[/]") == [r"a \[b] ", "[i]c[/]"]
    assert markup_chunks("[b]open") == ["[b]open"]  # unbalanced: parsed whole


async def test_the_result_page_in_a_tiny_window() -> None:
    """A 20×8 (or one-row) window shows the result's first cells and its keys, nothing raises;
    the page is drawn in full width again at 80×24, scrolled where it was."""
    async with running("yichun", 2) as (client, app, pilot):
        view = await result_view(client, app, pilot)
        for size in ((20, 8), (20, 1), (80, 24)):
            await pilot.resize_terminal(*size)
            for _ in range(3):
                await pilot.pause()
            width, height = size
            rows = [view.render_line(y) for y in range(height)]
            assert all(strip.cell_length == width for strip in rows)
            if height == 8:
                assert "Enter" in rows[-1].text  # the keys keep the last row
                await pilot.press("end", "pagedown", "up")
                assert view.page_top > 0
            if height == 1:
                assert rows[0].text.startswith(" Hand 1")
        # where it was scrolled to, kept; its top a Home away
        await pilot.press("home")
        await pilot.pause()
        assert view.render_line(0).text.startswith(" Hand 1")
        assert app.table_screen is not None and app.table_screen.result is not None


async def test_a_themes_css_variables_are_generated_once_per_process(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A theme's colour system is generated for the first app that uses it; later apps (every
    new session on the server) reuse it, and get the same variables."""
    from textual.app import App

    import tui.apps.app

    monkeypatch.setattr(tui.apps.app, "_CSS_VARIABLES", {})
    generated: list[str] = []
    base = App.get_css_variables

    def counting(self: App[None]) -> dict[str, str]:
        generated.append(self.current_theme.name)
        return base(self)

    monkeypatch.setattr(App, "get_css_variables", counting)
    seen: list[dict[str, str]] = []
    for _ in range(2):
        async with running("yichun", 3) as (_client, app, _pilot):
            seen.append(app.get_css_variables())
            assert app.theme_variables and set(app.theme_variables) <= set(seen[-1])
    assert seen[0] == seen[1] and "background" in seen[0]
    assert len(generated) == len(set(generated))  # each theme once, whatever the apps did
    seen[0]["background"] = "red"  # a caller changing its copy changes nobody else's
    assert tui.apps.app._CSS_VARIABLES[generated[-1]][1]["background"] != "red"
