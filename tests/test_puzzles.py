"""Puzzles from one's own game (issue 56): the decisions a review finds costly, asked as "what
would you play?" before the expert's figures are shown; ``ssh host puzzles ID`` over SSH."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from engine.review import assess
from net.commands import CommandError, parse_command
from net.front.server import MahjongServer
from testkit.ssh import PtyClient, new_key
from tests.support.waiting import until
from tests.test_net import join, play_by_keys
from tests.test_review import CLEAR, Fake, settle, steps
from tui.apps.puzzles import PuzzleApp, PuzzleScreen
from tui.apps.replay import ReplayGame
from tui.apps.review import ReviewGame
from tui.settings import Settings
from tui.view.result_text import lines_content
from tui.words.review_text import action_text


def puzzle_app(submit: Fake, lang: str = "en") -> PuzzleApp:
    game = ReplayGame(steps("gejiu", seed=5), ("ann", "", "bob", ""), "abcd-2345")
    settings = Settings()
    settings.lang, settings.tiles = lang, "ascii"
    return PuzzleApp(ReviewGame.of(game, 0), submit, settings, submit.samples)


def page(screen: PuzzleScreen) -> str:
    return "\n".join(lines_content([x]).plain for x in screen.body_lines(76))


async def test_a_costly_decision_is_asked_before_its_figures_are_shown() -> None:
    fake = Fake(CLEAR)
    app = puzzle_app(fake)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PuzzleScreen)
        assert "Puzzles from game abcd-2345" in screen.title_text()
        await settle(pilot, fake, until_all=True)
        found = screen.puzzles()
        assert found and all(screen.results[i].loss > 0 for i in found)
        listed = page(screen)
        assert "puzzle 1 · hand" in listed
        assert "points" not in listed and "Expert" not in listed  # nothing of the answers
        await pilot.press("enter")
        assert screen.page == found[0]
        a = screen.results[found[0]]
        asked = page(screen)
        assert "What would you play?" in asked and "Puzzle 1/" in asked
        assert "You played" not in asked and "Expert" not in asked and "±" not in asked
        assert "13 tiles" in asked  # the table as the seat saw it: the others' only counted
        choices = screen.choices(a)
        assert set(choices) == {v.action for v in a.values}
        names = [action_text(c, "en") for c in choices]
        assert names == sorted(names)  # in an order that tells nothing of the figures
        wrong = next(n for n, c in enumerate(choices) if c != a.choice)
        await pilot.press(str(wrong + 1))
        shown = page(screen)
        assert f"Your answer: {action_text(choices[wrong], 'en')}; the expert plays" in shown
        assert "You played: " in shown and "Expert: " in shown and "← expert" in shown
        await pilot.press("1")  # answered: a second key changes nothing
        assert screen.answers[found[0]] == choices[wrong]
        if len(found) > 1:
            await pilot.press("right")
            assert screen.page == found[1]
            await pilot.press("left")
            assert screen.page == found[0]
        await pilot.press("s")
        assert screen.page == -1 and "✓" in page(screen)
        await pilot.press("q")


async def test_the_expert_agreeing_answer_is_said_so() -> None:
    fake = Fake(CLEAR)
    app = puzzle_app(fake, "zh")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PuzzleScreen)
        await settle(pilot, fake, until_all=True)
        await pilot.press("enter")
        a = screen.results[screen.page]
        right = screen.choices(a).index(a.choice)
        await pilot.press(str(right + 1))
        assert "与高手一致" in page(screen)
        assert assess(a.decision, CLEAR).choice == a.choice


async def kept_game(server: MahjongServer, key: Any, table: str) -> str:
    """A one-hand game played to its end by ann (key ``key``) at ``table``: its shown ID."""
    c = await join(server, "ann", key, f"join {table} --rules gejiu --option hands_per_game=1")
    await c.wait_for("press S")
    c.send("s")
    await c.wait_for("个旧")
    t = server.registry.tables[table]
    seat = t.seats.index(next(s for s in t.seats if s.clients))
    await play_by_keys(t, {seat: c})
    await c.wait_for("Enter: game result")
    await c.close()
    return f"{t.game_id[:4]}-{t.game_id[4:]}"


async def test_puzzles_id_over_ssh_asks_ones_own_costly_decisions(
        server: MahjongServer) -> None:
    """``ssh host puzzles ID``: the kept game's costly decisions of the account's own seat, by
    the server's review process; a game one did not play is refused, as the review does."""
    server.reviews.samples = CLEAR
    key = new_key()
    shown = await kept_game(server, key, "pz")
    again = PtyClient(80, 24)
    await again.connect(server.port, "ann", key, command=f"puzzles {shown}")
    text = await again.wait_for("Puzzles from game", 30.0)
    text = await again.wait_for(lambda s: "puzzles: " in s, 120.0)  # all assessed
    if "puzzle 1 · hand" in text:  # a costly decision: asked, then answered
        again.send("\r")
        text = await again.wait_for("What would you play?")
        assert "Expert" not in text
        again.send("1")
        text = await again.wait_for("Your answer: ")
        assert "Expert: " in text
    else:
        assert "None: no decision of yours" in text
    again.send("q")
    await asyncio.wait_for(again.closed.wait(), 10)
    assert again.exit_status == 0
    await again.close()
    other = PtyClient(80, 24)
    await other.connect(server.port, "bob", new_key(), command=f"puzzles {shown}")
    await asyncio.wait_for(other.closed.wait(), 10)
    assert other.exit_status == 2 and "did not play in game" in other.text()
    await other.close()


