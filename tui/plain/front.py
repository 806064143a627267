"""The plain front end (``--plain``): the table as short lines of text, for screen readers and
terminals that cannot draw the table.

:class:`PlainTable` talks to a table only through :class:`host.client.TableClient` (a local
table or a seat at a shared one) and writes lines through a :class:`PlainOutput`: at the start
the table, the seats and your hand, one line each; then one sentence per move, your hand when
it changes, the question when the table waits for you (its choices by number and letter), the
timer once at its start and once a few seconds before it runs out, the hand's result with
every hand and payment, and the game's end. Nothing is redrawn, nothing is addressed by cursor:
each line ends with a newline, and the prompt is the last text written, so a screen reader's
cursor sits after it. Commands (``hand``, ``table``, ``log N``, ``help`` …) say things again on
request. Each input line is bounded (:data:`MAX_LINE`); what it cannot read gets a short help
sentence and changes nothing.

:class:`LineEditor` turns a terminal's raw keys (an SSH PTY) into lines, echoing them;
:func:`run_local` is ``mahjong-ssh play --plain`` on standard input and output.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import sys
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from rich.cells import cell_len

from engine.actions import Action, ActionType
from engine.rulesets import DEFAULT_RULES
from engine.table import Event, EventType, Phase
from engine.tiles import Kind, TileParseError, kind_to_str, parse_tiles
from engine.view import MeldView, View
from host.client import SharedTableClient, TableClient, TableUpdate
from host.clock import Timer
from host.refusal import Refusal
from host.table_info import COMPUTER_NAME, ChatLine, TableInfo, TableState
from tui.plain.words import RELATIVE, SEATS, TEXT, pt, tile_name, tiles_names
from tui.settings import Settings
from tui.view.decisions import KEYS, Decision, Option, decision, kong_decision
from tui.view.hints import unseen_counts, waits_of
from tui.words.i18n import tr
from tui.words.ruleset_title import rules_title

MAX_LINE = 200  # characters of one input line at most
TIMER_WARN = 5.0  # seconds left when the timer's warning is said
LOG_MAX = 24  # moves ``log N`` says at most (a view carries this many)
IDLE_PROMPT = "> "
FLUSH_DELAY = 0.05  # seconds the lines of one moment are gathered before they are written


class PlainOutput(Protocol):
    """Where the plain front end writes."""

    def say(self, lines: Sequence[str], prompt: str) -> None:
        """Write ``lines`` (each ends with a newline), then ``prompt`` (no newline)."""

    def close(self) -> None:
        """The player left: no more input is read."""


def printable(text: str) -> str:
    """``text`` without control characters (a name or a chat line never carries an escape
    sequence to this terminal)."""
    return "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")


@dataclass(frozen=True)
class Answer:
    """An option of a decision as said in a question: its words and what typed picks it (its
    number, what picks its key, ranked where other options share the key: ``c1``, ``c2``;
    Enter for the option keyed ``pass``)."""

    option: Option
    words: str
    typed: tuple[str, ...]


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
                 settings: Settings | None = None) -> None:
        self.client = client
        self.settings = settings  # ``plain on`` / ``plain off`` keep the choice there
        self.lang = "zh" if lang == "zh" else "en"
        self.out = out
        self.shared: SharedTableClient | None = (
            client if hasattr(client, "subscribe_info") else None)  # type: ignore[assignment]
        self.rules = rules
        self.options = dict(options or {})
        self.update: TableUpdate | None = None
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
        self._deadline: float | None = None  # when the question's timer runs out
        self._game = 0  # games seen: a hand is known by (game, hand number)
        self._history = 0  # hands booked in the game so far

    # --- start and stop -----------------------------------------------------------------------
    def start(self) -> None:
        """Subscribe to the table (the current view is said at once)."""
        shared = self.shared
        if shared is not None:
            for line in shared.chat_log:
                self._pending.append(self._chat_line(line))
            shared.subscribe_info(self._on_info)
        self.client.subscribe(self._on_update)
        self._flush()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._cancel_timer()
        if self._flushing is not None:
            self._flushing.cancel()
            self._flushing = None
        self.client.close()
        self.out.close()

    # --- what the table tells -----------------------------------------------------------------
    def _on_info(self, info: TableInfo | ChatLine) -> None:
        if self.closed:
            return
        if isinstance(info, ChatLine):
            self._pending.append(self._chat_line(info))
            self._flush_soon()
            return
        before, self.info = self.info, info
        if info.state is TableState.WAITING:
            if before is None or before.state is not TableState.WAITING:
                self._pending += self._waiting_lines(info)
            else:
                self._pending += self._seat_changes(before, info)
            self._ask_key = ("waiting", self.shared is not None and self.shared.spectating)
            self._question = pt(self.lang, "ask_waiting_watch" if (
                self.shared is not None and self.shared.spectating) else "ask_waiting")
            self._choices = []
        elif before is not None and self.update is not None:
            self._pending += self._seat_changes(before, info)
        self._flush_soon()

    def _chat_line(self, line: ChatLine) -> str:
        return pt(self.lang, "chat", who=printable(line.who)[:40], text=printable(line.text))

    def _on_update(self, update: TableUpdate) -> None:
        if self.closed:
            return
        if COMPUTER_NAME in update.names:  # a shared table's computer seats, in our language
            bot = tr(self.lang, "bot_name")
            names = tuple(bot if n == COMPUTER_NAME else n for n in update.names)
            update = replace(update, names=(names[0], names[1], names[2], names[3]))
        self.update = update
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
            self._pending += self.table_lines(update)
        for event in new_events(self._events, view.events):
            line = self.event_line(event, view)
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

    def prompt(self) -> str:
        """The prompt written after every batch of lines: the question the table asks, or
        ``> `` while it asks nothing."""
        return f"{self._question} > " if self._question else IDLE_PROMPT

    # --- naming -------------------------------------------------------------------------------
    def _me(self) -> int | None:
        return self.update.view.viewer if self.update is not None else None

    def seat_name(self, seat: int, *, named: bool = False) -> str:
        """``East`` / ``南家``; with ``named`` also the player's name and where he sits."""
        wind = SEATS[self.lang][seat]
        if not named:
            return wind
        me = self._me()
        if me is not None and seat == me:
            return pt(self.lang, "seat_you", seat=wind)
        names = self.update.names if self.update is not None else ("", "", "", "")
        name = printable(names[seat])[:24] or "-"
        rel = RELATIVE[self.lang][(seat - me) % 4] if me is not None else ""
        if not rel:
            return f"{wind} {name}"
        return pt(self.lang, "seat_other", seat=wind, name=name, rel=rel)

    def who(self, seat: int | str) -> str:
        """A party of a result: ``East (you)`` / ``South``, or a spectator's name."""
        if not isinstance(seat, int):
            return printable(seat)[:24]
        me = self._me()
        wind = SEATS[self.lang][seat]
        if me is not None and seat == me:
            return f"{wind} ({RELATIVE[self.lang][0]})" if self.lang == "en" else f"{wind}（你）"
        return wind

    def tile(self, kind: Kind) -> str:
        return tile_name(kind, self.lang)

    def tiles(self, kinds: Sequence[Kind]) -> str:
        return tiles_names(kinds, self.lang) if kinds else pt(self.lang, "nothing")

    def meld(self, m: MeldView) -> str:
        if m.tiles is None:
            return pt(self.lang, "meld_hidden")
        return pt(self.lang, f"meld_{m.type.value}", tiles=self.tiles(sorted(m.tiles)))

    def melds(self, melds: Sequence[MeldView]) -> str:
        sep = "，" if self.lang == "zh" else ", "
        return sep.join(self.meld(m) for m in melds) or pt(self.lang, "nothing")

    # --- lines --------------------------------------------------------------------------------
    def table_lines(self, update: TableUpdate) -> list[str]:
        """The table at the start of a hand: the ruleset and hand, the seats, the scores."""
        view = update.view
        lang = self.lang
        of = update.hands_per_game or "?"
        out = [pt(lang, "table", rules=rules_title(view.rules, lang), n=view.hand_no, of=of,
                  dealer=self.seat_name(view.dealer))]
        sep = "；" if lang == "zh" else "; "
        out.append(pt(lang, "seats", seats=sep.join(self.seat_name(s, named=True)
                                                    for s in range(4))))
        if view.viewer is None:
            out.append(pt(lang, "seat_spectating"))
        if any(update.totals):
            out.append(self.totals_line(update.totals, "scores"))
        return out

    def totals_line(self, values: Sequence[int], key: str) -> str:
        sep = "，" if self.lang == "zh" else ", "
        return pt(self.lang, key, nets=sep.join(f"{self.who(s)} {values[s]:+d}" for s in range(4)),
                  scores=sep.join(f"{self.who(s)} {values[s]:+d}" for s in range(4)))

    def hand_line(self, view: View) -> str:
        if view.drawn is not None:
            return pt(self.lang, "hand_drawn", tiles=self.tiles(view.hand),
                      tile=self.tile(view.drawn))
        return pt(self.lang, "hand", tiles=self.tiles(view.hand))

    def event_line(self, e: Event, view: View, live: bool = True) -> str | None:
        """A move as a sentence, or None for those not said (another seat's draw; with
        ``live`` False, for ``log``, one's own draws too: the view holds only the latest
        drawn tile)."""
        lang = self.lang
        me = view.viewer
        mine = me is not None and e.seat == me
        et = e.type
        if et is EventType.DEAL:
            return pt(lang, "ev_deal", n=view.hand_no)
        if et in (EventType.DRAW, EventType.REPLACEMENT):
            if not live or not mine or view.drawn is None or view.current != me:
                return None
            key = "ev_draw_you" if et is EventType.DRAW else "ev_replacement_you"
            return pt(lang, key, tile=self.tile(view.drawn))
        if et is EventType.WILD:
            if e.tile is None or view.wild is None:
                return None
            return pt(lang, "ev_wild", tile=self.tile(e.tile), wild=self.tile(view.wild))
        key = "ev_" + et.value
        if et is EventType.ANGANG and e.tile is not None:
            key = "ev_angang_tile"
        if mine and f"{key}_you" in TEXT:
            key += "_you"
        if key not in TEXT:
            return None
        who = self.seat_name(e.seat) if e.seat is not None else ""
        if mine and lang == "zh":
            who = "你"
        elif mine:
            who = "You"
        tile = self.tile(e.tile) if e.tile is not None else ""
        tiles = self.tiles(sorted(e.tiles)) if e.tiles else ""
        return pt(lang, key, who=who, tile=tile, tiles=tiles)

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
            self._pending.append(self.hand_line(view))
        if len(view.hand) % 3 == 1 and view.drawn is None:
            waits = tuple(waits_of(view, view.hand))
            if waits != self._waits_said:
                self._waits_said = waits
                if waits:
                    self._pending.append(self.waits_line(view, waits))

    def waits_line(self, view: View, waits: Sequence[Kind]) -> str:
        if len(waits) >= 34:
            return pt(self.lang, "waits", tiles=pt(self.lang, "waits_any"))
        unseen = unseen_counts(view)
        sep = "，" if self.lang == "zh" else ", "
        return pt(self.lang, "waits", tiles=sep.join(
            pt(self.lang, "waits_left", tile=self.tile(k), n=unseen[k]) for k in waits))

    def _ready_options(self, view: View) -> str | None:
        """On one's turn: the discards that leave the hand ready, and their waits."""
        tiles = [*view.hand, *([view.drawn] if view.drawn is not None else [])]
        if len(tiles) % 3 != 2:
            return None
        found: list[str] = []
        for k in sorted(set(tiles)):
            rest = list(tiles)
            rest.remove(k)
            waits = waits_of(view, sorted(rest))
            if waits:
                words = (pt(self.lang, "waits_any") if len(waits) >= 34
                         else self.tiles(sorted(waits)))
                found.append(pt(self.lang, "ready_option", tile=self.tile(k), waits=words))
            if len(found) == 4:
                break
        if not found:
            return None
        sep = "；" if self.lang == "zh" else "; "
        return pt(self.lang, "ready_by", options=sep.join(found))

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
        self._pending.append(pt(self.lang, "timer", n=int(left + 0.999)))
        if left > TIMER_WARN + 1:
            self._timer = clock.call_later(left - TIMER_WARN, lambda: self._warn(key))

    def _warn(self, key: object) -> None:
        self._timer = None
        if self.closed or key != self._ask_key:
            return
        self._pending.append(pt(self.lang, "timer_low", n=int(TIMER_WARN)))
        self._flush()

    # --- questions ----------------------------------------------------------------------------
    def _asked(self, update: TableUpdate) -> None:
        view = update.view
        key: object
        if view.phase is Phase.ENDED:
            key = ("ended", self._hand_key, update.game_over,
                   view.viewer is not None and view.viewer in update.waiting_for)
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
            self._pending.append(pt(self.lang, "timer_played"))
        self._sent = False
        self._deadline = update.deadline if key is not None else None
        self._ask_key = key
        self._cancel_timer()
        self._choices = []
        self._kong_menu = []
        self._question = ""
        if view.phase is Phase.ENDED:
            self._result(update)
            return
        if key is None:
            return
        self._question = self._question_for(view)
        if view.phase is Phase.TURN:
            ready = self._ready_options(view)
            if ready:
                self._pending.append(ready)
        self._start_timer(update, key)

    def _question_for(self, view: View) -> str:
        lang = self.lang
        legal = view.legal
        if view.phase is Phase.TURN:
            more = ""
            if any(a.type is ActionType.WIN for a in legal):
                more += pt(lang, "ask_turn_win")
            if any(a.type in (ActionType.ANGANG, ActionType.BUGANG) for a in legal):
                more += pt(lang, "ask_turn_kong")
            if any(a.type is ActionType.DISCARD and a.ting for a in legal):
                more += pt(lang, "ask_turn_ting")
            eg = kind_to_str(view.drawn if view.drawn is not None else
                             (view.hand[-1] if view.hand else 0))
            return pt(lang, "ask_turn", eg=eg, more=more)
        d = decision(view)
        if d is None:
            return ""
        self._choices = self.answers(view, d)
        choices = self._join(c.words for c in self._choices)
        if d.kind == "buy":
            must = not any(a.type is ActionType.NO_BUY for a in legal)
            return pt(lang, "ask_buy_must" if must else "ask_buy", choices=choices)
        if d.kind == "declare":
            return pt(lang, "ask_declare", choices=choices)
        tile = view.window_tile
        who = self.seat_name(view.window_from) if view.window_from is not None else "?"
        if view.window_from is not None and view.window_from == view.viewer:
            who = "你" if lang == "zh" else "You"
        return pt(lang, f"ask_{d.kind}", who=who,
                  tile=self.tile(tile) if tile is not None else "?", choices=choices)

    def answers(self, view: View, d: Decision) -> list[Answer]:
        """The decision's options in plain words (``c_WORD``), numbered from 1 but the one
        keyed ``pass`` (pass, cancel), which Enter picks; a key's letter and words take a
        rank too (``c1``, ``c2``), and alone pick an option only where no other shares it."""
        out: list[Answer] = []
        shared = Counter(o.key for o in d.options)
        rank: Counter[str] = Counter()
        n = 0
        for o in d.options:
            if o.key == "pass":
                out.append(Answer(o, pt(self.lang, f"c_{o.word}"), ("", *KEYS["pass"])))
                continue
            n += 1
            rank[o.key] += 1
            ranked = tuple(t + str(rank[o.key]) for t in KEYS.get(o.key, ()))
            typed = ranked if shared[o.key] > 1 else (*KEYS.get(o.key, ()), *ranked)
            a = o.action
            assert a is not None
            tile = view.window_tile
            run = sorted((*a.tiles, tile)) if a.type is ActionType.CHI and tile is not None else []
            words = pt(self.lang, f"c_{o.word}", n=n, letter=f" ({typed[0]})" if typed else "",
                       tiles=self.tiles(run), tile=self.tile(a.tile) if a.tile is not None else "",
                       slot=self._slot(view, a),
                       lighter=pt(self.lang, "c_lighter") if a.lighter else "")
            out.append(Answer(o, words, (str(n), *typed)))
        return out

    def _slot(self, view: View, a: Action) -> str:
        if a.slot is None or a.slot >= len(view.kong_tiles):
            return ""
        k = view.kong_tiles[a.slot]
        return pt(self.lang, "c_slot", k=a.slot + 1, tile=self.tile(k) if k is not None else "?")

    def _join(self, words: Any) -> str:
        return ("；" if self.lang == "zh" else "; ").join(words)

    # --- the result ---------------------------------------------------------------------------
    def _result(self, update: TableUpdate) -> None:
        view = update.view
        key = self._hand_key
        if key is not None and self._result_said != key:
            self._result_said = key
            self._pending += self.result_lines(update)
            if update.game_over:
                self._pending += self.game_lines(update)
        if view.viewer is None:
            return
        if update.game_over:
            self._question = pt(self.lang, "ask_next_game")
        elif view.viewer in update.waiting_for or self.shared is None:
            self._question = pt(self.lang, "ask_next")

    def result_lines(self, update: TableUpdate) -> list[str]:
        """The hand's result: every hand, each win and its items, every payment, the nets."""
        view = update.view
        lang = self.lang
        out = [pt(lang, "res_title", n=view.hand_no)]
        res = view.result
        if res is None:
            out.append(pt(lang, "res_draw"))
            return out
        for s in range(4):
            melds = pt(lang, "res_melds", melds=self.melds(res.melds[s])) if res.melds[s] else ""
            out.append(pt(lang, "res_hand", who=self.who(s), tiles=self.tiles(res.hands[s]),
                          melds=melds))
        if view.wild is not None and view.wild_indicator is not None:
            out.append(pt(lang, "wild_is", wild=self.tile(view.wild),
                          ind=self.tile(view.wild_indicator)))
        settlement = res.settlement
        if not settlement.wins:
            out.append(pt(lang, "res_draw"))
        for w in settlement.wins:
            pattern = f"{w.pattern_zh} {w.pattern_en}" if lang == "en" else w.pattern_zh
            how = ""
            if res.how is not None:
                src = self.who(res.from_seat) if res.from_seat is not None else "?"
                how = pt(lang, f"how_{res.how.value}", who=src)
            tile = self.tile(res.win_tile) if res.win_tile is not None else "-"
            out.append(pt(lang, "res_win", who=self.who(w.seat), pattern=pattern, how=how,
                          tile=tile))
            for item in w.items:
                tiles = f" ({self.tiles(sorted(item.tiles))})" if item.tiles else ""
                out.append("  " + pt(lang, "res_item", zh=item.zh, en=item.en, value=item.value,
                                     tiles=tiles))
            out.append("  " + pt(lang, "res_value", v=w.value))
        for t in settlement.transfers:
            why = "".join(part.reading(lang) if part.meld is None
                          else f"({self.tiles(sorted(part.meld.tiles))})" for part in t.reason)
            out.append(pt(lang, "res_pays", payer=self.who(t.payer), payee=self.who(t.payee),
                          amount=t.amount, why=why))
        if not settlement.transfers:
            out.append(pt(lang, "res_no_pay"))
        out.append(self.totals_line(settlement.seats, "res_net"))
        for name, v in settlement.spectators.items():
            out.append(f"  {printable(name)[:24]} {v:+d}")
        out.append(self.totals_line(update.totals, "res_totals"))
        if settlement.next_dealer is not None and not update.game_over:
            out.append(pt(lang, "res_next_dealer", who=self.who(settlement.next_dealer)))
        return out

    def game_lines(self, update: TableUpdate) -> list[str]:
        out = []
        sep = "，" if self.lang == "zh" else ", "
        for h in update.history:
            nets = sep.join(f"{self.who(s)} {h.net[s]:+d}" for s in range(4))
            won = sep.join(self.who(s) for s in h.winners) or pt(self.lang, "drawn_hand")
            out.append(pt(self.lang, "game_hands", n=h.hand_no, nets=nets, who=won))
        out.append(self.totals_line(update.totals, "res_totals"))
        top = max(update.totals)
        best = [s for s in range(4) if update.totals[s] == top]
        key = "game_over" if len(best) == 1 else "game_tied"
        out.append(pt(self.lang, key, who=sep.join(self.who(s) for s in best)))
        return out

    # --- waiting room -------------------------------------------------------------------------
    def _seat_words(self, info: TableInfo, s: int) -> str:
        seat = info.seats[s]
        if not seat.name:
            return pt(self.lang, "empty_seat")
        return printable(seat.name)[:24]

    def _waiting_lines(self, info: TableInfo) -> list[str]:
        lang = self.lang
        out = [pt(lang, "waiting_table", name=printable(info.name), rules=rules_title(
            info.rules, lang))]
        sep = "；" if lang == "zh" else "; "
        out.append(pt(lang, "seats", seats=sep.join(
            f"{SEATS[lang][s]} {self._seat_words(info, s)}" for s in range(4))))
        return out

    def _seat_changes(self, before: TableInfo, info: TableInfo) -> list[str]:
        out = []
        for s in range(4):
            old, new = before.seats[s].name, info.seats[s].name
            if old == new:
                continue
            if new and new != COMPUTER_NAME:
                out.append(pt(self.lang, "sits", seat=SEATS[self.lang][s],
                              name=printable(new)[:24]))
            elif old and old != COMPUTER_NAME and not new:
                out.append(pt(self.lang, "leaves", seat=SEATS[self.lang][s],
                              name=printable(old)[:24]))
        return out

    # --- input --------------------------------------------------------------------------------
    def handle(self, line: str) -> None:
        """One line the player typed."""
        if self.closed:
            return
        if len(line) > MAX_LINE:
            self._pending.append(pt(self.lang, "too_long", n=MAX_LINE))
            self._flush()
            return
        if self.shared is not None:
            self.shared.poke()
        text = printable(line).strip()
        self._command(text)
        if not self.closed:
            self._flush()

    def _say(self, key: str, **fields: object) -> None:
        self._pending.append(pt(self.lang, key, **fields))

    def _command(self, text: str) -> None:
        words = text.split()
        head = words[0].lower() if words else ""
        rest = text[len(words[0]):].strip() if words else ""
        update = self.update
        if head in ("quit", "q", "exit", "leave", "退出", "离开"):
            self._say("bye")
            self._cancel_timer()
            lines, self._pending = self._pending, []
            self.out.say(lines, "")
            self.close()
            return
        if head in ("help", "?", "h", "帮助"):
            self._say("help")
            if self.shared is not None:
                self._pending[-1] += pt(self.lang, "help_shared")
            return
        if head in ("say", "chat", "/", "说"):
            self._chat(rest)
            return
        if head in ("plain", "读屏"):
            self._plain_setting(rest.lower())
            return
        if head == "start" and self.shared is not None:
            refused = self.shared.start()
            if refused is not None:
                self._refused(refused)
            return
        if update is None:
            if text:
                self._say("unknown", what=text[:40])
            return
        view = update.view
        if head in ("hand", "手牌"):
            if view.viewer is None:
                self._say("seat_spectating")
            elif not view.hand and view.phase is Phase.BUY:
                self._say("not_dealt")
            else:
                self._pending.append(self.hand_line(view))
                self._pending.append(self.numbered_hand(view))
                if view.seats[view.viewer].melds:
                    self._say("melds_mine", melds=self.melds(view.seats[view.viewer].melds))
            return
        if head in ("table", "look", "l", "牌桌"):
            self._pending += self.look_lines(update)
            return
        if head in ("waits", "ting?", "听"):
            self._waits_request(view)
            return
        if head in ("scores", "score", "总分"):
            self._pending.append(self.totals_line(update.totals, "res_totals"))
            return
        if head in ("log", "moves"):
            self._log(view, rest)
            return
        if head in ("again", "repeat", "r"):
            return  # the prompt (the question) is said again after every answer
        if view.phase is Phase.ENDED:
            self._after_result(update, text)
            return
        if not view.my_move:
            if text:
                self._say("not_your_turn")
            return
        if view.phase is Phase.TURN:
            self._turn(view, head, rest, text)
            return
        self._choose(text)

    def _plain_setting(self, word: str) -> None:
        """``plain off`` / ``plain on``: the plain mode from the next start, kept in the
        settings (the settings file, or the account over SSH)."""
        if word not in ("on", "off") or self.settings is None:
            self._say("plain_usage")
            return
        self.settings.plain = word == "on"
        self.settings.save()
        self._say("plain_on" if self.settings.plain else "plain_off")

    def _refused(self, refusal: Refusal) -> None:
        self._pending.append(refusal.text(self.lang))

    def _send(self, action: Action) -> None:
        self._sent = True
        refused = self.client.send(action)
        if refused is not None:
            self._sent = False
            self._refused(refused)

    def _chat(self, text: str) -> None:
        if self.shared is None:
            self._say("no_chat")
            return
        if not text:
            self._say("chat_usage")
            return
        refused = self.shared.chat(text)
        if refused is not None:
            self._refused(refused)

    def _after_result(self, update: TableUpdate, text: str) -> None:
        if text:
            self._say("unknown", what=text[:40])
            return
        if update.view.viewer is None:
            return
        if update.game_over:
            if self.shared is not None:
                refused = self.shared.new_game(self.shared.info().rules, {}, None)
            else:
                rules = self.rules or update.view.rules
                refused = self.client.new_game(rules, self.options or dict(update.view.options),
                                               None)
            if refused is not None:
                self._refused(refused)
            return
        self.client.next_hand()

    def _choose(self, text: str) -> None:
        low = text.lower().replace(" ", "")
        for c in self._choices:
            if low in c.typed:
                if c.option.action is not None:
                    self._send(c.option.action)
                return
        if not low:
            return  # the question again
        several = [c for c in self._choices if low in KEYS.get(c.option.key, ())]
        if several:  # a key several options share (the chows of a discard): which
            self._say("which_chow" if several[0].option.key == "chi" else "ask_kong",
                      choices=self._join(c.words for c in several))
            return
        if low.isdigit():
            self._say("no_number", n=low[:6],
                      most=sum(c.option.key != "pass" for c in self._choices) or 1)
        elif any(low in KEYS[key] for key in ("chi", "peng", "kong", "win")):
            self._say("no_claim")
        else:
            self._say("unknown", what=text[:40])

    def _turn(self, view: View, head: str, rest: str, text: str) -> None:
        legal = view.legal
        tiles = [*view.hand, *([view.drawn] if view.drawn is not None else [])]
        if self._kong_menu:  # which kong: its answer; anything else is read as a turn's answer
            menu, self._kong_menu = self._kong_menu, []
            self._question = self._turn_question
            picked = next((c.option for c in menu if text.lower() in c.typed), None)
            if picked is not None:
                if picked.action is not None:
                    self._send(picked.action)
                return
        if not text:
            return  # the question again
        wins = [a for a in legal if a.type is ActionType.WIN]
        # "w" wins while a win is possible (the question says so), else it is the west wind
        if head in ("win", "hu", "胡") or (head == "w" and wins and not rest):
            if wins:
                self._send(wins[0])
            else:
                self._say("no_win")
            return
        if head in ("k", "kong", "gang", "杠"):
            offer = kong_decision(view)
            if offer is None:
                self._say("no_kong")
                return
            if rest:
                kong_kind = self._tile_of(rest)
                if kong_kind is None:
                    return
                offer = replace(offer, options=tuple(
                    o for o in offer.options if o.action is None or o.action.tile == kong_kind))
            kongs = [o.action for o in offer.options if o.action is not None]
            if not kongs:
                self._say("no_kong")
            elif len(kongs) == 1:
                self._send(kongs[0])
            else:
                self._kong_menu = self.answers(view, offer)
                self._turn_question = self._question
                self._question = pt(self.lang, "ask_kong", choices=self._join(
                    c.words for c in self._kong_menu))
            return
        ting = head in ("b", "ting", "报听") and bool(rest)  # "b" alone: the white dragon
        target = rest if ting or head in ("d", "discard", "打") else text
        kind: Kind | None
        if target.isdigit():
            n = int(target[:6])
            if not 1 <= n <= len(tiles):
                self._say("no_number", n=n, most=len(tiles))
                return
            kind = tiles[n - 1]
        else:
            kind = self._tile_of(target)
            if kind is None:
                return
        if kind not in tiles:
            self._say("no_such_tile", tile=self.tile(kind))
            return
        action = next((a for a in legal if a.type is ActionType.DISCARD and a.tile == kind
                       and a.ting == ting), None)
        if action is None:
            if ting:
                self._say("no_ting", tile=self.tile(kind))
            else:
                self._say("unknown", what=text[:40])
            return
        self._send(action)

    def _tile_of(self, text: str) -> Kind | None:
        """One tile in notation (``5s``, ``E``, ``中``), or None after saying why not."""
        try:
            kinds = parse_tiles(text.strip()[:8].upper() if len(text.strip()) == 1
                                else text.strip()[:8])
        except TileParseError:
            kinds = []
        if len(kinds) != 1:
            self._say("unknown", what=text[:40])
            return None
        return kinds[0]

    def numbered_hand(self, view: View) -> str:
        tiles = [*view.hand, *([view.drawn] if view.drawn is not None else [])]
        sep = "，" if self.lang == "zh" else ", "
        return pt(self.lang, "hand_numbered",
                  tiles=sep.join(f"{i + 1}: {self.tile(k)}" for i, k in enumerate(tiles)))

    def _waits_request(self, view: View) -> None:
        if view.viewer is None:
            self._say("seat_spectating")
            return
        ready = self._ready_options(view) if view.drawn is not None else None
        if ready:
            self._pending.append(ready)
            return
        waits = waits_of(view, view.hand) if len(view.hand) % 3 == 1 else {}
        if waits:
            self._pending.append(self.waits_line(view, tuple(waits)))
        else:
            self._say("waits", tiles=pt(self.lang, "nothing"))

    def _log(self, view: View, rest: str) -> None:
        n = LOG_MAX
        if rest:
            if not rest.isdigit():
                self._say("unknown", what=rest[:40])
                return
            n = max(1, min(LOG_MAX, int(rest[:4])))
        lines = [line for e in view.events if (line := self.event_line(e, view, live=False))]
        lines = lines[-n:]
        if not lines:
            self._say("no_log")
            return
        self._say("log_head", n=len(lines))
        self._pending += ["  " + line for line in lines]

    def look_lines(self, update: TableUpdate) -> list[str]:
        """The table now: each seat's melds, discards and flags; the wall; whose turn."""
        view = update.view
        lang = self.lang
        out = []
        for p in view.seats:
            flags = ""
            if p.seat == view.dealer:
                flags += pt(lang, "flag_dealer")
            if p.ting:
                flags += pt(lang, "flag_ting")
            if p.bought:
                flags += pt(lang, "flag_bought")
            if p.lighter:
                flags += pt(lang, "flag_lighter")
            if p.flown:
                flags += pt(lang, "flag_flown", n=p.flown)
            pond = self.tiles([d.kind for d in p.pond if d.claimed_by is None])
            out.append(pt(lang, "look_seat", who=self.seat_name(p.seat, named=True),
                          n=p.concealed_count,
                          flags=flags, melds=self.melds(p.melds), pond=pond))
        if view.wild is not None and view.wild_indicator is not None:
            out.append(pt(lang, "wild_is", wild=self.tile(view.wild),
                          ind=self.tile(view.wild_indicator)))
        kongs = [k for k in view.kong_tiles if k is not None]
        if kongs:
            out.append(pt(lang, "kong_tiles", tiles=self.tiles(kongs)))
        out.append(pt(lang, "wall", n=view.remaining))
        if view.current is not None:
            if view.current == view.viewer:
                out.append(pt(lang, "your_turn"))
            else:
                out.append(pt(lang, "turn_of", who=self.seat_name(view.current)))
        elif view.phase in (Phase.CLAIM, Phase.ROB):
            out.append(pt(lang, "turn_claims"))
        out.append(self.totals_line(update.totals, "res_totals"))
        return out


