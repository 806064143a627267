"""The ``hard`` computer player: the ``normal`` player's distances, plus what a hand is worth
and what a discard risks or earns, in points.

Discards: among the discards that keep the shortest distance (and any that follows Gejiu's
斗地主), the one with the best expected figure ``P(win) × POINTS × value × (1 − P(deal in)) −
P(deal in) × cost + 斗地主``. ``P(win)`` is a logistic fit of the chance of winning the hand
from the distance left, the unseen improving tiles and the pond's length (``PWIN_FIT``); one
step from ready it is scaled by the lookahead's average win chance of the ready hands the next
useful tile leads to. ``value`` is the best pattern within reach discounted by
``REACH^(its distance − the hand's)`` (Yichun 清一色 5, 大七对 3, 小七对 4 / 豪华 8, 十三烂, 字一色,
门清 weighted by how often it pays; Shangrao clean / wild 平糊, 碰碰糊, 七对, 十三浪, 九幺, the
wilds read as their own kind for a clean hand, 宝吊头 3; Gejiu fan as 2^fan: 混一色 / 清一色,
大对子, 小七对, the 烂牌 family).

Defence: each opponent's chance of being ready (``READY_FIT``, from its melds and pond length;
1 after Gejiu's 报听) times each kind's chance of being one of its waits (``WAIT_FIT`` by the
unseen copies and the rank, ``SUJI_FIT`` with a 筋 tile in its pond, ``GENBUTSU`` for a kind it
threw itself, zero for a kind it let go by since its last turn), times what the ruleset makes
the discarder pay (Yichun: twice the hand, ×2 per buyer of the two; Gejiu: about one fan more
than everybody pays anyway; Shangrao: nothing without discard wins). The tables were fitted
offline on simulated hands of four ``normal`` players with every hand visible (see the
constants); the player itself still reads only its seat's view. Defence never lengthens the
hand: measured against ``normal`` players (800-1000 duplicate deals in Yichun and Gejiu),
folding to a longer but safer hand lost more wins than it saved deal-ins.

斗地主 (Gejiu): the expected side payment of following the dealer's discard of the running
circuit (following never costs: the one seat that does not follow pays), which may cost a step.

Claims are the ``normal`` player's, refused only when the hand's worth falls (a claim spoiling
a much bigger hand). Kongs (Yichun, Shangrao) are taken when the worth plus the kong's bonus
points (杠分 / 碰杠 1, 自摸杠 2 from each seat) beats keeping the tiles, even a step longer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from engine.actions import Action, ActionType
from engine.bots.normal import NormalPlayer, Seat, after_claim, order_key, plain_discard
from engine.bots.shape import (
    INF,
    HandEval,
    combine,
    group_vec,
    group_vecs,
    meld_facts,
    near_kinds,
)
from engine.melds import MeldType
from engine.table import EventType
from engine.tiles import NUM_KINDS, Kind
from engine.view import SeatPublic

UKE_SLACK: Final = 1
UKE_FAR: Final = 8  # improving tiles assumed for a discard beyond UKE_SLACK (not counted)
BAODIAO: Final = 3.0  # Shangrao 宝吊头
CONCEALED: Final = 1.25  # Yichun 门清: ×2, but only on a self-draw (a fifth of the wins)
SLOW_PAIRS: Final = 0.6  # seven pairs: few tiles improve it, each step comes slower
CLAIM_MARGIN: Final = 1.0
KONG_BONUS: Final = {"yichun": 2.0, "shangrao": 3.0, "gejiu": 0.0}  # points a 明杠 brings
DDZ_FOLLOW: Final = 0.2  # chance that a later seat follows the dealer's discard
DDZ_WEIGHT: Final = 1.0
REACH: Final = 0.3  # how much one more missing tile discounts a hand's value
POINTS: Final = {"yichun": 5.0, "shangrao": 3.5, "gejiu": 7.0}  # a value-1 win, in points
DEAL_IN_GEJIU: float = 1.9  # Gejiu: the extra fan, less what the win would cost anyway
TENPAI_UKE: Final = 7  # the typical improving tiles of a ready hand (for the lookahead)

# The tables below were fitted offline by logistic regression / counting over 2000 hands per
# ruleset of four ``normal`` players (seed 5), reading every hand in full at each discard.
# P(an opponent is ready): logit = a + b × (its pond length), by its melds (0, 1, 2, 3; 4 melds
# is always ready, and so is a Gejiu 报听).
READY_FIT: Final = {
    "yichun": ((-4.82, 0.447), (-3.61, 0.409), (-1.76, 0.276), (0.75, 0.217)),
    "gejiu": ((-5.20, 0.396), (-3.80, 0.376), (-2.26, 0.299), (0.08, 0.243)),
    "shangrao": ((-4.08, 0.451), (-3.19, 0.450), (-1.64, 0.348), (2.02, 0.043)),
}
# P(a kind is one of a ready opponent's winning tiles), by the copies this seat cannot see
# (0-3) for terminals, 2/8, the middle ranks and honours; with a 筋 (rank ± 3) in that
# opponent's pond; and for a kind it threw itself (genbutsu: a bot throws no wait it holds).
WAIT_FIT: Final = {
    "yichun": {"t": (0.008, 0.033, 0.044, 0.062), "n": (0.02, 0.05, 0.057, 0.075),
               "m": (0.056, 0.06, 0.079, 0.105), "h": (0.036, 0.048, 0.072, 0.095)},
    "gejiu": {"t": (0.026, 0.03, 0.046, 0.065), "n": (0.028, 0.048, 0.073, 0.11),
              "m": (0.049, 0.077, 0.092, 0.119), "h": (0.014, 0.013, 0.012, 0.025)},
}
SUJI_FIT: Final = {
    "yichun": {"t": (0.0, 0.009, 0.015, 0.04), "n": (0.01, 0.004, 0.013, 0.037),
               "m": (0.021, 0.028, 0.053, 0.087)},
    "gejiu": {"t": (0.003, 0.004, 0.01, 0.025), "n": (0.02, 0.01, 0.027, 0.041),
              "m": (0.019, 0.047, 0.071, 0.099)},
}
GENBUTSU: Final = 0.003
# P(this seat wins the hand) after a discard leaving distance d (1-5+), with u unseen improving
# tiles and its pond p long: logit = a[d] + b × p + c × log(u + 2) (c: d = 1, d >= 2).
PWIN_FIT: Final = {
    "yichun": ((-0.19, -2.60, -3.71, -4.45, -4.85), -0.189, (0.654, 0.83)),
    "gejiu": ((0.39, -2.38, -3.50, -4.32, -4.95), -0.199, (0.462, 0.865)),
    "shangrao": ((-2.79, -4.72, -5.74, -6.43, -6.78), -0.156, (1.25, 1.381)),
}


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def win_chance(rules: str, dist: int, uke: int, pond: int) -> float:
    """The fitted chance of winning the hand from ``dist`` with ``uke`` improving tiles."""
    a, b, c = PWIN_FIT[rules]
    if dist <= 0:
        return 1.0
    u = UKE_FAR if uke < 0 else min(uke, 34)
    return _sigmoid(a[min(dist, 5) - 1] + b * pond + c[0 if dist == 1 else 1] * math.log(u + 2))


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


class HardPlayer(NormalPlayer):
    level = "hard"

    # --- offence --------------------------------------------------------------------------
    def targets(self, seat: Seat, counts: list[int], wilds: int,
                melds: list[tuple[MeldType, Kind]]) -> float:
        """The hand's worth: max over reachable patterns of value × REACH^distance."""
        rules = seat.view.rules
        facts = meld_facts(melds)
        ev = HandEval(rules, counts, wilds, facts)
        shapes = ev.shapes()
        floor = 0 if (sum(counts) + wilds) % 3 == 2 else 1
        sets = 4 - facts.count
        concealed = not facts.exposed
        out: list[tuple[float, int]] = []

        def add(value: float, jokers: int) -> None:
            out.append((value, max(jokers - wilds, floor) if jokers < INF else INF))

        clean = wilds == 0
        if rules == "yichun":
            base = CONCEALED if concealed else 1.0  # 门清 doubles a concealed self-draw
            out.append((base, shapes["standard"]))
            if "seven_pairs" in shapes:
                lux = 2.0 if any(c == 4 for c in counts) else 1.0
                out.append((SLOW_PAIRS * 4.0 * lux * base, shapes["seven_pairs"]))
                out.append((2.0 * base, shapes["knitted"]))
            if facts.all_pungs:
                add(3.0 * base, _pung_jokers(counts, sets))
            if "zi" in shapes:
                out.append((6.0 * base, shapes["zi"]))
        elif rules == "shangrao":
            out.append((2.0 if clean else 1.0, shapes["standard"]))
            wild = seat.wild
            if wilds and wild is not None:  # the wilds as their own kind: a clean hand
                nat = list(counts)
                nat[wild] += wilds
                cs = HandEval(rules, nat, 0, facts).shapes()
                out.append((2.0, cs["standard"]))
                if "seven_pairs" in cs:
                    out.append((SLOW_PAIRS * 10.0, cs["seven_pairs"]))
                # 宝吊头: one wild kept as the head, complete sets around it
                vecs = group_vecs(counts, rules)
                sets_only = combine(combine(vecs[0], vecs[1]), combine(vecs[2], vecs[3]))
                if sets_only[2 * sets] < INF:  # the sets, then any tile for the head
                    bd = max(sets_only[2 * sets] - (wilds - 1), 0) + floor
                    out.append((BAODIAO, bd))
            if "seven_pairs" in shapes:
                lux = 2.0 if any(c == 4 for c in counts) else 1.0
                out.append((SLOW_PAIRS * (10.0 if clean else 4.0) * lux, shapes["seven_pairs"]))
                out.append((4.0 if clean else 2.0, shapes["knitted"]))
            if facts.all_pungs:
                add(10.0 if clean else 4.0, _pung_jokers(counts, sets))
            if "jiuyao" in shapes:
                out.append((4.0 if clean else 2.0, shapes["jiuyao"]))
        else:  # gejiu: payments go as 2^fan
            out.append((1.0, shapes["standard"]))
            if "seven_pairs" in shapes:
                out.append((SLOW_PAIRS * 4.0, shapes["seven_pairs"]))
                out.append((2.0, shapes["knitted"]))
            if facts.all_pungs:
                add(2.0, _pung_jokers(counts, sets))
        # one suit: 清一色 (Yichun 5, Gejiu 2 fan), Gejiu 混一色 (1 fan) with honours
        if rules != "shangrao":
            hon = group_vec(tuple(counts[27:34]), 1 if rules == "gejiu" else 2)
            for s in range(3):
                if facts.suits - {s}:
                    if rules == "gejiu" and not (facts.suits - {s, 3}):
                        v = group_vec(tuple(counts[9 * s: 9 * s + 9]), 0)
                        add(2.0, self._two_groups(v, hon, sets))
                    continue
                v = group_vec(tuple(counts[9 * s: 9 * s + 9]), 0)
                if rules == "yichun":
                    add(5.0 * base, v[2 * sets + 1])
                else:
                    add(4.0, v[2 * sets + 1])
                    add(2.0, self._two_groups(v, hon, sets))
        return max(value * REACH ** dist for value, dist in out)

    @staticmethod
    def _two_groups(a: tuple[int, ...], b: tuple[int, ...], sets: int) -> int:
        best = INF
        for k in range(sets + 1):
            best = min(best, a[2 * k] + b[2 * (sets - k) + 1], a[2 * k + 1] + b[2 * (sets - k)])
        return best

    # --- defence --------------------------------------------------------------------------
    def dangers(self, seat: Seat) -> list[float]:
        """Each kind's chance of dealing in now, times what dealing in costs (in points)."""
        return self.deal_ins(seat)[1]

    def deal_ins(self, seat: Seat) -> tuple[list[float], list[float]]:
        """Each kind's chance of dealing in now, and that chance times the cost in points."""
        view = seat.view
        out = [0.0] * NUM_KINDS
        chance = [0.0] * NUM_KINDS
        rules = view.rules
        if rules == "shangrao" and not dict(view.options).get("discard_wins"):
            return chance, out  # only a robbed kong pays there
        safe = self._safe(seat)
        waits = WAIT_FIT.get(rules, WAIT_FIT["yichun"])
        sujis = SUJI_FIT.get(rules, SUJI_FIT["yichun"])
        me_bought = bool(view.seats[seat.me].bought)
        for p in view.seats:
            if p.seat == seat.me:
                continue
            ready = self.ready_chance(rules, p)
            cost = self._deal_in_cost(rules, p, me_bought)
            pond = {d.kind for d in p.pond}
            for k in range(NUM_KINDS):
                if not seat.counts[k] or k in safe[p.seat] or k == seat.wild:
                    continue
                u = min(seat.unseen[k], 3)
                if k in pond:
                    w = GENBUTSU
                elif k >= 27:
                    w = waits["h"][u]
                else:
                    r = k % 9
                    cat = "t" if r in (0, 8) else "n" if r in (1, 7) else "m"
                    suji = (r >= 3 and k - 3 in pond) or (r <= 5 and k + 3 in pond)
                    w = (sujis if suji else waits)[cat][u]
                chance[k] += ready * w
                out[k] += ready * w * cost
        return chance, out

    @staticmethod
    def ready_chance(rules: str, p: SeatPublic) -> float:
        """The fitted chance that the opponent ``p`` is one tile from winning."""
        if p.ting or len(p.melds) >= 4:
            return 1.0
        a, b = READY_FIT.get(rules, READY_FIT["yichun"])[len(p.melds)]
        return _sigmoid(a + b * len(p.pond))

    @staticmethod
    def _deal_in_cost(rules: str, p: SeatPublic, me_bought: bool) -> float:
        melds = [m for m in p.melds if m.tiles is not None]
        pungs = len(melds) >= 2 and all(m.type is not MeldType.CHI for m in melds)
        suits = {m.tiles[0] // 9 for m in melds if m.tiles is not None and m.tiles[0] < 27}
        one_suit = len(melds) >= 2 and len(suits) <= 1
        if rules == "yichun":
            v = 1.5 * (3.0 if pungs else 1.0) * (4.0 if one_suit else 1.0)
            return 2.0 * v * (2.0 if p.bought else 1.0) * (2.0 if me_bought else 1.0)
        fan = (1 if pungs else 0) + (1 if one_suit else 0)
        # everybody pays every win; dealing in costs one fan more than paying anyway
        return DEAL_IN_GEJIU * 2.0 ** fan

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
                       table: dict[Kind, tuple[int, int, dict[str, int]]]) -> dict[Kind, float]:
        """Each candidate discard's expected figure in points: the fitted chance of winning
        from the hand left × a value-1 win in points × the hand's value factor (its best
        pattern within reach), kept only if this discard does not deal in; minus the chance of
        dealing in × its cost; plus Gejiu's 斗地主 gain."""
        rules = seat.view.rules
        chance, danger = self.deal_ins(seat)
        pts = POINTS[rules]
        pond = len(seat.view.seats[seat.me].pond)
        out: dict[Kind, float] = {}
        best_d = min(v[0] for v in table.values())
        for k, (dist, uke, _) in table.items():
            c = list(seat.counts)
            w = seat.wilds
            if seat.wild is not None and k == seat.wild:
                w -= 1
            else:
                c[k] -= 1
            value = self.targets(seat, c, w, seat.melds) / REACH ** dist
            chance_win = win_chance(rules, dist, uke, pond)
            if dist == 2 == best_d and uke >= 0:
                q = self.tenpai_quality(seat, c, w, dist, pond)
                if q >= 0:
                    chance_win *= q / win_chance(rules, 1, TENPAI_UKE, pond + 1)
            offence = chance_win * pts * value
            out[k] = offence * (1.0 - chance[k]) - danger[k]
        return out

    def tenpai_quality(self, seat: Seat, c: list[int], w: int, dist: int, pond: int) -> float:
        """One step from ready (``dist`` 2): the win chance of the ready hands the next useful
        tile leads to, averaged over the unseen useful tiles (-1 when nothing improves)."""
        rules = seat.view.rules
        ev = seat.evaluator(c, w)
        unseen = list(seat.unseen)
        total = 0
        figure = 0.0
        kinds = range(NUM_KINDS) if w or "knitted" in ev.shapes() or "seven_pairs" in ev.shapes() \
            else near_kinds(c, rules)
        for t in kinds:
            if unseen[t] <= 0 or t == seat.wild:
                continue
            c[t] += 1
            if min(ev.shapes(c, w).values()) < dist:
                unseen[t] -= 1
                cands = [k for k in range(NUM_KINDS) if c[k]]
                tab = seat.evaluator(c, w).discards(unseen, cands, seat.wild, 0)
                unseen[t] += 1
                best = min(tab.values(), key=lambda r: (r[0], -r[1]))
                figure += seat.unseen[t] * win_chance(rules, best[0], best[1], pond + 1)
                total += seat.unseen[t]
            c[t] -= 1
        return figure / total if total else -1.0

    def best_discard(self, seat: Seat,
                     table: dict[Kind, tuple[int, int, dict[str, int]]] | None = None
                     ) -> Action:
        legal = seat.view.legal
        table = seat.evaluator().discards(seat.unseen, seat.discard_kinds(legal), seat.wild,
                                          UKE_SLACK)
        scores = self.score_discards(seat, table)
        bonus = self._ddz_bonus(seat)
        rules, wild = seat.view.rules, seat.wild
        best_d = min(v[0] for v in table.values())

        def slack(k: Kind) -> int:  # never a longer hand, but to follow 斗地主
            return 0 if bonus.get(k, 0.0) >= 0.5 else max(0, table[k][0] - best_d)

        choice = min(scores, key=lambda k: (slack(k), -round(scores[k] + bonus.get(k, 0.0), 9),
                                            table[k][0], -table[k][1],
                                            order_key(seat.counts, k, rules, wild), k))
        return plain_discard(legal, choice)

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
        if action.type is ActionType.PASS:
            return action
        now = self.targets(seat, list(seat.counts), seat.wilds, seat.melds)
        c, melds = after_claim(seat, action)
        if action.type is ActionType.MINGGANG:
            fig = self.targets(seat, c, seat.wilds, melds)
            fig += KONG_BONUS.get(seat.view.rules, 0.0) / POINTS[seat.view.rules]
        else:
            fig = self._hand_figure(seat, c, melds)
        return action if fig >= now * CLAIM_MARGIN else Action.pass_()

    def kong(self, seat: Seat, kinds: dict[ActionType, list[Action]], best: int
             ) -> Action | None:
        """Yichun / Shangrao: a concealed or added kong when the hand's worth plus the kong's
        bonus points beats keeping the tiles (Gejiu: as ``normal``, for its kong tiles)."""
        rules = seat.view.rules
        if rules == "gejiu":
            return super().kong(seat, kinds, best)
        now = self._hand_figure(seat, list(seat.counts), seat.melds)
        options: list[tuple[float, Action]] = []
        for a in kinds.get(ActionType.ANGANG, []) + kinds.get(ActionType.BUGANG, []):
            c, melds = self.after_kong(seat, a)
            pts = KONG_BONUS[rules] * (2.0 if a.type is ActionType.ANGANG else 1.0)
            fig = self.targets(seat, c, seat.wilds, melds) + pts / POINTS[rules]
            if fig >= now:
                options.append((fig, a))
        if not options:
            return None
        return max(options, key=lambda o: (o[0], -(o[1].tile or 0)))[1]

    # --- 斗地主 -----------------------------------------------------------------------------
    @staticmethod
    def _ddz_bonus(seat: Seat) -> dict[Kind, float]:
        """Gejiu: the expected 斗地主 gain of following the dealer's discard now (following
        never costs: a seat that does not follow may be the one who pays)."""
        view = seat.view
        if view.rules != "gejiu" or seat.me == view.dealer:
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
