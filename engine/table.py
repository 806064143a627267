"""The table state machine of one hand (``common.md`` §8–13 and the ruleset files).

A :class:`Hand` is deterministic given its ruleset, seed, dealer and the list of actions applied
to it: every random choice (shuffle, dice) comes from ``random.Random(seed)`` owned by the hand.
:meth:`Hand.legal_actions` is the one source of legality; :meth:`Hand.apply` raises
:class:`~engine.actions.IllegalActionError` and changes nothing for anything else.

Flow (``common.md`` §9): BUY (Yichun only) → deal → TURN of the dealer (14 tiles, no draw) →
after a discard, DECLARE (Gejiu 塘子烂糊, when it applies) → CLAIM window → next TURN (which
starts with a head draw) … A 补杠 (Yichun, Shangrao) or the kong tile a Gejiu konger takes opens
a ROB window. The hand ends in ENDED with a :class:`~engine.situation.Settlement`.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.actions import CLAIMS, Action, ActionType, IllegalActionError
from engine.hands import is_baodiao_shape, lanpai_family
from engine.melds import Meld, MeldType
from engine.rulesets import Ruleset
from engine.situation import (
    BaoDiao,
    Settlement,
    Situation,
    Spectator,
    Win,
    WinMethod,
    seat_name,
)
from engine.tiles import NUM_TILES, Kind, TileId, kind_to_str, next_kind
from engine.tiles import WINDS as WIND_KINDS
from engine.wall import Dice, Wall, count_seat, live_sequence, shuffle_tiles


class Phase(enum.Enum):
    BUY = "buy"  # Yichun 买: before dealing
    TURN = "turn"  # ``current`` must discard (or win / kong)
    DECLARE = "declare"  # Gejiu: the discarder may declare 塘子烂糊
    CLAIM = "claim"  # the claim window on a discard
    ROB = "rob"  # the robbing window on a 补杠 tile / a Gejiu kong tile
    ENDED = "ended"


class EventType(enum.Enum):
    BUY = "buy"
    NO_BUY = "no_buy"
    LIGHTER = "lighter"
    DEAL = "deal"
    WILD = "wild"  # Shangrao: indicator revealed
    DRAW = "draw"  # public: a seat drew (the tile is private)
    REPLACEMENT = "replacement"  # a kong replacement was taken
    DISCARD = "discard"
    TING = "ting"  # Gejiu 报听
    CHI = "chi"
    PENG = "peng"
    MINGGANG = "minggang"
    ANGANG = "angang"
    BUGANG = "bugang"
    ROBBED = "robbed"
    WIN = "win"
    POND_WIN = "pond_win"
    JIEBAO = "jiebao"  # Shangrao 接宝
    FOUR_WILDS = "four_wilds"  # Shangrao 四个宝
    EXHAUSTED = "exhausted"  # 荒牌 / 流局


@dataclass(frozen=True)
class Event:
    """A public fact, for the action log every view carries."""

    type: EventType
    seat: int | None = None
    tile: Kind | None = None  # None where the tile is private (a draw, a face-down 暗杠)
    tiles: tuple[Kind, ...] = ()
    source: int | None = None  # the seat a claimed tile came from
    # a discard: the tile just drawn (mjai's tsumogiri), public as at a real table, where
    # everyone sees whether the tile played is the one just taken
    tsumogiri: bool = False


@dataclass
class PondTile:
    """One discard. ``claimed_by`` is set when another seat took it into a meld."""

    tile: TileId
    claimed_by: int | None = None
    ting: bool = False  # the discard that declared 报听

    @property
    def kind(self) -> Kind:
        return self.tile // 4


@dataclass
class SeatState:
    concealed: list[TileId] = field(default_factory=list)
    melds: list[Meld] = field(default_factory=list)
    discards: list[PondTile] = field(default_factory=list)  # 塘子, claimed ones included
    bought: bool = False
    lighter: bool = False
    ting: bool = False  # Gejiu 报听
    claimed: bool = False  # made a chi / peng / 明杠 this hand
    draws: int = 0  # tiles drawn from the wall (head or tail)
    got: int = 0  # Shangrao: wilds received (dealt or drawn)
    flown: int = 0  # Shangrao 飞宝: wilds discarded
    baodiao: bool = False  # Shangrao: in 宝吊头 state
    touji: bool = False  # Shangrao 偷机: declined a 宝吊头 win while in the state

    counts: list[int] = field(default_factory=lambda: [0] * 34)  # kinds of ``concealed``

    def kinds(self) -> list[Kind]:
        return [t // 4 for t in self.concealed]

    def count(self, kind: Kind) -> int:
        return self.counts[kind]

    def add(self, tile: TileId) -> None:
        self.concealed.append(tile)
        self.counts[tile // 4] += 1

    def remove(self, tile: TileId) -> None:
        self.concealed.remove(tile)
        self.counts[tile // 4] -= 1

    def set_concealed(self, tiles: list[TileId]) -> None:
        self.concealed = list(tiles)
        self.counts = [0] * 34
        for t in tiles:
            self.counts[t // 4] += 1


@dataclass
class PendingKong:
    """A kong waiting on its robbing window."""

    seat: int
    type: MeldType
    kind: Kind
    tile: TileId  # the robbable tile: the added tile (补杠) or the Gejiu kong tile


class InvariantError(AssertionError):
    """The table's state broke a rule that must always hold (a bug, never a player error)."""


