"""The lobby (``ssh -t -p PORT HOST``): the tables with ruleset, options, seats, spectators
and state; type a table name to sit (a name that is no table yet is said so first, and
creates the table only when Enter is pressed again: a word typed by mistake makes nothing),
or ``watch NAME``, or ``close NAME`` (one's own table); or ``new`` (Ctrl-N) for the form that
creates a table with its options and computer levels.

The host's message of the day (``serve --motd``) stands under the title, read again as it
changes. The lobby is its own small app; when the player picks a table it exits with the
:class:`~net.commands.Command` and the session runs the table app on the same channel.
"""

from __future__ import annotations

import asyncio
import shlex
import time
import weakref
from typing import Any, ClassVar, Protocol

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from engine.bots import LEVELS
from engine.rating import label as rating_label
from engine.rulesets import DEFAULT_RULES, RULESETS, find_ruleset
from host.coach import coach_table
from host.refusal import Refusal
from host.table_info import TableInfo, TableState
from net.commands import Command, CommandError, parse_command
from net.front import players
from net.front.remote_app import ServerSide
from net.front.tournaments import lobby_lines as tournament_lines
from net.front.trends import LobbyLeaders, LobbyRatings, rating_title, reference_text
from net.runtime.privacy import Privacy, parse_invites
from net.runtime.registry import QUARANTINE_MARK, Registry
from net.sanitize import TABLE_NAME_RULE, clean_line, pad, table_name, valid_table_name
from net.store.model import Account
from tui.apps.field import Field
from tui.apps.new_table import NewTableForm
from tui.apps.quit_hint import QuitHint
from tui.apps.room import options_text
from tui.apps.screens import close_screen
from words import SEAT_WINDS_EN, SEAT_WINDS_ZH, both, tr


class LobbyServer(Protocol):
    """What the lobby needs of the server: its tables (net.front.server's ``MahjongServer``)."""

    @property
    def registry(self) -> Registry: ...


PRIVATE_MARK = "私"  # a private table's lock: wide on every terminal (never East Asian "A")
INVITE_INPUT_MAX = 400  # characters typed in the form's invitations field
PRIVATE_NOTES = {key: both(key, sep=" · ")
                 for key in ("create-private", "create-invite", "create-watchers")}
BOT_NOTE = both("bot_note", sep=" · ", levels=", ".join(LEVELS))


# the tables' rows: the terminal's width less the padding (2 + 2), the scroll bar (2) and a
# seat line's indent (6); a lobby not drawn yet (a test's) is taken as 80 columns wide
SEATS_MARGIN = 12
SEATS_WIDTH = 80
NAME_CAPS = (16, 12, 10, 8, 6, 4)  # a seated name's cells, tried in turn until the row fits


def _clip(name: str, cells: int) -> str:
    """``name`` cut to ``cells`` terminal cells, a cut one ending in ``…``."""
    if cell_len(name) <= cells:
        return name
    while cell_len(name) > cells - 1:
        name = name[:-1]
    return name + "…"