# --- turning keys into lines ------------------------------------------------------------------
class LineEditor:
    """A terminal in raw mode (an SSH PTY) sends keys; this makes lines of them and echoes what
    is typed: printable characters, Backspace, Ctrl-U (erase the line), Enter; Ctrl-C or Ctrl-D
    (on an empty line) end. Escape sequences (arrow keys, function keys) are dropped whole. A
    line is bounded: the keys after :data:`MAX_LINE` characters are dropped (one bell)."""

    def __init__(self, echo: Callable[[str], None], on_line: Callable[[str], None],
                 on_end: Callable[[], None], max_line: int = MAX_LINE) -> None:
        self.echo = echo
        self.on_line = on_line
        self.on_end = on_end
        self.max_line = max_line
        self.buffer: list[str] = []
        self._esc = ""  # an escape sequence being skipped
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._rang = False

    @property
    def text(self) -> str:
        return "".join(self.buffer)

    def feed(self, data: bytes) -> None:
        for ch in self._decoder.decode(data):
            self._key(ch)

    def _key(self, ch: str) -> None:
        if self._esc:
            self._esc += ch
            if len(self._esc) == 2 and ch not in "[O":
                self._esc = ""  # ESC and one character (Alt-key)
            elif (len(self._esc) > 2 and "@" <= ch <= "~") or len(self._esc) > 16:
                self._esc = ""
            return
        if ch == "\x1b":
            self._esc = ch
        elif ch in "\r\n":
            line, self.buffer = self.text, []
            self._rang = False
            self.echo("\r\n")
            self.on_line(line)
        elif ch in "\x7f\x08":
            if self.buffer:
                gone = self.buffer.pop()
                w = max(1, cell_len(gone))
                self.echo("\b" * w + " " * w + "\b" * w)
        elif ch == "\x15":  # Ctrl-U
            w = cell_len(self.text)
            self.buffer = []
            if w:
                self.echo("\b" * w + " " * w + "\b" * w)
        elif ch in "\x03\x04":  # Ctrl-C; Ctrl-D
            if ch == "\x03" or not self.buffer:
                self.on_end()
        elif unicodedata.category(ch)[0] == "C":
            return
        elif len(self.buffer) >= self.max_line:
            if not self._rang:
                self._rang = True
                self.echo("\a")
        else:
            self.buffer.append(ch)
            self.echo(ch)


