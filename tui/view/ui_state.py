"""What a table screen adds to the engine's view (cursor, open prompt, message, options), kept
apart so every part of the table's drawing can read it without depending on the others."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.tiles import Kind
from tui.view.faces import Face
from tui.view.prompts import Prompt


@dataclass
class UiState:
    """What the screen adds to a view: the cursor, the open prompt, messages, options."""

    face: Face = Face.CJK
    lang: str = "en"
    cursor: int = 0
    prompt: Prompt | None = None
    selected: int = 0  # highlighted choice of the prompt
    message: str = ""
    show_waits: bool = True
    show_suggestion: bool = False
    suggestion: Kind | None = None
    now: float = 0.0
    keys: dict[str, str] = field(default_factory=dict)  # binding id -> key shown in hints
    small_waits: bool = True  # the table waits while the terminal is too small (not if shared)
    # the auto toggles on, of AUTO_TOGGLES' order ("pass", "win", "discard"): the status line
    # says them
    auto: tuple[str, ...] = ()
    # the table plays this seat at once (its timer ran out twice) until a key: the status
    # line says so
    away: bool = False
    # a coach table's seated player (the option coach=on): the hints name the coach's key
    coach: bool = False


AUTO_TOGGLES = ("pass", "win", "discard")  # no calls, auto-win, auto-discard the drawn tile