class CreateTableScreen(ModalScreen[Any]):
    """A new table: name, the new-table form (ruleset, every option of the ruleset), a
    computer level per seat. Dismissed with the join :class:`~net.commands.Command`, or
    ``None``."""

    RELEASE_ON_REMOVE = True  # made for one showing: taken apart once closed (tui.compat)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", both("form_cancel"), id="create-cancel"),
        Binding("ctrl+s", "create", both("form_create"), id="create-ok"),
    ]
    DEFAULT_CSS = """
    CreateTableScreen { align: center middle; }
    CreateTableScreen > Vertical { width: 78; max-width: 100%; height: 90%;
                                   border: round $accent; background: $surface;
                                   padding: 0 1; }
    CreateTableScreen .row { height: 3; }
    CreateTableScreen .row > Label { width: 1fr; padding: 0 1 0 0; }
    CreateTableScreen .row > Input { width: 20; }
    CreateTableScreen .row > Select { width: 20; }
    /* the focused field shows by more than a hue (as play's form, themes/table.tcss): its
       row's label in reverse video, the field bold and underlined; the row's own rule, as
       Textual restyles on a focus change only below a node with a :focus-within rule */
    CreateTableScreen .row:focus-within { text-style: bold; }
    CreateTableScreen .row:focus-within > Label { text-style: bold reverse; }
    CreateTableScreen .row Input:focus { text-style: bold underline; }
    CreateTableScreen .row Select:focus > SelectCurrent { text-style: bold underline; }
    CreateTableScreen .outer-row { padding: 0 2 0 0; }
    CreateTableScreen .rules-row { padding: 0 2 0 0; }
    CreateTableScreen NewTableForm { height: 1fr; }
    CreateTableScreen NewTableForm > #options { height: 1fr; scrollbar-gutter: stable; }
    CreateTableScreen #create-msg { height: auto; color: $error; }
    CreateTableScreen #create-about { height: auto; color: $text-muted; }
    CreateTableScreen #create-buttons { height: 3; }
    """

    def __init__(self, name: str = "", rules: str = DEFAULT_RULES) -> None:
        super().__init__()
        self.initial_name = name
        self.initial_rules = rules

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"{both('form_title')}   (Tab: next field · Ctrl-S: {both('create')}"
                         f" · Esc: {both('cancel')})", markup=False)
            # every field starts in one column: the rows above the options keep the room
            # the options' scroll bar takes (.outer-row), whether it shows or not
            with Horizontal(classes="row outer-row"):
                yield Label(both("form_name"))
                yield Field(self.initial_name, id="create-name", max_length=24)
            yield NewTableForm(self.initial_rules, extra_rows=self._extra_rows,
                               rules_class="row rules-row",
                               notes={**{f"bot-{i}": BOT_NOTE for i in range(4)},
                                      **PRIVATE_NOTES})
            yield Static("", id="create-msg", markup=False)
            with Horizontal(id="create-buttons"):
                yield Button(both("form_create"), id="create-ok", variant="primary")
                yield Button(both("form_cancel"), id="create-cancel")

    @classmethod
    def _extra_rows(cls) -> list[Horizontal]:
        return cls._level_rows() + cls._private_rows()

    @staticmethod
    def _private_rows() -> list[Horizontal]:
        no_yes = [(both("form_no"), "no"), (both("form_yes"), "yes")]
        return [
            Horizontal(Label(both("form_private")),
                       Select(no_yes, value="no", allow_blank=False, id="create-private"),
                       classes="row"),
            Horizontal(Label(both("form_invite_row")),
                       Field("", id="create-invite", max_length=INVITE_INPUT_MAX),
                       classes="row"),
            Horizontal(Label(both("form_watchers")),
                       Select(no_yes, value="no", allow_blank=False, id="create-watchers"),
                       classes="row"),
        ]

    @staticmethod
    def _level_rows() -> list[Horizontal]:
        return [Horizontal(
            Label(f"{tr('en', 'form_bot_seat', wind=SEAT_WINDS_EN[i])} "
                  f"{tr('zh', 'form_bot_seat', wind=SEAT_WINDS_ZH[i])}"),
            Select([(level, level) for level in LEVELS], value="normal",
                   allow_blank=False, id=f"bot-{i}"),
            classes="row") for i in range(4)]

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "create-ok":
            self.action_create()
        else:
            self.action_cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_create()

    def command(self) -> Any:
        """The join command the form describes; CommandError/OptionError with a message."""
        name = table_name(self.query_one("#create-name", Input).value)
        if not valid_table_name(name):
            raise CommandError(f"table name: {TABLE_NAME_RULE}")
        app = self.app
        if isinstance(app, LobbyApp) and app.server.registry.exists(name):
            raise CommandError(both("form_exists", table=name))
        if isinstance(app, LobbyApp):  # a quarantined name, or over a limit: said here
            app.server.registry.check_create(name, creator=app.account)
        form = self.query_one(NewTableForm)
        options = form.changed_options()  # OptionError with the ruleset's message
        levels = tuple(str(self.query_one(f"#bot-{i}", Select).value) for i in range(4))
        return Command("join", name, form.rules, tuple(sorted(options.items())),
                       (levels[0], levels[1], levels[2], levels[3]),
                       private=self._privacy())

    def _privacy(self) -> Privacy | None:
        """The private rows: None for a public table (an invitation makes it private);
        CommandError for an invitation that is not a nickname or a key's fingerprint."""
        try:
            invited = parse_invites(self.query_one("#create-invite", Input).value)
        except ValueError as exc:
            raise CommandError(f"{both('invite')}: {exc}") from None
        private = self.query_one("#create-private", Select).value == "yes"
        watchers = self.query_one("#create-watchers", Select).value == "yes"
        if not (private or invited):
            return None
        return Privacy(invited, watchers)

    def action_create(self) -> None:
        try:
            command = self.command()
        except ValueError as exc:  # OptionError, CommandError
            self.query_one("#create-msg", Static).update(f"{exc}")
            return
        close_screen(self, command)

    def action_cancel(self) -> None:
        close_screen(self)


