"""A frame's colour codes written as changes from the terminal's current state.

Textual (Rich's ``Style.render``) writes every run of a style as ``ESC[<full SGR>m text
ESC[0m``: each run sets every attribute and colour anew and resets them after itself, so a
row of ten runs carries ten full codes and ten resets, often more bytes than its text. What a
terminal shows depends only on the state each character is drawn in, so :func:`compact`
rewrites a frame to set, before each character, the same state with fewer bytes:

* a reset is held back until something needs it: the next run's codes are then written as the
  difference from the state the terminal is actually in (``ESC[97;100m`` → ``ESC[37m`` when only
  the foreground changes, ``ESC[22m`` to end bold), or as a reset and the full codes where that
  is shorter; a run in the state the terminal is already in gets no code at all;
* only cursor moves (``CUP`` and the relative moves) and the synchronized-update and cursor
  visibility modes pass a held reset: text, erases (which fill with the current background)
  and any other sequence get it first, so they see the state Textual meant;
* the frame ends in the reset state whenever Textual's would (a held reset is written at the
  end), so what is written next, by Textual or by the table's own writer, starts from the state
  it assumes: Rich writes unstyled text with no code at all, taking the reset state as given.

The state at a frame's start is taken as unknown: codes are passed as they are until a reset
makes it known. Codes this module does not model (any SGR parameter it does not know) are
passed as they are and make the state unknown again. It never writes more bytes than it got.
"""

from __future__ import annotations

import re
from typing import NamedTuple

RESET = "\x1b[0m"

# an SGR sequence (group 1: its parameters), or a sequence that leaves the SGR state alone and
# draws nothing (group 2): cursor moves, synchronized update (2026), cursor visibility (25)
_TOKEN = re.compile(r"\x1b\[([0-9;]*)m|(\x1b\[[0-9;]*[HfABCDGd]|\x1b\[\?(?:2026|25)[hl])")

# attribute on-codes and the code that turns each off (22 ends both bold and faint, 24 both
# underlines, 25 both blinks, 54 both frame and encircle)
_OFF = {"1": "22", "2": "22", "3": "23", "4": "24", "21": "24", "5": "25", "6": "25",
        "7": "27", "8": "28", "9": "29", "51": "54", "52": "54", "53": "55"}
_OFF_CLEARS = {off: frozenset(a for a, o in _OFF.items() if o == off) for off in set(_OFF.values())}
_FG = frozenset([*map(str, range(30, 38)), *map(str, range(90, 98))])
_BG = frozenset([*map(str, range(40, 48)), *map(str, range(100, 108))])


class State(NamedTuple):
    """What SGR sets: attributes (their on-codes), foreground, background and underline
    colour (their codes, "" for the terminal's default)."""

    attrs: frozenset[str] = frozenset()
    fg: str = ""
    bg: str = ""
    ul: str = ""

    def codes(self) -> str:
        """This state's parameters as from the reset state ("" for the reset state)."""
        parts = sorted(self.attrs, key=int)
        for colour in (self.fg, self.bg, self.ul):
            if colour:
                parts.append(colour)
        return ";".join(parts)


PLAIN = State()


_APPLIED: dict[tuple[str, State], State | None] = {}


def apply(params: str, state: State) -> State | None:
    """``state`` after ``ESC[<params>m``; None if a parameter is one this module does not
    model."""
    key = (params, state)
    try:
        return _APPLIED[key]
    except KeyError:
        pass
    after = _apply(params, state)
    if len(_APPLIED) > 4096:
        _APPLIED.clear()
    _APPLIED[key] = after
    return after


def _apply(params: str, state: State) -> State | None:
    tokens = params.split(";")
    attrs = set(state.attrs)
    fg, bg, ul = state.fg, state.bg, state.ul
    i = 0
    n = len(tokens)
    while i < n:
        t = tokens[i]
        i += 1
        if t in ("", "0"):
            attrs.clear()
            fg = bg = ul = ""
        elif t in _OFF:
            attrs.add(t)
        elif t in _OFF_CLEARS:
            attrs -= _OFF_CLEARS[t]
        elif t in _FG:
            fg = t
        elif t in _BG:
            bg = t
        elif t == "39":
            fg = ""
        elif t == "49":
            bg = ""
        elif t == "59":
            ul = ""
        elif t in ("38", "48", "58"):
            if i < n and tokens[i] == "5" and i + 1 < n:
                colour = ";".join(tokens[i - 1:i + 2])
                i += 2
            elif i < n and tokens[i] == "2" and i + 3 < n:
                colour = ";".join(tokens[i - 1:i + 4])
                i += 4
            else:
                return None
            if t == "38":
                fg = colour
            elif t == "48":
                bg = colour
            else:
                ul = colour
        else:
            return None
    return State(frozenset(attrs), fg, bg, ul)


