"""The hand result, the game result and the help page as Textual markup.

Colours are theme variables only (``[$tile-man]``); these screens are not on the hot path.
A hand's result opens with its summary (the changes, the new totals, who paid whom), which
fits the first screen at 80×24; below it every pattern and modifier of the settlement with its
Chinese and English name and its value, and every transfer with its reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from rich.cells import cell_len
from textual.binding import Binding
from textual.content import Content
from textual.markup import escape

from engine.situation import ReasonPart, WinScore
from engine.tiles import Kind
from engine.view import MeldView
from host.client import TableUpdate
from host.coach import coach_table
from tui.view.cells import fit_cells, fit_name
from tui.view.faces import Face, small, suit_class
from tui.view.seat_rows import WILD_MARK, WILD_MARK_ASCII
from tui.words.rules_text import SUMMARIES
from tui.words.ruleset_title import rules_title
from words import TEXT, named_seat, seat_label, seat_wind, tr


def tile_markup(kind: Kind, face: Face, mark: bool = False, wild: bool = False) -> str:
    """A tile; ``mark``: the winning tile, ``wild``: Shangrao's 宝 (as the table shows it)."""
    var = "$tile-" + suit_class(kind).value
    style = (f"bold {var} on $tile-sel underline" if mark else
             f"bold {var} on $tile-wild underline" if wild else f"bold {var} on $tile-face")
    return f"[{style}]{escape(small(kind, face))}[/]"


def wild_mark(face: Face) -> str:
    """What follows a 宝 wild in a hand, as the table marks it under the tile (not by colour
    alone): ``宝``, ``*`` on an ASCII face."""
    return WILD_MARK_ASCII if face is Face.ASCII else WILD_MARK


def tiles_markup(kinds: Iterable[Kind], face: Face, mark: Kind | None = None,
                 wild: Kind | None = None) -> str:
    out = []
    marked = False
    for k in kinds:
        m = mark is not None and k == mark and not marked
        marked = marked or m
        out.append(tile_markup(k, face, m, k == wild)
                   + (f"[b]{wild_mark(face)}[/]" if k == wild else ""))
    return " ".join(out)


def tiles_width(kinds: Sequence[Kind], face: Face, wild: Kind | None = None) -> int:
    """Cells that :func:`tiles_markup` takes on screen (worked out, not parsed)."""
    marks = cell_len(wild_mark(face)) * sum(1 for k in kinds if k == wild)
    return sum(cell_len(small(k, face)) for k in kinds) + max(0, len(kinds) - 1) + marks


def meld_width(m: MeldView, face: Face, lang: str) -> int:
    """Cells that :func:`meld_markup` takes on screen."""
    if m.tiles is None:
        return 4
    src = f"←{seat_wind(m.source, lang)}" if m.source is not None else ""
    return cell_len(m.type.zh) + 2 + tiles_width(m.tiles, face) + cell_len(src)


def meld_markup(m: MeldView, face: Face, lang: str) -> str:
    if m.tiles is None:
        return "[$tile-back]▒▒▒▒[/]"
    src = f"←{seat_wind(m.source, lang)}" if m.source is not None else ""
    return f"{m.type.zh}({tiles_markup(m.tiles, face)}){escape(src)}"


def pad(text: str, cells: int) -> str:
    """``text`` (escaped) padded with spaces to ``cells`` terminal cells."""
    return escape(text) + " " * max(0, cells - cell_len(text))


NAME_CELLS = 12  # a player's name in a result, at most (cut with …)


def who_named(update: TableUpdate, p: int | str, lang: str) -> str:
    """A party of a result as the table names it: the seat and its player's name (cut to
    :data:`NAME_CELLS`), or a spectator's name."""
    if not isinstance(p, int):
        return str(p)
    names = tuple(fit_name(n, NAME_CELLS) for n in update.names)
    return named_seat(update.view.viewer, p, lang, names)


_TAG = re.compile(r"(?<!\\)\[(/?)[^\[\]\n]*\]")  # a markup tag, not an escaped "\["
_NOTHING = Content("")


