"""The centre of the table: dice, the ruleset's extras (宝, kong tiles, 斗地主, who bought),
the open prompt's title or the latest discard, messages and the winning-tile hint."""

from __future__ import annotations

from collections.abc import Sequence

from engine.rulesets import RULESETS
from engine.table import Phase
from host.client import TableUpdate
from tui.view.canvas import Canvas
from tui.view.cells import Piece, clip_pieces, pieces_width, wrap_pieces
from tui.view.faces import small
from tui.view.tile_pieces import tile_pieces, tile_style
from tui.view.ui_state import UiState
from words import named_seat, seat_label, seat_wind, tr

WAITS_LINES = 3  # the most lines the winning tiles take in the centre


def centre_lines(update: TableUpdate, ui: UiState, me: int,
                  waits: list[Piece] | None, width: int) -> tuple[tuple[Piece, ...], ...]:
    """The centre's lines, ``width`` cells wide; the winning tiles wrapped on at most
    :data:`WAITS_LINES` lines."""
    view, lang, face = update.view, ui.lang, ui.face
    ruleset = RULESETS[view.rules]
    lines: list[list[Piece]] = []
    # the wall count is on the status line only: here it would repaint a row on every draw
    lines.append([(tr(lang, "dice", n=view.dice), "info")])
    if ruleset.has_wild and view.wild is not None and view.wild_indicator is not None:
        h, _, rest = tr(lang, "wild", wild="\0", ind="\1").partition("\0")
        mid, _, tail = rest.partition("\1")
        lines.append([(h, "info"), (small(view.wild, face).rstrip(), tile_style(view.wild, "wild")),
                      (mid, "info"), *tile_pieces([view.wild_indicator], face), (tail, "info")])
    elif ruleset.kong_tiles and view.kong_tiles:
        h, _, tail = tr(lang, "kong_tiles", tiles="\0").partition("\0")
        pcs: list[Piece] = [(h, "info")]
        for k in view.kong_tiles:
            pcs += tile_pieces([k], face) if k is not None else [("--", "dim")]
            pcs.append((" ", "info"))
        lines.append([*pcs, (tail, "info")])
    if 0 < len(view.doudizhu) < 4:  # Gejiu 斗地主: the dealer's tile, and who followed it
        ref = view.doudizhu[0]
        pcs = [(tr(lang, "ddz") + " ", "info"), *tile_pieces([ref], face)]
        for i, k in enumerate(view.doudizhu[1:], start=1):
            who = seat_wind((view.dealer + i) % 4, lang)
            pcs += [(" · ", "dim"), (f"{who} {'✓' if k == ref else '✗'}",
                                     "flag-em" if k == ref else "info")]
        lines.append(pcs)
    elif ruleset.buy_phase:
        buyers = [seat_wind(p.seat, lang) for p in view.seats if p.bought]
        lighters = [seat_wind(p.seat, lang) for p in view.seats if p.lighter]
        text = tr(lang, "buyers", who=" ".join(buyers) if buyers else tr(lang, "nobody"))
        if lighters:
            text += " · " + tr(lang, "lighters", who=" ".join(lighters))
        lines.append([(text, "info")])
    prompt = ui.prompt
    if prompt is not None:
        lines.append([])
        lines.append(list(prompt.title))
        lines.extend(list(n) for n in prompt.notes)
        lines.append([(tr(lang, "prompt_keys"), "dim")])
    elif view.last_discard is not None and view.phase is not Phase.ENDED:
        seat, kind = view.last_discard
        h, _, tail = tr(lang, "ev_discard", who=seat_label(view.viewer, seat, lang),
                        tile="\0").partition(
            "\0")
        lines.append([])
        lines.append([(h, "info"), *tile_pieces([kind], face), (tail, "info")])
    others = [s for s in update.waiting_for if s != view.viewer]
    if view.phase is Phase.ENDED and others and prompt is None:
        # the hand's result is closed here: the next hand waits for these players
        who = ", ".join(named_seat(view.viewer, s, lang, update.names) for s in others)
        lines.append([])
        lines.extend(wrap_pieces([(tr(lang, "waiting_for", who=who), "info")], width))
    # a message may say more than the box is wide (leaving mid-game): wrapped at its spaces
    # and at its line breaks (Chinese has no spaces)
    for said in ui.message.split("\n") if ui.message else ():
        words = [pc for w in said.split(" ") for pc in ((" ", "error"), (w, "error"))][1:]
        lines.extend(wrap_pieces(words, width))
    if waits:
        lines.extend(wrap_pieces(waits, width)[:WAITS_LINES])
    if ui.show_suggestion and ui.suggestion is not None:
        h, _, tail = tr(lang, "suggest", tile="\0").partition("\0")
        lines.append([(h, "hint"), *tile_pieces([ui.suggestion], face), (tail, "hint")])
    return tuple(tuple(ln) for ln in lines)


def draw_centre(c: Canvas, lines: Sequence[Sequence[Piece]], x0: int, w: int, top: int,
                 bottom: int) -> tuple[int, int] | None:
    """``lines`` centred in the centre's box; blank ones are dropped first when not all fit.
    Returns the first and the last row of the table's message (the lines in its ``error``
    style; None: none shown): notices keep off it."""
    avail = bottom - top + 1
    if len(lines) > avail:  # the spacing lines go first
        lines = [ln for ln in lines if ln]
    lines = lines[:avail]
    # placed as if there were at least six lines: a line coming or going (a message, the
    # waits) does not move the others
    y = top + max(0, (avail - max(len(lines), 6)) // 2)
    said: list[int] = []
    for ln in lines:
        if ln and all(style == "error" for _, style in ln):
            said.append(y)
        wdt = pieces_width(ln)
        if wdt > w:
            ln = clip_pieces(ln, w)
            wdt = pieces_width(ln)
        c.pieces(x0 + max(0, (w - wdt) // 2), y, ln)
        y += 1
    return (said[0], said[-1]) if said else None