# attributes a blank cell shows: lines drawn through, under or over it, the colours swapped,
# a frame (a space has no glyph: its foreground colour, weight, slant, dimness and blink
# do not show)
_SHOWN_ON_BLANK = frozenset(["4", "21", "7", "9", "51", "52", "53"])


def blank_state(old: State, new: State) -> State:
    """A state that draws a blank (a space) as ``new`` does, changed from ``old`` in as little
    as it can: ``new``'s background and the attributes a blank shows, ``old``'s foreground and
    other attributes (``new`` itself where it swaps the colours: the foreground shows)."""
    if "7" in new.attrs:
        return new
    attrs = (old.attrs - _SHOWN_ON_BLANK) | (new.attrs & _SHOWN_ON_BLANK)
    underlined = bool(new.attrs & {"4", "21"})
    return State(frozenset(attrs), old.fg, new.bg, new.ul if underlined else old.ul)


_BLANKS: dict[tuple[State, State], tuple[str, State]] = {}


def blank_transition(old: State, new: State) -> tuple[str, State]:
    """The shortest sequence from ``old`` to a state that draws blanks as ``new`` does, and
    that state: :func:`transition` to :func:`blank_state`'s, or to ``new`` where that is no
    longer."""
    key = (old, new)
    hit = _BLANKS.get(key)
    if hit is not None:
        return hit
    exact = transition(old, new)
    relaxed = blank_state(old, new)
    loose = transition(old, relaxed)
    hit = (loose, relaxed) if len(loose) < len(exact) else (exact, new)
    if len(_BLANKS) > 4096:  # bounded as the transitions are
        _BLANKS.clear()
    _BLANKS[key] = hit
    return hit


_TRANSITIONS: dict[tuple[State, State], str] = {}


def transition(old: State, new: State) -> str:
    """The shortest sequence of the two this module writes that takes the terminal from
    ``old`` to ``new``: the differences, or a reset and ``new`` in full ("" when equal)."""
    key = (old, new)
    seq = _TRANSITIONS.get(key)
    if seq is not None:
        return seq
    if old == new:
        seq = ""
    else:
        full = f"\x1b[0;{new.codes()}m" if new != PLAIN else RESET
        removed = old.attrs - new.attrs
        offs = {_OFF[a] for a in removed}
        cleared = set().union(*(_OFF_CLEARS[o] for o in offs)) if offs else set()
        parts = sorted(offs, key=int)
        parts += sorted(new.attrs - (old.attrs - cleared), key=int)
        for was, now, default in ((old.fg, new.fg, "39"), (old.bg, new.bg, "49"),
                                  (old.ul, new.ul, "59")):
            if was != now:
                parts.append(now or default)
        diff = f"\x1b[{';'.join(parts)}m"
        seq = diff if len(diff) < len(full) else full
    if len(_TRANSITIONS) > 4096:  # styles are a theme's few dozen; bound it all the same
        _TRANSITIONS.clear()
    _TRANSITIONS[key] = seq
    return seq


