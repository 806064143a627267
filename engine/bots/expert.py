"""The ``expert`` computer player: ``hard``'s candidates, decided by search over what its seat
cannot see.

A decision that matters (a discard while an opponent may be ready, or when ``hard``'s best
figures are close; a chi, peng or pass) is played forward many times from *determinized*
positions, each consistent with the seat's view, and ``hard``'s choice is replaced only by an
action whose gain over it is clear of the sampling noise (:meth:`ExpertPlayer.pick`) and holds
on fresh samples (:meth:`ExpertPlayer.confirmed`: the winner's curse). Buying,
kongs, 报听 and the wins on offer stay ``hard``'s. Every candidate is played against the same
samples (common random numbers): the differences between candidates are measured far more
precisely than their values.

The determinized positions themselves — the sampling of what the seat cannot see, the
playout and the valuation of its end — are :mod:`engine.bots.playout`'s; this module decides:
which actions are searched, on how many samples, and which one is taken.

The random choices come from a generator seeded by the seat's view (a stable digest), so the
player is deterministic given the table's seed, in one process or another.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from engine.actions import Action, ActionType
from engine.bots.hard import HardPlayer
from engine.bots.normal import Seat
from engine.bots.playout import (
    READ_KEEP,
    READY_FIT,
    _Context,
    _discard_won,
    _playout,
    _Sample,
    _tiles,
    ready_chance,
)
from engine.melds import Meld, MeldType
from engine.rulesets import find_ruleset
from engine.situation import BaoDiao, Win, WinMethod
from engine.table import EventType, Phase
from engine.tiles import NUM_KINDS, Kind
from engine.view import View

# Determinized positions per decision at first, and at most for a close one. The search's
# gains are a few tenths of a point measured to a point or two, so more samples let more of the
# good changes clear its gate at the same quality; each doubling gained about half the one before,
# and these counts keep a decision within its time (median 300 ms, p99 1 s: docs/performance.md).
SAMPLES: Final = 128
MAX_SAMPLES: Final = 384
TOP: Final = 3  # hard's best discards searched
SAFE: Final = 2  # and the safest discards (the fold)
CLOSE: Final = 0.35  # hard's best two within this many points: search even without danger
# The rulesets whose close discards are searched. Shangrao's changes there gained nothing
# (the playouts play for the shortest hand and weigh no 宝 pattern, where hard's close figures
# do), so their time is saved; Yichun's gain, Gejiu's measured nothing either way.
SEARCH_CLOSE: Final = frozenset({"yichun", "gejiu"})
RISK_READY: Final = 0.25  # an opponent ready with this chance: the discards are searched
RISK_SAMPLES: Final = 48  # sampled positions that rank the discards by danger
MIN_GAIN: Final = 0.25  # points a hand: a smaller gain over hard's choice is not taken
CONFIDENCE: Final = 1.0  # and the gain must be clear of its 95% interval (about 2 s.e.)
# A change of hard's choice is then rechecked on this many fresh samples, and kept only if its
# gain there is positive and at least RECHECK_Z of that figure's 95% half width. The search
# keeps the best of several noisy gains, so its own figure for the one it keeps is biased
# upwards (its estimates were about ten times the true gains measured with the hidden tiles
# known). RECHECK_Z per ruleset keeps the share whose true gains measured best there: Yichun
# half a half width; Shangrao, whose changes gain already, drops only those behind on fresh
# samples; Gejiu, whose changes gain most, none (None: no recheck), as every share dropped lost.
# Throwing a wild (飞宝) is not searched: a sure win now is worth more than the playouts'
# opponents let it seem. A wild thrown is still valued as one (the review of a player who flew).
RECHECK: Final = 256
RECHECK_Z: Final[dict[str, float | None]] = {"yichun": 0.5, "shangrao": 0.0, "gejiu": None}


@dataclass(frozen=True)
class ActionValue:
    """One candidate's result over the samples: mean points for the seat and the 95% interval's
    half width (over samples), and its gain over the first candidate (``hard``'s choice)
    measured on the same samples."""

    action: Action
    mean: float
    half: float
    samples: int
    gain: float = 0.0  # over the first action weighed (hard's), sample by sample
    gain_half: float = 0.0  # its 95% half width: the samples are shared, so this is narrow


def _summary(results: Mapping[Action, Sequence[float]], actions: Sequence[Action]
             ) -> list[ActionValue]:
    """The values of ``actions``, gains over the first on the samples they share."""
    ref = results[actions[0]]
    out: list[ActionValue] = []
    for a in actions:
        xs = results[a]
        mean, half = _mean_half(xs)
        gain, gain_half = _mean_half([x - r for x, r in zip(xs, ref, strict=False)])
        out.append(ActionValue(a, mean, half, len(xs), gain, gain_half))
    return out


@dataclass(frozen=True)
class Reading:
    """How the expert reads one decision for a review (:meth:`ExpertPlayer.read`)."""

    hard: Action  # hard's choice: the search's reference, kept unless a change is clear
    choice: Action  # the expert's
    results: Mapping[Action, Sequence[float]]  # each weighed action's points, sample by
    # sample, the action played first ({}: the decision is not weighed)
    searched: Action  # the search's pick on these samples (hard's unless a gain is clear)
    fresh: ActionValue | None  # that pick's gain over hard's on fresh samples (None: none)

    def values(self, first: Action) -> list[ActionValue]:
        """The weighed actions' figures, each gain measured over ``first`` (one of them)."""
        if not self.results:
            return []
        return _summary(self.results, [first, *(a for a in self.results if a != first)])


def _mean_half(xs: Sequence[float]) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return mean, 1.96 * math.sqrt(var / n)


def view_seed(view: View) -> int:
    """A stable seed from what the seat sees (the same view → the same samples)."""
    h = hashlib.blake2b(digest_size=8)
    h.update(repr((view.rules, view.hand_no, view.viewer, view.hand, view.drawn,
                   view.remaining, view.phase.value, view.window_tile, view.window_from,
                   tuple((p.seat, tuple(d.kind for d in p.pond),
                          tuple((m.type.value, m.tiles) for m in p.melds), p.ting)
                         for p in view.seats))).encode())
    return int.from_bytes(h.digest(), "big")



# --- the player ---------------------------------------------------------------------------

class ExpertPlayer(HardPlayer):
    level = "expert"

    def __init__(self, samples: int = SAMPLES, recheck: int = RECHECK) -> None:
        self.samples = samples
        self.max_samples = max(samples, MAX_SAMPLES)
        self.recheck_samples = recheck  # 0: a change of hard's choice is not rechecked
        # the tuning, per player so that a benchmark may try other values on one
        self.recheck_z: Mapping[str, float | None] = RECHECK_Z  # by ruleset
        self.search_close: frozenset[str] = SEARCH_CLOSE  # rulesets: search close discards
        self.close = CLOSE  # hard's best two within this many points
        self.risk_ready = RISK_READY  # an opponent ready with this chance: search
        self.keep: Mapping[str, float] = READ_KEEP  # the opponents' ponds read

    def choose(self, view: View) -> Action:
        hard = super().choose(view)
        if not view.my_move or view.viewer is None:
            return hard
        cands = self.candidates(view, hard)
        if len(cands) < 2:
            return hard
        return self.confirmed(view, hard, self.pick(self.evaluate(view, cands)))

    def confirmed(self, view: View, hard: Action, choice: Action) -> Action:
        """``choice`` where it is ``hard``'s, or where its gain over ``hard``'s on fresh
        samples (:meth:`recheck`) is positive by ``RECHECK_Z`` of its half width (a ruleset
        without a figure there: no recheck); else ``hard``'s."""
        fresh = self.confirmation(view, hard, choice)
        return choice if fresh is None or self.holds(view, fresh) else hard

    def confirmation(self, view: View, hard: Action, choice: Action) -> ActionValue | None:
        """``choice``'s gain over ``hard``'s on fresh samples, or None where a change is not
        rechecked (``choice`` is ``hard``'s, or the ruleset has no ``RECHECK_Z``)."""
        if choice == hard or not self.recheck_samples or self.recheck_z.get(view.rules) is None:
            return None
        return self.recheck(view, hard, choice, self.recheck_samples)

    def holds(self, view: View, fresh: ActionValue) -> bool:
        """Whether a change's gain on fresh samples (:meth:`confirmation`) keeps it."""
        z = self.recheck_z.get(view.rules) or 0.0
        return fresh.gain > max(0.0, z * fresh.gain_half)

    @staticmethod
    def pick(values: Sequence[ActionValue]) -> Action:
        """The best-valued action when its gain over ``hard``'s choice (the first) is clear of
        the sampling noise (``CONFIDENCE`` half widths, at least ``MIN_GAIN`` points); else
        ``hard``'s: a search that changes a decision on noise only adds noise."""
        best = max(values, key=lambda v: v.gain)
        if best.gain > max(MIN_GAIN, CONFIDENCE * best.gain_half):
            return best.action
        return values[0].action

    def assess(self, view: View, taken: Action) -> tuple[Action, list[ActionValue]]:
        """For a review: the expert's choice in ``view`` and the values of the actions it
        weighs there, ``taken`` (the action played) first and every gain measured over it,
        sample by sample (``samples`` each, the same for all: the gain's interval is the
        interval of the difference, far narrower than either value's). Empty when ``taken`` is
        the only sensible action or the decision is not one the search evaluates (buying,
        kongs, 报听), where the choice is ``hard``'s."""
        reading = self.read(view, taken)
        return reading.choice, reading.values(taken)

    def read(self, view: View, taken: Action) -> Reading:
        """:meth:`assess`'s reading whole: besides the choice and the figures, how the choice
        came about (``hard``'s, the search's pick and its recheck), for a review that says
        why the expert keeps a choice another figure beats."""
        hard = HardPlayer.choose(self, view)
        cands = self.candidates(view, hard, force=True)
        evaluable = {ActionType.DISCARD, ActionType.WIN, ActionType.PASS, ActionType.PENG,
                     ActionType.CHI}
        if taken not in cands and taken.type in evaluable and not taken.ting \
                and taken in view.legal:
            cands.append(taken)
        if len(cands) < 2 or taken not in cands:
            return Reading(hard, hard, {}, hard, None)
        results = self._results(view, cands, adaptive=False)
        searched = self.pick(_summary(results, cands))
        fresh = self.confirmation(view, hard, searched)
        choice = searched if fresh is None or self.holds(view, fresh) else hard
        ordered = {a: results[a] for a in [taken] + [a for a in cands if a != taken]}
        return Reading(hard, choice, ordered, searched, fresh)

    # --- which decisions are searched ---------------------------------------------------------
    def candidates(self, view: View, hard: Action, force: bool = False) -> list[Action]:
        """The actions searched for this decision, ``hard``'s choice first; one action (or none
        evaluable): no search. ``force`` (a review) searches even an easy decision."""
        legal = view.legal
        if view.phase is Phase.TURN and view.current == view.viewer:
            if hard.type is not ActionType.DISCARD or hard.ting:
                return [hard]
            seat = Seat.of(view)
            kinds = seat.discard_kinds(legal)
            if len(kinds) < 2:
                return [hard]
            table = seat.evaluator().discards(seat.unseen, kinds, seat.wild, 1)
            scores = self.score_discards(seat, table)
            ranked = sorted(scores, key=lambda k: -scores[k])
            close = view.rules in self.search_close and len(ranked) > 1 and \
                scores[ranked[0]] - scores[ranked[1]] < self.close
            risky = self.risky(view, self.risk_ready)
            if not (force or close or risky):
                return [hard]
            picked: list[Kind] = [hard.tile] if hard.tile is not None else []
            for k in ranked[:TOP]:
                if k not in picked:
                    picked.append(k)
            if risky or force:
                risk = self.deal_in_rates(view, seat)
                for k in sorted(kinds, key=lambda k: (risk[k], -scores[k]))[:SAFE]:
                    if k not in picked:
                        picked.append(k)
            return [a for a in (Action.discard(k) for k in picked) if a in legal]
        if view.phase is Phase.CLAIM and view.window_tile is not None:
            types = {ActionType.PASS, ActionType.WIN, ActionType.PENG, ActionType.CHI}
            if hard.type not in types:
                return [hard]
            if Action.win() in view.legal:
                return [hard]  # a win on offer is hard's (门清 aside, it takes it)
            out = [hard]
            for a in legal:
                if a.type in types and a not in out:
                    out.append(a)
            return out
        return [hard]

    @staticmethod
    def risky(view: View, threshold: float = RISK_READY) -> bool:
        """Whether a discard may deal in now: discards win here and some opponent is ready
        with at least ``threshold`` by the fitted chance (or has declared 报听)."""
        if not ExpertPlayer.discard_wins_here(view):
            return False
        fit = READY_FIT[view.rules]
        return any(p.ting or ready_chance(fit, len(p.melds), len(p.pond)) >= threshold
                   for p in view.seats if p.seat != view.viewer)

    def deal_in_rates(self, view: View, seat: Seat) -> list[float]:
        """Each kind's share of ``RISK_SAMPLES`` sampled positions in which it is a wait of an
        opponent ready now: the sampler's own reading of what is dangerous."""
        ctx = _Context(view, seat, self.keep)
        rng = random.Random(view_seed(view) ^ 0x5AFE)
        hits = [0] * NUM_KINDS
        for _ in range(RISK_SAMPLES):
            sample = ctx.sample(rng)
            waits: set[Kind] = set()
            for o in sample.opps:
                if o.ready_at == 0:
                    waits |= o.waits
            for k in waits:
                hits[k] += 1
        return [h / RISK_SAMPLES for h in hits]

    @staticmethod
    def discard_wins_here(view: View) -> bool:
        return find_ruleset(view.rules, dict(view.options)).discard_wins()

    # --- the search -----------------------------------------------------------------------------
    def evaluate(self, view: View, actions: Sequence[Action], adaptive: bool = True
                 ) -> list[ActionValue]:
        """Each of ``actions`` (legal now) played forward from the same samples, the first
        (``hard``'s choice) the reference of every gain (see :meth:`_results`)."""
        return _summary(self._results(view, actions, adaptive), list(actions))

    def _results(self, view: View, actions: Sequence[Action], adaptive: bool,
                 samples: int | None = None, salt: int = 0) -> dict[Action, list[float]]:
        """Each of ``actions`` (legal now) played forward from the same samples, the first
        (``hard``'s choice) the reference of every gain. ``adaptive``: ``samples`` first; while
        the best gain over hard's choice is worth taking but not yet clear of the noise
        (:meth:`pick`), the sample count doubles (up to ``max_samples``) for the candidates
        still in contention, the others dropped. ``samples``: that many (not adaptive);
        ``salt``: other samples than the search's own (a check on fresh ones)."""
        seat = Seat.of(view)
        ctx = _Context(view, seat, self.keep)
        rng = random.Random(view_seed(view) ^ salt)
        me = ctx.me
        base = [0] * NUM_KINDS
        for k in seat.tiles:
            base[k] += 1
        results: dict[Action, list[float]] = {a: [] for a in actions}
        ddz = self.ddz_bonus(seat) if view.phase is Phase.TURN else {}
        live = list(actions)
        n, target = 0, self.samples if samples is None else samples
        while True:
            while n < target:
                sample = ctx.sample(rng)
                n += 1
                for a in live:
                    bonus = ddz.get(a.tile, 0.0) if a.tile is not None and \
                        a.type is ActionType.DISCARD else 0.0
                    results[a].append(self._play(ctx, sample, base, a, me) + bonus)
            if not adaptive or target >= self.max_samples or len(live) < 2:
                break
            values = _summary(results, live)
            best = max(values, key=lambda v: v.gain)
            if best.gain <= MIN_GAIN or best.gain > CONFIDENCE * best.gain_half:
                break  # hard's choice stands, or the best is clear of the noise already
            # promising but uncertain: more samples for it and its rivals
            floor = best.gain - best.gain_half
            live = [live[0]] + [v.action for v in values[1:] if v.gain + v.gain_half >= floor
                                and v.gain > 0]
            target = min(self.max_samples, 2 * target)
        return results

    def recheck(self, view: View, hard: Action, choice: Action, samples: int = RECHECK
                ) -> ActionValue:
        """``choice``'s gain over ``hard``'s on ``samples`` fresh samples (none of the search's
        own): the search keeps the best of several noisy gains, so its own figure for the
        one it keeps is biased upwards (the winner's curse); a fresh one is not."""
        results = self._results(view, [hard, choice], adaptive=False, samples=samples,
                                salt=0xC0F1)
        return _summary(results, [hard, choice])[1]

    def _play(self, ctx: _Context, sample: _Sample, base: list[int], a: Action, me: int
              ) -> float:
        view = ctx.view
        c = base.copy()
        if a.type is ActionType.DISCARD:
            assert a.tile is not None
            c[a.tile] -= 1
            if a.tile == ctx.wild:  # 飞宝: never won on; the seat's flown wilds count double
                ctx.flying = 1
                try:
                    return _playout(ctx, sample, c, (me + 1) % 4)
                finally:
                    ctx.flying = 0
            if ctx.discard_wins:
                v = _discard_won(ctx, {o.seat: o for o in sample.opps},
                                 {o.seat: 0 for o in sample.opps}, c, ctx.my_waits(c), me,
                                 a.tile)
                if v is not None:
                    return v
            return _playout(ctx, sample, c, (me + 1) % 4)
        tile, source = view.window_tile, view.window_from
        if a.type is ActionType.WIN:
            if view.phase is Phase.TURN:
                how = WinMethod.SELF_DRAW
                last = view.drawn
                if last is None:  # the dealer's dealt hand (天糊 where the ruleset has it)
                    last = view.hand[-1]
                    if ctx.ruleset.has_heavenly:
                        how = WinMethod.HEAVENLY
                elif view.events and view.events[-1].type is EventType.REPLACEMENT:
                    how = WinMethod.KONG_REPLACEMENT
                hand = c.copy()
                hand[last] -= 1
                # a 宝吊 win needs the state its last discard left (none before its first)
                baodiao = ctx.baodiao_of(hand) if how is WinMethod.SELF_DRAW and \
                    view.seats[me].pond else BaoDiao.NONE
                v = ctx.value(Win(me, _tiles(hand), ctx.my_melds, last, how, baodiao=baodiao))
            else:
                v = ctx.value(Win(me, _tiles(c), ctx.my_melds, tile, WinMethod.DISCARD, source))
            return 0.0 if math.isnan(v) else v
        assert tile is not None and source is not None
        if a.type is ActionType.PASS:
            return _playout(ctx, sample, c, (source + 1) % 4)
        if a.type is ActionType.PENG:
            c[tile] -= 2
            meld = Meld(MeldType.PENG, (tile, tile, tile))
        else:  # CHI
            for k in a.tiles:
                c[k] -= 1
            meld = Meld(MeldType.CHI, tuple(sorted((*a.tiles, tile))))
        ctx_melds = ctx.my_melds
        ctx.my_melds = (*ctx_melds, meld)
        try:
            out = ctx.throw(c)
            c[out] -= 1
            won: float | None = None
            if ctx.discard_wins:
                won = _discard_won(ctx, {o.seat: o for o in sample.opps},
                                   {o.seat: 0 for o in sample.opps}, c, ctx.my_waits(c), me,
                                   out)
            return _playout(ctx, sample, c, (me + 1) % 4) if won is None else won
        finally:
            ctx.my_melds = ctx_melds
