"""A strip never caches itself. Upstream: not reported yet; report drafted in docs/upstream.md,
"Strip.divide and Strip.crop_extend cache the strip in itself".

A ``Strip`` caches what it derives in its own caches, and two of them can hold the strip itself:
``divide`` at the strip's own end (the compositor divides every line it draws, and for a
full-width line that is the one cut) and ``crop_extend`` to its own width. A strip that refers to
itself is cyclic garbage once dropped, so every line drawn would be left for the garbage
collector, whose pauses stop every session of the server. The fixes return what the originals
return in those cases, without caching the strip in itself."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.style import Style
from textual.strip import Strip

from tui.compat.compat_guard import fixed, install, own_method


def divide_self() -> None:
    """``Strip.divide`` at the strip's own end returns the strip, not cached in itself."""
    divide = own_method("strip_divide_self", Strip, "divide", ("self", "cuts"))
    if divide is None or fixed(divide):
        return

    def divide_fixed(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
        cuts = list(cuts)
        if len(cuts) == 1 and cuts[0] == self.cell_length:
            return [self]
        return divide(self, cuts)  # type: ignore[no-any-return]

    install(Strip, "divide", divide_fixed, divide)


def crop_extend_self() -> None:
    """``Strip.crop_extend`` to the strip's own width returns the strip, not cached in itself."""
    crop_extend = own_method("strip_crop_extend_self", Strip, "crop_extend",
                             ("self", "start", "end", "style"))
    if crop_extend is None or fixed(crop_extend):
        return

    def crop_extend_fixed(self: Strip, start: int, end: int, style: Style | None) -> Strip:
        if start <= 0 and end == self.cell_length:  # extend: nothing; crop: the whole strip
            return self
        return crop_extend(self, start, end, style)  # type: ignore[no-any-return]

    install(Strip, "crop_extend", crop_extend_fixed, crop_extend)
