"""The table drawn as rows of spans: pure functions from a view (and the screen's state) to text.

:func:`build_rows` places every element of the table at its cell position and returns one
tuple of spans ``(x, text, style_key)`` per terminal row. It knows nothing of Textual: the
:class:`tui.table.TableView` widget turns rows into cached strips and redraws only the rows
that changed. Every width is measured in terminal cells (:func:`rich.cells.cell_len`).

Seats are drawn from the viewer's seat: 上家 (previous player) on the LEFT, 对家 across at the
top, 下家 (next player, who plays after you) on the RIGHT, yourself at the bottom.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from rich.cells import cell_len, set_cell_size

from engine.actions import Action, ActionType
from engine.hands import waits
from engine.melds import Meld
from engine.table import Event, EventType, Phase
from engine.tiles import Kind
from engine.view import MeldView, SeatPublic, View
from tui.client import TableUpdate
from tui.faces import BIG_WIDTH, Face, big, small, small_width, suit_class
from tui.i18n import relative_name, seat_label, seat_wind, tr

Span = tuple[int, str, str]
Row = tuple[Span, ...]
Piece = tuple[str, str]  # (text, style key)

MIN_WIDTH = 80
MIN_HEIGHT = 24
# a larger terminal gets the table at this size at most, centred: spread over a whole big
# screen, the seats drift to the corners with empty rows and columns between them
MAX_WIDTH = 140
MAX_HEIGHT = 44
INDEX_LABELS = "1234567890-=[]"

RULES_NAMES = {"yichun": ("宜春", "Yichun"), "shangrao": ("上饶", "Shangrao"),
               "gejiu": ("个旧", "Gejiu")}


def rules_title(rules: str, lang: str) -> str:
    zh, en = RULES_NAMES.get(rules, (rules, rules))
    return zh if lang == "zh" else f"{zh} {en}"


@dataclass(frozen=True)
class Choice:
    """One option of a prompt. ``action`` None = cancel (close the prompt)."""

    action: Action | None
    label: tuple[Piece, ...]
    hotkey: str = ""  # binding id that picks it directly ("pass", "chi", …)


@dataclass(frozen=True)
class Prompt:
    kind: str  # "claim", "rob", "buy", "declare", "kong"
    title: tuple[Piece, ...]
    choices: tuple[Choice, ...]
    notes: tuple[tuple[Piece, ...], ...] = ()  # lines under the title that explain the choices


@dataclass
class UiState:
    """What the screen adds to a view: the cursor, the open prompt, messages, options."""

    face: Face = Face.CJK
    lang: str = "en"
    cursor: int = 0
    prompt: Prompt | None = None
    selected: int = 0  # highlighted choice of the prompt
    message: str = ""
    show_waits: bool = True
    show_suggestion: bool = False
    suggestion: Kind | None = None
    now: float = 0.0
    keys: dict[str, str] = field(default_factory=dict)  # binding id -> key shown in hints
    small_waits: bool = True  # the table waits while the terminal is too small (not if shared)


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
    return list(view.hand) + ([view.drawn] if view.drawn is not None else [])


# --- prompts ---------------------------------------------------------------------------------


def tile_pieces(
    kinds: Sequence[Kind], face: Face, mark: Kind | None = None, sep: str = ""
) -> list[Piece]:
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


def claim_prompt(view: View, lang: str, face: Face) -> Prompt | None:
    """The prompt for a claim / rob / buy / 塘子烂糊 decision, or None."""
    if not view.my_move or not view.legal:
        return None
    legal = view.legal
    if view.phase is Phase.BUY:
        choices = []
        for a in sorted(legal, key=lambda a: (a.type is ActionType.BUY, a.lighter)):
            text = tr(lang, "opt_buy" if a.type is ActionType.BUY else "opt_nobuy")
            if a.lighter:
                text += " " + tr(lang, "opt_lighter")
            hot = "" if a.lighter else ("buy" if a.type is ActionType.BUY else "no-buy")
            choices.append(Choice(a, ((text, "choice"),), hot))
        notes = [((tr(lang, "buy_note"), "hint"),)]
        if any(c.action is not None and c.action.lighter for c in choices):
            notes.append(((tr(lang, "lighter_note"), "hint"),))
        return Prompt("buy", ((tr(lang, "buy_q"), "prompt-title"),), tuple(choices),
                      tuple(notes))
    if view.phase is Phase.DECLARE:
        choices = [Choice(Action.pass_(), ((tr(lang, "opt_pass"), "choice"),), "pass")]
        choices += [Choice(a, ((tr(lang, "opt_pond"), "choice"),), "pond-win")
                    for a in legal if a.type is ActionType.POND_WIN]
        return Prompt("declare", ((tr(lang, "declare_q"), "prompt-title"),), tuple(choices),
                      (((tr(lang, "declare_note"), "hint"),),))
    if view.phase not in (Phase.CLAIM, Phase.ROB):
        return None
    tile = view.window_tile
    who = (seat_label(view.viewer, view.window_from, lang)
           if view.window_from is not None else "?")
    key = "rob_on" if view.phase is Phase.ROB else "claim_on"
    head, _, tail = tr(lang, key, who=who, tile="\0").partition("\0")
    title: list[Piece] = [(head, "prompt-title")]
    if tile is not None:
        title += tile_pieces([tile], face)
    title.append((tail, "prompt-title"))
    choices = [Choice(Action.pass_(), ((tr(lang, "opt_pass"), "choice"),), "pass")]
    order = {ActionType.CHI: 0, ActionType.PENG: 1, ActionType.MINGGANG: 2, ActionType.WIN: 3}
    for a in sorted((a for a in legal if a.type is not ActionType.PASS),
                    key=lambda a: (order.get(a.type, 9), a.tiles)):
        if a.type is ActionType.CHI and tile is not None:
            pieces: list[Piece] = [("吃 " if lang == "zh" else "Chi 吃 ", "choice")]
            pieces += tile_pieces(sorted((*a.tiles, tile)), face, mark=tile, sep=" ")
            choices.append(Choice(a, tuple(pieces), "chi"))
        elif a.type is ActionType.PENG:
            choices.append(Choice(a, (("碰" if lang == "zh" else "Pung 碰", "choice"),), "peng"))
        elif a.type is ActionType.MINGGANG:
            pieces = [("杠" if lang == "zh" else "Kong 杠", "choice")]
            pieces += _slot_pieces(view, a, lang, face)  # Gejiu: which kong tile it takes
            choices.append(Choice(a, tuple(pieces), "kong"))
        elif a.type is ActionType.WIN:
            text = tr(lang, "opt_rob" if view.phase is Phase.ROB else "opt_win")
            choices.append(Choice(a, ((text, "choice-win"),), "win"))
    return Prompt("rob" if view.phase is Phase.ROB else "claim", tuple(title), tuple(choices))


def _slot_pieces(view: View, a: Action, lang: str, face: Face) -> list[Piece]:
    """`` (杠牌 1筒)``: the Gejiu kong tile a kong takes, or nothing."""
    if a.slot is None or a.slot >= len(view.kong_tiles):
        return []
    slot_tile = view.kong_tiles[a.slot]
    h2, _, t2 = tr(lang, "opt_slot", n="\0").partition("\0")
    pieces: list[Piece] = [(h2, "choice")]
    if slot_tile is not None:
        pieces += tile_pieces([slot_tile], face)
    pieces.append((t2, "choice"))
    return pieces


def kong_prompt(view: View, lang: str, face: Face) -> Prompt | None:
    kongs = [a for a in view.legal if a.type in (ActionType.ANGANG, ActionType.BUGANG)]
    if not kongs:
        return None
    choices = []
    for a in kongs:
        assert a.tile is not None
        key = "opt_angang" if a.type is ActionType.ANGANG else "opt_bugang"
        head, _, tail = tr(lang, key, tile="\0").partition("\0")
        pieces: list[Piece] = [(head, "choice"), *tile_pieces([a.tile], face)]
        if tail:
            pieces.append((tail, "choice"))
        pieces += _slot_pieces(view, a, lang, face)
        choices.append(Choice(a, tuple(pieces), "kong"))
    choices.append(Choice(None, ((tr(lang, "opt_cancel"), "choice"),), "pass"))
    return Prompt("kong", ((tr(lang, "kong_q"), "prompt-title"),), tuple(choices))


# --- hints -----------------------------------------------------------------------------------

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


# --- the rows --------------------------------------------------------------------------------


# Every span a canvas keeps is one shared tuple per (x, text, style) in the process. A region
# drawn again keeps most of its spans, and each new tuple a region holds stays in the garbage
# collector's youngest generation until its next pass: at 25 tables (100 sessions) these were
# 10,000 of the 22,000 objects a young collection scanned (``MJ_BENCH_YOUNG=0``).
# Rows likewise (most rows of a region drawn again are unchanged), and a table's assembled rows.
_SPANS: dict[Span, Span] = {}
_SPANS_MAX: Final = 1 << 16
_interned = _SPANS.setdefault
_ROWS: dict[Row, Row] = {}
_ROWS_MAX: Final = 1 << 14
_interned_row = _ROWS.setdefault


def _row(spans: Sequence[Span]) -> Row:
    row = tuple(spans)
    return _interned_row(row, row)


class Canvas:
    """Spans placed at cell positions, row by row (only the rows drawn on are kept)."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.rows: dict[int, list[Span]] = {}
        if len(_SPANS) > _SPANS_MAX:
            _SPANS.clear()
        if len(_ROWS) > _ROWS_MAX:
            _ROWS.clear()

    def put(self, x: int, y: int, text: str, style: str = "text") -> int:
        if 0 <= y < self.height and text and x < self.width:
            span = (x, text, style)
            span = _interned(span, span)
            row = self.rows.get(y)
            if row is None:
                self.rows[y] = [span]
            else:
                row.append(span)
        return x + cell_len(text)

    def pieces(self, x: int, y: int, pieces: Sequence[Piece]) -> int:
        for text, style in pieces:
            x = self.put(x, y, text, style)
        return x

    def frozen(self) -> list[Row]:
        rows = self.rows
        return [tuple(sorted(rows.get(y, ()), key=_span_x)) for y in range(self.height)]


