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
every app. Likewise the theme's variables as CSS tokens, which markup with a ``$variable``
needs (0.75 ms per app, again after each theme change, and 1,600 tokens for the collector to
scan at 25 tables).

An ``Input`` inserts a printable key as it handles it, but its own bound keys (backspace,
Ctrl-U, Enter, the arrows) bubble up to the app first, three queues later, and only then run.
Keys that arrive together (one SSH packet: a laggy link, a paste without bracketed paste,
``tmux send-keys``) were applied out of order: ``abc`` then Backspace + ``q`` left ``abc``, and
Ctrl-U + ``friday`` + Enter in the lobby cleared the line after typing it and submitted nothing
(Textual issue 6605). The fix runs the input's own non-priority bindings as the input handles
the key, as the app would have run them (priority bindings were already checked on the way
down), so every key takes effect in the order typed.

A ``Strip`` makes seven caches (``FIFOCache`` objects) as it is made, and most strips use one or
none of them: each cache is made when first used instead. A strip drawn into a terminal was
eight objects for the collector to scan instead of one; in the server, a seventh of what its
middle-generation collections scanned (``MJ_BENCH_YOUNG=1``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.cache import FIFOCache, LRUCache
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.tokenize import tokenize_values
from textual.css.tokenizer import Token
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Input

_applied = False
_TOKENS = "_Stylesheet__variable_tokens"  # the stylesheet's own (name-mangled) token cache


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
            # parsing may add to the variables' token lists ($x defined again): not the shared
            tokens = self._variable_tokens
            setattr(self, _TOKENS, {k: list(v) for k, v in tokens.items()})
            try:
                rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            finally:
                setattr(self, _TOKENS, tokens)
            shared[key] = rules
        return rules

    shared_tokens: LRUCache[tuple[tuple[str, str], ...], dict[str, list[Token]]] = LRUCache(16)

    def variable_tokens_shared(self: Stylesheet) -> dict[str, list[Token]]:
        tokens: dict[str, list[Token]] | None = getattr(self, _TOKENS)
        if tokens is None:
            key = tuple(sorted(self._variables.items()))
            tokens = shared_tokens.get(key)
            if tokens is None:
                tokens = shared_tokens[key] = tokenize_values(self._variables)
            setattr(self, _TOKENS, tokens)
        return tokens

    screen_on_resize = Screen._on_resize

    async def screen_on_resize_once(self: Screen[Any], event: events.Resize) -> None:
        if event.size == self._compositor.size and self._compositor.layers:
            event.stop()  # already laid out and drawn at this size
            return
        await screen_on_resize(self, event)

    input_on_key = Input._on_key

    async def input_on_key_in_order(self: Input, event: events.Key) -> None:
        await input_on_key(self, event)
        if event._stop_propagation:  # a printable key, inserted
            return
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                event.stop()  # done here: not bubbled to the app to run again
                event.prevent_default()
                return

    divide_fixed.__doc__ = divide.__doc__
    crop_extend_fixed.__doc__ = crop_extend.__doc__
    Strip.divide = divide_fixed  # type: ignore[method-assign]
    Strip.crop_extend = crop_extend_fixed  # type: ignore[method-assign]
    Stylesheet._parse_rules = parse_rules_shared  # type: ignore[method-assign]
    Stylesheet._variable_tokens = property(variable_tokens_shared)  # type: ignore[assignment,method-assign]
    Screen._on_resize = screen_on_resize_once  # type: ignore[method-assign]
    Input._on_key = input_on_key_in_order  # type: ignore[method-assign]
    _lazy_strip_caches()


# Strip's caches and their sizes in Textual 8 (``Strip.__init__``)
_STRIP_CACHES = {"_divide_cache": 4, "_crop_cache": 16, "_style_cache": 16, "_filter_cache": 4,
                 "_line_length_cache": 4, "_crop_extend_cache": 4, "_offsets_cache": 4}
_STRIP_OTHERS = {"_segments", "_cell_length", "_render_cache", "_link_ids", "_cell_count"}


class _CacheOnFirstUse:
    """Stands for one of ``Strip``'s cache slots: the cache is made when first looked up."""

    __slots__ = ("size", "slot")

    def __init__(self, slot: Any, size: int) -> None:
        self.slot = slot  # the slot's own descriptor
        self.size = size

    def __get__(self, strip: Strip | None, owner: type | None = None) -> Any:
        if strip is None:
            return self
        try:
            return self.slot.__get__(strip, owner)
        except AttributeError:
            cache: FIFOCache[Any, Any] = FIFOCache(self.size)
            self.slot.__set__(strip, cache)
            return cache

    def __set__(self, strip: Strip, value: Any) -> None:
        self.slot.__set__(strip, value)


def _lazy_strip_caches() -> None:
    """Make a ``Strip``'s seven caches when first used: most strips use one or none."""
    if set(Strip.__slots__) != {*_STRIP_CACHES, *_STRIP_OTHERS}:
        return  # not the Strip this was written for: leave it as it is
    for name, size in _STRIP_CACHES.items():
        setattr(Strip, name, _CacheOnFirstUse(Strip.__dict__[name], size))

    def strip_init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None
                   ) -> None:
        self._segments = list(segments)
        self._cell_length = cell_length
        self._render_cache = None
        self._link_ids = None
        self._cell_count = None

    strip_init.__doc__ = Strip.__init__.__doc__
    Strip.__init__ = strip_init  # type: ignore[method-assign]
