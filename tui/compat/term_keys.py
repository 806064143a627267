"""Key sequences of common SSH clients that Textual's input parser does not know, as key names.

Textual's parser (``XTermParser``) knows the xterm, VT220, rxvt and Linux-console sequences (arrows
in normal and application cursor mode, ``ESC [n~`` editing and function keys, ``ESC [[A``–``ESC
[[E``, the application keypad ``ESC O p``…``ESC O y``). Two kinds of input it misreads, which
:func:`extra_key` answers for the parser (``tui.compat.client_parser.ClientParser``):

* **Windows Terminal's win32-input-mode** (``ESC [ Vk ; Sc ; Uc ; Kd ; Cs ; Rc _``): sent only to
  an application that asks for it (``ESC [?9001h``, which we never send), yet a tab left in that
  mode by an earlier program keeps sending it. Textual holds such a sequence until the next
  Esc or 32 characters and then replays it as typed characters — ``[65;30;97;1;0;1_`` would
  pick tiles 6, 5, 3, … . Each key press is read as the key it stands for; releases and bare
  modifier keys are dropped.
* **A complete sequence no key has** (a CSI or SS3 sequence that has reached its final byte:
  PuTTY's SCO function keys ``ESC [N``…``ESC [X``, a keypad ``ESC O l``, a key of a terminal
  not listed): Textual would hold it too and swallow or replay the keys typed after it. It is
  dropped at its final byte instead. Mouse reports and mode reports are left to Textual.

Pure functions of the sequence: no Textual here, so the table of what is translated can be
tested on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ESC [ Vk ; Sc ; Uc ; Kd ; Cs ; Rc _  (every field optional, default 0, Rc default 1)
_WIN32 = re.compile(r"\x1b\[(\d{0,5});(\d{0,5});(\d{0,7});(\d{0,1});(\d{0,5});(\d{0,5})_")
# a CSI sequence at its final byte: parameters 0x30–0x3F, intermediates 0x20–0x2F, final
_CSI_DONE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_SS3_DONE = re.compile(r"\x1bO[ -/]*[@-~]")
# left to Textual: mouse reports (SGR, urxvt, and X10's ESC [M with three bytes to come) and
# DECRQM answers (ESC [? n ; m $ y)
_MOUSE = re.compile(r"\x1b\[(<[-\d;]+[mM]|[-\d;]+M|M.{0,3})")
_MODE_REPORT = re.compile(r"\x1b\[\?\d+;\d+\$y")

# Windows virtual-key codes with no character of their own -> Textual key names
VK_KEYS: dict[int, str] = {
    0x08: "backspace", 0x09: "tab", 0x0D: "enter", 0x1B: "escape",
    0x21: "pageup", 0x22: "pagedown", 0x23: "end", 0x24: "home",
    0x25: "left", 0x26: "up", 0x27: "right", 0x28: "down",
    0x2D: "insert", 0x2E: "delete",
    **{0x70 + i: f"f{i + 1}" for i in range(12)},  # F1–F12
}
VK_MODIFIERS = frozenset({0x10, 0x11, 0x12, 0x14, 0x5B, 0x5C, 0x90, 0x91, 0xA0, 0xA1, 0xA2,
                          0xA3, 0xA4, 0xA5})  # Shift, Ctrl, Alt, Caps/Num/Scroll Lock, Win
REPEAT_MAX = 4  # a held key's repeat count, as far as it is honoured in one report


@dataclass(frozen=True, slots=True)
class ExtraKey:
    """What a sequence stands for: ``keys`` to report, each a Textual key name with the
    character typed (or None), or None with a character: the key the parser reads for that
    character (``a``, ``A``, Ctrl-H as backspace). Empty when the sequence is to be dropped."""

    keys: tuple[tuple[str | None, str | None], ...] = ()


DROP = ExtraKey()


def win32_key(sequence: str) -> ExtraKey | None:
    """A win32-input-mode report as keys (a release, a bare modifier: nothing); None when
    ``sequence`` is not one."""
    match = _WIN32.fullmatch(sequence)
    if match is None:
        return None
    vk, _scan, uc, down, _state, repeat = (int(g) if g else 0 for g in match.groups())
    if down != 1 or vk in VK_MODIFIERS:
        return DROP
    count = max(1, min(repeat or 1, REPEAT_MAX))
    if vk in VK_KEYS and (uc < 0x20 or uc == 0x7F):  # a named key (Enter's Uc is 13)
        name = VK_KEYS[vk]
        char = {"enter": "\r", "tab": "\t", "backspace": "\x7f", "escape": "\x1b"}.get(name)
        return ExtraKey(((name, char),) * count)
    if uc == 0 or uc > 0x10FFFF or 0xD800 <= uc <= 0xDFFF:
        return DROP  # a key with no character and no name (a media key, half a pair)
    return ExtraKey(((None, chr(uc)),) * count)  # the key the parser reads for that character


def is_complete_unknown(sequence: str) -> bool:
    """Whether ``sequence`` is a whole CSI or SS3 sequence (at its final byte) that is not a
    mouse or mode report: with no key of its own, it is to be dropped, not held."""
    if _MOUSE.fullmatch(sequence) or _MODE_REPORT.fullmatch(sequence):
        return False
    if sequence.startswith("\x1b[["):  # the Linux console's F1–F5: ESC [ [ A … E
        return len(sequence) > 3
    return bool(_CSI_DONE.fullmatch(sequence) or _SS3_DONE.fullmatch(sequence))


def extra_key(sequence: str) -> ExtraKey | None:
    """For a sequence Textual's parser has no key for: the keys it stands for (or DROP), or
    None to leave it to the parser (not complete yet, or a report the parser reads)."""
    if not sequence.startswith("\x1b["):
        return DROP if sequence.startswith("\x1bO") and is_complete_unknown(sequence) else None
    found = win32_key(sequence)
    if found is not None:
        return found
    return DROP if is_complete_unknown(sequence) else None
