"""The base of the apps that run one viewer on their own (``replay``, ``review``): the
project's stylesheets and themes, the player's face and theme from his settings, no command
palette, ctrl+q to quit (Ctrl-C says so)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from themes import CSS_PATHS, DEFAULT_VARIABLES, THEME_NAMES, THEMES
from tui.apps.quit_hint import QuitHint
from tui.settings import Settings
from tui.view.faces import default_face, face_named


class StandaloneApp(QuitHint, App[Any]):
    CSS_PATH = [str(p) for p in CSS_PATHS]  # noqa: RUF012
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__()
        self.settings = settings or Settings()
        self.face = face_named(self.settings.tiles) or default_face()

    def get_css_variables(self) -> dict[str, str]:
        variables = dict(DEFAULT_VARIABLES)
        variables.update(super().get_css_variables())
        return variables

    def apply_settings_theme(self) -> None:
        """Register the project's themes and take the player's (the first for an unknown
        one); called when the app mounts."""
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = self.settings.theme if self.settings.theme in THEME_NAMES else THEME_NAMES[0]
