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

Memory, for a server whose sessions come and go (``python -m bench churn``). An app is a web of
reference cycles (every node and its styles, its signals, its bindings, its message queue), so
an ended app was freed only by a full collection, which the server makes rare: 3,200 sessions
opened and closed took its RSS from 59 MB to 1.95 GB. ``release_app`` takes an app that has run
to its end apart so that reference counting frees it at once: every node made while it ran
(``track_nodes``) gives up what it holds, and so does the app, but for what is read of it
afterwards (its return value and code, its exception, ``RELEASE_KEEPS``). Two cycles Textual
made without an app ending are gone too: a laid-out screen's ``Compositor._arrange_root`` called
itself through a closure that held itself, and with it the map of every widget laid out (a
cycle per layout, holding widgets of screens long gone); an ``LRUCache`` links its entries in a
ring, which stayed a cycle after ``clear()`` or once the cache was dropped (it is unlinked now).
And ``StylesCache.get_inner_outer``, a method cached process-wide with ``lru_cache(1024)``, kept
the last 1,024 widgets' style caches (every line each had drawn) alive through its keys: about
10 MB of sessions long gone. Its answer depends only on the two colours, which are now the key.
"""

from __future__ import annotations
import __future__

import asyncio
import inspect
import textwrap
import weakref
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import textual._compositor
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual._context import active_app
from textual._node_list import NodeList
from textual._styles_cache import StylesCache
from textual.app import App
from textual.cache import FIFOCache, LRUCache
from textual.color import Color
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.tokenize import tokenize_values
from textual.css.tokenizer import Token
from textual.dom import DOMNode
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
    _arrange_without_cycle()
    _unlinked_lru_cache()
    _node_tracking()
    _inner_outer_shared()


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


# --- memory: an ended app freed by reference counting -------------------------------------
_NODES = "_mj_nodes"  # the app's WeakSet of the nodes made while it runs (``track_nodes``)
# what is read of an app after it ran: its result, its exit code, what ended it, and (the
# server's table app) whether the player ended the whole session
RELEASE_KEEPS = frozenset({"_return_value", "_return_code", "_exception", "ends_session"})
# what a node taken apart is left with: closed, unmounted, detached, its app exited, so that
# a late callback's own checks (``is_attached``, ``is_running``, ``post_message``) find it ended
_TOMBSTONE = {"_MessagePump__parent": None, "_closing": True, "_closed": True,
              "_running": False, "_is_mounted": False}
RELEASED = "_mj_released"  # set (True) on an app taken apart


def _arrange_without_cycle() -> None:
    """``Compositor._arrange_root``, whose nested ``add_widget`` calls itself, so that the
    function and its closure (the map and set of every widget laid out) are a cycle once it
    returns: the same method, compiled from Textual's own source with the closure let go of
    before it returns. Left as it is if the source is not the one this was written for."""
    compositor = textual._compositor.Compositor
    method = compositor._arrange_root
    if getattr(method, "_mj_fixed", False):
        return
    try:
        source = textwrap.dedent(inspect.getsource(method))
        filename = inspect.getsourcefile(method) or "<textual._compositor>"
    except (OSError, TypeError):
        return
    end = "    widgets -= invisible_widgets\n    return map, widgets\n"
    if source.count(end) != 1 or "\n    def add_widget(" not in source:
        return
    source = source.replace(
        end, "    widgets -= invisible_widgets\n    del add_widget\n    return map, widgets\n")
    # the same line numbers as Textual's file, for tracebacks
    first = method.__code__.co_firstlineno
    code = compile("\n" * (first - 1) + source, filename, "exec",
                   flags=__future__.annotations.compiler_flag, dont_inherit=True)
    namespace: dict[str, Any] = {}
    exec(code, vars(textual._compositor), namespace)  # Textual's own source, one line added
    fixed = namespace["_arrange_root"]
    fixed.__qualname__ = method.__qualname__
    fixed._mj_fixed = True
    compositor._arrange_root = fixed  # type: ignore[method-assign]


def _unlink(cache: LRUCache[Any, Any]) -> None:
    """Empty an ``LRUCache``, unlinking its ring of entries ([prev, next, key, value])."""
    try:
        entries = cache._cache
    except AttributeError:  # not yet made (or already taken apart)
        return
    for link in entries.values():
        link.clear()
    entries.clear()
    cache._full = False
    cache._head = []


def _unlinked_lru_cache() -> None:
    """``LRUCache.clear`` unlinks the entries' ring, and so does a cache being freed: each
    entry was a cycle with its neighbours, left for the collector with its key and value."""
    if getattr(LRUCache.clear, "_mj_fixed", False):
        return

    def clear(self: LRUCache[Any, Any]) -> None:
        """Clear the cache."""
        _unlink(self)

    clear._mj_fixed = True  # type: ignore[attr-defined]
    LRUCache.clear = clear  # type: ignore[method-assign]
    LRUCache.__del__ = _unlink  # type: ignore[attr-defined]


def _node_tracking() -> None:
    """Each node made while an app that ``track_nodes`` runs is added to that app's set (a
    ``WeakSet``: a node freed by reference counting drops out of it)."""
    init = DOMNode.__init__
    if getattr(init, "_mj_fixed", False):
        return

    def tracked_init(self: DOMNode, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        try:
            app = active_app.get()
        except LookupError:
            return
        nodes = app.__dict__.get(_NODES)
        if nodes is not None:
            nodes.add(self)

    tracked_init.__doc__ = init.__doc__
    tracked_init._mj_fixed = True  # type: ignore[attr-defined]
    DOMNode.__init__ = tracked_init  # type: ignore[method-assign]


def track_nodes(app: App[Any]) -> None:
    """Keep (weakly) every node made while ``app`` runs, for ``release_app``. Call it before
    the app runs (``apply()`` must have been called)."""
    if _NODES not in app.__dict__:
        app.__dict__[_NODES] = weakref.WeakSet()


def _nodes_in(value: Any, depth: int = 2) -> Iterable[DOMNode]:
    """The nodes ``value`` is or holds in its containers (lists, tuples, sets, dicts, a node's
    children), ``depth`` containers deep: the app's screen stacks are a dict of lists."""
    if isinstance(value, DOMNode):
        yield value
    elif depth <= 0:
        return
    elif isinstance(value, list | tuple | set | frozenset | NodeList):
        for v in value:
            yield from _nodes_in(v, depth - 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes_in(k, depth - 1)
            yield from _nodes_in(v, depth - 1)


def release_app(app: App[Any]) -> int:
    """Take apart an app that has run to its end (``run_async`` returned) so that reference
    counting frees it: every node made while it ran (``track_nodes``), every node those hold,
    and the app itself drop what they hold (their caches unlinked first), but for what
    ``RELEASE_KEEPS`` names on the app (the exception without its traceback); callbacks they
    scheduled and kept the handle of are cancelled. What is left says closed, unmounted and
    exited (``_TOMBSTONE``; and ``RELEASED`` on the app), which Textual's own checks in a late
    callback read (``is_attached``, ``is_running``, ``post_message``); nothing else of the app
    may be used afterwards. Returns the number of nodes taken apart."""
    state = app.__dict__
    tracked = state.pop(_NODES, None)
    pending: list[DOMNode] = list(tracked) if tracked is not None else []
    animator = state.get("_animator")  # it and its timer hold each other, and the app
    seen: set[int] = {id(app)}
    released = 0
    for value in list(state.values()):
        pending.extend(_nodes_in(value))
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for value in list(node.__dict__.values()):
            pending.extend(_nodes_in(value))
            _let_go(value)
        node.__dict__.clear()
        node.__dict__.update(_TOMBSTONE)
        released += 1
    if animator is not None and hasattr(animator, "__dict__"):
        animator.__dict__.clear()
    for name in list(state):
        if name not in RELEASE_KEEPS:
            _let_go(state.pop(name))
    _without_tracebacks(state.get("_exception"))
    state.update(_TOMBSTONE)
    state["_exit"] = True
    state[RELEASED] = True
    return released


def _without_tracebacks(error: Any) -> None:
    """The exception that ended an app (kept: its ``repr`` is logged) without its traceback
    and those of its causes: their frames held the app and its nodes, a cycle again."""
    seen: set[int] = set()
    while isinstance(error, BaseException) and id(error) not in seen:
        seen.add(id(error))
        error.__traceback__ = None
        error = error.__cause__ or error.__context__


def _let_go(value: Any) -> None:
    """What a node being taken apart held: a cache is unlinked, a callback it scheduled (and
    kept the handle of) is cancelled."""
    if isinstance(value, LRUCache):
        _unlink(value)
    elif isinstance(value, asyncio.Handle):
        value.cancel()


def _inner_outer_shared() -> None:
    """``StylesCache.get_inner_outer`` cached on the two colours only, not on the widget's
    style cache as well (which the process-wide cache kept alive, with its lines)."""
    method = StylesCache.get_inner_outer
    if getattr(method, "_mj_fixed", False):
        return
    original = getattr(method, "__wrapped__", None)
    if original is None:  # not the cached method this was written for
        return

    @lru_cache(1024)
    def inner_outer(base_background: Color, background: Color) -> tuple[Any, Any]:
        return original(None, base_background, background)  # type: ignore[no-any-return]

    def get_inner_outer(self: StylesCache, base_background: Color,
                        background: Color) -> tuple[Any, Any]:
        return inner_outer(base_background, background)

    get_inner_outer.__doc__ = original.__doc__
    get_inner_outer._mj_fixed = True  # type: ignore[attr-defined]
    StylesCache.get_inner_outer = get_inner_outer  # type: ignore[assignment, method-assign]