def compact(data: str) -> str:
    """``data`` (terminal output) with its SGR codes written as changes; the same picture in
    any terminal that implements SGR, never longer. The terminal's state at its start is
    taken as unknown, and it ends in the state ``data`` ends in (what is written next may
    take it as given).

    Codes are passed as they are until a reset makes the state known. Then a code is
    written lazily, before the next text drawn (a run that draws nothing sets nothing), as
    the change from the state the terminal is in; before blanks only (:func:`_blanks_only`),
    as :func:`blank_transition`'s."""
    if RESET not in data:
        return data
    out: list[str] = []
    add = out.append
    # the state the terminal is in, as written so far, and the one ``data`` means at this
    # point (None: unknown)
    state: State | None = None
    meant: State | None = None
    matches = list(_TOKEN.finditer(data))
    last = len(matches)
    pos = 0
    for k in range(last + 1):
        match = matches[k] if k < last else None
        start = match.start() if match is not None else len(data)
        if start > pos:  # text, or a sequence that may draw or read the state
            text = data[pos:start]
            if state is not None and meant is not None and state != meant:
                if "\x1b" not in text and not text.strip(" ") \
                        and _blanks_only(data, matches, k, meant):
                    seq, state = blank_transition(state, meant)
                else:
                    seq, state = transition(state, meant), meant
                add(seq)
            add(text)
            if "\x1b" in text:  # DECRC, RIS, an alternate screen...: the state may change
                state = meant = None
        if match is None:
            break
        pos = match.end()
        params = match.group(1)
        if params is None:  # a cursor move or mode: draws nothing
            add(match.group())
            continue
        if state is None or meant is None:  # written as it is; known again after a reset
            add(match.group())
            state = meant = (apply(params, PLAIN) if params.split(";", 1)[0] in ("", "0")
                             else None)
            continue
        target = apply(params, meant)
        if target is None:  # not modelled: written as it is, after what it is relative to
            add(transition(state, meant))
            add(match.group())
            state = meant = None
            continue
        meant = target  # written once something is drawn in it
    if state is not None and meant is not None and state != meant:
        add(transition(state, meant))
    return "".join(out)


def _blanks_only(data: str, matches: list[re.Match[str]], k: int, meant: State) -> bool:
    """Whether all that ``data`` draws in state ``meant`` from the text before ``matches[k]``
    (blanks) on, until text is drawn in another state or the data ends in another state, is
    blanks (spaces): then only what :func:`blank_state` keeps shows. False at an erase, an
    unknown sequence or code, or the data's end in state ``meant`` (what is written next may
    read it)."""
    state = meant
    last = len(matches) - 1
    if k > last:  # the data's end
        return False
    for j in range(k, last + 1):
        match = matches[j]
        params = match.group(1)
        if params is not None:
            after = apply(params, state)
            if after is None:
                return False
            state = after
        text = data[match.end():matches[j + 1].start() if j < last else len(data)]
        if text:
            if state != meant:
                return True
            if "\x1b" in text or text.strip(" "):
                return False
    return state != meant


# change()'s answers by (old, new): a writer in a hot loop may look here first
CHANGES: dict[tuple[str, str], str] = {}


def change(old: str, new: str) -> str:
    """The sequence from the state ``ESC[<old>m`` sets to the one ``ESC[<new>m`` sets, each
    from the reset state (Rich's parameters for a style, "" for none): for a writer that
    knows what it wrote last (``tui.view.table``). A reset is written ``ESC[m``."""
    key = (old, new)
    seq = CHANGES.get(key)
    if seq is None:
        a, b = apply(old, PLAIN), apply(new, PLAIN)
        if a is None or b is None:
            seq = f"\x1b[0;{new}m" if new else "\x1b[m"
        else:
            seq = transition(a, b)
            if seq == RESET:
                seq = "\x1b[m"
        if len(CHANGES) > 4096:
            CHANGES.clear()
        CHANGES[key] = seq
    return seq


# blank_change()'s answers by (old, new)
BLANK_CHANGES: dict[tuple[str, str], tuple[str, str]] = {}


def blank_change(old: str, new: str) -> tuple[str, str]:
    """As :func:`change` ahead of blanks only (:func:`blank_transition`): the sequence, and the
    parameters of the state it leaves (``new``'s, or :func:`blank_state`'s)."""
    key = (old, new)
    hit = BLANK_CHANGES.get(key)
    if hit is None:
        a, b = apply(old, PLAIN), apply(new, PLAIN)
        if a is None or b is None:
            hit = (change(old, new), new)
        else:
            seq, state = blank_transition(a, b)
            hit = ("\x1b[m" if seq == RESET else seq, new if state == b else state.codes())
        if len(BLANK_CHANGES) > 4096:
            BLANK_CHANGES.clear()
        BLANK_CHANGES[key] = hit
    return hit
