"""The tournament model (engine/tournament.py, issue 56): seating, duplicate scoring,
standings, the seeds' secrecy, and the duplicate game's fixed deals (engine/game.py)."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from engine.actions import Action
from engine.game import Game
from engine.tournament import (
    FINISHED,
    RUNNING,
    Entry,
    Round,
    RoundTable,
    Seat,
    TableResult,
    Tournament,
    TournamentError,
    duplicate_scores,
)


def _tournament(n: int, rounds: int = 3, duplicate: bool = True, seed: int = 7) -> Tournament:
    t = Tournament("club", "yichun", rounds, host=1, seed=seed, duplicate=duplicate)
    for i in range(1, n + 1):
        t.join(Entry(i, f"p{i}"))
    return t


def _play_round(t: Tournament, rng: random.Random, hands: int = 2) -> Round | None:
    """Every table of the current round finished with made-up zero-sum hands."""
    round_ = t.current
    assert round_ is not None
    nxt = None
    for table in round_.tables:
        nets = []
        for _ in range(hands):
            w = rng.randrange(4)
            net = [-10, -10, -10, -10]
            net[w] = 30
            nets.append((net[0], net[1], net[2], net[3]))
        nxt = t.record(round_.no, table.no, TableResult(tuple(nets), ((0,),) * hands, "g"))
    return nxt


def _pairs(t: Tournament) -> list[frozenset[int]]:
    out = []
    for r in t.played:
        for table in r.tables:
            pids = [s.pid for s in table.seats if s.pid is not None]
            out += [frozenset(p) for p in itertools.combinations(pids, 2)]
    return out


def test_join_refusals_and_start_needs_four() -> None:
    t = _tournament(3)
    with pytest.raises(TournamentError) as exc:
        t.join(Entry(2, "again"))
    assert exc.value.code == "tournament_joined"
    with pytest.raises(TournamentError) as exc:
        t.start()
    assert exc.value.code == "tournament_few"
    t.join(Entry(4, "p4"))
    t.start()
    assert t.state == RUNNING
    with pytest.raises(TournamentError) as exc:
        t.join(Entry(5, "late"))
    assert exc.value.code == "tournament_started"


def test_short_tables_are_filled_by_marked_computers_one_a_table() -> None:
    t = _tournament(6)
    t.fill_level = "hard"
    round_ = t.start()
    assert len(round_.tables) == 2
    for table in round_.tables:
        fillers = [s for s in table.seats if s.filler]
        assert len(fillers) == 1 and fillers[0].level == "hard"
    people = sorted(s.pid for tb in round_.tables for s in tb.seats if s.pid is not None)
    assert people == [1, 2, 3, 4, 5, 6]


def test_no_repeated_tablemates_where_avoidable() -> None:
    # 16 players, 3 rounds: a seating without any pair twice exists (and is found)
    t = _tournament(16, rounds=3)
    rng = random.Random(1)
    t.start()
    _play_round(t, rng)
    _play_round(t, rng)
    pairs = _pairs(t)
    assert len(pairs) == len(set(pairs)) == 3 * 4 * 6
    # 8 players: some pairs must meet again in round 2 (four of one table of round 1 are
    # spread over two tables at best: two pairs a table), and no more do
    t = _tournament(8, rounds=2)
    t.start()
    _play_round(t, rng)
    pairs = _pairs(t)
    assert len(pairs) - len(set(pairs)) == 4


def test_swiss_by_standing_after_round_one() -> None:
    t = _tournament(16, rounds=2, duplicate=False)
    t.start()
    _play_round(t, random.Random(3))
    order = [s.pid for s in t.standings()]
    round2 = t.current
    assert round2 is not None and round2.no == 2
    top = {s.pid for s in round2.tables[0].seats}
    assert order[0] in top  # the leader at the first table, with near rivals who are new to him
    assert all(order.index(p) < 8 for p in top if p is not None)


def test_winds_rotate_across_rounds() -> None:
    t = _tournament(4, rounds=4)
    rng = random.Random(5)
    t.start()
    for _ in range(3):
        _play_round(t, rng)
    winds: dict[int, list[int]] = {}
    for r in t.played:
        for wind, seat in enumerate(r.tables[0].seats):
            assert seat.pid is not None
            winds.setdefault(seat.pid, []).append(wind)
    assert all(sorted(w) == [0, 1, 2, 3] for w in winds.values())


def test_seating_is_deterministic_from_the_seed() -> None:
    a, b, c = _tournament(9, seed=11), _tournament(9, seed=11), _tournament(9, seed=12)
    assert a.start() == b.start()
    assert c.start().seed != a.played[0].seed


def test_duplicate_tables_share_the_round_seed_others_do_not() -> None:
    dup = _tournament(8).start()
    assert len({t.seed for t in dup.tables}) == 1 and dup.tables[0].seed == dup.seed
    raw = _tournament(8, duplicate=False).start()
    assert len({t.seed for t in raw.tables}) == 2


def test_duplicate_score_by_hand_small_case() -> None:
    seat = Seat(1, "x")
    seats = (seat, seat, seat, seat)
    round_ = Round(1, 5, (RoundTable(1, seats, 5), RoundTable(2, seats, 5),
                          RoundTable(3, seats, 5)))
    round_.results[1] = TableResult(((30, -10, -10, -10), (0, 0, 0, 0)))
    round_.results[2] = TableResult(((12, -4, -4, -4), (-6, 18, -6, -6)))
    round_.results[3] = TableResult(((-8, 24, -8, -8),))  # one hand only (a time limit)
    scores = duplicate_scores(round_)
    # hand 1, east: 30 against (12 + -8) / 2 = 2 -> 28; hand 2, east: 0 against -6 -> 6
    assert scores[(1, 0)] == 28 + 6
    # table 2 east: hand 1: 12 - (30 - 8) / 2 = 1; hand 2: -6 - 0 = -6
    assert scores[(2, 0)] == 1 - 6
    # table 3 east: hand 1 only: -8 - (30 + 12) / 2 = -29
    assert scores[(3, 0)] == -29
    # each group (a seat of a hand) sums to nothing
    for seat_no in range(4):
        assert sum(scores[(t, seat_no)] for t in (1, 2, 3)) == pytest.approx(0)


def test_standings_order_and_tie_breaks() -> None:
    t = _tournament(8, rounds=1, duplicate=True)
    round_ = t.start()
    a, b = round_.tables
    # both tables play the same deal; at table a east wins 30, at table b east wins 12
    t.record(1, 1, TableResult(((30, -10, -10, -10),), ((0,),)))
    assert t.state == RUNNING
    t.record(1, 2, TableResult(((12, -4, -4, -4),), ((0,),)))
    assert t.state == FINISHED
    rows = t.standings()
    assert [rows[0].pid, rows[-1].pid] == [a.seats[0].pid, b.seats[0].pid]
    assert (rows[0].duplicate, rows[0].raw, rows[0].hands_won) == (18, 30, 1)
    assert (rows[-1].duplicate, rows[-1].raw) == (-18, 12)  # won, but worse than the field
    # the six losers: 6 for those of table b (-4 against -10), -6 for table a's
    assert [r.duplicate for r in rows[1:-1]] == [6, 6, 6, -6, -6, -6]
    assert {r.pid for r in rows[1:4]} == {s.pid for s in b.seats[1:]}
    # equal duplicate and raw scores: in the order they joined
    tied = [r.pid for r in rows[1:4]]
    assert tied == sorted(tied)


def test_raw_tournament_ranks_by_raw_score() -> None:
    t = _tournament(4, rounds=1, duplicate=False)
    table = t.start().tables[0]
    t.record(1, 1, TableResult(((-10, 30, -10, -10),), ((1,),)))
    assert t.standings()[0].pid == table.seats[1].pid


def test_seeds_are_secret_until_the_round_ends() -> None:
    t = _tournament(8, rounds=2, seed=918273645)
    round1 = t.start()
    text = json.dumps(t.public())
    assert str(t.seed) not in text and str(round1.seed) not in text
    assert all(str(tb.seed) not in text for tb in round1.tables)
    t.record(1, 1, TableResult(((0, 0, 0, 0),), game_id="k7m2x9qd"))
    text = json.dumps(t.public())  # one table still plays: not even the other's replay
    assert str(round1.seed) not in text and "k7m2x9qd" not in text
    round2 = t.record(1, 2, TableResult(((0, 0, 0, 0),)))
    assert round2 is not None
    shown = t.public()
    assert shown["rounds"][0]["seed"] == round1.seed  # published for checking
    assert shown["rounds"][0]["tables"][0]["result"]["game_id"] == "k7m2x9qd"
    assert "seed" not in shown["rounds"][1] and "seed" not in shown
    assert "pid" not in json.dumps(shown) and "host" not in shown  # names, not account ids
    assert shown["rounds"][0]["tables"][0]["seats"][0]["name"] == round1.tables[0].seats[0].name
    assert str(round2.seed) not in json.dumps(shown)


def test_kept_and_read_back() -> None:
    t = _tournament(6, rounds=2)
    _ = t.start()
    t.record(1, 1, TableResult(((5, -5, 0, 0),), ((0,),), "abcd2345"))
    back = Tournament.from_json(json.loads(json.dumps(t.to_json())))
    assert back == t
    assert back.to_json() == t.to_json()
    with pytest.raises(ValueError):
        Tournament.from_json({**t.to_json(), "state": "weird"})


def test_record_refuses_another_round_and_keeps_the_first_result() -> None:
    t = _tournament(4, rounds=2)
    t.start()
    with pytest.raises(TournamentError):
        t.record(2, 1, TableResult(()))
    with pytest.raises(TournamentError):
        t.record(1, 9, TableResult(()))
    nxt = t.record(1, 1, TableResult(((1, -1, 0, 0),)))
    assert nxt is not None and nxt.no == 2


def _play_out(game: Game, rng: random.Random) -> list[tuple[int, int]]:
    """A whole game of random legal actions; each hand's (seed, dealer)."""
    deals = []
    while not game.is_over:
        hand = game.new_hand()
        deals.append((hand.seed, hand.dealer))
        while not hand.is_over:
            moves: list[tuple[int, Action]] = [
                (seat, a) for seat in range(4) for a in hand.legal_actions(seat)]
            seat, action = rng.choice(moves)
            game.apply(seat, action)
    return deals


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_a_duplicate_game_deals_hand_k_alike_whatever_is_played(rules: str) -> None:
    options = {"hands_per_game": 5}
    a = _play_out(Game(rules, 99, options, rotate_dealer=True), random.Random(1))
    b = _play_out(Game(rules, 99, options, rotate_dealer=True), random.Random(2))
    assert a == b
    assert [d for _, d in a] == [(a[0][1] + k) % 4 for k in range(5)]


def test_a_hand_limit_ends_the_game_after_the_hand_in_progress() -> None:
    game = Game("yichun", 3, {"hands_per_game": 8})
    rng = random.Random(4)
    hand = game.new_hand()
    game.hand_limit = len(game.history) + 1  # the time is up in hand 1
    while not hand.is_over:
        seat, action = rng.choice([(s, a) for s in range(4) for a in hand.legal_actions(s)])
        game.apply(seat, action)
    assert game.is_over and len(game.history) == 1 and game.hands_per_game == 1
