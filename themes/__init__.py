"""Themes: :class:`textual.theme.Theme` objects plus the ``.tcss`` files that use them.

``table.tcss`` styles every screen with theme variables only (``$tile-man``, ``$table-bg`` …);
each theme sets those variables. ``classic.tcss``, ``dark.tcss`` and ``contrast.tcss`` hold
the few rules a theme changes beyond colour (scoped by the ``-theme-…`` class the app sets).
No logic lives here.
"""

from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

HERE = Path(__file__).parent

# Variables every table style uses; a theme that lacks one falls back to these.
DEFAULT_VARIABLES: dict[str, str] = {
    "table-bg": "#0b4d2c",
    "table-fg": "#eef2e6",
    "table-dim": "#9fbfa8",
    "status-bg": "#06351e",
    "status-fg": "#eef2e6",
    "tile-face": "#f4efdc",
    "tile-man": "#b3141b",
    "tile-pin": "#1746a2",
    "tile-sou": "#12692b",
    "tile-wind": "#222222",
    "tile-dragon": "#7a1fa0",
    "tile-back": "#2f6f9f",
    "tile-sel": "#ffd75f",
    "tile-last": "#ffa94d",
    "tile-claimed": "#c9c1a6",
    "tile-wild": "#ffe8a3",
    "turn": "#ffd75f",
    "hint": "#b8f5c8",
    "error": "#ffb4a8",
    "timer": "#7cd992",
    "timer-low": "#ff7b6b",
}

CLASSIC = Theme(
    name="mahjong-classic",
    primary="#1f7a4a",
    secondary="#ffd75f",
    accent="#ffd75f",
    background="#0b4d2c",
    surface="#0f5c35",
    panel="#0d5530",
    foreground="#eef2e6",
    success="#7cd992",
    warning="#ffa94d",
    error="#ff7b6b",
    dark=True,
    variables=dict(DEFAULT_VARIABLES),
)

DARK = Theme(
    name="mahjong-dark",
    primary="#4b6fa8",
    secondary="#8ab4f8",
    accent="#f6c177",
    background="#121417",
    surface="#1b1e23",
    panel="#23272e",
    foreground="#e6e6e6",
    success="#59d37a",
    warning="#f6c177",
    error="#ff6b6b",
    dark=True,
    variables={
        **DEFAULT_VARIABLES,
        "table-bg": "#121417",
        "table-fg": "#e6e6e6",
        "table-dim": "#8a8f98",
        "status-bg": "#23272e",
        "status-fg": "#e6e6e6",
        "tile-face": "#2a2e35",
        "tile-man": "#ff7070",
        "tile-pin": "#6cb6ff",
        "tile-sou": "#5fd68a",
        "tile-wind": "#f0f0f0",
        "tile-dragon": "#d7a1ff",
        "tile-back": "#3b4a63",
        "tile-sel": "#7a5c00",
        "tile-last": "#8a4b00",
        "tile-claimed": "#1b1e23",
        "tile-wild": "#4a3f10",
        "turn": "#f6c177",
        "hint": "#9be7b0",
        "error": "#ff8f8f",
        "timer": "#59d37a",
        "timer-low": "#ff6b6b",
    },
)

# Okabe–Ito colours (distinguishable with the common colour-vision deficiencies), black on
# white tiles, and every suit also named by its character, so colour is never the only cue.
CONTRAST = Theme(
    name="mahjong-contrast",
    primary="#0072B2",
    secondary="#F0E442",
    accent="#F0E442",
    background="#000000",
    surface="#000000",
    panel="#1a1a1a",
    foreground="#ffffff",
    success="#009E73",
    warning="#E69F00",
    error="#D55E00",
    dark=True,
    variables={
        **DEFAULT_VARIABLES,
        "table-bg": "#000000",
        "table-fg": "#ffffff",
        "table-dim": "#bbbbbb",
        "status-bg": "#ffffff",
        "status-fg": "#000000",
        "tile-face": "#ffffff",
        "tile-man": "#D55E00",
        "tile-pin": "#0072B2",
        "tile-sou": "#009E73",
        "tile-wind": "#000000",
        "tile-dragon": "#CC79A7",
        "tile-back": "#56B4E9",
        "tile-sel": "#F0E442",
        "tile-last": "#E69F00",
        "tile-claimed": "#888888",
        "tile-wild": "#56B4E9",
        "turn": "#F0E442",
        "hint": "#56B4E9",
        "error": "#E69F00",
        "timer": "#56B4E9",
        "timer-low": "#E69F00",
    },
)

THEMES: tuple[Theme, ...] = (CLASSIC, DARK, CONTRAST)
THEME_NAMES: tuple[str, ...] = tuple(t.name for t in THEMES)

CSS_PATHS: tuple[Path, ...] = (
    HERE / "table.tcss",
    HERE / "classic.tcss",
    HERE / "dark.tcss",
    HERE / "contrast.tcss",
)
