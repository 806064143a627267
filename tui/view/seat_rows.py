"""The seats around the table (the opponents' rows, your own row and hand, the ponds and the
frame between them), drawn from the viewer's seat onto a :class:`~tui.view.canvas.Canvas` region."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

from engine.rulesets import RULESETS
from engine.table import Phase
from engine.tiles import Kind
from engine.view import SeatPublic, View
from tui.view.canvas import Canvas
from tui.view.cells import Piece, fit_cells, fit_name, pieces_width
from tui.view.decisions import buying_now
from tui.view.faces import BIG_WIDTH, Face, big, small, small_width
from tui.view.tile_pieces import meld_pieces, tile_style
from tui.view.ui_state import UiState
from words import seat_label, tr

INDEX_LABELS = "1234567890-=[]"
# marks that say without colour what colour also says (none of East Asian ambiguous width,
# so they take the cells they are given on every terminal): the latest discard, the hand's
# cursor and the 宝 wild tiles in the hand (under each, by its key); ▶ marks the seat to act
LAST_AFTER, LAST_BEFORE = "<", ">"
CURSOR_MARK = ">"
# the seat to act: ambiguous, and so written as ``»`` on a terminal that draws such characters
# wide (``tui.compat.ambiwidth``), apart from the cursor's ``>`` there
TURN_MARK = "▶"
WILD_MARK, WILD_MARK_ASCII = "宝", "*"


def seat_flags(view: View, p: SeatPublic, lang: str, short: bool = False) -> list[Piece]:
    """The seat's flags after its name (dealer, bought, lighter, 听, flown); ``short``: their
    one-character forms, for a line too narrow for the words."""
    out: list[Piece] = []
    sfx = "_short" if short else ""
    if p.seat == view.dealer:
        out.append((tr(lang, "flag_dealer" + sfx), "flag"))
    if RULESETS[view.rules].buy_phase and p.bought is not None:
        out.append((tr(lang, "flag_buy" if p.bought else "flag_nobuy"), "flag"))
    if p.lighter:
        out.append((tr(lang, "flag_lighter"), "flag"))
    if p.ting:
        out.append((tr(lang, "flag_ting" + sfx), "flag-em"))
    if p.flown:
        out.append((tr(lang, "flag_flown" + sfx, n=p.flown), "flag"))
    return out


def side_flag_line(view: View, p: SeatPublic, lang: str, width: int) -> list[Piece]:
    """A side seat's second line: its tile count and every flag in ``width`` cells. Flags are
    never dropped (a dealer's 庄 or a 报听 is what the player must see): the words give way to
    one-character forms, then the spaces between flags, then the tile count."""
    count = view.phase is not Phase.BUY  # nothing is dealt while buying
    line: list[Piece] = []
    for short, sep, count_key in ((False, " ", "tiles_left"), (True, " ", "tiles_left"),
                                  (True, " ", "tiles_left_short"), (True, "", "tiles_left_short"),
                                  (True, "", "")):
        line = [(" " + tr(lang, count_key, n=_held(p)), "dim")] if count and count_key else []
        for i, piece in enumerate(seat_flags(view, p, lang, short)):
            if sep or i == 0:
                line.append((" ", "text"))
            line.append(piece)
        if pieces_width(line) <= width:
            break
    return line


def _held(p: SeatPublic) -> int:
    """Concealed tiles without a freshly drawn one (13, 10, 7, …): the ▶ mark already says
    who holds a drawn tile, and a count that stays put is not repainted on every draw."""
    return p.concealed_count - (1 if p.has_drawn else 0)


def is_acting(view: View, seat: int) -> bool:
    """Whether ``seat`` is the one to move (the ▶ mark): only on a turn or a 塘子烂糊 decision."""
    if view.phase in (Phase.TURN, Phase.DECLARE):
        return view.current == seat
    return False


def _score(p: SeatPublic) -> str:
    return f"{p.score:+d}"


def draw_across(c: Canvas, view: View, ui: UiState, seat: int, y: int,
                name: str = "") -> None:
    """The seat across on one centred row: seat, name, score, tile count, flags, melds."""
    lang, face = ui.lang, ui.face
    p = view.seats[seat]
    head: list[Piece] = []
    acting = is_acting(view, seat)
    head.append((TURN_MARK if acting else " ", "turn-mark"))
    head.append((seat_label(view.viewer, seat, lang), "label-turn" if acting else "label"))
    head.append((" " + _score(p), "score"))
    if view.phase is not Phase.BUY:  # nothing is dealt while buying
        head.append((" " + tr(lang, "tiles_left", n=_held(p)), "dim"))
    for piece in seat_flags(view, p, lang):
        head.append((" ", "text"))
        head.append(piece)
    melds: list[Piece] = []
    for dense in (False, True):
        melds = []
        for m in p.melds:
            melds.append(("  ", "text"))
            melds.extend(meld_pieces(m, face, lang, dense))
        if pieces_width(head) + pieces_width(melds) <= c.width:
            break
    total = pieces_width(head) + pieces_width(melds)
    room = c.width - total - 1  # the name takes what is left, up to 18 cells
    if name and room >= 2:
        shown = " " + fit_name(name, min(18, room))
        head.insert(2, (shown, "text"))
        total += cell_len(shown)
    x = max(0, (c.width - total) // 2)
    x = c.pieces(x, y, head)
    c.pieces(x, y, melds)


def draw_side(
    c: Canvas, view: View, ui: UiState, seat: int, x0: int, w: int, top: int, bottom: int,
    pond: bool = True, name: str = "",
) -> None:
    """An opponent at the side: seat, player's name (on a line of its own where it does not
    fit beside the seat: :func:`side_name_below`), score, tiles and flags, melds, then
    (``pond``) the discards."""
    lang, face = ui.lang, ui.face
    p = view.seats[seat]
    acting = is_acting(view, seat)
    label = seat_label(view.viewer, seat, lang)
    x = c.put(x0, top, TURN_MARK if acting else " ", "turn-mark")
    x = c.put(x, top, label, "label-turn" if acting else "label")
    score = _score(p)
    score_x = x0 + w - cell_len(score) - 1
    below = side_name_below(name, label, w)
    if name and not below:
        c.put(x + 1, top, fit_cells(name, score_x - x - 2), "text")
    elif name:
        c.put(x0 + 1, top + 1, fit_cells(name, w - 1), "text")
    c.put(score_x, top, score, "score")
    c.pieces(x0, top + 1 + below, side_flag_line(view, p, lang, w))
    y = top + 2 + below
    for m in p.melds:
        pcs = meld_pieces(m, face, lang)
        if pieces_width(pcs) + 1 > w:
            pcs = meld_pieces(m, face, lang, dense=True)
        c.pieces(x0 + 1, y, pcs)
        y += 1
    if pond:
        y += 1 if p.melds else 0
        draw_pond(c, view, seat, x0 + 1, y, w - 1, bottom - y + 1, face)


def side_name_below(name: str, label: str, w: int) -> bool:
    """Whether a side seat's player's name takes a line of its own under the seat's label
    (``w`` cells wide): where it does not fit beside the label and a score of four cells, as
    a computer player's ``normal (computer)`` at 80 columns; a name is then cut only past the
    side's width, and does not move as the score grows."""
    return bool(name) and cell_len(name) > w - cell_len(label) - 8


