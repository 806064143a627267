"""The table screen: the table widget plus the keyboard.

The screen keeps only what the player is doing (cursor, open prompt, a message); the game state
is the latest :class:`~host.client.TableUpdate`. Every key binding has an id, so the settings
file can remap it (``"keys": {"win": "w"}``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from functools import partial
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen

from engine.actions import Action, ActionType
from engine.bots.basic import BasicPlayer
from engine.table import Phase
from engine.tiles import Kind
from engine.view import View
from host.client import TableUpdate
from host.clock import Timer
from host.coach import Coach, ask, coach_table, decision_key
from tui.apps.coach_panel import CoachPanel
from tui.apps.host_app import HostApp
from tui.compat import internals
from tui.view.auto_play import auto_action, decision_stamp
from tui.view.decisions import buying_now, must_buy
from tui.view.faces import name, small
from tui.view.layout import MIN_HEIGHT, MIN_WIDTH, notice_box
from tui.view.prompts import Choice, Prompt, claim_prompt, kong_prompt
from tui.view.result_text import hand_result_lines, line_content
from tui.view.seat_rows import INDEX_LABELS
from tui.view.table import TableView
from tui.view.tile_pieces import hand_tiles
from tui.view.timer_text import next_timer_change
from tui.view.ui_state import AUTO_TOGGLES, UiState
from tui.words.review_text import action_text, coach_lines
from words import named_seat, tr

INDEX_KEYS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "minus", "equals_sign",
              "left_square_bracket", "right_square_bracket")
assert len(INDEX_KEYS) == len(INDEX_LABELS)

TABLE_BINDINGS: list[Binding] = [
    Binding("left,h", "cursor(-1)", "Move left 左移 ←", id="cursor-left", show=False),
    Binding("right,l", "cursor(1)", "Move right 右移 →", id="cursor-right", show=False),
    *(
        Binding(key, f"pick({i})", f"Pick tile 选牌 {INDEX_LABELS[i]}", id=f"pick-{i + 1}",
                show=False)
        for i, key in enumerate(INDEX_KEYS)
    ),
    Binding("enter,space", "confirm", "Discard / confirm 打出", id="confirm", show=False),
    Binding("w", "win", "Win 胡", id="win", show=False),
    Binding("k", "kong", "Kong 杠", id="kong", show=False),
    Binding("p", "answer('peng')", "Pung 碰", id="peng", show=False),
    Binding("c", "answer('chi')", "Chow 吃 (again: next set)", id="chi", show=False),
    Binding("x", "answer('pass')", "Pass 过", id="pass", show=False),
    Binding("b", "ting", "Discard and declare 报听 (Gejiu)", id="ting", show=False),
    Binding("d", "answer('pond-win')", "塘子烂糊 (Gejiu)", id="pond-win", show=False),
    Binding("m", "answer('buy')", "Buy 买 (Yichun)", id="buy", show=False),
    Binding("n", "answer('no-buy')", "Don't buy 不买 (Yichun)", id="no-buy", show=False),
    Binding("t", "face", "Tile faces 牌面", id="tiles", show=False),
    Binding("i", "suggest", "Suggested discard on/off 提示出牌", id="suggest", show=False),
    # the auto toggles, for this session only (tui.view.auto_play)
    Binding("z", "auto('pass')", "No calls on/off 自动不吃碰", id="auto-pass", show=False),
    Binding("u", "auto('win')", "Auto-win on/off 自动胡牌", id="auto-win", show=False),
    Binding("o", "auto('discard')", "Auto-discard the drawn tile on/off 自动摸切",
            id="auto-discard", show=False),
    Binding("question_mark,f1", "help", "Help 帮助", id="help", show=False),
    Binding("s", "settings", "Settings 设置", id="settings", show=False),
    Binding("q", "quit_table", "Leave the table 离开 (twice)", id="quit", show=False),
    # the hand's result, shown over the table
    Binding("up", "scroll_result(-1)", "Hand result: line up 结算上一行", id="result-up",
            show=False),
    Binding("down", "scroll_result(1)", "Hand result: line down 结算下一行", id="result-down",
            show=False),
    Binding("pageup", "scroll_result(-1, True)", "Hand result: page up 结算上一页",
            id="result-page-up", show=False),
    Binding("pagedown", "scroll_result(1, True)", "Hand result: page down 结算下一页",
            id="result-page-down", show=False),
    Binding("home", "result_end(False)", "Hand result: top 结算开头", id="result-top", show=False),
    Binding("end", "result_end(True)", "Hand result: end 结算末尾", id="result-end", show=False),
]
# the coach's key (host.coach): bound at every table, shown in the hints and the help only
# at a coach table (the option coach=on); elsewhere it says that the table has none
COACH_BINDING = Binding("e", "coach", "The coach's view of your decision 教练 (coach=on)",
                        id="coach", show=False)
# An auto-pass waits this long (seconds, drawn evenly, never past the window's own time), as a
# player thinking it over: a claim window that closed at once would tell the table that a seat
# had a claim and passed it by the toggle.
AUTO_PASS_PAUSE = (1.0, 3.0)
# what keys do while a hand's result is shown (the rest do nothing then)
RESULT_ACTIONS = frozenset({"confirm", "scroll_result", "result_end", "face", "help",
                            "quit_table"})


class TableScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [*TABLE_BINDINGS, COACH_BINDING]
    # The table widget covers the whole screen: the screen's own background is never seen,
    # so it is drawn as blank lines instead of being styled line by line on every frame.
    BLANK = True

    def __init__(self) -> None:
        super().__init__()
        self.update: TableUpdate | None = None
        self.ui = UiState()
        self._quit_armed = 0.0
        self._bot = BasicPlayer()
        self._table: TableView | None = None
        self._live = False  # mounted and not yet unmounted
        self._tick_timer: Timer | None = None
        self._tick_at: float | None = None
        self.result: TableUpdate | None = None  # the hand's result shown over the table
        self._was_small = False  # the terminal was too small for the table at the last resize
        self._notice_box: tuple[int, int, int, int] | None = None  # where notices go (placed)
        self._notice_said = False  # placed off the table's message (a toast was over it)
        self._auto_sent: object = None  # the decision an auto move was last sent or timed for
        self.auto_rng = random.Random()  # the auto-pass's pause (a test seeds it)
        self._coach_for: object = None  # the decision the coach's panel is about

    @property
    def mj(self) -> HostApp:
        return self.app  # type: ignore[return-value]

    def compose(self) -> ComposeResult:
        yield TableView(id="table")
        yield CoachPanel()

    def on_mount(self) -> None:
        # Textual's ``is_mounted`` turns true only after the mount handlers: an update kept
        # before the mount would not be drawn here, and a table waiting for a key stayed blank
        self._live = True
        self._sync_settings()
        if self.update is not None:
            self.apply_update(self.update)
        self.place_notices()

    @property
    def live(self) -> bool:
        """Mounted and not yet unmounted (unlike ``is_mounted``, true in ``on_mount``)."""
        return self._live

    @property
    def table(self) -> TableView:
        if self._table is None:
            self._table = self.query_one(TableView)
        return self._table

    def _sync_settings(self) -> None:
        s = self.mj.settings
        self.ui.lang = s.lang
        self.ui.face = self.mj.face
        self.ui.show_waits = s.show_waits
        self.ui.show_suggestion = s.show_suggestion
        self.ui.keys = {"confirm": "Enter"}

    def refresh_settings(self) -> None:
        self._sync_settings()
        if self.update is not None:
            self._rebuild_prompt(self.update, keep=True)
        self._redraw()
        if self.result is not None:
            self._show_result_page(keep_top=True)
        self.place_notices()  # the discards' rows depend on the tile face

    def set_away(self, away: bool) -> None:
        """Whether the table plays this seat at once (its timer ran out twice) until a key:
        the status line says so."""
        if away != self.ui.away:
            self.ui.away = away
            self._redraw()

    def place_notices(self, toast: bool = False) -> None:
        """Textual's notices (toasts: chat lines, the table's messages) where they cover no
        seat (:func:`~tui.view.layout.notice_box`): over the centre, or over a hand's result
        its last rows above the keys. While one is shown (or ``toast``: one is coming), off
        the table's own message in the centre (a toast drawn over a toggle's notice garbled
        both). Set again only when the place changes: it lays the screen out again (so the
        message moves it only while a toast is there)."""
        if not self._live:
            return
        width, height = self.size
        racks = self.query("#textual-toastrack")  # none where notices are off
        shown = toast or any(rack.children for rack in racks)
        said = self.table.message_rows if shown and self.result is None else None
        self._notice_said = said is not None
        box = notice_box(width, height, self.mj.face, self.result is not None, said)
        if box == self._notice_box:
            return
        self._notice_box = box
        x, y, w, h = box
        for rack in racks:
            rack.styles.margin = (0, 0, max(0, height - y - h), x)
            rack.styles.width = w
            rack.styles.max_height = h

    # --- the hand's result ----------------------------------------------------------------
    def show_result(self, update: TableUpdate) -> None:
        """Show the hand's result over the table, from its top (Enter goes on)."""
        self.result = update
        self._show_result_page(keep_top=False)
        self.place_notices()

    def hide_result(self) -> None:
        self.result = None
        if self._live:
            self.table.hide_page()
        self.place_notices()

    @property
    def result_text(self) -> str:
        """The result shown, as plain text (tests); empty when none is."""
        return self.table.page_text if self.result is not None and self._live else ""

    def _show_result_page(self, keep_top: bool) -> None:
        update = self.result
        if update is None or not self._live:
            return
        lang = self.ui.lang
        width = max(40, self.app.size.width - 4)  # the margin and the scroll indicator
        lines = hand_result_lines(update, lang, self.mj.face, width)
        keys = tr(lang, "res_last" if update.game_over else "res_next")
        table = self.table
        table.show_page([line_content(line) for line in lines], keys,
                        table.page_top if keep_top and table.page_shown else 0)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.result is not None:
            return action in RESULT_ACTIONS
        return action not in RESULT_ACTIONS or action in ("confirm", "face", "help",
                                                          "quit_table")

    def action_scroll_result(self, delta: int, page: bool = False) -> None:
        if page:
            delta *= max(1, self.table.size.height - 1)
        self.table.scroll_page(delta)

    def action_result_end(self, end: bool) -> None:
        self.table.scroll_page(to=1 << 30 if end else 0)

    # --- updates in -----------------------------------------------------------------------
    def apply_update(self, update: TableUpdate) -> None:
        prev = self.update
        self.update = update
        if not self._live:
            return
        view = update.view
        tiles = hand_tiles(view)
        if prev is None or hand_tiles(prev.view) != tiles or prev.view.hand_no != view.hand_no:
            self.ui.cursor = max(0, len(tiles) - 1)
        if prev is None or (prev.view.phase, prev.view.current, prev.view.my_move) != (
            view.phase, view.current, view.my_move
        ):
            self.ui.message = ""
            if view.my_move and (prev is None or not prev.view.my_move) \
                    and self.mj.settings.bell:
                self.app.bell()  # the table now waits for this player (a turn, a claim)
        self._rebuild_prompt(update, keep=True)
        self.ui.coach = coach_table(view.options) and view.viewer is not None
        if self._coach_for is not None and decision_key(view) != self._coach_for:
            self._drop_coach()  # its decision is gone
        self.ui.suggestion = None
        if self.ui.show_suggestion and view.my_move and view.phase is Phase.TURN:
            choice = self._bot.choose(view)
            if choice.type is ActionType.DISCARD:
                self.ui.suggestion = choice.tile
        self._redraw()
        self._auto_play()

    # --- the auto toggles -----------------------------------------------------------------
    def _auto_play(self) -> None:
        """Play what the toggles play for the decision in front of the player, once: a win or
        a drawn tile's discard now, a pass after a thinking pause (:data:`AUTO_PASS_PAUSE`)."""
        update = self.update
        if update is None or self.result is not None or not self._live:
            return
        action = auto_action(update.view, self.ui.auto)
        stamp = decision_stamp(update.view)
        if action is None or stamp == self._auto_sent:
            return
        self._auto_sent = stamp
        if action.type is not ActionType.PASS:
            self._send(action, auto=True)
            return
        pause = self.auto_rng.uniform(*AUTO_PASS_PAUSE)
        if update.deadline is not None:  # within the window's own time (never its bank)
            own = update.deadline - update.bank_seconds - self.mj.client.clock.now()
            pause = max(0.0, min(pause, own - 0.5))
        self._later(pause, partial(self._auto_pass, stamp))

    def _auto_pass(self, stamp: object) -> None:
        update = self.update
        if update is None or decision_stamp(update.view) != stamp or "pass" not in self.ui.auto:
            return  # the window closed meanwhile, or the player took the toggle off
        action = auto_action(update.view, self.ui.auto)
        if action is not None and action.type is ActionType.PASS:
            self._send(action, auto=True)

    def action_auto(self, what: str) -> None:
        """Turn the auto toggle ``what`` on or off (for this session; the status line shows
        those on), and play it at once where it applies."""
        if self._hidden():
            return
        on = set(self.ui.auto) ^ {what}
        self.ui.auto = tuple(a for a in AUTO_TOGGLES if a in on)
        self._auto_sent = None
        self._say(f"auto_{what}_{'set' if what in on else 'unset'}")
        self._auto_play()

    def _rebuild_prompt(self, update: TableUpdate, keep: bool) -> None:
        view = update.view
        old = self.ui.prompt
        prompt: Prompt | None = claim_prompt(view, self.ui.lang, self.ui.face)
        if prompt is None and old is not None and old.kind == "kong" and view.my_move \
                and view.phase is Phase.TURN:
            prompt = kong_prompt(view, self.ui.lang, self.ui.face)
        if prompt is None or old is None or not keep or [c.action for c in prompt.choices] != [
            c.action for c in old.choices
        ]:
            self.ui.selected = 0
        self.ui.prompt = prompt

    def _later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """``callback`` in ``delay`` seconds, from the event loop, in this app's context (the
        handle keeps the context it was made in: this app's, whose screen asks).

        Textual's ``set_timer`` costs several times more: each timer is a task, its creation
        takes the screen's ``repr``, and each firing inspects a new ``partial``'s signature —
        with a timer per session per move, a share of the server's CPU worth saving
        (``call_next`` wraps the callback in a new ``partial`` too)."""
        return self.mj.client.clock.call_later(delay, partial(self._run_later, callback))

    def _run_later(self, callback: Callable[[], None]) -> None:
        if not self.is_attached:
            return
        try:
            callback()
        except Exception as error:  # as Textual does for an error in a handler
            internals.handle_exception(self.app, error)

    def on_unmount(self) -> None:
        self._live = False
        if self._tick_timer is not None:
            self._tick_timer.cancel()
            self._tick_timer = None

    def _tick(self) -> None:
        self._tick_timer = None
        self._tick_at = None
        if self.update is not None and self.update.deadline is not None:
            self._redraw()

    def _redraw(self) -> None:
        if self.update is None or not self._live:
            return
        self.ui.now = self.mj.client.clock.now()
        self.table.show(self.update, self.ui)
        if self.ui.message or self._notice_said:  # a toast shown keeps off the message
            self.place_notices()
        self._schedule_tick()

    def _schedule_tick(self) -> None:
        """Redraw when the timer's bar or seconds next change, and only then: a session whose
        seat is not on the clock has no timer running at all (hundreds of sessions share the
        process, and a periodic tick each would cost CPU while nothing happens)."""
        update = self.update
        at = next_timer_change(update, self.ui.now) if update is not None else None
        if at == self._tick_at:
            return
        if self._tick_timer is not None:
            self._tick_timer.cancel()
            self._tick_timer = None
        self._tick_at = at
        if at is not None:
            self._tick_timer = self._later(max(0.0, at - self.mj.client.clock.now()), self._tick)

    @property
    def small(self) -> bool:
        """Whether the terminal is too small for the table, which a notice then replaces."""
        return self.size.width < MIN_WIDTH or self.size.height < MIN_HEIGHT

    def _hidden(self) -> bool:
        """Whether the table is hidden behind the small terminal's notice (a hand's result
        over it is shown at any size): a key that acts on the table then does nothing, and the
        notice says so. Enter once discarded a tile the player could not see."""
        if self.result is not None or not self.small:
            return False
        self._say("too_small_keys")
        return True

    def on_resize(self) -> None:
        small = self.small
        waits = self.mj.client.set_paused(small)
        if small != self._was_small:  # a message said about the other size is stale
            self._was_small = small
            self.ui.message = ""
            self._redraw()
        if small and waits != self.ui.small_waits:  # the notice says whether the game waits
            self.ui.small_waits = waits
            self._redraw()
        if self.result is not None:  # the result's lines are laid out for the width
            self._show_result_page(keep_top=True)
        self.place_notices()

    # --- sending --------------------------------------------------------------------------
    def _send(self, action: Action, auto: bool = False) -> None:
        """Play ``action``; a refusal is said on the message line, but not that of a move
        the toggles made (``auto``): the player typed nothing, and the table moved on from
        the view the toggle acted on (the next update shows where it is)."""
        before = self.update
        error = self.mj.client.send(action)
        if error is not None:
            if not auto:
                self.ui.message = error.text(self.ui.lang)
                self._redraw()
            return
        self.ui.message = ""
        self.ui.prompt = None
        # The table has posted its new view to this app already: drawing now would only paint
        # the old view without its prompt, one frame before the new one (work spent on every
        # key, at every seat). Should no update come, draw anyway.
        self._later(0.3, partial(self._redraw_if_still, before))

    def _redraw_if_still(self, before: TableUpdate | None) -> None:
        if self.update is before:
            self._redraw()

    def _say(self, key: str, **fields: object) -> None:
        self.ui.message = tr(self.ui.lang, key, **fields)
        self._redraw()

    def _choose(self, choice: Choice) -> None:
        if choice.action is None:
            self.ui.prompt = None
            self._redraw()
        else:
            self._send(choice.action)

    def _hotkey(self, hotkey: str) -> bool:
        """Act on the prompt's choices for ``hotkey``: one choice plays it; several move the
        highlight among them (Enter confirms). False when the prompt has none."""
        p = self.ui.prompt
        idx = [i for i, c in enumerate(p.choices) if c.hotkey == hotkey] if p is not None else []
        if p is None or not idx:
            return False
        if len(idx) == 1:
            self._choose(p.choices[idx[0]])
        else:
            nxt = [i for i in idx if i > self.ui.selected]
            self.ui.selected = nxt[0] if nxt and self.ui.selected in idx else idx[0]
            self._redraw()
        return True

    # --- actions --------------------------------------------------------------------------
    def action_cursor(self, delta: int) -> None:
        if self.update is None or self._hidden():
            return
        self.ui.message = ""
        if self.ui.prompt is not None:
            n = len(self.ui.prompt.choices)
            self.ui.selected = (self.ui.selected + delta) % n
        else:
            tiles = hand_tiles(self.update.view)
            if tiles:
                self.ui.cursor = (self.ui.cursor + delta) % len(tiles)
        self._redraw()

    def action_pick(self, index: int) -> None:
        if self.update is None or self._hidden():
            return
        if self.ui.prompt is not None:
            return
        tiles = hand_tiles(self.update.view)
        if index < len(tiles):
            self.ui.cursor = index
            self.ui.message = ""
            self._redraw()

    def action_confirm(self) -> None:
        if self.result is not None:
            self.mj.after_hand_result(self.result)
            return
        if self.update is None or self._hidden():
            return
        p = self.ui.prompt
        if p is not None:
            self._choose(p.choices[min(self.ui.selected, len(p.choices) - 1)])
            return
        view = self.update.view
        if not (view.my_move and view.phase is Phase.TURN):
            self._say("not_your_turn" if view.phase is not Phase.ENDED else "not_now")
            return
        tiles = hand_tiles(view)
        if tiles:
            self._send(Action.discard(tiles[min(self.ui.cursor, len(tiles) - 1)]))

    def action_win(self) -> None:
        if self._hidden() or self._hotkey("win"):
            return
        if self.update is not None and Action.win() in self.update.view.legal:
            self._send(Action.win())
        else:
            self._say("no_win")

    def action_kong(self) -> None:
        if self._hidden() or self._hotkey("kong"):
            return
        if self.update is None:
            return
        prompt = kong_prompt(self.update.view, self.ui.lang, self.ui.face)
        if prompt is None:
            self._say("no_kong")
            return
        real = [c for c in prompt.choices if c.action is not None]
        if len(real) == 1:
            assert real[0].action is not None
            self._send(real[0].action)
        else:
            self.ui.prompt = prompt
            self.ui.selected = 0
            self._redraw()

    def action_answer(self, key: str) -> None:
        """A decision's key (the id of its binding, as its choices' ``hotkey``)."""
        if self._hidden() or self._hotkey(key):
            return
        update = self.update
        if update is not None and key in ("buy", "no-buy"):
            view = update.view
            why = must_buy(view)
            if why is not None:  # "no" to a buy that may not be declined
                self._say(f"buy_why_{why}", dice=view.dice)
                return
            now = buying_now(view)
            if now is not None and not view.my_move:  # the seats choose in turn
                self._say("buy_not_yet",
                          who=named_seat(view.viewer, now, self.ui.lang, update.names))
                return
        self._say("not_now")

    def action_ting(self) -> None:
        if self.update is None or self._hidden():
            return
        view = self.update.view
        tiles = hand_tiles(view)
        options = [a for a in view.legal if a.type is ActionType.DISCARD and a.ting]
        if not tiles or not options or self.ui.prompt is not None:
            self._say("no_ting_at_all")
            return
        kind = tiles[min(self.ui.cursor, len(tiles) - 1)]
        action = Action.discard(kind, ting=True)
        if action in options:
            self._send(action)
        else:
            self._say("no_ting", tile=name(kind, self.ui.face))

    def action_coach(self) -> None:
        """The coach's view of the decision in front of the player (a coach table's seated
        player only): asked of the thinking pool within the turn's time left, shown over the
        table's top rows (:class:`~tui.apps.coach_panel.CoachPanel`); an answer that comes
        after the decision has gone is dropped."""
        if self._hidden():
            return
        update, coach = self.update, self.mj.coach
        why, seconds = ask(update, coach, self.mj.client.clock.now())
        if why is not None or update is None or coach is None:
            self._say(why or "coach_failed")
            return
        if self._coach_for == decision_key(update.view):  # shown: the key again hides it
            self._drop_coach()
            return
        self._say("coach_asking")
        self.run_worker(self._coach(coach, update.view, seconds), group="coach",
                        exit_on_error=False)

    async def _coach(self, coach: Coach, view: View, seconds: float | None) -> None:
        key = decision_key(view)
        advice = await coach.advise(view, seconds)
        update = self.update
        if not self._live or update is None or decision_key(update.view) != key:
            return  # the decision is no longer in front of the player
        if advice.assessment is None:
            self._say(advice.why or "coach_failed")
            return
        self._coach_for = key
        self.coach_panel.say("\n".join(coach_lines(advice.assessment, self.ui.lang,
                                                   self._act)))
        self.ui.message = ""
        self._redraw()

    @property
    def coach_panel(self) -> CoachPanel:
        return self.query_one(CoachPanel)

    @property
    def coach_said(self) -> str:
        """The coach's answer shown over the table; empty when none is (tests read it)."""
        return self.coach_panel.text if self._live and self.coach_panel.shown else ""

    def _drop_coach(self) -> None:
        self._coach_for = None
        if self._live:
            self.coach_panel.clear()

    def _act(self, action: Action) -> str:
        """An action as the coach names it, its tiles in the player's face."""
        def tile(kind: Kind) -> str:
            return small(kind, self.ui.face).strip()
        return action_text(action, self.ui.lang, tile, lambda ks: "".join(tile(k) for k in ks))

    def action_face(self) -> None:
        self.mj.set_face(self.mj.face.next())

    def action_suggest(self) -> None:
        s = self.mj.settings
        s.show_suggestion = not s.show_suggestion
        s.save()
        self._sync_settings()
        if self.update is not None:
            self.apply_update(self.update)

    def action_help(self) -> None:
        self.mj.show_help()

    def action_settings(self) -> None:
        self.mj.show_settings()

    def action_quit_table(self) -> None:
        if self.result is not None:  # from a hand's result, q leaves at once
            self.app.exit()
            return
        now = time.monotonic()
        if now - self._quit_armed < 3.0:
            self.app.exit()
        else:
            self._quit_armed = now
            client = self.mj.client
            game = self.update is not None and not self.update.game_over
            rated = (not client.controls_pace and game
                     and not getattr(client, "spectating", False)
                     and not self.ui.coach)  # a coach table is never rated
            self._say("quit_again_rated" if rated else "quit_again")
