"""Which cells of a table row changed from one frame to the next (tui.view.table writes only
those): the stretch from the first changed cell to the last, less what both rows share at its
ends, its runs of unchanged blanks and the runs of unchanged spans worth a cursor move."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len

from tui.view.canvas import Row, Span

# blanks left as they are inside a row's changed cells are skipped with a cursor move from
# this many on: a move takes at most 9 bytes and a cell at least 1
SKIP = 10


def _one_cell_each(text: str) -> bool:
    """Whether every character of ``text`` takes one cell (so characters and cells line up)."""
    if text.isascii():
        return text.isprintable()
    hit = _ONE_CELL.get(text)
    if hit is None:
        hit = all(cell_len(c) == 1 for c in text)
        if len(_ONE_CELL) > 4096:
            _ONE_CELL.clear()
        _ONE_CELL[text] = hit
    return hit


_ONE_CELL: dict[str, bool] = {}


def _blank_tail(spans: Sequence[Span], ends: list[int], high: int) -> tuple[int, str] | None:
    """Where the cells before ``high`` that are blanks of one style begin (a gap between
    ``spans``, which end at ``ends``, is blanks of the base style, ``text``), and that style;
    None if the cell before ``high`` is no blank. The spans do not overlap and end by
    ``high``."""
    pos = high
    style: str | None = None
    for k in range(len(spans) - 1, -1, -1):
        _, text, key = spans[k]
        end = ends[k]
        if end < pos:  # a gap
            if style not in (None, "text"):
                break
            style = "text"
            pos = end
        if not text:
            continue
        if style not in (None, key):
            break
        blank = text.rstrip(" ")
        if len(blank) == len(text):
            break
        style = key
        pos = end - (len(text) - len(blank))  # the spaces it ends with are one cell each
        if blank:
            break
    return None if style is None else (pos, style)


def _blank_head(spans: Sequence[Span], ends: list[int], low: int) -> tuple[int, str] | None:
    """Where the cells from ``low`` on that are blanks of one style end (as
    :func:`_blank_tail`, from the other side), and that style; None if the cell at ``low``
    is no blank."""
    pos = low
    style: str | None = None
    for k, (x, text, key) in enumerate(spans):
        if x > pos:  # a gap
            if style not in (None, "text"):
                break
            style = "text"
            pos = x
        if not text:
            continue
        if style not in (None, key):
            break
        blank = text.lstrip(" ")
        if len(blank) == len(text):
            break
        style = key
        pos = ends[k] if not blank else x + len(text) - len(blank)
        if blank:
            break
    return None if style is None else (pos, style)


def changed_stretches(old: Row, new: Row, width: int
                      ) -> list[tuple[int, int, list[Span]]] | None:
    """The cells of ``new`` that differ from ``old``, as stretches (first cell, end, spans):
        the stretch from the first changed cell to the last, gaps as the base style, less its
        runs of blanks of one style in both rows (of :data:`SKIP` cells or more). A span in
        both rows at the same place is unchanged; the first and last changed spans, when
        rewritten in place (the same start and style: a status line, a count), change only
        from their first differing character and to their last; blanks of one style up to
        the stretch's end in both rows (a line padded to the row's end that got shorter or
        longer) stay, also when no span of the two rows is the same (a prompt line that got
        shorter). None when the whole row must be written (spans that overlap or run past
        ``width``). A run of spans unchanged inside a stretch is skipped where its cells and
        colour changes cost more than a cursor move (:func:`_split_at_kept`); other unchanged
        cells inside the stretch are written again."""
    n_old, n_new = len(old), len(new)
    head = 0
    limit = min(n_old, n_new)
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[n_old - 1 - tail] == new[n_new - 1 - tail]:
        tail += 1
    # the changed cells: from where the first differing span (old or new) starts, or the
    # common head ends, to where the common tail starts, or the row ends
    if head:
        x, text, _ = new[head - 1]
        start = x + cell_len(text)
    else:
        start = 0
    end = new[n_new - tail][0] if tail else width
    if end > width or start >= end:
        return None
    old_mid = old[head:n_old - tail]
    new_mid = list(new[head:n_new - tail])  # its first and last changed span narrowed
    # where each side's spans end, checked for overlaps and the bounds
    old_ends: list[int] = []
    new_ends: list[int] = []
    for spans, ends in ((old_mid, old_ends), (new_mid, new_ends)):
        pos = start
        for x, text, _ in spans:
            if x < pos:
                return None
            pos = x + cell_len(text)
            ends.append(pos)
        if pos > end:
            return None
    # blanks of one style up to the stretch's end in both rows stay (a line padded to the
    # row's end that got shorter or longer)
    old_tail = _blank_tail(old_mid, old_ends, end)
    new_tail = _blank_tail(new_mid, new_ends, end) if old_tail is not None else None
    blank_from = end
    if old_tail is not None and new_tail is not None and old_tail[1] == new_tail[1]:
        blank_from = max(old_tail[0], new_tail[0])
    old_head = _blank_head(old_mid, old_ends, start)
    new_head = _blank_head(new_mid, new_ends, start) if old_head is not None else None
    blank_to = start
    if old_head is not None and new_head is not None and old_head[1] == new_head[1]:
        blank_to = min(old_head[0], new_head[0])
    # spans at the same place in both rows stay: the changed cells are those of the
    # others, old (to clear) and new, from the first one's start to the last one's end
    kept = set(old_mid).intersection(new_mid) if old_mid and new_mid else set()
    first, last = end, start
    marks: list[tuple[int, int] | None] = []  # per side: its first and last changed span
    # per side: its changed spans of spaces, and its gaps (of SKIP cells or more)
    blanks: list[list[tuple[int, int, str]]] = [[], []]
    sides: tuple[tuple[Sequence[Span], list[int]], ...] = (
        (old_mid, old_ends), (new_mid, new_ends))
    for side, (side_spans, ends) in enumerate(sides):
        lo = hi = -1
        pos = start
        for k, span in enumerate(side_spans):
            if span[0] - pos >= SKIP:  # a gap: blanks of the base style
                blanks[side].append((pos, span[0], "text"))
            pos = ends[k]
            if span[1] and span not in kept:
                if lo < 0:
                    lo = k
                hi = k
                if not span[1].strip(" "):
                    blanks[side].append((span[0], ends[k], span[2]))
        if end - pos >= SKIP:
            blanks[side].append((pos, end, "text"))
        if lo < 0:
            marks.append(None)
            continue
        marks.append((lo, hi))
        first = min(first, side_spans[lo][0])
        last = max(last, ends[hi])
    old_marks, new_marks = marks
    if old_marks is not None and new_marks is not None:
        # a span rewritten in place (the same start and style: a status line, a count)
        # changes from its first differing character, and to its last when as long
        (o1, o2), (n1, n2) = old_marks, new_marks
        ox, otext, okey = old_mid[o2]
        nx, ntext, nkey = new_mid[n2]
        if ox == nx and okey == nkey and old_ends[o2] == new_ends[n2] == last \
                and len(otext) == len(ntext) and _one_cell_each(ntext) \
                and _one_cell_each(otext):
            q = len(ntext)
            while q > 0 and ntext[q - 1] == otext[q - 1]:
                q -= 1
            last = nx + q
            new_mid[n2] = (nx, ntext[:q], nkey)
            new_ends[n2] = last
        ox, otext, okey = old_mid[o1]
        nx, ntext, nkey = new_mid[n1]
        if ox == nx == first and okey == nkey and _one_cell_each(ntext) \
                and _one_cell_each(otext):
            n = min(len(ntext), len(otext))
            p = 0
            while p < n and ntext[p] == otext[p]:
                p += 1
            first = nx + p
            new_mid[n1] = (first, ntext[p:], nkey)
    last = min(last, blank_from)
    first = max(first, blank_to)
    if first >= last:
        return None
    # the stretches of blanks of one style in both rows, inside, are skipped (a status line's
    # padding when the timer comes or goes; a hand's result over the table's felt)
    skips: list[tuple[int, int]] = []
    if blanks[0] and blanks[1]:
        for ox, oend, okey in blanks[0]:
            for nx, nend, nkey in blanks[1]:
                a, b = max(ox, nx, first), min(oend, nend, last)
                if okey == nkey and b - a >= SKIP:
                    skips.append((a, b))
        skips.sort()
    bounds: list[tuple[int, int]] = []
    a = first
    for skip_from, skip_to in skips:  # disjoint: one side's spans do not overlap
        bounds.append((a, skip_from))
        a = skip_to
    bounds.append((a, last))
    stretches: list[tuple[int, int, list[Span]]] = []
    for a, b in bounds:
        if a >= b:
            continue
        shown: list[Span] = []
        for (x, text, key), stop in zip(new_mid, new_ends, strict=True):
            if stop <= a:
                continue
            if x >= b:
                break
            cut_head = a - x if x < a else 0  # only a blank span is cut at the start
            over = stop - b  # past the part: the blanks it ends with
            shown.append((x + cut_head, text[cut_head:len(text) - over] if over > 0
                          else text[cut_head:], key))
        if kept:
            _split_at_kept(a, b, shown, kept, stretches)
        else:
            stretches.append((a, b, shown))
    return stretches


# a run of unchanged spans inside a stretch is skipped (a cursor move, 6-9 bytes) when its
# cells and the colour changes into and out of it (each ~10 bytes) are worth this much
SKIP_WORTH = 12
CODE_COST = 10


def _split_at_kept(a: int, b: int, shown: list[Span], kept: set[Span],
                   out: list[tuple[int, int, list[Span]]]) -> None:
    """Stretch ``a`` to ``b`` (``shown``) into ``out``, split around each run of spans the
    terminal shows already (``kept``: the same place, text and style in both rows) that costs
    more to write again than a cursor move past it: the status row's separator between the
    wall count and the turn, each in its own colour."""
    start = a
    piece: list[Span] = []
    n = len(shown)
    k = 0
    while k < n:
        span = shown[k]
        if piece and span in kept:
            x, text, key = span
            end = x + cell_len(text)
            j = k
            while j + 1 < n and shown[j + 1] in kept and shown[j + 1][0] == end:
                j += 1
                end += cell_len(shown[j][1])
            if j + 1 < n:  # a changed span after it (the stretch ends with one)
                last_x, last_text, _ = piece[-1]
                before = "text" if last_x + cell_len(last_text) < x else piece[-1][2]
                after = "text" if shown[j + 1][0] > end else shown[j + 1][2]
                worth = end - x + CODE_COST * ((before != key) + (shown[j][2] != after))
                if worth >= SKIP_WORTH:
                    out.append((start, x, piece))
                    start, piece, k = end, [], j + 1
                    continue
        piece.append(span)
        k += 1
    out.append((start, b, piece))
