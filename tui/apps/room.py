"""A table shared with other people, as one seat (or one spectator) sees it: the waiting room
before the first hand, the chat (its screens in :mod:`tui.apps.chat`), 压鸽子 (a spectator
backing a seated player), and the app that shows them around the table
(:class:`SharedTableApp`).

Everything here talks to the table through :class:`host.client.SharedTableClient` and shows
what it delivers (:mod:`host.table_info`); how the table is served (the SSH server's registry)
is not known here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.notifications import Notification, Notify
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Static

from engine.rulesets import RULESETS
from host.client import SharedTableClient, TableUpdate
from host.refusal import Refusal
from host.table_info import COMPUTER_NAME, ChatLine, TableInfo, TableState, invite_shown
from tui.apps.app import MahjongApp, TableUpdated
from tui.apps.chat import ChatLogScreen, ChatScreen
from tui.apps.chat import screen_lang as _lang
from tui.apps.screens import GameResultScreen, close_screen
from tui.apps.table_screen import TableScreen
from tui.compat import internals
from tui.settings import Settings
from tui.view.cells import fit_cells
from words import tr

START_ASK_SHOWN = 10.0  # seconds the question of S with seats held stays on screen
CHAT_TOAST_GAP = 3.0  # seconds between two chat toasts at most (the rest are counted)
CHAT_TOAST_CELLS = 64  # a chat toast's length (two rows over the table): the whole line is
# in the chat's history (v)
NOTICES_SHOWN = 3  # toasts on screen at once, the oldest taken off first
# chat lines a session keeps for its history (v); the server passes its own limit
# (net.limits: chat_lines_kept)
CHAT_KEPT = 200


def stakes_line(info: TableInfo) -> str:
    """One line about 压鸽子 at the table: who allows it, who backs whom."""
    allow = "".join("ESWN"[i] for i, a in enumerate(info.allow) if a) or "-"
    state = "on 开" if info.stakes_enabled else "off 关 (needs 2 seats that allow 需两人允许)"
    chosen = ", ".join(f"{n}→{'ESWN'[b]}" for n, b in info.stakes) or "none 无"
    return f"压鸽子 spectator stakes {state}; allow 允许: {allow}; stakes 押: {chosen}"


def options_text(options: Iterable[tuple[str, Any]]) -> str:
    """A table's options as players read them: ``max_lighters=unlimited 不限``, ``x=on``."""
    def shown(value: Any) -> str:
        if value is None:
            return "unlimited 不限"
        if isinstance(value, bool):
            return "on" if value else "off"
        return str(value)

    return ", ".join(f"{k}={shown(v)}" for k, v in options)


def private_lines(info: TableInfo, host: bool, seated: bool = True) -> Text:
    """A private table (私): whether strangers may watch; for its host (``host``) and its
    seated players (``seated``: at a private table, the invited) whom it invites and who has
    not come; for the host, the chat's commands. A spectator reads only how many are invited:
    a name shown to a stranger would tell him what name to ask for."""
    t = Text()
    watch = "strangers may watch 允许旁观" if info.watchers else "no strangers watch 不许旁观"
    if not (host or seated):
        t.append(f"  invited 受邀: {len(info.invited)}; {watch}\n")
        return t
    invited = ", ".join(invite_shown(e) for e in info.invited) or "nobody yet 尚无"
    away = info.absent_invited
    who = (f"invited, not here yet 受邀未到: {', '.join(away)}" if away
           else f"invited 受邀: {invited}")  # who came sits above
    t.append(f"  {who}; {watch}\n")
    if host:
        t.append("  /invite NAME, /uninvite NAME, /watchers on|off: in the chat 聊天中\n")
    return t


SHOWN_WHEN_SET = frozenset({"time_bank", "coach"})


def option_lines(info: TableInfo) -> list[str]:
    """Every option of the table's ruleset (those of :data:`SHOWN_WHEN_SET` where the table
    sets them), with its value at this table and a word on what it does
    (``discard_wins=off  win on a discard; the discarder pays all · 可点炮胡…``)."""
    given = dict(info.options)
    pairs = [(spec, given.get(spec.key, spec.default))
             for spec in RULESETS[info.rules].options_spec]
    # an option that adds a thing to the game is shown where the table has it, so the room
    # still fits 80x24 with every rule's option (time_bank 0: there is no bank)
    pairs = [(spec, value) for spec, value in pairs
             if not (spec.key in SHOWN_WHEN_SET and value == spec.default)]
    width = max(len(options_text([(spec.key, value)])) for spec, value in pairs)
    return [f"{options_text([(spec.key, value)]):<{width}}  {spec.brief(None)}"
            for spec, value in pairs]


