"""Style caches not kept alive process-wide. Upstream: Textual issue 6665
("StylesCache.get_inner_outer retains whole StylesCache objects via lru_cache").

``StylesCache.get_inner_outer``, a method cached process-wide with ``lru_cache(1024)``, would
keep the last 1,024 widgets' style caches (every line each had drawn) alive through its keys,
sessions long gone; its answer depends only on the two colours, which the fix makes the key."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from textual._styles_cache import StylesCache
from textual.color import Color

from tui.compat.compat_guard import fixed, install, skip


def inner_outer_shared() -> None:
    """``StylesCache.get_inner_outer`` cached on the two colours only."""
    patch = "styles_cache_inner_outer"
    method = getattr(StylesCache, "get_inner_outer", None)
    if method is None:
        skip(patch, "StylesCache.get_inner_outer is gone")
        return
    if fixed(method):
        return
    original = getattr(method, "__wrapped__", None)
    if original is None:  # not the cached method this was written for
        skip(patch, "StylesCache.get_inner_outer is not an lru_cache")
        return

    @lru_cache(1024)
    def inner_outer(base_background: Color, background: Color) -> tuple[Any, Any]:
        return original(None, base_background, background)  # type: ignore[no-any-return]

    def get_inner_outer(self: StylesCache, base_background: Color,
                        background: Color) -> tuple[Any, Any]:
        return inner_outer(base_background, background)

    install(StylesCache, "get_inner_outer", get_inner_outer, original)
