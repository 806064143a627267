"""Every use of Textual's and Rich's internals, in one place, each behind a guard.

Outside this module the code uses Textual's and Rich's public API and the small functions here
(``modal_binding_chain``, ``write_rows_target``, ``terminal_console`` ...). Each patch checks,
when ``apply()`` runs, that what it replaces is there with the shape it was written for (the
attribute, callable, its parameters); when not, it leaves Textual's stock behaviour and logs
one warning naming the patch (``FELL_BACK`` lists them, for ``make compat-check``). Each names
the upstream issue it works around, or the section of ``docs/upstream.md`` with the report we
would file. Checked against textual 8.2 and rich 15.0 (the pins in ``requirements.lock``).

The fixes, applied once per process by the entry points (``serve`` and ``play``):

A ``Strip`` caches what it derives in its own caches, and two of them can hold the strip
itself: ``divide`` at the strip's own end (the compositor divides every line it draws, and for
a full-width line that is the one cut) and ``crop_extend`` to its own width. A strip that
refers to itself is cyclic garbage once dropped, so every line drawn would be left for the
garbage collector, whose pauses stop every session of the server.
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
needs (otherwise made by every app, again after each theme change, each token one more
object for the collector to scan).

An ``Input`` inserts a printable key as it handles it, but its own bound keys (backspace,
Ctrl-U, Enter, the arrows) bubble up to the app first, three queues later, and only then run.
Keys that arrive together (one SSH packet: a laggy link, a paste without bracketed paste,
``tmux send-keys``) would be applied out of order: ``abc`` then Backspace + ``q`` would leave
``abc``, and Ctrl-U + ``friday`` + Enter in the lobby would clear the line after typing it and
submit nothing (Textual issue 6605). The fix runs the input's own non-priority bindings as the
input handles the key, as the app would have run them (priority bindings were already checked
on the way down), so every key takes effect in the order typed.

A ``Strip`` makes seven caches (``FIFOCache`` objects) as it is made, and most strips use one or
none of them: each cache is made when first used instead, so that a strip drawn into a
terminal is one object for the collector to scan, not eight.

Memory, for a server whose sessions come and go (``python -m bench churn``). An app is a web of
reference cycles (every node and its styles, its signals, its bindings, its message queue), so
an ended app would be freed only by a full collection, which the server makes rare, and a
server whose sessions come and go would grow without end. ``release_app`` takes an app that has run
to its end apart so that reference counting frees it at once: every node made while it ran
(``track_nodes``) gives up what it holds, and so does the app, but for what is read of it
afterwards (its return value and code, its exception, ``RELEASE_KEEPS``). Two cycles Textual
makes without an app ending are broken too: a laid-out screen's ``Compositor._arrange_root``
calls itself through a closure that holds itself, and with it the map of every widget laid out
(a cycle per layout, holding widgets of screens long gone); an ``LRUCache`` links its entries
in a ring, which stays a cycle after ``clear()`` or once the cache is dropped (the fix unlinks
it). And ``StylesCache.get_inner_outer``, a method cached process-wide with
``lru_cache(1024)``, would keep the last 1,024 widgets' style caches (every line each had
drawn) alive through its keys, sessions long gone; its answer depends only on the two colours,
which the fix makes the key.
"""

from __future__ import annotations
import __future__

import asyncio
import contextlib
import inspect
import logging
import textwrap
import weakref
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import textual._compositor
import textual.app as textual_app
from rich.color import ColorSystem
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual._node_list import NodeList
from textual._styles_cache import StylesCache
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.cache import FIFOCache, LRUCache
from textual.color import Color
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.tokenize import tokenize_values
from textual.css.tokenizer import Token
from textual.dom import DOMNode
from textual.driver import Driver
from textual.geometry import Offset, Region
from textual.keys import Keys
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Input, RadioSet

from tui.compat import compat_guard, term_keys

_active_app: ContextVar[App[Any]] | None
try:  # the app a handler runs in: Textual keeps it in a private context variable
    from textual._context import active_app as _active_app
