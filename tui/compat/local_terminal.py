"""``mahjong-ssh play``'s own terminal and East Asian ambiguous width (``tui.compat.ambiwidth``):
the probe, run on the terminal before the app starts, and Textual's driver for this platform
made to write its frames in the narrow glyph set when the terminal draws ambiguous
characters wide. Keys typed while the probe waited are handed to the app when it starts.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any

from textual._xterm_parser import XTermParser
from textual.driver import Driver

from tui.compat.ambiwidth import ERASE, PROBE, PROBE_TIMEOUT, probe_answer, to_narrow


def probe_tty(timeout: float = PROBE_TIMEOUT) -> tuple[bool | None, bytes]:
    """Asks this process's terminal whether it draws ambiguous characters wide: True or
    False, None when it did not answer within ``timeout`` seconds (or there is no terminal,
    or no termios, as on Windows); and the bytes that came meanwhile, the answer taken out."""
    try:
        import select
        import termios
        import tty
    except ImportError:  # Windows: its consoles are probed by no one; narrow unless told
        return None, b""
    try:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return None, b""
        fd_in, fd_out = sys.stdin.fileno(), sys.stdout.fileno()
        saved = termios.tcgetattr(fd_in)
    except (OSError, ValueError, termios.error):
        return None, b""
    data = b""
    try:
        tty.setraw(fd_in, termios.TCSANOW)
        os.write(fd_out, PROBE.encode("utf-8"))
        end = time.monotonic() + timeout
        while len(data) < 4096:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd_in], [], [], left)[0]:
                break
            chunk = os.read(fd_in, 1024)
            if not chunk:
                break
            data += chunk
            wide, rest = probe_answer(data)
            if wide is not None:
                return wide, rest
        return None, data
    except OSError:
        return None, data
    finally:
        with contextlib.suppress(OSError, termios.error):
            os.write(fd_out, ERASE.encode("utf-8"))
            termios.tcsetattr(fd_in, termios.TCSADRAIN, saved)


def narrowing_driver(base: type[Driver], *, wide: bool, early: bytes = b"") -> type[Driver]:
    """``base`` (Textual's driver for this platform) writing its frames in the narrow glyph set
    while its ``ambiwide`` is set (the app sets it from the settings), and giving the app
    ``early`` (keys typed during the probe) once it starts."""

    class NarrowingDriver(base):  # type: ignore[valid-type, misc]
        ambiwide = wide

        def write(self, data: str) -> None:
            super().write(to_narrow(data) if self.ambiwide else data)

        def start_application_mode(self) -> None:
            super().start_application_mode()
            if early:
                parser: Any = XTermParser()
                for message in parser.feed(early.decode("utf-8", "replace")):
                    self.process_message(message)

    NarrowingDriver.__name__ = NarrowingDriver.__qualname__ = f"Narrowing{base.__name__}"
    return NarrowingDriver
