"""What common SSH clients send for the keys the table uses, from their documentation: a row
per (client, key) with the bytes and the Textual key (and so the table's action) they must
reach. ``tests/test_client_keys.py`` feeds each row through the SSH driver.

Sources (their documented defaults unless the client column names a setting):

- PuTTY user manual, 4.4 "The Keyboard panel": Backspace is ^? (or ^H), Home/End ``ESC [1~`` /
  ``ESC [4~`` ("rxvt": ``ESC [H`` / ``ESC O w``), the function key modes ``ESC [n~`` (default:
  F1 ``ESC [11~`` … F5 ``ESC [15~``, F6 ``ESC [17~`` … F12 ``ESC [24~``), Linux (F1–F5
  ``ESC [[A``–``ESC [[E``), Xterm R6 (F1–F4 ``ESC O P``–``ESC O S``), VT400, VT100+ (F1–F12
  ``ESC O P``–``ESC O [``), SCO (F1–F12 ``ESC [M``–``ESC [X``, Page Up ``ESC [I``, Page Down
  ``ESC [G``, Insert ``ESC [L``); cursor keys ``ESC [A`` or, in application mode,
  ``ESC O A``; the application keypad ``ESC O p``–``ESC O y``, Enter ``ESC O M``.
- Windows console virtual terminal sequences (Microsoft's "Console Virtual Terminal
  Sequences", input): arrows ``ESC [A`` / ``ESC O A`` (DECCKM), Home ``ESC [H``, End
  ``ESC [F``, Insert/Delete/PgUp/PgDn ``ESC [2~ 3~ 5~ 6~``, F1–F4 ``ESC O P``–``ESC O S``,
  F5–F12 ``ESC [15~``–``ESC [24~``, Backspace 0x7F, Enter CR, Alt as an ESC prefix. What
  Windows' OpenSSH client sends in conhost and in Windows Terminal. Windows Terminal's
  win32-input-mode (``ESC [ Vk ; Sc ; Uc ; Kd ; Cs ; Rc _``, Windows Terminal's
  doc/specs/#4999): only when asked for (``ESC [?9001h``, never sent here); read anyway.
- xterm's ctlseqs (Xshell, MobaXterm, GNOME Terminal/VTE, iTerm2 and Terminal.app are
  xterm-like): Home/End ``ESC [H``/``ESC [F`` or ``ESC O H``/``ESC O F`` in application
  cursor mode, Alt/Meta as an ESC prefix (Xshell "Use Alt key as Meta key", MobaXterm's
  default, iTerm2 "Esc+", Terminal.app "Use Option as Meta key": off by default, so Option
  types characters such as ``œ``).
- tmux and GNU screen (their TERM entries screen / tmux-256color): Home ``ESC [1~``, End
  ``ESC [4~``; the Linux console (TERM=linux): the same Home/End and F1–F5 ``ESC [[A``….
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.apps.table_screen import TABLE_BINDINGS


@dataclass(frozen=True, slots=True)
class ClientKey:
    client: str
    key: str  # as the player knows it
    data: bytes  # what the client sends
    textual: str | None  # the Textual key it must reach (None: no key, and nothing eaten)


def _rows(client: str, *rows: tuple[str, bytes, str | None]) -> list[ClientKey]:
    return [ClientKey(client, key, data, textual) for key, data, textual in rows]


ESC = b"\x1b"
ARROWS = (("Left", ESC + b"[D", "left"), ("Right", ESC + b"[C", "right"),
          ("Up", ESC + b"[A", "up"), ("Down", ESC + b"[B", "down"))
APP_ARROWS = (("Left (application cursor)", ESC + b"OD", "left"),
              ("Right (application cursor)", ESC + b"OC", "right"),
              ("Up (application cursor)", ESC + b"OA", "up"),
              ("Down (application cursor)", ESC + b"OB", "down"))
TILDE_EDIT = (("Insert", ESC + b"[2~", "insert"), ("Delete", ESC + b"[3~", "delete"),
              ("Page Up", ESC + b"[5~", "pageup"), ("Page Down", ESC + b"[6~", "pagedown"))
COMMON = (("Enter", b"\r", "enter"), ("Space", b" ", "space"), ("?", b"?", "question_mark"),
          ("q", b"q", "q"), ("Esc", ESC, "escape"), ("Tab", b"\t", "tab"),
          ("Shift+Tab", ESC + b"[Z", "shift+tab"), ("Ctrl+S", b"\x13", "ctrl+s"),
          ("Ctrl+Q", b"\x11", "ctrl+q"), ("1", b"1", "1"), ("-", b"-", "minus"),
          ("=", b"=", "equals_sign"), ("[", b"[", "left_square_bracket"),
          ("]", b"]", "right_square_bracket"))
TILDE_F = tuple((f"F{i + 1}", ESC + b"[%d~" % n, f"f{i + 1}")
                for i, n in enumerate((11, 12, 13, 14, 15, 17, 18, 19, 20, 21, 23, 24)))
XTERM_F = (("F1", ESC + b"OP", "f1"), ("F2", ESC + b"OQ", "f2"), ("F3", ESC + b"OR", "f3"),
           ("F4", ESC + b"OS", "f4"), *TILDE_F[4:])


def _win32(vk: int, scan: int, char: int, down: int = 1, state: int = 0) -> bytes:
    return b"\x1b[%d;%d;%d;%d;%d;1_" % (vk, scan, char, down, state)


CLIENT_KEYS: list[ClientKey] = [
    *_rows("PuTTY (defaults: ESC[n~, TERM=xterm)", *ARROWS, *APP_ARROWS, *TILDE_EDIT, *COMMON,
           *TILDE_F,
           ("Home", ESC + b"[1~", "home"), ("End", ESC + b"[4~", "end"),
           ("Backspace (^?)", b"\x7f", "backspace"),
           ("Alt+q (ESC prefix)", ESC + b"q", "alt+q")),
    *_rows("PuTTY, Backspace ^H", ("Backspace (^H)", b"\x08", "backspace")),
    *_rows("PuTTY, Home/End rxvt", ("Home", ESC + b"[H", "home")),
    *_rows("PuTTY, function keys Linux",
           ("F1", ESC + b"[[A", "f1"), ("F2", ESC + b"[[B", "f2"), ("F3", ESC + b"[[C", "f3"),
           ("F4", ESC + b"[[D", "f4"), ("F5", ESC + b"[[E", "f5"), ("F6", ESC + b"[17~", "f6")),
    *_rows("PuTTY, function keys Xterm R6", *XTERM_F[:5]),
    *_rows("PuTTY, function keys VT400", ("F1", ESC + b"[11~", "f1")),
    *_rows("PuTTY, function keys VT100+", ("F1", ESC + b"OP", "f1"),
           ("F5", ESC + b"OT", None), ("F12", ESC + b"O[", None)),
    # SCO: ESC [M is also the start of an X10 mouse report, ESC [I the focus-in report;
    # neither can be a key here. The others are read as no key, eating nothing after them.
    *_rows("PuTTY, function keys SCO", ("F2", ESC + b"[N", None), ("F12", ESC + b"[X", None),
           ("Page Down", ESC + b"[G", None), ("Insert", ESC + b"[L", None),
           ("Home", ESC + b"[H", "home"), ("End", ESC + b"[F", "end")),
    *_rows("PuTTY, application keypad",
           *((f"keypad {d}", ESC + b"O" + bytes([ord("p") + d]), str(d)) for d in range(10)),
           ("keypad Enter", ESC + b"OM", "enter"), ("keypad -", ESC + b"Om", "minus"),
           ("keypad .", ESC + b"On", "full_stop"), ("keypad +", ESC + b"Ol", None)),
    *_rows("OpenSSH in the Windows console (conhost)", *ARROWS, *APP_ARROWS, *TILDE_EDIT,
           *COMMON, *XTERM_F,
           ("Home", ESC + b"[H", "home"), ("End", ESC + b"[F", "end"),
           ("Backspace", b"\x7f", "backspace"), ("Ctrl+Backspace", b"\x08", "backspace"),
           ("Alt+q", ESC + b"q", "alt+q")),
    *_rows("OpenSSH in Windows Terminal", *ARROWS, *APP_ARROWS, *TILDE_EDIT, *XTERM_F,
           ("Home", ESC + b"[H", "home"), ("End", ESC + b"[F", "end"),
           ("Home (application cursor)", ESC + b"OH", "home"),
           ("End (application cursor)", ESC + b"OF", "end"),
           ("Backspace", b"\x7f", "backspace")),
    *_rows("Windows Terminal, win32-input-mode",
           ("Left", _win32(0x25, 0x4B, 0), "left"), ("Right", _win32(0x27, 0x4D, 0), "right"),
           ("Up", _win32(0x26, 0x48, 0), "up"), ("Home", _win32(0x24, 0x47, 0), "home"),
           ("Page Down", _win32(0x22, 0x51, 0), "pagedown"),
           ("Enter", _win32(0x0D, 0x1C, 13), "enter"), ("F1", _win32(0x70, 0x3B, 0), "f1"),
           ("q", _win32(0x51, 0x10, ord("q")), "q"), ("l", _win32(0x4C, 0x26, ord("l")), "l"),
           ("?", _win32(0xBF, 0x35, ord("?"), state=0x10), "question_mark"),
           ("Ctrl+S", _win32(0x53, 0x1F, 0x13, state=0x08), "ctrl+s"),
           ("Backspace", _win32(0x08, 0x0E, 8), "backspace"),
           ("q released", _win32(0x51, 0x10, ord("q"), down=0), None),
           ("Shift pressed", _win32(0x10, 0x2A, 0, state=0x10), None)),
    *_rows("Xshell (TERM=xterm)", *ARROWS, *APP_ARROWS, *TILDE_EDIT, *COMMON, *TILDE_F,
           ("Home", ESC + b"[1~", "home"), ("End", ESC + b"[4~", "end"),
           ("Home (xterm)", ESC + b"[H", "home"), ("End (xterm)", ESC + b"[F", "end"),
           ("Backspace", b"\x7f", "backspace"), ("Alt+q (Alt as Meta)", ESC + b"q", "alt+q")),
    *_rows("MobaXterm (TERM=xterm)", *ARROWS, *APP_ARROWS, *TILDE_EDIT, *XTERM_F,
           ("Home", ESC + b"[H", "home"), ("End", ESC + b"[F", "end"),
           ("Home (application cursor)", ESC + b"OH", "home"),
           ("End (application cursor)", ESC + b"OF", "end"),
           ("Backspace", b"\x7f", "backspace"), ("Alt+q", ESC + b"q", "alt+q")),
    *_rows("macOS Terminal.app", *ARROWS, *APP_ARROWS, *XTERM_F,
           ("Shift+Home", ESC + b"[H", "home"), ("Shift+End", ESC + b"[F", "end"),
           ("Shift+Page Up", ESC + b"[5~", "pageup"),
           ("Shift+Page Down", ESC + b"[6~", "pagedown"),
           ("Delete (backspace)", b"\x7f", "backspace"),
           ("fn+Delete", ESC + b"[3~", "delete"),
           ("Option+q (not Meta)", "œ".encode(), "œ"),
           ("Option+q (Option as Meta)", ESC + b"q", "alt+q")),
    *_rows("iTerm2", *ARROWS, *APP_ARROWS, *TILDE_EDIT, *XTERM_F,
           ("Home", ESC + b"[H", "home"), ("End", ESC + b"[F", "end"),
           ("Home (application cursor)", ESC + b"OH", "home"),
           ("Backspace", b"\x7f", "backspace"), ("Option+q (Esc+)", ESC + b"q", "alt+q")),
    *_rows("GNOME Terminal (VTE)", *ARROWS, *APP_ARROWS, *TILDE_EDIT, *XTERM_F,
           ("Home", ESC + b"[H", "home"), ("End", ESC + b"[F", "end"),
           ("Home (application cursor)", ESC + b"OH", "home"),
           ("End (application cursor)", ESC + b"OF", "end"),
           ("Backspace", b"\x7f", "backspace"), ("Alt+q", ESC + b"q", "alt+q")),
    *_rows("tmux (TERM=tmux-256color)", *ARROWS, *APP_ARROWS, *TILDE_EDIT, *XTERM_F,
           ("Home", ESC + b"[1~", "home"), ("End", ESC + b"[4~", "end"),
           ("Backspace", b"\x7f", "backspace")),
    *_rows("GNU screen (TERM=screen)", *ARROWS, *APP_ARROWS, *TILDE_EDIT, *XTERM_F,
           ("Home", ESC + b"[1~", "home"), ("End", ESC + b"[4~", "end"),
           ("Backspace", b"\x7f", "backspace")),
    *_rows("Linux console (TERM=linux)", *ARROWS, *TILDE_EDIT,
           ("F1", ESC + b"[[A", "f1"), ("F5", ESC + b"[[E", "f5"), ("F6", ESC + b"[17~", "f6"),
           ("Home", ESC + b"[1~", "home"), ("End", ESC + b"[4~", "end"),
           ("Backspace", b"\x7f", "backspace")),
]


def table_actions() -> dict[str, str]:
    """Each key the table screen binds -> the binding's id (``cursor-left``, ``help`` …)."""
    out: dict[str, str] = {}
    for binding in TABLE_BINDINGS:
        for key in binding.key.split(","):
            assert binding.id is not None
            out.setdefault(key.strip(), binding.id)
    return out