class TerminalOutput:
    """A :class:`PlainOutput` on a terminal: lines end with ``eol``; the prompt and the
    line being typed are written again after lines that arrive meanwhile. Where the
    last thing written was the bare idle prompt, a line starts over it (``\\r``) instead of
    under it, so a transcript holds no empty prompts."""

    def __init__(self, write: Callable[[str], None], eol: str = "\r\n",
                 typed: Callable[[], str] = lambda: "",
                 closed: Callable[[], None] = lambda: None, terminal: bool = True) -> None:
        self.write = write
        self.eol = eol
        self.terminal = terminal  # False: a pipe or a file, where no idle prompt is written
        self.typed = typed
        self._closed = closed
        self.shown = ""  # the prompt now shown at the end of the output

    def say(self, lines: Sequence[str], prompt: str) -> None:
        if not self.terminal and prompt == IDLE_PROMPT:
            prompt = ""
        if not lines and prompt == self.shown:
            return
        typed = self.typed()
        out = []
        if self.shown:
            if self.shown == IDLE_PROMPT and not typed:
                out.append("\r")
            else:
                out.append(self.eol)
        for line in lines:
            out.append(line + self.eol)
        out.append(prompt + typed)
        self.shown = prompt
        text = "".join(out)
        if text.startswith("\r") and lines and cell_len(lines[0]) < len(IDLE_PROMPT):
            text = "\r" + " " * len(IDLE_PROMPT) + text
        self.write(text)

    def echoed(self) -> None:
        """The player pressed Enter: the cursor is on a fresh line, no prompt shown."""
        self.shown = ""

    def close(self) -> None:
        self._closed()


