"""Text that stays readable when the terminal has fewer colours than the theme.

A theme's colours are reduced one by one to what the client can show (16 colours for PuTTY's
and Xshell's default ``TERM=xterm``, 256 for ``xterm-256color``); two colours far apart in 24-bit
colour can become the same one of 16: the contrast theme's green 條 on its sky-blue 宝 wild, or
its purple dragons on a white tile, become cyan on cyan and white on white. :func:`legible`
gives such a style black or white text, whichever stands out from the reduced background. In
16 colours a pair must be readable in each of the common clients' palettes (xterm's, PuTTY's,
Windows Terminal's), which differ.
"""

from __future__ import annotations

from rich.color import Color, ColorSystem, ColorType
from rich.color_triplet import ColorTriplet
from rich.style import Style

MIN_CONTRAST = 2.0  # below this ratio (WCAG's measure, 1 to 21) the text is not read
_SYSTEMS = {"standard": ColorSystem.STANDARD, "256": ColorSystem.EIGHT_BIT,
            "truecolor": ColorSystem.TRUECOLOR, "windows": ColorSystem.WINDOWS}
BLACK, WHITE = Color.parse("black"), Color.parse("bright_white")


def _luminance(c: ColorTriplet) -> float:
    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.red) + 0.7152 * channel(c.green) + 0.0722 * channel(c.blue)


def contrast(a: ColorTriplet, b: ColorTriplet) -> float:
    """WCAG's contrast ratio of two colours: 1 (the same) to 21 (black on white)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _shown(color: Color, system: ColorSystem) -> ColorTriplet:
    return color.downgrade(system).get_truecolor()


def _hex(*colours: str) -> tuple[ColorTriplet, ...]:
    return tuple(ColorTriplet(int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16))
                 for c in colours)


# The 16 colours as common clients draw them: what a theme colour reduced to one of them
# looks like depends on the client, so a pair must be readable in each.
PALETTES: tuple[tuple[ColorTriplet, ...], ...] = (
    _hex("000000", "cd0000", "00cd00", "cdcd00", "0000ee", "cd00cd", "00cdcd", "e5e5e5",  # xterm
         "7f7f7f", "ff0000", "00ff00", "ffff00", "5c5cff", "ff00ff", "00ffff", "ffffff"),
    _hex("000000", "bb0000", "00bb00", "bbbb00", "0000bb", "bb00bb", "00bbbb", "bbbbbb",  # PuTTY
         "555555", "ff5555", "55ff55", "ffff55", "5555ff", "ff55ff", "55ffff", "ffffff"),
    _hex("0c0c0c", "c50f1f", "13a10e", "c19c00", "0037da", "881798", "3a96dd", "cccccc",
         "767676", "e74856", "16c60c", "f9f1a5", "3b78ff", "b4009e", "61d6d6", "f2f2f2"),
)  # the last: Windows Terminal and the Windows console ("Campbell")


def _contrast_shown(fg: Color, bg: Color, system: ColorSystem) -> float:
    """The contrast of two colours as the terminal shows them: in 16 colours, the lowest
    over the common clients' palettes."""
    if system is ColorSystem.STANDARD:
        a, b = fg.downgrade(system).number, bg.downgrade(system).number
        if a is not None and b is not None and 0 <= a < 16 and 0 <= b < 16:
            return min(contrast(p[a], p[b]) for p in PALETTES)
    return contrast(_shown(fg, system), _shown(bg, system))


def legible(style: Style, color_system: str | None) -> Style:
    """``style``, with black or white text instead of its colour where that colour, as the
    terminal shows it (``color_system``: Rich's name), would not stand out from the
    background. Styles without both colours, or in a terminal without colours, are kept."""
    system = _SYSTEMS.get(color_system or "")
    fg, bg = style.color, style.bgcolor
    if (system is None or fg is None or bg is None or fg.type is ColorType.DEFAULT
            or bg.type is ColorType.DEFAULT):
        return style
    if _contrast_shown(fg, bg, system) >= MIN_CONTRAST:
        return style
    best = max((BLACK, WHITE), key=lambda c: _contrast_shown(c, bg, system))
    if best is BLACK and system is ColorSystem.STANDARD:  # bold black is drawn grey by most
        return style + Style(color=best, bold=False)  # 16-colour terminals (xterm, PuTTY)
    return style + Style(color=best)
