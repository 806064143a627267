"""The winning-tile hint: which tiles the viewer's hand waits on (after the picked discard) and
how many of each are still unseen, worked out from the view alone so a spectator's or a
player's screen never learns more than the view shows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine.hands import waits
from engine.melds import Meld
from engine.table import Phase
from engine.tiles import Kind
from engine.view import View
from tui.view.cells import Piece
from tui.view.tile_pieces import hand_tiles, tile_pieces
from tui.view.ui_state import UiState
from words import tr

_WAITS_CACHE: dict[tuple[object, ...], dict[Kind, str]] = {}


def waits_of(view: View, concealed: Sequence[Kind]) -> dict[Kind, str]:
    """Winning tiles of a 3n+1 concealed hand with the viewer's melds (cached)."""
    me = view.seats[view.viewer or 0]
    key = (view.rules, tuple(sorted(concealed)), me.melds, view.wild)
    hit = _WAITS_CACHE.get(key)
    if hit is not None:
        return hit
    melds = []
    try:
        for m in me.melds:
            if m.tiles is None:
                return {}
            melds.append(Meld(m.type, tuple(m.tiles), m.claimed, m.source))
        result = waits(view.rules, list(concealed), melds, view.wild)
    except ValueError:
        result = {}
    if len(_WAITS_CACHE) > 512:
        _WAITS_CACHE.clear()
    _WAITS_CACHE[key] = result
    return result


def unseen_counts(view: View) -> Counter[Kind]:
    """How many of each kind the viewer has not seen (own hand, ponds, melds, indicators)."""
    seen: Counter[Kind] = Counter(hand_tiles(view))
    for p in view.seats:
        for d in p.pond:
            if d.claimed_by is None:
                seen[d.kind] += 1
        for m in p.melds:
            if m.tiles is not None:
                seen.update(m.tiles)
    if view.wild_indicator is not None:
        seen[view.wild_indicator] += 1
    for k in view.kong_tiles:
        if k is not None:
            seen[k] += 1
    return Counter({k: max(0, 4 - seen[k]) for k in range(34)})


def ready_hint(view: View, cursor: int) -> tuple[Kind | None, dict[Kind, str]]:
    """(tile to discard or None, waits) for the hint line."""
    if view.viewer is None or view.phase in (Phase.BUY, Phase.ENDED):
        return None, {}
    tiles = hand_tiles(view)
    if len(tiles) % 3 == 1:
        return None, waits_of(view, tiles)
    if len(tiles) % 3 == 2 and tiles:
        idx = max(0, min(cursor, len(tiles) - 1))
        rest = tiles[:idx] + tiles[idx + 1:]
        return tiles[idx], waits_of(view, rest)
    return None, {}


WAITS_BUT_MAX = 10  # more winning kinds than 34 less this: "any tile except" the others


def waits_pieces(view: View, ui: UiState,
                 ready: tuple[Kind | None, dict[Kind, str]] | None = None) -> list[Piece] | None:
    """The hint line of the winning tiles (with how many of each are unseen), or None.
    ``ready`` is :func:`ready_hint`'s answer when the caller has it already."""
    lang, face = ui.lang, ui.face
    discard, waits = ready if ready is not None else ready_hint(view, ui.cursor)
    if not waits:
        return None
    unseen = unseen_counts(view)
    pcs: list[Piece]
    if discard is not None:
        h, _, tail = tr(lang, "waits_after", tile="\0").partition("\0")
        pcs = [(h, "hint"), *tile_pieces([discard], face), (tail, "hint")]
    else:
        pcs = [(tr(lang, "waits"), "hint")]
    if len(waits) >= 34 - WAITS_BUT_MAX:  # (nearly) every tile wins (Shangrao's 宝吊头)
        n = sum(unseen[k] for k in waits)
        missing = [k for k in range(34) if k not in waits]
        if not missing:
            pcs.append((" " + tr(lang, "waits_any", n=n), "hint"))
            return pcs
        h, _, tail = tr(lang, "waits_but", tiles="\0", n=n).partition("\0")
        pcs.append((" " + h, "hint"))
        for i, k in enumerate(missing):
            if i:
                pcs.append((" ", "hint"))
            pcs += tile_pieces([k], face)
        pcs.append((tail, "hint"))
        return pcs
    for k in waits:
        pcs.append((" ", "hint"))
        pcs += tile_pieces([k], face)
        pcs.append((f"×{unseen[k]}", "hint"))
    return pcs