# --- mahjong-ssh play --plain -----------------------------------------------------------------
async def run_local(table: TableClient, lang: str, rules: str | None, seed: int | None,
                    options: Mapping[str, Any] | None = None,
                    reader: asyncio.StreamReader | None = None,
                    write: Callable[[str], None] | None = None,
                    settings: Settings | None = None) -> int:
    """Play at ``table`` in plain lines: standard input (or ``reader``) one line at a time,
    standard output (or ``write``). Returns the exit status."""
    if write is None:
        def write(text: str) -> None:
            sys.stdout.write(text)
            sys.stdout.flush()
    done = asyncio.Event()
    out = TerminalOutput(write, eol="\n", closed=done.set, terminal=sys.stdout.isatty())
    plain = PlainTable(table, lang, out, rules=rules, options=options, settings=settings)
    if reader is None:
        reader = await _stdin_reader()
    plain.start()
    refused = table.new_game(rules or DEFAULT_RULES, dict(options or {}), seed)
    if refused is not None and options:  # saved options no longer valid: the defaults
        refused = table.new_game(rules or DEFAULT_RULES, {}, seed)
    if refused is not None:
        write(refused.text(lang) + "\n")
        return 2
    pending = bytearray()
    too_long = False
    while not done.is_set():
        read = asyncio.ensure_future(reader.read(4096))
        stop = asyncio.ensure_future(done.wait())
        finished, _ = await asyncio.wait({read, stop}, return_when=asyncio.FIRST_COMPLETED)
        if read not in finished:
            read.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await read
            break
        stop.cancel()
        data = read.result()
        if not data:  # end of input
            if pending and not too_long:
                _line(plain, out, bytes(pending))
            plain.close()
            break
        pending += data
        while b"\n" in pending:
            raw, _, rest = bytes(pending).partition(b"\n")
            pending = bytearray(rest)
            if too_long:
                too_long = False
                continue
            _line(plain, out, raw)
        if len(pending) > MAX_LINE * 4:  # a line too long: said once, the rest dropped
            pending.clear()
            if not too_long:
                too_long = True
                out.echoed()
                plain.handle("x" * (MAX_LINE + 1))
    plain.close()
    return 0


def _line(plain: PlainTable, out: TerminalOutput, raw: bytes) -> None:
    out.echoed()  # the terminal echoed the line and its newline
    plain.handle(raw.decode("utf-8", "replace").rstrip("\r"))


async def _stdin_reader() -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE * 8)
    protocol = asyncio.StreamReaderProtocol(reader)
    await loop.connect_read_pipe(lambda: protocol, sys.stdin)
    return reader
