"""How well the players read the hidden hands: the danger of each discard against the truth.

Four ``hard`` players play one-hand games (the deals ``simulate --duplicate`` makes from the
seed). At every discard of every seat where the expert would search for danger
(:meth:`ExpertPlayer.risky`), each kind the seat may throw is labelled by the truth — whether
some opponent's concealed hand wins on it — and scored by ``hard``'s danger figure
(:meth:`HardPlayer.dangers`) and by the expert's sampler (:meth:`ExpertPlayer.deal_in_rates`:
its share of sampled positions where the kind is a wait of an opponent ready now). The figure
is each score's AUC: the chance that a kind that deals in is ranked above one that does not,
over all those (decision, kind) pairs (ties count a half); 0.5 is no reading at all.

It also prints how the real waits of the opponents truly ready, and the sampler's waits, fall
against the opponent's own pond (a wait that is a kind it threw itself; one three away from a
kind it threw, 筋; one next to a kind among its first six discards), the rates the sampler's
reading of the discards is fitted to; the same by tile class (honour, 1 or 9, 2 or 8, 3 to 7);
and in Yichun the shares of ready hands that need a wind / dragon set, and that wait on an
honour only such a set completes, which the sampler's honour sets are fitted to.

Run by hand (CPU-heavy: the sampler runs at every such decision)::

    .venv/bin/python -m bench.bench_reading --rules yichun --hands 40 --seed 5
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from engine.actions import ActionType
from engine.bots import playout
from engine.bots.expert import ExpertPlayer, view_seed
from engine.bots.hard import HardPlayer
from engine.bots.normal import Seat
from engine.bots.playout import _Context, pond_feature
from engine.game import Game
from engine.hands import HandShapes, shapes_named, waits
from engine.melds import Meld
from engine.table import Hand, Phase
from engine.tiles import NUM_KINDS, Kind
from engine.view import View, build_view

FEATURES = ("own", "suji", "near_early", "plain")
CLASSES = ("honour", "terminal", "2 or 8", "middle")
SHAPES = ("honour set", "honour set wait")
SUITS = ("meld suit", "other suit")  # opponents with two or more suited melds, all one suit


def meld_suit(melds: Sequence[Meld]) -> int | None:
    """The one suit of two or more suited melds (honour melds aside), or ``None``."""
    suits = {m.tiles[0] // 9 for m in melds if m.tiles and m.tiles[0] < 27}
    suited = sum(1 for m in melds if m.tiles and m.tiles[0] < 27)
    return suits.pop() if len(suits) == 1 and suited >= 2 else None


def suit_feature(k: Kind, suit: int | None) -> str | None:
    """Where a suited kind stands against an opponent's one meld suit (:func:`meld_suit`)."""
    if suit is None or k >= 27:
        return None
    return SUITS[0] if k // 9 == suit else SUITS[1]


def honour_set_use(shapes: HandShapes, concealed: Sequence[Kind], melds: Sequence[Meld],
                   ready_on: set[Kind] | frozenset[Kind]) -> tuple[bool, bool]:
    """Whether a ready hand needs a wind / dragon set (Yichun) for some wait, and whether
    it waits on an honour only such a set completes."""
    if not shapes.honour_sets:
        return False, False
    plain = set(waits(replace(shapes, name="", honour_sets=False), concealed, melds))
    return plain != set(ready_on), any(k >= 27 and k not in plain for k in ready_on)


def tile_class(k: Kind) -> str:
    """An honour, a 1 or 9, a 2 or 8, or a 3 to 7 (whatever the pond)."""
    if k >= 27:
        return "honour"
    r = k % 9
    return "terminal" if r in (0, 8) else "2 or 8" if r in (1, 7) else "middle"


def auc(scored: Sequence[tuple[float, bool]]) -> float:
    """The chance that a positive outranks a negative (ties a half): Mann–Whitney."""
    ranked = sorted(scored, key=lambda x: x[0])
    pos = sum(1 for _, y in ranked if y)
    neg = len(ranked) - pos
    if not pos or not neg:
        return float("nan")
    rank_sum = 0.0
    i = 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mid = (i + j + 1) / 2  # ranks i+1 .. j
        rank_sum += mid * sum(1 for _, y in ranked[i:j] if y)
        i = j
    return (rank_sum - pos * (pos + 1) / 2) / (pos * neg)


def true_waits(hand: Hand, seat: int) -> set[Kind]:
    return {k for k in range(NUM_KINDS) if hand._wins_with(seat, k)}


