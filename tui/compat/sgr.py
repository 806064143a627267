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
    any terminal that implements SGR, never longer."""
    if RESET not in data:
        return data
    out: list[str] = []
    add = out.append
    state: State | None = None  # the terminal's SGR state as written so far (None: unknown)
    held = False  # a reset is owed before the next thing that draws or reads the state
    pos = 0
    for match in _TOKEN.finditer(data):
        start = match.start()
        if start > pos:  # text, or a sequence that may draw or read the state
            if held:
                add(RESET)
                held = False
                state = PLAIN
            text = data[pos:start]
            add(text)
            if "\x1b" in text:  # DECRC, RIS, an alternate screen...: the state may change
                state = None
        pos = match.end()
        params = match.group(1)
        if params is None:  # a cursor move or mode: passes a held reset
            add(match.group())
            continue
        if state is None:  # written as it is; known again after a reset at its start
            add(match.group())
            if params.split(";", 1)[0] in ("", "0"):
                state = apply(params, PLAIN)
            continue
        if params in ("", "0"):
            held = state != PLAIN
            continue
        target = apply(params, PLAIN if held else state)
        if target is None:
            if held:
                add(RESET)
                held = False
            add(match.group())
            state = None
            continue
        add(transition(state, target))
        state = target
        held = False
    if held:
        add(RESET)
    if pos < len(data):
        add(data[pos:])
    return "".join(out)


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
