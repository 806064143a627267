"""The ``expert``'s determinized positions: a sample of what its seat cannot see, played
forward to the hand's end and valued by the ruleset's own settlement.

One job: given a decision's view, deal the hidden tiles out consistently with it and play a
candidate's position through (:class:`_Context`, :func:`_playout`). Which candidates are
searched, on how many samples, and which is taken is :mod:`engine.bots.expert`'s.

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
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from engine.bots.hard import HardPlayer, profile
from engine.bots.normal import Seat
from engine.bots.shape import HandEval, meld_facts
from engine.group_keys import completing_kinds
from engine.hands import is_baodiao_shape
from engine.melds import Meld, MeldType
from engine.rulesets import Ruleset, find_ruleset
from engine.situation import BaoDiao, Situation, Win, WinMethod
from engine.tiles import DRAGONS, NUM_KINDS, WINDS, Kind
from engine.view import View

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