class InfoChanged(Message):
    def __init__(self, info: TableInfo | ChatLine) -> None:
        super().__init__()
        self.info = info


class InfoPanel(Screen[None]):
    """A screen showing the table's info as one text (``PANEL`` is its ``Static``'s id),
    drawn again when the info changes or a key's outcome is to be said."""

    PANEL: ClassVar[str]

    def __init__(self, info: TableInfo, client: SharedTableClient) -> None:
        super().__init__()
        self.info = info
        self.client = client
        self.message = ""

    def _body(self) -> Text:
        raise NotImplementedError

    def _content(self) -> Text:
        t = self._body()
        if self.message:
            t.append(f"\n{self.message}\n", style="bold")
        return t

    def show(self, info: TableInfo) -> None:
        self.info = info
        if self.is_mounted:
            self.query_one(f"#{self.PANEL}", Static).update(self._content())

    def say(self, message: str) -> None:
        self.message = message
        self.query_one(f"#{self.PANEL}", Static).update(self._content())


class WaitingScreen(InfoPanel):
    """Before the first hand: who sits where; S starts with computer players."""

    PANEL = "waiting"
    RELEASE_ON_REMOVE = True  # made for one showing: taken apart once closed (tui.compat)
    # Every new player sees this screen first, while the server serves everyone else: its text
    # is the only widget, and the screen around it is drawn as blank lines (one styled widget
    # instead of three, so the first layout and render are cheaper).
    BLANK = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s,S,enter", "start", "Start 开始", id="wait-start"),
        Binding("slash", "chat", "Chat 聊天", id="wait-chat"),
        Binding("v", "chat_log", "Chat history 聊天记录", id="wait-chat-log"),
        Binding("q", "leave", "Leave 离开", id="wait-quit"),
    ]

    _held_said = False  # the message says for whom seats are held (S asked)

    def compose(self) -> ComposeResult:
        yield Static(self._content(), id="waiting", classes="page")

    def _body(self) -> Text:
        info = self.info
        t = Text()
        t.append(f"Table 牌桌 {info.name}", style="bold")
        t.append(f"  ·  {info.rules}")
        if info.private:
            t.append(f"  ·  私 private 私人牌桌, host 桌主 {info.host or '?'}")
        t.append("\n\n")
        held = info.held  # a private table's empty seats kept for the invited, the first ones
        for i, seat in enumerate(info.seats):
            # an empty seat's computer level, on its own line: not a list of four levels
            # while four people sit
            level = info.bot_levels[i]
            article = "an" if level[:1] in ("a", "e", "i", "o", "u") else "a"
            who = seat.name or (f"(empty 空位 — {article} {level} computer player will "
                                "sit here 电脑补位)")
            if not seat.name and held:
                held -= 1
                who = "(held for the invited 为受邀玩家保留)"
            mark = "" if not seat.name or seat.connected else "  (away 离线)"
            if seat.bot and seat.name:
                mark = "  [bot 程序]" + mark
            t.append(f"  {'ESWN'[i]} {'东南西北'[i]}  {who}{mark}\n")
        if info.spectators:
            t.append(f"\n  spectators 旁观: {info.spectators}\n")
        if info.private:
            t.append_text(private_lines(info, self.client.nickname == info.host,
                                        not self.client.spectating))
        t.append("  options 选项:\n")
        for line in option_lines(info):
            t.append(f"    {line}\n")
        if info.stakes_possible:
            t.append(f"  {stakes_line(info)}\n")
        if self.client.spectating:  # a spectator's keys: no start, no allow
            t.append("\nThe hand starts when four people sit, or a seated player presses S "
                     "here.\n")
            t.append("四人入座或有玩家在等候室按 S 即开始（电脑补位）。\n\n")
            t.append("/: chat 聊天 · q: leave 离开")
            if info.stakes_possible:
                t.append(" · y: stake 压鸽子")
            t.append(" · v: the chat so far 聊天记录\n")  # one row: a spectator's is one more
            return t
        else:
            t.append("\nThe hand starts when four people sit, or press S to start now "
                     "(S here in the waiting room; at the table s opens the settings).\n")
            t.append("四人入座即开始，或在等候室按 S 立即开始（电脑补位；开局后 s 是设置）。\n\n")
            t.append("S / Enter: start 开始 · /: chat 聊天 · q: leave 离开\n")
            if info.stakes_possible:  # on the second row: the first is full at 80 columns
                t.append("a: allow spectators 允许压鸽子 · ")
        t.append("v: the chat so far 聊天记录\n")
        return t

    def show(self, info: TableInfo) -> None:
        if self._held_said and not info.held:  # the invited came: no seat is held now
            self._held_said = False
            self.message = ""
        super().show(info)

    def action_start(self) -> None:
        error = self.client.start()
        self._held_said = error is not None and error.key == "held"
        if error is not None:
            self.say(error.text(_lang(self)))
        if self._held_said and error is not None:  # the question, where a small screen sees it
            self.app.notify(error.text(_lang(self)), severity="warning", markup=False,
                            timeout=START_ASK_SHOWN)

    def action_chat(self) -> None:
        app = self.app  # the chat heard so far is kept by a SharedTableApp
        lines = app.chat_lines if isinstance(app, SharedTableApp) else ()
        self.app.push_screen(ChatScreen(self.client, lines))

    def action_chat_log(self) -> None:
        app = self.app
        if isinstance(app, SharedTableApp):
            app.action_chat_log()

    def action_leave(self) -> None:
        self.app.exit()