def markup_chunks(text: str) -> list[str]:
    """``text`` cut where no markup tag is open: each piece is markup of its own (a tile,
    a styled word, plain text between them). One piece when the tags do not balance."""
    chunks: list[str] = []
    depth = 0
    start = 0
    for m in _TAG.finditer(text):
        if m.group(1):  # a closing tag
            depth -= 1
            if depth < 0:
                return [text]
            if depth == 0:
                chunks.append(text[start:m.end()])
                start = m.end()
        else:
            if depth == 0 and m.start() > start:
                chunks.append(text[start:m.start()])
                start = m.start()
            depth += 1
    if depth:
        return [text]
    if start < len(text):
        chunks.append(text[start:])
    return chunks


@lru_cache(maxsize=8192)
def _chunk_content(text: str) -> Content:
    return Content.from_markup(text)


@lru_cache(maxsize=4096)
def line_content(text: str) -> Content:
    """One line of markup as content. Parsing Textual's markup would be much of the CPU of
    showing a hand's result, and most lines differ between the four seats (each names the
    seats as the viewer sees them), so a line is parsed piece by piece (:func:`markup_chunks`)
    and each piece once per process: the tiles, the seat names and the labels repeat."""
    chunks = markup_chunks(text)
    if len(chunks) == 1:
        return _chunk_content(text)
    return _NOTHING.join([_chunk_content(chunk) for chunk in chunks])


def lines_content(lines: list[str]) -> Content:
    """Lines of markup (each complete: no tag runs on to the next line) as one content."""
    return Content("\n").join(line_content(line) for line in lines)


