"""bench.bench_search: the views it keeps are those the expert searches, and its digest of the
expert's choices is the same run after run (what a faster version must leave as it was)."""

from __future__ import annotations

from bench.bench_search import run, searched_views
from engine.bots.expert import ExpertPlayer
from engine.bots.hard import HardPlayer


def test_kept_views_are_searched_and_the_digest_is_stable() -> None:
    views = searched_views("shangrao", 1, 900)
    assert views
    expert = ExpertPlayer()
    for view in views:
        assert view.my_move and len(expert.candidates(view, HardPlayer().choose(view))) >= 2
    first, second = run("shangrao", 1, 900), run("shangrao", 1, 900)
    assert first.split(";")[0] == second.split(";")[0]
    assert f"{len(views)} searched views" in first