except ImportError:  # pragma: no cover - only on a Textual that moved it
    _active_app = None
try:  # the synchronized-output markers (DEC mode 2026) Textual writes around a frame
    from textual._ansi_sequences import SYNC_END, SYNC_START
except ImportError:  # pragma: no cover - the same bytes, as the terminal protocol defines them
    SYNC_START, SYNC_END = "\x1b[?2026h", "\x1b[?2026l"


# Textual's, used from here by callers (and the parser for SSH clients)
__all__ = ["SYNC_END", "SYNC_START", "ClientParser", "XTermParser"]

log = logging.getLogger("tui.compat")

# patch (or internal) name -> why it fell back to Textual's stock behaviour, in this process
FELL_BACK: dict[str, str] = {}
_FIXED = "_mj_fixed"  # set on every replacement: a patch applied twice is applied once
_applied = False
_TOKENS = "_Stylesheet__variable_tokens"  # the stylesheet's own (name-mangled) token cache


def _fall_back(patch: str, why: str) -> None:
    """Leave ``patch`` out (Textual's stock behaviour stays), said once per process in the log:
    a Textual release that renamed what a patch needs must not break the game."""
    compat_guard.fall_back(FELL_BACK, log, patch, why)


def _has(cls: type, name: str) -> bool:
    """Whether instances of ``cls`` have attribute ``name``: on the class, or set by one of
    its ``__init__`` methods (found by name in their code, without making an instance)."""
    return hasattr(cls, name) or compat_guard.init_sets(cls, name)


def _method(patch: str, owner: type, name: str, params: Sequence[str]) -> Any | None:
    """``owner.name`` if it is a function whose parameters are ``params`` (the names, in
    order), else None after falling back (``_fall_back``)."""
    return compat_guard.method(_fall_back, patch, owner, name, params, own_first=True)


def _fixed(function: Any) -> bool:
    return bool(getattr(function, _FIXED, False))


def apply() -> None:
    """Every patch, once per process (a second call does nothing): the entry points and the
    test session call it before any app runs."""
    global _applied
    if _applied:
        return
    _applied = True
    _strip_divide_self()
    _strip_crop_extend_self()
    _shared_stylesheet()
    _screen_resize_once()
    _input_keys_in_order()
    _lazy_strip_caches()
    _arrange_without_cycle()
    _unlinked_lru_cache()
    _node_tracking()
    _inner_outer_shared()
    _codes_per_color_system()
    _check_internals()


# --- a style's codes per colour system --------------------------------------------------------
# Upstream: not reported yet; docs/upstream.md, "Strip.render_style reuses a style's ANSI codes
# whatever the colour system".
def _codes_per_color_system() -> None:
    """``Strip.render_style`` takes a style's escape codes from ``Style._ansi``, which the
    first rendering of that (shared) style set for its own colour system. In a server whose
    sessions' terminals differ (PuTTY's 16 colours, Terminal.app's 256, 24-bit) a session then
    gets another session's codes. Here the codes are made per (style, colour system), kept in
    a cache of their own, and never left in the style."""
    patch = "strip_codes_per_color_system"
    render_style = Strip.__dict__.get("render_style")
    render_ansi = Strip.__dict__.get("render_ansi")
    raw = getattr(getattr(render_ansi, "__func__", None), "__wrapped__", None)
    if not isinstance(render_style, classmethod) or raw is None or not callable(raw):
        _fall_back(patch, "Strip.render_style / render_ansi are not the cached classmethods")
        return
    if _fixed(render_style.__func__):
        return
    if not _has(Style, "_ansi"):
        _fall_back(patch, "rich's Style keeps no _ansi")
        return

    @lru_cache(maxsize=16384)
    def codes(style: Style, color_system: ColorSystem) -> str:
        kept = style._ansi
        try:
            return str(raw(Strip, style, color_system))
        finally:
            style._ansi = kept  # the style's own cache is left as Rich had it

    def render_ansi_fixed(cls: type[Strip], style: Style, color_system: ColorSystem) -> str:
        return codes(style, color_system)

    def render_style_fixed(cls: type[Strip], style: Style, text: str,
                           color_system: ColorSystem) -> str:
        ansi = codes(style, color_system)
        output = f"\x1b[{ansi}m{text}\x1b[0m" if ansi else text
        if style._link:
            output = (f"\x1b]8;id={style._link_id};{style._link}\x1b\\{output}"
                      "\x1b]8;;\x1b\\")
        return output

    render_style_fixed.__doc__ = render_style.__func__.__doc__
    render_style_fixed._mj_fixed = True  # type: ignore[attr-defined]
    Strip.render_ansi = classmethod(render_ansi_fixed)  # type: ignore[method-assign,assignment]
    Strip.render_style = classmethod(render_style_fixed)  # type: ignore[method-assign,assignment]


