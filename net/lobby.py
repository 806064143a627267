"""The lobby (``ssh -t -p PORT HOST``): the tables with ruleset, options, seats, spectators
and state; type a table name to sit (a new name creates the table), or ``watch NAME``.

The lobby is its own small app; when the player picks a table it exits with the
:class:`~net.server.Command` and the session runs the table app on the same channel.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import Console
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Input, Static

from net.remote_app import color_system
from net.sanitize import clean_line
from net.store import Account

if TYPE_CHECKING:
    from net.server import Command, MahjongServer


class LobbyApp(App[Any]):
    ENABLE_COMMAND_PALETTE = False
    mj_remote = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q,escape", "quit", "Quit", show=False, priority=True),
    ]
    CSS = """
    #tables { height: 1fr; padding: 1 2; }
    #entry { dock: bottom; }
    #msg { dock: bottom; height: 1; padding: 0 2; }
    """

    def __init__(self, server: MahjongServer, account: Account, term: str = "xterm",
                 colorterm: str = "") -> None:
        super().__init__()
        self.server = server
        self.account = account
        self.use_command_palette = False
        self.console = Console(
            color_system=color_system(term, colorterm),  # type: ignore[arg-type]
            file=self.console.file, markup=True, highlight=False, emoji=False,
            legacy_windows=False, _environ={"TERM": term, "COLORTERM": colorterm},
            force_terminal=True, safe_box=False, soft_wrap=False,
        )
        self.seat_client = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._content(), id="tables")
            yield Static("", id="msg")
            yield Input(placeholder="table name [yichun|shangrao|gejiu] · watch NAME · "
                        "Esc: quit 退出", id="entry", max_length=60)

    def on_mount(self) -> None:
        self.set_interval(1.0, self._refresh)
        self.query_one(Input).focus()

    def _refresh(self) -> None:
        self.query_one("#tables", Static).update(self._content())

    def _content(self) -> Text:
        t = Text()
        t.append(f"mahjong-ssh lobby 大厅 — welcome {self.account.nickname}\n\n", style="bold")
        tables = list(self.server.registry.tables.values())
        if not tables:
            t.append("No tables yet. Type a name to create one. 还没有牌桌，输入名字创建。\n")
        for table in tables:
            info = table.info()
            seats = " ".join(
                f"{'ESWN'[i]}:{s.name or '-'}" + ("" if s.connected or not s.name else "(away)")
                for i, s in enumerate(info.seats))
            t.append(f"  {info.name:<16}", style="bold")
            t.append(f" {info.rules:<9} {info.state.value:<14} hand {info.hand_no}/"
                     f"{info.hands_per_game}  watchers {info.spectators}\n")
            t.append(f"      {seats}\n")
            opts = ", ".join(f"{k}={v}" for k, v in info.options)
            if opts:
                t.append(f"      {opts}\n")
        t.append("\nType a table name and Enter to sit (a new name creates it, with a ruleset:"
                 " 'friday gejiu'); 'watch NAME' to watch.\n"
                 "输入牌桌名并回车入座；'watch 名字' 旁观。\n")
        return t

    def on_input_submitted(self, event: Input.Submitted) -> None:
        from net.server import CommandError, parse_command

        words = clean_line(event.value).split()
        if not words:
            return
        if words[0] != "watch":
            words = ["join", words[0], *(["--rules", words[1]] if len(words) > 1 else [])]
        try:
            command: Command = parse_command(" ".join(words))
        except CommandError as exc:
            self.query_one("#msg", Static).update(Text(f"{exc} (names: letters, digits, - _)"))
            return
        if command.name == "watch" and command.table not in self.server.registry.tables:
            self.query_one("#msg", Static).update(Text(f"no table {command.table} 没有这个牌桌"))
            return
        self.exit(command)

    # pitfall 4
    def action_command_palette(self) -> None:
        pass

    def action_suspend_process(self) -> None:
        pass

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        pass
