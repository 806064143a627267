"""The helpers a program may ask of its table (``docs/bot-protocol.md``, Helpers): the waits
after each candidate discard with the tiles unseen (``waits``), and what a win would be worth
(``value``), as a person at the table has them in the hints and the ``score`` calculator.

Computed from the seat's own view and the program's own question, like every protocol line
(:mod:`engine.botproto`, which answers them), so a helper tells nothing the seat cannot see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.calculator import score_json
from engine.hands import waits
from engine.melds import Meld, MeldType
from engine.situation import SEAT_LETTERS
from engine.table import EventType, Phase
from engine.tiles import NUM_KINDS, Kind, format_tiles, kind_to_str, parse_tiles
from engine.view import View


def unseen_counts(view: View) -> list[int]:
    """How many of each kind the seat has not seen (its own tiles, the ponds' unclaimed
    discards, the melds shown, the wild's indicator, Gejiu's kong tiles), as the table's
    hint line counts them (``tui/view/hints.py``)."""
    seen = [0] * NUM_KINDS
    for k in (*view.hand, *([view.drawn] if view.drawn is not None else [])):
        seen[k] += 1
    for p in view.seats:
        for d in p.pond:
            if d.claimed_by is None:
                seen[d.kind] += 1
        for m in p.melds:
            for k in m.tiles or ():
                seen[k] += 1
    if view.wild_indicator is not None:
        seen[view.wild_indicator] += 1
    for kind in view.kong_tiles:
        if kind is not None:
            seen[kind] += 1
    return [max(0, 4 - n) for n in seen]


def _own_melds(view: View) -> list[Meld] | None:
    if view.viewer is None:
        return None
    melds = []
    for m in view.seats[view.viewer].melds:
        if m.tiles is None:
            return None
        melds.append(Meld(m.type, tuple(m.tiles), m.claimed, m.source))
    return melds


def _waits_after(view: View, concealed: Sequence[Kind], melds: list[Meld],
                 unseen: Sequence[int]) -> list[dict[str, Any]]:
    try:
        found = waits(view.rules, list(concealed), melds, view.wild)
    except ValueError:
        return []
    return [{"tile": kind_to_str(k), "unseen": unseen[k]} for k in found]


def waits_json(view: View | None, request: int | None = None) -> dict[str, Any]:
    """``{"command": "waits"}``: the tiles the seat's hand waits on, each with how many are
    unseen, after each discard it may make (14 tiles: each kind it holds whose discard leaves
    a ready hand) or as it is (13 tiles: one entry, ``discard`` null), as the table's hint
    line shows a player. Only from the seat's own view."""
    out: dict[str, Any] = {"type": "waits", "request": request, "after": []}
    melds = _own_melds(view) if view is not None else None
    if view is None or melds is None or view.phase in (Phase.BUY, Phase.ENDED):
        return out
    tiles = [*view.hand, *([view.drawn] if view.drawn is not None else [])]
    unseen = unseen_counts(view)
    if len(tiles) % 3 == 1:
        found = _waits_after(view, tiles, melds, unseen)
        if found:
            out["after"].append({"discard": None, "waits": found})
    elif len(tiles) % 3 == 2:
        for kind in sorted(set(tiles)):
            rest = list(tiles)
            rest.remove(kind)
            found = _waits_after(view, rest, melds, unseen)
            if found:
                out["after"].append({"discard": kind_to_str(kind), "waits": found})
    return out


def _letter(seat: Any, name: str) -> str:
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < 4:
        return SEAT_LETTERS[seat]
    if isinstance(seat, str) and seat in SEAT_LETTERS and len(seat) == 1:
        return seat
    raise ValueError(f"{name}: a seat is 0-3 or E, S, W, N, got {str(seat)[:20]!r}")