def motd_lines(server: object) -> tuple[str, ...]:
    """The host's message of the day (``serve --motd``), each line cleaned when read
    (net.front.hostfiles); none from a server without one."""
    lines = getattr(server, "motd_lines", None)
    return tuple(lines()) if callable(lines) else ()


def _unwrapped(text: Text, width: int) -> bool:
    """Whether every line of ``text`` fits ``width`` cells (none wraps)."""
    return all(cell_len(line) <= width for line in text.plain.split("\n"))


# the lobby apps of this process, whose redraws of the list share one rate, and its clock
_LOBBIES: weakref.WeakSet[LobbyApp] = weakref.WeakSet()
_now = time.monotonic


def _lobbies_open() -> int:
    """The lobby apps of this process still running (one ended may wait for the collector)."""
    return sum(1 for app in _LOBBIES if app.is_running)


class _TurnShare:
    """At most ``per_turn`` lobbies redraw their list in one turn of the event loop; the
    others look again at their next tick. Lobbies whose ticks fell in one busy turn drew their
    lists all at once: 20-30 redraws, a 200 ms stall for every player on the server."""

    def __init__(self, per_turn: int) -> None:
        self.per_turn = per_turn
        self.taken = 0
        self._loop: weakref.ref[asyncio.AbstractEventLoop] | None = None

    def take(self) -> bool:
        loop = asyncio.get_running_loop()
        if self._loop is None or self._loop() is not loop:  # a loop of its own: a count too
            self._loop, self.taken = weakref.ref(loop), 0  # (a count left by a closed one)
        if self.taken == 0:  # the first of this turn: the count starts again next turn
            loop.call_soon(self._next_turn)
        if self.taken >= self.per_turn:
            return False
        self.taken += 1
        return True

    def _next_turn(self) -> None:
        self.taken = 0


_TURN = _TurnShare(per_turn=2)


_STATE_ORDER = {TableState.WAITING: 0, TableState.PLAYING: 1, TableState.BETWEEN: 1,
                TableState.OVER: 2}


