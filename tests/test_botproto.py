"""The bot protocol (engine/botproto.py): leak-free over whole games, answers bounded."""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine.actions import Action, ActionType
from engine.bot_helpers import value_json, waits_json
from engine.botproto import (
    MAX_ANSWER_BYTES,
    AnswerError,
    BotSeat,
    Handshake,
    dumps,
    handshake_of,
    welcome,
)
from engine.bots import make_player
from engine.game import Game
from engine.leaks import view_leaks
from engine.table import EventType, Hand, Phase
from engine.tiles import kind_to_str, parse_tile
from engine.view import build_view
from testkit.scenario import play, rigged_hand
from tests.support.hand_tracker import HandTracker


def _play_with_protocol(rules: str, seed: int, hands: int) -> list[list[dict]]:
    """Normal bots play ``hands`` hands; every seat's protocol lines are built after every
    action and checked against a re-deal of every tile the seat cannot see."""
    game = Game(rules, seed, {"hands_per_game": hands})
    seats = [BotSeat() for _ in range(4)]
    players = [make_player("normal") for _ in range(4)]
    lines: list[list[dict]] = [[], [], [], []]
    rng = random.Random(seed)
    for s in range(4):
        lines[s].append(seats[s].game_start(s, rules, hands))
    for _ in range(hands):
        hand = game.new_hand()
        index = 0
        while True:
            for s in range(4):
                # what the seat would be told now must not depend on what it cannot see
                def project(view, s=s):  # type: ignore[no-untyped-def]
                    return copy.deepcopy(seats[s]).update(view, 5.0)
                assert not view_leaks(hand, s, rng, project), (rules, seed, index, s)
                out = seats[s].update(build_view(hand, s), 5.0)
                for line in out:
                    json.loads(dumps(line))  # every line is one JSON line
                lines[s].extend(out)
            if hand.is_over:
                break
            seat = hand.to_act()[0]
            view = build_view(hand, seat)
            action = players[seat].choose(view)
            pending = seats[seat].pending
            assert pending is not None and pending.legal == view.legal
            # the bot's answer, by id, decodes to the action the player chose
            answer = {"request": pending.number, "choice": pending.legal.index(action)}
            assert seats[seat].decode(json.dumps(answer)) == action
            seats[seat].answered()
            game.apply(seat, action)
            index += 1
    return lines


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_protocol_never_leaks_over_whole_games(rules: str) -> None:
    for seed in (1, 2):
        lines = _play_with_protocol(rules, seed, 2)
        for s in range(4):
            types = [line["type"] for line in lines[s]]
            assert types.count("hand_start") == 2 and types.count("hand_end") == 2
            assert "deal" in types and "discard" in types and "request" in types
            deal = next(line for line in lines[s] if line["type"] == "deal")
            assert len(deal["hand"]) in (13, 14)
            # others' draws carry no tile; the seat's own (head draws) do
            for line in lines[s]:
                if line["type"] == "draw" and not line["replacement"]:
                    assert ("tile" in line) == (line["seat"] == s), line
            end = next(line for line in lines[s] if line["type"] == "hand_end")
            assert sum(end["settlement"]["net"]) + sum(
                end["settlement"]["spectators"].values()) == 0
            assert len(end["hands"]) == 4


def test_rule_events_reach_the_bot() -> None:
    """报听 (Gejiu), 宝 (Shangrao) and 买 (Yichun) show up as events over a few games."""
    seen: dict[str, set[str]] = {}
    for rules in ("yichun", "shangrao", "gejiu"):
        kinds: set[str] = set()
        for seed in range(1, 6):
            for line in _play_with_protocol(rules, seed, 1)[0]:
                kinds.add(line["type"])
        seen[rules] = kinds
    assert "wild" in seen["shangrao"]
    assert {"buy", "no_buy"} & seen["yichun"]
    for kinds in seen.values():
        assert {"hand_start", "deal", "draw", "discard", "request", "hand_end"} <= kinds


