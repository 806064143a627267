"""Telling a player that the table waits for him (his turn, a claim offered) while he looks
elsewhere: the terminal's title and a desktop notification, each a setting and off by default,
like the bell (which the table screen rings as the table turns to him).

The title: while the table waits for the player, OSC 0 (the window's and the tab's title) says
so, e.g. ``▶ your move — mahjong-ssh t1``. The title there before is pushed first (xterm's CSI
22;0t) and popped when the wait ends (CSI 23;0t); a terminal that keeps no title stack ignores
both, so the title is first set back to the table's own (``mahjong-ssh t1``), which the pop then
replaces where it works. One push per wait, one pop after it, so the terminal's stack stays even.

The notification: OSC 9 (shown by iTerm2, WezTerm, kitty and Ghostty; a terminal that knows it
not ignores it). Not also OSC 777;notify (rxvt-unicode's extension, some VTE builds): the
terminals that take both would show two. Never while the player looks: only when the terminal
has said it lost the focus (focus reports, which the app asks for) or, from a terminal that
never said, when no key came for :data:`AWAY_SECONDS`; and one per absence, so a player away
for long finds one notification, not one per turn the timer played for him (a key, or the
terminal's focus back, ends the absence).

What goes into either sequence is ours: fixed words and the table's name, cleaned of every
control and format character (:func:`osc_text`), so nothing in it can end the sequence or
start another. Everything is written through the driver (:meth:`MahjongApp.to_terminal`),
between frames, never inside one.
"""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable
from typing import Protocol

from words import tr

OSC_TITLE = "\x1b]0;{}\x07"
OSC_NOTIFY = "\x1b]9;{}\x07"
TITLE_PUSH = "\x1b[22;0t"  # xterm's title stack: keep the title there now
TITLE_POP = "\x1b[23;0t"  # and back to it
AWAY_SECONDS = 60.0  # no key this long, and no word from the terminal of its focus: away
OSC_TEXT_MAX = 80  # characters of a title or a notification


class AttentionSettings(Protocol):
    lang: str
    turn_title: bool
    notify: bool


def osc_text(text: str, max_chars: int = OSC_TEXT_MAX) -> str:
    """``text`` fit for an OSC's argument: no control or format character (no ESC, BEL, ST or
    C1 code that could end the sequence or begin another; no bidirectional override), no
    line or paragraph separator, at most ``max_chars`` characters."""
    kept = "".join(ch for ch in text
                   if unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl",
                                                       "Zp"))
    return kept[:max_chars]


def title_sequence(text: str) -> str:
    return OSC_TITLE.format(osc_text(text))


def notify_sequence(text: str) -> str:
    # ConEmu reads OSC 9 followed by a number and ';' as one of its own commands: ours never
    # begins with a digit (the words do: "mahjong-ssh …")
    return OSC_NOTIFY.format(osc_text(text))


class Attention:
    """One app's title and notifications: told each update whether the table waits for the
    player (:meth:`table_waits`), each key (:meth:`key`) and each focus report
    (:meth:`focus`); writes through ``write``."""

    def __init__(self, settings: AttentionSettings, write: Callable[[str], None],
                 table: Callable[[], str] = str,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.write = write
        self.table = table  # the table's name ("" at a table of one's own), asked when needed
        self._name: str | None = None
        self.now = now
        self.waiting = False  # the table waits for the player
        self.title_shown = False  # ours is the title (pushed over the one before)
        self.focus_said: bool | None = None  # the terminal's last focus report (None: none)
        self.last_key = now()
        self.told = False  # a notification went during this absence

    def base_title(self) -> str:
        """The table's own title: ``mahjong-ssh`` and the table's name."""
        if self._name is None:  # a table's name does not change
            self._name = self.table()
        return f"mahjong-ssh {self._name}".strip()

    def away(self) -> bool:
        """Whether the player looks elsewhere: his terminal said it lost the focus, or it
        never says and no key came for :data:`AWAY_SECONDS`."""
        if self.focus_said is not None:
            return not self.focus_said
        return self.now() - self.last_key >= AWAY_SECONDS

    def key(self) -> None:
        """A key (or a click) from the player: he is looking."""
        self.last_key = self.now()
        self.told = False
        if self.focus_said is False:  # as Textual takes it: a key means the terminal has it
            self.focus_said = True

    def focus(self, focused: bool) -> None:
        """The terminal's focus report."""
        self.focus_said = focused
        if focused:
            self.told = False

    def table_waits(self, waiting: bool) -> None:
        """Whether the table now waits for the player: the title and the notification when
        the wait begins, the title back when it ends (nothing on updates within a wait)."""
        if waiting == self.waiting:
            return
        self.waiting = waiting
        if not waiting:
            self._title_back()
            return
        self._title_up()
        if self.settings.notify and not self.told and self.away():
            self.told = True
            self.write(notify_sequence(tr(self.settings.lang, "att_notify",
                                          title=self.base_title())))

    def settings_changed(self) -> None:
        """The title follows the setting at once: up during a wait, back once turned off."""
        if self.waiting and self.settings.turn_title:
            self._title_up()
        elif not self.settings.turn_title:
            self._title_back()

    def close(self) -> None:
        """The app is ending: the title as it was."""
        self._title_back()

    def _title_up(self) -> None:
        if not self.settings.turn_title or self.title_shown:
            return
        self.title_shown = True
        self.write(TITLE_PUSH + title_sequence(
            tr(self.settings.lang, "att_title", title=self.base_title())))

    def _title_back(self) -> None:
        if not self.title_shown:
            return
        self.title_shown = False
        self.write(title_sequence(self.base_title()) + TITLE_POP)
