"""The review of one seat's play in a finished game by the ``expert`` computer player.

:func:`decisions` lists a seat's decisions in a game's record (``engine.replay``): each hand's
actions of that seat where it had more than one legal action, with the :class:`~engine.view.View`
the seat had then (its own concealed tiles only, as at the table: never another seat's, although
the record holds them). :func:`assess` weighs one decision with
:meth:`~engine.bots.expert.ExpertPlayer.read`: the expert's choice, the expected points of
each action it weighs (mean over sampled hidden hands, with the 95% interval's half width),
and the *loss*, how much less the action taken was worth than the expert's choice, measured on
the same samples (so its interval is the difference's, not either value's); a difference
inside its own interval is no loss (:func:`unclear`, the rule by which the expert keeps its
choice where another figure beats it by as little). The expert keeps
``hard``'s choice unless a gain is clear, so another action's figure may beat its choice: the
assessment names that action and why the choice stands (:class:`Kept`), and a win on offer that
the choice declines, by which rule (:class:`Declined`). :func:`summary` puts the biggest losses
first.

Everything here is pure and deterministic (the same decision gives the same assessment, in this
process or another), and a decision and its assessment pickle, so the caller may run
:func:`assess` in a worker process: about 0.1 s a decision at 64 samples (2026-12-04).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from engine.actions import Action, ActionType
from engine.bots.expert import CONFIDENCE, ActionValue, ExpertPlayer, Reading
from engine.bots.hard import HardPlayer
from engine.replay import GameSteps
from engine.view import View, build_view

# Sampled hidden hands per action in a review: a whole game's decisions are assessed while the
# player waits (about 0.1 s a decision here), so fewer than the expert's own search at the table
# (engine.bots.expert.SAMPLES), whose figures for a decision this many measure to ± 1-2 points.
REVIEW_SAMPLES: Final = 64
TIED: Final = 0.005  # points: figures closer than this read the same (to two decimals)

class Kept(enum.Enum):
    """Why the expert keeps a choice that another weighed action's figure beats. Its choice
    is ``hard``'s rules' unless the search finds a clear gain over it: a figure is a mean
    over sampled hidden hands, and a search that changed its play on noise would only add
    noise."""

    BEST = "best"  # nothing to keep: no figure shown beats the choice's
    NOISE = "noise"  # the gain is inside its own 95% interval: the two cannot be told apart
    SMALL = "small"  # clear of its interval, but under MIN_GAIN points a hand
    RECHECKED = "rechecked"  # clear on these samples, gone on fresh ones (the winner's curse)


@dataclass(frozen=True)
class Declined:
    """A win on offer that the expert's choice declines, by one of ``hard``'s rules."""

    rule: str  # "baodiao" (Shangrao 宝吊头), "menqing" (Yichun 门清), "figures" (the search)
    value: float = 0.0  # baodiao: the pattern value waiting in the 宝吊头 state
    now: float = 0.0  # baodiao: the win's pattern value now


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
    # a weighed action whose figure beats the choice's (the best such), its gain measured over
    # the choice sample by sample; None where the choice's figure is the best shown
    better: ActionValue | None = None
    kept: Kept = Kept.BEST  # why the expert keeps its choice all the same
    fresh: ActionValue | None = None  # Kept.RECHECKED: ``better``'s gain on fresh samples
    declined: Declined | None = None  # a win on offer the expert does not take, and why

    @property
    def weighed(self) -> bool:
        """Whether the search put figures on this decision (buying, kongs and 报听 are
        ``hard``'s rules, not weighed)."""
        return bool(self.values)

    def value_of(self, action: Action) -> ActionValue | None:
        return next((v for v in self.values if v.action == action), None)

    @property
    def gap(self) -> ActionValue | None:
        """The expert's choice's figure where it differs from the action played and shows
        more, but inside the figures' uncertainty (:func:`unclear`): no loss, and the page
        says why; None otherwise."""
        own = None if self.agrees else self.value_of(self.choice)
        return own if own is not None and own.gain > 0 and unclear(own) else None


@dataclass(frozen=True)
class Summary:
    """The assessed decisions, the biggest loss first (ties: in the order played)."""

    ranked: tuple[Assessment, ...]
    total: float  # the sum of the losses
    agreed: int  # decisions where the action taken was the expert's
    weighed: int  # decisions the search put figures on
    even: int = 0  # decisions played otherwise than the expert's choice that lost nothing
    # (a gap inside the figures' uncertainty, the played showing as much or more, not weighed)

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
    return assessment(decision, player.read(decision.view, decision.taken))


def advise(view: View, samples: int = REVIEW_SAMPLES) -> Assessment:
    """The coach's reading of the decision in front of ``view``'s seat, before it plays: the
    review's assessment with the expert's own choice as the action "taken" (so no loss, and
    every gain measured over that choice). ``view`` is the seat's own (its concealed tiles
    only): the expert samples the rest as it does at the table. Pure, and it pickles: a
    worker process runs it (host.thinking)."""
    if view.viewer is None or not view.my_move:
        raise ValueError("the coach assesses a seated player's own decision")
    player = ExpertPlayer(samples=samples, recheck=2 * samples)
    reading = player.read(view, HardPlayer.choose(player, view))
    decision = Decision(0, view.hand_no, len(view.events), view, reading.choice)
    return assessment(decision, reading)


def assessment(decision: Decision, reading: Reading) -> Assessment:
    """``decision`` assessed by the expert's ``reading`` of it (:func:`assess`)."""
    view, taken_action = decision.view, decision.taken
    choice = reading.choice
    values = [v for v in reading.values(taken_action)
              if math.isfinite(v.mean)]  # never a figure that is not one
    ranked = tuple(sorted(values, key=lambda v: -v.mean))
    taken = next((v for v in ranked if v.action == taken_action), None)
    agrees = choice == taken_action
    declined = _declined(view, choice)
    if taken is None:  # the action played has no figure: nothing to compare it with
        return Assessment(decision, choice, (), 0.0, agrees, declined=declined)
    loss = loss_half = 0.0
    if not agrees:
        # the gains are over the action taken, sample by sample: the loss is the expert's
        # choice's gain (its interval is the difference's), never below 0, and none where
        # that gain is inside its interval (the rule by which the expert keeps a choice
        # another figure beats, Kept.NOISE: a gap the samples cannot tell from nothing is a
        # loss in neither direction)
        best = next((v for v in ranked if v.action == choice), None)
        if best is not None and best.gain > 0 and not unclear(best):
            loss, loss_half = best.gain, best.gain_half
    better, kept, fresh = _kept(reading, ranked)
    if declined is None and taken_action.type is ActionType.WIN and choice != taken_action:
        declined = Declined("figures")  # the search's own pick over the win played
    return Assessment(decision, choice, ranked, loss, agrees, loss_half, better, kept, fresh,
                      declined)


def _kept(reading: Reading, ranked: Sequence[ActionValue]
          ) -> tuple[ActionValue | None, Kept, ActionValue | None]:
    """The weighed action whose figure beats the expert's choice most, measured over the
    choice, and why the choice stands: a search's pick always has the best figure, so a
    better one is found only where the choice is ``hard``'s (:meth:`ExpertPlayer.pick`)."""
    choice = reading.choice
    own = next((v for v in ranked if v.action == choice), None)
    if own is None or not ranked or ranked[0].action == choice \
            or ranked[0].mean - own.mean < TIED:
        return None, Kept.BEST, None
    over = {v.action: v for v in reading.values(choice)}
    better = over[ranked[0].action]
    if reading.searched == better.action and reading.fresh is not None:
        return better, Kept.RECHECKED, reading.fresh
    if unclear(better):
        return better, Kept.NOISE, None
    return better, Kept.SMALL, None


def unclear(gap: ActionValue) -> bool:
    """Whether a gain (``gap.gain`` over the action it is measured on) is inside its own 95%
    interval: the samples cannot tell it from no gain. Such a gap is no reason for the
    expert to change its play, and no loss for a player who played the other."""
    return gap.gain <= CONFIDENCE * gap.gain_half


def _declined(view: View, choice: Action) -> Declined | None:
    """The win on offer that ``choice`` declines by one of ``hard``'s rules, or None."""
    if Action.win() not in view.legal or choice.type is ActionType.WIN:
        return None
    offer = HardPlayer.baodiao_offer(view)
    if offer is not None and offer[0] == choice:
        return Declined("baodiao", offer[1], offer[2])
    if choice.type is ActionType.PASS and HardPlayer.menqing_pass(view):
        return Declined("menqing")
    return None


def summary(assessments: Iterable[Assessment]) -> Summary:
    """The assessments, the biggest loss first, and their totals."""
    done = list(assessments)
    ranked = tuple(sorted(done, key=lambda a: (-a.loss, a.decision.key)))
    return Summary(ranked, sum(a.loss for a in done), sum(1 for a in done if a.agrees),
                   sum(1 for a in done if a.weighed),
                   sum(1 for a in done if not a.agrees and a.loss == 0))


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
