"""The replay viewer: a finished game's record, a hand at a time, move by move, every hand
open (the game is over), from any seat, with the log and, at each hand's last move, its
settlement. The list of one's finished games to choose from (``ssh host replay``).

It reads only a record (``engine.replay``): never a live table, so nothing it shows can help
anyone at a table in play. The server (``net.front.server``) or the command line
(``mahjong-ssh replay FILE --view``) reads the record and hands it over.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.markup import escape
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from engine.replay import GameSteps, HandSteps
from engine.table import Hand
from engine.tiles import Kind
from engine.view import MeldView, build_view
from host.client import TableUpdate
from tui.apps.standalone import StandaloneApp
from tui.settings import Settings
from tui.view.board_lines import event_markups, hand_items, seat_head, seat_lines, wall_line
from tui.view.faces import Face
from tui.view.result_text import (
    hand_result_lines,
    lines_content,
    shown_game_id,
)
from tui.words.ruleset_title import rules_title
from words import relative_name, seat_wind, tr

LOG_MOVES = 6  # moves the log shows, the latest last
MAX_GOTO_DIGITS = 5


@dataclass(frozen=True)
class ReplayGame:
    """What the viewer shows: a game's checked record, who sat where ("" for a computer),
    and what it is called (its ID, or the file it came from)."""

    steps: GameSteps
    names: tuple[str, str, str, str] = ("", "", "", "")
    label: str = ""  # the game's ID (shown as k7m2-x9qd) or the file's name
    when: float | None = None  # Unix time it finished, if known

    @property
    def rules(self) -> str:
        return str(self.steps.hands[0].header.get("rules", ""))


@dataclass(frozen=True)
class ListedGame:
    """One of the player's finished games, as the list shows it."""

    game_id: str
    finished: float
    rules: str
    table: str
    seat: int
    score: int
    hands: int