def fit_cells(text: str, cells: int) -> str:
    """``text`` cut to at most ``cells`` terminal cells, ending in … when cut."""
    if cell_len(text) <= cells:
        return text
    if cells <= 0:
        return ""
    out, used = [], 1
    for ch in text:
        w = cell_len(ch)
        if used + w > cells:
            break
        out.append(ch)
        used += w
    return "".join(out).rstrip() + "…"


def pieces_width(pieces: Sequence[Piece]) -> int:
    return sum(cell_len(t) for t, _ in pieces)


def meld_pieces(m: MeldView, face: Face, lang: str, dense: bool = False) -> list[Piece]:
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
        out.append((("" if dense else "←") + seat_wind(m.source, lang), "src"))
    return out


def seat_flags(view: View, p: SeatPublic, lang: str) -> list[Piece]:
    out: list[Piece] = []
    if p.seat == view.dealer:
        out.append((tr(lang, "flag_dealer"), "flag"))
    if view.rules == "yichun" and p.bought is not None:
        out.append((tr(lang, "flag_buy" if p.bought else "flag_nobuy"), "flag"))
    if p.lighter:
        out.append((tr(lang, "flag_lighter"), "flag"))
    if p.ting:
        out.append((tr(lang, "flag_ting"), "flag-em"))
    if p.flown:
        out.append((tr(lang, "flag_flown", n=p.flown), "flag"))
    return out