# --- a strip never caches itself ------------------------------------------------------------
# Upstream: not reported yet; docs/upstream.md, "Strip.divide and Strip.crop_extend cache the
# strip in itself".
def _strip_divide_self() -> None:
    """``Strip.divide`` at the strip's own end returns the strip, not cached in itself."""
    divide = _method("strip_divide_self", Strip, "divide", ("self", "cuts"))
    if divide is None or _fixed(divide):
        return

    def divide_fixed(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
        cuts = list(cuts)
        if len(cuts) == 1 and cuts[0] == self.cell_length:
            return [self]
        return divide(self, cuts)  # type: ignore[no-any-return]

    divide_fixed.__doc__ = divide.__doc__
    divide_fixed._mj_fixed = True  # type: ignore[attr-defined]
    Strip.divide = divide_fixed  # type: ignore[method-assign]


# Upstream: as ``_strip_divide_self`` (docs/upstream.md, the same section).
def _strip_crop_extend_self() -> None:
    """``Strip.crop_extend`` to the strip's own width returns the strip, not cached in itself."""
    crop_extend = _method("strip_crop_extend_self", Strip, "crop_extend",
                          ("self", "start", "end", "style"))
    if crop_extend is None or _fixed(crop_extend):
        return

    def crop_extend_fixed(self: Strip, start: int, end: int, style: Style | None) -> Strip:
        if start <= 0 and end == self.cell_length:  # extend: nothing; crop: the whole strip
            return self
        return crop_extend(self, start, end, style)  # type: ignore[no-any-return]

    crop_extend_fixed.__doc__ = crop_extend.__doc__
    crop_extend_fixed._mj_fixed = True  # type: ignore[attr-defined]
    Strip.crop_extend = crop_extend_fixed  # type: ignore[method-assign]


# --- one parse of the same CSS per process --------------------------------------------------
# Upstream: Textual PR 3575 ("parse cache") caches parsed rules per Stylesheet, not across
# apps; the process-wide cache is not reported yet: docs/upstream.md, "Every App parses the
# same CSS again".
def _shared_stylesheet() -> None:
    """``Stylesheet._parse_rules`` and ``_variable_tokens`` served from process-wide caches."""
    patch = "stylesheet_shared_parse"
    parse_rules = _method(patch, Stylesheet, "_parse_rules",
                          ("self", "css", "read_from", "is_default_rules", "tie_breaker",
                           "scope"))
    if parse_rules is None or _fixed(parse_rules):
        return
    if not isinstance(Stylesheet.__dict__.get("_variable_tokens"), property):
        _fall_back(patch, "Stylesheet._variable_tokens is not a property")
        return
    if not (_has(Stylesheet, _TOKENS) and _has(Stylesheet, "_variables")):
        _fall_back(patch, f"Stylesheet has no {_TOKENS} or _variables")
        return
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

    parse_rules_shared._mj_fixed = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = parse_rules_shared  # type: ignore[method-assign]
    Stylesheet._variable_tokens = property(variable_tokens_shared)  # type: ignore[assignment,method-assign]


# --- a screen laid out once as it is first shown --------------------------------------------
# Upstream: not reported yet; docs/upstream.md, "A screen shown for the first time is laid out
# twice".
def _screen_resize_once() -> None:
    """``Screen._on_resize`` ignores a ``Resize`` at the size the screen is laid out at."""
    patch = "screen_resize_once"
    screen_on_resize = _method(patch, Screen, "_on_resize", ("self", "event"))
    if screen_on_resize is None or _fixed(screen_on_resize):
        return
    compositor = textual._compositor.Compositor
    if not _has(Screen, "_compositor") or not (_has(compositor, "size")
                                               and _has(compositor, "layers")):
        _fall_back(patch, "Screen._compositor has no size or layers")
        return

    async def screen_on_resize_once(self: Screen[Any], event: events.Resize) -> None:
        if event.size == self._compositor.size and self._compositor.layers:
            event.stop()  # already laid out and drawn at this size
            return
        await screen_on_resize(self, event)

    screen_on_resize_once._mj_fixed = True  # type: ignore[attr-defined]
    Screen._on_resize = screen_on_resize_once  # type: ignore[method-assign]


# --- keys to an Input in the order typed ----------------------------------------------------
# Upstream: Textual issue 6605 ("Input/Textarea action synchronization bug"); the fix proposed
# in Textual PR 6631 runs the widget's own bindings inline, as this does.
def _input_keys_in_order() -> None:
    """``Input._on_key`` runs the input's own non-priority bindings as it handles the key."""
    patch = "input_keys_in_order"
    input_on_key = _method(patch, Input, "_on_key", ("self", "event"))
    if input_on_key is None or _fixed(input_on_key):
        return
    if not (_has(events.Key, "_stop_propagation") and _has(Input, "_bindings")):
        _fall_back(patch, "Key._stop_propagation or Input._bindings is gone")
        return

    async def input_on_key_in_order(self: Input, event: events.Key) -> None:
        await input_on_key(self, event)
        if event._stop_propagation:  # a printable key, inserted
            return
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                event.stop()  # done here: not bubbled to the app to run again
                event.prevent_default()
                return

    input_on_key_in_order._mj_fixed = True  # type: ignore[attr-defined]
    Input._on_key = input_on_key_in_order  # type: ignore[method-assign]


# --- a strip's caches made when first used --------------------------------------------------
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


# Upstream: not reported yet; docs/upstream.md, "Every Strip makes seven caches".
def _lazy_strip_caches() -> None:
    """Make a ``Strip``'s seven caches when first used: most strips use one or none."""
    patch = "strip_lazy_caches"
    init = _method(patch, Strip, "__init__", ("self", "segments", "cell_length"))
    if init is None or _fixed(init):
        return
    if set(getattr(Strip, "__slots__", ())) != {*_STRIP_CACHES, *_STRIP_OTHERS}:
        _fall_back(patch, "Strip.__slots__ are not the ones this was written for")
        return
    for name, size in _STRIP_CACHES.items():
        setattr(Strip, name, _CacheOnFirstUse(Strip.__dict__[name], size))

    def strip_init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None
                   ) -> None:
        self._segments = list(segments)
        self._cell_length = cell_length
        self._render_cache = None
        self._link_ids = None
        self._cell_count = None

    strip_init.__doc__ = init.__doc__
    strip_init._mj_fixed = True  # type: ignore[attr-defined]
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