class ViewerScreen(Screen[None]):
    """A viewer's page: a title line, the body (markup lines, scrolled) and a line of keys,
    drawn again on a resize. ``ID`` starts its widgets' ids (``ID-title``, ``ID-body``, the
    body's text ``ID-BODY``, ``ID-keys``)."""

    ID: ClassVar[str]
    BODY: ClassVar[str]
    DEFAULT_CSS = """
    ViewerScreen { layout: vertical; }
    ViewerScreen .viewer-title { height: 1; padding: 0 1; }
    ViewerScreen .viewer-body { height: 1fr; padding: 0 1; }
    ViewerScreen .viewer-keys { height: auto; max-height: 2; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, lang: str, face: Face) -> None:
        super().__init__()
        self.lang = lang
        self.face = face

    def compose(self) -> ComposeResult:
        yield Static("", id=f"{self.ID}-title", classes="viewer-title", markup=False)
        with VerticalScroll(id=f"{self.ID}-body", classes="viewer-body"):
            yield Static("", id=f"{self.ID}-{self.BODY}")
        yield Static("", id=f"{self.ID}-keys", classes="viewer-keys", markup=False)

    def on_resize(self, event: events.Resize) -> None:
        self.refresh_view()

    def title_text(self) -> str:
        raise NotImplementedError

    def body_lines(self, width: int) -> list[str]:
        raise NotImplementedError

    def keys_text(self) -> str:
        raise NotImplementedError

    def refresh_view(self) -> None:
        if not self.is_mounted:
            return
        width = max(40, self.size.width - 4)  # the body's padding and its scroll bar
        self.query_one(f"#{self.ID}-title", Static).update(self.title_text())
        body = lines_content(self.body_lines(width))
        self.query_one(f"#{self.ID}-{self.BODY}", Static).update(body)
        self.query_one(f"#{self.ID}-keys", Static).update(self.keys_text())


class ReplayScreen(ViewerScreen):
    """One game's record, stepped through."""

    ID, BODY = "rp", "table"

    BINDINGS: ClassVar[list[BindingType]] = [
        # priority: the scrolling body would take Home, End, PgUp and PgDn for itself
        Binding("right", "step(1)", "Next move", id="replay-next", show=False, priority=True),
        Binding("left", "step(-1)", "Previous move", id="replay-prev", show=False,
                priority=True),
        Binding("home", "first", "First move", id="replay-first", show=False, priority=True),
        Binding("end", "last", "Last move", id="replay-last", show=False, priority=True),
        Binding("pagedown,right_square_bracket", "hand(1)", "Next hand", id="replay-hand-next",
                show=False, priority=True),
        Binding("pageup,left_square_bracket", "hand(-1)", "Previous hand",
                id="replay-hand-prev", show=False, priority=True),
        Binding("tab", "seat(1)", "Next seat", id="replay-seat", show=False, priority=True),
        Binding("shift+tab", "seat(-1)", "Previous seat", id="replay-seat-back", show=False,
                priority=True),
        Binding("enter", "goto", "Go to move", id="replay-goto", show=False),
        Binding("backspace", "goto_back", "Erase a digit", show=False),
        Binding("escape", "escape", "Cancel / leave", show=False),
        Binding("q", "leave", "Leave", id="replay-quit", show=False),
    ]

    def __init__(self, game: ReplayGame, lang: str, face: Face) -> None:
        super().__init__(lang, face)
        self.game = game
        self.hand_index = 0
        self.move = 0
        self.seat = 0  # the seat the table is seen from
        self.typed = ""  # digits of "go to move N"

    # --- what is shown ----------------------------------------------------------------------
    @property
    def steps(self) -> HandSteps:
        return self.game.steps.hands[self.hand_index]

    def on_mount(self) -> None:
        self.refresh_view()

    def title_text(self) -> str:
        n_hands = len(self.game.steps.hands)
        title = tr(self.lang, "rp_title", id=self.game.label,
                   rules=rules_title(self.game.rules, self.lang), n=self.steps.hand_no,
                   of=n_hands, k=self.move, moves=self.steps.moves)
        return f"{title} · {tr(self.lang, 'rp_seen', seat=self._seat_name(self.seat))}"

    def _seat_name(self, seat: int) -> str:
        name = self.game.names[seat] or tr(self.lang, "bot_name")
        return f"{seat_wind(seat, self.lang)} {name}"

    def body_lines(self, width: int) -> list[str]:
        hand = self.steps.at(self.move)
        if self.move == self.steps.moves and hand.settlement is not None:
            lines = self._settlement(hand, width)
        else:
            lines = self._table(hand, width)
        lines.append("")
        lines += self._log(hand, width)
        for problem in self.game.steps.problems:
            lines.append(f"[$error]{escape(tr(self.lang, 'rp_problem', problem=problem))}[/]")
        return lines

    def _table(self, hand: Hand, width: int) -> list[str]:
        view = build_view(hand, self.seat)
        lines: list[str] = []
        for r in range(4):  # from the viewer round the table: self, right, across, left
            s = (self.seat + r) % 4
            st = hand.seats[s]
            concealed = list(st.concealed)
            drawn: Kind | None = None
            if hand.drawn is not None and hand.current == s and hand.drawn in concealed:
                concealed.remove(hand.drawn)
                drawn = hand.drawn // 4
            head = seat_head(hand.current == s, s == hand.dealer,
                             f"{relative_name(self.seat, s, self.lang)} {self._seat_name(s)}")
            melds = [MeldView(m.type, m.tiles, m.claimed, m.source) for m in st.melds]
            items = hand_items(sorted(t // 4 for t in concealed), drawn, melds, self.face,
                               self.lang, view.wild)
            lines += seat_lines(head, items, view.seats[s], self.face, self.lang, width)
        lines.append(wall_line(view.wild, view.wild_indicator, view.remaining, self.face,
                               self.lang))
        return lines

    def _settlement(self, hand: Hand, width: int) -> list[str]:
        names = tuple(n or tr(self.lang, "bot_name") for n in self.game.names)
        done = self.game.steps.hands[:self.hand_index + 1]  # the totals after this hand
        totals = [sum(h.nets[s] for h in done) for s in range(4)]
        update = TableUpdate(view=build_view(hand, self.seat),
                             names=(names[0], names[1], names[2], names[3]),
                             totals=(totals[0], totals[1], totals[2], totals[3]))
        return hand_result_lines(update, self.lang, self.face, width=max(40, width))

    def _log(self, hand: Hand, width: int) -> list[str]:
        lines = [f"[b]{escape(tr(self.lang, 'rp_log'))}[/]"]
        shown = event_markups(hand.events, self.seat, self.lang, self.face)
        if not shown:
            lines.append("  " + escape(tr(self.lang, "rp_start")))
        for i, text in enumerate(shown[-LOG_MOVES:]):
            last = i == len(shown[-LOG_MOVES:]) - 1
            lines.append(("[b $turn]▶ " if last else "  ") + text + ("[/]" if last else ""))
        return lines

    def keys_text(self) -> str:
        if self.typed:
            return tr(self.lang, "rp_goto", n=self.typed)
        return tr(self.lang, "rp_keys")

    # --- keys -------------------------------------------------------------------------------
    def _go(self, move: int) -> None:
        self.move = max(0, min(move, self.steps.moves))
        self.refresh_view()

    def action_step(self, by: int) -> None:
        self._go(self.move + by)

    def action_first(self) -> None:
        self._go(0)

    def action_last(self) -> None:
        self._go(self.steps.moves)

    def action_hand(self, by: int) -> None:
        index = max(0, min(self.hand_index + by, len(self.game.steps.hands) - 1))
        if index != self.hand_index:
            self.hand_index = index
            self.move = 0
        self.refresh_view()

    def action_seat(self, by: int) -> None:
        self.seat = (self.seat + by) % 4
        self.refresh_view()

    def on_key(self, event: events.Key) -> None:
        if event.character is not None and event.character.isdigit() and event.character.isascii():
            event.stop()
            if len(self.typed) < MAX_GOTO_DIGITS:
                self.typed = (self.typed + event.character).lstrip("0") or "0"
            self.refresh_view()

    def action_goto(self) -> None:
        if self.typed:
            move, self.typed = int(self.typed), ""
            self._go(move)

    def action_goto_back(self) -> None:
        self.typed = self.typed[:-1]
        self.refresh_view()

    def action_escape(self) -> None:
        if self.typed:
            self.typed = ""
            self.refresh_view()
        else:
            self.action_leave()

    def action_leave(self) -> None:
        self.app.exit()


class GameListScreen(Screen[None]):
    """The player's finished games: Enter opens one (the app ends with its ID)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,escape", "leave", "Leave", id="replay-list-quit", show=False),
    ]
    DEFAULT_CSS = """
    GameListScreen #rp-list-title { height: auto; padding: 0 1; }
    GameListScreen OptionList { height: 1fr; }
    """

    def __init__(self, games: Sequence[ListedGame], lang: str) -> None:
        super().__init__()
        self.games = tuple(games)
        self.lang = lang

    def compose(self) -> ComposeResult:
        yield Static(tr(self.lang, "rp_list_title"), id="rp-list-title", markup=False)
        if not self.games:
            yield Static(tr(self.lang, "rp_list_none"), id="rp-list-none", markup=False)
            return
        yield OptionList(*[Option(list_row(g, self.lang), id=g.game_id) for g in self.games],
                         id="rp-list")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.app.exit(event.option.id)

    def action_leave(self) -> None:
        self.app.exit(None)


def list_row(g: ListedGame, lang: str) -> str:
    """One line of the list (also the text ``ssh host replay`` prints without a terminal)."""
    date = time.strftime("%Y-%m-%d %H:%M", time.gmtime(g.finished))
    return tr(lang, "rp_list_row", id=shown_game_id(g.game_id), date=date,
              rules=rules_title(g.rules, lang), table=g.table[:16],
              seat=seat_wind(g.seat, lang), score=g.score, n=g.hands)


class ReplayApp(StandaloneApp):
    """The viewer on its own (one game), or the list of games (``games``): the app then
    ends with the chosen game's ID (None: left)."""

    TITLE = "mahjong-ssh replay"

    def __init__(self, game: ReplayGame | None = None, settings: Settings | None = None,
                 games: Sequence[ListedGame] | None = None) -> None:
        super().__init__(settings)
        self.game = game
        self.games = games

    def on_mount(self) -> None:
        self.apply_settings_theme()
        if self.game is not None:
            self.push_screen(ReplayScreen(self.game, self.settings.lang, self.face))
        else:
            self.push_screen(GameListScreen(self.games or (), self.settings.lang))