def side_pond_top(p: SeatPublic, top: int, name_below: bool = False) -> int:
    """The first row of a side seat's discards, under its head (and name), and melds."""
    return top + 2 + name_below + len(p.melds) + (1 if p.melds else 0)


def draw_pond(
    c: Canvas, view: View, seat: int, x0: int, y0: int, w: int, rows: int, face: Face
) -> None:
    """``seat``'s discards in rows ``w`` cells wide, the latest rows when they do not all fit."""
    if rows <= 0:
        return
    pond = view.seats[seat].pond
    sw = small_width(face)
    pitch = sw + 1
    per_row = max(1, (w + 1) // pitch)
    n = len(pond)
    needed = -(-n // per_row) if n else 0
    start = 0
    if needed > rows:  # show the most recent rows; the first cell says some are hidden
        start = (needed - rows) * per_row
    last = view.last_discard
    for i in range(start, n):
        d = pond[i]
        j = i - start
        x = x0 + (j % per_row) * pitch
        y = y0 + j // per_row
        mods = []
        if d.claimed_by is not None:
            mods.append("claimed-pond")
        elif last is not None and last[0] == seat and i == n - 1 and view.phase in (
            Phase.CLAIM, Phase.DECLARE, Phase.TURN, Phase.ENDED
        ):
            mods.append("last")
        if d.ting:
            mods.append("ting")
        c.put(x, y, small(d.kind, face), tile_style(d.kind, *mods))
        if "last" in mods:  # not by colour alone: a mark in the gap after it (or before)
            if x + sw < x0 + w:
                c.put(x + sw, y, LAST_AFTER, "turn-mark")
            elif x > x0:
                c.put(x - 1, y, LAST_BEFORE, "turn-mark")
    if start:
        c.put(x0 - 1, y0, "…", "dim")


def last_flag(view: View, seat: int) -> bool:
    """Whether ``seat``'s newest discard is the highlighted latest discard."""
    last = view.last_discard
    return last is not None and last[0] == seat and view.phase in (
        Phase.CLAIM, Phase.DECLARE, Phase.TURN, Phase.ENDED)


def draw_frame(c: Canvas, view: View, ui: UiState, me: int, side_w: int, x0: int, w: int,
           top: int, bottom: int, my_caption_y: int) -> None:
    """The rules between the sides and the centre, and the captions of the centre ponds."""
    for y in range(top, bottom + 1):
        c.put(side_w, y, "│", "dim")
        c.put(c.width - side_w - 1, y, "│", "dim")
    for seat, y in (((me + 2) % 4, top), (me, my_caption_y)):
        text = tr(ui.lang, "pond_of", who=seat_label(view.viewer, seat, ui.lang))
        tw = cell_len(text)
        c.put(x0 + max(0, (w - tw) // 2), y, set_cell_size(text, min(w, tw)), "dim")


def draw_me_row(c: Canvas, view: View, ui: UiState, me: int, y: int, name: str = "") -> None:
    """Your own seat's row above the hand: seat, name (when watching), score, flags."""
    lang = ui.lang
    p = view.seats[me]
    acting = is_acting(view, me)
    x = c.put(0, y, TURN_MARK if acting else " ", "turn-mark")
    x = c.put(x, y, seat_label(view.viewer, me, lang), "label-turn" if acting else "label")
    if name:
        x = c.put(x, y, " " + fit_cells(name, 16), "text")
    x = c.put(x, y, " " + _score(p), "score")
    if view.viewer is None and view.phase is not Phase.BUY:
        # a spectator sees none of this seat's tiles: it reads their count, as for the others
        x = c.put(x, y, " " + tr(lang, "tiles_left", n=_held(p)), "dim")
    for piece in seat_flags(view, p, lang):
        x = c.put(x, y, " ", "text")
        x = c.put(x, y, *piece)


def draw_hand(c: Canvas, view: View, ui: UiState, me: int, tiles: list[Kind], cursor: int,
          selecting: bool, y_top: int) -> None:
    """The own hand (two rows of big tiles), the index keys under it, the own melds."""
    lang, face = ui.lang, ui.face
    p = view.seats[me]
    y_bot, y_idx = y_top + 1, y_top + 2
    n_hand = len(view.hand)
    if not tiles and view.phase is Phase.BUY:  # buying comes first: the hand is empty till then
        c.put(1, y_top, tr(lang, "buy_deal_after"), "hint")
        now = buying_now(view)
        if now is not None and not view.my_move:  # the seats choose in turn: whose it is
            c.put(1, y_bot, tr(lang, "buy_in_turn", who=seat_label(view.viewer, now, lang)),
                  "hint")
        return
    melds_w = sum(pieces_width(meld_pieces(m, face, lang)) + 3 for m in p.melds)
    pitch = BIG_WIDTH + 1
    if 1 + len(tiles) * pitch + 2 + melds_w > c.width:
        pitch = BIG_WIDTH
    x = 1
    for i, k in enumerate(tiles):
        if i == n_hand and view.drawn is not None:
            x += 2
        mods: list[str] = []
        if view.wild is not None and k == view.wild:
            mods.append("wild")
        if i == cursor and selecting:
            mods.append("sel")
        top, bottom = big(k, face)
        style = tile_style(k, *mods)
        c.put(x, y_top, top, style)
        c.put(x, y_bot, bottom, style)
        if i < len(INDEX_LABELS):
            label = INDEX_LABELS[i]
            at = x + (BIG_WIDTH - 1) // 2
            here = i == cursor and selecting
            if here:  # the cursor, not by colour alone
                c.put(at - 1, y_idx, CURSOR_MARK, "index-sel")
            c.put(at, y_idx, label, "index-sel" if here else "index")
            if "wild" in mods:  # 宝, not by colour alone
                c.put(at + 1, y_idx, WILD_MARK_ASCII if face is Face.ASCII else WILD_MARK,
                      "flag")
        x += pitch
    x += 2
    for m in p.melds:
        pcs = meld_pieces(m, face, lang)
        end = c.pieces(x, y_top, pcs)
        label = m.type.zh
        c.put(x, y_bot, label, "dim")
        x = end + 3
