"""Fixes to Textual, applied once per process by the entry points (``serve`` and ``play``).

A ``Strip`` caches what it derives in its own caches, and two of them can hold the strip
itself: ``divide`` at the strip's own end (the compositor divides every line it draws, and for
a full-width line that is the one cut) and ``crop_extend`` to its own width. A strip that
refers to itself is cyclic garbage once dropped, so every line drawn was left for the garbage
collector: with 40 sessions its pauses reached 90 ms of CPU (``python -m bench server``).
The fixes return what the originals return in those cases, without caching the strip in
itself.

A screen shown for the first time is laid out and drawn in full as it resumes, then again for
the ``Resize`` event that first layout sends it, at the same size (then by its update timer, for
what mounting its widgets asked). The fix ignores a ``Resize`` at the size the screen's
compositor is already laid out at: a real resize has a new size, and a widget that changed asks
for its own layout, which the screen's update does as usual. One full layout and repaint less
per screen shown — every connect, every hand's result.

Each app has its own ``Stylesheet`` and parses the same CSS again (the app's, every widget's
defaults, again on each theme change): in a server with many sessions, most of the CPU of a new
session. Parsed rules depend only on the CSS, where it came from and the theme's variables, and
nothing changes them after parsing, so one process-wide cache, keyed on all of these, serves
every app.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.style import Style
from textual import events
from textual.cache import LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen
from textual.strip import Strip

_applied = False


def apply() -> None:
    global _applied
    if _applied:
        return
    _applied = True
    divide, crop_extend = Strip.divide, Strip.crop_extend

    def divide_fixed(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
        cuts = list(cuts)
        if len(cuts) == 1 and cuts[0] == self.cell_length:
            return [self]
        return divide(self, cuts)

    def crop_extend_fixed(self: Strip, start: int, end: int, style: Style | None) -> Strip:
        if start <= 0 and end == self.cell_length:  # extend: nothing; crop: the whole strip
            return self
        return crop_extend(self, start, end, style)

    parse_rules = Stylesheet._parse_rules
    shared: LRUCache[tuple[Any, ...], list[RuleSet]] = LRUCache(512)

    def parse_rules_shared(self: Stylesheet, css: str, read_from: Any,
                           is_default_rules: bool = False, tie_breaker: int = 0,
                           scope: str = "") -> list[RuleSet]:
        key = (css, read_from, is_default_rules, tie_breaker, scope,
               tuple(sorted(self._variables.items())))
        rules = shared.get(key)
        if rules is None:
            rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            shared[key] = rules
        return rules

    screen_on_resize = Screen._on_resize

    async def screen_on_resize_once(self: Screen[Any], event: events.Resize) -> None:
        if event.size == self._compositor.size and self._compositor.layers:
            event.stop()  # already laid out and drawn at this size
            return
        await screen_on_resize(self, event)

    divide_fixed.__doc__ = divide.__doc__
    crop_extend_fixed.__doc__ = crop_extend.__doc__
    Strip.divide = divide_fixed  # type: ignore[method-assign]
    Strip.crop_extend = crop_extend_fixed  # type: ignore[method-assign]
    Stylesheet._parse_rules = parse_rules_shared  # type: ignore[method-assign]
    Screen._on_resize = screen_on_resize_once  # type: ignore[method-assign]
