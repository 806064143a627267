"""The ``hard`` computer player: the ``normal`` player's distances, plus what a hand is worth
and what a discard risks or earns.

Discards: among the discards that keep the shortest distance (and any that follows Gejiu's
斗地主), the one with the best figure in points: ``POINTS × worth × speed − danger + 斗地主``.
``worth`` is the best pattern value within reach discounted by ``REACH^distance`` (Yichun
清一色 5, 大七对 3, 小七对 4 / 豪华 8, 十三烂, 字一色, 门清 weighted by how often it pays; Shangrao
clean / wild 平糊, 碰碰糊, 七对, 十三浪, 九幺, the wilds read as their own kind for a clean hand,
宝吊头 3; Gejiu fan as 2^fan: 混一色 / 清一色, 大对子, 小七对, the 烂牌 family); ``speed`` grows
with the improving tiles; ``danger`` is the expected loss of dealing in (below).

Two-step figures (Gejiu, a race: 99% of hands end in a win, 90% of them 平胡): when several
discards leave the hand equally short and two or more tiles from a win, their improving tiles
are replaced by the two-step acceptance — the geometric mean of the improving tiles now and of
the most improving tiles the best following discard leaves after each (:meth:`two_step`).

Kong tiles (Gejiu): a kong — 暗杠, 补杠 or a 明杠 on a discard, even one ``normal`` passes —
whose face-up kong tile completes the hand is declared at once, before any win on offer (杠上花:
3 fan more, self-drawn, paid by all three: a 平胡 pays 48 where its discard win pays 4). Any
other kong takes the kong tile that leaves the hand shortest, then with the most improving
tiles (``normal`` takes the first), among those whose robbing (抢杠花: 3 fan more, the konger
paying one more still) risks at most ``ROB_MAX`` points by the defence's reading; with none, the
kong is not made (kongs pay nothing in Gejiu).

斗地主 (Gejiu): the expected side payment of following the dealer's discard of the running
circuit (following never costs: the one seat that does not follow pays), which may cost a step.

Claims are the ``normal`` player's, refused only when the hand's worth falls (a claim spoiling
a much bigger hand). Kongs (Yichun, Shangrao) are taken when the worth plus the kong's bonus
points (杠分 / 碰杠 1, 自摸杠 2 from each seat) beats keeping the tiles, even a step longer.

宝吊头 (Shangrao): a drawn win whose hand, less one tile, is one wild beside complete sets is
declined for that discard when the plain win is small (平糊 1 / 2): in the 宝吊头 state every tile
wins on the next draw at 3 (碰碰糊宝吊头 8), lost only when an opponent self-draws first or the
wall runs out (``BAODIAO_KEEP``). For the same state a ready hand pengs or chis a tile that
leaves the wild beside complete sets after one discard, though the claim does not shorten it.
These two are most of hard's edge over ``normal`` there (docs/performance.md).

丢打火机 (Yichun): thrown when dealing. A lighter doubles every hand payment, and the dealer —
who must buy and draws first — comes out ahead between ``normal`` players, where a free seat
nets nothing or less by its place (buying never pays), so doubling its hands earns while not
dealing it would double a loss.

门清 (Yichun): a discard win offered to a concealed hand (no chi, peng or 明杠) is passed when a
self-draw is likely enough: a self-draw is paid by all three (×2 for 门清, each payer's own
buying factor) where the discard is paid by the discarder alone at ×2, so it pays Σ B(payer) /
B(discarder) times as much (2 to 4). The chance of drawing a winning tile before an opponent
wins (``MQ_HAZARD`` per opponent turn) from the unseen copies of the waits and the draws left,
times that ratio, must beat ``MQ_MARGIN`` (the wins passed and the deal-ins while waiting). There
is no 过水 in Yichun: a later discard may still be taken. Never on the dealer's first discard
(地糊, 12).

Defence: each opponent's chance of being ready is read from its melds, the length of its
pond and Gejiu's 报听 (weak signals below ``READY_MIN`` are ignored); a tile's chance of being
its wait from the unseen copies and the rank, and is zero for a tile the opponent let go by
since its last turn (after 报听 its hand is locked, so since the declaration). The expected
loss is weighted by what the ruleset makes the discarder pay (Yichun: twice the hand, ×2 per
buyer of the two; Gejiu: one fan more than everybody pays anyway; Shangrao: nothing without
discard wins). Defence never lengthens the hand: measured against ``normal`` players, folding
lost more wins than it saved deal-ins.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final

from engine.actions import Action, ActionType
from engine.bots.normal import NormalPlayer, Seat, after_claim, order_key, plain_discard
from engine.bots.shape import INF, HandEval, combine, group_vec, group_vecs, meld_facts
from engine.hands import is_baodiao_pung_shape, is_baodiao_shape, readings, waits
from engine.melds import Meld, MeldType
from engine.rulesets import RULESETS, BotProfile, Ruleset, find_ruleset
from engine.scoring.shangrao import pattern_value
from engine.table import EventType, Phase
from engine.tiles import NUM_KINDS, Kind
from engine.view import SeatPublic, View

DANGER_WEIGHT: Final = 1.0
UKE_BASE: Final = 8.0  # improving tiles: (uke + UKE_BASE) / (20 + UKE_BASE) scales the worth
UKE_SLACK: Final = 1
LONGER: float = 0.5  # a discard lengthening the hand: its worth discounted once more
DIST_SLACK: int = 0  # discards this much longer than the best compete on their figure
BAODIAO: Final = 3.0  # Shangrao 宝吊头
CONCEALED: Final = 1.25  # Yichun 门清: ×2, but only on a self-draw (a fifth of the wins)
SLOW_PAIRS: Final = 0.6  # seven pairs: few tiles improve it, each step comes slower
CLAIM_MARGIN: Final = 1.0
DDZ_FOLLOW: Final = 0.2  # chance that a later seat follows the dealer's discard
DDZ_WEIGHT: Final = 1.0
REACH: Final = 0.3  # how much one more missing tile discounts a hand's value
BAODIAO_KEEP: Final = 0.85  # chance that no opponent self-draws before our next draw
BAODIAO_LOSS: Final = 2.0  # points paid when one does (per hand, what a win costs a payer)
MQ_HAZARD: Final = 0.03  # 门清: chance that an opponent wins on one of its turns
MQ_MARGIN: float = 1.5  # 门清: a self-draw's expected worth over the discard win's, to pass
TWO_STEP_SHARE: Final = 0.6  # two-step figures for discards with this share of the most improving
TWO_STEP_MAX: Final = 4  # and at most this many of them
ROB_MAX: Final = 1.0  # Gejiu: points a kong tile's robbing may cost before the kong is not made
READY_MIN: float = 0.25  # weaker signals than this are not acted on
READY_BY_MELDS: Final = (0.03, 0.1, 0.3, 0.6, 0.9)


def _pung_jokers(counts: Sequence[int], sets: int) -> int:
    """Jokers making ``sets`` pungs + a pair out of the hand (大七对 / 碰碰糊 / 大对子)."""
    held = [c for c in counts if c]
    pungs = sorted(3 - min(c, 3) for c in held) + [3] * (sets + 1)
    best = 2 + sum(pungs[:sets])  # a pair of two jokers
    top = pungs[:sets]
    cut = top[-1] if top else 0
    for c in held:
        pc = 3 - min(c, 3)
        rest = sum(top) - pc + pungs[sets] if sets and pc <= cut else sum(top)
        best = min(best, max(0, 2 - c) + rest)
    return best


def baodiao_discards(tiles: Sequence[Kind], wild: Kind) -> list[tuple[Kind, list[Kind]]]:
    """Shangrao: each discard (not a wild) of the 3n+2 ``tiles`` that leaves the 宝吊头 shape
    (one wild beside complete sets), with the tiles left."""
    out: list[tuple[Kind, list[Kind]]] = []
    for x in sorted(set(tiles) - {wild}):
        rest = list(tiles)
        rest.remove(x)
        if is_baodiao_shape(rest, wild):
            out.append((x, rest))
    return out


def self_draw_chance(outs: int, unseen: int, draws: int, hazard: float = MQ_HAZARD) -> float:
    """The chance of drawing one of ``outs`` winning tiles (of ``unseen`` tiles not seen) in
    ``draws`` draws before any of the three opponents wins (``hazard`` on each of their turns)."""
    chance, alive, left = 0.0, 1.0, max(unseen, outs + 1)
    for _ in range(draws):
        alive *= (1.0 - hazard) ** 3
        p = outs / left
        chance += alive * p
        alive *= 1.0 - p
        left = max(outs + 1, left - 4)
    return chance


def _kong_tile(view: View, a: Action) -> Kind | None:
    """Gejiu: the face-up kong tile the kong ``a`` takes (``None``: no such tile)."""
    if a.slot is None or a.slot >= len(view.kong_tiles):
        return None
    return view.kong_tiles[a.slot]


def _after_any_kong(seat: Seat, a: Action) -> tuple[list[int], list[tuple[MeldType, Kind]]]:
    """Concealed counts and melds after the kong ``a`` (明杠 on a discard, 暗杠 or 补杠)."""
    if a.type is ActionType.MINGGANG:
        return after_claim(seat, a)
    return NormalPlayer.after_kong(seat, a)


def profile(view: View) -> BotProfile:
    """What the computer players weigh in the view's ruleset."""
    return RULESETS[view.rules].bot_profile


