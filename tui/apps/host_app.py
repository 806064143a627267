"""What the screens around the table ask of the app that shows them (``HostApp``).

The app (:class:`tui.apps.app.MahjongApp`) imports its screens to open them; the screens type
their app by this Protocol instead of importing it back, so neither module needs the other to
load first. The app states that it is one (mypy checks it in ``tui/apps/app.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

from textual.binding import Binding

from host.client import TableClient, TableUpdate
from host.coach import Coach
from tui.settings import Settings
from tui.view.faces import Face


class HostApp(Protocol):
    """A seat's app as its screens see it: its table, settings and face, and what they ask
    it to do (start a game, show a page, apply a changed setting)."""

    HELP_BINDINGS: ClassVar[tuple[Binding, ...]]  # keys of the app's own, for the help
    client: TableClient
    settings: Settings
    face: Face
    coach: Coach | None  # the coach at a coach table (host.coach), where the app has one

    def start_game(self, rules: str, options: Mapping[str, Any],
                   seed: int | None) -> str | None: ...
    def after_hand_result(self, update: TableUpdate) -> None: ...
    def show_new_game(self) -> None: ...
    def can_review(self) -> bool: ...
    def tournament(self) -> str: ...
    def open_review(self, update: TableUpdate) -> None: ...
    def show_help(self) -> None: ...
    def show_settings(self) -> None: ...
    def settings_changed(self) -> None: ...
    def set_face(self, face: Face) -> None: ...
    def apply_theme(self, name: str) -> None: ...
    def apply_ambiwidth(self) -> None: ...
