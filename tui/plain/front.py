"""The plain front end (``--plain``): the table as short lines of text, for screen readers and
terminals that cannot draw the table.

:class:`PlainTable` talks to a table only through :class:`host.client.TableClient` (a local
table or a seat at a shared one) and writes lines through a :class:`PlainOutput`: at the start
the table, the seats and your hand, one line each; then one sentence per move, your hand when
it changes, the question when the table waits for you (its choices by number and letter; then
the terminal's bell where that setting is on: plain mode sets no title and sends no desktop
notification, the question is what a screen reader says), the timer once at its start and
once a few seconds before it runs out, the hand's result with every hand and payment, and the
game's end (its ID for replay; a new game asked for and whom it waits for, as the screen says).
Nothing is redrawn, nothing is addressed by cursor: each line ends with a newline, and the
prompt is the last text written, so a screen reader's cursor sits after it. Commands (``hand``,
``table``, ``log N``, ``help`` …) say things again on request. Each input line is bounded
(:data:`MAX_LINE`); what it cannot read gets a short help sentence and changes nothing.

The lines are built by :mod:`tui.plain.sentences`, typed lines read by :mod:`tui.plain.commands`;
this module says each line when it is due (:mod:`tui.plain.terminal` puts it on a terminal).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from engine.actions import Action
from engine.table import Event, Phase
from engine.tiles import Kind
from engine.view import View
from host.client import SharedTableClient, TableClient, TableUpdate
from host.clock import Timer
from host.coach import Coach, ask, coach_table, decision_key
from host.refusal import Refusal
from host.table_info import COMPUTER_NAME, ChatLine, TableInfo, TableState, computer_names
from tui.plain.commands import Reply, look, read_choice, read_turn, unknown
from tui.plain.sentences import Answer, Sentences, printable
from tui.settings import Settings
from tui.view.decisions import Decision, buying_now
from tui.view.hints import waits_of
from tui.words.review_text import coach_lines

MAX_LINE = 200  # characters of one input line at most
IDLE_PROMPT = "> "
TIMER_WARN = 5.0  # seconds left when the timer's warning is said
FLUSH_DELAY = 0.05  # seconds the lines of one moment are gathered before they are written


class PlainOutput(Protocol):
    """Where the plain front end writes."""

    def say(self, lines: Sequence[str], prompt: str) -> None:
        """Write ``lines`` (each ends with a newline), then ``prompt`` (no newline)."""

    def close(self) -> None:
        """The player left: no more input is read."""


def new_events(old: Sequence[Event], new: Sequence[Event]) -> list[Event]:
    """The events of ``new`` (a view's last moves) after those of ``old`` (the view before):
    the largest overlap of the end of ``old`` with the start of ``new``."""
    for start in range(len(old)):
        tail = old[start:]
        if len(tail) <= len(new) and tuple(new[:len(tail)]) == tuple(tail):
            return list(new[len(tail):])
    return list(new)


class PlainTable:
    """One player's (or spectator's) plain front end to a table."""

    def __init__(self, client: TableClient, lang: str, out: PlainOutput, *,
                 rules: str | None = None, options: Mapping[str, Any] | None = None,
                 settings: Settings | None = None, coach: Coach | None = None) -> None:
        self.client = client
        self.coach = coach  # ``coach`` at a coach table (host.coach); None: none here
        self._coach_task: asyncio.Task[None] | None = None
        self.settings = settings  # ``plain on`` / ``plain off`` keep the choice there
        self.words = Sentences("zh" if lang == "zh" else "en")
        self.out = out
        self.shared: SharedTableClient | None = (
            client if hasattr(client, "subscribe_info") else None)  # type: ignore[assignment]
        self.rules = rules
        self.options = dict(options or {})
        self.info: TableInfo | None = None
        self.closed = False
        self._hand_key: tuple[int, int] | None = None
        self._events: tuple[Event, ...] = ()
        self._ask_key: object = None
        self._choices: list[Answer] = []
        self._question = ""
        self._result_said: tuple[int, int] | None = None
        self._hand_said: tuple[tuple[Kind, ...], Kind | None] | None = None
        self._waits_said: tuple[Kind, ...] | None = None
        self._timer: Timer | None = None
        self._pending: list[str] = []
        self._flushing: asyncio.TimerHandle | None = None
        self._kong_menu: list[Answer] = []  # the kongs to choose from, after k
        self._turn_question = ""  # the turn's question, while the kong menu is asked
        self._sent = False  # the player answered the question asked
        self._ring = False  # the bell (a setting) is due after the question is written
        self._deadline: float | None = None  # when the question's timer runs out
        self._game = 0  # games seen: a hand is known by (game, hand number)
        self._history = 0  # hands booked in the game so far
        # the commands that act whatever the table shows (those that read it: commands.look)
        acts: list[tuple[tuple[str, ...], Callable[[str], None]]] = [
            (("quit", "q", "exit", "leave", "退出", "离开"), self._quit),
            (("help", "?", "h", "帮助"), self._help),
            (("say", "chat", "/", "说"), self._chat),
            (("plain", "读屏"), self._plain_setting),
            (("coach", "教练"), self._coach)]
        if self.shared is not None:
            acts.append((("start",), self._start))
        self._acts = {word: act for words, act in acts for word in words}

    @property
    def update(self) -> TableUpdate | None:
        """The table as last told."""
        return self.words.update

    # --- start and stop -----------------------------------------------------------------------
    def start(self) -> None:
        """Subscribe to the table (the current view is said at once)."""
        shared = self.shared
        if shared is not None:
            self._pending += [self.words.chat_line(line) for line in shared.chat_log]
            shared.subscribe_info(self._on_info)
        self.client.subscribe(self._on_update)
        self._flush()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._cancel_timer()
        if self._coach_task is not None:
            self._coach_task.cancel()
        self._flush()  # closed: the batch due is dropped, not written
        self.client.close()
        self.out.close()

    # --- what the table tells -----------------------------------------------------------------
    def _on_info(self, info: TableInfo | ChatLine) -> None:
        if self.closed:
            return
        if isinstance(info, ChatLine):
            self._pending.append(self.words.chat_line(info))
            self._flush_soon()
            return
        before, self.info = self.info, info
        if info.state is TableState.WAITING:
            if before is None or before.state is not TableState.WAITING:
                self._pending += self.words.waiting_lines(info)
            else:
                self._pending += self.words.seat_changes(before, info)
            watching = self.shared is not None and self.shared.spectating
            self._ask_key = ("waiting", watching)
            self._question = self.words.tr("p_ask_waiting_watch" if watching else "p_ask_waiting")
            self._choices = []
        elif before is not None and self.update is not None:
            self._pending += self.words.seat_changes(before, info)
        self._flush_soon()

    def _on_update(self, update: TableUpdate) -> None:
        if self.closed:
            return
        if COMPUTER_NAME in update.names:  # a shared table's computer seats, in our language
            info = self.info or (self.shared.info() if self.shared is not None else None)
            levels = info.bot_levels if info is not None else None  # fixed for its life
            update = replace(update, names=computer_names(update.names, self.words.lang, levels))
        self.words.update = update
        view = update.view
        if len(update.history) < self._history:  # a new game (a finished one has a hand)
            self._game += 1
        self._history = len(update.history)
        key = (self._game, view.hand_no)
        if key != self._hand_key:
            self._hand_key = key
            self._events = ()
            self._hand_said = self._waits_said = None
            if isinstance(self._ask_key, tuple) and self._ask_key[0] == "waiting":
                self._ask_key, self._question = None, ""  # the game began
            self._pending += self.words.table_lines(update)
        for event in new_events(self._events, view.events):
            line = self.words.event_line(event, view)
            if line:
                self._pending.append(line)
        self._events = view.events
        self._own_state(update)
        self._asked(update)
        self._flush_soon()

    @property
    def written(self) -> bool:
        """Everything said so far has been written (nothing waits for :data:`FLUSH_DELAY`)."""
        return self._flushing is None and not self._pending

    def _flush_soon(self) -> None:
        """Write what the table said after :data:`FLUSH_DELAY`: the moves of one moment (a
        discard, the claim window it opens, the timer armed a turn of the loop later) come
        out as one batch with one prompt after it."""
        if self._flushing is None:
            self._flushing = asyncio.get_running_loop().call_later(FLUSH_DELAY, self._flush)

    def _flush(self) -> None:
        if self._flushing is not None:
            self._flushing.cancel()
            self._flushing = None
        if self.closed:
            return
        lines, self._pending = self._pending, []
        self.out.say(lines, self.prompt())
        if self._ring:  # the table now waits for this player: the terminal's bell, once
            self._ring = False
            ring = getattr(self.out, "ring", None)  # an output that has a bell
            if ring is not None:
                ring()

    def prompt(self) -> str:
        """The prompt written after every batch of lines: the question the table asks, or
        ``> `` while it asks nothing."""
        return f"{self._question} > " if self._question else IDLE_PROMPT

    def answers(self, view: View, d: Decision) -> list[Answer]:
        """The decision's options as this player's question says them."""
        return self.words.answers(view, d)

    # --- the player's own hand, waits, timer ------------------------------------------------
    def _own_state(self, update: TableUpdate) -> None:
        view = update.view
        if view.viewer is None or view.phase in (Phase.BUY, Phase.ENDED):
            return
        said = (view.hand, view.drawn)
        # the hand at the deal and whenever one's turn comes; after a discard the sentence says
        # what went
        turn = view.my_move and view.phase is Phase.TURN
        if said != self._hand_said and (turn or self._hand_said is None):
            self._hand_said = said
            self._pending.append(self.words.hand_line(view))
        if len(view.hand) % 3 == 1 and view.drawn is None:
            waits = tuple(waits_of(view, view.hand))
            if waits != self._waits_said:
                self._waits_said = waits
                if waits:
                    self._pending.append(self.words.waits_line(view, waits))

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _start_timer(self, update: TableUpdate, key: object) -> None:
        self._cancel_timer()
        if update.deadline is None or update.timer_seconds <= 0:
            return
        clock = self.client.clock
        left = update.deadline - clock.now()
        if left <= 0:
            return
        bank = min(left, max(0.0, update.bank_seconds))  # the time bank, after the own time
        if bank > 0:
            self._say("p_timer_bank", n=int(max(0.0, left - bank) + 0.999),
                      b=self.words.tr("p_seconds", n=int(bank + 0.999)))
        else:
            self._say("p_timer", n=int(left + 0.999))
        if left > TIMER_WARN + 1:
            self._timer = clock.call_later(left - TIMER_WARN, lambda: self._warn(key))

    def _warn(self, key: object) -> None:
        self._timer = None
        if self.closed or key != self._ask_key:
            return
        self._say("p_timer_low", n=int(TIMER_WARN))
        self._flush()

    # --- questions ----------------------------------------------------------------------------
    def _asked(self, update: TableUpdate) -> None:
        view = update.view
        key: object
        if view.phase is Phase.ENDED:
            # after the game, whom the new game waits for (each change is said); after a
            # hand, whether it waits for this player
            key = ("ended", self._hand_key, update.game_over,
                   update.waiting_for if update.game_over
                   else view.viewer is not None and view.viewer in update.waiting_for)
        elif view.my_move:
            key = ("move", self._hand_key, view.phase, view.legal, view.drawn)
        else:
            key = None
        if key == self._ask_key:
            if key is not None and self._deadline is None and update.deadline is not None:
                self._deadline = update.deadline  # the timer started after the question
                self._start_timer(update, key)
            return
        if (isinstance(self._ask_key, tuple) and self._ask_key[0] == "move" and not self._sent
                and self._deadline is not None and self.client.clock.now() >= self._deadline):
            self._say("p_timer_played")
        self._sent = False
        self._deadline = update.deadline if key is not None else None
        self._ask_key = key
        self._cancel_timer()
        self._question, self._choices, self._kong_menu = "", [], []
        if view.phase is Phase.ENDED:
            self._result(update)
            return
        if key is None:
            return
        self._question, self._choices = self.words.question(view)
        self._ring = self.settings is not None and self.settings.bell
        if view.phase is Phase.TURN:
            ready = self.words.ready_options(view)
            if ready:
                self._pending.append(ready)
        self._start_timer(update, key)

    def _result(self, update: TableUpdate) -> None:
        view = update.view
        key = self._hand_key
        if key is not None and self._result_said != key:
            self._result_said = key
            self._pending += self.words.result_lines(update)
            if update.game_over:
                self._pending += self.words.game_lines(update)
        if update.game_over:  # a new game asked for, and whom it waits for: as the screen says
            self._pending += self.words.game_wait_lines(update)
        if view.viewer is None:
            return
        tournament = (self.shared.info().tournament
                      if update.game_over and self.shared is not None else "")
        if tournament:  # the table's one game: the tournament's next round is elsewhere
            self._question = self.words.tr("p_ask_tournament_next", name=tournament)
        elif update.game_over:
            asked = update.waiting_for and view.viewer not in update.waiting_for
            self._question = self.words.tr("p_ask_game_waiting" if asked else "p_ask_next_game")
        elif view.viewer in update.waiting_for or self.shared is None:
            self._question = self.words.tr("p_ask_next")

    # --- input --------------------------------------------------------------------------------
    def handle(self, line: str) -> None:
        """One line the player typed."""
        if self.closed:
            return
        if len(line) > MAX_LINE:
            self._say("p_too_long", n=MAX_LINE)
            self._flush()
            return
        if self.shared is not None:
            self.shared.poke()
        self._command(printable(line).strip())
        if not self.closed:
            self._flush()

    def _say(self, key: str, **fields: object) -> None:
        self._pending.append(self.words.tr(key, **fields))

    def _command(self, text: str) -> None:
        words = text.split()
        head = words[0].lower() if words else ""
        rest = text[len(words[0]):].strip() if words else ""
        act = self._acts.get(head)
        if act is not None:
            act(rest)
            return
        update = self.update
        said = look(self.words, update, head, rest)
        if said is not None:
            self._pending += said
            return
        if update is None:
            if text:
                self._pending.append(unknown(self.words, text))
            return
        view = update.view
        if view.phase is Phase.ENDED:
            self._after_result(update, text)
        elif not view.my_move:
            now = buying_now(view)  # the seats choose in turn: whose choice it is
            if text and now is not None:
                self._say("p_buy_in_turn", who=self.words.seat_name(now, named=True))
            elif text:
                self._say("p_not_your_turn")
        elif view.phase is Phase.TURN:
            self._turn(view, head, rest, text)
        else:
            self._reply(read_choice(self.words, self._choices, text))

    def _quit(self, rest: str) -> None:
        self._say("p_bye")
        self._cancel_timer()
        lines, self._pending = self._pending, []
        self.out.say(lines, "")
        self.close()

    def _help(self, rest: str) -> None:
        self._say("p_help")
        if self.shared is not None:
            self._pending[-1] += self.words.tr("p_help_shared")
        update = self.update
        if update is not None and coach_table(update.view.options) \
                and update.view.viewer is not None:
            self._pending[-1] += self.words.tr("p_help_coach")

    def _coach(self, rest: str) -> None:
        """``coach``: the expert's view of the decision in front of the player, said in
        sentences when it comes (dropped if the decision has gone meanwhile)."""
        update, coach = self.update, self.coach
        why, seconds = ask(update, coach, self.client.clock.now())
        if why is not None or update is None or coach is None:
            self._say(why or "coach_failed")
            return
        self._say("coach_asking")
        self._coach_task = asyncio.ensure_future(self._coach_answer(coach, update.view,
                                                                    seconds))

    async def _coach_answer(self, coach: Coach, view: View, seconds: float | None) -> None:
        key = decision_key(view)
        advice = await coach.advise(view, seconds)
        update = self.update
        if self.closed or update is None or decision_key(update.view) != key:
            return  # the decision is no longer in front of the player
        if advice.assessment is None:
            self._say(advice.why or "coach_failed")
        else:
            lines = coach_lines(advice.assessment, self.words.lang, plain=True)
            self._pending += [lines[0], *lines[1:]]
        self._flush_soon()

    def _chat(self, text: str) -> None:
        if self.shared is None:
            self._say("p_no_chat")
        elif not text:
            self._say("p_chat_usage")
        else:
            self._refused(self.shared.chat(text))

    def _plain_setting(self, rest: str) -> None:
        """``plain off`` / ``plain on``: the plain mode from the next start, kept in the
        settings (the settings file, or the account over SSH)."""
        word = rest.lower()
        if word not in ("on", "off") or self.settings is None:
            self._say("p_plain_usage")
            return
        self.settings.plain = word == "on"
        self.settings.save()
        self._say("p_plain_on" if self.settings.plain else "p_plain_off")

    def _start(self, rest: str) -> None:
        assert self.shared is not None  # the command is a shared table's
        self._refused(self.shared.start())

    def _refused(self, refusal: Refusal | None) -> None:
        if refusal is not None:
            self._pending.append(refusal.text(self.words.lang))

    def _send(self, action: Action) -> None:
        self._sent = True
        refused = self.client.send(action)
        if refused is not None:
            self._sent = False
            self._refused(refused)

    def _after_result(self, update: TableUpdate, text: str) -> None:
        if text:
            self._pending.append(unknown(self.words, text))
            return
        if update.view.viewer is None:
            return
        if not update.game_over:
            self.client.next_hand()
        elif self.shared is not None:
            if update.waiting_for and update.view.viewer not in update.waiting_for:
                self._pending += self.words.game_wait_lines(update)  # asked already: still waits
                return
            self._refused(self.shared.new_game(self.shared.info().rules, {}, None))
        else:
            rules = self.rules or update.view.rules
            self._refused(self.client.new_game(rules, self.options or dict(update.view.options),
                                               None))

    def _turn(self, view: View, head: str, rest: str, text: str) -> None:
        if self._kong_menu:  # which kong: its answer; anything else is read as a turn's answer
            menu, self._kong_menu = self._kong_menu, []
            self._question = self._turn_question
            picked = next((c.option for c in menu if text.lower() in c.typed), None)
            if picked is not None:
                self._reply(picked.action)
                return
        reply = read_turn(self.words, view, head, rest, text)
        if not isinstance(reply, Decision):
            self._reply(reply)
            return
        self._kong_menu = self.words.answers(view, reply)
        self._turn_question = self._question
        self._question = self.words.tr("p_ask_kong", choices=self.words.semi(
            c.words for c in self._kong_menu))

    def _reply(self, reply: Reply) -> None:
        """Send the action typed, or say why nothing was."""
        if isinstance(reply, Action):
            self._send(reply)
        elif isinstance(reply, str):
            self._pending.append(reply)
