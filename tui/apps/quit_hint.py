"""Ctrl-C, which many press to quit: Textual answers it with an English toast of its own
("Press ctrl+q to quit the app"); the apps answer with the catalogue's words instead."""

from __future__ import annotations

from typing import Any

from textual.app import App

from tui.view.result_text import key_label
from words import both, tr


class QuitHint:
    """Mixed into an app (before ``App``): Ctrl-C says which key quits, in the player's
    language (``settings.lang``), or in both before it is known (the lobby)."""

    def action_help_quit(self) -> None:
        app: App[Any] = self  # type: ignore[assignment]
        for key, active in app.active_bindings.items():
            if active.binding.action in ("quit", "app.quit"):
                lang = getattr(getattr(self, "settings", None), "lang", None)
                label = key_label(key)
                text = (tr(lang, "quit_how", key=label) if isinstance(lang, str)
                        else both("quit_how", sep="\n", key=label))
                app.notify(text, markup=False)
                return
