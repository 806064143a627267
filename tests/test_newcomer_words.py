"""What a newcomer's tryout met in the table's and plain mode's words (issue 53): the
computer seats' names, a player who left on the game-over screen, the 宝 in Shangrao's hand
result, plain mode's sentences, the last hand's next dealer, the review's headers and what
leaving a game mid-way means for one's rating."""

from __future__ import annotations

import dataclasses

import pytest

from host.client import TableUpdate
from net.front.server import MahjongServer
from testkit.ssh import MakeServer, new_key
from tests.support.waiting import until
from tests.test_net import join, seated
from words import tr


async def test_leaving_mid_game_says_the_game_still_rates_you(server: MahjongServer) -> None:
    """The first q of q q at a shared table mid-game says that the computer plays the seat on
    and that the game still rates the player (docs/playing.md, Ratings)."""
    c = await join(server, "leaver", new_key(), "join away --rules gejiu")
    t = await seated(server, "away", 1)
    await c.wait_for("press S")
    c.send("s")
    await until(lambda: t.game is not None, what="the start key")
    await c.wait_for("Hand 1/")
    c.send("q")
    await c.wait_for("counts for your rating")
    await c.close()


def _played(hands: int) -> TableUpdate:
    """A Yichun game of ``hands`` hands played to its end by computer players, as seat E
    sees it."""
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
                       history=tuple(game.history), game_over=game.is_over,
                       names=("", "wes", "ann", "bob"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plain_says_a_one_hand_games_numbers_once(lang: str) -> None:
    """In a one-hand game plain mode said the same numbers as "This hand", "Hand 1" and
    "Totals": now the totals alone; a longer game keeps all three."""
    from tui.plain.sentences import Sentences

    words = Sentences(lang)
    for hands, said in ((1, 1), (2, 2)):
        update = _played(hands)
        words.update = update
        text = "\n".join(words.result_lines(update) + words.game_lines(update))
        net = tr(lang, "p_res_net", nets="\0").split("\0")[0]
        hand_1 = tr(lang, "p_game_hands", n=1, nets="\0", who="").split("\0")[0]
        totals = tr(lang, "p_res_totals", nets="\0").split("\0")[0]
        assert text.count(totals) == 1, text
        assert text.count(net) == text.count(hand_1) == (0 if said == 1 else 1), text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_plain_says_an_exhausted_wall_once(lang: str) -> None:
    """"The wall is exhausted (荒牌): nobody wins." was followed by "Nobody won (荒牌).": the
    result no longer repeats what the event said."""
    from engine.table import Event, EventType
    from tui.plain.sentences import Sentences

    won = _played(2)
    assert won.view.result is not None
    # the same hand as if the wall had run out: no win, the event that says so
    result = dataclasses.replace(won.view.result, settlement=dataclasses.replace(
        won.view.result.settlement, wins=(), transfers=()))
    view = dataclasses.replace(won.view, result=result,
                               events=(*won.view.events, Event(EventType.EXHAUSTED)))
    update = dataclasses.replace(won, view=view, game_over=False)
    words = Sentences(lang)
    words.update = update
    view = update.view
    said = [words.event_line(e, view) for e in view.events]
    lines = [x for x in said if x] + words.result_lines(update)
    assert tr(lang, "p_ev_exhausted") in lines
    assert tr(lang, "p_res_draw") not in lines or (tr(lang, "p_res_draw") == tr(
        lang, "p_ev_exhausted") and lines.count(tr(lang, "p_res_draw")) == 1), lines


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_last_hands_result_names_no_next_dealer(lang: str) -> None:
    """The hand result of a game's last hand said "Next dealer:" though no hand follows;
    an earlier hand's result still says it."""
    from textual.content import Content

    from tui.view.faces import Face
    from tui.view.result_text import hand_result_lines

    nxt = tr(lang, "res_next_dealer", seat="\0").split("\0")[0]
    for over in (True, False):
        update = dataclasses.replace(_played(1), game_over=over)
        text = "\n".join(Content.from_markup(x).plain
                         for x in hand_result_lines(update, lang, Face.ASCII))
        assert (nxt in text) is not over, text


def test_the_review_and_replay_headers_keep_a_space_after_the_dealers_mark() -> None:
    """``庄Right S bot`` and ``▶庄Across W cat``: the dealer's 庄 ran into the seat's name in
    the review's and the replay's seat rows; the names stay in one column all the same."""
    from rich.cells import cell_len
    from textual.content import Content

    from tui.view.board_lines import seat_head

    rows = [seat_head(act, dealer, "Across W cat") for act in (True, False)
            for dealer in (True, False)]
    shown = [Content.from_markup(markup).plain for markup, _ in rows]
    assert shown[0].startswith("▶庄 Across W cat") and shown[1].startswith("▶   Across W cat")
    assert len({x.index("Across") + cell_len(x[:x.index("Across")]) - x.index("Across")
                for x in shown}) == 1, shown  # the same column, 庄 taking two cells
    assert all(cell_len(x) == width for x, (_, width) in zip(shown, rows, strict=True))


@pytest.mark.parametrize("face_name", ["ASCII", "CJK"])
def test_shangraos_hand_result_marks_the_wilds_in_the_hands(face_name: str) -> None:
    """The result named the 宝 (``宝 wild 7筒``) but marked the wild tiles in the hands by
    colour alone; now each is followed by the table's mark (宝, ``*`` on ASCII tiles)."""
    from textual.content import Content

    from engine.bots.normal import NormalPlayer
    from engine.game import Game
    from engine.view import build_view
    from tui.view.faces import Face, small
    from tui.view.result_text import hand_result_lines

    face = Face[face_name]
    mark = "*" if face is Face.ASCII else "宝"
    player = NormalPlayer()
    for seed in range(1, 40):
        game = Game("shangrao", seed, {"hands_per_game": 1})
        hand = game.new_hand()
        while not hand.is_over:
            seat = hand.to_act()[0]
            game.apply(seat, player.choose(build_view(hand, seat)))
        view = build_view(hand, 0)
        if view.result is not None and view.wild is not None and any(
                view.wild in h for h in view.result.hands):
            break
    else:
        raise AssertionError("no hand ended with a wild in a hand")
    update = TableUpdate(view=view, totals=tuple(game.scores),  # type: ignore[arg-type]
                         history=tuple(game.history), names=("", "wes", "ann", "bob"))
    lines = [Content.from_markup(x).plain for x in hand_result_lines(update, "en", face)]
    wild = small(view.wild, face)
    held = sum(h.count(view.wild) for h in view.result.hands)
    start = next(i for i, x in enumerate(lines) if tr("en", "res_hands") in x)
    hands = "\n".join(lines[start + 1:start + 9])
    assert hands.count(wild + mark) >= held, hands


async def test_a_player_who_left_is_marked_in_the_lobby_at_once(
        make_server: MakeServer) -> None:
    """dan leaves mid-game (q q): the lobby's line for the table marks him (away) at once; it
    showed his bare name for the grace period that holds his seat."""
    server = await make_server(grace_seconds=60.0)
    ann = await join(server, "ann", new_key(), "join gone --rules gejiu")
    t = await seated(server, "gone", 1)
    dan = await join(server, "dan", new_key(), "join gone")
    await seated(server, "gone", 2)
    ann.send("s")
    await until(lambda: t.game is not None, what="the start key")
    await dan.wait_for("Hand 1/")
    dan.send("qq")
    await until(lambda: not any(s.clients for s in t.seats
                                if s.occupant is not None and s.occupant.name == "dan"),
                what="dan to leave")
    look = await join(server, "lou", new_key(), "lobby")
    await look.wait_for(lambda text: "gone" in text and "dan" in text)
    await look.wait_for("dan(away)")
    for c in (look, ann, dan):
        await c.close()


async def test_a_player_who_left_is_marked_on_the_game_result(server: MahjongServer) -> None:
    """dan leaves mid-game (q q): ann's game result marks him (docs/playing.md: "the game
    result still names him (`cat (away)`)"); it showed his bare name."""
    from tests.test_net import play_by_keys

    ann = await join(server, "ann", new_key(), "join gone --rules gejiu --option hands_per_game=1")
    t = await seated(server, "gone", 1)
    dan = await join(server, "dan", new_key(), "join gone")
    await seated(server, "gone", 2)
    ann.send("s")
    await until(lambda: t.game is not None, what="the start key")
    await dan.wait_for("Hand 1/")
    dan.send("qq")
    await until(lambda: not any(s.clients for s in t.seats
                                if s.occupant is not None and s.occupant.name == "dan"),
                what="dan to leave")
    seat = next(i for i, s in enumerate(t.seats) if s.occupant is not None
                and s.occupant.name == "ann")
    await play_by_keys(t, {seat: ann})
    await ann.wait_for("Enter: game result")
    ann.send("\r")
    await ann.wait_for("Game over")
    await ann.wait_for("Right S · dan (away)")
    for c in (ann, dan):
        await c.close()


async def test_a_shared_tables_computer_players_say_what_they_are(
        server: MahjongServer) -> None:
    """A shared table's computer seats read "easy (computer)" (the docs' word and the seat's
    level), whole on the side seats at 80×24; they read "bot", which the docs keep for a
    program. In Chinese: 简单电脑."""
    from host.table_info import COMPUTER_NAME, computer_names

    c = await join(server, "solo", new_key(), "join lone --rules gejiu")
    t = await seated(server, "lone", 1)
    await c.wait_for("press S")
    c.send("s")
    await until(lambda: t.game is not None, what="the start key")
    text = await c.wait_for(lambda text: text.count("easy (computer)") == 3)
    assert " bot " not in text
    await c.close()
    names = computer_names(("ann", COMPUTER_NAME, COMPUTER_NAME, "bob"), "zh",
                           ("normal", "easy", "expert", "normal"))
    assert names == ("ann", "简单电脑", "高手电脑", "bob")
    assert computer_names((COMPUTER_NAME,) * 4, "en", None)[0] == "computer"