# Upstream: not reported yet; docs/upstream.md, "Compositor._arrange_root leaves a reference
# cycle per layout".
def _arrange_without_cycle() -> None:
    """``Compositor._arrange_root``, whose nested ``add_widget`` calls itself, so that the
    function and its closure (the map and set of every widget laid out) are a cycle once it
    returns: the same method, compiled from Textual's own source with the closure let go of
    before it returns. Left as it is if the source is not the one this was written for."""
    patch = "compositor_arrange_without_cycle"
    compositor = textual._compositor.Compositor
    method = getattr(compositor, "_arrange_root", None)
    if method is None or not callable(method):
        _fall_back(patch, "Compositor._arrange_root is gone")
        return
    if _fixed(method):
        return
    try:
        source = textwrap.dedent(inspect.getsource(method))
        filename = inspect.getsourcefile(method) or "<textual._compositor>"
    except (OSError, TypeError):
        _fall_back(patch, "Compositor._arrange_root has no source")
        return
    end = "    widgets -= invisible_widgets\n    return map, widgets\n"
    if source.count(end) != 1 or "\n    def add_widget(" not in source:
        _fall_back(patch, "Compositor._arrange_root's source is not the one this was written for")
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


# Upstream: not reported yet; docs/upstream.md, "LRUCache entries stay a reference cycle".
def _unlinked_lru_cache() -> None:
    """``LRUCache.clear`` unlinks the entries' ring, and so does a cache being freed: each
    entry was a cycle with its neighbours, left for the collector with its key and value."""
    patch = "lru_cache_unlinked"
    clear_stock = _method(patch, LRUCache, "clear", ("self",))
    if clear_stock is None or _fixed(clear_stock):
        return
    if not {"_cache", "_full", "_head"} <= set(getattr(LRUCache, "__slots__", ())):
        _fall_back(patch, "LRUCache has no _cache, _full and _head slots")
        return

    def clear(self: LRUCache[Any, Any]) -> None:
        """Clear the cache."""
        _unlink(self)

    clear._mj_fixed = True  # type: ignore[attr-defined]
    LRUCache.clear = clear  # type: ignore[method-assign]
    LRUCache.__del__ = _unlink  # type: ignore[attr-defined]