class LobbyApp(QuitHint, ServerSide, App[Any]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
        Binding("escape", "escape", "Quit", show=False),
        Binding("ctrl+n", "create", both("form_title"), show=False),
        Binding("pageup", "scroll_tables(-1)", "Scroll up", show=False),
        Binding("pagedown", "scroll_tables(1)", "Scroll down", show=False),
    ]
    # stacked, not docked: two widgets docked to the same edge overlap, and the message line
    # would hide under the input. The list of tables scrolls (PageUp / PageDown, the typing
    # line keeps the keys); the title and the help stay put.
    CSS = """
    #title { height: auto; max-height: 3; padding: 1 2 0 2; }
    #motd { height: auto; max-height: 8; padding: 1 2 0 2; color: $text-accent; }
    #tables-box { height: 1fr; padding: 1 2 0 2; }
    #help { height: auto; max-height: 5; padding: 0 2; }
    .short #title { max-height: 1; padding: 0 1; }
    .short #motd { max-height: 2; padding: 0 1; }
    .short #tables-box { padding: 0 1; }
    .short #help { display: none; }
    #msg { height: auto; max-height: 3; padding: 0 2; color: $warning; }
    """

    def __init__(self, server: LobbyServer, account: Account, term: str = "xterm",
                 colorterm: str = "", notice: str = "") -> None:
        super().__init__()
        self.server = server
        self.account = account
        self.notice = notice  # what happened before this visit (a table left, an error)
        self.client_terminal(term, colorterm, tooltips=True)
        self.seat_client = None
        # what the message line said a second Enter would do: watch this full table (its name),
        # or create this new one (lobby_command's key of the line)
        self._told: str | None = None
        self.leaders = LobbyLeaders.shared(getattr(server, "store", None))  # a fake: none
        self.ratings = LobbyRatings.shared(getattr(server, "store", None))
        self._title_text = ""
        self._motd: tuple[str, ...] = ()  # the message of the day shown
        self._tables_shown = Text()  # the list of tables as last drawn
        self._tables_due = 0.0  # when the list may be drawn again (``_now``)
        limits = getattr(server, "limits", None)
        self._redraws_per_second = max(1, limits.lobby_redraws_per_second
                                       if limits is not None else 20)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.heading(), id="title")
            motd = Static("", id="motd", markup=False)
            motd.display = False  # until on_mount shows the host's message, if there is one
            yield motd
            with VerticalScroll(id="tables-box"):
                self._tables_shown = self.tables_text()
                yield Static(self._tables_shown, id="tables")
            yield Static(self._help(), id="help")
            yield Static("", id="msg")
            # whole at 80 columns (the rulesets' names are in the help above)
            yield Field(placeholder="table name [rules] [key=value ...] · new · watch NAME · "
                        f"Esc: {both('quit')}", id="entry", max_length=120)

    def on_mount(self) -> None:
        _LOBBIES.add(self)
        self.set_interval(1.0, self._refresh)
        self._show_motd()
        self.query_one(Input).focus()
        if self.notice:
            self.query_one("#msg", Static).update(Text(self.notice))

    def _refresh(self, force: bool = False) -> None:
        try:
            tables = self.query_one("#tables", Static)
        except NoMatches:  # the app is closing: its screen's widgets are gone (a tick may
            return  # still come: tests/test_newcomer_forms, once under load)
        # drawn again only when it changed (every lobby looks each second: 100 idle ones took
        # 89% of a core), and no sooner than the lobbies' shared rate allows
        now = _now()
        if force or now >= self._tables_due:
            text = self.tables_text()
            # a turn's share is spent on a redraw only (the text is cheap to make)
            if text != self._tables_shown and (force or _TURN.take()):
                before, self._tables_shown = self._tables_shown, text
                self._tables_due = now + max(1.0, _lobbies_open() / self._redraws_per_second)
                # its size unchanged, nothing else moves: no layout of the screen (a third
                # of a redraw's cost)
                width = tables.content_size.width
                tables.update(text, layout=not (
                    text.plain.count("\n") == before.plain.count("\n")
                    and _unwrapped(text, width) and _unwrapped(before, width)))
        if motd_lines(self.server) != self._motd:  # the host changed it
            self._show_motd()
        shown = self._title_text
        title = self.heading()
        if title.plain != shown:  # the viewer's own ratings came, or changed
            self.query_one("#title", Static).update(title)

    def on_resize(self, event: events.Resize) -> None:
        # a short terminal keeps its rows for the tables and the typing line
        self.set_class(event.size.height < 16, "short")  # the app: a form may be on top
        if self.query("#title"):  # the own ratings' line fits the new width
            self._refresh(force=True)

    def action_scroll_tables(self, pages: int) -> None:
        box = self.query_one("#tables-box", VerticalScroll)
        box.scroll_to(y=box.scroll_y + pages * max(1, box.scrollable_content_region.height - 1),
                      animate=False)

    def _show_motd(self) -> None:
        """The host's message of the day as it is now (``serve --motd``); none: no line."""
        self._motd = motd_lines(self.server)
        widget = self.query_one("#motd", Static)
        widget.update(Text("\n".join(self._motd)))
        widget.display = bool(self._motd)

    def heading(self) -> Text:
        """The title line: the lobby, the viewer, and his own ratings once the store told them."""
        t = Text(f"mahjong-ssh {both('lobby')} — welcome {self.account.nickname}", style="bold")
        # the title's width: the terminal's, less the title's padding (2 cells each side)
        own = (rating_title(self.ratings.own(self.account.id), self.size.width - 4)
               if not self.account.guest else "")
        if own:
            t.append(f"\n{own}")
        self._title_text = t.plain
        return t

    def _seats(self, info: Any) -> str:
        """A table's seats, each player with his rating in the table's ruleset (``?``:
        provisional), within the terminal's width after the indent: on one line, long names
        shortened, while each name keeps 8 cells; else E S and W N on two lines (a name, a
        mark or a rating never wraps onto a line of its own)."""
        parts = []
        for i, s in enumerate(info.seats):
            mark = f"[bot: {s.program}]" if s.program else "[bot]"  # its handshake's name
            state = ((mark if s.bot else "")
                     + ("(idle)" if s.idle else "" if s.connected or not s.name else "(away)"))
            r = self.ratings.seat(info.rules, s.name) if s.name else None
            parts.append((f"{'ESWN'[i]}:", s.name or "-",
                          state + (f" {rating_label(r.rating, r.games)}" if r else "")))
        width = (self.size.width or SEATS_WIDTH) - SEATS_MARGIN

        def fitted(seats: list[tuple[str, str, str]], least: int) -> str | None:
            for cells in NAME_CAPS:
                if cells < least:
                    break
                line = " ".join(head + _clip(name, cells) + tail for head, name, tail in seats)
                if cell_len(line) <= width:
                    return line
            return None

        one = fitted(parts, 8)
        if one is not None:
            return one
        halves = [fitted(parts[:2], 0), fitted(parts[2:], 0)]
        return "\n      ".join(h if h is not None else " ".join(
            head + _clip(name, NAME_CAPS[-1]) + tail for head, name, tail in seats)
            for h, seats in zip(halves, (parts[:2], parts[2:]), strict=True))

    def _help(self) -> Text:
        return Text(both("lobby_help", sep="\n"))

    def tables_text(self) -> Text:
        """The list of tables as drawn: where this player plays now in a tournament, each
        table's seats, options and computers, then the quarantined ones, the tournaments and
        the leaders."""
        t = Text()
        registry = self.server.registry
        problem = registry.storage_problem
        if problem:
            t.append(f"⚠ {problem}\n", style="bold red")
        # the tournaments not finished (net/front/tournaments.py): their line at the end, and
        # first where this player plays now in one (a player back from a drop sees it at once)
        listed = {lang: tournament_lines(registry, lang, self.account.id)
                  for lang in ("en", "zh")}
        yours = [line for lines in listed.values() for line in lines[1:]]
        if yours:
            t.append(f"  {' · '.join(yours)}\n", style="bold")
        infos = registry.listing()  # every worker's, in a server of several
        if not infos and not registry.quarantined:
            t.append(both("lobby_none") + "\n")
        # the tables one can sit at first, finished games last (each group oldest first)
        infos.sort(key=lambda info: _STATE_ORDER[info.state])
        for info in infos:
            seats = self._seats(info)
            t.append(f"  {pad(info.name, 16)}", style="bold")
            # the seats held for a private table's invited are not free (its line says so)
            free = sum(1 for seat in info.seats if not seat.name) - self._held(info)
            # none of them is free to one a private table does not admit (its lines say
            # for whom they are)
            sits = self._may_sit(info)
            hands = (f"{tr('en', 'lobby_hands', n=info.hands_per_game)}, "
                     f"{tr('en', 'lobby_free', n=free) if sits else tr('en', 'lobby_no_seat')}"
                     if info.state is TableState.WAITING
                     else f"hand {info.hand_no}/{info.hands_per_game}")
            t.append(f" {info.rules:<9} {info.state.value:<14} {hands:<17} "
                     f"watchers {info.spectators}\n")
            t.append(f"      {seats}\n")
            opts = options_text(info.options)
            if opts:
                t.append(f"      {opts}\n")
            if coach_table(info.options):  # a practice table: never rated
                t.append(f"      {both('coach_unrated')}\n")
            levels = [lv for lv, seat in zip(info.bot_levels, info.seats, strict=True)
                      if not seat.name]  # the computers that would play now
            if set(info.bot_levels) != {"normal"}:  # each seat's level, E S W N
                refs = ", ".join(reference_text(info.rules, [lv]) or lv
                                 for lv in info.bot_levels)
                t.append(f"      {both('lobby_computer')}: {refs}\n")
            elif levels:
                t.append(f"      {both('lobby_computer')}: {reference_text(info.rules, levels)}\n")
            if info.private:
                t.append(f"      {self._private_line(info)}\n", style="bold")
                if not sits and free > 0 and info.state is TableState.WAITING:
                    t.append(f"      {both('lobby_free_invited', n=free)}\n")
                if self._held(info):
                    t.append(f"      {both('lobby_held', n=self._held(info))}\n")
            if info.stakes_possible and (info.stakes or not info.stakes_enabled):
                on = both("lobby_stakes_on" if info.stakes_enabled else "lobby_stakes_off")
                # the rule's own name (压鸽子) first, then the English
                stakes = f"{tr('zh', 'lobby_stakes')} {tr('en', 'lobby_stakes')}"
                t.append(f"      {stakes} {on}: {len(info.stakes)}/4\n")
        for q in registry.quarantined.values():  # kept for the operator, out of play
            t.append(f"  {pad(clean_line(q.name, 40), 16)}", style="bold")
            t.append(f" {q.rules:<9} {QUARANTINE_MARK}\n", style="red")
        for lines in listed.values():
            if lines:
                t.append(f"  {lines[0]}\n", style="bold")
        self.ratings.refresh()  # what this drawing asked for, ready for the next one
        t.append(self.leaders.text())
        return t

    def _may_sit(self, info: TableInfo) -> bool:
        """Whether this player may sit at the table (a private one: its host, the invited,
        one who sits there already)."""
        a = self.account
        return info.admits(a.id, a.nickname, a.key_fingerprint, a.guest)

    def _private_line(self, info: TableInfo) -> str:
        """A private table's lock (私, a wide character on every terminal), whose it is (its
        host, or the tournament whose round it plays) and whether this player may sit there
        or watch: on a second line where one would not fit the lobby's width."""
        a = self.account
        if info.tournament:  # made by the tournament, with its entrants seated
            board = getattr(self.server.registry, "tournaments", None)
            t = board.by_name.get(info.tournament) if board is not None else None
            # an entrant watches no table of his running round (the same deals: Tournaments)
            entrant = t is not None and any(e.pid == a.id for e in t.entries)
            you = both("lobby_your_seat" if info.admits(a.id, a.nickname, a.key_fingerprint,
                                                         a.guest)
                       else "lobby_round_no_watch" if entrant and info.state is TableState.PLAYING
                       else "lobby_watch_round")
            whose = both("lobby_round_table", name=info.tournament)
        else:
            if a.id == info.host_id:
                you = both("lobby_yours")
            elif info.admits(a.id, a.nickname, a.key_fingerprint, a.guest):
                you = both("lobby_invited")
            elif info.watchers:
                you = both("lobby_may_watch")
            else:
                you = both("lobby_not_invited")
            whose = f"{both('lobby_private')}, {both('lobby_host')} {info.host or '?'}"
        line = f"{PRIVATE_MARK} {whose}:"
        width = (self.size.width or SEATS_WIDTH) - SEATS_MARGIN
        return f"{line} {you}" if cell_len(f"{line} {you}") <= width else f"{line}\n      {you}"


    @staticmethod
    def _held(info: TableInfo) -> int:
        """Empty seats a private table holds, before its game, for its invited who have not
        come (S starts with computers in them)."""
        return info.held if info.private and info.state is TableState.WAITING else 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        words = clean_line(event.value).split()
        if not words:
            return
        if words == ["new"]:
            event.input.clear()  # done: the form has the table's name
            self.action_create()
            return
        if words[0].lower() in players.LOBBY_WORDS:  # kept for the operators, or why not
            event.input.clear()
            self.run_worker(self._report(words))
            return
        result = lobby_command(self.server.registry, self.account, words, self._told)
        if not isinstance(result, Command):
            message, self._told = result
            self.query_one("#msg", Static).update(Text(message))
            if self._told is None and words[0].lower() == "close":
                event.input.clear()  # done: the table is closed (or the message says why not)
                self._refresh(force=True)
            return
        self.exit(result)

    async def _report(self, words: list[str]) -> None:
        said = await players.lobby_report(getattr(self.server, "store", None), self.account,
                                          words)
        self.query_one("#msg", Static).update(Text(said))

    def action_escape(self) -> None:
        """Esc: after the message line asked for a second Enter (a new table, a full one to
        watch), it cancels that and clears the line; otherwise it leaves the lobby."""
        if self._told is not None:
            self._told = None
            self.query_one("#msg", Static).update("")
            self.query_one("#entry", Input).clear()
            return
        self.exit()

    def action_create(self) -> None:
        def chosen(command: Any) -> None:
            if command is not None:
                self.exit(command)

        if not isinstance(self.screen, CreateTableScreen):
            self.push_screen(CreateTableScreen(), chosen)


