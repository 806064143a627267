"""Tiles and melds as styled pieces of text: one place decides a tile's style key (its suit's
colour and modifiers) and how a meld is written, for the table, its prompts, hints and log."""

from __future__ import annotations

from collections.abc import Sequence

from engine.tiles import Kind
from engine.view import MeldView, View
from tui.view.cells import Piece
from tui.view.faces import Face, small, small_width, suit_class
from words import seat_wind

# after a meld, the seat it was claimed from (``←S``): written as ``◄`` on a terminal that draws
# ambiguous characters wide (``tui.compat.ambiwidth``), apart from the latest discard's ``<``
SOURCE_MARK = "←"

_TILE_STYLES: dict[tuple[Kind, tuple[str, ...]], str] = {}


def tile_style(kind: Kind, *mods: str) -> str:
    """The style key of a tile: its suit's colour plus modifiers (``tile-man+sel``)."""
    key = (kind, mods)
    style = _TILE_STYLES.get(key)
    if style is None:
        base = "tile-" + suit_class(kind).value
        style = "+".join((base, *mods)) if mods else base
        _TILE_STYLES[key] = style
    return style


def hand_tiles(view: View) -> list[Kind]:
    """The viewer's tiles in the order drawn: the hand, then the freshly drawn tile."""
    return list(view.hand) + ([view.drawn] if view.drawn is not None else [])


def tile_pieces(
    kinds: Sequence[Kind], face: Face, mark: Kind | None = None, sep: str = ""
) -> list[Piece]:
    """Tiles as small faces, each styled by its suit; ``mark`` styles its first copy as claimed."""
    out: list[Piece] = []
    marked = False
    for i, k in enumerate(kinds):
        if sep and i:
            out.append((sep, "choice"))
        text = small(k, face).rstrip() if face is not Face.GLYPH else small(k, face)
        if mark is not None and k == mark and not marked:
            out.append((text, tile_style(k, "claimed")))
            marked = True
        else:
            out.append((text, tile_style(k)))
    return out


def meld_pieces(m: MeldView, face: Face, lang: str, dense: bool = False) -> list[Piece]:
    """A meld as pieces, face down or with the seat it was claimed from (``dense``: one face
    and a count, for narrow rows)."""
    sw = small_width(face)
    if m.tiles is None:
        return [("▒" * sw, "tile-back")] * (1 if dense else 4) + (
            [("×4", "src")] if dense else []
        )
    out: list[Piece] = []
    same = len(set(m.tiles)) == 1
    if dense and same:
        k = m.tiles[0]
        mods = ("claimed",) if m.claimed is not None and m.source is not None else ()
        out.append((small(k, face), tile_style(k, *mods)))
        out.append((f"×{len(m.tiles)}", "src"))
    else:
        marked = False
        for k in m.tiles:
            if not marked and m.source is not None and k == m.claimed:
                out.append((small(k, face), tile_style(k, "claimed")))
                marked = True
            else:
                out.append((small(k, face), tile_style(k)))
    if m.source is not None:  # claimed from that seat (as on the result screen)
        out.append((("" if dense else SOURCE_MARK) + seat_wind(m.source, lang), "src"))
    return out
