"""A shared table's chat as a player opens it: the line to write one (``/``, with the latest
lines above it) and the history of what was said there (``v``), for
:class:`~tui.apps.room.SharedTableApp`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from host.client import SharedTableClient
from host.table_info import ChatLine
from tui.apps.app import MahjongApp
from tui.apps.field import Field
from tui.apps.screens import close_screen
from words import tr


def screen_lang(screen: Screen[Any]) -> str:
    """The language of the app ``screen`` is in (its refusals are said in it)."""
    app = screen.app
    return app.settings.lang if isinstance(app, MahjongApp) else "en"


class ChatScreen(ModalScreen[None]):
    """One line of chat; Enter sends it to everyone at the table, Esc closes."""

    RELEASE_ON_REMOVE = True  # made for one showing: taken apart once closed (tui.compat)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="chat-close"),
    ]
    DEFAULT_CSS = """
    ChatScreen { align: center bottom; }
    ChatScreen > #chat-log { width: 100%; height: auto; background: $panel;
                             color: $text-muted; padding: 0 1; text-wrap: nowrap;
                             text-overflow: ellipsis; }
    ChatScreen > Input { width: 100%; }
    """

    def __init__(self, client: SharedTableClient, lines: Sequence[ChatLine] = ()) -> None:
        super().__init__()
        self.client = client
        self.lines = lines  # the table's chat heard so far (the app's list: read at compose)

    def _log_text(self) -> Text | None:
        """The table's latest lines, the newest last (just above the input); None: none."""
        room = max(0, min(8, (self.app.size.height - 3) // 2))  # the input stays on screen
        lines = self.lines[-room:] if room else ()
        if not lines:
            return None
        text = Text()
        for i, line in enumerate(lines):
            text.append(("\n" if i else "") + f"{line.who}: {line.text}")
        return text

    def compose(self) -> ComposeResult:
        text = self._log_text()
        if text is not None:
            yield Static(text, id="chat-log")
        yield Field(placeholder="chat 聊天 (Enter: send 发送 · Esc: close 关闭)", max_length=200)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if not self.is_active:  # closed under the line (the game started): sent nowhere
            return
        text = event.value
        refused = self.client.chat(text) if text.strip() else None
        close_screen(self)
        if refused is not None:  # over the chat rate: sent to nobody
            self.app.notify(refused.text(screen_lang(self)), severity="warning", markup=False,
                            timeout=4)

    def show(self, lines: Sequence[ChatLine]) -> None:
        """The latest lines again, one heard while this one is written among them (shown
        here, it is not toasted over the input)."""
        self.lines = lines
        text = self._log_text()
        if not self.is_mounted or text is None:
            return
        shown = self.query("#chat-log")
        if shown:
            shown.first(Static).update(text)
        else:
            self.mount(Static(text, id="chat-log"), before=self.query_one(Input))

    def action_close(self) -> None:
        close_screen(self)


class ChatLogScreen(Screen[None]):
    """The table's chat heard so far (the app's last ``chat_kept`` lines), the newest last,
    scrolled to the end and following new lines while there; ``/`` writes one, Esc closes."""

    RELEASE_ON_REMOVE = True  # made for one showing: taken apart once closed (tui.compat)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,v,q", "close", "Close 关闭", id="chat-log-close"),
        # the app's chat line (SharedTableApp.action_chat), over this screen
        Binding("slash", "app.chat", "Chat 聊天", id="chat-log-write"),
    ]
    DEFAULT_CSS = """
    ChatLogScreen #chat-log-scroll { height: 1fr; }
    ChatLogScreen #chat-log-lines { width: 100%; }
    """

    def __init__(self, lines: Sequence[ChatLine]) -> None:
        super().__init__()
        self.lines = tuple(lines)

    @property
    def lang(self) -> str:
        return screen_lang(self)

    def compose(self) -> ComposeResult:
        yield Static(tr(self.lang, "chat_log_title"), classes="page page-title",
                     id="chat-log-title", markup=False)
        with VerticalScroll(classes="page", id="chat-log-scroll"):
            yield Static(self._text(), id="chat-log-lines")
        yield Static(tr(self.lang, "chat_log_keys"), classes="page keys", markup=False)

    def _text(self) -> Text:
        if not self.lines:
            return Text(tr(self.lang, "chat_log_empty"), style="dim")
        text = Text(no_wrap=False)
        for i, line in enumerate(self.lines):
            if i:
                text.append("\n")
            if line.who:  # "": the table's own line
                text.append(line.who, style="bold")
                text.append(": ")
            text.append(line.text)
        return text

    def on_mount(self) -> None:
        scroll = self.query_one("#chat-log-scroll", VerticalScroll)
        scroll.focus()  # ↑/↓, PgUp/PgDn, Home/End scroll it
        self.call_after_refresh(scroll.scroll_end, animate=False)

    def show(self, lines: Sequence[ChatLine]) -> None:
        """The lines again (a new one heard); the view follows it if it was at the end."""
        self.lines = tuple(lines)
        if not self.is_mounted:
            return
        scroll = self.query_one("#chat-log-scroll", VerticalScroll)
        at_end = scroll.scroll_y >= scroll.max_scroll_y
        self.query_one("#chat-log-lines", Static).update(self._text())
        if at_end:
            self.call_after_refresh(scroll.scroll_end, animate=False)

    def action_close(self) -> None:
        close_screen(self)
