"""The app one SSH session runs: ``tui``'s :class:`~tui.apps.room.SharedTableApp` (the waiting
room, chat and stakes around a shared table), with what would act on the *server* switched off
(command palette, screenshots, ``open_url``, file delivery, suspend), a console built from the
*client's* terminal type (not the server's environment, which Textual reads), and settings
that are never written to the server's disk.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from textual.binding import Binding, BindingType

from host.client import SharedTableClient, TableUpdate
from net.front import reclaim
from net.front.terminals import color_system
from tui.apps.review import ReviewSource
from tui.apps.room import CHAT_KEPT, SharedTableApp
from tui.compat import app_release, internals
from tui.settings import Settings
from words import both


@dataclass
class RemoteSettings(Settings):
    """A session's settings: no file on the server. With a ``saver`` (a player with a key)
    what the settings screen changes is kept with the account for the next connection;
    without one (a nickname without a key) they last for the session."""

    saver: Callable[[dict[str, Any]], None] | None = field(default=None, compare=False,
                                                           repr=False)
    # the language kept with the key before this visit, and one this visit uses without the
    # player having picked it in the settings (--lang, the lobby's, the client's locale):
    # that one is not kept, unless the player then picks a language in the settings
    kept_lang: str | None = field(default=None, compare=False, repr=False)
    visit_lang: str | None = field(default=None, compare=False, repr=False)
    # the same for --ambiwidth: this visit's, not kept unless picked in the settings
    kept_ambiwidth: str = field(default="auto", compare=False, repr=False)
    visit_ambiwidth: str | None = field(default=None, compare=False, repr=False)
    persistent: ClassVar[bool] = False
    KEPT: ClassVar[tuple[str, ...]] = ("lang", "tiles", "theme", "show_waits",
                                       "show_suggestion", "bell", "turn_title", "notify",
                                       "plain", "ambiwidth")

    def save(self) -> Path | None:
        if self.saver is None:
            return None
        data = {k: getattr(self, k) for k in self.KEPT}
        if self.visit_lang is not None and self.lang == self.visit_lang:
            if self.kept_lang is None:
                del data["lang"]
            else:
                data["lang"] = self.kept_lang
        else:  # picked in the settings (or nothing was imposed): kept from now on
            self.visit_lang, self.kept_lang = None, self.lang
        if self.visit_ambiwidth is not None and self.ambiwidth == self.visit_ambiwidth:
            data["ambiwidth"] = self.kept_ambiwidth
        else:
            self.visit_ambiwidth, self.kept_ambiwidth = None, self.ambiwidth
        self.saver(data)
        return None

    def saved_note(self) -> tuple[str, dict[str, str]]:
        return ("set_account", {}) if self.saver is not None else ("set_session", {})


class ServerSide:
    """For every app a session runs (the lobby and the table): nothing acts on the
    server's machine — no command palette, suspend, URL opening, file delivery or
    screenshot. Listed first among the bases so these come before ``App``'s."""

    ENABLE_COMMAND_PALETTE = False
    # No text selection by mouse: a click landing on a widget being taken down (a screen
    # switching under the pointer) makes Textual's selection code raise and end the session.
    # The terminal selects text itself with Shift-drag.
    ALLOW_SELECT = False
    mj_remote = True  # no stdout/stderr redirection for these (tui.compat.stdout_redirects)
    ends_session = False  # the player quit the session (Ctrl-Q), not just this app

    async def action_quit(self) -> None:
        self.ends_session = True
        self.exit()  # type: ignore[attr-defined]

    def client_terminal(self, term: str, colorterm: str, tooltips: bool = False) -> None:
        """Drawn for the client's terminal (its TERM and COLORTERM, not the server's
        environment, which Textual reads), with no command palette; ``tooltips``: keep
        Textual's (no widget of the table's or the viewers' has one: no tooltip widget
        composed into every screen)."""
        app: Any = self
        app.use_command_palette = False
        if not tooltips:
            internals.disable_tooltips(app)
        app.console = internals.terminal_console(
            term, colorterm,
            color_system=color_system(term, colorterm),
            file=app.console.file, markup=True, highlight=False, emoji=False,
            legacy_windows=False, force_terminal=True, safe_box=False, soft_wrap=False,
        )

    def action_command_palette(self) -> None:
        pass

    def action_suspend_process(self) -> None:
        pass

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        pass

    def deliver_binary(self, *args: Any, **kwargs: Any) -> str | None:
        return None

    def save_screenshot(self, *args: Any, **kwargs: Any) -> str:
        return ""

    def deliver_screenshot(self, *args: Any, **kwargs: Any) -> str | None:
        return None

    def action_screenshot(self, *args: Any, **kwargs: Any) -> None:
        pass

    async def run_async(self, **kwargs: Any) -> Any:
        """``App.run_async``; then the app, every node it made and what they hold are taken
        apart (``net.front.reclaim.app_ended``), so that reference counting frees the session's app
        at once instead of the rare full collection. Only the return value, ``return_code``,
        ``_exception`` and ``ends_session`` may be read of the app afterwards."""
        reclaim.install()  # before this session's connection can close (once per process)
        app_release.track_nodes(self)  # type: ignore[arg-type]
        try:
            return await super().run_async(**kwargs)  # type: ignore[misc]
        finally:
            reclaim.app_ended(self)


class RemoteApp(ServerSide, SharedTableApp):
    """:class:`~tui.apps.room.SharedTableApp` for one SSH session: the client's terminal, nothing
    acting on the server (:class:`ServerSide`), an app taken apart at its end. Leaving the
    table (q) ends the app: a session that came from the lobby goes back to it. Ctrl-Q ends
    the session (``ends_session``)."""

    HELP_BINDINGS: ClassVar[tuple[Binding, ...]] = (
        *SharedTableApp.HELP_BINDINGS,
        Binding("ctrl+q", "quit", both("end_session"), id="quit-session", show=False,
                priority=True),
    )
    BINDINGS: ClassVar[list[BindingType]] = list(HELP_BINDINGS)

    def __init__(self, client: SharedTableClient, settings: Settings | None = None,
                 term: str = "xterm-256color", colorterm: str = "",
                 reviews: ReviewSource | None = None, chat_kept: int = CHAT_KEPT) -> None:
        super().__init__(client, settings or RemoteSettings(), chat_kept=chat_kept)
        self.seat_client: SharedTableClient = client
        self.review_source = reviews  # r on the game-over screen (net.front.reviewing)
        self.client_terminal(term, colorterm)

    # --- late callbacks: an app taken apart after its end (net.front.reclaim) does nothing -------
    def _deliver(self) -> None:
        if not self.__dict__.get(app_release.RELEASED):
            super()._deliver()

    def _show_result(self, update: TableUpdate, key: tuple[int, int]) -> None:
        if not self.__dict__.get(app_release.RELEASED):
            super()._show_result(update, key)
