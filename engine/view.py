"""What one seat (or a spectator) may see of a hand: the only thing the engine hands out.

:func:`build_view` reads the viewer's own concealed tiles and the public facts (melds, ponds,
counts, the wild indicator, Gejiu's kong tiles, declarations, the public event log) and
nothing else: never another seat's concealed tiles, nor the order of the wall, nor who is being
asked about a claim. :func:`engine.leaks.view_leaks` re-deals every hidden tile and checks
that the view stays identical (after every action in ``simulate`` and in
``tests/test_playouts.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.actions import Action
from engine.melds import MeldType
from engine.situation import Settlement, WinMethod
from engine.table import Event, EventType, Hand, Phase
from engine.tiles import Kind, format_tiles, kind_to_str


@dataclass(frozen=True)
class MeldView:
    type: MeldType
    tiles: tuple[Kind, ...] | None  # None: a face-down 暗杠 (Yichun) seen by another seat
    claimed: Kind | None
    source: int | None


@dataclass(frozen=True)
class PondView:
    kind: Kind
    claimed_by: int | None
    ting: bool


@dataclass(frozen=True)
class SeatPublic:
    seat: int
    concealed_count: int
    has_drawn: bool  # holds a freshly drawn tile set apart
    melds: tuple[MeldView, ...]
    pond: tuple[PondView, ...]  # every discard in order; claimed ones are marked
    bought: bool | None  # Yichun: None until declared
    lighter: bool
    ting: bool  # Gejiu 报听
    flown: int  # Shangrao 飞宝 count (discards are public)
    score: int


@dataclass(frozen=True)
class HandResult:
    """Shown when the hand is over: every hand revealed and the settlement."""

    hands: tuple[tuple[Kind, ...], ...]
    melds: tuple[tuple[MeldView, ...], ...]
    winners: tuple[int, ...]
    win_tile: Kind | None
    settlement: Settlement
    how: WinMethod | None = None  # how the hand was won (all winners of one discard alike)
    from_seat: int | None = None  # the discarder, or the robbed konger


@dataclass(frozen=True)
class View:
    rules: str
    options: tuple[tuple[str, Any], ...]
    hand_no: int
    dealer: int
    viewer: int | None  # None: a spectator
    phase: Phase
    current: int | None  # whose turn it is (None outside TURN / DECLARE)
    my_move: bool  # the table waits for the viewer
    hand: tuple[Kind, ...]  # the viewer's concealed tiles, sorted, without the drawn tile
    drawn: Kind | None  # the viewer's drawn tile, set apart
    seats: tuple[SeatPublic, ...]
    remaining: int  # R: tiles still to come (Gejiu: kong tiles included)
    dice: int
    wild_indicator: Kind | None
    wild: Kind | None
    kong_tiles: tuple[Kind | None, ...]
    last_discard: tuple[int, Kind] | None
    window_tile: Kind | None  # the discard / kong tile under claim
    window_from: int | None
    legal: tuple[Action, ...]
    events: tuple[Event, ...]
    result: HandResult | None
    # Gejiu 斗地主 (gejiu.md §7): the running circuit's discards so far, the dealer's first
    # (public: every discard is); () when no circuit runs
    doudizhu: tuple[Kind, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """A plain structure (for logs, tests and the leak check)."""
        return {
            "rules": self.rules,
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "viewer": self.viewer,
            "phase": self.phase.value,
            "current": self.current,
            "my_move": self.my_move,
            "hand": format_tiles(self.hand),
            "drawn": kind_to_str(self.drawn) if self.drawn is not None else None,
            "seats": [
                {
                    "seat": p.seat,
                    "concealed": p.concealed_count,
                    "melds": [
                        [m.type.value, format_tiles(m.tiles) if m.tiles else None, m.source]
                        for m in p.melds
                    ],
                    "pond": [format_tiles([d.kind]) for d in p.pond],
                    "ting": p.ting,
                    "score": p.score,
                }
                for p in self.seats
            ],
            "remaining": self.remaining,
            "wild": kind_to_str(self.wild) if self.wild is not None else None,
            "legal": [str(a) for a in self.legal],
        }


def _meld_view(hand: Hand, owner: int, viewer: int | None, ended: bool) -> tuple[MeldView, ...]:
    out = []
    for m in hand.seats[owner].melds:
        hidden = (
            m.type is MeldType.AGANG
            and hand.ruleset.concealed_kongs_face_down
            and viewer != owner
            and not ended
        )
        out.append(MeldView(m.type, None if hidden else m.tiles, m.claimed, m.source))
    return tuple(out)


def _visible(event: Event, viewer: int | None, ended: bool) -> bool:
    if event.type is EventType.FOUR_WILDS:  # got(X) = 4 is private until the hand ends
        return ended or event.seat == viewer
    return True


def build_view(hand: Hand, viewer: int | None) -> View:
    """The view of ``viewer`` (a seat 0–3) or of a spectator (``None``)."""
    ended = hand.phase is Phase.ENDED
    seats = tuple(_seat_public(hand, s, viewer, ended) for s in range(4))
    my_hand: tuple[Kind, ...] = ()
    drawn: Kind | None = None
    if viewer is not None and hand.phase is not Phase.BUY:
        own = list(hand.seats[viewer].concealed)
        if hand.drawn is not None and hand.current == viewer and hand.drawn in own:
            own.remove(hand.drawn)
            drawn = hand.drawn // 4
        my_hand = tuple(sorted(t // 4 for t in own))
    in_turn = hand.phase in (Phase.TURN, Phase.DECLARE)
    result: HandResult | None = None
    if ended and hand.settlement is not None:
        result = HandResult(
            hands=tuple(tuple(sorted(st.kinds())) for st in hand.seats),
            melds=tuple(_meld_view(hand, s, viewer, True) for s in range(4)),
            winners=tuple(w.seat for w in hand.wins),
            win_tile=hand.wins[0].tile if hand.wins else None,
            settlement=hand.settlement,
            how=hand.wins[0].how if hand.wins else None,
            from_seat=hand.wins[0].from_seat if hand.wins else None,
        )
    last = hand.last_discard
    return View(
        rules=hand.ruleset.name,
        options=_options(hand),
        hand_no=hand.hand_no,
        dealer=hand.dealer,
        viewer=viewer,
        phase=hand.phase,
        current=hand.current if in_turn else None,
        my_move=viewer is not None and viewer in hand.to_act(),
        hand=my_hand,
        drawn=drawn,
        seats=seats,
        remaining=hand.remaining() if hand.phase is not Phase.BUY else 136,
        dice=hand.dice.total,
        wild_indicator=hand.indicator,
        wild=hand.wild,
        kong_tiles=tuple(t // 4 if t is not None else None for t in hand.kong_slots),
        last_discard=(last[0], last[1] // 4) if last is not None else None,
        window_tile=hand.window_tile // 4 if hand.window_tile is not None else (
            hand.pending_kong.tile // 4
            if hand.pending_kong is not None and hand.ruleset.kong_tiles
            else hand.pending_kong.kind if hand.pending_kong is not None else None
        ),
        window_from=hand.window_from if hand.window_from is not None else (
            hand.pending_kong.seat if hand.pending_kong is not None else None
        ),
        legal=tuple(hand._legal(viewer)) if viewer is not None else (),
        events=_recent_events(hand, viewer, ended),
        result=result,
        doudizhu=tuple(hand.ddz_current) if hand.ddz_current else (),
    )


def _options(hand: Hand) -> tuple[tuple[str, Any], ...]:
    cached = hand.view_cache.get("options")
    if cached is None:
        cached = tuple(sorted(hand.ruleset.options.items()))
        hand.view_cache["options"] = cached
    return cached


def _pond(hand: Hand, s: int) -> tuple[PondView, ...]:
    key = ("pond", s)
    cached = hand.view_cache.get(key)
    if cached is not None and cached[0] == hand.pond_rev[s]:
        return cached[1]  # type: ignore[no-any-return]
    discards = hand.seats[s].discards
    if (
        cached is not None
        and len(cached[1]) == len(discards) - 1
        and (not cached[1] or cached[1][-1].claimed_by == discards[-2].claimed_by)
    ):  # one discard more (a claim only ever marks the then-last discard)
        p = discards[-1]
        pond = (*cached[1], PondView(p.kind, p.claimed_by, p.ting))
    else:
        pond = tuple(PondView(p.kind, p.claimed_by, p.ting) for p in discards)
    hand.view_cache[key] = (hand.pond_rev[s], pond)
    return pond


def _seat_public(hand: Hand, s: int, viewer: int | None, ended: bool) -> SeatPublic:
    """Seat ``s`` as ``viewer`` sees it, cached until the seat's public state changes
    (``Hand.seat_rev``)."""
    has_drawn = hand.drawn is not None and hand.current == s and not ended
    own = viewer == s
    key = (s, own, ended, has_drawn, hand.phase is Phase.BUY)
    cached = hand.view_cache.get(key)
    rev = hand.seat_rev[s]
    if cached is not None and cached[0] == rev:
        return cached[1]  # type: ignore[no-any-return]
    st = hand.seats[s]
    public = SeatPublic(
        seat=s,
        concealed_count=len(st.concealed),
        has_drawn=has_drawn,
        melds=_meld_view(hand, s, viewer, ended),
        pond=_pond(hand, s),
        bought=st.bought if hand.phase is not Phase.BUY or s in _decided(hand) else None,
        lighter=st.lighter,
        ting=st.ting,
        flown=st.flown,
        score=hand.scores_before[s],
    )
    hand.view_cache[key] = (rev, public)
    return public


EVENTS_IN_VIEW = 24


def _recent_events(hand: Hand, viewer: int | None, ended: bool) -> tuple[Event, ...]:
    """The last public events (the viewer's own private ones included), oldest first."""
    if ended or not hand.private_events:
        return tuple(hand.events[-EVENTS_IN_VIEW:])
    out: list[Event] = []
    for e in reversed(hand.events):
        if _visible(e, viewer, ended):
            out.append(e)
            if len(out) == EVENTS_IN_VIEW:
                break
    return tuple(reversed(out))


def _decided(hand: Hand) -> set[int]:
    return set(hand.buy_order[: hand.buy_index])
