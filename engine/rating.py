"""Ratings (等级分): one number per player and ruleset, Elo-like for four players.

A finished game is read as the six pairwise results of its four final scores: of two
players, the one who finished with more points won that pair (1), an equal score is a draw
(½). Each player's expected result against an opponent rated ``d`` points lower is the Elo
curve ``1 / (1 + 10 ** (-d / 400))``, and his rating moves by ``K / 3`` times the sum, over his
three opponents, of (result − expected). So a player rated 400 above another is expected to
finish ahead of him 10 times in 11; beating three equals gains ``K / 2``, finishing last
among them loses as much; among players of one ``K`` the changes add up to nothing.

``K`` is :data:`K_PROVISIONAL` for a player's first :data:`PROVISIONAL_GAMES` games of a
ruleset (his rating is *provisional*: it moves fast to where he stands), then
:data:`K_SETTLED`. Everyone starts at :data:`START`.

Computer players have fixed reference ratings per level and ruleset (:data:`REFERENCE`):
they enter the update as opponents with those ratings and are never updated. The references
are measured: in ``mahjong-ssh simulate --duplicate`` between two levels, the difference of
their points per hand (its mean ``m`` and standard deviation ``s``, pair by pair in the same
hand) gives the chance that the stronger finishes a game of ``H`` hands ahead of the weaker,
``p = Φ(√H · m / s)`` (a game's score difference being the sum of ``H`` hands'), and that
chance the Elo gap ``400 · log10(p / (1 − p))`` (:func:`elo_gap`). ``normal`` is :data:`START`:
a newcomer is taken to play as well as the ``normal`` computer until his games say otherwise.

Pure: standard library only, no state; the store applies it inside the transaction that
writes the game's results.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

START = 1500.0  # everyone's first rating in a ruleset
K_PROVISIONAL = 64.0  # a player's first games: the rating finds its level fast
K_SETTLED = 32.0
PROVISIONAL_GAMES = 10  # games of a ruleset before a rating is settled
REFERENCE_HANDS = 8  # the game length the references are measured for (the default)


@dataclass(frozen=True)
class Entrant:
    """One seat of a finished game, as the rating update sees it: the rating before the
    game, the game's final score, the rated games played before it, and whether the rating
    is fixed (a computer player's reference, an unrated guest's start rating)."""

    rating: float
    score: int
    games: int = 0
    fixed: bool = False

    @property
    def k(self) -> float:
        return K_PROVISIONAL if self.games < PROVISIONAL_GAMES else K_SETTLED


def expected(rating: float, opponent: float) -> float:
    """The expected pairwise result (0–1) of a player rated ``rating`` against one rated
    ``opponent``."""
    return 1.0 / (1.0 + math.pow(10.0, (opponent - rating) / 400.0))


def pair_result(score: int, other: int) -> float:
    """1 for finishing ahead of ``other``, ½ for the same score, 0 for behind."""
    return 1.0 if score > other else 0.5 if score == other else 0.0


def changes(entrants: Sequence[Entrant]) -> list[float]:
    """Each entrant's rating change in this game (0 for a fixed one), in their order. Fewer
    than two entrants: no change."""
    n = len(entrants)
    if n < 2:
        return [0.0] * n
    out = []
    for i, me in enumerate(entrants):
        if me.fixed:
            out.append(0.0)
            continue
        total = sum(pair_result(me.score, other.score) - expected(me.rating, other.rating)
                    for j, other in enumerate(entrants) if j != i)
        out.append(me.k * total / (n - 1))
    return out


def updated(entrants: Sequence[Entrant]) -> list[float]:
    """Each entrant's rating after the game (a fixed one's unchanged)."""
    return [e.rating + d for e, d in zip(entrants, changes(entrants), strict=True)]


def shown(rating: float) -> int:
    """The rating as players see it: a whole number."""
    return math.floor(rating + 0.5)


def provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def label(rating: float, games: int) -> str:
    """``1523``, or ``1523?`` while provisional."""
    return f"{shown(rating)}{'?' if provisional(games) else ''}"


def _phi(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def elo_gap(mean: float, sd: float, hands: int = REFERENCE_HANDS) -> float:
    """The Elo gap of a level that nets ``mean`` points a hand more than another, the
    difference's standard deviation a hand being ``sd``, over games of ``hands`` hands (see
    the module docstring)."""
    if sd <= 0:
        raise ValueError("the standard deviation must be positive")
    p = _phi(math.sqrt(hands) * mean / sd)
    p = min(max(p, 1e-6), 1 - 1e-6)
    return 400.0 * math.log10(p / (1.0 - p))


@dataclass(frozen=True)
class Measured:
    """A level's edge over the next one down in a ruleset: points per hand (mean difference
    and its standard deviation, pair by pair in the same hand) and where it was measured."""

    mean: float
    sd: float
    source: str


# What the references rest on (docs/performance.md has the runs; the spread of a hand's
# pairwise difference from `simulate --duplicate ... --seed 31`, 2000 hands normal/easy,
# 400 hands hard/normal). hard over normal: the pooled long duplicate runs of
# docs/performance.md (Yichun 3 × 20000 hands, Shangrao 2 × 2000, Gejiu 2 × 60000). expert
# over hard: its duplicate runs in pieces, 4,000 deals (Gejiu and Shangrao 8,000; "Four times
# the samples" there).
MEASURED: Mapping[str, Mapping[str, Measured]] = {
    "yichun": {
        "easy": Measured(3.511, 9.955, "normal − easy, duplicate, 2000 hands, seed 31"),
        "hard": Measured(0.157, 10.879, "hard − normal, duplicate, 3 × 20000 hands pooled"),
        "expert": Measured(0.268, 8.68, "expert − hard, duplicate 16000 hands, seeds 4901–4916 "
                           "pooled; sd of bench_paired's hand difference"),
    },
    "shangrao": {
        "easy": Measured(1.662, 7.969, "normal − easy, duplicate, 2000 hands, seed 31"),
        "hard": Measured(0.327, 8.089, "hard − normal, duplicate, seeds 97 and 2026"),
        "expert": Measured(0.210, 2.81, "expert − hard, duplicate 32000 hands, seeds 4701–4708 "
                           "(0.184) and, 宝吊 wins valued, 5701–5708 (0.257), by inverse "
                           "variance; sd of bench_paired's hand difference"),
    },
    "gejiu": {
        "easy": Measured(3.247, 10.411, "normal − easy, duplicate, 2000 hands, seed 31"),
        "hard": Measured(0.105, 14.197, "hard − normal, duplicate, 2 × 60000 hands"),
        "expert": Measured(0.107, 4.08, "expert − hard, duplicate 32000 hands, seeds 5301–5332 "
                           "pooled; sd of bench_paired's hand difference"),
    },
}


def _references() -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for rules, edges in MEASURED.items():
        easy, hard, expert = edges["easy"], edges["hard"], edges["expert"]
        h = START + elo_gap(hard.mean, hard.sd)
        out[rules] = {"easy": float(round(START - elo_gap(easy.mean, easy.sd))),
                      "normal": START,
                      "hard": float(round(h)),
                      "expert": float(round(h + elo_gap(expert.mean, expert.sd)))}
    return out


REFERENCE: Mapping[str, Mapping[str, float]] = _references()  # rules -> level -> rating


def reference(rules: str, level: str) -> float:
    """The fixed rating of the computer ``level`` in ``rules``; KeyError for a ruleset or
    level without one (every level of :data:`engine.bots.LEVELS` has one in every ruleset:
    a test checks it)."""
    return REFERENCE[rules][level]