# Upstream: Textual has no way to free an ended app by reference counting; not reported yet:
# docs/upstream.md, "An ended App is freed only by a full collection".
def _node_tracking() -> None:
    """Each node made while an app that ``track_nodes`` runs is added to that app's set (a
    ``WeakSet``: a node freed by reference counting drops out of it)."""
    patch = "node_tracking"
    init = DOMNode.__init__
    if _fixed(init):
        return
    if _active_app is None:
        _fall_back(patch, "textual._context.active_app is gone")
        return
    active_app = _active_app

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


# Upstream: Textual issue 6665 ("StylesCache.get_inner_outer retains whole StylesCache objects
# via lru_cache").
def _inner_outer_shared() -> None:
    """``StylesCache.get_inner_outer`` cached on the two colours only, not on the widget's
    style cache as well (which the process-wide cache kept alive, with its lines)."""
    patch = "styles_cache_inner_outer"
    method = getattr(StylesCache, "get_inner_outer", None)
    if method is None:
        _fall_back(patch, "StylesCache.get_inner_outer is gone")
        return
    if _fixed(method):
        return
    original = getattr(method, "__wrapped__", None)
    if original is None:  # not the cached method this was written for
        _fall_back(patch, "StylesCache.get_inner_outer is not an lru_cache")
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


# --- no stdout/stderr redirection for the server's apps -------------------------------------
def _remote(target: Any) -> bool:
    app = getattr(target, "app", None)
    return bool(getattr(app, "mj_remote", False))


# Upstream: not reported yet; docs/upstream.md, "Overlapping apps restore sys.stdout out of
# order".
def neutralise_redirects() -> None:
    """``App._process_messages`` wraps each app's life in ``redirect_stdout``/``stderr``; with
    overlapping sessions they are restored out of order (``sys.stdout`` left pointing at a dead
    app, which is never freed). For apps marked ``mj_remote`` the redirect does nothing. The
    server calls it once per process (not ``apply()``: ``play`` keeps Textual's redirect)."""
    patch = "app_redirects_for_remote"
    real_out = getattr(textual_app, "redirect_stdout", None)
    real_err = getattr(textual_app, "redirect_stderr", None)
    if not (callable(real_out) and callable(real_err)):
        _fall_back(patch, "textual.app has no redirect_stdout and redirect_stderr")
        return
    if _fixed(real_out):
        return

    def redirect_out(target: Any) -> AbstractContextManager[Any]:
        return nullcontext() if _remote(target) else real_out(target)

    def redirect_err(target: Any) -> AbstractContextManager[Any]:
        return nullcontext() if _remote(target) else real_err(target)

    redirect_out._mj_fixed = True  # type: ignore[attr-defined]
    redirect_err._mj_fixed = True  # type: ignore[attr-defined]
    setattr(textual_app, "redirect_stdout", redirect_out)  # noqa: B010 - not a typed name
    setattr(textual_app, "redirect_stderr", redirect_err)  # noqa: B010


