"""The compat modules' guards: a patch whose target is gone or has another shape leaves the
library's stock behaviour and says so in exactly one log line; with the locked versions, none
falls back."""

from __future__ import annotations

import asyncio.selector_events
import logging
from collections.abc import Callable
from typing import Any

import asyncssh.channel
import asyncssh.connection
import asyncssh.packet
import pytest
import textual._compositor
import textual.app as textual_app
from textual._styles_cache import StylesCache
from textual.cache import LRUCache
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Input, RadioSet

from net.front import compat_asyncssh
from net.limits import Limits
from tui.compat import (
    app_release,
    arrange_without_cycle,
    compat_guard,
    component_nodes,
    inner_outer_shared,
    input_keys_in_order,
    internals,
    lru_unlinked,
    screen_resize_once,
    shared_stylesheet,
    stdout_redirects,
    strip_color_codes,
    strip_lazy_caches,
    strip_self_cache,
)


def _other(*args: Any) -> None:
    """A stand-in of another shape than any patch was written for."""


def _warnings(caplog: pytest.LogCaptureFixture, patch: str) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno == logging.WARNING and f"compat {patch}:" in r.getMessage()]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """No fallback recorded yet in this test (the log line is once per process)."""
    monkeypatch.setattr(compat_guard, "FELL_BACK", {})
    monkeypatch.setattr(compat_asyncssh, "FELL_BACK", {})


TEXTUAL_PATCHES: list[tuple[str, Callable[[], None], Any, str]] = [
    ("strip_divide_self", strip_self_cache.divide_self, Strip, "divide"),
    ("strip_crop_extend_self", strip_self_cache.crop_extend_self, Strip, "crop_extend"),
    ("stylesheet_shared_parse", shared_stylesheet.shared_stylesheet, Stylesheet, "_parse_rules"),
    ("screen_resize_once", screen_resize_once.screen_resize_once, Screen, "_on_resize"),
    ("input_keys_in_order", input_keys_in_order.input_keys_in_order, Input, "_on_key"),
    ("strip_lazy_caches", strip_lazy_caches.lazy_strip_caches, Strip, "__init__"),
    ("compositor_arrange_without_cycle", arrange_without_cycle.arrange_without_cycle,
     textual._compositor.Compositor, "_arrange_root"),
    ("lru_cache_unlinked", lru_unlinked.unlinked_lru_cache, LRUCache, "clear"),
    ("styles_cache_inner_outer", inner_outer_shared.inner_outer_shared, StylesCache,
     "get_inner_outer"),
    ("component_nodes_released", component_nodes.component_nodes_released, Stylesheet,
     "_process_component_classes"),
    ("screens_released", app_release.screens_released, textual_app.App, "_replace_screen"),
    ("strip_blank_per_call", strip_color_codes.blank_strips_per_call, Strip, "blank"),
]
ASYNCSSH_PATCHES: list[tuple[str, Callable[[], None], Any, str]] = [
    ("packet_log_quiet", compat_asyncssh.quiet_packet_log, asyncssh.packet.SSHPacketLogger,
     "_log_packet"),
    ("connection_let_go", lambda: compat_asyncssh.after_cleanup(_other),
     asyncssh.connection.SSHConnection, "_cleanup"),
    ("transport_let_go", compat_asyncssh.transport_lets_go,
     asyncio.selector_events._SelectorTransport, "_call_connection_lost"),
]


@pytest.mark.parametrize(("patch", "apply", "owner", "name"),
                         TEXTUAL_PATCHES + ASYNCSSH_PATCHES,
                         ids=[p[0] for p in TEXTUAL_PATCHES + ASYNCSSH_PATCHES])
