"""An ``LRUCache`` unlinked when cleared or freed. Upstream: not reported yet; report drafted in
docs/upstream.md, "LRUCache entries stay a reference cycle".

``textual.cache.LRUCache`` links its entries in a ring (``[prev, next, key, value]``), which stays
a cycle, with every key and value in it, after ``clear()`` or once the cache is dropped: left for
the collector. The fix unlinks the ring."""

from __future__ import annotations

from typing import Any

from textual.cache import LRUCache

from tui.compat.compat_guard import fixed, install, own_method, skip


def unlink(cache: LRUCache[Any, Any]) -> None:
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


def unlinked_lru_cache() -> None:
    """``LRUCache.clear`` unlinks the entries' ring, and so does a cache being freed."""
    patch = "lru_cache_unlinked"
    clear_stock = own_method(patch, LRUCache, "clear", ("self",))
    if clear_stock is None or fixed(clear_stock):
        return
    if not {"_cache", "_full", "_head"} <= set(getattr(LRUCache, "__slots__", ())):
        skip(patch, "LRUCache has no _cache, _full and _head slots")
        return

    def clear(self: LRUCache[Any, Any]) -> None:
        """Clear the cache."""
        unlink(self)

    install(LRUCache, "clear", clear)
    LRUCache.__del__ = unlink  # type: ignore[attr-defined]
