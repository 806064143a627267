"""Player settings, saved between runs as JSON.

The file is ``settings.json`` under ``$MAHJONG_SSH_CONFIG_DIR`` if set (tests point it at a
temporary folder), else ``$XDG_CONFIG_HOME/mahjong-ssh`` (``~/.config/mahjong-ssh``; on Windows
``%APPDATA%\\mahjong-ssh``). Unknown or malformed entries are ignored, never fatal.

``keys`` remaps key bindings by their id, e.g. ``{"win": "w,W", "pass": "x,escape"}`` (the ids
are listed on the help screen).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Self

from engine.rulesets import DEFAULT_RULES
from tui.compat.ambiwidth import AmbiWidth
from tui.view.faces import Face, face_named

CONFIG_ENV = "MAHJONG_SSH_CONFIG_DIR"


def config_dir() -> Path:
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env)
    if sys.platform == "win32" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "mahjong-ssh"
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "mahjong-ssh"


@dataclass
class Settings:
    lang: str = "en"
    tiles: str | None = None  # None: CJK on a UTF-8 locale, else ASCII
    theme: str = "mahjong-classic"
    bot_delay: float = 0.5
    show_waits: bool = True
    show_suggestion: bool = False
    bell: bool = False  # ring the terminal's bell when the table waits for you
    # while the table waits for you: say so in the terminal's title; a desktop notification
    # when you are away (tui.apps.attention)
    turn_title: bool = False
    notify: bool = False
    plain: bool = False  # plain mode for screen readers (tui/plain/front.py) from the next start
    # how the terminal draws East Asian ambiguous-width characters: "auto" (as the probe at
    # the session's start found, ``detected``), "narrow" or "wide" (tui.compat.ambiwidth)
    ambiwidth: str = "auto"
    rules: str = DEFAULT_RULES
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # per ruleset
    keys: dict[str, str] = field(default_factory=dict)  # binding id -> "key1,key2"
    path: Path | None = field(default=None, compare=False, repr=False)
    # the probe's answer for this session's terminal (None: it did not answer); never saved
    detected: bool | None = field(default=None, compare=False, repr=False)
    # this session's terminal, never saved: the cells it drew the probe's glyph tile in (None:
    # no answer), and whether it needs ASCII tiles (a VT, a text console: no CJK, no glyphs)
    glyph_cells: int | None = field(default=None, compare=False, repr=False)
    ascii_only: bool = field(default=False, compare=False, repr=False)
    # whether a face shown other than the saved one is still to be said (once a session)
    face_note_due: bool = field(default=True, compare=False, repr=False)

    # saved to a file between runs (a server session's settings last only for the session)
    persistent: ClassVar[bool] = True

    @classmethod
    def load(cls, path: Path | None = None) -> Self:
        path = path or config_dir() / "settings.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        out = cls.from_data(data if isinstance(data, dict) else {})
        out.path = path
        return out

    def saved_note(self) -> tuple[str, dict[str, str]]:
        """What the settings screen says about keeping them (a text key and its fields)."""
        return "set_saved", {"path": str(self.path or "")}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Self:
        """Settings from saved JSON data; unknown or malformed entries are left out."""
        out = cls()
        if data.get("lang") in ("en", "zh"):
            out.lang = data["lang"]
        if data.get("tiles") in ("cjk", "glyph", "ascii", None):
            out.tiles = data.get("tiles")
        if isinstance(data.get("theme"), str):
            out.theme = data["theme"]
        delay = data.get("bot_delay")
        if isinstance(delay, int | float) and 0 <= delay <= 10:
            out.bot_delay = float(delay)
        if data.get("ambiwidth") in ("auto", "narrow", "wide"):
            out.ambiwidth = data["ambiwidth"]
        for key in ("show_waits", "show_suggestion", "bell", "turn_title", "notify", "plain"):
            if isinstance(data.get(key), bool):
                setattr(out, key, data[key])
        if isinstance(data.get("rules"), str):
            out.rules = data["rules"]
        if isinstance(data.get("options"), dict):
            out.options = {
                k: dict(v) for k, v in data["options"].items() if isinstance(v, dict)
            }
        if isinstance(data.get("keys"), dict):
            out.keys = {str(k): str(v) for k, v in data["keys"].items()}
        return out

    def ambiwide(self) -> bool:
        """Whether to draw for a terminal that draws ambiguous characters two cells wide."""
        choice = AmbiWidth.parse(self.ambiwidth) or AmbiWidth.AUTO
        return choice.wide(self.detected)

    def face_usable(self, face: Face) -> bool:
        """Whether this session's terminal can show ``face``: ASCII everywhere, the others
        not where it needs ASCII, glyph tiles only where they take one cell (or it did not
        say)."""
        if face is Face.ASCII:
            return True
        if self.ascii_only:
            return False
        return face is not Face.GLYPH or self.glyph_cells in (None, 1)

    def face_shown(self, chosen: Face) -> Face:
        """The face drawn for the one chosen: itself where the terminal can show it, else
        CJK for glyph tiles it draws two cells wide, ASCII where it needs ASCII."""
        if self.face_usable(chosen):
            return chosen
        return Face.CJK if self.face_usable(Face.CJK) else Face.ASCII

    def next_usable(self, face: Face) -> Face:
        """``face`` if the terminal can show it, else the first after it that it can (the
        face key's round passes over those it cannot)."""
        while not self.face_usable(face):
            face = face.next()
        return face

    def face_fallback(self) -> str | None:
        """Why the saved face is not the one drawn (a words key), None when it is."""
        chosen = face_named(self.tiles)
        if chosen is None or self.face_usable(chosen):
            return None
        return "face_ascii_only" if self.ascii_only else "face_glyph_wide"

    def save(self) -> Path | None:
        path = self.path or config_dir() / "settings.json"
        data = asdict(self)
        for unsaved in ("path", "detected", "glyph_cells", "ascii_only", "face_note_due"):
            data.pop(unsaved, None)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
        except OSError:
            return None
        return path