async def test_puzzles_in_plain_mode_over_ssh(server: MahjongServer) -> None:
    """``puzzles ID --plain``: the same puzzles in lines; without an ID, what to type."""
    server.reviews.samples = CLEAR
    key = new_key()
    shown = await kept_game(server, key, "pp")
    c = PtyClient(100, 40)
    await c.connect(server.port, "ann", key, command=f"puzzles {shown} --plain")
    await c.wait_for("decisions to assess", 30.0)

    def raw() -> str:
        return bytes(c.raw).decode("utf-8", "replace")

    await until(lambda: "puzzles: " in raw() or "None: no decision" in raw(), 120.0,
                "the puzzles found")
    if "puzzles: " in raw():
        await until(lambda: "What would you play?" in raw(), 10.0, "the first puzzle")
        first = raw()
        assert "Puzzle 1/" in first and "  1: " in first and "expert" not in first.lower()
        c.send("9999\r")
        await until(lambda: "Type the number of your answer" in raw(), 10.0, "the help")
        c.send("1\r")
        await until(lambda: "Your answer: " in raw(), 10.0, "the answer")
        assert "expert" in raw().split("Your answer: ", 1)[1]
    if not c.closed.is_set():  # after the last puzzle the session may end by itself
        with contextlib.suppress(BrokenPipeError):  # ... as q is sent
            c.send("q\r")
    await asyncio.wait_for(c.closed.wait(), 10)
    assert c.exit_status == 0
    await c.close()
    bare = PtyClient(100, 40)
    await bare.connect(server.port, "ann", key, command="puzzles --plain")
    await asyncio.wait_for(bare.closed.wait(), 10)
    assert bare.exit_status == 2 and "puzzles needs a game's ID" in bare.text()
    await bare.close()


def test_puzzles_is_a_command_as_review_is_and_may_be_plain() -> None:
    assert parse_command("puzzles").name == "puzzles"
    got = parse_command("puzzles abcd-2345 --plain")
    assert (got.name, got.game_id, got.plain) == ("puzzles", "abcd2345", True)
    with pytest.raises(CommandError, match="usage: review"):
        parse_command("review abcd-2345 --plain")  # the review's screen has no plain mode
