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

**A sample.** The unseen tiles (the seat's :attr:`~engine.bots.normal.Seat.unseen`) are dealt
out: each opponent is *ready* now with a chance fitted per ruleset to its melds and pond length
(:data:`READY_FIT`; 报听: certainly), or becomes ready on a later turn by the same curve;
a ready opponent gets a concrete ready hand built from the unseen tiles (sets, in Yichun wind
and dragon sets among them, a pair and a two-sided, closed, edge, paired or single wait),
redrawn until none of its waits is a tile it let go by since its hand last changed (it always
wins when it can) and some copy of a wait is still live (in the wall or in the seat's own
hand), and kept or redrawn by how its waits stand against its own pond (:data:`READ_KEEP`: a
kind it threw itself is seldom its wait). The rest, shuffled, is the wall.

**A playout.** The seat's own hand is played exactly: it wins when its tiles win, otherwise it
throws what keeps it shortest with the most improving tiles (``normal``'s rule, memoised per
hand), and pengs a discard that shortens it. An opponent throws what it draws; once ready it
wins on its waits, drawn or (where discards win) thrown by anyone. The end — a win or the
wall's last tile — is settled by the ruleset's own scorer
(:meth:`~engine.rulesets.base.Ruleset.settle`) from a :class:`~engine.situation.Situation`
built as the table builds it, so each ruleset's payments (Yichun's buyers and lighters, Gejiu's
fan for everybody, Shangrao's self-draws only) are exact.

The random choices come from a generator seeded by the seat's view (a stable digest), so the
player is deterministic given the table's seed, in one process or another.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from engine.actions import Action, ActionType
from engine.bots.hard import HardPlayer, profile
from engine.bots.normal import Seat
from engine.bots.shape import HandEval, meld_facts
from engine.hands import completing_kinds, is_baodiao_shape
from engine.melds import Meld, MeldType
from engine.rulesets import Ruleset, find_ruleset
from engine.situation import BaoDiao, Situation, Win, WinMethod
from engine.table import EventType, Phase
from engine.tiles import DRAGONS, NUM_KINDS, WINDS, Kind
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
# The chance that an opponent (not 报听) is ready, by its melds m and pond length n:
# 1 / (1 + exp(-(b0 + b1 n + b2 m))), fitted (least log loss) to hands of four `hard` players,
# every opponent at every turn: about twice hard's READY_BY_MELDS reading mid-hand.
READY_FIT: Final[dict[str, tuple[float, float, float]]] = {
    "yichun": (-4.5, 0.40, 0.9),
    "shangrao": (-4.0, 0.46, 0.9),
    "gejiu": (-5.0, 0.38, 1.2),
}


def pond_feature(k: Kind, pond: Sequence[Kind]) -> str:
    """Where kind ``k`` stands against an opponent's own discards ``pond`` (in order): one it
    threw (``own``), three from one it threw in the same suit (``suji``), next to or two from
    one of its first six (``near_early``), or none of these (``plain``)."""
    if k in pond:
        return "own"
    if k < 27:
        r = k % 9
        if (r >= 3 and k - 3 in pond) or (r <= 5 and k + 3 in pond):
            return "suji"
        if any(d < 27 and d // 9 == k // 9 and abs(d - k) <= 2 for d in pond[:6]):
            return "near_early"
    return "plain"


def ready_chance(fit: tuple[float, float, float], melds: int, pond: int) -> float:
    b0, b1, b2 = fit
    return min(0.97, 1.0 / (1.0 + math.exp(-(b0 + b1 * pond + b2 * melds))))
BUILD_TRIES: Final = 24  # fewer left more opponents unready: the danger ranked worse
# A built hand is kept with this chance by where its waits stand against the opponent's own
# pond (the least of its waits'; see :func:`pond_feature`). A ready hand's wait is seldom a kind
# it threw itself, and a kind three from one it threw (筋) less often than another: the rates
# of `bench.bench_reading` (hard players).
READ_KEEP: Final[dict[str, float]] = {"own": 0.08, "suji": 0.75, "near_early": 0.7, "plain": 1.0}
# Yichun's wind and dragon sets (any three winds, 中發白): the shares of sets and of two-tile
# waits tried as one, so that the samples hold such sets about as often as hard players'
# ready hands do (`bench.bench_reading`); without them the sampler never waited on an honour
# through a set and ranked the danger worse.
HONOUR_SET: Final = 0.1
HONOUR_PART: Final = 0.09
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


def _summary(results: dict[Action, list[float]], actions: Sequence[Action]
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


@dataclass
class _Opp:
    seat: int
    ready_at: int  # the opponent turn (0 = now) from which it is ready
    concealed: list[Kind]  # its ready hand (13 - 3 × melds tiles)
    waits: frozenset[Kind]
    melds: tuple[Meld, ...]


@dataclass
class _Sample:
    opps: list[_Opp]
    wall: list[Kind]
    waited: frozenset[Kind] = frozenset()  # every opponent's waits: a discard that may be won


class _Context:
    """What every playout of one decision shares."""

    def __init__(self, view: View, seat: Seat, keep: Mapping[str, float] = READ_KEEP) -> None:
        assert view.viewer is not None
        # per opponent, each kind's chance of being kept as a wait (its pond read: READ_KEEP)
        self.keeps: dict[int, list[float]] = {}
        for p in view.seats:
            pond = [d.kind for d in p.pond]
            self.keeps[p.seat] = [keep[pond_feature(k, pond)] for k in range(NUM_KINDS)]
        self.view = view
        self.seat = seat
        self.me = view.viewer
        self.ruleset: Ruleset = find_ruleset(view.rules, dict(view.options))
        self.shapes = self.ruleset.shapes
        self.wild = view.wild
        self.discard_wins = self.ruleset.discard_wins()
        self.my_melds = tuple(Meld(m.type, m.tiles) for m in view.seats[self.me].melds
                              if m.tiles is not None)
        self.buy = self.ruleset.buy_phase
        self.policy_memo: dict[tuple[Meld, ...], dict[tuple[int, ...], Kind]] = {}
        self.useful_memo: dict[tuple[Meld, ...], dict[tuple[int, ...], frozenset[Kind]]] = {}
        self.waits_memo: dict[tuple[Meld, ...], dict[tuple[int, ...], frozenset[Kind]]] = {}
        self.settled: dict[tuple[object, ...], float] = {}
        self.unseen = list(seat.unseen)
        self.held = [0] * NUM_KINDS  # the seat's own concealed tiles (wilds included)
        for k in seat.tiles:
            self.held[k] += 1
        self.prof = profile(view)
        # Shangrao: the seat's self-drawn wins from the 宝吊头 shape are 宝吊 wins (worth 3, not 1)
        self.baodiao = self.prof.baodiao and self.wild is not None
        self.baodiao_memo: dict[tuple[int, ...], BaoDiao] = {}
        self.flying = 0  # wilds the seat throws in the candidate played (飞宝: its 2^f both ways)
        self.safe = HardPlayer._safe(seat)  # kinds each opponent let go by: not its waits
        # per opponent, its chance of being ready now (报听: certainly) and after each of its
        # next 60 turns (READY_FIT), rising: a sample's turn of readiness is a bisection
        fit = READY_FIT[view.rules]
        self.curves: dict[int, list[float]] = {
            p.seat: [1.0 if p.ting else ready_chance(fit, len(p.melds), len(p.pond))]
            + [ready_chance(fit, len(p.melds), len(p.pond) + t) for t in range(1, 61)]
            for p in view.seats if p.seat != self.me}

    # --- the seat's own play ----------------------------------------------------------------
    def _eval(self, counts: Sequence[int]) -> tuple[HandEval, list[int], int]:
        c = list(counts)
        w = 0
        if self.wild is not None:
            w = c[self.wild]
            c[self.wild] = 0
        facts = meld_facts([(m.type, m.tiles[0]) for m in self.my_melds])
        return HandEval(self.shapes, c, w, facts), c, w

    def my_waits(self, counts: list[int]) -> frozenset[Kind]:
        """The kinds completing the seat's 3n+1 ``counts`` (wilds included), memoised per hand
        and melds: a playout's win test is then one set look-up."""
        memo = self.waits_memo.setdefault(self.my_melds, {})
        key = tuple(counts)
        hit = memo.get(key)
        if hit is not None:
            return hit
        plain = list(counts)
        w = 0
        if self.wild is not None:
            w = plain[self.wild]
            plain[self.wild] = 0
        frozen = frozenset(completing_kinds(self.shapes, plain, self.my_melds, w, self.wild))
        memo[key] = frozen
        return frozen

    def useful(self, counts: list[int]) -> frozenset[Kind]:
        """The kinds whose draw shortens the seat's 3n+1 ``counts`` (wilds included; a wild
        always does), memoised per hand and melds."""
        memo = self.useful_memo.setdefault(self.my_melds, {})
        key = tuple(counts)
        hit = memo.get(key)
        if hit is not None:
            return hit
        ev, c, w = self._eval(counts)
        shapes = ev.shapes(c, w)
        dist = min(shapes.values())
        kinds = set(ev.useful(c, w, dist, shapes, [4] * NUM_KINDS, self.wild))
        if self.wild is not None:
            kinds.add(self.wild)
        out = frozenset(kinds)
        memo[key] = out
        return out

    def throw(self, counts: list[int]) -> Kind:
        """The seat's discard from the 3n+2 ``counts`` (wilds included): the one leaving the
        hand shortest, then with the most kinds that shorten it; never a wild while another
        tile may go. Memoised per hand and melds."""
        memo = self.policy_memo.setdefault(self.my_melds, {})
        key = tuple(counts)
        hit = memo.get(key)
        if hit is not None:
            return hit
        ev, c, _w = self._eval(counts)
        kinds = [k for k in range(NUM_KINDS) if c[k]]
        if not kinds:
            assert self.wild is not None
            memo[key] = self.wild
            return self.wild
        table = ev.discards(self.unseen, kinds, None, 0)
        best = min(table, key=lambda k: (table[k][0], -table[k][1], _edge(k), k))
        memo[key] = best
        return best

    def after_draw(self, counts: list[int], tile: Kind) -> Kind:
        """The seat's discard after drawing ``tile`` into its 3n+1 ``counts`` (``counts`` holds
        the tile already): the tile itself when it does not shorten the hand."""
        counts[tile] -= 1
        useful = self.useful(counts)
        counts[tile] += 1
        if tile not in useful:
            return tile
        return self.throw(counts)

    def baodiao_of(self, counts: Sequence[int]) -> BaoDiao:
        """Whether a self-drawn win on the seat's 3n+1 ``counts`` (wilds included; the hand its
        last discard left, as in a playout) is a 宝吊 win (Shangrao: one wild beside complete
        sets, :func:`~engine.hands.is_baodiao_shape`). ``HEAD``: the seat is taken never to have
        declined one (偷机), which only the table's own play knows."""
        if not self.baodiao:
            return BaoDiao.NONE
        assert self.wild is not None
        if not counts[self.wild]:
            return BaoDiao.NONE
        key = tuple(counts)
        hit = self.baodiao_memo.get(key)
        if hit is None:
            hit = BaoDiao.HEAD if is_baodiao_shape(_tiles(counts), self.wild) else BaoDiao.NONE
            self.baodiao_memo[key] = hit
        return hit

    # --- settling ---------------------------------------------------------------------------
    def value(self, win: Win | None, extra_melds: tuple[Meld, ...] = ()) -> float:
        """The seat's net for the hand ending with ``win`` (``None``: the wall ran out)."""
        key: tuple[object, ...] = ("draw", self.flying) if win is None else (
            win.seat, win.hand, win.tile, win.how, win.from_seat, win.melds, win.baodiao,
            self.flying)
        hit = self.settled.get(key)
        if hit is not None:
            return hit
        view = self.view
        kongs: dict[int, tuple[Meld, ...]] = {}
        for p in view.seats:
            ms = tuple(Meld(m.type, m.tiles) for m in p.melds
                       if m.tiles is not None and m.type.is_kong)
            if p.seat == self.me:
                ms = tuple(m for m in self.my_melds if m.type.is_kong)
            if ms and (win is None or win.seat != p.seat):  # a winner's are in its melds
                kongs[p.seat] = ms
        rs = self.ruleset
        flown = {p.seat: p.flown + (self.flying if p.seat == self.me else 0)
                 for p in view.seats} if rs.has_wild else {}
        situation = Situation(
            rules=rs.name, dealer=view.dealer, options=dict(rs.options),
            wins=() if win is None else (win,), kongs=kongs,
            dice=view.dice if self.buy else None,
            buyers=tuple(p.seat for p in view.seats if p.bought) if self.buy else None,
            lighters=sum(1 for p in view.seats if p.lighter),
            last_drawer=None, wild=self.wild,
            flown=flown, got=flown,  # got: at least what was flown; its bonuses aside
        )
        try:
            net = float(rs.settle(situation).seats[self.me])
        except (ValueError, AssertionError):
            net = math.nan  # not a win this ruleset pays: the caller plays on
        self.settled[key] = net
        return net

    # --- samples ----------------------------------------------------------------------------
    def sample(self, rng: random.Random) -> _Sample:
        view = self.view
        pool = list(self.unseen)
        safe = self.safe
        opps: list[_Opp] = []
        for p in view.seats:
            if p.seat == self.me:
                continue
            melds: list[Meld] = []
            for m in p.melds:
                if m.tiles is not None:
                    melds.append(Meld(m.type, m.tiles))
                else:  # a face-down 暗杠: four copies of some unseen kind
                    fours = [k for k in range(NUM_KINDS) if pool[k] >= 4]
                    k = rng.choice(fours) if fours else max(range(NUM_KINDS), key=pool.__getitem__)
                    take = min(4, pool[k])
                    pool[k] -= take
                    melds.append(Meld(MeldType.AGANG, (k, k, k, k)))
            curve = self.curves[p.seat]
            u = rng.random()
            # ready now, or from the first of its turns (at most 60) by which the chance passes u
            ready_at = 0 if u < curve[0] else min(60, bisect.bisect_left(curve, u, 1))
            n = 13 - 3 * len(melds)
            built = self._build(rng, pool, n, melds, safe[p.seat] if ready_at == 0 else set(),
                                self.keeps[p.seat])
            if built is None:
                opps.append(_Opp(p.seat, 10_000, [], frozenset(), tuple(melds)))
                continue
            tiles, ws = built
            for k in tiles:
                pool[k] -= 1
            opps.append(_Opp(p.seat, ready_at, tiles, ws, tuple(melds)))
        wall = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
        rng.shuffle(wall)
        return _Sample(opps, wall, frozenset().union(*(o.waits for o in opps)))

    def _build(self, rng: random.Random, pool: list[int], n: int, melds: list[Meld],
               safe: set[Kind], keep: Sequence[float]
               ) -> tuple[list[Kind], frozenset[Kind]] | None:
        """A ready hand of ``n`` tiles from ``pool`` whose waits avoid ``safe`` and are live,
        kept with the chance ``keep`` gives the least likely of its waits (the reading of the
        opponent's pond: :data:`READ_KEEP`)."""
        sets = (n - 1) // 3
        for _ in range(BUILD_TRIES):
            c = list(pool)
            tiles: list[Kind] = []
            form = rng.random()
            ok = True
            # the wait part first: two-sided / closed / edge (70%), paired (20%), single (10%)
            if form < 0.7 and sets >= 1:
                part = self._take_partial(rng, c, self.shapes.honour_sets)
                if part is None:
                    continue
                tiles += part
                need_sets, pairs = sets - 1, 1
            elif form < 0.9 and sets >= 1:
                need_sets, pairs = sets - 1, 2
            else:
                need_sets, pairs = sets, 0
                k = self._take_any(rng, c, 1)
                if k is None:
                    continue
                tiles.append(k)
            for _ in range(pairs):
                k = self._take_any(rng, c, 2)
                if k is None:
                    ok = False
                    break
                tiles += [k, k]
            for _ in range(need_sets):
                got = self._take_set(rng, c, self.shapes.honour_sets)
                if got is None:
                    ok = False
                    break
                tiles += got
            if not ok or len(tiles) != n:
                continue
            ws = self.waits(tiles, melds)
            if not ws or any(k in safe for k in ws) or not any(
                    c[k] or self.held[k] for k in ws):  # live: in the wall or in our hand
                continue
            if rng.random() >= min(keep[k] for k in ws):
                continue
            return tiles, frozenset(ws)
        return None

    def waits(self, tiles: Sequence[Kind], melds: Sequence[Meld]) -> list[Kind]:
        """The kinds completing the 3n+1 ``tiles`` (no wilds): the fast win check per kind."""
        c = [0] * NUM_KINDS
        for k in tiles:
            c[k] += 1
        return completing_kinds(self.shapes, c, melds)

    @staticmethod
    def _take_any(rng: random.Random, c: list[int], copies: int) -> Kind | None:
        kinds = [k for k in range(NUM_KINDS) if c[k] >= copies]
        if not kinds:
            return None
        k = rng.choice(kinds)
        c[k] -= copies
        return k

    @staticmethod
    def _take_honours(rng: random.Random, c: list[int], n: int) -> list[Kind] | None:
        """``n`` different winds, or dragons (Yichun's honour sets: a set of three, or two
        waiting on a third), if each is in ``c``."""
        ks = rng.sample(WINDS if rng.random() < 4 / 7 else DRAGONS, n)
        if not all(c[k] for k in ks):
            return None
        for k in ks:
            c[k] -= 1
        return ks

    @staticmethod
    def _take_set(rng: random.Random, c: list[int], honour_sets: bool) -> list[Kind] | None:
        for _ in range(8):
            if honour_sets and rng.random() < HONOUR_SET:
                ks = _Context._take_honours(rng, c, 3)
                if ks is not None:
                    return ks
                continue
            k = rng.randrange(NUM_KINDS)
            if k < 27 and k % 9 <= 6 and rng.random() < 0.7:
                if c[k] and c[k + 1] and c[k + 2]:
                    c[k] -= 1
                    c[k + 1] -= 1
                    c[k + 2] -= 1
                    return [k, k + 1, k + 2]
            elif c[k] >= 3:
                c[k] -= 3
                return [k, k, k]
        return None

    @staticmethod
    def _take_partial(rng: random.Random, c: list[int], honour_sets: bool) -> list[Kind] | None:
        for _ in range(8):
            if honour_sets and rng.random() < HONOUR_PART:
                ks = _Context._take_honours(rng, c, 2)
                if ks is not None:
                    return ks
                continue
            k = rng.randrange(27)
            r = k % 9
            gap = 1 if rng.random() < 0.75 else 2
            if r + gap <= 8 and c[k] and c[k + gap]:
                c[k] -= 1
                c[k + gap] -= 1
                return [k, k + gap]
        return None


def _edge(k: Kind) -> int:
    """Ties between equal discards: honours and terminals go first."""
    return 0 if k >= 27 else 1 if k % 9 in (0, 8) else 2


# --- a playout ----------------------------------------------------------------------------

def _playout(ctx: _Context, sample: _Sample, counts: list[int], first: int) -> float:
    """The seat's net when play goes on from ``first`` (the seat to draw next), the seat's own
    3n+1 ``counts`` (wilds included), the sample's hands and wall. The seat's melds are
    ``ctx.my_melds`` (a peng during the playout adds one; they are restored after)."""
    melds = ctx.my_melds
    try:
        return _play_on(ctx, sample, counts, first)
    finally:
        ctx.my_melds = melds


def _play_on(ctx: _Context, sample: _Sample, counts: list[int], first: int) -> float:
    me = ctx.me
    wall = sample.wall
    limit = min(len(wall), max(ctx.view.remaining, 0))
    opps = {o.seat: o for o in sample.opps}
    turns = {o.seat: 0 for o in sample.opps}
    wild = ctx.wild
    waited = sample.waited
    seat = first
    mine = ctx.my_waits(counts)  # the seat's waits, kept while its counts stand
    for i in range(limit):
        tile = wall[i]
        if seat == me:
            if tile in mine:
                v = ctx.value(Win(me, _tiles(counts), ctx.my_melds, tile, WinMethod.SELF_DRAW,
                                  baodiao=ctx.baodiao_of(counts)))
                if not math.isnan(v):
                    return v
            counts[tile] += 1
            out = ctx.after_draw(counts, tile)
            counts[out] -= 1
            if out != tile:
                mine = ctx.my_waits(counts)
        else:
            o = opps[seat]
            turns[seat] += 1
            if turns[seat] >= o.ready_at and tile in o.waits:
                v = ctx.value(Win(seat, tuple(sorted(o.concealed)), o.melds, tile,
                                  WinMethod.SELF_DRAW))
                if not math.isnan(v):  # a hand this ruleset does not pay: it plays on
                    return v
            out = tile
        if ctx.discard_wins:
            won = None if out not in mine and out not in waited else \
                _discard_won(ctx, opps, turns, counts, mine, seat, out)
            if won is not None:
                return won
        if seat != me and counts[out] >= 2 and out != wild and len(ctx.my_melds) < 4 \
                and i + 1 < limit and out in ctx.useful(counts):
            # a peng that shortens the hand (normal's claims), then a discard
            counts[out] -= 2
            ctx.my_melds = (*ctx.my_melds, Meld(MeldType.PENG, (out, out, out)))
            throw = ctx.throw(counts)
            counts[throw] -= 1
            mine = ctx.my_waits(counts)
            seat = me
            if ctx.discard_wins and throw in waited:
                won = _discard_won(ctx, opps, turns, counts, mine, me, throw)
                if won is not None:
                    return won
        seat = (seat + 1) % 4
    return ctx.value(None)


def _discard_won(ctx: _Context, opps: dict[int, _Opp], turns: dict[int, int], counts: list[int],
                 mine: frozenset[Kind], seat: int, out: Kind) -> float | None:
    """The seat's net when ``seat``'s discard ``out`` is won (the first winner after it);
    ``mine``: the waits of the seat's own 3n+1 ``counts`` (melds ``ctx.my_melds``)."""
    me = ctx.me
    for d in (1, 2, 3):
        s = (seat + d) % 4
        if s == me:
            if out in mine:
                v = ctx.value(Win(me, _tiles(counts), ctx.my_melds, out, WinMethod.DISCARD,
                                  seat))
                if not math.isnan(v):
                    return v
        else:
            o = opps[s]
            if turns[s] >= o.ready_at and out in o.waits:
                v = ctx.value(Win(s, tuple(sorted(o.concealed)), o.melds, out,
                                  WinMethod.DISCARD, seat))
                if not math.isnan(v):
                    return v
    return None


def _tiles(counts: Sequence[int]) -> tuple[Kind, ...]:
    return tuple(k for k in range(NUM_KINDS) for _ in range(counts[k]))


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
        z = self.recheck_z.get(view.rules)
        if choice == hard or not self.recheck_samples or z is None:
            return choice
        fresh = self.recheck(view, hard, choice, self.recheck_samples)
        return choice if fresh.gain > max(0.0, z * fresh.gain_half) else hard

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
        hard = HardPlayer.choose(self, view)
        cands = self.candidates(view, hard, force=True)
        evaluable = {ActionType.DISCARD, ActionType.WIN, ActionType.PASS, ActionType.PENG,
                     ActionType.CHI}
        if taken not in cands and taken.type in evaluable and not taken.ting \
                and taken in view.legal:
            cands.append(taken)
        if len(cands) < 2 or taken not in cands:
            return hard, []
        results = self._results(view, cands, adaptive=False)
        choice = self.confirmed(view, hard, self.pick(_summary(results, cands)))
        return choice, _summary(results, [taken] + [a for a in cands if a != taken])

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