def _held(p: SeatPublic) -> int:
    """Concealed tiles without a freshly drawn one (13, 10, 7, …): the ▶ mark already says
    who holds a drawn tile, and a count that stays put is not repainted on every draw."""
    return p.concealed_count - (1 if p.has_drawn else 0)


def _acting(view: View, seat: int) -> bool:
    if view.phase in (Phase.TURN, Phase.DECLARE):
        return view.current == seat
    return False


def _score(p: SeatPublic) -> str:
    return f"{p.score:+d}"


def build_rows(update: TableUpdate, ui: UiState, width: int, height: int) -> list[Row]:
    """Every row of the table screen at ``width`` × ``height`` cells (no caching)."""
    return TableRows().build(update, ui, width, height)


RegionRows = dict[int, Row]  # y -> the region's spans on that row, in drawing order


class TableRows:
    """:func:`build_rows` for one screen, frame after frame, with a cache per region.

    The table is drawn as regions (status line, each opponent, each pond, the centre, your
    hand, the action line, the log). Each region has a key made of exactly the data it draws;
    the engine keeps a seat's :class:`SeatPublic` the same object while that seat's public state
    is unchanged, so most keys compare by identity. A region whose key is unchanged reuses its
    spans, and only the rows touched by a changed region are assembled again (an unchanged row
    is the same tuple object as in the previous frame).
    """

    def __init__(self) -> None:
        self._regions: dict[str, tuple[object, RegionRows]] = {}
        self._order: list[RegionRows] = []
        self._rows: list[Row] = []
        self._size = (0, 0)
        # the log's events as spans: those the last log drew, and those this one draws
        self._events: dict[int, tuple[Event, list[Span] | None, int]] = {}
        self._events_now: dict[int, tuple[Event, list[Span] | None, int]] = {}
        self._events_style: tuple[int | None, str, Face] | None = None
        self._log_first: Event | None = None  # the oldest move on the log's row
        self._ready: tuple[object, tuple[Kind | None, dict[Kind, str]]] = ((), (None, {}))
        self._waits: tuple[object, list[Piece] | None] = ((), None)
        self.regions_built = 0  # regions drawn again by the last build (tests, bench)
        # a large terminal's rows moved to the middle, by the table-sized row they come from
        self._shifted: dict[int, tuple[Row, Row]] = {}
        self._shift_x = 0

    def _region(self, name: str, key: object, size: tuple[int, int],
                draw: Callable[[Canvas], object]) -> RegionRows:
        hit = self._regions.get(name)
        if hit is not None and hit[0] == key:
            return hit[1]
        c = Canvas(*size)
        draw(c)
        rows = {y: _row(r) for y, r in c.rows.items()}
        self._regions[name] = (key, rows)
        self.regions_built += 1
        return rows

    def build(self, update: TableUpdate, ui: UiState, width: int, height: int) -> list[Row]:
        """The screen's rows; a terminal larger than ``MAX_WIDTH`` × ``MAX_HEIGHT`` gets the
        table at that size in its middle (the rows shifted, shared while unchanged)."""
        inner_w, inner_h = min(width, MAX_WIDTH), min(height, MAX_HEIGHT)
        rows = self._build(update, ui, inner_w, inner_h)
        if (inner_w, inner_h) == (width, height):
            self._shifted = {}
            return rows
        x0, y0 = (width - inner_w) // 2, (height - inner_h) // 2
        if x0 != self._shift_x:
            self._shifted, self._shift_x = {}, x0
        shifted: dict[int, tuple[Row, Row]] = {}
        out: list[Row] = [()] * y0
        for row in rows:
            hit = self._shifted.get(id(row))
            if hit is None or hit[0] is not row:
                moved = _row([_interned(sp, sp) for sp in
                              ((x + x0, text, style) for x, text, style in row)]) if x0 else row
                hit = (row, moved)
            shifted[id(row)] = hit
            out.append(hit[1])
        self._shifted = shifted
        out.extend([()] * (height - y0 - inner_h))
        return out

    def _build(self, update: TableUpdate, ui: UiState, width: int, height: int) -> list[Row]:
        self.regions_built = 0
        if width < MIN_WIDTH or height < MIN_HEIGHT:
            c = Canvas(width, height)
            _too_small(c, ui.lang, ui.small_waits, watching=update.view.viewer is None)
            self._size = (0, 0)
            self._order = []
            return c.frozen()
        size = (width, height)
        view = update.view
        lang, face = ui.lang, ui.face
        me = view.viewer if view.viewer is not None else 0
        side_w = min(30, 18 + (width - MIN_WIDTH) // 4)
        centre_x = side_w + 1
        centre_w = width - 2 * side_w - 2
        mid_top, mid_bottom = 2, height - 7
        seats = view.seats
        common = (size, lang, face, view.viewer, view.dealer, view.rules,
                  view.phase is Phase.BUY)
        region = self._region
        left, across, right = (me + 3) % 4, (me + 2) % 4, (me + 1) % 4
        # the players' names by their seats (your own only when you watch)
        names: list[str] = list(update.names) if len(update.names) == 4 else [""] * 4
        if view.viewer is not None:
            names[view.viewer] = ""

        timer = _timer_state(update, ui.now)
        status_key = (size, lang, me, view.rules, view.hand_no, update.hands_per_game,
                      view.dealer, view.remaining, view.phase, view.my_move, view.current, timer)
        pitch = small_width(face) + 1
        per_row = max(1, centre_w // pitch)
        pond_rows = max(2, min(4, -(-24 // per_row)))
        # each centre pond has a caption row naming its seat; a dim rule on each side of the
        # centre keeps the side seats' discards apart from the centre's
        across_pond_y = mid_top + 1
        my_pond_y = mid_bottom - pond_rows + 1

        parts = [
            region("status", status_key, size, lambda c: _status_row(c, update, ui, me, timer)),
            region("across", (common, seats[across], _acting(view, across), names[across]),
                   size, lambda c: _across_row(c, view, ui, across, 1, names[across])),
            region("left", (common, seats[left], _acting(view, left), names[left]), size,
                   lambda c: _side(c, view, ui, left, 0, side_w, mid_top, mid_bottom, False,
                                   names[left])),
            region("left-pond", (size, face, seats[left].pond, _last_flag(view, left),
                                 _side_pond_top(seats[left], mid_top)), size,
                   lambda c: _pond(c, view, left, 1, _side_pond_top(seats[left], mid_top),
                                   side_w - 1, mid_bottom - _side_pond_top(seats[left], mid_top)
                                   + 1, face)),
            region("right", (common, seats[right], _acting(view, right), names[right]), size,
                   lambda c: _side(c, view, ui, right, width - side_w, side_w, mid_top,
                                   mid_bottom, False, names[right])),
            region("right-pond", (size, face, seats[right].pond, _last_flag(view, right),
                                  _side_pond_top(seats[right], mid_top)), size,
                   lambda c: _pond(c, view, right, width - side_w + 1,
                                   _side_pond_top(seats[right], mid_top), side_w - 1,
                                   mid_bottom - _side_pond_top(seats[right], mid_top) + 1,
                                   face)),
            region("pond-across", (size, face, seats[across].pond, _last_flag(view, across)),
                   size, lambda c: _pond(c, view, across, centre_x, across_pond_y, centre_w,
                                         pond_rows, face)),
            region("pond-me", (size, face, seats[me].pond, _last_flag(view, me)), size,
                   lambda c: _pond(c, view, me, centre_x, my_pond_y, centre_w, pond_rows,
                                   face)),
        ]
        parts.append(region("frame", (common, me), size,
                            lambda c: _frame(c, view, ui, me, side_w, centre_x, centre_w,
                                             mid_top, mid_bottom, my_pond_y - 1)))
        waits = self._waits_hint(view, ui)
        top, bottom = across_pond_y + pond_rows, my_pond_y - 2
        flags = tuple((p.bought, p.lighter) for p in seats) if view.rules == "yichun" else ()
        centre_key = (common, view.dice, view.wild, view.wild_indicator,
                      view.kong_tiles, view.doudizhu, flags, ui.prompt, view.last_discard,
                      view.phase is Phase.ENDED, ui.message, waits,
                      ui.suggestion if ui.show_suggestion else None)
        parts.append(region("centre", centre_key, size,
                            lambda c: _draw_centre(c, _centre_lines(update, ui, me, waits,
                                                                    centre_w),
                                                   centre_x, centre_w, top, bottom)))

        tiles = hand_tiles(view)
        cursor = max(0, min(ui.cursor, len(tiles) - 1)) if tiles else -1
        selecting = view.my_move and view.phase is Phase.TURN and ui.prompt is None
        mine = seats[me]
        parts.append(region("me", (common, mine, _acting(view, me), names[me]), size,
                            lambda c: _me_row(c, view, ui, me, height - 6, names[me])))
        parts.append(region("hand", (size, face, lang, view.hand, view.drawn, view.wild, cursor,
                                     selecting, mine.melds), size,
                            lambda c: _hand(c, view, ui, me, tiles, cursor, selecting,
                                            height - 5)))
        prompt = ui.prompt
        if prompt is not None:
            act_key: object = (size, prompt, ui.selected)
        else:
            my_turn = view.my_move and view.phase is Phase.TURN and bool(tiles)
            act_key = (size, lang, face, my_turn, view.my_move, view.phase is Phase.ENDED,
                       view.legal if my_turn else None, tiles[cursor] if my_turn else None,
                       tuple(ui.keys.items()), view.viewer is None, view.wild)
        parts.append(region("action", act_key, size,
                            lambda c: _action_row(c, view, ui, tiles, cursor, height - 2)))
        # choices too many for one row take the log's row too
        log_shown = prompt_rows(prompt, width) == 1
        parts.append(region("log", (size, lang, face, me, view.events, log_shown), size,
                            lambda c: self._log(c, view, ui, me, height - 1) if log_shown
                            else None))

        # assemble only the rows a changed region touches
        if size != self._size or len(parts) != len(self._order):
            dirty: set[int] | range = range(height)
            self._rows = [()] * height
        else:
            dirty = set()
            for new, old in zip(parts, self._order, strict=True):
                if new is not old:
                    dirty.update(new)
                    dirty.update(old)
        for y in dirty:
            spans: list[Span] = []
            for part in parts:
                row = part.get(y)
                if row:
                    spans.extend(row)
            spans.sort(key=_span_x)
            self._rows[y] = _row(spans)
        self._size = size
        self._order = parts
        return list(self._rows)

    # --- cached pieces ---------------------------------------------------------------------
    def _waits_hint(self, view: View, ui: UiState) -> list[Piece] | None:
        """The "waits" line; the winning tiles are worked out again only when the own hand
        (or the picked tile) changed, the unseen counts when a tile became visible."""
        if not ui.show_waits:
            return None
        tiles_key = (view.rules, view.phase in (Phase.BUY, Phase.ENDED), view.viewer,
                     view.hand, view.drawn,
                     ui.cursor if (len(view.hand) + (view.drawn is not None)) % 3 == 2 else -1,
                     view.seats[view.viewer or 0].melds, view.wild)
        if self._ready[0] != tiles_key:
            self._ready = (tiles_key, ready_hint(view, ui.cursor))
        ready = self._ready[1]
        if not ready[1]:
            return None
        key = (tiles_key, ui.lang, ui.face, view.seats, view.wild_indicator, view.kong_tiles)
        if self._waits[0] != key:
            self._waits = (key, waits_pieces(view, ui, ready))
        return self._waits[1]

    def _event(self, e: Event, me: int | None, lang: str, face: Face
               ) -> tuple[list[Span] | None, int]:
        """An event of the log as spans relative to its start, and its width (cached)."""
        style = (me, lang, face)
        if style != self._events_style:
            self._events.clear()
            self._events_style = style
        hit = self._events.get(id(e))
        if hit is not None and hit[0] is e:
            self._events_now[id(e)] = hit
            return hit[1], hit[2]
        pcs = event_pieces(e, me, lang, face)
        spans: list[Span] | None = None
        w = 0
        if pcs is not None:
            spans = []
            for text, st in pcs:
                if text:
                    spans.append((w, text, st))
                    w += cell_len(text)
        self._events_now[id(e)] = (e, spans, w)
        return spans, w

    def _log(self, c: Canvas, view: View, ui: UiState, me: int, y: int) -> None:
        """The latest moves on the last row, oldest first, the newest always shown. New moves
        are added at the right; only when one no longer fits does the row start again with
        the moves that fill half of it. A row that scrolled at every move was written whole
        to every screen at every move; now most moves write just their own cells."""
        width = c.width - 2
        # only the events drawn now are kept for the next log: a cache of every event of the
        # hand (in each session) was a tenth of what the collector's middle generation scanned
        self._events_now = {}
        events = view.events
        first = self._log_first
        start = -1
        if first is not None:
            for i in range(len(events) - 1, -1, -1):
                if events[i] is first:
                    start = i
                    break
        found = start >= 0
        chosen: list[tuple[list[Span], int]] = []
        if found:  # the row so far, and the moves since, if they still fit
            used = 0
            for e in events[start:]:
                spans, w = self._event(e, view.viewer, ui.lang, ui.face)
                if spans is None:
                    continue
                used += w + 3
                chosen.append((spans, w))
            if used - 3 > width:
                chosen, start = [], -1
        if start < 0:  # start again: as many as fit (half the row after an overflow)
            room = width // 2 if found else width
            used = 0
            start = len(events)
            for i in range(len(events) - 1, -1, -1):
                spans, w = self._event(events[i], view.viewer, ui.lang, ui.face)
                if spans is None:
                    continue
                if (chosen and used + w + 3 > room) or used + w > width:
                    break
                chosen.append((spans, w))
                used += w + 3
                start = i
            chosen.reverse()
        self._log_first = events[start] if start < len(events) else None
        self._events, self._events_now = self._events_now, {}
        out: list[Span] = []
        x = 1
        for i, (spans, w) in enumerate(chosen):
            if i:
                span = (x, " · ", "dim")
                out.append(_interned(span, span))
                x += 3
            for dx, text, st in spans:
                span = (x + dx, text, st)
                out.append(_interned(span, span))
            x += w
        if out and 0 <= y < c.height:
            c.rows.setdefault(y, []).extend(out)


def _span_x(span: Span) -> int:
    return span[0]


def _last_flag(view: View, seat: int) -> bool:
    """Whether ``seat``'s newest discard is the highlighted latest discard."""
    last = view.last_discard
    return last is not None and last[0] == seat and view.phase in (
        Phase.CLAIM, Phase.DECLARE, Phase.TURN, Phase.ENDED)


def _timer_state(update: TableUpdate, now: float) -> tuple[int, int, bool] | None:
    """(full cells of the bar, seconds shown, low) of the timer, or None."""
    if update.deadline is None or update.timer_seconds <= 0:
        return None
    left = max(0.0, update.deadline - now)
    frac = min(1.0, left / update.timer_seconds)
    return round(frac * TIMER_BAR), int(left + 0.999), frac < 0.3


TIMER_BAR = 10


def next_timer_change(update: TableUpdate, now: float) -> float | None:
    """The ``time.monotonic()`` after ``now`` at which :func:`_timer_state` next changes (a
    second shown, a cell of the bar, the low colour), or None when the timer is off or ran
    out."""
    if update.deadline is None or update.timer_seconds <= 0:
        return None
    left = update.deadline - now
    if left <= 0:
        return None
    total = update.timer_seconds
    state = _timer_state(update, now)
    assert state is not None
    full, secs, low = state
    # the largest ``left`` below the current one at which each part differs
    marks = [secs - 0.999]  # int(left + 0.999) drops below secs
    if full > 0:
        marks.append((full - 0.5) * total / TIMER_BAR)  # round(frac * TIMER_BAR) drops
    if not low:
        marks.append(0.3 * total)  # frac < 0.3
    below = [m for m in marks if m < left]
    mark = max(below) if below else 0.0
    return update.deadline - max(0.0, mark) + 0.002


def _too_small(c: Canvas, lang: str, waits: bool = True, watching: bool = False) -> None:
    """The notice over a terminal too small for the table: whether the game waits, or plays
    on with the player's timer running (a shared table), or just plays on (a spectator)."""
    key = "too_small_watch" if watching else "too_small" if waits else "too_small_live"
    text = tr(lang, key, w=c.width, h=c.height)
    lines = wrap_cells(text, max(10, c.width - 2))
    top = max(0, (c.height - len(lines)) // 2)
    for i, ln in enumerate(lines):
        c.put(max(0, (c.width - cell_len(ln)) // 2), top + i, ln, "notice")


_WRAP_UNITS = re.compile(r"[^\s\u2e80-\uffef]+|[\u2e80-\uffef]|\s+")
_NO_LINE_START = frozenset("。，、）」』】！？：；")  # CJK punctuation that closes


def wrap_cells(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken between words (and between CJK
    characters, which need no space; closing CJK punctuation never starts a line); a word
    longer than a line is cut."""
    lines: list[list[str]] = []
    line: list[str] = []
    used = 0
    for unit in _WRAP_UNITS.findall(text):
        if unit.isspace():
            if line and used < width:
                line.append(" ")
                used += 1
            continue
        while cell_len(unit) > width:  # a word wider than the line: cut it
            if "".join(line).strip():
                lines.append(line)
            cut = 0
            while cell_len(unit[:cut + 1]) <= width:
                cut += 1
            lines.append([unit[:cut]])
            unit = unit[cut:]
            line, used = [], 0
        w = cell_len(unit)
        if used + w > width:
            carried: list[str] = []
            if unit in _NO_LINE_START:  # the word or character before goes down with it
                while len(line) > 1:
                    carried.insert(0, line.pop())
                    if carried[0] not in _NO_LINE_START and not carried[0].isspace():
                        break
                if sum(cell_len(u) for u in carried) + w > width:
                    line += carried  # too long to carry: the punctuation starts the line
                    carried = []
            lines.append(line)
            line = carried
            used = sum(cell_len(u) for u in line)
        line.append(unit)
        used += w
    lines.append(line)
    out = ["".join(units).rstrip() for units in lines]
    return [ln for ln in out if ln] or [""]


def _status_row(c: Canvas, update: TableUpdate, ui: UiState, me: int,
                timer: tuple[int, int, bool] | None) -> None:
    view, lang = update.view, ui.lang
    parts = [
        rules_title(view.rules, lang),
        tr(lang, "hand_no", n=view.hand_no, of=update.hands_per_game or "?"),
        tr(lang, "dealer", seat=seat_wind(view.dealer, lang)),
        tr(lang, "wall", n=view.remaining),
    ]
    if view.phase is Phase.ENDED:
        turn = tr(lang, "ended")
    elif view.my_move and view.phase in (Phase.TURN, Phase.DECLARE):
        turn = tr(lang, "your_turn")
    elif view.phase in (Phase.TURN, Phase.DECLARE) and view.current is not None:
        turn = tr(lang, "turn_of", who=seat_label(view.viewer, view.current, lang))
    elif view.phase is Phase.CLAIM:
        turn = tr(lang, "claims")
    elif view.phase is Phase.ROB:
        turn = tr(lang, "rob")
    else:
        turn = tr(lang, "buy_phase")
    x = 0
    for text in parts:
        x = c.put(x, 0, " " + text + " ", "status")
        x = c.put(x, 0, "│", "status-dim")
    x = c.put(x, 0, " " + turn + " ", "status-em" if view.my_move else "status")
    # timer bar at the right end
    right = c.width
    if timer is not None:
        full, left_s, low = timer
        bar_w = TIMER_BAR
        secs = f" {left_s:>2d}s "
        start = right - bar_w - cell_len(secs) - 2
        x2 = c.put(start, 0, "⏱ ", "status")
        x2 = c.put(x2, 0, "█" * full, "timer-low" if low else "timer")
        x2 = c.put(x2, 0, "░" * (bar_w - full), "timer-empty")
        x2 = c.put(x2, 0, secs, "status")
        right = start
    if x < right:
        c.put(x, 0, " " * (right - x), "status")


def _across_row(c: Canvas, view: View, ui: UiState, seat: int, y: int,
                name: str = "") -> None:
    lang, face = ui.lang, ui.face
    p = view.seats[seat]
    head: list[Piece] = []
    acting = _acting(view, seat)
    head.append(("▶" if acting else " ", "turn-mark"))
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
    room = c.width - total - 1  # the name takes what is left, up to 16 cells
    if name and room >= 2:
        shown = " " + fit_cells(name, min(16, room))
        head.insert(2, (shown, "text"))
        total += cell_len(shown)
    x = max(0, (c.width - total) // 2)
    x = c.pieces(x, y, head)
    c.pieces(x, y, melds)


def _side(
    c: Canvas, view: View, ui: UiState, seat: int, x0: int, w: int, top: int, bottom: int,
    pond: bool = True, name: str = "",
) -> None:
    """An opponent at the side: seat, player's name, score, tiles and flags, melds, then
    (``pond``) the discards."""
    lang, face = ui.lang, ui.face
    p = view.seats[seat]
    acting = _acting(view, seat)
    x = c.put(x0, top, "▶" if acting else " ", "turn-mark")
    x = c.put(x, top, seat_label(view.viewer, seat, lang), "label-turn" if acting else "label")
    score = _score(p)
    score_x = x0 + w - cell_len(score) - 1
    if name:
        c.put(x + 1, top, fit_cells(name, score_x - x - 2), "text")
    c.put(score_x, top, score, "score")
    line: list[Piece] = [(" " + tr(lang, "tiles_left", n=_held(p)), "dim")] if (
        view.phase is not Phase.BUY) else []
    for piece in seat_flags(view, p, lang):
        line.append((" ", "text"))
        line.append(piece)
    while pieces_width(line) > w and len(line) > 1:
        line.pop()
    c.pieces(x0, top + 1, line)
    y = top + 2
    for m in p.melds:
        pcs = meld_pieces(m, face, lang)
        if pieces_width(pcs) + 1 > w:
            pcs = meld_pieces(m, face, lang, dense=True)
        c.pieces(x0 + 1, y, pcs)
        y += 1
    if pond:
        y += 1 if p.melds else 0
        _pond(c, view, seat, x0 + 1, y, w - 1, bottom - y + 1, face)


def _frame(c: Canvas, view: View, ui: UiState, me: int, side_w: int, x0: int, w: int,
           top: int, bottom: int, my_caption_y: int) -> None:
    """The rules between the sides and the centre, and the captions of the centre ponds."""
    for y in range(top, bottom + 1):
        c.put(side_w, y, "│", "dim")
        c.put(c.width - side_w - 1, y, "│", "dim")
    for seat, y in (((me + 2) % 4, top), (me, my_caption_y)):
        text = tr(ui.lang, "pond_of", who=seat_label(view.viewer, seat, ui.lang))
        tw = cell_len(text)
        c.put(x0 + max(0, (w - tw) // 2), y, set_cell_size(text, min(w, tw)), "dim")


def _side_pond_top(p: SeatPublic, top: int) -> int:
    return top + 2 + len(p.melds) + (1 if p.melds else 0)


def _pond(
    c: Canvas, view: View, seat: int, x0: int, y0: int, w: int, rows: int, face: Face
) -> None:
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
    if start:
        c.put(x0 - 1, y0, "…", "dim")


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


def _wrap_pieces(pieces: Sequence[Piece], w: int) -> list[list[Piece]]:
    """``pieces`` as lines at most ``w`` cells wide, broken only at a lone space piece (which
    the new line drops); a part wider than ``w`` is left to be clipped."""
    lines: list[list[Piece]] = [[]]
    used = 0
    part: list[Piece] = []
    for pc in [*pieces, (" ", "")]:  # the last space ends the last part
        if pc[0] != " " or not part:
            part.append(pc)
            continue
        pw = pieces_width(part)
        if lines[-1] and used + pw > w:
            part = part[1:] if part[0][0] == " " else part
            lines.append([])
            used = 0
            pw = pieces_width(part)
        lines[-1].extend(part)
        used += pw
        part = [pc]
    return lines


WAITS_LINES = 3  # the most lines the winning tiles take in the centre


def _centre_lines(update: TableUpdate, ui: UiState, me: int,
                  waits: list[Piece] | None, width: int) -> tuple[tuple[Piece, ...], ...]:
    """The centre's lines, ``width`` cells wide; the winning tiles wrapped on at most
    :data:`WAITS_LINES` lines."""
    view, lang, face = update.view, ui.lang, ui.face
    lines: list[list[Piece]] = []
    # the wall count is on the status line only: here it would repaint a row on every draw
    lines.append([(tr(lang, "dice", n=view.dice), "info")])
    if view.rules == "shangrao" and view.wild is not None and view.wild_indicator is not None:
        h, _, rest = tr(lang, "wild", wild="\0", ind="\1").partition("\0")
        mid, _, tail = rest.partition("\1")
        lines.append([(h, "info"), (small(view.wild, face).rstrip(), tile_style(view.wild, "wild")),
                      (mid, "info"), *tile_pieces([view.wild_indicator], face), (tail, "info")])
    elif view.rules == "gejiu" and view.kong_tiles:
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
    elif view.rules == "yichun":
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
        lines.append([(_keys_hint(ui), "dim")])
    elif view.last_discard is not None and view.phase is not Phase.ENDED:
        seat, kind = view.last_discard
        h, _, tail = tr(lang, "ev_discard", who=seat_label(view.viewer, seat, lang),
                        tile="\0").partition(
            "\0")
        lines.append([])
        lines.append([(h, "info"), *tile_pieces([kind], face), (tail, "info")])
    if ui.message:
        lines.append([(ui.message, "error")])
    if waits:
        lines.extend(_wrap_pieces(waits, width)[:WAITS_LINES])
    if ui.show_suggestion and ui.suggestion is not None:
        h, _, tail = tr(lang, "suggest", tile="\0").partition("\0")
        lines.append([(h, "hint"), *tile_pieces([ui.suggestion], face), (tail, "hint")])
    return tuple(tuple(ln) for ln in lines)


def _draw_centre(c: Canvas, lines: Sequence[Sequence[Piece]], x0: int, w: int, top: int,
                 bottom: int) -> None:
    avail = bottom - top + 1
    if len(lines) > avail:  # the spacing lines go first
        lines = [ln for ln in lines if ln]
    lines = lines[:avail]
    # placed as if there were at least six lines: a line coming or going (a message, the
    # waits) does not move the others
    y = top + max(0, (avail - max(len(lines), 6)) // 2)
    for ln in lines:
        wdt = pieces_width(ln)
        if wdt > w:
            ln = _clip_pieces(ln, w)
            wdt = pieces_width(ln)
        c.pieces(x0 + max(0, (w - wdt) // 2), y, ln)
        y += 1


def _clip_pieces(pieces: Sequence[Piece], w: int) -> list[Piece]:
    out: list[Piece] = []
    used = 0
    for text, style in pieces:
        tw = cell_len(text)
        if used + tw > w:
            rest = w - used
            if rest > 0:
                out.append((set_cell_size(text, rest), style))
            break
        out.append((text, style))
        used += tw
    return out


def _keys_hint(ui: UiState) -> str:
    return tr(ui.lang, "prompt_keys")


def _key(ui: UiState, binding: str, default: str) -> str:
    return ui.keys.get(binding, default)


def _me_row(c: Canvas, view: View, ui: UiState, me: int, y: int, name: str = "") -> None:
    lang = ui.lang
    p = view.seats[me]
    acting = _acting(view, me)
    x = c.put(0, y, "▶" if acting else " ", "turn-mark")
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


def _hand(c: Canvas, view: View, ui: UiState, me: int, tiles: list[Kind], cursor: int,
          selecting: bool, y_top: int) -> None:
    """The own hand (two rows of big tiles), the index keys under it, the own melds."""
    lang, face = ui.lang, ui.face
    p = view.seats[me]
    y_bot, y_idx = y_top + 1, y_top + 2
    n_hand = len(view.hand)
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
            c.put(x + (BIG_WIDTH - 1) // 2, y_idx, label,
                  "index-sel" if i == cursor and selecting else "index")
        x += pitch
    x += 2
    for m in p.melds:
        pcs = meld_pieces(m, face, lang)
        end = c.pieces(x, y_top, pcs)
        label = m.type.zh
        c.put(x, y_bot, label, "dim")
        x = end + 3


def _action_row(c: Canvas, view: View, ui: UiState, tiles: list[Kind], cursor: int,
                y_act: int) -> None:
    prompt = ui.prompt
    if prompt is not None:
        x = 1
        for i, ch in enumerate(prompt.choices):
            sel = i == ui.selected
            if x > 1 and x + choice_width(ch) > c.width - 1:  # go on on the log's row
                if y_act + 1 >= c.height:
                    break
                x, y_act = 1, y_act + 1
            x = c.put(x, y_act, "[" if sel else " ", "choice-sel" if sel else "text")
            for text, style in ch.label:
                x = c.put(x, y_act, text, style + "+sel" if sel and style.startswith("tile")
                          else ("choice-sel" if sel else style))
            x = c.put(x, y_act, "]" if sel else " ", "choice-sel" if sel else "text")
            x = c.put(x, y_act, " ", "text")
    else:
        c.pieces(1, y_act, _action_hints(view, ui, tiles, cursor))


def choice_width(ch: Choice) -> int:
    """Cells a choice takes on the action row (brackets and the gap included)."""
    return pieces_width(ch.label) + 3


def prompt_rows(prompt: Prompt | None, width: int) -> int:
    """Rows the choices of ``prompt`` take at ``width`` (1, or 2 when they take the log's)."""
    if prompt is None:
        return 1
    return 1 if 1 + sum(choice_width(ch) for ch in prompt.choices) <= width - 1 else 2


def _action_hints(view: View, ui: UiState, tiles: list[Kind], cursor: int) -> list[Piece]:
    lang, face = ui.lang, ui.face
    out: list[Piece] = []

    def add(text: str, style: str = "keyhint") -> None:
        if out:
            out.append((" · ", "dim"))
        out.append((text, style))

    if view.my_move and view.phase is Phase.TURN and tiles:
        types = {a.type for a in view.legal}
        kind = tiles[cursor]
        h, _, tail = tr(lang, "k_discard", tile="\0").partition("\0")
        out.append((h.replace("Enter", _key(ui, "confirm", "Enter")), "keyhint"))
        out += tile_pieces([kind], face)
        if tail:
            out.append((tail, "keyhint"))
        if kind == view.wild:  # Shangrao: a wild thrown doubles this player's win and payments
            out.append((" " + tr(lang, "k_fly"), "flag-em"))
        if ActionType.WIN in types:
            add(tr(lang, "k_win"), "keyhint-win")
        if types & {ActionType.ANGANG, ActionType.BUGANG}:
            add(tr(lang, "k_kong"))
        if any(a.ting for a in view.legal):
            add(tr(lang, "k_ting"))
    elif view.viewer is None:
        add(tr(lang, "watching"), "dim")
    elif not view.my_move and view.phase is not Phase.ENDED:
        add(tr(lang, "wait_others"), "dim")
    add(tr(lang, "k_help"))
    add(tr(lang, "k_face"))
    return out


def event_pieces(e: Event, me: int | None, lang: str, face: Face) -> list[Piece] | None:
    et = e.type
    if et in (EventType.DRAW, EventType.DEAL, EventType.REPLACEMENT):
        return None
    who = relative_name(me, e.seat, lang) if e.seat is not None else ""
    key = "ev_" + et.value
    if key not in _EVENT_KEYS:
        return None
    tile_field = "\0"
    text = tr(lang, key, who=who, tile=tile_field, tiles=tile_field)
    head, _, tail = text.partition("\0")
    out: list[Piece] = [(head, "log")]
    if "\0" in text:
        if et is EventType.CHI and e.tiles:
            out += tile_pieces(sorted(e.tiles), face, mark=e.tile)
        elif e.tile is not None:
            out += tile_pieces([e.tile], face)
        out.append((tail, "log"))
    return out


_EVENT_KEYS = {
    "ev_buy", "ev_no_buy", "ev_lighter", "ev_wild", "ev_discard", "ev_ting", "ev_chi",
    "ev_peng", "ev_minggang", "ev_angang", "ev_bugang", "ev_robbed", "ev_win", "ev_pond_win",
    "ev_jiebao", "ev_four_wilds", "ev_exhausted",
}