# --- internals read (not patched) by the table's fast paths and the SSH driver --------------
# Each falls back to the path Textual takes on its own (a refresh, the compositor, no fast key
# dispatch) when what it reads is gone; ``_check_internals`` says so once at ``apply()``.
_INTERNALS: dict[str, tuple[type, tuple[str, ...]]] = {
    "table_direct_write": (App, ("_driver", "_closed", "_sync_available",
                                 "_previous_cursor_position")),
    "table_screen_update": (Screen, ("_compositor", "_dirty_widgets", "_on_timer_update",
                                     "_layout_required", "_recompose_required",
                                     "_repaint_required")),
    "table_pending_batch": (App, ("_batch_count",)),
    "console_color_system": (Console, ("_color_system",)),
    "key_dispatch_now": (Screen, ("_modal_binding_chain",)),
    "key_parse_action": (App, ("_parse_action",)),
    "app_handle_exception": (App, ("_handle_exception",)),
    "app_state": (App, ("_exit", "_exception", "_screen_stack")),
    "message_queues": (DOMNode, ("_message_queue",)),
    "result_callbacks": (Screen, ("_result_callbacks", "_push_result_callback")),
    "no_tooltips": (App, ("_disable_tooltips",)),
    "radio_highlight": (RadioSet, ("_selected",)),
    "xterm_parser": (XTermParser, ("_timeout_time", "_gen", "_tokens")),
    "xterm_parser_cache": (XTermParser, ("_parse_extended_key",)),
}


def _check_internals() -> None:
    for name, (owner, attrs) in _INTERNALS.items():
        missing = [a for a in attrs if not _has(owner, a)]
        if missing:
            _fall_back(name, f"{owner.__name__} has no {', '.join(missing)}")


def current_app() -> App[Any] | None:
    """The app whose handler is running (Textual's ``active_app``), or None outside one."""
    if _active_app is None:
        return None
    try:
        return _active_app.get()
    except LookupError:
        return None


def refresh_pending(app: App[Any], screen: Screen[Any], widget: Widget) -> bool:
    """Whether ``widget`` must be refreshed as Textual does (its ``refresh``): its screen is
    not the one shown, an update batch is open, a layout, recompose or repaint of the screen
    or the widget is pending, or the widget is not on screen. True when this cannot be told."""
    try:
        return bool(
            screen is not app.screen
            or app._batch_count
            or screen._layout_required
            or screen._recompose_required
            or screen._repaint_required
            or widget._layout_required
            or widget._repaint_required
            or widget not in screen._compositor.visible_widgets
        )
    except AttributeError as error:
        _fall_back("table_screen_update", str(error))
        return True


def update_screen_now(screen: Screen[Any], widget: Widget) -> None:
    """The screen's own update for ``widget`` (what its update timer would run), at once."""
    screen._dirty_widgets.add(widget)
    screen._on_timer_update()


@dataclass(frozen=True, slots=True)
class DirectWrite:
    """What writing rows straight to the terminal needs: the app's driver, what is on screen
    (widget -> region and clip), the console's colours, whether the frame is synchronized."""

    driver: Driver
    visible: Mapping[Widget, tuple[Region, Region]]
    color_system: ColorSystem
    sync: bool


