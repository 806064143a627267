"""The rating model (engine/rating.py): four-player Elo from the pairwise results of the
final scores, computers at fixed references."""

from __future__ import annotations

import itertools

import pytest

from engine import rating as elo
from engine.bots import LEVELS
from engine.rulesets import RULESETS


def entrants(*scores: int, ratings: tuple[float, ...] = (1500.0,) * 4,
             games: int = 20) -> list[elo.Entrant]:
    return [elo.Entrant(r, s, games) for r, s in zip(ratings, scores, strict=True)]


def test_equal_players_gain_and_lose_by_placement_and_the_sum_is_kept() -> None:
    d = elo.changes(entrants(30, 10, -10, -30))
    k = elo.K_SETTLED
    assert d == pytest.approx([k / 2, k / 6, -k / 6, -k / 2])
    assert sum(d) == pytest.approx(0.0)


def test_the_sum_is_kept_for_any_ratings_and_scores_of_one_k() -> None:
    for ratings in [(1500, 1600, 1400, 1900), (1200, 1210, 1800, 1500)]:
        for scores in itertools.permutations((40, 0, 0, -40)):
            d = elo.changes(entrants(*scores, ratings=tuple(map(float, ratings))))
            assert sum(d) == pytest.approx(0.0, abs=1e-9)


def test_symmetry_swapping_two_players_swaps_their_changes() -> None:
    ratings = (1450.0, 1620.0, 1500.0, 1380.0)
    d = elo.changes(entrants(12, -4, 8, -16, ratings=ratings))
    swapped = elo.changes(entrants(-4, 12, 8, -16, ratings=(1620.0, 1450.0, 1500.0, 1380.0)))
    assert swapped == pytest.approx([d[1], d[0], d[2], d[3]])


def test_a_better_placement_never_gains_less() -> None:
    # equal players: the changes follow the order of the scores, whatever the seats
    for scores in itertools.permutations((30, 10, -10, -30)):
        d = elo.changes(entrants(*scores))
        by_score = [d[i] for i in sorted(range(4), key=lambda i: -scores[i])]
        assert by_score == sorted(by_score, reverse=True) and by_score[0] > by_score[-1]
    # one player among unequal others: placed first he gains more than placed second
    ratings = (1500.0, 1530.0, 1470.0, 1600.0)
    first = elo.changes(entrants(30, 10, -10, -30, ratings=ratings))[0]
    second = elo.changes(entrants(10, 30, -10, -30, ratings=ratings))[0]
    last = elo.changes(entrants(-30, 10, -10, 30, ratings=ratings))[0]
    assert first > second > last


def test_ties_are_half_a_win() -> None:
    d = elo.changes(entrants(0, 0, 0, 0))
    assert d == pytest.approx([0.0] * 4)
    # the stronger one loses rating in a draw, the weaker gains as much
    d = elo.changes(entrants(5, 5, ratings=(1700.0, 1300.0)))
    assert d[0] < 0 < d[1] and d[0] == pytest.approx(-d[1])
    assert (elo.pair_result(3, 3), elo.pair_result(4, 3), elo.pair_result(2, 3)) == (0.5, 1, 0)


def test_beating_a_stronger_field_pays_more_than_beating_a_weaker_one() -> None:
    strong = elo.changes(entrants(30, 0, 0, -30, ratings=(1500.0, 1700.0, 1700.0, 1700.0)))
    weak = elo.changes(entrants(30, 0, 0, -30, ratings=(1500.0, 1300.0, 1300.0, 1300.0)))
    assert strong[0] > weak[0] > 0


def test_fixed_entrants_keep_their_rating_and_are_opponents_all_the_same() -> None:
    hard = elo.reference("shangrao", "hard")
    field = [elo.Entrant(1500.0, 20, 30), elo.Entrant(hard, 10, fixed=True),
             elo.Entrant(hard, -10, fixed=True), elo.Entrant(hard, -20, fixed=True)]
    d = elo.changes(field)
    assert d[1:] == [0.0, 0.0, 0.0]
    assert elo.updated(field)[1:] == [hard, hard, hard]
    assert d[0] == pytest.approx(elo.K_SETTLED * sum(1 - elo.expected(1500.0, hard)
                                                     for _ in range(3)) / 3)


def test_provisional_players_move_twice_as_fast() -> None:
    new = elo.Entrant(1500.0, 10, games=0)
    old = elo.Entrant(1500.0, -10, games=elo.PROVISIONAL_GAMES)
    d = elo.changes([new, old])
    assert d == pytest.approx([elo.K_PROVISIONAL / 2, -elo.K_SETTLED / 2])
    assert elo.label(1523.4, 3) == "1523?" and elo.label(1523.6, 10) == "1524"
    assert elo.changes([new]) == [0.0]


def test_expected_follows_the_elo_curve() -> None:
    assert elo.expected(1500, 1500) == 0.5
    assert elo.expected(1900, 1500) == pytest.approx(10 / 11)
    assert elo.expected(1500, 1900) + elo.expected(1900, 1500) == pytest.approx(1.0)


def test_every_level_has_a_reference_in_every_ruleset_in_order() -> None:
    for rules in RULESETS:
        refs = [elo.reference(rules, level) for level in LEVELS]
        assert elo.reference(rules, "normal") == elo.START
        assert refs == sorted(refs), rules  # easy < normal <= hard
        assert refs[0] < elo.START - 100  # normal beats easy clearly everywhere
    with pytest.raises(KeyError):
        elo.reference("yichun", "grandmaster")


def test_the_gap_from_points_a_hand() -> None:
    assert elo.elo_gap(0.0, 10.0) == pytest.approx(0.0)
    assert elo.elo_gap(-1.0, 10.0) == pytest.approx(-elo.elo_gap(1.0, 10.0))
    # a longer game shows the same edge more surely
    assert elo.elo_gap(1.0, 10.0, hands=16) > elo.elo_gap(1.0, 10.0, hands=8) > 0
    # p = Φ(√8 · 3.5 / 10) ≈ 0.84: about 290 points
    assert 270 < elo.elo_gap(3.5, 10.0) < 310
    with pytest.raises(ValueError):
        elo.elo_gap(1.0, 0.0)


def test_the_players_guide_shows_the_references_the_code_uses() -> None:
    """docs/playing.md's table of the computers' ratings is the code's, level by level."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "playing.md").read_text("utf-8")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("|")]
    header = next(ln for ln in lines if "easy" in ln and "normal" in ln)
    levels = [c.strip() for c in header.strip("|").split("|")][1:]
    assert levels == list(LEVELS)
    names = {"yichun": "宜春 Yichun", "shangrao": "上饶 Shangrao", "gejiu": "个旧 Gejiu"}
    for rules, name in names.items():
        row = next(ln for ln in lines if ln.startswith(f"| {name} |"))
        shown = [float(c) for c in row.strip("|").split("|")[1:]]
        assert shown == [elo.reference(rules, level) for level in LEVELS], rules
