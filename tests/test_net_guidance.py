"""What a shared table and the lobby tell a player, through real SSH sessions at 80×24: whom
a new game or the next hand waits for, that a full table makes one a watcher, the typing line's
hint, and what each table option does."""

from __future__ import annotations

from net.front.server import MahjongServer
from testkit.ssh import new_key
from tests.support.waiting import until
from tests.test_net import join, play_by_keys, seated


async def test_a_new_game_starts_when_every_seated_player_is_ready(
        server: MahjongServer) -> None:
    """One player's Enter on Game over asks for a new game; it starts only when the
    other seated player presses Enter too, and meanwhile each screen says whom it waits for.
    After Enter on a hand's result the table says whom the next hand waits for."""
    cmd = "join ng2 --rules gejiu --option hands_per_game=1"
    ann = await join(server, "ann", new_key(), cmd)
    bob = await join(server, "bob", new_key(), cmd)
    t = await seated(server, "ng2", 2)
    ann.send("s")
    await ann.wait_for("个旧")
    seat = {name: next(i for i, s in enumerate(t.seats)
                       if s.occupant is not None and s.occupant.name == name)
            for name in ("ann", "bob")}
    clients = {seat["ann"]: ann, seat["bob"]: bob}
    await play_by_keys(t, clients)
    for c in (ann, bob):
        await c.wait_for("Enter: game result")
    ann.send("\r")
    await ann.wait_for("Game over")
    bob.send("\r")
    await bob.wait_for("Game over")
    ann.send("\r")  # ann asks for a new game: bob is still reading the summary
    await ann.wait_for("waiting for")
    assert "bob" in ann.text()
    await bob.wait_for("A new game is asked for")
    assert "waiting for You" not in bob.text()  # the others, never oneself
    assert t.game_no == 1 and t.game is not None and t.game.is_over
    bob.send("\r")
    await until(lambda: t.game_no == 2, 5.0, "the new game")
    for c in (ann, bob):
        await c.wait_for(lambda text: "个旧" in text and "Game over" not in text)
    for c in (ann, bob):
        await c.close()


async def test_after_a_hand_s_result_the_table_says_whom_it_waits_for(
        server: MahjongServer) -> None:
    """Enter on a hand's result shows the table with the new scores and the players
    the next hand waits for."""
    cmd = "join wait4 --rules gejiu --option hands_per_game=2"
    ann = await join(server, "ann", new_key(), cmd)
    bob = await join(server, "bob", new_key(), cmd)
    t = await seated(server, "wait4", 2)
    ann.send("s")
    await ann.wait_for("个旧")
    seat = {name: next(i for i, s in enumerate(t.seats)
                       if s.occupant is not None and s.occupant.name == name)
            for name in ("ann", "bob")}
    await play_by_keys(t, {seat["ann"]: ann, seat["bob"]: bob})
    for c in (ann, bob):
        await c.wait_for("Enter: next hand")
    game = t.game
    assert game is not None
    ann.send("\r")
    await ann.wait_for("waiting for 1")
    text = ann.text()
    assert "Waiting for" in text and "bob" in text, text
    mine = f"{game.scores[seat['ann']]:+d}"
    assert any(mine in row and "You" in row for row in text.splitlines()), text
    bob.send("\r")
    await until(lambda: t.game is not None and t.game.hand is not None
                and t.game.hand.hand_no == 2, 5.0, "the next hand")
    for c in (ann, bob):
        await c.close()


async def test_a_full_table_s_name_in_the_lobby_says_it_makes_you_a_watcher() -> None:
    """Typing a full table's name says the table is full and that Enter again
    watches it (it used to make one a watcher without a word); one's own seat is taken back."""
    from textual.widgets import Input

    from net.front.accounts import Account
    from tests.test_net_stakes import lobby_app, message

    app = lobby_app()
    registry = app.server.registry
    table = registry.get_or_create("full", "gejiu", {}, None)
    clients = [table.join(Account(10 + i, f"p{i}")) for i in range(4)]
    async with app.run_test(size=(80, 24)) as pilot:
        entry = app.query_one("#entry", Input)
        entry.value = "full"
        await pilot.press("enter")
        await pilot.pause()
        assert "full is full: Enter again to watch it" in message(app.screen, "#msg")
        assert app.return_value is None and entry.value == "full"
        await pilot.press("enter")
        await pilot.pause()
    assert app.return_value is not None
    assert (app.return_value.name, app.return_value.table) == ("watch", "full")
    mine = lobby_app()
    mine.server.registry = registry
    mine.account = Account(10, "p0")  # holds a seat there: back to it, no question
    async with mine.run_test(size=(80, 24)) as pilot:
        mine.query_one("#entry", Input).value = "full"
        await pilot.press("enter")
        await pilot.pause()
    assert mine.return_value is not None and mine.return_value.name == "join"
    for c in clients:
        c.close()
    table.close()


