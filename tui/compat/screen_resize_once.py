"""A screen laid out once as it is first shown. Upstream: not reported yet; report drafted in
docs/upstream.md, "A screen shown for the first time is laid out twice".

The ``Resize`` a screen's first layout sends it, at the same size, lays it out and draws it in
full again. A real resize has a new size, and a widget that changed asks for its own layout, so
a ``Resize`` at the size the compositor is laid out at is ignored: one full layout and repaint
less per screen shown (every connect, every hand's result)."""

from __future__ import annotations

from typing import Any

import textual._compositor
from textual import events
from textual.screen import Screen

from tui.compat.compat_guard import fixed, has, install, own_method, skip


def screen_resize_once() -> None:
    """``Screen._on_resize`` ignores a ``Resize`` at the size the screen is laid out at."""
    patch = "screen_resize_once"
    screen_on_resize = own_method(patch, Screen, "_on_resize", ("self", "event"))
    if screen_on_resize is None or fixed(screen_on_resize):
        return
    compositor = textual._compositor.Compositor
    if not has(Screen, "_compositor") or not (has(compositor, "size")
                                              and has(compositor, "layers")):
        skip(patch, "Screen._compositor has no size or layers")
        return

    async def screen_on_resize_once(self: Screen[Any], event: events.Resize) -> None:
        if event.size == self._compositor.size and self._compositor.layers:
            event.stop()  # already laid out and drawn at this size
            return
        await screen_on_resize(self, event)

    install(Screen, "_on_resize", screen_on_resize_once)
