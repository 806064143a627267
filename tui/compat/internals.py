"""The internals of Textual and Rich read (not patched) by the table's fast paths, the key
dispatch, the SSH driver and the apps, each behind a guard. Upstream: not reported yet; report
drafted in docs/upstream.md, "Internals with no public API that an app embedding Textual needs"
(and, for the two below that name theirs, "XTermParser's class-level lru_cache keeps parsers
alive" and Rich's "Console has no public environ parameter").

Each falls back to the path Textual takes on its own (a refresh, the compositor, no fast key
dispatch) when what it reads is gone; ``check_internals`` says so once at ``apply()``."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from rich.color import ColorSystem
from rich.console import Console
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.dom import DOMNode
from textual.driver import Driver
from textual.geometry import Offset, Region
from textual.notifications import Notification
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import RadioSet

from tui.compat.compat_guard import has, skip

active_app: ContextVar[App[Any]] | None
try:  # the app a handler runs in: Textual keeps it in a private context variable
    from textual._context import active_app
except ImportError:  # pragma: no cover - only on a Textual that moved it
    active_app = None
try:  # the synchronized-output markers (DEC mode 2026) Textual writes around a frame
    from textual._ansi_sequences import SYNC_END as SYNC_END
    from textual._ansi_sequences import SYNC_START as SYNC_START
except ImportError:  # pragma: no cover - the same bytes, as the terminal protocol defines them
    SYNC_START, SYNC_END = "\x1b[?2026h", "\x1b[?2026l"

INTERNALS: dict[str, tuple[type, tuple[str, ...]]] = {
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
    "toast_dismiss": (App, ("_unnotify",)),
    "xterm_parser": (XTermParser, ("_timeout_time", "_gen", "_tokens")),
    "xterm_parser_cache": (XTermParser, ("_parse_extended_key",)),
}


def check_internals() -> None:
    for name, (owner, attrs) in INTERNALS.items():
        missing = [a for a in attrs if not has(owner, a)]
        if missing:
            skip(name, f"{owner.__name__} has no {', '.join(missing)}")


def current_app() -> App[Any] | None:
    """The app whose handler is running (Textual's ``active_app``), or None outside one."""
    if active_app is None:
        return None
    try:
        return active_app.get()
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
        skip("table_screen_update", str(error))
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
        skip("table_direct_write", str(error))
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
        skip("key_dispatch_now", "Screen._modal_binding_chain is gone")
    return chain


def parse_action(app: App[Any], action: Any, namespace: DOMNode
                 ) -> tuple[DOMNode, str, tuple[object, ...]] | None:
    """An action string's (target, name, parameters), as the app resolves it, or None."""
    parse = getattr(app, "_parse_action", None)
    if parse is None:
        skip("key_parse_action", "App._parse_action is gone")
        return None
    return parse(action, namespace)  # type: ignore[no-any-return]


def handle_exception(app: App[Any], error: Exception) -> None:
    """Report ``error`` from a callback as Textual reports an error in a handler (the app
    exits with its traceback); without that internal, the error is raised."""
    handle = getattr(app, "_handle_exception", None)
    if handle is None:
        skip("app_handle_exception", "App._handle_exception is gone")
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
        skip("message_queues", "MessagePump._message_queue is gone")
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


def dismiss_notification(app: App[Any], notification: Notification) -> None:
    """Take one toast off the screen before its time (Textual has ``clear_notifications``, for
    all of them, and no public way for one); without the internal, all are cleared."""
    unnotify = getattr(app, "_unnotify", None)
    if unnotify is None:
        skip("toast_dismiss", "App._unnotify is gone")
        app.clear_notifications()
        return
    unnotify(notification)  # one already gone is no error (``Notifications.__delitem__``)


def highlight_radio(radio_set: RadioSet, index: int) -> None:
    """Move a ``RadioSet``'s keyboard highlight (its private ``_selected``) to ``index``;
    without it the highlight stays where Textual puts it (the first button)."""
    if not has(RadioSet, "_selected"):
        skip("radio_highlight", "RadioSet._selected is gone")
        return
    radio_set._selected = index


# --- Textual's input parser, driven by the SSH driver ---------------------------------------
def clear_parser_cache() -> None:
    """``XTermParser._parse_extended_key`` is a class-level ``lru_cache`` whose keys hold
    parsers (and through their last key event, whole apps): emptied as a session ends."""
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


# --- Rich -----------------------------------------------------------------------------------
CONSOLE_ENVIRON = "_environ" in inspect.signature(Console.__init__).parameters


def terminal_console(term: str, colorterm: str, **options: Any) -> Console:
    """A console for a remote terminal: Rich reads TERM and COLORTERM from the environment it
    is given (its private ``_environ``), not this process's. Without that parameter, the
    process's environment is read (Rich's stock behaviour), said once in the log."""
    if CONSOLE_ENVIRON:
        return Console(_environ={"TERM": term, "COLORTERM": colorterm}, **options)
    skip("rich_console_environ", "Console() has no _environ parameter")
    return Console(**options)
