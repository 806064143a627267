"""The lines of a board drawn as text, shared by the replay and the review screens: a seat's
row (its name, its tiles or how many it holds, melds, score) and its pond, packed within a
width, and the line of the wild and the wall."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.cells import cell_len
from rich.markup import escape

from engine.table import Event
from engine.tiles import Kind
from engine.view import MeldView, PondView, SeatPublic
from tui.view.cells import Piece
from tui.view.faces import Face, small
from tui.view.log_text import event_pieces
from tui.view.result_text import meld_markup, meld_width, tile_markup
from words import tr

INDENT = 6  # the lines after a seat's first start here


def piece_markup(piece: Piece) -> str:
    """A piece of a log line (text and style) as markup."""
    text, style = piece
    if style.startswith("tile-"):
        return f"[bold ${style.split('+')[0]} on $tile-face]{escape(text)}[/]"
    return escape(text)


def event_markups(events: Iterable[Event], seat: int, lang: str, face: Face) -> list[str]:
    """The events a log names, each as markup, as ``seat`` reads them."""
    shown = (event_pieces(e, seat, lang, face) for e in events)
    return ["".join(piece_markup(p) for p in pieces) for pieces in shown if pieces]


def pack(items: Sequence[tuple[str, int]], head: str, head_width: int, indent: int,
         width: int) -> list[str]:
    """Markup items of known widths on lines no wider than ``width``: the first after
    ``head``, the others after ``indent`` spaces."""
    lines: list[str] = []
    line, used = head, head_width
    first = True
    for markup, w in items:
        if not first and used + 1 + w > width and used > indent:
            lines.append(line)
            line, used = " " * indent, indent
            first = True
        if not first:
            line += " "
            used += 1
        line += markup
        used += w
        first = False
    lines.append(line)
    return lines


def hand_items(kinds: Iterable[Kind], drawn: Kind | None, melds: Iterable[MeldView],
               face: Face, lang: str, wild: Kind | None = None) -> list[tuple[str, int]]:
    """A hand as items to pack: its tiles (the wild marked), the drawn one after a gap, its
    melds."""
    items = [(tile_markup(k, face, wild=k == wild), cell_len(small(k, face))) for k in kinds]
    if drawn is not None:
        items += [("", 0), (tile_markup(drawn, face, mark=True), cell_len(small(drawn, face)))]
    return items + [(meld_markup(m, face, lang), meld_width(m, face, lang)) for m in melds]


def seat_lines(head: tuple[str, int], items: list[tuple[str, int]], seat: SeatPublic,
               face: Face, lang: str, width: int) -> list[str]:
    """A seat's row (its ``head`` and ``items``, then its score) packed within ``width``,
    then its pond."""
    score = f"{seat.score:+d}"
    return (pack([*items, (f"[$text-muted]{score}[/]", len(score))], *head, INDENT, width)
            + pond_lines(seat.pond, face, lang, width))


def seat_head(to_act: bool, dealer: bool, label: str) -> tuple[str, int]:
    """A seat row's start (▶ for the seat to act, 庄 for the dealer, a space, its name cut
    to 18 cells) as markup, and its width."""
    label = label[:18]
    head = (f"{'▶' if to_act else ' '}{'庄' if dealer else '  '} {escape(label)}"
            f"{' ' * max(1, 19 - cell_len(label))}")
    return head, 4 + max(cell_len(label) + 1, 19)


def pond_lines(pond: Sequence[PondView], face: Face, lang: str, width: int) -> list[str]:
    """A seat's pond under its row (claimed discards dimmed); none if it is empty."""
    if not pond:
        return []
    items = [(tile_markup(p.kind, face) if p.claimed_by is None
              else f"[$text-muted]{escape(small(p.kind, face))}[/]",
              cell_len(small(p.kind, face))) for p in pond]
    label = tr(lang, "rp_pond")
    head = f"{' ' * INDENT}[$text-muted]{escape(label)}[/] "
    return pack(items, head, INDENT + 1 + cell_len(label), INDENT, width)


def wall_line(wild: Kind | None, indicator: Kind | None, remaining: int, face: Face,
              lang: str) -> str:
    """The wild (宝) and its indicator where the ruleset has one, and the tiles left."""
    extras = []
    if wild is not None:
        extras.append(tr(lang, "wild", wild=small(wild, face).strip(),
                         ind=small(indicator, face).strip() if indicator is not None else "?"))
    extras.append(tr(lang, "wall", n=remaining))
    return "  " + escape(" · ".join(extras))