def lobby_command(registry: Registry, account: Account, words: list[str],
                  full_told: str | None, plain: bool = False) -> Command | tuple[str, str | None]:
    """What a line typed in the lobby asks for (a table's name and its options, ``watch
    NAME``, or ``close NAME``): the command to run, or what to tell the player and what a
    second Enter would do (``full_told``, given back: a full table's name, typed a second
    time, makes one a watcher; a new table's line, typed a second time, creates it, so that a
    word typed by mistake makes no table). ``plain``: the plain lobby's words (a line typed
    again, where the Textual lobby's Enter is pressed again)."""
    if words[0].lower() == "close" and len(words) == 2:
        name = table_name(words[1])
        try:
            registry.close_table(name, account)
        except ValueError as exc:  # RefusedError: not the host, someone sits there...
            return str(exc), None
        return both("lobby_closed", table=name), None
    if words[0].lower() == "join" and len(words) > 1:  # as ssh HOST join NAME, and as the
        words = words[1:]  # tournaments' lines say it: the name follows
    if words[0] != "watch":
        args = ["join", words[0]]
        for word in words[1:]:
            key, eq, value = word.partition("=")
            if not eq and word.lower() in RULESETS:
                args += ["--rules", word.lower()]
            elif eq and key == "bots":
                args += ["--bots", value]
            elif eq and key in ("invite", "watchers"):
                args += [f"--{key}", value]
            elif not eq and word.lower() == "private":
                args.append("--private")
            elif eq:
                args += ["--option", word]
            else:
                args.append(word)
        words = args
    try:
        command: Command = parse_command(" ".join(shlex.quote(w) for w in words))
        if command.name == "join" and registry.exists(command.table):
            registry.check_join(command.table, command.rules, dict(command.options),
                                command.bots, command.private)
        elif command.name == "join":  # a new table: its name and the limits, said here
            # (the session creates it, with the connection's address)
            registry.check_create(command.table, creator=account)
        elif command.name == "watch":
            registry.find(command.table)  # a quarantined name is refused
    except ValueError as exc:  # CommandError, TableExists, TableQuarantined, TableLimit
        return str(exc), full_told
    if command.name == "watch" and not registry.exists(command.table):
        return both("no_table", table=command.table), full_told
    if command.name == "join" and not registry.exists(command.table):
        told = NEW_TOLD + repr(command)  # the same line typed again creates the table
        if full_told != told:
            return _new_table_said(command, plain), told
        return command
    refusal = private_refusal(registry, account, command)
    if refusal is not None:  # a private table: said here (its owner says it too)
        return str(refusal), full_told
    table = registry.tables.get(command.table) if command.name == "join" else None
    if (table is not None and table.seat_of(account.id) is None
            and all(seat.name for seat in table.info().seats)):
        # a full table seats nobody new: say that its name makes one a watcher
        if full_told != command.table:
            return both("table_full", table=command.table), command.table
        command = Command("watch", command.table, lang=command.lang)
    return command