@functools.lru_cache(maxsize=64)
def _ruleset(rules: str, options: tuple[tuple[str, Any], ...]) -> Ruleset:
    return find_ruleset(rules, dict(options))


class HardPlayer(NormalPlayer):
    level = "hard"
    rob_care: bool = True  # Gejiu: no kong whose kong tile is likely robbed

    def choose(self, view: View) -> Action:
        prof = profile(view)
        if prof.dealer_lighter and view.my_move and view.viewer == view.dealer:
            lighter = Action(ActionType.BUY, lighter=True)
            if lighter in view.legal:
                return lighter
        if prof.baodiao and view.my_move:
            action = self.baodiao_decline(view)
            if action is not None:
                return action
        if prof.concealed_doubles and view.my_move and self.menqing_pass(view):
            return Action.pass_()
        if view.kong_tiles and view.my_move:
            action = self.kong_tile_win(view)
            if action is not None:
                return action
        return super().choose(view)

    # --- Gejiu kong tiles -----------------------------------------------------------------
    @staticmethod
    def kong_tile_win(view: View) -> Action | None:
        """Gejiu: a kong (暗杠, 补杠 or 明杠 on the discard) whose face-up kong tile completes
        the hand: 杠上花, 3 fan and self-drawn, paid by all three at 2^(fan + 4) — eight times a
        self-drawn 平胡 and twelve times a discard win, so it comes before either."""
        seat = Seat.of(view)
        for a in view.legal:
            if a.type not in (ActionType.ANGANG, ActionType.BUGANG, ActionType.MINGGANG):
                continue
            tile = _kong_tile(view, a)
            if tile is None:
                continue
            c, melds = _after_any_kong(seat, a)
            c[tile] += 1
            if min(seat.evaluator(c, melds=melds).shapes().values()) == 0:
                return a
        return None

    def rob_risk(self, seat: Seat, tile: Kind) -> float:
        """Gejiu: the expected points lost when an opponent robs the kong tile ``tile`` (抢杠花:
        3 fan more, and the konger pays one more still, 2^(fan + 4)), by the defence's reading
        of who is ready and what it waits on."""
        view = seat.view
        safe = self._safe(seat)
        risk = 0.0
        for p in view.seats:
            if p.seat == seat.me or tile in safe[p.seat]:
                continue
            ready = self._ready_chance(p)
            if ready < READY_MIN:
                continue
            fan = sum(self._shown(p))
            risk += ready * self._wait_chance(tile, seat) * 2.0 ** (fan + 4)
        return risk

    def best_slot(self, seat: Seat, action: Action) -> Action | None:
        """Gejiu: the same kong, taking the face-up kong tile that leaves the hand shortest,
        then with the most improving tiles (``normal`` takes the first), among those whose
        robbing risk is at most ``ROB_MAX``; ``None`` when every one is riskier (kongs pay
        nothing in Gejiu: the kong is not worth it)."""
        view = seat.view
        options = {a: t for a in view.legal if a.type is action.type and a.tile == action.tile
                   and a.tiles == action.tiles and (t := _kong_tile(view, a)) is not None}
        if self.rob_care:
            options = {a: t for a, t in options.items() if self.rob_risk(seat, t) <= ROB_MAX}
            if not options:
                return None
        if len(options) < 2:
            return next(iter(options), action)
        c, melds = _after_any_kong(seat, action)

        def figure(a: Action) -> tuple[int, int, int]:
            c2 = list(c)
            c2[options[a]] += 1
            ev = seat.evaluator(c2, melds=melds)
            table = ev.discards(seat.unseen, [k for k in range(NUM_KINDS) if c2[k]], None, 0)
            d = min(v[0] for v in table.values())
            return (d, -max(v[1] for v in table.values() if v[0] == d), a.slot or 0)

        return min(options, key=figure)

    # --- Yichun 门清 ------------------------------------------------------------------------
    @staticmethod
    def menqing_pass(view: View) -> bool:
        """Yichun: whether to pass the discard win offered now, for a 门清 self-draw."""
        me, source = view.viewer, view.window_from
        if me is None or source is None or view.phase is not Phase.CLAIM:
            return False
        if Action.win() not in view.legal:
            return False
        mine = view.seats[me]
        if any(m.type is not MeldType.AGANG for m in mine.melds):
            return False  # not concealed: a self-draw pays no more than the discarder does
        if source == view.dealer and len(view.seats[source].pond) == 1:
            return False  # perhaps 地糊
        melds = [Meld(m.type, m.tiles) for m in mine.melds if m.tiles is not None]
        unseen = Seat.of(view).unseen
        outs = sum(unseen[k] for k in waits(RULESETS[view.rules].shapes, list(view.hand), melds))
        if not outs:
            return False
        factor = {p.seat: 2 if p.bought else 1 for p in view.seats}
        ratio = sum(f for s, f in factor.items() if s != me) / factor[source]
        return self_draw_chance(outs, sum(unseen), view.remaining // 4) * ratio > MQ_MARGIN

    # --- Shangrao 宝吊头 ---------------------------------------------------------------------
    @staticmethod
    def baodiao_decline(view: View) -> Action | None:
        """Shangrao: the discard that declines a drawn win to enter the 宝吊头 state, when
        ``BAODIAO_KEEP`` × the 宝吊头 value (less ``BAODIAO_LOSS`` when an opponent wins first)
        beats the win now; ``None`` to play on as usual. Only entering the state: staying in it
        (偷机, for 宝吊宝 / 宝吊无宝 at 6) lost points in play against ``normal``."""
        offer = HardPlayer.baodiao_offer(view)
        if offer is None:
            return None
        action, value, now = offer
        if 3 * BAODIAO_KEEP * value - (1 - BAODIAO_KEEP) * BAODIAO_LOSS <= 3 * now:
            return None
        return action

    @staticmethod
    def baodiao_offer(view: View) -> tuple[Action, float, float] | None:
        """Shangrao, a drawn win on offer: the discard that would enter the 宝吊头 state
        instead, the pattern value waiting there (宝吊头 3, 碰碰糊宝吊头 8) and the win's now;
        ``None`` where no discard does (or the state is not worth a look: see
        :meth:`baodiao_decline`, which weighs the two)."""
        wild, me = view.wild, view.viewer
        if wild is None or me is None or view.drawn is None or Action.win() not in view.legal:
            return None
        if view.remaining < 4 or is_baodiao_shape(list(view.hand), wild):
            return None  # no draw of ours may come; or in the state already: take the win
        tiles = [*view.hand, view.drawn]
        melds = [Meld(m.type, m.tiles) for m in view.seats[me].melds if m.tiles is not None]
        rs = readings(RULESETS[view.rules].shapes, tiles, melds, wild)
        now = float(pattern_value(rs, self_drawn=True))
        last = view.events[-1] if view.events else None
        if last is not None and last.type is EventType.REPLACEMENT and last.seat == me:
            now *= 2  # 杠开
        pungs = all(m.type is not MeldType.CHI for m in melds)
        best: tuple[float, Kind] | None = None
        for x, rest in baodiao_discards(tiles, wild):
            value = 8.0 if pungs and is_baodiao_pung_shape(rest, wild) else BAODIAO
            if best is None or value > best[0]:
                best = (value, x)
        if best is None:
            return None
        value, x = best
        action = Action.discard(x)
        return (action, value, now) if action in view.legal else None

    # --- offence --------------------------------------------------------------------------
    def targets(self, seat: Seat, counts: list[int], wilds: int,
                melds: list[tuple[MeldType, Kind]]) -> float:
        """The hand's worth: max over reachable patterns of value × REACH^distance."""
        rules = RULESETS[seat.view.rules]
        prof = rules.bot_profile
        facts = meld_facts(melds)
        ev = HandEval(rules.shapes, counts, wilds, facts)
        shapes = ev.shapes()
        floor = 0 if (sum(counts) + wilds) % 3 == 2 else 1
        sets = 4 - facts.count
        concealed = not facts.exposed
        out: list[tuple[float, int]] = []

        def add(value: float, jokers: int) -> None:
            out.append((value, max(jokers - wilds, floor) if jokers < INF else INF))

        clean = wilds == 0

        def value(pair: tuple[float, float]) -> float:
            return pair[0] if clean else pair[1]

        base = CONCEALED if prof.concealed_doubles and concealed else 1.0
        out.append((value(prof.standard) * base, shapes["standard"]))
        wild = seat.wild
        if prof.baodiao and wilds and wild is not None:  # the wilds as their own kind: clean
            nat = list(counts)
            nat[wild] += wilds
            cs = HandEval(rules.shapes, nat, 0, facts).shapes()
            out.append((prof.standard[0], cs["standard"]))
            if "seven_pairs" in cs:
                out.append((SLOW_PAIRS * prof.seven_pairs[0], cs["seven_pairs"]))
            # 宝吊头: one wild kept as the head, complete sets around it
            vecs = group_vecs(counts, rules.shapes)
            sets_only = combine(combine(vecs[0], vecs[1]), combine(vecs[2], vecs[3]))
            if sets_only[2 * sets] < INF:  # the sets, then any tile for the head
                bd = max(sets_only[2 * sets] - (wilds - 1), 0) + floor
                out.append((BAODIAO, bd))
        if "seven_pairs" in shapes:
            lux = 2.0 if prof.luxury_pairs and any(c == 4 for c in counts) else 1.0
            out.append((SLOW_PAIRS * value(prof.seven_pairs) * lux * base, shapes["seven_pairs"]))
            out.append((value(prof.knitted) * base, shapes["knitted"]))
        if facts.all_pungs:
            add(value(prof.pungs) * base, _pung_jokers(counts, sets))
        if "zi" in shapes:
            out.append((prof.all_honours * base, shapes["zi"]))
        if "jiuyao" in shapes:
            out.append((value(prof.jiuyao) * base, shapes["jiuyao"]))
        # one suit: 清一色 (Yichun 5, Gejiu 2 fan), Gejiu 混一色 (1 fan) with honours
        if prof.one_suit is not None:
            hon = group_vec(tuple(counts[27:34]), rules.shapes.honour_group)
            for s in range(3):
                if facts.suits - {s}:
                    if prof.half_suit is not None and not (facts.suits - {s, 3}):
                        v = group_vec(tuple(counts[9 * s: 9 * s + 9]), 0)
                        add(prof.half_suit, self._two_groups(v, hon, sets))
                    continue
                v = group_vec(tuple(counts[9 * s: 9 * s + 9]), 0)
                add(prof.one_suit * base, v[2 * sets + 1])
                if prof.half_suit is not None:
                    add(prof.half_suit, self._two_groups(v, hon, sets))
        return max(value * REACH ** dist for value, dist in out)

    @staticmethod
    def _two_groups(a: tuple[int, ...], b: tuple[int, ...], sets: int) -> int:
        best = INF
        for k in range(sets + 1):
            best = min(best, a[2 * k] + b[2 * (sets - k) + 1], a[2 * k + 1] + b[2 * (sets - k)])
        return best

    # --- defence --------------------------------------------------------------------------
    def dangers(self, seat: Seat) -> list[float]:
        """Expected points lost by discarding each kind now."""
        view = seat.view
        out = [0.0] * NUM_KINDS
        if not _ruleset(view.rules, view.options).discard_wins():
            return out  # only a robbed kong pays there
        safe = self._safe(seat)
        for p in view.seats:
            if p.seat == seat.me:
                continue
            ready = self._ready_chance(p)
            if ready < READY_MIN:
                continue
            cost = self.deal_in_cost(view.rules, p, bool(view.seats[seat.me].bought))
            for k in range(NUM_KINDS):
                if k in safe[p.seat] or seat.unseen[k] + seat.counts[k] == 0:
                    continue
                out[k] += DANGER_WEIGHT * ready * self._wait_chance(k, seat) * cost
        return out

    @staticmethod
    def _ready_chance(p: SeatPublic) -> float:
        if p.ting:
            return 1.0
        base = READY_BY_MELDS[min(len(p.melds), 4)]
        return min(0.95, base + 0.03 * max(0, len(p.pond) - 6))

    @staticmethod
    def _shown(p: SeatPublic) -> tuple[bool, bool]:
        """Whether ``p``'s melds (two or more) are all pungs / all of one suit."""
        melds = [m for m in p.melds if m.tiles is not None]
        pungs = len(melds) >= 2 and all(m.type is not MeldType.CHI for m in melds)
        suits = {m.tiles[0] // 9 for m in melds if m.tiles is not None and m.tiles[0] < 27}
        return pungs, len(melds) >= 2 and len(suits) <= 1

    @classmethod
    def deal_in_cost(cls, rules: str, p: SeatPublic, me_bought: bool) -> float:
        """What dealing in to ``p`` is reckoned to cost this seat, by what ``p`` shows (pungs,
        one suit) and what the ruleset makes the discarder pay."""
        pungs, one_suit = cls._shown(p)
        if RULESETS[rules].bot_profile.deal_in_points:
            v = 1.5 * (3.0 if pungs else 1.0) * (4.0 if one_suit else 1.0)
            return 2.0 * v * (2.0 if p.bought else 1.0) * (2.0 if me_bought else 1.0)
        fan = (1 if pungs else 0) + (1 if one_suit else 0)
        # everybody pays every win; dealing in costs one fan more than paying anyway
        return 2.0 ** fan + 0.5

    @staticmethod
    def _wait_chance(k: Kind, seat: Seat) -> float:
        live = seat.unseen[k]
        if k >= 27:
            shape = 0.5 if live >= 2 else 0.25
        else:
            r = k % 9
            shape = 0.6 if r in (0, 8) else 0.8 if r in (1, 7) else 1.0
            near = sum(seat.unseen[j] for j in range(k - k % 9 + max(0, r - 2),
                                                     k - k % 9 + min(8, r + 2) + 1) if j != k)
            shape *= 0.5 + near / 16.0
        return shape * (0.3 + live / 4.0) / 8.0

    @staticmethod
    def _safe(seat: Seat) -> dict[int, set[Kind]]:
        """Kinds each opponent let go by since its hand last changed (it always wins when it
        can, so these are not its waits)."""
        view = seat.view
        safe: dict[int, set[Kind]] = {s: set() for s in range(4)}
        for p in view.seats:
            if p.ting:  # locked: everything it threw since the declaration
                after = False
                for d in p.pond:
                    if d.ting:
                        after = True
                    if after:
                        safe[p.seat].add(d.kind)
        declared: set[int] = set()
        for e in view.events:
            if e.type is EventType.TING and e.seat is not None:
                declared.add(e.seat)
                safe[e.seat] = set()
            elif e.type is EventType.DISCARD and e.tile is not None and e.seat is not None:
                if e.seat not in declared:
                    safe[e.seat] = set()
                for s in range(4):
                    if s != e.seat:
                        safe[s].add(e.tile)
            elif e.type in (EventType.CHI, EventType.PENG, EventType.MINGGANG) \
                    and e.seat is not None:
                safe[e.seat] = set()
        return safe

    # --- decisions ------------------------------------------------------------------------
    def score_discards(self, seat: Seat,
                       table: dict[Kind, tuple[int, int, dict[str, int]]],
                       speeds: dict[Kind, float] | None = None) -> dict[Kind, float]:
        """Each candidate discard's figure in points: what the hand left is worth (pattern
        value × REACH^distance × a factor for the improving tiles), minus the expected loss of
        dealing in, plus Gejiu's 斗地主 gain."""
        danger = self.dangers(seat)
        bonus = self.ddz_bonus(seat)
        pts = profile(seat.view).win_points
        out: dict[Kind, float] = {}
        best_d = min(v[0] for v in table.values())
        for k, (dist, uke, _) in table.items():
            c = list(seat.counts)
            w = seat.wilds
            if seat.wild is not None and k == seat.wild:
                w -= 1
            else:
                c[k] -= 1
            worth = self.targets(seat, c, w, seat.melds)
            eff = float(max(uke, 0)) if speeds is None else speeds[k]
            speed = (eff + UKE_BASE) / (20.0 + UKE_BASE)
            slower = LONGER ** (dist - best_d)
            out[k] = pts * worth * speed * slower - danger[k] + bonus.get(k, 0.0)
        return out

    def best_discard(self, seat: Seat,
                     table: dict[Kind, tuple[int, int, dict[str, int]]] | None = None
                     ) -> Action:
        legal = seat.view.legal
        table = seat.evaluator().discards(seat.unseen, seat.discard_kinds(legal), seat.wild,
                                          UKE_SLACK)
        speeds = self.two_step(seat, table) if profile(seat.view).two_step else None
        scores = self.score_discards(seat, table, speeds)
        rules, wild = seat.view.rules, seat.wild
        best_d = min(v[0] for v in table.values())

        follow = {k for k, v in self.ddz_bonus(seat).items() if v >= 0.5}

        def slack(k: Kind) -> int:  # following 斗地主 may cost distance: its figure decides
            return 0 if k in follow else max(0, table[k][0] - best_d - DIST_SLACK)

        choice = min(scores, key=lambda k: (slack(k), -round(scores[k], 9), table[k][0],
                                            -table[k][1],
                                            order_key(seat.counts, k, rules, wild), k))
        return plain_discard(legal, choice)

    def two_step(self, seat: Seat, table: dict[Kind, tuple[int, int, dict[str, int]]]
                 ) -> dict[Kind, float] | None:
        """Each discard's speed figure in improving tiles, when two or more of the shortest
        leave the hand two or more tiles from a win: for the shortest ones with the most
        improving tiles (``TWO_STEP_SHARE``, ``TWO_STEP_MAX``), the geometric mean of the
        improving tiles now and, after each, the most improving tiles the best following discard
        leaves (the square root of Σ unseen copies × next improving tiles); the other shortest
        ones count 0; longer ones keep their improving tiles. Two discards with about as many
        improving tiles differ in how good the hands they lead to are. ``None``: no such
        choice (or wilds, Shangrao)."""
        best_d = min(v[0] for v in table.values())
        cands = [k for k, v in table.items() if v[0] == best_d and v[1] >= 0]
        if best_d < 2 or len(cands) < 2 or seat.wilds:
            return None
        top = max(table[k][1] for k in cands)
        rules, wild = seat.view.rules, seat.wild
        cands = sorted((k for k in cands if table[k][1] >= TWO_STEP_SHARE * top),
                       key=lambda k: (-table[k][1], order_key(seat.counts, k, rules, wild), k)
                       )[:TWO_STEP_MAX]
        memo: dict[tuple[int, ...], int] = {}
        facts, unseen = seat.facts, list(seat.unseen)
        out = {k: 0.0 if v[0] == best_d else float(max(v[1], 0)) for k, v in table.items()}
        for x in cands:
            c = list(seat.counts)
            c[x] -= 1
            ev = HandEval(rules, c, 0, facts)
            shapes = ev.shapes()
            total = 0
            for t in ev.useful(c, 0, best_d, shapes, unseen, None):
                c[t] += 1
                key = tuple(c)
                nxt = memo.get(key)
                if nxt is None:
                    unseen[t] -= 1
                    ev2 = HandEval(rules, c, 0, facts)
                    rows = ev2.discards(unseen, [k for k in range(NUM_KINDS) if c[k]], None, 0)
                    d2 = min(r[0] for r in rows.values())
                    nxt = max(r[1] for r in rows.values() if r[0] == d2)
                    unseen[t] += 1
                    memo[key] = nxt
                c[t] -= 1
                total += unseen[t] * nxt
            out[x] = total ** 0.5
        return out

    def _hand_figure(self, seat: Seat, c: list[int], melds: list[tuple[MeldType, Kind]]
                     ) -> float:
        """The best worth after one discard from the concealed ``c`` (a 3n+2 hand)."""
        best = 0.0
        for k in range(NUM_KINDS):
            if c[k]:
                c[k] -= 1
                best = max(best, self.targets(seat, c, seat.wilds, melds))
                c[k] += 1
        if seat.wilds and not best:
            best = self.targets(seat, c, seat.wilds - 1, melds)
        return best

    def claim(self, seat: Seat, kinds: dict[ActionType, list[Action]]) -> Action:
        """Claim as ``normal`` does (when it shortens the hand), unless the hand's worth falls
        (a claim spoiling seven pairs or a big concealed hand is refused)."""
        action = super().claim(seat, kinds)
        if action.type is ActionType.MINGGANG and seat.view.kong_tiles:
            action = self.best_slot(seat, action) or Action.pass_()
        if action.type is ActionType.PASS:
            return self.baodiao_claim(seat, kinds) or action
        now = self.targets(seat, list(seat.counts), seat.wilds, seat.melds)
        c, melds = after_claim(seat, action)
        if action.type is ActionType.MINGGANG:
            fig = self.targets(seat, c, seat.wilds, melds)
            prof = profile(seat.view)
            fig += prof.kong_points / prof.win_points
        else:
            fig = self._hand_figure(seat, c, melds)
        return action if fig >= now * CLAIM_MARGIN else Action.pass_()

    def baodiao_claim(self, seat: Seat, kinds: dict[ActionType, list[Action]]
                      ) -> Action | None:
        """Shangrao: a peng or chi that ``normal`` passes (it does not shorten the hand) but
        after which one discard leaves the wild beside complete sets: the 宝吊头 state, where
        every next draw wins at 3 — unless the hand is worth that already."""
        wild = seat.wild
        if not profile(seat.view).baodiao or wild is None or not seat.wilds:
            return None
        if self.targets(seat, list(seat.counts), seat.wilds, seat.melds) >= BAODIAO * REACH:
            return None
        for t in (ActionType.PENG, ActionType.CHI):
            for a in kinds.get(t, []):
                c, _ = after_claim(seat, a)
                tiles = [k for k in range(NUM_KINDS) for _ in range(c[k])] + [wild] * seat.wilds
                if baodiao_discards(tiles, wild):
                    return a
        return None

    def kong(self, seat: Seat, kinds: dict[ActionType, list[Action]], best: int
             ) -> Action | None:
        """Yichun / Shangrao: a concealed or added kong when the hand's worth plus the kong's
        bonus points beats keeping the tiles (Gejiu: as ``normal``, for its kong tiles)."""
        rules = RULESETS[seat.view.rules]
        if rules.kong_tiles:
            action = super().kong(seat, kinds, best)
            return None if action is None else self.best_slot(seat, action)
        now = self._hand_figure(seat, list(seat.counts), seat.melds)
        options: list[tuple[float, Action]] = []
        for a in kinds.get(ActionType.ANGANG, []) + kinds.get(ActionType.BUGANG, []):
            c, melds = self.after_kong(seat, a)
            prof = rules.bot_profile
            pts = prof.kong_points * (2.0 if a.type is ActionType.ANGANG else 1.0)
            fig = self.targets(seat, c, seat.wilds, melds) + pts / prof.win_points
            if fig >= now:
                options.append((fig, a))
        if not options:
            return None
        return max(options, key=lambda o: (o[0], -(o[1].tile or 0)))[1]

    # --- 斗地主 -----------------------------------------------------------------------------
    @staticmethod
    def ddz_bonus(seat: Seat) -> dict[Kind, float]:
        """Gejiu: the expected 斗地主 gain of following the dealer's discard now (following
        never costs: a seat that does not follow may be the one who pays)."""
        view = seat.view
        if not RULESETS[view.rules].has_doudizhu or seat.me == view.dealer:
            return {}
        if any(p.melds for p in view.seats):
            return {}  # a claim or kong has ended 斗地主
        ponds = {p.seat: p.pond for p in view.seats}
        d = view.dealer
        k = len(ponds[seat.me])
        if len(ponds[d]) != k + 1:
            return {}
        for j in range(k):  # every earlier circuit must have paid
            x = ponds[d][j].kind
            if sum(1 for o in (1, 2, 3) if ponds[(d + o) % 4][j].kind == x) < 2:
                return {}
        x = ponds[d][k].kind
        if not seat.counts[x]:
            return {}
        off = (seat.me - d) % 4
        before = sum(1 for o in range(1, off) if ponds[(d + o) % 4][k].kind == x)
        after = 3 - off
        p = DDZ_FOLLOW
        if after == 0:
            gain = 5.0 if before == 2 else 1.0 if before == 1 else 0.0
        elif after == 1:
            gain = 1.0 + 4.0 * p if before == 1 else p
        else:
            gain = 2.0 * p + 3.0 * p * p
        return {x: gain * DDZ_WEIGHT}