class Hand:
    """One hand at the table. Build it, then feed it actions until ``phase is Phase.ENDED``."""

    def __init__(
        self,
        ruleset: Ruleset,
        seed: int,
        dealer: int,
        hand_no: int = 1,
        scores: Sequence[int] = (0, 0, 0, 0),
        spectators: Sequence[Spectator] = (),
        allow_spectators: Sequence[int] = (0, 1, 2, 3),
    ) -> None:
        if not 0 <= dealer < 4:
            raise ValueError(f"dealer must be a seat 0-3, got {dealer}")
        self.ruleset = ruleset
        self.seed = seed
        self.dealer = dealer
        self.hand_no = hand_no
        self.scores_before = tuple(scores)
        self.spectators = tuple(spectators)
        self.allow_spectators = tuple(allow_spectators)
        self.rng = random.Random(seed)
        self.seats = [SeatState() for _ in range(4)]
        self.actions: list[tuple[int, Action]] = []
        self.events: list[Event] = []
        self.version = 0
        self._legal_cache: dict[int, list[Action]] = {}
        self.view_cache: dict[Any, Any] = {}  # for engine.view: per-seat public parts
        self.seat_rev = [0, 0, 0, 0]  # bumped whenever a seat's public state changes
        self._ready_cache: dict[int, tuple[int, bool]] = {}  # seat -> (seat_rev, maybe ready)
        self.pond_rev = [0, 0, 0, 0]  # bumped whenever a seat's pond changes
        self.private_events = 0  # events some viewers may not see (Shangrao 四个宝)

        # chance: shuffle, break roll, wall
        self.perm = shuffle_tiles(self.rng)
        self.dice = Dice.roll(self.rng)
        self.break_owner = ruleset.break_owner(dealer, self.dice.total)
        self.wall = Wall(live_sequence(self.perm, self.break_owner, self.dice.total))

        # ruleset state
        self.wild_dice: Dice | None = None
        self.indicator_pos: int | None = None
        self.indicator: Kind | None = None
        self.wild: Kind | None = None
        self.kong_slots: list[TileId | None] = []
        self.jiebao: list[int] = []
        self.lighters = 0
        self.compelled: frozenset[int] = frozenset()
        self.buy_order: list[int] = []
        self.buy_index = 0

        # turn state
        self.phase = Phase.BUY
        self.current = dealer
        self.drawn: TileId | None = None  # the tile just drawn / replaced (set apart)
        self.after_claim = False  # chi / peng: must discard at once
        self.from_replacement = False  # the last tile came from a kong replacement
        self.kongs_in_turn = 0
        self.heavenly_open = True  # the dealer has not acted yet
        self.any_meld = False  # a chi / peng / kong has happened this hand
        self.dealer_discards = 0
        self.last_drawer: int | None = None
        self.last_discard: tuple[int, TileId] | None = None
        # claim / rob windows
        self.window_tile: TileId | None = None
        self.window_from: int | None = None
        self.options: dict[int, list[Action]] = {}
        self.responses: dict[int, Action] = {}
        self.pending_kong: PendingKong | None = None
        self.robbed_tile: TileId | None = None
        # 斗地主 (Gejiu)
        self.ddz_circuits: list[tuple[Kind, ...] | None] = []
        self.ddz_current: list[Kind] | None = None
        self.ddz_active = ruleset.has_doudizhu
        # result
        self.wins: list[Win] = []
        self.settlement: Settlement | None = None

        if self.spectators:
            # 压鸽子 stakes are fixed before the break roll (yichun.md §7.7): stakes the scorer
            # refuses (too few seats allow them, a seat that does not) are refused now, not
            # when the hand ends and is settled
            ruleset.settle(self.situation())
        if ruleset.buy_phase:
            self.compelled = frozenset({dealer, count_seat(dealer, self.dice.total)})
            self.buy_order = [(dealer + k) % 4 for k in (1, 2, 3, 0)]
            self._advance_buy_phase()
        else:
            self._deal()

    # ------------------------------------------------------------------------------------
    # public queries
    # ------------------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return self.phase is Phase.ENDED

    def remaining(self) -> int:
        """R: tiles not yet in any hand or pond (the Gejiu kong tiles included)."""
        if not self.kong_slots:
            return self.wall.remaining
        return self.wall.remaining + len(self.kong_slots) - self.kong_slots.count(None)

    def to_act(self) -> list[int]:
        """Seats whose decision the table is waiting for."""
        if self.phase is Phase.BUY:
            return [self.buy_order[self.buy_index]]
        if self.phase in (Phase.TURN, Phase.DECLARE):
            return [self.current]
        if self.phase in (Phase.CLAIM, Phase.ROB):
            return [s for s in self.options if s not in self.responses]
        return []

    def legal_actions(self, seat: int) -> list[Action]:
        """Everything ``seat`` may do now (empty when the table is not waiting for it)."""
        return list(self._legal(seat))

    def tiles_changed(self) -> None:
        """Tiles were moved in place (a rigged position): the legal moves, the ready checks
        and the seats' views are worked out again."""
        self._legal_cache.clear()
        self._ready_cache.clear()
        self.seat_rev = [r + 1 for r in self.seat_rev]
        self.pond_rev = [r + 1 for r in self.pond_rev]

    def _legal(self, seat: int) -> list[Action]:
        cached = self._legal_cache.get(seat)
        if cached is None:
            cached = self._compute_legal(seat)
            self._legal_cache[seat] = cached
        return cached

    def _compute_legal(self, seat: int) -> list[Action]:
        if seat not in self.to_act():
            return []
        if self.phase is Phase.BUY:
            return self._buy_choices(seat)
        if self.phase is Phase.TURN:
            return self._turn_choices(seat)
        if self.phase is Phase.DECLARE:
            return [Action(ActionType.POND_WIN), Action.pass_()]
        if self.phase in (Phase.CLAIM, Phase.ROB):
            return list(self.options.get(seat, []))
        return []

    # ------------------------------------------------------------------------------------
    # applying actions
    # ------------------------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> None:
        if not 0 <= seat < 4:
            raise IllegalActionError(seat, action, "no_seat", [])
        legal = self._legal(seat)
        if action not in legal:  # identity first: players answer with the offered objects
            why, fields = self._why_illegal(seat, action)
            raise IllegalActionError(seat, action, why, list(legal), **fields)
        self.actions.append((seat, action))
        self.version += 1
        self._legal_cache.clear()
        if self.phase is Phase.BUY:
            self._apply_buy(seat, action)
        elif self.phase is Phase.TURN:
            self._apply_turn(seat, action)
        elif self.phase is Phase.DECLARE:
            self._apply_declare(seat, action)
        elif self.phase is Phase.CLAIM:
            self.responses[seat] = action
            if not self.to_act():
                self._resolve_claims()
        elif self.phase is Phase.ROB:
            self.responses[seat] = action
            if not self.to_act():
                self._resolve_rob()
        self._legal_cache.clear()

    def _why_illegal(self, seat: int, action: Action) -> tuple[str, dict[str, str]]:
        """Why ``action`` is not legal: a key of ``ILLEGAL_REASONS`` and its fields."""
        if self.phase is Phase.ENDED:
            return "hand_over", {}
        if seat not in self.to_act():
            if self.phase is Phase.CLAIM and seat in self.responses:
                return "answered", {}
            if self.phase in (Phase.CLAIM, Phase.ROB):
                return "not_offered", {}
            return "not_your_move", {"waiting": ", ".join(seat_name(s) for s in self.to_act())}
        if action.type in CLAIMS and self.phase is Phase.TURN and action.type is not ActionType.WIN:
            return "own_turn", {}
        if action.type is ActionType.WIN:
            if self.phase is Phase.TURN and self.after_claim:
                return "discard_first", {}
            return "no_win", {}
        if action.tile is not None and self.phase is Phase.TURN:
            st = self.seats[seat]
            if st.count(action.tile) == 0:
                return "no_tile", {"tile": kind_to_str(action.tile)}
            if action.type is ActionType.DISCARD and st.ting:
                return "ting_drawn", {}
            if action.type is ActionType.DISCARD and action.ting:
                return "ting_not_ready", {}
            if self.after_claim:
                return "discard_now", {}
        if action.type in (ActionType.ANGANG, ActionType.BUGANG, ActionType.MINGGANG):
            return "no_kong", {}
        return "not_now", {"move": action.type.value, "phase": self.phase.value}

    # ------------------------------------------------------------------------------------
    # buy phase (Yichun 买 / 丢打火机)
    # ------------------------------------------------------------------------------------
    def _buy_choices(self, seat: int) -> list[Action]:
        lighter_ok = self.lighters < self.ruleset.max_lighters()
        out: list[Action] = [Action(ActionType.BUY)]
        if lighter_ok:
            out.append(Action(ActionType.BUY, lighter=True))
        if seat not in self.compelled:
            out.append(Action(ActionType.NO_BUY))
            if lighter_ok:
                out.append(Action(ActionType.NO_BUY, lighter=True))
        return out

    def _advance_buy_phase(self) -> None:
        """Skip seats whose only choice is a compulsory buy; deal when everyone has decided."""
        while self.buy_index < 4:
            seat = self.buy_order[self.buy_index]
            choices = self._buy_choices(seat)
            if len(choices) > 1:
                return
            self._record_buy(seat, choices[0])
            self.buy_index += 1
        self._deal()

    def _record_buy(self, seat: int, action: Action) -> None:
        st = self.seats[seat]
        self.seat_rev[seat] += 1
        st.bought = action.type is ActionType.BUY
        self.events.append(Event(EventType.BUY if st.bought else EventType.NO_BUY, seat))
        if action.lighter:
            st.lighter = True
            self.lighters += 1
            self.events.append(Event(EventType.LIGHTER, seat))

    def _apply_buy(self, seat: int, action: Action) -> None:
        self._record_buy(seat, action)
        self.buy_index += 1
        self._advance_buy_phase()

    # ------------------------------------------------------------------------------------
    # dealing (common.md §8)
    # ------------------------------------------------------------------------------------
    def _receive(self, seat: int, tile: TileId) -> None:
        st = self.seats[seat]
        self.seat_rev[seat] += 1
        st.add(tile)
        if self.wild is not None and tile // 4 == self.wild:
            self._got_wild(seat)

    def _got_wild(self, seat: int) -> None:
        st = self.seats[seat]
        st.got += 1
        if st.got == 4:
            self.private_events += 1
            self.events.append(Event(EventType.FOUR_WILDS, seat))

    def _deal(self) -> None:
        for _round in range(3):
            for k in range(4):
                seat = (self.dealer + k) % 4
                for _ in range(4):
                    self.seats[seat].add(self.wall.draw_head())
        for k in (0, 1, 2, 3, 0):  # dealer T[48], 下家 T[49], 对家 T[50], 上家 T[51], dealer T[52]
            self.seats[(self.dealer + k) % 4].add(self.wall.draw_head())
        self.seat_rev = [r + 1 for r in self.seat_rev]
        self.events.append(Event(EventType.DEAL, self.dealer))
        if self.ruleset.has_wild:
            self.wild_dice = Dice.roll(self.rng)
            self.indicator_pos = 2 * (68 - self.wild_dice.total)
            self.indicator = self.wall.seq[self.indicator_pos] // 4
            self.wild = next_kind(self.indicator)
            self.events.append(Event(EventType.WILD, self.dealer, self.indicator))
            for seat in range(4):
                for t in self.seats[seat].concealed:
                    if t // 4 == self.wild:
                        self._got_wild(seat)
        if self.ruleset.kong_tiles:
            self.kong_slots = [self.wall.draw_tail(), self.wall.draw_tail()]
        self.phase = Phase.TURN
        self.current = self.dealer
        self.drawn = None
        if self.ddz_active:
            self.ddz_current = []

    # ------------------------------------------------------------------------------------
    # the turn
    # ------------------------------------------------------------------------------------
    def _start_turn(self, seat: int) -> None:
        """A normal turn: draw from the head, unless the hand is exhausted."""
        self.current = seat
        self.after_claim = False
        self.kongs_in_turn = 0
        self.from_replacement = False
        if self.ruleset.hand_is_drawn(self.remaining()):
            self.events.append(Event(EventType.EXHAUSTED))
            self._end_hand()
            return
        tile = self.wall.draw_head()
        self.seats[seat].draws += 1
        self.last_drawer = seat
        self.drawn = tile
        self._receive(seat, tile)
        self.events.append(Event(EventType.DRAW, seat))
        self.phase = Phase.TURN

    def _own_win_possible(self, seat: int) -> bool:
        st = self.seats[seat]
        return self.ruleset.can_win_counts(st.counts, st.melds, self.wild)

    def _kong_choices(self, seat: int) -> list[Action]:
        st = self.seats[seat]
        if st.ting or not self.ruleset.can_supply_replacement(self.remaining()):
            return []
        counts = st.counts
        pengs = {m.kind for m in st.melds if m.type is MeldType.PENG}
        if 4 not in counts and not pengs:
            return []
        candidates = [k for k in range(34) if counts[k] == 4 or (counts[k] and k in pengs)]
        if self.wild is not None and self.wild in candidates:
            candidates.remove(self.wild)
        if not candidates:
            return []
        slots = self._slots()
        out: list[Action] = []
        for kind in candidates:
            if counts[kind] == 4:
                out.extend(Action(ActionType.ANGANG, kind, slot=s) for s in slots)
            if kind in pengs:
                out.extend(Action(ActionType.BUGANG, kind, slot=s) for s in slots)
        return out

    def _slots(self) -> list[int | None]:
        if not self.ruleset.kong_tiles:
            return [None]
        return [i for i, t in enumerate(self.kong_slots) if t is not None]

    def _turn_choices(self, seat: int) -> list[Action]:
        st = self.seats[seat]
        counts = st.counts
        kinds = [k for k in range(34) if counts[k]]
        out: list[Action] = []
        if not self.after_claim:  # after a chi / peng: discard at once, no win, no kong
            if self._own_win_possible(seat):
                out.append(Action.win())
            out.extend(self._kong_choices(seat))
            if st.ting and self.drawn is not None:
                out.append(Action.discard(self.drawn // 4))
                return out
        out.extend([Action.discard(k) for k in kinds])
        if self.ruleset.has_ting and not st.ting:
            ready = self.ruleset.ready_discards(st.kinds(), st.melds)
            out.extend(Action.discard(k, ting=True) for k in ready)
        return out

    def _take_tile(self, seat: int, kind: Kind) -> TileId:
        """Remove one tile of ``kind`` from the concealed hand: the drawn tile if it is that
        kind, else the lowest id (deterministic)."""
        st = self.seats[seat]
        if self.drawn is not None and self.drawn // 4 == kind and self.drawn in st.concealed:
            tile = self.drawn
        else:
            tile = min(t for t in st.concealed if t // 4 == kind)
        st.remove(tile)
        self.seat_rev[seat] += 1
        if tile == self.drawn:
            self.drawn = None
        return tile

    def _apply_turn(self, seat: int, action: Action) -> None:
        t = action.type
        if t is ActionType.WIN:
            self._self_drawn_win(seat)
        elif t is ActionType.DISCARD:
            assert action.tile is not None
            self._discard(seat, action.tile, action.ting)
        elif t in (ActionType.ANGANG, ActionType.BUGANG):
            assert action.tile is not None
            self.heavenly_open = False
            self._declare_kong(seat, t, action.tile, action.slot)

    def _self_drawn_win(self, seat: int) -> None:
        st = self.seats[seat]
        if self.heavenly_open and seat == self.dealer and self.drawn is None:
            win_tile = st.concealed[-1]  # the last dealt tile, T[52]
            how = WinMethod.HEAVENLY if self.ruleset.has_heavenly else WinMethod.SELF_DRAW
        else:
            assert self.drawn is not None, "a self-drawn win needs a drawn tile"
            win_tile = self.drawn
            if self.from_replacement:
                how = WinMethod.KONG_REPLACEMENT
            elif self._shangrao_earthly(seat):
                how = WinMethod.EARTHLY
            else:
                how = WinMethod.SELF_DRAW
        hand = list(st.kinds())
        hand.remove(win_tile // 4)
        self.wins = [
            Win(
                seat=seat,
                hand=tuple(sorted(hand)),
                melds=tuple(st.melds),
                tile=win_tile // 4,
                how=how,
                from_seat=None,
                kongs_in_turn=self.kongs_in_turn if how is WinMethod.KONG_REPLACEMENT else 0,
                baodiao=self._baodiao_of(seat, win_tile // 4, hand),
            )
        ]
        self.events.append(Event(EventType.WIN, seat, win_tile // 4))
        self._end_hand()

    def _shangrao_earthly(self, seat: int) -> bool:
        """Shangrao default 地糊: a non-dealer self-draws with his first tile, no claim or kong
        having happened in the hand before that draw ([A-S1])."""
        return (
            self.ruleset.has_wild
            and not self.ruleset.discard_wins()
            and seat != self.dealer
            and self.seats[seat].draws == 1
            and not self.any_meld
        )

    def _baodiao_of(self, seat: int, win_kind: Kind, hand_before: list[Kind]) -> BaoDiao:
        """Shangrao: is this a 宝吊 win, and has the player declined one before (偷机)?"""
        if self.wild is None:
            return BaoDiao.NONE
        st = self.seats[seat]
        if not st.baodiao:
            return BaoDiao.NONE
        if not is_baodiao_shape(hand_before, self.wild):
            return BaoDiao.NONE
        return BaoDiao.TOUJI if st.touji else BaoDiao.HEAD

    def _discard(self, seat: int, kind: Kind, ting: bool) -> None:
        st = self.seats[seat]
        declined_baodiao = False
        if self.wild is not None and st.baodiao and self.drawn is not None:
            before = st.kinds()
            before.remove(self.drawn // 4)
            declined_baodiao = self._own_win_possible(seat) and is_baodiao_shape(
                before, self.wild
            )
        tsumogiri = self.drawn is not None and self.drawn // 4 == kind
        tile = self._take_tile(seat, kind)
        self.drawn = None
        self.heavenly_open = False
        st.discards.append(PondTile(tile, ting=ting))
        self.pond_rev[seat] += 1
        self.last_discard = (seat, tile)
        self.events.append(Event(EventType.DISCARD, seat, kind, tsumogiri=tsumogiri))
        if ting:
            st.ting = True
            self.events.append(Event(EventType.TING, seat))
        if seat == self.dealer:
            self.dealer_discards += 1
        if self.wild is not None:
            if kind == self.wild:
                st.flown += 1
                for x in range(4):
                    if x != seat and self.seats[x].got == 3 and x not in self.jiebao:
                        self.jiebao.append(x)
                        self.events.append(Event(EventType.JIEBAO, x))
            self._update_baodiao(seat, declined_baodiao)
        if self.ddz_active:
            self._ddz_discard(seat, kind)
        # Gejiu 塘子烂糊: offered at the 14th discard, before the claim window
        if (
            self.ruleset.has_pond_win
            and len(st.discards) == 14
            and not st.claimed
            and self._pond_family(seat) is not None
        ):
            self.phase = Phase.DECLARE
            self.current = seat
            return
        self._open_claim_window(seat, tile)

    def _update_baodiao(self, seat: int, declined: bool) -> None:
        st = self.seats[seat]
        assert self.wild is not None
        in_shape = is_baodiao_shape(st.kinds(), self.wild)
        if not in_shape:
            st.baodiao = st.touji = False
        elif st.baodiao:
            st.touji = st.touji or declined
        else:
            st.baodiao, st.touji = True, False

    def _pond_family(self, seat: int) -> str | None:
        return lanpai_family([p.kind for p in self.seats[seat].discards])

    def _apply_declare(self, seat: int, action: Action) -> None:
        st = self.seats[seat]
        if action.type is ActionType.POND_WIN:
            self.wins = [
                Win(seat=seat, hand=(), melds=tuple(st.melds), tile=None, how=WinMethod.POND)
            ]
            self.events.append(Event(EventType.POND_WIN, seat))
            self._end_hand()
            return
        assert self.last_discard is not None
        self._open_claim_window(seat, self.last_discard[1])

    # ------------------------------------------------------------------------------------
    # claims (common.md §10)
    # ------------------------------------------------------------------------------------
    def _wins_with(self, seat: int, kind: Kind) -> bool:
        """Whether ``seat``'s concealed hand plus ``kind`` wins. A cheap joker test per seat
        hand (cached until the seat's tiles change) skips the exact test for hands that no
        tile completes."""
        st = self.seats[seat]
        cached = self._ready_cache.get(seat)
        if cached is None or cached[0] != self.seat_rev[seat]:
            cached = (
                self.seat_rev[seat],
                self.ruleset.maybe_ready_counts(st.counts, st.melds, self.wild),
            )
            self._ready_cache[seat] = cached
        if not cached[1]:
            return False
        counts = st.counts
        counts[kind] += 1
        try:
            return self.ruleset.can_win_counts(counts, self.seats[seat].melds, self.wild)
        finally:
            counts[kind] -= 1

    def _claim_choices(self, seat: int, discarder: int, tile: TileId) -> list[Action]:
        kind = tile // 4
        st = self.seats[seat]
        if self.wild is not None and kind == self.wild:
            return []  # a discarded wild can never be claimed
        out: list[Action] = []
        counts = st.counts
        if self.ruleset.discard_wins() and self._wins_with(seat, kind):
            out.append(Action.win())
        if st.ting or self.wall.remaining <= 0 or self.remaining() <= 0:
            return out  # the last discard may only be won on
        if self.ruleset.kong_tiles and self.ruleset.hand_is_drawn(self.remaining()):
            return out  # Gejiu: no claims that would need a draw past 顶黄
        n = counts[kind]
        if n >= 3 and self.ruleset.can_supply_replacement(self.remaining()):
            out.extend(Action(ActionType.MINGGANG, kind, slot=s) for s in self._slots())
        if n >= 2:
            out.append(Action(ActionType.PENG, kind))
        if seat == (discarder + 1) % 4:
            out.extend(
                Action(ActionType.CHI, kind, pair) for pair in self._chi_pairs(counts, kind)
            )
        return out

    def _chi_pairs(self, counts: list[int], kind: Kind) -> list[tuple[Kind, Kind]]:
        wild = self.wild  # wilds are never used in chi

        def has(k: Kind) -> bool:
            return counts[k] > 0 and k != wild

        pairs: list[tuple[Kind, Kind]] = []
        if kind < 27:
            r = kind % 9  # 0-based rank
            for lo in (r - 2, r - 1, r):
                if lo < 0 or lo + 2 > 8:
                    continue
                a, b = (kind - r + x for x in (lo, lo + 1, lo + 2) if x != r)
                if has(a) and has(b):
                    pairs.append((a, b))
        elif self.ruleset.honour_chi:
            group = WIND_KINDS if kind in WIND_KINDS else (31, 32, 33)
            cands = [k for k in group if k != kind and has(k)]
            for i in range(len(cands)):
                for j in range(i + 1, len(cands)):
                    pairs.append((cands[i], cands[j]))
        return pairs

    def _open_claim_window(self, discarder: int, tile: TileId) -> None:
        self.window_tile = tile
        self.window_from = discarder
        self.responses = {}
        self.options = {}
        for k in (1, 2, 3):
            seat = (discarder + k) % 4
            choices = self._claim_choices(seat, discarder, tile)
            if choices:
                self.options[seat] = [*choices, Action.pass_()]
        if not self.options:
            self._next_turn_after(discarder)
            return
        self.phase = Phase.CLAIM

    def _next_turn_after(self, discarder: int) -> None:
        self.window_tile = None
        self.window_from = None
        self.options = {}
        self.responses = {}
        self._start_turn((discarder + 1) % 4)

    def _resolve_claims(self) -> None:
        assert self.window_tile is not None and self.window_from is not None
        discarder, tile = self.window_from, self.window_tile
        order = [(discarder + k) % 4 for k in (1, 2, 3)]
        winners = [s for s in order if self.responses.get(s, Action.pass_()).type is ActionType.WIN]
        if winners:
            if not self.ruleset.several_discard_winners:
                winners = winners[:1]
            earthly = (
                self.ruleset.has_heavenly
                and discarder == self.dealer
                and self.dealer_discards == 1
                and not self.any_meld
                and len(self.seats[self.dealer].discards) == 1
            )
            how = WinMethod.EARTHLY if earthly else WinMethod.DISCARD
            self._record_wins(winners, tile // 4, how, discarder, EventType.WIN)
            self.robbed_tile = tile
            self.seats[discarder].discards[-1].claimed_by = winners[0]
            self.seat_rev[discarder] += 1
            self.pond_rev[discarder] += 1
            self._end_hand()
            return
        for s in order:
            a = self.responses.get(s)
            if a is not None and a.type in (ActionType.MINGGANG, ActionType.PENG):
                self._claim_set(s, a, discarder, tile)
                return
        for s in order:
            a = self.responses.get(s)
            if a is not None and a.type is ActionType.CHI:
                self._claim_set(s, a, discarder, tile)
                return
        self._next_turn_after(discarder)

    def _record_wins(
        self, winners: list[int], kind: Kind, how: WinMethod, source: int, event: EventType
    ) -> None:
        """Wins on another seat's tile (a discard or a robbed kong tile)."""
        self.wins = []
        for s in winners:
            hand = self.seats[s].kinds()
            self.wins.append(
                Win(
                    seat=s,
                    hand=tuple(sorted(hand)),
                    melds=tuple(self.seats[s].melds),
                    tile=kind,
                    how=how,
                    from_seat=source,
                    baodiao=self._baodiao_of(s, kind, hand),
                )
            )
            self.events.append(Event(event, s, kind, source=source))

    def _claim_set(self, seat: int, action: Action, discarder: int, tile: TileId) -> None:
        st = self.seats[seat]
        kind = tile // 4
        self.seats[discarder].discards[-1].claimed_by = seat
        self.seat_rev[discarder] += 1
        self.pond_rev[discarder] += 1
        self.window_tile = self.window_from = None
        self.options, self.responses = {}, {}
        self.any_meld = True
        st.claimed = True
        if self.ddz_active:
            self._ddz_void()
        if action.type is ActionType.CHI:
            used = [self._take_tile(seat, k) for k in action.tiles]
            ids = (*used, tile)
            meld = Meld(MeldType.CHI, tuple(sorted(t // 4 for t in ids)), kind, discarder, ids)
            etype = EventType.CHI
        elif action.type is ActionType.PENG:
            used = [self._take_tile(seat, kind) for _ in range(2)]
            meld = Meld(MeldType.PENG, (kind,) * 3, kind, discarder, (*used, tile))
            etype = EventType.PENG
        else:
            used = [self._take_tile(seat, kind) for _ in range(3)]
            meld = Meld(MeldType.MGANG, (kind,) * 4, kind, discarder, (*used, tile))
            etype = EventType.MINGGANG
        st.melds.append(meld)
        self.seat_rev[seat] += 1
        self.events.append(Event(etype, seat, kind, meld.tiles, source=discarder))
        self.current = seat
        self.drawn = None
        self.kongs_in_turn = 0
        self.from_replacement = False
        self.phase = Phase.TURN
        if action.type is ActionType.MINGGANG:
            self.after_claim = False
            self._kong_replacement(seat, MeldType.MGANG, kind, action.slot)
        else:
            self.after_claim = True

    # ------------------------------------------------------------------------------------
    # kongs and robbing (common.md §11–12, gejiu.md §2)
    # ------------------------------------------------------------------------------------
    def _declare_kong(self, seat: int, mtype: ActionType, kind: Kind, slot: int | None) -> None:
        st = self.seats[seat]
        self.any_meld = True
        if self.ddz_active:
            self._ddz_void()
        if mtype is ActionType.ANGANG:
            ids = tuple(self._take_tile(seat, kind) for _ in range(4))
            st.melds.append(Meld(MeldType.AGANG, (kind,) * 4, None, None, ids))
            self.seat_rev[seat] += 1
            shown = None if self.ruleset.concealed_kongs_face_down else kind
            self.events.append(Event(EventType.ANGANG, seat, shown))
            self._kong_replacement(seat, MeldType.AGANG, kind, slot)
            return
        # 补杠: the added tile may be robbed (Yichun, Shangrao) before the kong completes
        added = self._take_tile(seat, kind)
        self.events.append(Event(EventType.BUGANG, seat, kind))
        if self.ruleset.robs_added_kong:
            pk = PendingKong(seat, MeldType.BGANG, kind, added)
            if self._open_rob_window(pk):
                return
        self._complete_bugang(seat, kind, added)
        self._kong_replacement(seat, MeldType.BGANG, kind, slot)

    def _complete_bugang(self, seat: int, kind: Kind, added: TileId) -> None:
        st = self.seats[seat]
        for i, m in enumerate(st.melds):
            if m.type is MeldType.PENG and m.kind == kind:
                self.seat_rev[seat] += 1
                st.melds[i] = Meld(
                    MeldType.BGANG, (kind,) * 4, m.claimed, m.source, (*m.ids, added)
                )
                return
        raise InvariantError(f"补杠 of {kind_to_str(kind)} without a peng")

    def _open_rob_window(self, pk: PendingKong) -> bool:
        self.options, self.responses = {}, {}
        for k in (1, 2, 3):
            s = (pk.seat + k) % 4
            if self._wins_with(s, pk.tile // 4):
                self.options[s] = [Action.win(), Action.pass_()]
        if not self.options:
            return False
        self.pending_kong = pk
        self.phase = Phase.ROB
        return True

    def _kong_replacement(self, seat: int, mtype: MeldType, kind: Kind, slot: int | None) -> None:
        """Give the konger his replacement tile (Gejiu: a kong tile, which may be robbed)."""
        if self.ruleset.kong_tiles:
            assert slot is not None
            tile = self.kong_slots[slot]
            assert tile is not None
            self.kong_slots[slot] = self.wall.draw_tail() if self.wall.remaining > 0 else None
            pk = PendingKong(seat, mtype, kind, tile)
            self.events.append(Event(EventType.REPLACEMENT, seat, tile // 4))
            if self._open_rob_window(pk):
                return
            self._receive_replacement(seat, tile)
            return
        tile = self.wall.draw_tail()
        self.events.append(Event(EventType.REPLACEMENT, seat))
        self._receive_replacement(seat, tile)

    def _receive_replacement(self, seat: int, tile: TileId) -> None:
        st = self.seats[seat]
        st.draws += 1
        self.last_drawer = seat
        self.current = seat
        self.drawn = tile
        self.from_replacement = True
        self.kongs_in_turn += 1
        self.after_claim = False
        self.phase = Phase.TURN
        self._receive(seat, tile)

    def _resolve_rob(self) -> None:
        pk = self.pending_kong
        assert pk is not None
        order = [(pk.seat + k) % 4 for k in (1, 2, 3)]
        robbers = [s for s in order if self.responses.get(s, Action.pass_()).type is ActionType.WIN]
        self.options, self.responses = {}, {}
        self.pending_kong = None
        if robbers:
            if not self.ruleset.several_discard_winners and not self.ruleset.robs_added_kong:
                robbers = robbers[:1]  # Gejiu: first in play order after the konger
            self._record_wins(robbers, pk.tile // 4, WinMethod.ROB_KONG, pk.seat, EventType.ROBBED)
            self.robbed_tile = pk.tile
            self._end_hand()
            return
        if pk.type is MeldType.BGANG and not self.ruleset.kong_tiles:
            self._complete_bugang(pk.seat, pk.kind, pk.tile)
            self._kong_replacement(pk.seat, MeldType.BGANG, pk.kind, None)
        else:
            self._receive_replacement(pk.seat, pk.tile)

    # ------------------------------------------------------------------------------------
    # 斗地主 (gejiu.md §7)
    # ------------------------------------------------------------------------------------
    def _ddz_void(self) -> None:
        if self.ddz_current is not None:
            # a claim or kong inside the running (or the next) circuit voids it, ending 斗地主
            self.ddz_circuits.append(None)
        self.ddz_current = None
        self.ddz_active = False

    def _ddz_discard(self, seat: int, kind: Kind) -> None:
        cur = self.ddz_current
        if cur is None:
            return
        expected = (self.dealer + len(cur)) % 4
        if seat != expected:
            self._ddz_void()
            return
        cur.append(kind)
        if len(cur) == 4:
            circuit = tuple(cur)
            self.ddz_circuits.append(circuit)
            followers = sum(1 for k in circuit[1:] if k == circuit[0])
            if followers >= 2:
                self.ddz_current = []
            else:
                self.ddz_current = None
                self.ddz_active = False

    # ------------------------------------------------------------------------------------
    # the end of the hand
    # ------------------------------------------------------------------------------------
    def situation(self) -> Situation:
        """The facts of this hand for the scorer (``rules/README.md`` ``score`` input)."""
        winners = {w.seat for w in self.wins}
        kongs = {
            s: tuple(m for m in self.seats[s].melds if m.is_kong)
            for s in range(4)
            if s not in winners and any(m.is_kong for m in self.seats[s].melds)
        }
        rs = self.ruleset
        pond: tuple[Kind, ...] | None = None
        if self.wins and self.wins[0].how is WinMethod.POND:
            pond = tuple(p.kind for p in self.seats[self.wins[0].seat].discards)
        return Situation(
            rules=rs.name,
            dealer=self.dealer,
            options=dict(rs.options),
            wins=tuple(self.wins),
            kongs=kongs,
            dice=self.dice.total if rs.buy_phase else None,
            buyers=tuple(s for s in range(4) if self.seats[s].bought) if rs.buy_phase else None,
            lighters=self.lighters,
            spectators=self.spectators,
            allow_spectators=self.allow_spectators,
            last_drawer=self.last_drawer,
            wild=self.wild,
            flown={s: self.seats[s].flown for s in range(4)} if rs.has_wild else {},
            got={s: self.seats[s].got for s in range(4)} if rs.has_wild else {},
            jiebao=tuple(self.jiebao),
            pond=pond,
            doudizhu=tuple(self.ddz_circuits),
        )

    def _end_hand(self) -> None:
        self.phase = Phase.ENDED
        self.options, self.responses = {}, {}
        self.settlement = self.ruleset.settle(self.situation())

    # ------------------------------------------------------------------------------------
    # invariants
    # ------------------------------------------------------------------------------------
    def all_tiles(self) -> list[TileId]:
        """Every physical tile, once each, wherever it is now."""
        out: list[TileId] = list(self.wall.undrawn())
        out.extend(t for t in self.kong_slots if t is not None)
        for st in self.seats:
            out.extend(st.concealed)
            for m in st.melds:
                out.extend(m.ids)
            out.extend(p.tile for p in st.discards if p.claimed_by is None)
        if self.pending_kong is not None and self.pending_kong.type is MeldType.BGANG and (
            not self.ruleset.kong_tiles
        ):
            out.append(self.pending_kong.tile)  # the added tile, held while it may be robbed
        elif self.pending_kong is not None:
            out.append(self.pending_kong.tile)  # the Gejiu kong tile being taken
        if self.robbed_tile is not None and self.phase is Phase.ENDED:
            out.append(self.robbed_tile)
        return out

    def check_invariants(self) -> None:
        tiles = self.all_tiles()
        if sorted(tiles) != list(range(NUM_TILES)):
            missing = set(range(NUM_TILES)) - set(tiles)
            dup = {t for t in tiles if tiles.count(t) > 1}
            raise InvariantError(f"tiles not accounted for: missing {missing}, doubled {dup}")
        if self.settlement is not None:
            total = sum(v for _, v in self.settlement.parties())
            if total != 0:
                raise InvariantError(f"settlement is not zero-sum: {total}")
        for s, st in enumerate(self.seats):
            n = len(st.concealed) + 3 * len(st.melds)
            if self.phase is not Phase.BUY and n not in (13, 14):
                raise InvariantError(f"seat {seat_name(s)} holds {n} tiles (counting sets as 3)")

    # ------------------------------------------------------------------------------------
    # records
    # ------------------------------------------------------------------------------------
    def header(self) -> dict[str, Any]:
        return {
            "type": "hand",
            "version": 1,
            "rules": self.ruleset.name,
            "options": dict(self.ruleset.options),
            "seed": self.seed,
            "dealer": seat_name(self.dealer),
            "hand_no": self.hand_no,
            "scores": list(self.scores_before),
            "spectators": [{"name": s.name, "backs": seat_name(s.backs)} for s in self.spectators],
            "allow_spectators": [seat_name(s) for s in self.allow_spectators],
        }