NEW_TOLD = "\n"  # begins a new table's key in full_told: no table name has a line break


def _new_table_said(command: Command, plain: bool) -> str:
    """The second Enter's question for a new table: its ruleset and hands per game, its
    options changed, private, its computers' levels where they are not all normal."""
    rules = command.rules or DEFAULT_RULES
    options = dict(command.options)
    try:
        hands = int(find_ruleset(rules, options).options["hands_per_game"])
    except ValueError:  # an option the join itself refuses, in its own words, later
        hands = int(find_ruleset(rules, {}).options["hands_per_game"])
    more = ""
    if options:
        more += f", {options_text(sorted(options.items()))}"
    if command.private is not None:
        more += f", {both('lobby_private_new')}"
    if command.bots is not None and set(command.bots) != {"normal"}:
        more += f", {both('lobby_computer')} {' '.join(command.bots)}"
    return both("lobby_new_plain" if plain else "lobby_new", table=command.table, rules=rules,
                n=hands, more=more)


def private_refusal(registry: Registry, account: Account, command: Command) -> Refusal | None:
    """Why ``account`` may not have what ``command`` asks of a private table, if so."""
    info = registry.info(command.table)
    a = account
    if info is None or not info.private or info.admits(a.id, a.nickname, a.key_fingerprint,
                                                       a.guest):
        return None
    host = info.host or "?"
    if command.name == "watch":
        return None if info.watchers else Refusal.of("private_no_watch", name=info.name,
                                                     host=host)
    return Refusal.of("private_watch" if info.watchers else "private", name=info.name,
                      host=host)