def _asked() -> tuple[BotSeat, Game]:
    game = Game("shangrao", 7, {"hands_per_game": 1})
    hand = game.new_hand()
    bs = BotSeat()
    bs.game_start(hand.dealer, "shangrao", 1)
    out = bs.update(build_view(hand, hand.dealer), 10.0)
    assert out[-1]["type"] == "request" and out[-1]["seconds"] == 10.0
    assert hand.phase is Phase.TURN
    return bs, game


def test_answers_by_id_by_json_and_by_text() -> None:
    bs, _ = _asked()
    assert bs.pending is not None
    n, legal = bs.pending.number, bs.pending.legal
    discard = next(a for a in legal if a.type is ActionType.DISCARD)
    assert bs.decode(json.dumps({"request": n, "choice": 0})) == legal[0]
    assert bs.decode(json.dumps({"request": n, "action": discard.to_json()})) == discard
    assert bs.decode(json.dumps({"request": n, "action": str(discard)}).encode()) == discard


@pytest.mark.parametrize(("line", "code"), [
    pytest.param("x" * (MAX_ANSWER_BYTES + 1), "too_long", id="too_long"),
    ("not json", "not_json"),
    (b"\xff\xfe{", "not_json"),
    ("[1, 2]", "not_object"),
    ('{"choice": 0}', "not_object"),
    ('{"request": 99, "choice": 0}', "stale"),
    ('{"request": 1, "choice": 999}', "unknown_id"),
    ('{"request": 1, "choice": "0"}', "unknown_id"),
    ('{"request": 1, "choice": true}', "unknown_id"),
    ('{"request": 1}', "bad_action"),
    ('{"request": 1, "action": "fly away"}', "bad_action"),
    ('{"request": 1, "action": {"a": "discard", "tile": "9x"}}', "bad_action"),
    ('{"request": 1, "action": 5}', "bad_action"),
    ('{"request": 1, "action": "peng 1m"}', "illegal"),
])
def test_bad_answers_are_refused_with_a_code(line: str | bytes, code: str) -> None:
    bs, _ = _asked()
    assert bs.pending is not None and bs.pending.number == 1
    with pytest.raises(AnswerError) as err:
        bs.decode(line)
    assert err.value.code == code
    assert bs.pending is not None  # a refused line changes nothing
    event = bs.error_event(1, err.value)
    assert event["code"] == code and len(dumps(event)) < 1024


def test_no_request_waiting() -> None:
    bs = BotSeat()
    with pytest.raises(AnswerError) as err:
        bs.decode('{"request": 1, "choice": 0}')
    assert err.value.code == "no_request"


def test_the_default_is_the_timer_action() -> None:
    bs, game = _asked()
    assert game.hand is not None
    from engine.expiry import expiry_action
    view = build_view(game.hand, game.hand.dealer)
    assert bs.pending is not None and bs.pending.default == expiry_action(view)
    event = bs.timeout_event(bs.pending.number, bs.pending.default)
    assert Action.from_json(event["action"]) == bs.pending.default


def test_a_repeated_view_asks_once() -> None:
    bs, game = _asked()
    assert game.hand is not None
    assert bs.update(build_view(game.hand, game.hand.dealer)) == []


