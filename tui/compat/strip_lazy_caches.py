"""A strip's caches made when first used. Upstream: not reported yet; report drafted in
docs/upstream.md, "Every Strip makes seven caches".

A ``Strip`` makes seven caches (``FIFOCache`` objects) as it is made, and most strips use one or
none of them: each cache is made when first used instead, so that a strip drawn into a terminal
is one object for the collector to scan, not eight."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.segment import Segment
from textual.cache import FIFOCache
from textual.strip import Strip

from tui.compat.compat_guard import fixed, install, own_method, skip

# Strip's caches and their sizes in Textual 8 (``Strip.__init__``)
STRIP_CACHES = {"_divide_cache": 4, "_crop_cache": 16, "_style_cache": 16, "_filter_cache": 4,
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


def lazy_strip_caches() -> None:
    """Make a ``Strip``'s seven caches when first used: most strips use one or none."""
    patch = "strip_lazy_caches"
    init = own_method(patch, Strip, "__init__", ("self", "segments", "cell_length"))
    if init is None or fixed(init):
        return
    if set(getattr(Strip, "__slots__", ())) != {*STRIP_CACHES, *_STRIP_OTHERS}:
        skip(patch, "Strip.__slots__ are not the ones this was written for")
        return
    for name, size in STRIP_CACHES.items():
        setattr(Strip, name, _CacheOnFirstUse(Strip.__dict__[name], size))

    def strip_init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None
                   ) -> None:
        self._segments = list(segments)
        self._cell_length = cell_length
        self._render_cache = None
        self._link_ids = None
        self._cell_count = None

    install(Strip, "__init__", strip_init, init)