class Tally:
    def __init__(self) -> None:
        self.hard: list[tuple[float, bool]] = []
        self.sampler: list[tuple[float, bool]] = []
        self.decisions = 0
        self.seconds = 0.0
        # per feature: (kinds considered, kinds that are waits) for real and sampled hands
        # (and per tile class; and, in Yichun, per use of the wind / dragon sets: SHAPES)
        self.real: Counter[tuple[str, bool]] = Counter()
        self.sampled: Counter[tuple[str, bool]] = Counter()

    def look(self, hand: Hand, view: View) -> None:
        seat = Seat.of(view)
        kinds = seat.discard_kinds(view.legal)
        if len(kinds) < 2 or not ExpertPlayer.risky(view):
            return
        me = seat.me
        deal_in: set[Kind] = set()
        truth: dict[int, set[Kind]] = {}
        for p in view.seats:
            if p.seat != me:
                truth[p.seat] = true_waits(hand, p.seat)
                deal_in |= truth[p.seat]
        dangers = HardPlayer().dangers(seat)
        started = time.process_time()
        rates = ExpertPlayer().deal_in_rates(view, seat)
        self.seconds += time.process_time() - started
        self.decisions += 1
        for k in kinds:
            self.hard.append((dangers[k], k in deal_in))
            self.sampler.append((rates[k], k in deal_in))
        # the feature rates: every live kind, for each opponent truly ready / sampled ready
        ponds = {p.seat: [d.kind for d in p.pond] for p in view.seats}
        live = [k for k in range(NUM_KINDS) if seat.unseen[k] + seat.counts[k]]
        shapes = shapes_named(view.rules)
        for s, ws in truth.items():
            if ws and hand.wild is None:
                st = hand.seats[s]
                concealed = [k for k in range(NUM_KINDS) for _ in range(st.counts[k])]
                for name, yes in zip(SHAPES, honour_set_use(shapes, concealed, st.melds, ws),
                                     strict=True):
                    self.real[(name, yes)] += 1
            if ws:
                suit = meld_suit(hand.seats[s].melds)
                for k in live:
                    self.real[(pond_feature(k, ponds[s]), k in ws)] += 1
                    self.real[(tile_class(k), k in ws)] += 1
                    sf = suit_feature(k, suit)
                    if sf is not None:
                        self.real[(sf, k in ws)] += 1
        ctx = _Context(view, seat)
        rng = random.Random(view_seed(view) ^ 0xFEA7)
        for _ in range(8):
            sample = ctx.sample(rng)
            for o in sample.opps:
                if o.ready_at == 0:
                    if view.wild is None:
                        for name, yes in zip(SHAPES, honour_set_use(shapes, o.concealed,
                                                                    o.melds, o.waits),
                                             strict=True):
                            self.sampled[(name, yes)] += 1
                    suit = meld_suit(o.melds)
                    for k in live:
                        self.sampled[(pond_feature(k, ponds[o.seat]), k in o.waits)] += 1
                        self.sampled[(tile_class(k), k in o.waits)] += 1
                        sf = suit_feature(k, suit)
                        if sf is not None:
                            self.sampled[(sf, k in o.waits)] += 1

    def report(self) -> None:
        print(f"decisions read: {self.decisions}, kinds scored: {len(self.hard)}, "
              f"dealing in: {sum(1 for _, y in self.hard if y)}")
        print(f"AUC hard's danger {auc(self.hard):.3f}   sampler {auc(self.sampler):.3f}   "
              f"(sampler {1000 * self.seconds / max(1, self.decisions):.0f} ms a decision)")
        print("share of kinds that are waits, by feature and by tile class, and of ready hands\n"
              "with a wind / dragon set, or waiting on an honour through one (Yichun), and of\n"
              "suited kinds in and out of the one suit of two or more suited melds:\n"
              "real / sampled (kinds or hands)")
        for f in FEATURES + CLASSES + SHAPES + SUITS:
            rn = self.real[(f, True)] + self.real[(f, False)]
            sn = self.sampled[(f, True)] + self.sampled[(f, False)]
            r = self.real[(f, True)] / rn if rn else float("nan")
            s = self.sampled[(f, True)] / sn if sn else float("nan")
            print(f"  {f:11s} {r:.3f} / {s:.3f}   ({rn} / {sn})")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rules", default="yichun")
    ap.add_argument("--hands", type=int, default=40)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--keep", default="",
                    help="the sampler's READ_KEEP to try, e.g. own=0.1,suji=0.7")
    if argv is None and sys.argv[1:2] in (["reading"], ["bench_reading"]):
        argv = sys.argv[2:]  # python -m bench reading
    args = ap.parse_args(argv)
    for item in filter(None, args.keep.split(",")):
        name, _, value = item.partition("=")
        if name not in playout.READ_KEEP:
            ap.error(f"--keep: no feature {name!r} (one of {', '.join(playout.READ_KEEP)})")
        playout.READ_KEEP[name] = float(value)
    tally = Tally()
    seeds = random.Random(args.seed)
    player = HardPlayer()
    for _ in range(args.hands):
        hand = Game(args.rules, seeds.randrange(2**32), {}).new_hand()
        while not hand.is_over:
            seat = hand.to_act()[0]
            view = build_view(hand, seat)
            action = player.choose(view)
            if view.phase is Phase.TURN and action.type is ActionType.DISCARD:
                tally.look(hand, view)
            hand.apply(seat, action)
    tally.report()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