class StakeScreen(InfoPanel, ModalScreen[None]):
    """压鸽子: a spectator chooses the seated player to back (from the next hand)."""

    RELEASE_ON_REMOVE = True  # made for one showing: taken apart once closed (tui.compat)

    PANEL = "stake"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "back(0)", "E", id="stake-e"),
        Binding("2", "back(1)", "S", id="stake-s"),
        Binding("3", "back(2)", "W", id="stake-w"),
        Binding("4", "back(3)", "N", id="stake-n"),
        Binding("0", "back(-1)", "None 不押", id="stake-none"),
        Binding("escape,y,q", "close", "Close 关闭", id="stake-close"),
    ]
    DEFAULT_CSS = """
    StakeScreen { align: center middle; }
    StakeScreen > VerticalScroll { width: 64; max-width: 100%; height: auto;
                                   max-height: 100%; border: round $accent; padding: 1 2;
                                   background: $surface; }
    """

    def compose(self) -> ComposeResult:
        # scrolls (↑/↓) in a terminal too small for it; the keys 1-4 and 0 work either way
        with VerticalScroll():
            yield Static(self._content(), id="stake")

    def _body(self) -> Text:
        info = self.info
        me = self.client.nickname
        t = Text()
        t.append("压鸽子 Spectator stakes\n\n", style="bold")
        t.append("Back a seated player: you win or lose what they do, from the next hand.\n"
                 "押一位入座玩家：从下一盘起输赢与其相同。\n\n")
        for i, seat in enumerate(info.seats):
            who = seat.name or COMPUTER_NAME
            ok = "" if info.allow[i] else "  (does not allow 不允许)"
            t.append(f"  {i + 1}  {'ESWN'[i]} {'东南西北'[i]}  {who}{ok}\n")
        t.append("  0  no stake 不押\n\n")
        mine = [b for n, b in info.stakes if n in (me, f"{me}*")]
        t.append(f"Your stake 你押: {'ESWN'[mine[0]] if mine else 'none 无'}\n")
        if not info.stakes_enabled:
            t.append("Stakes are off until two seated players allow them. "
                     "需两位入座玩家允许才能压鸽子。\n")
        t.append("1-4: back 押 · 0: none 不押 · Esc: close 关闭\n")
        return t

    def action_back(self, seat: int) -> None:
        error = self.client.stake(None if seat < 0 else seat)
        self.say(error.text(_lang(self)) if error is not None else (
            "stake set: from the next hand 已押，下一盘起生效" if seat >= 0 else "no stake 不押"))

    def action_close(self) -> None:
        close_screen(self)


