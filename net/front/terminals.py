"""What the client's terminal can show, from its TERM and COLORTERM (the SSH pty request and
the environment the client sends): the colours Rich may use, and whether the full-screen
table can be drawn at all.

The clients we aim at (README, "Terminals and clients"), and what they send:

========================================  ==========================  ===========
client                                    TERM (COLORTERM)            colours
========================================  ==========================  ===========
OpenSSH in Windows Terminal               xterm-256color              256
OpenSSH in the classic Windows console    xterm-256color              256
PuTTY (default settings)                  xterm                       16
PuTTY, "xterm-256color" as terminal type  xterm-256color              256
Xshell, MobaXterm                         xterm / xterm-256color      16 / 256
macOS Terminal.app                        xterm-256color              256 (no 24-bit)
iTerm2, GNOME Terminal, Konsole           xterm-256color (truecolor)  24-bit
tmux / GNU screen                         tmux-256color, screen(-256color)  256 / 16
the Linux text console                    linux                       16, ASCII faces
a VT100 or a terminal set to be one       vt100, vt102, vt220 …       16, ASCII faces
========================================  ==========================  ===========

COLORTERM reaches the server only when the client sends it (OpenSSH: ``SendEnv COLORTERM``
and the server's acceptance; this one takes it). ``xterm`` alone is taken as 16 colours: what
PuTTY and Xshell send by default, and what they can always show; 256 colours need the TERM to
say so (``xterm-256color``). ``*-direct`` TERMs (ncurses' 24-bit entries) mean 24-bit colour.
"""

from __future__ import annotations

import enum

from words import both

# TERMs that mean "cannot address the cursor": no full-screen table on them
_DUMB = frozenset({"dumb", "unknown", "network", "dialup", "glasstty", "tty33", "lpr",
                   "printer", "emacs", "cons25-dumb"})
# the DEC terminals and those that are only as much as one (cursor addressing, bold and
# reverse, maybe no colour, no Unicode): the table in ASCII faces
_VT = ("vt100", "vt101", "vt102", "vt125", "vt131", "vt132", "vt200", "vt220", "vt240",
       "vt300", "vt320", "vt340", "vt400", "vt420", "vt510", "vt520", "vt525", "ansi")
_VT52 = ("vt50", "vt52", "vt55")  # no ANSI sequences at all


class TermClass(enum.Enum):
    """How much of the table a terminal can show."""

    FULL = "full"  # xterm and its kind: the table as designed
    VT = "vt"  # a DEC VT or one set to be one: the table in ASCII faces
    DUMB = "dumb"  # no cursor addressing: a message instead (and --plain)


def term_class(term: str) -> TermClass:
    """The class of a TERM value (as sent in the pty request, already cleaned)."""
    t = term.strip().lower()
    if not t or t in _DUMB or t.startswith(_VT52):
        return TermClass.DUMB
    if t.startswith(_VT) and "xterm" not in t:
        return TermClass.VT
    return TermClass.FULL


_TEXT_CONSOLES = ("linux", "cons25", "con80", "pcansi", "wsvt25", "pccon")


def shows_cjk(term: str) -> bool:
    """Whether the terminal can be expected to draw CJK text: not a VT, and not a text
    console (the Linux console's font holds 512 glyphs at most: no CJK). Where it cannot,
    the table is in ASCII faces unless the player chose a face."""
    t = term.strip().lower()
    return term_class(t) is TermClass.FULL and not t.startswith(_TEXT_CONSOLES)


def color_system(term: str, colorterm: str) -> str:
    """Rich's colour system for the client's terminal (its TERM and COLORTERM)."""
    t = term.strip().lower()
    if term_class(t) is not TermClass.FULL or t.startswith((*_TEXT_CONSOLES, "vt")):
        return "standard"  # the Linux console: 8 colours and their bright forms; VTs: none
    if colorterm.strip().lower() in ("truecolor", "24bit") or t.endswith("-direct"):
        return "truecolor"
    if "256col" in t or t.startswith(("tmux", "screen-256", "rxvt-unicode-256")):
        return "256"
    return "standard"


def dumb_text(term: str) -> str:
    """The message for a terminal that cannot draw the table, in both languages."""
    shown = "".join(ch for ch in term[:40] if ch.isalnum() or ch in "-_.+") or '""'
    return both("dumb_terminal", sep="\n", term=shown) + "\n"