def wrap_plain(text: str, width: int, indent: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken before a ``×`` factor or else at a
    space; the lines after the first start with ``indent`` spaces (cells, never ``len``)."""
    lines: list[str] = []
    lead = len(text) - len(text.lstrip(" "))
    line = text[:lead]
    # break before a factor ("×2 买 W bought" stays together), else at any space
    units = re.split(r" (?=×)", text[lead:])
    words = [u for unit in units for u in (
        [unit] if cell_len(unit) <= width - indent else unit.split(" "))]
    for word in words:
        cand = f"{line} {word}" if line.strip() else line + word
        if line.strip() and cell_len(cand) > width:
            lines.append(line)
            line = " " * indent + word
        else:
            line = cand
    lines.append(line)
    return lines


def readable_why(why: Sequence[ReasonPart], face: Face, lang: str) -> str:
    """A payment's reason as the screen shows it: its words in ``lang`` (Chinese alone, or
    the rules' Chinese name with the English as the record has it), each meld as its tiles."""
    return "".join(
        part.reading(lang) if part.meld is None
        else "(" + " ".join(small(k, face).strip() for k in sorted(part.meld.tiles)) + ")"
        for part in why
    )


def hand_result_lines(update: TableUpdate, lang: str, face: Face,
                      width: int = 76) -> list[str]:
    """The hand result as markup lines no wider than ``width`` cells (long lines continue
    on an indented line).

    The summary comes first, compact enough for the first screen at 80×24 (24 rows, the
    last for the keys): who won and how, each seat's change and new total, who paid whom
    (summed by payer and payee); then the detail, which scrolls below: the hands, each
    win's patterns and modifiers, and every payment with its reason."""
    view = update.view
    res = view.result
    out: list[str] = [
        f"[b $turn]{escape(tr(lang, 'res_title', n=view.hand_no))} — "
        f"{escape(rules_title(view.rules, lang))}[/]",
    ]
    if res is None:
        out.append("")
        out.append(escape(tr(lang, "res_draw")))
        return out
    settlement = res.settlement
    if not settlement.wins:
        out.append(f"[b]{escape(tr(lang, 'res_draw'))}[/]")
    for w in settlement.wins:
        out.extend(f"[b $turn]{escape(part)}[/]"
                   for part in wrap_plain(_win_head(update, w, lang, True), width, 3))
    out.extend(_summary_lines(update, lang, width))
    out.append("")
    out.extend(_hands_lines(update, lang, face, width))
    for w in settlement.wins:
        out.append("")
        out.extend(f"[b $turn]{escape(part)}[/]"
                   for part in wrap_plain(_win_head(update, w, lang, False), width, 3))
        for item in w.items:
            text = f"   {escape(item.zh)} {escape(item.en)}  [b]{escape(item.value)}[/]"
            text_w = 6 + cell_len(item.zh) + cell_len(item.en) + cell_len(item.value)
            tiles = tiles_markup(item.tiles, face, wild=view.wild) if item.tiles else ""
            if tiles and text_w + 2 + tiles_width(item.tiles, face, view.wild) > width:
                out.append(text)
                out.append("      " + tiles)
            else:
                out.append(f"{text}  {tiles}" if tiles else text)
        out.append(f"   {escape(tr(lang, 'res_total', v=w.value))}")
    if settlement.transfers:
        out.append("")
        out.append(f"[b]{escape(tr(lang, 'res_why'))}[/]")
    for t in settlement.transfers:
        line = "   " + tr(lang, "res_pays", payer=who_named(update, t.payer, lang),
                          payee=who_named(update, t.payee, lang), amount=t.amount,
                          why=readable_why(t.reason, face, lang))
        out.extend(escape(part) for part in wrap_plain(line, width, 6))
    return out


def _win_head(update: TableUpdate, w: WinScore, lang: str, how: bool) -> str:
    """A win's heading: who won with what pattern and, with ``how``, how (self-drawn, on
    whose discard)."""
    view = update.view
    res = view.result
    pattern = f"{w.pattern_zh} {w.pattern_en}" if lang == "en" else w.pattern_zh
    head = tr(lang, "res_winner", who=who_named(update, w.seat, lang), pattern=pattern)
    if how and res is not None and res.how is not None:
        source = who_named(update, res.from_seat, lang) if res.from_seat is not None else "?"
        key = f"how_{res.how.value}"
        if res.from_seat is not None and res.from_seat == view.viewer and f"{key}_you" in TEXT:
            key += "_you"  # "on your discard", not "on You E's discard"
        head += " · " + tr(lang, key, who=source)
    return head


def _summary_lines(update: TableUpdate, lang: str, width: int) -> list[str]:
    """Each party's change and new total, one line each, the next dealer, then who paid whom:
    one item per payer and payee (their payments summed), several items a line."""
    view = update.view
    me = view.viewer
    assert view.result is not None
    settlement = view.result.settlement
    out = ["", f"[b]{escape(tr(lang, 'res_net'))} / {escape(tr(lang, 'res_totals'))}[/]"]
    parties = [who_named(update, s, lang) for s in range(4)]
    watchers = {fit_cells(name, NAME_CELLS): v for name, v in settlement.spectators.items()}
    col = max(8, *(cell_len(p) for p in parties), *(cell_len(n) for n in watchers))
    totals = update.totals if len(update.totals) == 4 else (0, 0, 0, 0)
    for s in range(4):
        star = "[b $turn]胡[/]" if s in view.result.winners else "  "
        out.append(f" {star} {pad(parties[s], col)} {settlement.seats[s]:+6d}   →  "
                   f"{totals[s]:+6d}")
    for name, v in watchers.items():
        out.append(f"    {pad(name, col)} {v:+6d}")
    if settlement.next_dealer is not None and not update.game_over:  # no next hand after the last
        out.append("    " + escape(tr(lang, "res_next_dealer",
                                      seat=who_named(update, settlement.next_dealer, lang))))
    out.append(f"[b]{escape(tr(lang, 'res_transfers'))}[/]")
    sums: dict[tuple[int | str, int | str], int] = {}
    for t in settlement.transfers:
        sums[t.payer, t.payee] = sums.get((t.payer, t.payee), 0) + t.amount

    def short(p: int | str) -> str:  # the seat alone: its player's name is on the line above
        return seat_label(me, p, lang) if isinstance(p, int) else fit_cells(p, NAME_CELLS)

    items = [tr(lang, "res_paid", payer=short(a), payee=short(b), amount=n)
             for (a, b), n in sums.items()]
    line = ""
    for item in items:
        cand = f"{line} · {item}" if line else f"    {item}"
        if line and cell_len(cand) > width:
            out.append(escape(line))
            line = f"    {item}"
        else:
            line = cand
    out.append(escape(line) if line else "    —")
    return out


def _hands_lines(update: TableUpdate, lang: str, face: Face, width: int) -> list[str]:
    """The four hands (the winners' marked 胡), their melds, the winning tile and the 宝."""
    view = update.view
    me = view.viewer
    res = view.result
    assert res is not None
    out = [f"[b]{escape(tr(lang, 'res_hands'))}[/]"]
    for s in range(4):
        winner = s in res.winners
        mark = res.win_tile if winner else None
        hand = tiles_markup(res.hands[s], face, mark, view.wild)
        melds = "  ".join(meld_markup(m, face, lang) for m in res.melds[s])
        star = "[b $turn]胡[/] " if winner else "   "
        head = f" {star}{pad(seat_label(me, s, lang), 8)} "
        head_w = 13
        hand_w = tiles_width(res.hands[s], face, view.wild)
        melds_w = sum(meld_width(m, face, lang) + 2 for m in res.melds[s]) - 2 if melds else 0
        if not melds or head_w + hand_w + 2 + melds_w <= width:
            out.append(f"{head}{hand}  {melds}".rstrip())
        else:
            out.append(f"{head}{hand}")
            line, used = "", 0
            for m in res.melds[s]:
                mk = meld_markup(m, face, lang)
                mw = meld_width(m, face, lang)
                if line and head_w + used + 2 + mw > width:
                    out.append(" " * head_w + line)
                    line, used = "", 0
                line = f"{line}  {mk}" if line else mk
                used += mw + (2 if used else 0)
            if line:
                out.append(" " * head_w + line)
    if res.win_tile is not None:
        label = escape(tr(lang, "res_win_tile"))
        out.append(f"    {label}: {tile_markup(res.win_tile, face, True)}")
    if view.wild is not None and view.wild_indicator is not None:  # Shangrao: what was 宝
        h, _, rest = tr(lang, "wild", wild="\0", ind="\1").partition("\0")
        mid, _, tail = rest.partition("\1")
        out.append(f"    {escape(h)}{tile_markup(view.wild, face, wild=True)}{escape(mid)}"
                   f"{tile_markup(view.wild_indicator, face)}{escape(tail)}")
    return out


def game_result_lines(update: TableUpdate, lang: str) -> list[str]:
    view = update.view
    me = view.viewer  # None: a spectator, who names seats by their winds
    out = [f"[b $turn]{escape(tr(lang, 'game_title', rules=rules_title(view.rules, lang)))}[/]", ""]
    labels = [seat_label(me, s, lang) for s in range(4)]
    won_by = escape(tr(lang, "game_won_by"))
    out.append(" " * 8 + "".join(" " * max(0, 10 - cell_len(x)) + escape(x) for x in labels)
               + f"   {won_by}")
    names = ["" if s == me or len(update.names) != 4 else fit_name(update.names[s], 9)
             for s in range(4)]
    if any(names):  # the players' names under their seats, as the table shows them
        out.append(" " * 8 + "".join(" " * max(0, 10 - cell_len(x)) + escape(x) for x in names))
    for h in update.history:
        who = " ".join(seat_wind(s, lang) for s in h.winners) or tr(lang, "drawn_short")
        row = pad(tr(lang, 'game_hand', n=h.hand_no), 8) + "".join(f"{v:>+10d}" for v in h.net)
        out.append(row + f"   {escape(who)}")
    totals = "".join(f"{v:>+10d}" for v in update.totals)
    out.append(pad(tr(lang, 'res_totals'), 8) + totals)
    top = max(update.totals)
    best = [s for s in range(4) if update.totals[s] == top]
    who = ", ".join(who_named(update, s, lang) for s in best)
    out.append("")
    key = "game_winner" if len(best) == 1 else "game_tied"
    out.append(f"[b $turn]{escape(tr(lang, key, who=who))}[/]")
    if coach_table(view.options):  # practice: its results change no rating
        out.append(escape(tr(lang, "coach_unrated")))
    if update.game_id:  # kept for replay by the server (net.game_id): shared by its ID
        out.append("")
        out.append(escape(tr(lang, "game_id", id=shown_game_id(update.game_id))))
    return out


def shown_game_id(game_id: str) -> str:
    """A game's ID as screens show it, two groups of four (``k7m2-x9qd``)."""
    return f"{game_id[:4]}-{game_id[4:]}" if len(game_id) == 8 else game_id


KEY_NAMES = {"question_mark": "?", "minus": "-", "equals_sign": "=", "left_square_bracket": "[",
             "right_square_bracket": "]", "slash": "/", "space": "Space", "enter": "Enter",
             "left": "←", "right": "→", "up": "↑", "down": "↓", "pageup": "PgUp",
             "pagedown": "PgDn", "home": "Home", "end": "End", "escape": "Esc", "tab": "Tab"}


def key_label(keys: str) -> str:
    """Textual's key names (``slash``, ``ctrl+q``) as the keyboard shows them (``/``,
    ``Ctrl+Q``), several joined by ``/``."""
    return "/".join(_key_name(k.strip()) for k in keys.split(","))


def _key_name(key: str) -> str:
    *mods, last = key.split("+")
    function = last[:1] == "f" and last[1:].isdigit()
    if last in KEY_NAMES:
        last = KEY_NAMES[last]
    elif function or (mods and len(last) == 1):
        last = last.upper()
    return "+".join([*(m.capitalize() for m in mods), last])


def help_lines(rules: str, lang: str, bindings: Sequence[Binding],
               keymap: dict[str, str], remappable: bool = True) -> list[str]:
    out = [
        f"[b $turn]{escape(tr(lang, 'help_title'))}[/]",
        "",
        f"[b]{escape(tr(lang, 'help_keys'))}[/]",
    ]
    picks = [b for b in bindings if (b.id or "").startswith("pick-")]
    scrolls = [b for b in bindings if (b.id or "").startswith("result-")]
    for b in bindings:
        if b in picks or b in scrolls:
            continue
        keys = keymap.get(b.id or "", b.key)
        out.append(f"   {escape(key_label(keys)):<14} {escape(b.description)}")
    if picks:
        keys = " ".join(key_label(keymap.get(b.id or "", b.key)) for b in picks)
        out.append(f"   {escape(keys)}  pick tile 1–14 选牌")
    if scrolls:
        keys = " ".join(key_label(keymap.get(b.id or "", b.key)) for b in scrolls)
        out.append(f"   {escape(keys)}  scroll a hand's result 翻看结算")
    if remappable:  # a settings file of one's own: where its binding ids are listed
        out.append("   [dim]" + escape(tr(lang, "set_keys")) + "[/]")
    out.append("")
    summary = SUMMARIES.get(rules)
    if summary is None:
        return out
    out.append(f"[b]{escape(tr(lang, 'help_rules', rules=rules_title(rules, lang)))}[/]")
    for head, rows in ((" [b]牌型 Patterns[/]", summary.patterns),
                       (" [b]名目 Modifiers[/]", summary.modifiers)):
        out.append(head)
        out.extend(f"   {escape(p.zh)}  {escape(p.en)}  [b]{escape(p.value)}[/]" for p in rows)
    out.append(" [b]支付 Payments[/]")
    out.extend("   " + escape(line)
               for line in (summary.payments_zh if lang == "zh" else summary.payments_en))
    return out


def game_wait_text(update: TableUpdate, lang: str) -> str:
    """Under the game result, once a seated player asked for a new game: whom it waits for
    (and, to a player not yet ready, that Enter plays again); "" before anyone asked."""
    view = update.view
    waiting = update.waiting_for
    if not update.game_over or not waiting:
        return ""
    me = view.viewer
    who = ", ".join(named_seat(me, s, lang, update.names) for s in waiting if s != me)
    if me is not None and me in waiting:  # this player has not answered yet
        return tr(lang, "game_asked") + (tr(lang, "game_asked_also", who=who) if who else "")
    return tr(lang, "waiting_for_game", who=who)