class SharedTableApp(MahjongApp):
    """``MahjongApp`` for one seat at a table shared with other people: the waiting room
    until the first hand, chat (``/``, a toast for each line heard, ``v`` the lines heard so
    far), 压鸽子, and a next game that keeps the table's rules. Leaving the table (q) ends
    the app."""

    HELP_BINDINGS: ClassVar[tuple[Binding, ...]] = (
        Binding("slash", "chat", "Chat 聊天", id="chat", show=False),
        Binding("v", "chat_log", "Chat history 聊天记录", id="chat-log", show=False),
        Binding("y", "stake", "Stake 压鸽子 (spectators, Yichun)", id="stake", show=False),
        Binding("a", "allow_spectators", "Allow spectators 允许压鸽子 (Yichun)", id="allow",
                show=False),
    )
    BINDINGS: ClassVar[list[BindingType]] = list(HELP_BINDINGS)

    def __init__(self, client: SharedTableClient, settings: Settings,
                 chat_kept: int = CHAT_KEPT) -> None:
        super().__init__(client, settings, table_ready=True)
        self.seat_client = client
        self.waiting: WaitingScreen | None = None
        self.chat_lines: list[ChatLine] = []  # the newest last, ``chat_kept`` at most
        self.chat_kept = max(1, chat_kept)
        self.info: TableInfo | None = None
        self._stake_told: tuple[int, int] | None = None  # (game, hand) of the last result
        self._stake_heard: tuple[int, int] | None = None  # (game, hand) of the last stake
        self._chat_unshown = 0  # chat lines heard since the last chat toast
        self._chat_timer: Timer | None = None
        self._shown_game: int | None = None  # the game the table screen shows
        self._away = False  # the table plays this seat at once until a key (idle)
        self._notices: list[Notification] = []  # the toasts shown, the oldest first
        self._chat_notices: list[Notification] = []  # those of them that are chat lines
        self._chat_said: list[str] = []  # chat toasts asked for, not yet in on_notify

    def _chat_shown_here(self) -> bool:
        """Whether the screen on top lists the chat itself (the history, the chat line's
        latest lines): a line heard is shown there, and no toast tells it again."""
        return isinstance(self.screen, (ChatLogScreen, ChatScreen))

    def _chat_toasts_here(self) -> bool:
        """Whether a chat line may be toasted over the screen on top: the table's own (the
        table, the waiting room, the game's result, where the players say whether they play
        again). Over any other (help, settings, tiles, the review…) a toast covered what that
        screen is about; the line waits, counted, for the return."""
        return isinstance(self.screen, (TableScreen, WaitingScreen, GameResultScreen))

    def _show_chat(self) -> None:
        """The latest chat line as a toast, at most one every ``CHAT_TOAST_GAP`` seconds (a
        busy chat would stack toasts over the table): lines heard meanwhile are counted in
        the next one; all of them are in the chat's history (``v``). Over a screen other than
        the table's, none: the next toast on the return counts what came meanwhile."""
        self._chat_timer = None
        if self._chat_shown_here():  # the line is shown there: no toast over it
            self._chat_unshown = 0
        if not self._chat_unshown or not self.chat_lines or not self._chat_toasts_here():
            return
        line = self.chat_lines[-1]
        more = self._chat_unshown - 1
        self._chat_unshown = 0
        text = f"{line.who}: {line.text}" if line.who else line.text  # "": the table's own
        tail = f"  ({tr(self.settings.lang, 'chat_more', n=more)})" if more else ""
        text = fit_cells(text, CHAT_TOAST_CELLS - cell_len(tail)) + tail
        self._chat_said.append(text)  # its notification is known in on_notify
        self.notify(text, markup=False, timeout=CHAT_TOAST_GAP * 2)
        self._chat_timer = self.set_timer(CHAT_TOAST_GAP, self._show_chat)

    def _chat_on_screen(self, screen: Screen[Any]) -> None:
        """As another screen comes on top: the chat toasts shown are taken off it (Textual
        draws the app's toasts over whichever screen is on top), and back at the table the
        lines heard meanwhile are told, as one toast that counts them."""
        if self._chat_toasts_here():
            if self._chat_timer is None:
                self._show_chat()
            return
        if self._chat_shown_here():
            self._chat_unshown = 0
        shown, self._chat_notices = self._chat_notices, []
        for note in shown:
            internals.dismiss_notification(self, note)

    def on_notify(self, event: Notify) -> None:
        """At most :data:`NOTICES_SHOWN` toasts at once, the oldest taken off first: over the
        table they have only the centre's rows, and a stack taller than those is cut at its
        bottom, where the newest is. (Textual runs its own handler after this one.)"""
        note = event.notification
        self._notices = [n for n in self._notices if not n.has_expired]
        self._notices.append(note)
        if note.message in self._chat_said:  # a chat line's, taken off if a screen opens
            self._chat_said.remove(note.message)
            if not self._chat_toasts_here():  # one opened since it was asked: told on return
                self._chat_unshown += 0 if self._chat_shown_here() else 1
                self.call_later(internals.dismiss_notification, self, note)
            self._chat_notices = [n for n in self._chat_notices if not n.has_expired]
            self._chat_notices.append(note)
        while len(self._notices) > NOTICES_SHOWN:
            internals.dismiss_notification(self, self._notices.pop(0))
        if self.table_screen is not None and self.screen is self.table_screen:
            self.table_screen.place_notices(toast=True)  # off the table's message at once

    def on_mount(self) -> None:
        # Textual runs ``MahjongApp.on_mount`` itself after this one (it calls the handler of
        # each class in the MRO): calling it through super() too made a second table screen
        # and a second subscription to the table.
        self.chat_lines.extend(self.seat_client.chat_log)  # said before one came in
        del self.chat_lines[:-self.chat_kept]
        self.seat_client.subscribe_info(self._on_info)
        self.screen_change_signal.subscribe(self, self._chat_on_screen)

    # --- table info and chat: callbacks only post (they run as another session) ----------
    def _on_info(self, info: TableInfo | ChatLine) -> None:
        self.post_message(InfoChanged(info))

    def on_info_changed(self, message: InfoChanged) -> None:
        info = message.info
        if isinstance(info, ChatLine):
            self.chat_lines.append(info)
            del self.chat_lines[:-self.chat_kept]
            for screen in self.screen_stack:
                if isinstance(screen, (ChatLogScreen, ChatScreen)):
                    screen.show(self.chat_lines)
            if not self._chat_shown_here():  # else read there: not told again on the return
                self._chat_unshown += 1
            if self._chat_timer is None:
                self._show_chat()
            return
        self._tell_idle(info)
        self.info = info
        for screen in self.screen_stack:
            if isinstance(screen, StakeScreen):
                screen.show(info)
        self._tell_stake(info)
        if info.state is TableState.WAITING:
            if self.waiting is None:
                self.waiting = WaitingScreen(info, self.seat_client)
                self.push_screen(self.waiting)
            elif info != self.waiting.info:
                self.waiting.show(info)
        elif self.waiting is not None:
            self._close_waiting()

    def _tell_idle(self, info: TableInfo) -> None:
        """Tell a player whose timer ran out twice in a row that his turns are now played at
        once as the timer plays them, and that any key brings him back: on the status line
        while it lasts (a notice there covers no seat and is not gone before he looks)."""
        seat = self.seat_client.seat_index
        if seat is None:
            return
        self._away = info.seats[seat].idle
        self._show_away()

    def _show_away(self) -> None:
        if self.table_screen is not None:
            self.table_screen.set_away(self._away)

    def key_now(self, event: events.Key) -> bool:
        self.seat_client.poke()  # any key: an idle player is back
        return super().key_now(event)

    def _close_waiting(self) -> None:
        waiting, self.waiting = self.waiting, None
        if waiting is not None and waiting in self.screen_stack:
            while self.screen_stack and self.screen is not waiting:
                self.pop_screen()
            if len(self.screen_stack) > 1:
                self.pop_screen()
            # else it is the session's first screen: the table screen replaces it

    def get_default_screen(self) -> Screen[Any]:
        """A session at a waiting table starts on the waiting screen itself, not on Textual's
        blank default screen with the waiting screen pushed over it: composing, laying out
        and resuming that blank screen (and its toast rack and tooltip) would be a good part
        of a new session's first work on the server."""
        client = self.seat_client
        if client.state is TableState.WAITING:
            self.info = client.info()
            self.waiting = WaitingScreen(self.info, client)
            return self.waiting
        return super().get_default_screen()

    def _replace_screen_with(self, screen: Screen[Any]) -> None:
        """``switch_screen``, also from the first screen (Textual's default screen or the
        waiting screen), which ``switch_screen`` would find without the result callback that
        ``push_screen`` gives every other screen."""
        internals.ensure_result_callback(self)
        self.switch_screen(screen)

    def open_table(self) -> None:
        self._shown_game = self.seat_client.game_no
        stack = self.screen_stack
        if len(stack) == 1 and isinstance(stack[0], WaitingScreen) and self.waiting is None:
            self._game_no += 1
            self.table_screen = TableScreen()
            self._replace_screen_with(self.table_screen)
        else:
            super().open_table()
        self._show_away()

    def table_now(self) -> bool:
        return self.seat_client.state is not TableState.WAITING

    def table_name(self) -> str:
        return (self.info or self.seat_client.info()).name

    def review_seat(self) -> int | None:
        return self.seat_client.seat_index  # None: a spectator has no play to review

    def direct_update_ok(self, update: TableUpdate) -> bool:
        return self.waiting is None and super().direct_update_ok(update)

    def on_table_updated(self, message: TableUpdated) -> None:
        if self.waiting is not None:
            self._close_waiting()
        if self.table_screen is None:  # the table was waiting when this session began
            self.open_table()
        elif (not message.update.game_over and self._shown_game is not None
              and self.seat_client.game_no != self._shown_game):
            self._open_new_game()  # everyone asked for the new game: it is dealt
        super().on_table_updated(message)

    def apply_table_update(self, update: TableUpdate) -> None:
        super().apply_table_update(update)
        self._tell_stake_result(update)

    def _tell_stake(self, info: TableInfo) -> None:
        """A spectator hears once per hand whom their stake backs in it."""
        if not self.seat_client.spectating or info.hand_no == 0:
            return
        me = self.seat_client.nickname
        mine = [b for n, b in info.hand_stakes if n in (me, f"{me}*")]
        key = (self.seat_client.game_no, info.hand_no)
        if mine and self._stake_heard != key:
            self._stake_heard = key
            self.notify(f"压鸽子 this hand you back 本盘你押 {'ESWN'[mine[0]]} "
                        f"{info.seats[mine[0]].name or 'bot 电脑'}", markup=False, timeout=8)

    def _tell_stake_result(self, update: TableUpdate) -> None:
        """A spectator who staked sees their net for the hand and the game."""
        view = update.view
        if not self.seat_client.spectating or view.result is None:
            return
        settlement = view.result.settlement
        key = (self._game_no, view.hand_no)
        if self._stake_told == key:
            return
        me = self.seat_client.nickname
        name = next((n for n in (me, f"{me}*") if n in settlement.spectators), None)
        if name is None:
            return
        self._stake_told = key
        total = sum(dict(h.spectator_net).get(name, 0) for h in update.history)
        self.notify(f"压鸽子 your stake 你的输赢: {settlement.spectators[name]:+d} "
                    f"(game 本局 {total:+d})", markup=False, timeout=15)

    def action_chat(self) -> None:
        if not isinstance(self.screen, ChatScreen):
            self.push_screen(ChatScreen(self.seat_client, self.chat_lines))

    def action_chat_log(self) -> None:
        """The table's chat heard so far, to scroll (``v``)."""
        if not isinstance(self.screen, ChatLogScreen):
            self.push_screen(ChatLogScreen(self.chat_lines))

    def action_stake(self) -> None:
        info = self.info or self.seat_client.info()
        if not self.seat_client.spectating:
            self.notify("seated players do not stake; a: allow spectators "
                        "入座玩家不能压鸽子，按 a 允许别人押你", markup=False)
        elif not info.stakes_possible:
            self.notify("no spectator stakes at this table 本桌不能压鸽子", markup=False)
        elif not isinstance(self.screen, StakeScreen):
            self.push_screen(StakeScreen(info, self.seat_client))

    def action_allow_spectators(self) -> None:
        client = self.seat_client
        if client.spectating or client.seat_index is None:
            self.notify("spectators: y to stake 旁观者按 y 压鸽子", markup=False)
            return
        now = client.info()
        if not now.stakes_possible:
            self.notify(Refusal("no_stakes").text(self.settings.lang), markup=False)
            return
        allow = not now.allow[client.seat_index]
        client.set_allow(allow)
        self.notify(("spectators may back you 已允许别人押你" if allow else
                     "spectators may not back you 已不允许别人押你")
                    + " (from the next hand 下一盘起)", markup=False)

    # --- a shared table's game ends: the next game keeps its rules -------------------------
    def tournament(self) -> str:
        return (self.info or self.seat_client.info()).tournament

    def show_new_game(self) -> None:
        """Enter on the game result: this player asks for a new game, which starts when every
        present player has (the game-over screen says whom it waits for meanwhile)."""
        error = self.seat_client.new_game(self.seat_client.info().rules, {}, None)
        if error is not None:
            self.notify(error.text(self.settings.lang), markup=False)
            return
        if self.seat_client.state is not TableState.OVER or (
                self.seat_client.game_no != self._shown_game):
            self._open_new_game()

    def _open_new_game(self) -> None:
        """The table's new game started: every screen of the last one gives way to it."""
        self._shown_game = self.seat_client.game_no
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self._game_no += 1
        self._result_shown = None
        self.table_screen = TableScreen()
        self._replace_screen_with(self.table_screen)
        self._show_away()
        update = self.seat_client.current_update()
        if update is not None:
            self._post_update(update)
