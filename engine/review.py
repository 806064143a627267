"""The review of one seat's play in a finished game by the ``expert`` computer player.

:func:`decisions` lists a seat's decisions in a game's record (``engine.replay``): each hand's
actions of that seat where it had more than one legal action, with the :class:`~engine.view.View`
the seat had then (its own concealed tiles only, as at the table: never another seat's, although
the record holds them). :func:`assess` weighs one decision with
:meth:`~engine.bots.expert.ExpertPlayer.assess`: the expert's choice, the expected points of
each action it weighs (mean over sampled hidden hands, with the 95% interval's half width),
and the *loss*, how much less the action taken was worth than the expert's choice, measured on
the same samples (so its interval is the difference's, not either value's). :func:`summary`
puts the biggest losses first.

Everything here is pure and deterministic (the same decision gives the same assessment, in this
process or another), and a decision and its assessment pickle, so the caller may run
:func:`assess` in a worker process: about 0.1 s a decision at 64 samples (2026-12-04).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from engine.actions import Action
from engine.bots.expert import ActionValue, ExpertPlayer
from engine.replay import GameSteps
from engine.view import View, build_view

# Sampled hidden hands per action in a review: a whole game's decisions are assessed while the
# player waits (about 0.1 s a decision here), so fewer than the expert's own search at the table
# (engine.bots.expert.SAMPLES), whose figures for a decision this many measure to ± 1-2 points.
REVIEW_SAMPLES: Final = 64

@dataclass(frozen=True)
class Decision:
    """One decision of the reviewed seat: where it is in the game, what the seat saw, and what
    it played."""

    hand_index: int  # the hand's place in the record (0-based: GameSteps.hands[i])
    hand_no: int  # the hand's number in its game (1, 2, …)
    index: int  # the action's index within its hand: the hand is ``at(index)`` before it
    view: View  # the seat's view just before it acted
    taken: Action

    @property
    def seat(self) -> int:
        assert self.view.viewer is not None
        return self.view.viewer

    @property
    def key(self) -> tuple[int, int]:
        """Its place in the game: (hand index, action index)."""
        return (self.hand_index, self.index)


@dataclass(frozen=True)
class Assessment:
    """The expert's reading of one decision."""

    decision: Decision
    choice: Action  # what the expert would play
    values: tuple[ActionValue, ...]  # the weighed actions, best mean first; () when none is
    loss: float  # points per hand given up: the expert's choice over the action taken (≥ 0)
    agrees: bool  # the action taken is the expert's choice
    loss_half: float = 0.0  # the loss's 95% half width (of the difference, sample by sample)

    @property
    def weighed(self) -> bool:
        """Whether the search put figures on this decision (buying, kongs and 报听 are
        ``hard``'s rules, not weighed)."""
        return bool(self.values)

    def value_of(self, action: Action) -> ActionValue | None:
        return next((v for v in self.values if v.action == action), None)


@dataclass(frozen=True)
class Summary:
    """The assessed decisions, the biggest loss first (ties: in the order played)."""

    ranked: tuple[Assessment, ...]
    total: float  # the sum of the losses
    agreed: int  # decisions where the action taken was the expert's
    weighed: int  # decisions the search put figures on

    @property
    def count(self) -> int:
        return len(self.ranked)


def decisions(game: GameSteps, seat: int) -> list[Decision]:
    """``seat``'s decisions in ``game``, in the order played: each of its actions where it had
    more than one legal action (a forced pass, a lone legal discard are left out)."""
    if seat not in range(4):
        raise ValueError(f"a seat is 0 to 3, got {seat}")
    out: list[Decision] = []
    for hi, steps in enumerate(game.hands):
        for i, (s, action) in enumerate(steps.actions):
            if s != seat:
                continue
            view = build_view(steps.at(i), seat)
            if len(view.legal) < 2:
                continue
            out.append(Decision(hi, steps.hand_no, i, view, action))
    return out


def assess(decision: Decision, samples: int = REVIEW_SAMPLES) -> Assessment:
    """The expert's reading of ``decision`` with ``samples`` sampled hidden hands per action,
    a change of the action hard would play rechecked on twice as many (the expert's own ratio;
    a worker process may run this: its arguments and result pickle)."""
    player = ExpertPlayer(samples=samples, recheck=2 * samples)
    choice, values = player.assess(decision.view, decision.taken)
    values = [v for v in values if math.isfinite(v.mean)]  # never a figure that is not one
    ranked = tuple(sorted(values, key=lambda v: -v.mean))
    taken = next((v for v in ranked if v.action == decision.taken), None)
    agrees = choice == decision.taken
    loss = loss_half = 0.0
    if taken is None:
        ranked = ()  # the action played has no figure: nothing to compare it with
    elif not agrees:
        # the gains are over the action taken, sample by sample: the loss is the expert's
        # choice's gain (its interval is the difference's), never below 0
        best = next((v for v in ranked if v.action == choice), None)
        if best is not None and best.gain > 0:
            loss, loss_half = best.gain, best.gain_half
    return Assessment(decision, choice, ranked, loss, agrees, loss_half)


def summary(assessments: Iterable[Assessment]) -> Summary:
    """The assessments, the biggest loss first, and their totals."""
    done = list(assessments)
    ranked = tuple(sorted(done, key=lambda a: (-a.loss, a.decision.key)))
    return Summary(ranked, sum(a.loss for a in done), sum(1 for a in done if a.agrees),
                   sum(1 for a in done if a.weighed))


def seat_of(text: str, names: Sequence[str] = ()) -> int:
    """A seat as a person names it: ``E``/``S``/``W``/``N`` (any case), ``0``–``3``, the
    Chinese wind (东南西北), or the name of the player who sat there (``names``, the record's
    ``game`` line). :class:`ValueError` saying why not."""
    word = text.strip()
    if not word:
        raise ValueError("no seat given: E, S, W, N, 0-3 or a player's name")
    upper = word.upper()
    for letters in ("ESWN", "东南西北", "0123"):
        if len(word) == 1 and upper in letters:
            return letters.index(upper)
    if upper in ("EAST", "SOUTH", "WEST", "NORTH"):
        return ("EAST", "SOUTH", "WEST", "NORTH").index(upper)
    found = [s for s, n in enumerate(names) if n and n.casefold() == word.casefold()]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise ValueError(f"{word!r} sat in more than one seat: name it by E, S, W or N")
    who = ", ".join(f"{'ESWN'[s]} {n}" for s, n in enumerate(names) if n)
    raise ValueError(f"no seat {word!r}: E, S, W, N, 0-3"
                     + (f" or a player's name ({who})" if who else ""))
