"""The ``normal`` computer player: plays for the shortest way to a win.

Discards by the distance to a winning hand (shanten + 1, :mod:`engine.bots.shape`) over every
shape the ruleset allows — standard, seven pairs, 十三烂 / 十三浪 / the 烂牌 family, Shangrao 九幺,
Yichun's honour sets and free 字一色 — then by the number of unseen tiles that would shorten it.
Wilds are jokers: a Shangrao wild is never thrown while another discard is legal, and the 宝吊头
shape (one wild + complete sets) is simply a hand every tile completes. Claims (chi, peng, kong)
are made only when they shorten the hand (a kong: when it does not lengthen it). It takes every
win, never buys, never throws a lighter and never declares 报听 (it carries nothing and locks
the hand).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.actions import Action, ActionType
from engine.bots.basic import tile_keep_value
from engine.bots.shape import HandEval, MeldFacts, meld_facts
from engine.hands import HandShapes
from engine.melds import MeldType
from engine.tiles import NUM_KINDS, Kind
from engine.view import View


@dataclass
class Seat:
    """The decision's facts, read from the seat's view only."""

    view: View
    me: int
    tiles: list[Kind]  # concealed, the drawn tile included
    counts: list[int]  # without wilds
    wilds: int
    wild: Kind | None
    melds: list[tuple[MeldType, Kind]]
    facts: MeldFacts
    unseen: list[int]  # copies of each kind this seat cannot see

    @classmethod
    def of(cls, view: View) -> Seat:
        assert view.viewer is not None
        me = view.viewer
        tiles = list(view.hand) + ([view.drawn] if view.drawn is not None else [])
        counts = [0] * NUM_KINDS
        for k in tiles:
            counts[k] += 1
        seen = list(counts)
        wilds = 0
        if view.wild is not None:
            wilds = counts[view.wild]
            counts[view.wild] = 0
        melds: list[tuple[MeldType, Kind]] = []
        for p in view.seats:
            for m in p.melds:
                if m.tiles is not None:
                    for k in m.tiles:
                        seen[k] += 1
                    if p.seat == me:
                        melds.append((m.type, m.tiles[0]))
            for d in p.pond:
                if d.claimed_by is None:
                    seen[d.kind] += 1
        if view.wild_indicator is not None:
            seen[view.wild_indicator] += 1
        for face in view.kong_tiles:
            if face is not None:
                seen[face] += 1
        unseen = [max(0, 4 - s) for s in seen]
        return cls(view, me, tiles, counts, wilds, view.wild, melds, meld_facts(melds), unseen)

    def evaluator(self, counts: Sequence[int] | None = None, wilds: int | None = None,
                  melds: list[tuple[MeldType, Kind]] | None = None) -> HandEval:
        return HandEval(
            self.view.rules,
            self.counts if counts is None else counts,
            self.wilds if wilds is None else wilds,
            self.facts if melds is None else meld_facts(melds),
        )

    def discard_kinds(self, legal: Sequence[Action]) -> list[Kind]:
        kinds = sorted({a.tile for a in legal if a.type is ActionType.DISCARD
                        and a.tile is not None})
        if self.wild is not None and len(kinds) > 1:
            kinds = [k for k in kinds if k != self.wild]  # a wild is never thrown lightly
        return kinds


def by_type(legal: Sequence[Action]) -> dict[ActionType, list[Action]]:
    out: dict[ActionType, list[Action]] = {}
    for a in legal:
        out.setdefault(a.type, []).append(a)
    return out


def plain_discard(legal: Sequence[Action], kind: Kind) -> Action:
    """The discard of ``kind`` without 报听 if that is legal."""
    plain = Action.discard(kind)
    return plain if plain in legal else Action.discard(kind, ting=True)


def order_key(
    counts: Sequence[int], kind: Kind, rules: HandShapes | str, wild: Kind | None
) -> float:
    """Tie-break among equal discards: the least connected tile goes first."""
    return tile_keep_value(counts, kind, rules, wild)


def after_claim(seat: Seat, action: Action) -> tuple[list[int], list[tuple[MeldType, Kind]]]:
    """Concealed counts (no wilds) and melds after a chi / peng / 明杠."""
    c = list(seat.counts)
    melds = list(seat.melds)
    assert action.tile is not None or action.tiles
    if action.type is ActionType.CHI:
        for k in action.tiles:
            c[k] -= 1
        low = min([*action.tiles, seat.view.window_tile or 0])
        melds.append((MeldType.CHI, low))
    else:
        t = action.tile if action.tile is not None else seat.view.window_tile
        assert t is not None
        n = 3 if action.type is ActionType.MINGGANG else 2
        c[t] -= n
        melds.append((MeldType.MGANG if n == 3 else MeldType.PENG, t))
    return c, melds


class NormalPlayer:
    """``choose(view)`` → an action from ``view.legal``; deterministic for a given view."""

    level = "normal"
    uke_slack = 0  # count improving tiles for discards this far from the best distance

    def choose(self, view: View) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError("the table is not waiting for this seat")
        kinds = by_type(legal)
        for wanted in (ActionType.WIN, ActionType.POND_WIN):
            if wanted in kinds:
                return kinds[wanted][0]
        if ActionType.BUY in kinds or ActionType.NO_BUY in kinds:
            plain = [a for a in legal if not a.lighter]
            no_buy = [a for a in plain if a.type is ActionType.NO_BUY]
            return no_buy[0] if no_buy else plain[0]
        seat = Seat.of(view)
        if ActionType.DISCARD in kinds:
            return self.turn(seat, kinds)
        return self.claim(seat, kinds)

    def discard(self, view: View) -> Action:
        """The discard this player would make now (for hints); the view must offer one."""
        seat = Seat.of(view)
        return self.best_discard(seat)

    # --- own turn -------------------------------------------------------------------------
    def turn(self, seat: Seat, kinds: dict[ActionType, list[Action]]) -> Action:
        legal = seat.view.legal
        ev = seat.evaluator()
        table = ev.discards(seat.unseen, seat.discard_kinds(legal), seat.wild, self.uke_slack)
        best = min(d for d, _, _ in table.values())
        kong = self.kong(seat, kinds, best)
        if kong is not None:
            return kong
        return self.best_discard(seat, table)

    def best_discard(self, seat: Seat,
                     table: dict[Kind, tuple[int, int, dict[str, int]]] | None = None
                     ) -> Action:
        legal = seat.view.legal
        if table is None:
            table = seat.evaluator().discards(seat.unseen, seat.discard_kinds(legal), seat.wild,
                                              self.uke_slack)
        choice = min(
            table,
            key=lambda k: (table[k][0], -table[k][1],
                           order_key(seat.counts, k, seat.view.rules, seat.wild), k),
        )
        return plain_discard(legal, choice)

    def kong(self, seat: Seat, kinds: dict[ActionType, list[Action]], best: int
             ) -> Action | None:
        """A concealed or added kong that does not lengthen the hand (the best slot)."""
        options: list[tuple[int, int, Action]] = []
        for a in kinds.get(ActionType.ANGANG, []) + kinds.get(ActionType.BUGANG, []):
            c, melds = self.after_kong(seat, a)
            d = self.kong_distance(seat, c, melds, a)
            if d <= best:
                options.append((d, 0 if a.type is ActionType.ANGANG else 1, a))
        if not options:
            return None
        return min(options, key=lambda o: (o[0], o[1], o[2].slot or 0))[2]

    @staticmethod
    def after_kong(seat: Seat, a: Action) -> tuple[list[int], list[tuple[MeldType, Kind]]]:
        """The concealed counts and melds after the 暗杠 / 补杠 ``a``."""
        t = a.tile
        assert t is not None
        c = list(seat.counts)
        melds = list(seat.melds)
        if a.type is ActionType.ANGANG:
            c[t] -= 4
            melds.append((MeldType.AGANG, t))
        else:
            c[t] -= 1
            melds = [(MeldType.MGANG, k) if k == t and m is MeldType.PENG else (m, k)
                     for m, k in melds]
        return c, melds

    @staticmethod
    def kong_distance(seat: Seat, c: list[int], melds: list[tuple[MeldType, Kind]],
                      a: Action) -> int:
        """Distance after a kong; with Gejiu's face-up kong tiles, after taking the chosen one
        and the best discard."""
        ev = seat.evaluator(c, melds=melds)
        tiles = seat.view.kong_tiles
        if a.slot is None or a.slot >= len(tiles) or tiles[a.slot] is None:
            return min(ev.shapes().values())
        extra = tiles[a.slot]
        assert extra is not None
        c2 = list(c)
        c2[extra] += 1
        ev2 = seat.evaluator(c2, melds=melds)
        cands = [k for k in range(NUM_KINDS) if c2[k]]
        table = ev2.discards(seat.unseen, cands, None, uke_slack=None)
        return min(d for d, _, _ in table.values()) if table else 9

    # --- claims ---------------------------------------------------------------------------
    def claim(self, seat: Seat, kinds: dict[ActionType, list[Action]]) -> Action:
        before = min(seat.evaluator().shapes().values())
        best: tuple[int, int, Action] | None = None
        for t in (ActionType.MINGGANG, ActionType.PENG, ActionType.CHI):
            for a in kinds.get(t, []):
                d = self.claim_distance(seat, a)
                ok = d <= before if t is ActionType.MINGGANG else d < before
                rank = (d, 0 if t is ActionType.MINGGANG else 1 if t is ActionType.PENG else 2)
                if ok and (best is None or rank < best[:2]):
                    best = (rank[0], rank[1], a)
        if best is not None:
            return best[2]
        return Action.pass_()

    def claim_distance(self, seat: Seat, a: Action) -> int:
        c, melds = after_claim(seat, a)
        ev = seat.evaluator(c, melds=melds)
        if a.type is ActionType.MINGGANG:
            return min(ev.shapes().values())
        cands = [k for k in range(NUM_KINDS) if c[k]]
        if seat.wilds and not cands:
            cands = [seat.wild] if seat.wild is not None else []
        table = ev.discards(seat.unseen, cands, seat.wild, uke_slack=None)
        return min(d for d, _, _ in table.values()) if table else 9