def test_hello_is_versioned() -> None:
    line = BotSeat.hello("gejiu", {"turn_seconds": 20}, "t1", 20.0)
    assert line["protocol"] == 1 and line["max_answer_bytes"] == MAX_ANSWER_BYTES


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_a_request_is_answered_or_cancelled_before_the_next(rules: str, seed: int) -> None:
    """A server coalesces updates: after its timer played a move for it, the seat may see its
    next move (or the hand's end) without seeing the last one go. The request it had is then
    cancelled, never silently replaced (issue 54, bug 2: an answer to it was refused as stale
    with no ``cancel``)."""
    from engine.expiry import expiry_action

    game = Game(rules, seed, {"hands_per_game": 2})
    bs = BotSeat()
    players = [make_player("normal") for _ in range(4)]
    open_requests: set[int] = set()
    cancelled: list[int] = []

    def tell(out: list[dict]) -> None:
        for line in out:
            if line["type"] == "request":
                assert not open_requests, (line["request"], open_requests)
                open_requests.add(line["request"])
            elif line["type"] == "cancel":
                open_requests.discard(line["request"])
                cancelled.append(line["request"])

    bs.game_start(0, rules, 2)
    decisions = 0
    for _ in range(2):
        hand = game.new_hand()
        while not hand.is_over:
            seat = hand.to_act()[0]
            view = build_view(hand, seat)
            if seat != 0:
                game.apply(seat, players[seat].choose(view))
                continue
            # the seat is told only when it has a move (the views between are coalesced)
            tell(bs.update(view, 5.0))
            pending = bs.pending
            assert pending is not None and pending.legal == view.legal
            decisions += 1
            if decisions % 2:  # its timer plays this one: no answer, nothing told
                game.apply(0, expiry_action(view))
                continue
            action = players[0].choose(view)
            answer = {"request": pending.number, "choice": pending.legal.index(action)}
            assert bs.decode(json.dumps(answer)) == action
            bs.answered()
            open_requests.discard(pending.number)
            game.apply(0, action)
        tell(bs.update(build_view(hand, 0), 5.0))
        assert not open_requests and bs.pending is None
        game.finish_hand()
    assert cancelled


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_a_bot_can_keep_its_hand_from_the_events(rules: str) -> None:
    """Each seat's tiles, kept from the events alone, are the request's at every request of
    whole games: the stream a seat follows from the start never needs a ``resync``."""
    for seed in (1, 2, 3):
        lines = _play_with_protocol(rules, seed, 2)
        for s in range(4):
            tracker = HandTracker()
            for line in lines[s]:
                assert line["type"] != "resync", (rules, seed, s)
                tracker.feed(line)
                if line["type"] == "request":
                    assert tracker.agrees(line), (rules, seed, s, tracker.elements(), line)
            assert not tracker.problems, tracker.problems


def _midway(rules: str, seed: int, actions: int) -> tuple[Game, Hand]:
    game = Game(rules, seed, {"hands_per_game": 2})
    hand = game.new_hand()
    players = [make_player("normal") for _ in range(4)]
    for _ in range(actions):
        seat = hand.to_act()[0]
        game.apply(seat, players[seat].choose(build_view(hand, seat)))
    return game, hand


def test_a_session_that_comes_in_mid_hand_gets_a_resync() -> None:
    """Issue 54, bug 3: a reconnect was told a history that never happened (a ``deal`` that
    was the hand as it is, its own earlier draws without their tiles). A seat that first
    sees a hand under way is told one ``resync`` with its state, then the events go on."""
    game, hand = _midway("gejiu", 5, 30)
    seat = hand.to_act()[0]
    bs = BotSeat()
    bs.joined(2)
    out = bs.update(build_view(hand, seat), 5.0)
    assert [line["type"] for line in out] == ["resync", "request"]
    resync = out[0]
    assert resync["seat"] == seat and resync["hand_no"] == 1 and resync["hands"] == 2
    assert resync["state"] == out[1]["state"]
    tracker = HandTracker()
    players = [make_player("normal") for _ in range(4)]
    for line in out:
        tracker.feed(line)
    asked = 0
    while not hand.is_over:
        s = hand.to_act()[0]
        view = build_view(hand, s)
        action = players[s].choose(view)
        if s == seat:
            pending = bs.pending
            assert pending is not None
            bs.answered()
            asked += 1
        game.apply(s, action)
        for line in bs.update(build_view(hand, seat), 5.0):
            assert line["type"] != "resync"
            tracker.feed(line)
            if line["type"] == "request":
                assert tracker.agrees(line), (tracker.elements(), line["state"])
    assert asked and not tracker.problems
    # a game over (or a hand ended) when the session comes: the state, then the result
    bs = BotSeat()
    bs.joined(2)
    out = bs.update(build_view(hand, seat), 5.0)
    assert [line["type"] for line in out] == ["resync", "hand_end"]
    assert out[0]["state"]["phase"] == "ended"