def test_a_patch_of_another_shape_keeps_stock_behaviour_and_logs_once(
        patch: str, apply: Callable[[], None], owner: Any, name: str, fresh: None,
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(owner, name, _other)  # as a release that changed it would have it
    caplog.set_level(logging.WARNING)
    apply()
    apply()  # a second try says nothing more
    assert owner.__dict__[name] is _other  # the library's own, not replaced
    assert len(_warnings(caplog, patch)) == 1, caplog.text


@pytest.mark.parametrize(("patch", "apply", "owner", "name"),
                         TEXTUAL_PATCHES + ASYNCSSH_PATCHES,
                         ids=[p[0] for p in TEXTUAL_PATCHES + ASYNCSSH_PATCHES])
def test_a_patch_whose_target_is_gone_adds_nothing_and_logs_once(
        patch: str, apply: Callable[[], None], owner: Any, name: str, fresh: None,
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    if name == "__init__":
        pytest.skip("a class always has an __init__")
    for klass in owner.__mro__:  # gone from the class and its bases
        if name in vars(klass):
            monkeypatch.delattr(klass, name)
    caplog.set_level(logging.WARNING)
    apply()
    assert not hasattr(owner, name)
    assert len(_warnings(caplog, patch)) == 1, caplog.text


def test_node_tracking_without_textuals_active_app(
        fresh: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def init(self: DOMNode, *args: Any, **kwargs: Any) -> None:
        pass

    monkeypatch.setattr(DOMNode, "__init__", init)
    monkeypatch.setattr(internals, "active_app", None)
    caplog.set_level(logging.WARNING)
    app_release.node_tracking()
    assert DOMNode.__init__ is init
    assert len(_warnings(caplog, "node_tracking")) == 1
    assert internals.current_app() is None


def test_redirects_kept_without_textuals_names(
        fresh: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delattr(textual_app, "redirect_stdout")
    caplog.set_level(logging.WARNING)
    stdout_redirects.neutralise_redirects()
    assert not hasattr(textual_app, "redirect_stdout")
    assert len(_warnings(caplog, "app_redirects_for_remote")) == 1


def test_key_dispatch_left_to_textual_without_its_binding_chain(
        fresh: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delattr(Screen, "_modal_binding_chain")
    caplog.set_level(logging.WARNING)
    screen = Screen.__new__(Screen)
    assert internals.modal_binding_chain(screen) is None
    assert internals.modal_binding_chain(screen) is None
    assert len(_warnings(caplog, "key_dispatch_now")) == 1


def test_internals_checked_at_apply(
        fresh: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delattr(StylesCache, "get_inner_outer")  # not an internal read: no effect
    monkeypatch.setitem(internals.INTERNALS, "table_pending_batch",
                        (textual_app.App, ("_no_such_attribute",)))
    caplog.set_level(logging.WARNING)
    internals.check_internals()
    assert list(compat_guard.FELL_BACK) == ["table_pending_batch"]
    assert len(_warnings(caplog, "table_pending_batch")) == 1


def test_console_without_richs_environ_reads_the_process_environment(
        fresh: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.delenv("COLORTERM", raising=False)
    given = internals.terminal_console("xterm-256color", "truecolor", force_terminal=True)
    assert given.is_dumb_terminal is False  # the remote terminal's TERM, not this process's
    monkeypatch.setattr(internals, "CONSOLE_ENVIRON", False)
    caplog.set_level(logging.WARNING)
    stock = internals.terminal_console("xterm-256color", "truecolor", force_terminal=True)
    internals.terminal_console("xterm", "", force_terminal=True)
    assert stock.is_dumb_terminal is True
    assert len(_warnings(caplog, "rich_console_environ")) == 1


def test_auth_failures_left_uncounted_without_asyncssh_method(
        fresh: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(asyncssh.connection.SSHServerConnection, "send_userauth_failure", _other)

    class Conn:
        def send_userauth_failure(self, partial_success: bool) -> None:
            pass

    conn = Conn()
    caplog.set_level(logging.WARNING)
    compat_asyncssh.count_auth_failures(conn, lambda: True)  # type: ignore[arg-type]
    assert "send_userauth_failure" not in vars(conn)  # asyncssh's own, not counted
    assert len(_warnings(caplog, "auth_failures_counted")) == 1


def test_env_requests_stock_without_asyncssh_method(
        fresh: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(asyncssh.channel.SSHServerChannel, "_process_env_request", _other)

    class Chan:
        def __init__(self) -> None:
            self._env: dict[bytes, bytes] = {}

    chan = Chan()
    caplog.set_level(logging.WARNING)
    compat_asyncssh.bound_env(chan, Limits())
    assert "_process_env_request" not in vars(chan)
    assert len(_warnings(caplog, "env_requests_bounded")) == 1


def test_nothing_falls_back_with_the_locked_versions(fresh: None) -> None:
    # apply() ran already in this process (once per process): check each guard again
    for _, apply, _, _ in TEXTUAL_PATCHES + ASYNCSSH_PATCHES[:1]:
        apply()
    app_release.node_tracking()
    internals.check_internals()
    stdout_redirects.neutralise_redirects()
    assert compat_asyncssh.check_all() == {}
    assert internals.CONSOLE_ENVIRON


def test_radio_highlight_left_to_textual_without_its_private_reactive(
        fresh: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delattr(RadioSet, "_selected")
    caplog.set_level(logging.WARNING)
    radio_set = RadioSet.__new__(RadioSet)
    internals.highlight_radio(radio_set, 1)
    internals.highlight_radio(radio_set, 1)
    assert "_selected" not in vars(radio_set)
    assert len(_warnings(caplog, "radio_highlight")) == 1
