"""A style's codes per colour system. Upstream: not reported yet; reports drafted in
docs/upstream.md, "Strip.render_style reuses a style's ANSI codes whatever the colour system"
and "Strip.blank's strips are shared, with what the first console rendered".

``Strip.render_style`` takes a style's escape codes from ``Style._ansi``, which the first
rendering of that (shared) style set for its own colour system. In a server whose sessions'
terminals differ (PuTTY's 16 colours, Terminal.app's 256, 24-bit) a session then gets another
session's codes. Here the codes are made per (style, colour system), kept in a cache of their
own, and never left in the style.

``Strip.blank`` is cached (``lru_cache``): the same strip for every caller, and a strip keeps
the terminal text it was first rendered to (``_render_cache``), whatever console renders it
next. Here each call makes a strip of its own around the cached segment."""

from __future__ import annotations

from functools import lru_cache

from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tui.compat.compat_guard import fixed, has, mark_fixed, skip


def codes_per_color_system() -> None:
    patch = "strip_codes_per_color_system"
    render_style = Strip.__dict__.get("render_style")
    render_ansi = Strip.__dict__.get("render_ansi")
    raw = getattr(getattr(render_ansi, "__func__", None), "__wrapped__", None)
    if not isinstance(render_style, classmethod) or raw is None or not callable(raw):
        skip(patch, "Strip.render_style / render_ansi are not the cached classmethods")
        return
    if fixed(render_style.__func__):
        return
    if not has(Style, "_ansi"):
        skip(patch, "rich's Style keeps no _ansi")
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
    mark_fixed(render_style_fixed)
    Strip.render_ansi = classmethod(render_ansi_fixed)  # type: ignore[method-assign,assignment]
    Strip.render_style = classmethod(render_style_fixed)  # type: ignore[method-assign,assignment]


def blank_strips_per_call() -> None:
    """``Strip.blank`` a strip of its own each call (the segment cached), so that what it is
    rendered to for one session's colour system is not another session's."""
    patch = "strip_blank_per_call"
    blank = Strip.__dict__.get("blank")
    cached = getattr(blank, "__func__", None)
    if fixed(cached):
        return
    if not isinstance(blank, classmethod) or not hasattr(cached, "cache_clear"):
        skip(patch, "Strip.blank is not the cached classmethod")
        return

    @lru_cache(maxsize=1024)
    def blank_segment(cell_length: int, style: Style | str | None) -> Segment:
        return Segment(" " * cell_length, Style.parse(style) if isinstance(style, str) else style)

    def blank_fixed(cls: type[Strip], cell_length: int, style: Style | str | None = None
                    ) -> Strip:
        return cls([blank_segment(cell_length, style)], cell_length)

    blank_fixed.__doc__ = cached.__doc__
    mark_fixed(blank_fixed)
    Strip.blank = classmethod(blank_fixed)  # type: ignore[method-assign,assignment]