def test_a_draw_of_its_own_missed_between_views_is_told_by_a_resync() -> None:
    """Views may coalesce: where the seat's own draw went by unseen (its timer played the
    turn between two views), the events cannot tell its tiles, and a ``resync`` follows."""
    game, hand = _midway("gejiu", 5, 0)
    players = [make_player("normal") for _ in range(4)]
    seat = (hand.dealer + 1) % 4
    bs = BotSeat()
    bs.game_start(seat, "gejiu", 2)
    tracker = HandTracker()
    for line in bs.update(build_view(hand, seat), 5.0):
        tracker.feed(line)
    # play on, unseen by the seat, until it has drawn and discarded
    start = len(hand.events)
    while not [e for e in hand.events[start:] if e.seat == seat and e.type is EventType.DRAW] \
            or hand.to_act() == [seat]:
        s = hand.to_act()[0]
        game.apply(s, players[s].choose(build_view(hand, s)))
    out = bs.update(build_view(hand, seat), 5.0)
    assert out and out[-1]["type"] == "resync"
    for line in out:
        tracker.feed(line)
    assert tracker.elements() == sorted(out[-1]["state"]["hand"])


# --- what bot authors expect (issue 54): tsumogiri, the handshake, the helpers -------------
@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_every_discard_says_whether_it_was_the_tile_just_drawn(rules: str) -> None:
    """``tsumogiri`` on every seat's discard, the same for all four seats (public), true
    exactly when the seat's own discard is of the tile its own draw told it."""
    lines = _play_with_protocol(rules, 3, 2)
    told = [[line["tsumogiri"] for line in lines[s] if line["type"] == "discard"]
            for s in range(4)]
    assert all(isinstance(t, bool) for t in told[0]) and told[0]
    assert told[0] == told[1] == told[2] == told[3] and True in told[0] and False in told[0]
    for s in range(4):
        drawn = None
        for line in lines[s]:
            if line["type"] == "draw" and line["seat"] == s:
                drawn = line.get("tile")
            elif line["type"] == "discard" and line["seat"] == s:
                assert line["tsumogiri"] == (drawn is not None and line["tile"] == drawn), line
                drawn = None
            elif line["type"] in ("chi", "peng", "minggang", "hand_start", "resync"):
                drawn = None