def direct_write(app: App[Any], screen: Screen[Any]) -> DirectWrite | None:
    """A real terminal driver of ``app`` to write ``screen``'s rows to, or None (inline, headless,
    closed, or this Textual's internals not the expected ones): then the compositor draws."""
    try:
        driver = app._driver
        if driver is None or driver.is_inline or app.is_headless or app._closed:
            return None
        visible = screen._compositor.visible_widgets
        color_system = app.console._color_system or ColorSystem.TRUECOLOR
        sync = bool(app._sync_available)
    except AttributeError as error:
        _fall_back("table_direct_write", str(error))
        return None
    return DirectWrite(driver, visible, color_system, sync)


def wrote_cursor(app: App[Any], cursor: Offset) -> None:
    """Tell the app where a direct write left the cursor, as its own frame update does."""
    app._previous_cursor_position = cursor


def modal_binding_chain(screen: Screen[Any]) -> list[tuple[DOMNode, Any]] | None:
    """The (namespace, bindings) pairs a key is checked against on ``screen``, in Textual's
    order, or None when this Textual has no such chain (the key is then left to Textual)."""
    chain = getattr(screen, "_modal_binding_chain", None)
    if chain is None:
        _fall_back("key_dispatch_now", "Screen._modal_binding_chain is gone")
    return chain


def parse_action(app: App[Any], action: Any, namespace: DOMNode
                 ) -> tuple[DOMNode, str, tuple[object, ...]] | None:
    """An action string's (target, name, parameters), as the app resolves it, or None."""
    parse = getattr(app, "_parse_action", None)
    if parse is None:
        _fall_back("key_parse_action", "App._parse_action is gone")
        return None
    return parse(action, namespace)  # type: ignore[no-any-return]


def handle_exception(app: App[Any], error: Exception) -> None:
    """Report ``error`` from a callback as Textual reports an error in a handler (the app
    exits with its traceback); without that internal, the error is raised."""
    handle = getattr(app, "_handle_exception", None)
    if handle is None:
        _fall_back("app_handle_exception", "App._handle_exception is gone")
        raise error
    handle(error)


def exiting(app: App[Any]) -> bool:
    """Whether the app has been asked to exit (True when this cannot be told)."""
    return bool(getattr(app, "_exit", True))


def app_exception(app: App[Any]) -> BaseException | None:
    """The exception that ended the app, if one did."""
    return getattr(app, "_exception", None)


def messages_pending(node: Any) -> bool | None:
    """Whether ``node`` (an app, screen or widget) has messages queued, or None if unknown."""
    queue = getattr(node, "_message_queue", None)
    if queue is None:
        _fall_back("message_queues", "MessagePump._message_queue is gone")
        return None
    return not queue.empty()


def shown_screen(app: App[Any]) -> Screen[Any] | None:
    """The screen on top of the current mode's stack (None before the first is pushed), read
    without the copy that ``App.screen_stack`` makes."""
    stack = getattr(app, "_screen_stack", None)
    if stack is None:
        stack = app.screen_stack
    return stack[-1] if stack else None


def repaint_all(app: App[Any]) -> None:
    """Every cell of the shown screen drawn again with its next update (the terminal drew it
    otherwise: ambiguous width switched, ``tui.compat.ambiwidth``). A ``Resize`` of the same size
    redraws only the widgets whose place changed, which on most screens is none."""
    screen = shown_screen(app)
    if screen is None:
        return
    dirty = getattr(getattr(screen, "_compositor", None), "_dirty_regions", None)
    if isinstance(dirty, set):
        dirty.add(screen.size.region)  # the compositor's "whole screen": a full update
    screen.refresh()


def ensure_result_callback(app: App[Any]) -> None:
    """Give the current screen the result callback ``push_screen`` gives every other screen, so
    that ``switch_screen`` works from the first screen too."""
    screen = app.screen
    if not getattr(screen, "_result_callbacks", True):
        screen._push_result_callback(app, None)


def disable_tooltips(app: App[Any]) -> None:
    """No tooltip widget composed into every screen (the app shows no tooltip)."""
    app._disable_tooltips = True


