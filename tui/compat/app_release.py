"""An ended app freed by reference counting. Upstream: Textual has no way to free an ended app but
a full collection; not reported yet: report drafted in docs/upstream.md, "An ended App is freed
only by a full collection".

An app is a web of reference cycles (every node and its styles, signals, bindings, message
queue), freed only by a full collection, which the server makes rare: a server whose sessions
come and go would grow without end (``python -m bench churn``)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import weakref
from collections.abc import Iterable
from typing import Any

from textual._node_list import NodeList
from textual.app import App
from textual.cache import LRUCache
from textual.dom import DOMNode

from tui.compat import internals
from tui.compat.compat_guard import fixed, install, own_method, skip
from tui.compat.lru_unlinked import unlink

_NODES = "_mj_nodes"  # the app's WeakSet of the nodes made while it runs (``track_nodes``)
# what is read of an app after it ran: its result, its exit code, what ended it, and (the
# server's table app) whether the player ended the whole session
RELEASE_KEEPS = frozenset({"_return_value", "_return_code", "_exception", "ends_session"})
# what a node taken apart is left with: closed, unmounted, detached, its app exited, so that
# a late callback's own checks (``is_attached``, ``is_running``, ``post_message``) find it ended
_TOMBSTONE = {"_MessagePump__parent": None, "_closing": True, "_closed": True,
              "_running": False, "_is_mounted": False}
RELEASED = "_mj_released"  # set (True) on an app taken apart


def node_tracking() -> None:
    """Each node made while an app that ``track_nodes`` runs is added to that app's set (a
    ``WeakSet``: a node freed by reference counting drops out of it)."""
    patch = "node_tracking"
    init = DOMNode.__init__
    if fixed(init):
        return
    active_app = internals.active_app
    if active_app is None:
        skip(patch, "textual._context.active_app is gone")
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

    install(DOMNode, "__init__", tracked_init, init)


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
        pending.extend(take_apart(node))
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


RELEASE_ON_REMOVE = "RELEASE_ON_REMOVE"  # a screen class's flag: made for one showing


def _subtree(screen: DOMNode) -> list[DOMNode]:
    """``screen`` and every node it holds whose parents lead to it (its widgets, their
    scroll bars and component-class nodes), found before any is taken apart: what they hold
    of the app or of other screens is left alone."""
    mine: dict[int, DOMNode] = {id(screen): screen}
    pending = [screen]
    while pending:
        node = pending.pop()
        for value in list(node.__dict__.values()):
            for held in _nodes_in(value):
                if id(held) in mine:
                    continue
                parent = getattr(held, "_parent", None)  # held weakly: no cycle there
                while parent is not None and parent is not screen:
                    parent = getattr(parent, "_parent", None)
                if parent is screen:
                    mine[id(held)] = held
                    pending.append(held)
        for styles in node.__dict__.get("_component_styles", {}).values():
            virtual = getattr(styles, "node", None)  # held by its styles alone
            if isinstance(virtual, DOMNode) and id(virtual) not in mine:
                mine[id(virtual)] = virtual
    return list(mine.values())


def screens_released() -> None:
    """A screen whose class sets ``RELEASE_ON_REMOVE`` (made for one showing: help,
    settings, a form, the chat) is taken apart, with its nodes, on the loop's turn after
    Textual has removed it. Upstream: as ``release_app`` (docs/upstream.md, "An ended App is
    freed only by a full collection"): a closed screen, a web of cycles too, would wait for a
    full collection, which a server that freezes its survivors never makes
    (``net.serve.freeze_survivors``)."""
    patch = "screens_released"
    replace = own_method(patch, App, "_replace_screen", ("self", "screen"))
    if replace is None or fixed(replace):
        return

    async def replace_released(self: App[Any], screen: Any) -> Any:
        nodes = _subtree(screen) if getattr(screen, RELEASE_ON_REMOVE, False) else None
        result = await replace(self, screen)
        if nodes and not screen.is_attached:  # removed: in no stack, not installed
            # once every node's message loop has ended (a removed screen may still run an idle
            # callback), in a context of its own: the app's would hold it
            running = [task for node in nodes
                       if isinstance(task := node.__dict__.get("_task"), asyncio.Task)
                       and not task.done()]
            asyncio.get_running_loop().create_task(_release_after(nodes, running),
                                                   context=contextvars.Context())
        return result

    install(App, "_replace_screen", replace_released, replace)


SCREEN_RELEASE_WAIT = 10.0  # seconds a removed screen's loops may take to end, else it is left
SCREEN_RELEASE_AFTER = 2.0  # seconds after that: what other nodes scheduled of it has run


class _Inert:
    """What a taken-apart screen's node gives for an attribute it no longer has: a callback
    of another node's that still names it (``call_after_refresh(screen.refresh_bindings)``)
    then does nothing instead of failing."""

    def __getattr__(self, name: str) -> _Inert:
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        return None

    def __bool__(self) -> bool:
        return False

    def __iter__(self) -> Any:
        return iter(())


_INERT = _Inert()
_inert_types: dict[type, type] = {}


def _inert(node: DOMNode) -> None:
    """``node``, taken apart, answers any attribute it lacks with :data:`_INERT`."""
    cls = type(node)
    inert = _inert_types.get(cls)
    if inert is None:
        inert = _inert_types[cls] = type(cls.__name__, (cls,), {
            "__getattr__": lambda self, name: _INERT, "__module__": cls.__module__})
    with contextlib.suppress(TypeError):  # a layout that cannot change class: left as is
        node.__class__ = inert


async def _release_after(nodes: list[DOMNode], running: list[asyncio.Task[Any]]) -> None:
    """Take ``nodes`` apart once ``running`` (their message loops) have ended and
    ``SCREEN_RELEASE_AFTER`` more seconds have passed; if the loops have not ended within
    ``SCREEN_RELEASE_WAIT``, leave them whole (the collector's, as before)."""
    if running:
        _, pending = await asyncio.wait(running, timeout=SCREEN_RELEASE_WAIT)
        if pending:
            return
    await asyncio.sleep(SCREEN_RELEASE_AFTER)
    for node in nodes:  # (again, harmless, if its app ended meanwhile and took it apart)
        take_apart(node)
        _inert(node)


def take_apart(node: DOMNode) -> list[DOMNode]:
    """``node`` drops what it holds (its caches unlinked, the callbacks it kept the handle of
    cancelled) and is left closed, unmounted and detached (``_TOMBSTONE``). Returns the nodes
    it held (its parent, children, screens), which are not taken apart here."""
    held: list[DOMNode] = []
    for value in list(node.__dict__.values()):
        held.extend(_nodes_in(value))
        _let_go(value)
    node.__dict__.clear()
    node.__dict__.update(_TOMBSTONE)
    return held


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
        unlink(value)
    elif isinstance(value, asyncio.Handle):
        value.cancel()