def test_a_handshake_is_read_and_unknown_features_ignored() -> None:
    line = json.dumps({"hello": {"name": "robo", "version": "1.2", "features": [
        "waits", "emoji", 7, "tsumogiri"], "extra": True}})
    handshake = handshake_of(line)
    assert handshake == Handshake("robo", "1.2", ("tsumogiri", "waits"))
    assert welcome(handshake, "robo", "1.2") == {"type": "welcome", "name": "robo",
                                                "version": "1.2",
                                                "features": ["tsumogiri", "waits"]}
    assert handshake_of('{"hello": {}}') == Handshake("", "", ())
    for other in ('{"request": 1, "choice": 0}', '{"command": "waits"}', "hello", "[]"):
        assert handshake_of(other) is None
    for bad in ('{"hello": "robo"}', '{"hello": {"name": 5}}', '{"hello": {"features": "x"}}'):
        with pytest.raises(AnswerError) as refused:
            handshake_of(bad)
        assert refused.value.code == "bad_hello"


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_the_helpers_answer_as_the_hints_do_and_leak_nothing(rules: str) -> None:
    """``waits`` gives what the table's hint line computes (tui/view/hints.py) for each
    discard, ``value`` settles a win as the table then does (the pattern and its value), and
    neither changes when what the seat cannot see is dealt anew."""
    from tui.view.hints import unseen_counts as hint_unseen
    from tui.view.hints import waits_of

    rng = random.Random(5)
    wins = 0
    for seed in (1, 2, 3, 4, 5, 6):
        game = Game(rules, seed, {"hands_per_game": 1})
        hand = game.new_hand()
        players = [make_player("hard") for _ in range(4)]
        asked: tuple[int, dict] | None = None
        while not hand.is_over:
            seat = hand.to_act()[0]
            view = build_view(hand, seat)

            def project(v):  # type: ignore[no-untyped-def]
                return waits_json(v), value_json(v, {})
            assert not view_leaks(hand, seat, rng, project), (rules, seed)
            got = waits_json(view)
            unseen = hint_unseen(view)
            tiles = [*view.hand, *([view.drawn] if view.drawn is not None else [])]
            for entry in got["after"]:
                rest = list(tiles)
                if entry["discard"] is not None:
                    rest.remove(parse_tile(entry["discard"]))
                assert [parse_tile(w["tile"]) for w in entry["waits"]] == list(
                    waits_of(view, rest)), entry
                assert [w["unseen"] for w in entry["waits"]] == [
                    unseen[parse_tile(w["tile"])] for w in entry["waits"]]
            if len(tiles) % 3 == 2 and view.phase is Phase.TURN:
                assert {e["discard"] for e in got["after"]} == {
                    kind_to_str(k) for k in set(tiles) if waits_of(view, _less(tiles, k))}
            action = players[seat].choose(view)
            if action.type is ActionType.WIN and len(hand.to_act()) == 1:
                asked = (seat, value_json(view, {}))
            game.apply(seat, action)
        if asked is not None and hand.settlement is not None and len(hand.settlement.wins) == 1:
            seat, value = asked
            (win,) = value["result"]["wins"]
            if rules != "shangrao":  # Shangrao's 宝吊头 is the seat's to say (baodiao)
                assert win["value"] == hand.settlement.wins[0].value, value
            assert win["seat"] == "ESWN"[seat] == value["situation"]["wins"][0]["seat"]
            wins += 1
    assert wins
    # a hand that does not win is said so; a situation given is settled as given
    seat = BotSeat()
    assert value_json(None, {})["result"]["error"]
    given = {"rules": "gejiu", "wins": [{"seat": "S", "hand": "123m 456p 789s EEE 5m",
                                          "tile": "5m", "how": "discard", "from": "W"}]}
    answer = value_json(None, {"situation": given}, 4)
    assert answer["request"] == 4 and answer["result"]["net"]["S"] > 0
    assert seat.helper({"command": "waits"}) == {"type": "waits", "request": None, "after": []}


def _less(tiles: list[int], kind: int) -> list[int]:
    rest = list(tiles)
    rest.remove(kind)
    return rest


# --- gaps an outside bot author found (issue 54, brief B10) --------------------------------
def _rigged_seats(hand: Hand) -> list[BotSeat]:
    seats = [BotSeat() for _ in range(4)]
    for s in range(4):
        seats[s].game_start(s, hand.ruleset.name, 1)
    return seats


def _tell(hand: Hand, seats: list[BotSeat], lines: list[list[dict]]) -> None:
    for s in range(4):
        out = seats[s].update(build_view(hand, s), 5.0)
        lines[s].extend(out)
        if seats[s].pending is not None:
            seats[s].answered()


def test_a_face_down_kong_tells_its_owner_its_tile() -> None:
    """Yichun's 暗杠 lies face down: its ``angang`` event carried no ``tile``, even to the
    seat that made it (which chose the tile, and whose next ``state`` shows it). The owner
    is told the tile; the other seats still are not."""
    hand = rigged_hand("yichun", {0: "1111m 234p 567s 99s EE", 1: "234m 456m 789m 123p 5p"},
                       draws="5p", tail="9p")
    seats = _rigged_seats(hand)
    lines: list[list[dict]] = [[], [], [], []]
    _tell(hand, seats, lines)
    hand.apply(0, Action.parse("angang 1m"))
    _tell(hand, seats, lines)
    hand.apply(0, Action.parse("discard E"))
    _tell(hand, seats, lines)
    kongs = [[line for line in lines[s] if line["type"] == "angang"] for s in range(4)]
    assert kongs[0] == [{"type": "angang", "seat": 0, "tile": "1m"}]
    for s in (1, 2, 3):
        assert kongs[s] == [{"type": "angang", "seat": 0}]  # face down: never leaked
    tracker = HandTracker()
    for line in lines[0]:
        tracker.feed(line)
    assert not tracker.problems
    assert tracker.elements() == sorted(kind_to_str(k) for k in build_view(hand, 0).hand)