async def test_the_lobby_s_input_hint_is_whole_at_80_columns() -> None:
    """The typing line's hint is not cut at 80 columns."""
    from textual.widgets import Input

    from tests.test_net_stakes import lobby_app

    app = lobby_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        entry = app.query_one("#entry", Input)
        from rich.cells import cell_len

        assert cell_len(entry.placeholder) <= entry.content_region.width
        assert "watch NAME" in entry.placeholder and "Esc" in entry.placeholder


def test_every_option_says_in_both_languages_what_it_does() -> None:
    """The words the form and the waiting screen show belong to the engine's specs."""
    from engine.rulesets import RULESETS

    for cls in RULESETS.values():
        for spec in cls.options_spec:
            assert spec.brief_en and spec.brief_zh, spec.key
            assert spec.brief(None) == f"{spec.brief_en} · {spec.brief_zh}"


async def test_the_new_table_form_says_what_each_option_does_and_lines_up() -> None:
    """Each of the chosen ruleset's options has a line on what it does (Shangrao's
    discard_wins too, seen before only in help). Every field of the form starts in
    the same column, whether the options scroll (80×24) or not."""
    from textual.widgets import Input, Label, Select

    from engine.rulesets import RULESETS
    from net.front.lobby import CreateTableScreen
    from tests.test_net_stakes import lobby_app

    for size in ((80, 24), (100, 60)):
        app = lobby_app()
        async with app.run_test(size=size) as pilot:
            await pilot.press("ctrl+n")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, CreateTableScreen)
            form.query_one("#create-rules", Select).value = "shangrao"
            await pilot.pause()
            await pilot.pause()
            labels = " ".join(str(label.render()) for label in form.query(Label))
            for spec in RULESETS["shangrao"].options_spec:
                assert spec.brief(None) in labels.replace("\n", " "), spec.key
            xs = {form.query_one("#create-name", Input).region.x,
                  form.query_one("#create-rules", Select).region.x}
            xs |= {field.region.x for field in form.query(Input) if field.id
                   and field.id.startswith("opt-")}
            assert len(xs) == 1, (size, xs)


async def test_the_waiting_screen_lists_every_option_with_what_it_does(
        tmp_path: object) -> None:
    """The waiting screen lists the ruleset's options, its value at this table and
    what each does, within 80×24."""
    from pathlib import Path

    from engine.rulesets import RULESETS
    from host.table_info import SeatInfo, TableInfo, TableState
    from tests.test_room import HeldTable, app_at, shown
    from tui.apps.room import SHOWN_WHEN_SET

    ann, empty = SeatInfo("ann", True, True), SeatInfo("", False, False)
    for rules in RULESETS:
        info = TableInfo("fri", rules, (("hands_per_game", 4),), (ann, empty, empty, empty), 0,
                         TableState.WAITING, 0, 4, stakes_possible=rules == "yichun")
        app = app_at(HeldTable(0, info), Path(str(tmp_path)))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            text = shown(app)
        for spec in RULESETS[rules].options_spec:
            if spec.key in SHOWN_WHEN_SET:  # at its default (none): not shown
                assert spec.brief(None) not in text, (rules, spec.key, text)
                continue
            assert spec.brief(None) in text, (rules, spec.key, text)
        assert "hands_per_game=4" in text
        assert "S / Enter: start" in text  # the keys still on screen


async def test_a_player_reaching_game_over_after_an_ask_is_told_of_it(
        server: MahjongServer) -> None:
    """Issue 53 bug 2: ann asks for a new game while bob still reads the last hand's result;
    bob's game-over screen, opened after the ask, says a new game is asked for at once (not
    only when someone else asks too)."""
    cmd = "join ng3 --rules gejiu --option hands_per_game=1"
    ann = await join(server, "ann", new_key(), cmd)
    bob = await join(server, "bob", new_key(), cmd)
    t = await seated(server, "ng3", 2)
    ann.send("s")
    await ann.wait_for("个旧")
    seat = {name: next(i for i, s in enumerate(t.seats)
                       if s.occupant is not None and s.occupant.name == name)
            for name in ("ann", "bob")}
    await play_by_keys(t, {seat["ann"]: ann, seat["bob"]: bob})
    for c in (ann, bob):
        await c.wait_for("Enter: game result")
    ann.send("\r")
    await ann.wait_for("Game over")
    ann.send("\r")  # the ask, while bob is still on the hand's result
    await ann.wait_for("waiting for")
    (bob_app,) = [s.app for s in server.sessions if s.conn.account.nickname == "bob"]
    await until(lambda: bob_app.update is not None and bool(bob_app.update.waiting_for),
                5.0, "bob's session to have the ask")
    bob.send("\r")
    await bob.wait_for("Game over")
    await bob.wait_for("A new game is asked for")
    assert t.game_no == 1 and t.game is not None and t.game.is_over
    for c in (ann, bob):
        await c.close()