def view_situation(view: View, ask: Mapping[str, Any]) -> dict[str, Any]:
    """The ``score`` calculator's input (``docs/score.md``) for the seat winning now, from
    what its view shows: its concealed tiles and melds, the winning tile (``ask``'s
    ``tile``, else the drawn tile, else the tile under claim), how (``ask``'s ``how``, else
    a self-draw, a kong's replacement, or the claim's discard or robbed kong) and from whom
    (``baodiao`` and ``kongs_in_turn`` as ``ask`` gives them); the other seats'
    kongs it sees, the dealer, the options, Shangrao's wild and 飞宝 counts, Yichun's dice,
    buyers and lighters. ``ask``'s ``hand`` replaces the concealed tiles (before the winning
    tile). What the seat cannot see is left out (another's face-down kong, the wilds another
    holds), so a payment hanging on it may differ from the table's. ValueError for an ask
    that cannot be read, or no winning tile."""
    if view.viewer is None:
        raise ValueError("a spectator has no hand")
    melds = _own_melds(view) or []
    hand: list[Kind] = list(view.hand)
    tile: Kind | None = None
    how, source = "self_draw", None
    if view.drawn is not None:
        tile = view.drawn
        draws = [e for e in view.events if e.seat == view.viewer
                 and e.type in (EventType.DRAW, EventType.REPLACEMENT)]
        if draws and draws[-1].type is EventType.REPLACEMENT:
            how = "kong_replacement"  # its own draw: a kong's replacement tile
    elif view.window_tile is not None:
        tile = view.window_tile
        how = "rob_kong" if view.phase is Phase.ROB else "discard"
        source = view.window_from
    if ask.get("hand") is not None:
        hand = _kinds(ask["hand"], "hand")
    if ask.get("tile") is not None:
        (tile,) = _kinds(ask["tile"], "tile", 1)
    if tile is None:
        raise ValueError('no winning tile: give one ("tile": "5m")')
    if ask.get("how") is not None:
        how = ask["how"]
        if not isinstance(how, str):
            raise ValueError("how: a text (self_draw, discard, rob_kong, …)")
    if ask.get("from") is not None:
        source = ask["from"]
    win: dict[str, Any] = {"seat": SEAT_LETTERS[view.viewer], "hand": format_tiles(hand),
                           "melds": [_meld_text(m) for m in melds], "tile": kind_to_str(tile),
                           "how": how}
    if source is not None:
        win["from"] = _letter(source, "from")
    for key in ("baodiao", "kongs_in_turn"):  # the seat's own to say (Shangrao 宝吊头)
        if ask.get(key) is not None:
            win[key] = ask[key]
    kongs = {SEAT_LETTERS[p.seat]: [f"{m.type.value} {format_tiles(m.tiles)}"
                                    for m in p.melds if m.tiles is not None
                                    and m.type in (MeldType.MGANG, MeldType.BGANG,
                                                   MeldType.AGANG)]
             for p in view.seats if p.seat != view.viewer}
    situation: dict[str, Any] = {
        "rules": view.rules, "options": dict(view.options),
        "dealer": SEAT_LETTERS[view.dealer], "wins": [win],
        "kongs": {seat: ks for seat, ks in kongs.items() if ks}}
    if view.wild is not None:
        situation["wild"] = kind_to_str(view.wild)
        situation["flown"] = {SEAT_LETTERS[p.seat]: min(p.flown, 4) for p in view.seats}
    if view.rules == "yichun":
        situation["dice"] = view.dice
        if all(p.bought is not None for p in view.seats):
            situation["buyers"] = [SEAT_LETTERS[p.seat] for p in view.seats if p.bought]
        situation["lighters"] = sum(p.lighter for p in view.seats)
    return situation


def _meld_text(m: Meld) -> str:
    """A meld as the calculator writes it (``peng 222m``)."""
    return f"{m.type.value} {format_tiles(m.tiles)}"


def _kinds(value: Any, name: str, count: int | None = None) -> list[Kind]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = " ".join(value)
    if not isinstance(value, str):
        raise ValueError(f'{name}: tiles as a text ("123m 5p") or a list (["1m", "5p"])')
    kinds = parse_tiles(value)
    if count is not None and len(kinds) != count:
        raise ValueError(f"{name}: {count} tile, got {len(kinds)}")
    return kinds


def value_json(view: View | None, ask: Mapping[str, Any],
               request: int | None = None) -> dict[str, Any]:
    """``{"command": "value", ...}``: what a win is worth, as the ``score`` calculator
    settles it (its ``--json`` answer in ``result``: the patterns, payments and nets, or an
    ``error`` with ``win`` false for a hand that does not win). ``ask``'s ``situation`` is a
    whole calculator input, settled as given; else the seat's win now, from its view
    (:func:`view_situation`), ``situation`` in the answer saying what was settled."""
    out: dict[str, Any] = {"type": "value", "request": request}
    given = ask.get("situation")
    if given is not None:
        out["situation"] = None
        out["result"] = score_json(given) if isinstance(given, dict) else \
            {"error": "situation: a JSON object, as the score calculator takes"}
        return out
    try:
        if view is None:
            raise ValueError("no hand yet")
        situation = view_situation(view, ask)
    except ValueError as exc:  # a tile that cannot be read too (TileParseError)
        out["situation"] = None
        out["result"] = {"error": str(exc)[:200]}
        return out
    out["situation"] = situation
    out["result"] = score_json(situation)
    return out