def test_a_winners_hand_at_the_end_never_holds_its_winning_tile() -> None:
    """``hand_end.hands`` left a discard's winning tile out but kept a self-draw's in: one
    rule now, the winner's concealed tiles without ``win_tile`` (told beside them)."""
    hand = rigged_hand("yichun", {0: "1111m 234p 567s 99s EE", 1: "234m 456m 789m 123p 5p"},
                       draws="5p", tail="9p")
    seats = _rigged_seats(hand)
    lines: list[list[dict]] = [[], [], [], []]
    play(hand, "E: discard E")
    while hand.to_act() != [1] or hand.phase is not Phase.TURN:
        hand.apply(hand.to_act()[0], Action.pass_())
    hand.apply(1, Action.parse("win"))
    _tell(hand, seats, lines)
    for s in range(4):
        (end,) = [line for line in lines[s] if line["type"] == "hand_end"]
        assert end["how"] == "self_draw" and end["winners"] == [1] and end["win_tile"] == "5p"
        assert sorted(end["hands"][1]) == sorted(["2m", "3m", "4m", "4m", "5m", "6m", "7m",
                                                  "8m", "9m", "1p", "2p", "3p", "5p"])
    # the view the result screen shows keeps the whole hand, as before
    assert build_view(hand, 1).result is not None
    assert len(build_view(hand, 1).result.hands[1]) == 14  # type: ignore[union-attr]


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_every_winners_hand_at_the_end_is_before_its_tile(rules: str) -> None:
    for seed in (1, 2, 3):
        for line in _play_with_protocol(rules, seed, 2)[0]:
            if line["type"] == "hand_end" and line["win_tile"] is not None:
                for w in line["winners"]:
                    assert len(line["hands"][w]) + 3 * len(line["melds"][w]) == 13, line


@pytest.mark.parametrize("rules", ["yichun", "gejiu"])
def test_concealed_and_has_drawn_are_as_documented(rules: str) -> None:
    """``seats[].concealed`` counts the drawn tile; ``has_drawn`` is a tile drawn and not
    yet discarded (not the dealer's first turn, not a turn after a claim). The dealer's
    first turn: 14 tiles in ``hand``, ``drawn`` null, the default the rightmost tile, and
    that discard's ``tsumogiri`` false."""
    lines = _play_with_protocol(rules, 4, 2)
    first_turns = 0
    for s in range(4):
        first = False
        for line in lines[s]:
            if line["type"] == "hand_start":
                first = line["dealer"] == s
            elif line["type"] == "discard" and line["seat"] == s and first:
                assert line["tsumogiri"] is False
                first = False
            if line["type"] != "request" or line["phase"] == "buy":  # 0: not dealt yet
                continue
            state = line["state"]
            for seat in state["seats"]:
                melds = 3 * len(seat["melds"])
                if seat["has_drawn"]:
                    assert seat["concealed"] + melds == 14, seat
                else:
                    assert seat["concealed"] + melds in (13, 14), seat
            mine = state["seats"][s]
            assert mine["concealed"] == len(state["hand"]) + (state["drawn"] is not None)
            assert mine["has_drawn"] == (state["drawn"] is not None)
            if first and line["phase"] == "turn":
                first_turns += 1
                assert len(state["hand"]) == 14 and state["drawn"] is None
                discards = [e["action"]["tile"] for e in line["legal"]
                            if e["action"]["a"] == "discard" and not e["action"].get("ting")]
                assert line["default"] == f"discard {state['hand'][-1]}"
                assert state["hand"][-1] in discards
    assert first_turns == 2