def highlight_radio(radio_set: RadioSet, index: int) -> None:
    """Move a ``RadioSet``'s keyboard highlight (its private ``_selected``) to ``index``;
    without it the highlight stays where Textual puts it (the first button)."""
    if not _has(RadioSet, "_selected"):
        _fall_back("radio_highlight", "RadioSet._selected is gone")
        return
    radio_set._selected = index


# --- Textual's input parser, driven by the SSH driver ---------------------------------------
def clear_parser_cache() -> None:
    """``XTermParser._parse_extended_key`` is a class-level ``lru_cache`` whose keys hold
    parsers (and through their last key event, whole apps): emptied as a session ends.
    Upstream: not reported yet; docs/upstream.md, "XTermParser's class-level lru_cache keeps
    parsers alive"."""
    cache_clear = getattr(getattr(XTermParser, "_parse_extended_key", None), "cache_clear",
                          None)
    if cache_clear is not None:
        cache_clear()


def parser_in_escape(parser: XTermParser) -> bool:
    """Whether the parser holds the start of an escape sequence (waiting for more, or for its
    timeout). True when this cannot be told: the caller then restarts the parser."""
    return getattr(parser, "_timeout_time", 0) is not None


def finish_parser(parser: XTermParser) -> None:
    """Close the parser's generator and drop its tokens (they hold what it parsed)."""
    gen = getattr(parser, "_gen", None)
    if gen is not None:
        with contextlib.suppress(Exception):  # a generator closed mid-sequence may complain
            gen.close()
    tokens = getattr(parser, "_tokens", None)
    if tokens is not None:
        tokens.clear()


# Upstream: not reported yet; docs/upstream.md, "XTermParser holds a complete unknown sequence
# and replays it as typed keys".
_SEQUENCE_KEYS = getattr(XTermParser, "_sequence_to_key_events", None)
_SEQUENCE_KEYS_OK = callable(_SEQUENCE_KEYS) and list(
    inspect.signature(_SEQUENCE_KEYS).parameters) == ["self", "sequence", "alt"]


class ClientParser(XTermParser):
    """Textual's parser, reading also what common SSH clients send that it does not know
    (``tui.compat.term_keys``): win32-input-mode key reports as their keys, and a complete sequence
    with no key dropped at its final byte (Textual would hold it, then replay it as typed
    characters: table keys the player never pressed). Where Textual's parser has changed
    shape, it is Textual's parser (said once in the log)."""

    def _sequence_to_key_events(self, sequence: str,
                                alt: bool = False) -> Iterable[events.Key]:
        found = list(super()._sequence_to_key_events(sequence, alt))
        if found or not _SEQUENCE_KEYS_OK or len(sequence) < 3:
            return found
        extra = term_keys.extra_key(sequence)
        if extra is None:
            return found
        if not extra.keys:  # dropped: Textual's own way of ignoring a sequence
            return [events.Key(Keys.Ignore, sequence)]
        out: list[events.Key] = []
        for name, char in extra.keys:
            if name is None and char is not None:
                out += super()._sequence_to_key_events(char, alt)
            elif name is not None:
                out.append(events.Key(name, char))
        return out


if not _SEQUENCE_KEYS_OK:
    _fall_back("client_parser", "XTermParser._sequence_to_key_events(self, sequence, alt) "
               "is not there")


# --- Rich -----------------------------------------------------------------------------------
_CONSOLE_ENVIRON = "_environ" in inspect.signature(Console.__init__).parameters


def terminal_console(term: str, colorterm: str, **options: Any) -> Console:
    """A console for a remote terminal: Rich reads TERM and COLORTERM from the environment it
    is given (its private ``_environ``), not this process's. Without that parameter, the
    process's environment is read (Rich's stock behaviour), said once in the log.
    Upstream: not reported yet; docs/upstream.md, "Console has no public environ parameter"."""
    if _CONSOLE_ENVIRON:
        return Console(_environ={"TERM": term, "COLORTERM": colorterm}, **options)
    _fall_back("rich_console_environ", "Console() has no _environ parameter")
    return Console(**options)
