"""The app one SSH session runs: ``tui``'s :class:`~tui.app.MahjongApp` for a shared table,
with what would act on the *server* switched off (pitfall 4: command palette, screenshots,
``open_url``, file delivery, suspend), a console built from the *client's* terminal type
(pitfall 5), settings that are never written to the server's disk, a waiting room before the
first hand, and chat (one line per message, cleaned by :mod:`net.sanitize`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from rich.console import Console
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from net.registry import ChatLine, SeatClient, TableInfo, TableState
from net.sanitize import clean_line
from tui.app import MahjongApp, TableUpdated
from tui.settings import Settings
from tui.table_screen import TableScreen


class RemoteSettings(Settings):
    """A session's settings: kept in memory for the session, never saved on the server."""

    def save(self) -> Path | None:
        return None


def color_system(term: str, colorterm: str) -> str:
    """Rich's colour system for the client's terminal (its TERM and COLORTERM)."""
    if colorterm.lower() in ("truecolor", "24bit"):
        return "truecolor"
    term = term.lower()
    if "256color" in term or term.startswith(("tmux", "screen-256")):
        return "256"
    return "standard"


class InfoChanged(Message):
    def __init__(self, info: TableInfo | ChatLine) -> None:
        super().__init__()
        self.info = info


class WaitingScreen(Screen[None]):
    """Before the first hand: who sits where; S starts with computer players."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s,enter", "start", "Start 开始", id="wait-start"),
        Binding("slash", "chat", "Chat 聊天", id="wait-chat"),
        Binding("q", "leave", "Leave 离开", id="wait-quit"),
    ]

    def __init__(self, info: TableInfo) -> None:
        super().__init__()
        self.info = info
        self.message = ""

    def compose(self) -> ComposeResult:
        with Vertical(classes="page"):
            yield Static(self._content(), id="waiting")

    def _content(self) -> Text:
        info = self.info
        t = Text()
        t.append(f"Table 牌桌 {info.name}", style="bold")
        t.append(f"  ·  {info.rules}\n\n")
        for i, seat in enumerate(info.seats):
            who = seat.name or "(empty 空位 — a computer player will sit here 电脑补位)"
            mark = "" if not seat.name or seat.connected else "  (away 离线)"
            t.append(f"  {'ESWN'[i]} {'东南西北'[i]}  {who}{mark}\n")
        if info.spectators:
            t.append(f"\n  spectators 旁观: {info.spectators}\n")
        opts = ", ".join(f"{k}={v}" for k, v in info.options) or "defaults 默认"
        t.append(f"\n  options 选项: {opts}\n\n")
        t.append("The hand starts when four people sit, or press S to start now.\n")
        t.append("四人入座即开始，或按 S 立即开始（电脑补位）。\n\n")
        t.append("S / Enter: start 开始 · /: chat 聊天 · q: leave 离开\n")
        if self.message:
            t.append(f"\n{self.message}\n", style="bold")
        return t

    def show(self, info: TableInfo) -> None:
        self.info = info
        if self.is_mounted:
            self.query_one("#waiting", Static).update(self._content())

    def action_start(self) -> None:
        app = self.app
        assert isinstance(app, RemoteApp)
        error = app.seat_client.start()
        if error:
            self.message = error
            self.query_one("#waiting", Static).update(self._content())

    def action_chat(self) -> None:
        self.app.push_screen(ChatScreen())

    def action_leave(self) -> None:
        self.app.exit()


class ChatScreen(ModalScreen[None]):
    """One line of chat; Enter sends it to everyone at the table, Esc closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="chat-close"),
    ]
    DEFAULT_CSS = """
    ChatScreen { align: center bottom; }
    ChatScreen > Input { width: 100%; }
    """

    def compose(self) -> ComposeResult:
        yield Input(placeholder="chat 聊天 (Enter: send 发送 · Esc: close 关闭)", max_length=200)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        app = self.app
        assert isinstance(app, RemoteApp)
        text = clean_line(event.value)
        if text:
            app.seat_client.chat(text)
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class RemoteApp(MahjongApp):
    """``MahjongApp`` for one SSH session at a shared table."""

    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("slash", "chat", "Chat 聊天", id="chat", show=False),
    ]
    mj_remote = True  # net.server neutralises stdout/stderr redirection for these (pitfall 1)

    def __init__(self, client: SeatClient, settings: Settings | None = None,
                 term: str = "xterm-256color", colorterm: str = "") -> None:
        super().__init__(client, settings or RemoteSettings(), table_ready=True)
        self.seat_client = client
        self.use_command_palette = False
        self.console = Console(
            color_system=color_system(term, colorterm),  # type: ignore[arg-type]
            file=self.console.file,
            markup=True,
            highlight=False,
            emoji=False,
            legacy_windows=False,
            _environ={"TERM": term, "COLORTERM": colorterm},
            force_terminal=True,
            safe_box=False,
            soft_wrap=False,
        )
        self.waiting: WaitingScreen | None = None
        self.chat_lines: list[ChatLine] = []

    def on_mount(self) -> None:
        super().on_mount()
        self.seat_client.subscribe_info(self._on_info)

    # --- table info and chat: callbacks only post (pitfall 2) ------------------------------
    def _on_info(self, info: TableInfo | ChatLine) -> None:
        self.post_message(InfoChanged(info))

    def on_info_changed(self, message: InfoChanged) -> None:
        info = message.info
        if isinstance(info, ChatLine):
            self.chat_lines.append(info)
            del self.chat_lines[:-50]
            self.notify(f"{info.who}: {info.text}", markup=False, timeout=8)
            return
        if info.state is TableState.WAITING:
            if self.waiting is None:
                self.waiting = WaitingScreen(info)
                self.push_screen(self.waiting)
            else:
                self.waiting.show(info)
        elif self.waiting is not None:
            self._close_waiting()

    def _close_waiting(self) -> None:
        waiting, self.waiting = self.waiting, None
        if waiting is not None and waiting in self.screen_stack:
            while self.screen_stack and self.screen is not waiting:
                self.pop_screen()
            self.pop_screen()

    def on_table_updated(self, message: TableUpdated) -> None:
        if self.waiting is not None:
            self._close_waiting()
        super().on_table_updated(message)

    def action_chat(self) -> None:
        if not isinstance(self.screen, ChatScreen):
            self.push_screen(ChatScreen())

    # --- a shared table's game ends: the next game keeps its rules -------------------------
    def show_new_game(self) -> None:
        error = self.seat_client.new_game(self.seat_client.table.rules, {}, None)
        if error:
            self.notify(error, markup=False)
            return
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self._game_no += 1
        self._result_shown = None
        self.table_screen = TableScreen()
        self.switch_screen(self.table_screen)
        update = self.seat_client.table.update_for(self.seat_client.seat_index)
        if update is not None:
            self.post_message(TableUpdated(update))

    # --- pitfall 4: nothing acts on the server's machine -----------------------------------
    def action_command_palette(self) -> None:
        pass

    def action_suspend_process(self) -> None:
        pass

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        pass

    def deliver_binary(self, *args: Any, **kwargs: Any) -> str | None:  # type: ignore[override]
        return None

    def save_screenshot(self, *args: Any, **kwargs: Any) -> str:  # type: ignore[override]
        return ""

    def deliver_screenshot(self, *args: Any, **kwargs: Any) -> str | None:  # type: ignore[override]
        return None

    def action_screenshot(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        pass
