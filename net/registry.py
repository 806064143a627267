"""The table registry: every table is one engine :class:`~engine.game.Game` in this process,
shared by the sessions seated at it.

A :class:`SharedTable` runs one task on the event loop: it lets computer players act for empty
seats (and for dropped players once their grace period is over), runs the turn timer and the
claim window for human seats, and publishes a :class:`~tui.client.TableUpdate` to every
connected seat after each action. A :class:`SeatClient` is one session's handle on one seat (or
on the spectators' bench): it implements :class:`tui.client.TableClient`, so the same
``MahjongApp`` that ``play`` runs drives it. Callbacks only ever call ``post_message`` on their
own session's app (pitfall 2); nothing here touches a widget.
"""

from __future__ import annotations

import asyncio
import logging
import random
import sqlite3
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from engine.actions import Action, IllegalActionError
from engine.bots import LEVELS, Player, make_player
from engine.game import Game
from engine.record import dumps, hand_lines
from engine.rulesets import DEFAULT_RULES, RULESETS, OptionError, StakeRules, find_ruleset
from engine.runner import COMPUTER, Pace, SeatState, TableRunner
from engine.situation import Spectator
from engine.view import build_view
from net.limits import Limits, RateLimit, RateLimits, WindowCount
from net.sanitize import clean_line
from net.store import (
    Account,
    ActionRow,
    CorruptRow,
    SavedHandStakes,
    SavedSeat,
    SavedStake,
    SavedTable,
    StorageError,
    Store,
    TableRow,
)
from tui.client import TableUpdate, UpdateCallback
from tui.clock import SYSTEM_CLOCK, Clock, Timer
from tui.refusal import Refusal, RefusedError
from tui.table_loop import TableLoop

THREADED_LEVELS = frozenset({"hard"})  # computer players that decide off the event loop

log = logging.getLogger("net.registry")

SEAT_NAMES = ("E", "S", "W", "N")


def basic_player(level: str) -> Player:
    """The computer player for ``level`` (easy/normal/hard): :func:`engine.bots.make_player`."""
    return make_player(level)




def parse_levels(text: str) -> tuple[str, str, str, str]:
    """``LEVEL`` or ``L,L,L,L`` (seats E,S,W,N) → four levels; ValueError with a message."""
    parts = [p.strip().lower() for p in text.split(",")]
    if len(parts) == 1:
        parts *= 4
    if len(parts) != 4 or any(p not in LEVELS for p in parts):
        raise ValueError(f"computer level: one of {', '.join(LEVELS)}, or four separated by "
                         f"commas (seats E,S,W,N), got {text!r} 电脑等级无效")
    return (parts[0], parts[1], parts[2], parts[3])


@dataclass(frozen=True)
class Stake:
    """压鸽子: a spectator (an account) backs a seated player."""

    account_id: int
    name: str
    backs: int

    def saved(self) -> SavedStake:
        return SavedStake(self.account_id, self.name, self.backs)

    @classmethod
    def from_saved(cls, saved: SavedStake) -> Stake:
        return cls(saved.account, saved.name, saved.backs)


@dataclass(frozen=True)
class HandStakes:
    """The stakes fixed for one hand before its break roll."""

    stakes: tuple[Stake, ...] = ()
    allow: tuple[int, ...] = (0, 1, 2, 3)

    def saved(self) -> SavedHandStakes:
        return SavedHandStakes(tuple(s.saved() for s in self.stakes), self.allow)

    @classmethod
    def from_saved(cls, saved: SavedHandStakes) -> HandStakes:
        return cls(tuple(Stake.from_saved(x) for x in saved.stakes), saved.allow)

    def spectators(self) -> tuple[Spectator, ...]:
        return tuple(Spectator(s.name, s.backs) for s in self.stakes)


def spectator_name(nickname: str) -> str:
    """The engine names a spectator by a string that is not a seat letter."""
    return f"{nickname}*" if nickname in SEAT_NAMES else nickname


class TableState(Enum):
    WAITING = "waiting"  # seats being taken; no game yet
    PLAYING = "playing"
    BETWEEN = "between hands"
    OVER = "game over"


@dataclass(frozen=True)
class SeatInfo:
    name: str  # "" when empty
    human: bool
    connected: bool
    idle: bool = False  # connected, but its turn timer ran out repeatedly (away)


@dataclass(frozen=True)
class TableInfo:
    """What the lobby and the waiting screen show about a table."""

    name: str
    rules: str
    options: tuple[tuple[str, Any], ...]
    seats: tuple[SeatInfo, SeatInfo, SeatInfo, SeatInfo]
    spectators: int
    state: TableState
    hand_no: int
    hands_per_game: int
    allow: tuple[bool, bool, bool, bool] = (True, True, True, True)  # 压鸽子 per seat
    stakes_possible: bool = False  # Yichun with the spectator_stakes option on
    stakes: tuple[tuple[str, int], ...] = ()  # chosen (name, seat): from the next hand
    hand_stakes: tuple[tuple[str, int], ...] = ()  # fixed for the hand in play
    bot_levels: tuple[str, str, str, str] = ("normal", "normal", "normal", "normal")

    @property
    def stakes_enabled(self) -> bool:
        """yichun.md §7.7: enough seated players (two) allow spectators."""
        rules = RULESETS[self.rules].stake_rules
        return self.stakes_possible and rules is not None and rules.enabled(sum(self.allow))


@dataclass(frozen=True)
class ChatLine:
    who: str
    text: str


InfoCallback = Callable[[TableInfo | ChatLine], None]


@dataclass
class Occupant:
    account_id: int
    name: str


@dataclass
class Seat:
    occupant: Occupant | None = None
    clients: list[SeatClient] = field(default_factory=list)
    dropped_at: float | None = None  # the last client left (on the table's clock)
    allow_spectators: bool = True  # 压鸽子: spectators may back this seat


CHAT_KEPT = 20  # chat lines a table keeps for those who come later
CHAT_TOO_FAST = Refusal("chat_fast")
CHAT_TABLE_BUSY = Refusal("chat_busy")


@dataclass
class TableConfig:
    """Server-side knobs (tests shorten them)."""

    bot_delay: float = 0.5  # a computer player's pause before a turn action
    grace_seconds: float = 20.0  # a dropped player's seat waits this long for a bot
    next_hand_seconds: float = 60.0  # the result screen waits this long for everyone
    bot_level: str = "normal"
    # a table nobody sits at or watches, before its game or after it, is closed this long
    # after the last person left (a game in progress keeps its seats for their players)
    empty_seconds: float = 600.0
    # a player who lets his turn's timer run out this many times in a row counts as away: his
    # timer is then ``idle_seconds`` until he presses a key (the others do not wait out his
    # full timer every turn); a claim window left to run out is a pass, not absence
    idle_after: int = 2
    idle_seconds: float = 1.0
    clock: Clock = SYSTEM_CLOCK  # the tables' time (tests move a ManualClock)

    def pace(self) -> Pace:
        return Pace(self.bot_delay, True, self.next_hand_seconds, self.idle_after,
                    self.idle_seconds)


class SharedTable:
    """One table: one Game, four seats, any number of spectators."""

    def __init__(
        self,
        name: str,
        rules: str,
        options: Mapping[str, Any],
        config: TableConfig,
        store: Store | None = None,
        player_factory: Callable[[str], Player] = basic_player,
        bot_levels: tuple[str, str, str, str] | None = None,
    ) -> None:
        self.name = name
        # called when the table has stood empty for ``empty_seconds`` (the registry drops it)
        self.on_empty: Callable[[SharedTable], None] | None = None
        self._empty_timer: Timer | None = None
        # the latest chat lines, for whoever opens the chat line (and joins) later
        self.chat_log: deque[ChatLine] = deque(maxlen=CHAT_KEPT)
        self.rules = rules
        self.options = dict(options)
        self.ruleset = find_ruleset(rules, self.options)  # validates the options
        self.config = config
        self.bot_levels: tuple[str, str, str, str] = bot_levels or (config.bot_level,) * 4
        self.stakes: dict[int, Stake] = {}  # by account id; fixed for the next hand
        self.hand_stakes: dict[int, HandStakes] = {}  # by hand number, this game
        self.store = store
        self.player_factory = player_factory
        self.seats = [Seat() for _ in range(4)]
        self.spectators: list[SeatClient] = []
        self.bots: dict[int, Player] = {}
        self.game: Game | None = None
        self.game_seed: int | None = None
        self.game_no = 0
        self.hands_started = 0
        self.clock = config.clock
        self.runner = TableRunner(config.pace())
        self.loop = TableLoop(self, self.runner, self.clock, name=f"table {name}")
        self._last: dict[int | None, TableUpdate] = {}
        self._closed = False
        self.on_info: list[InfoCallback] = []  # the lobby listens here
        self.actions_applied = 0
        self.creator: int | None = None  # the account that created the table (its limit)
        # the registry's per-account chat rate: False when the account's line is one too many
        self.chat_gate: Callable[[int], bool] | None = None
        self.chat_rate: RateLimit | None = None  # the table's own chat rate, all senders

    # --- seats ----------------------------------------------------------------------------
    def seat_of(self, account_id: int) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.occupant is not None and seat.occupant.account_id == account_id:
                return i
        return None

    def join(self, account: Account, spectate: bool = False) -> SeatClient:
        """Reconnect ``account`` to its seat, else sit it in a free seat, else on the bench."""
        index = self.seat_of(account.id)
        if index is None and not spectate:
            free = [i for i, s in enumerate(self.seats) if s.occupant is None]
            if free:
                index = free[0]
                self.seats[index].occupant = Occupant(account.id, account.nickname)
                self.runner.ready.add(index)
                self.seats[index].allow_spectators = True  # each player's own setting
                self.stakes.pop(account.id, None)  # a seated player does not stake
                self._save()
        client = SeatClient(self, index, account)
        if self._empty_timer is not None:
            self._empty_timer.cancel()
            self._empty_timer = None
        if index is None:
            self.spectators.append(client)
        else:
            seat = self.seats[index]
            seat.clients.append(client)
            seat.dropped_at = None
            if self.game is not None:
                self.bots.pop(index, None)
            if self.game is None and all(s.occupant is not None for s in self.seats):
                self.start()
        self._changed()
        return client

    def leave(self, client: SeatClient) -> None:
        """A session ends (dropped or quit)."""
        if client in self.spectators:
            self.spectators.remove(client)
        elif client.seat_index is not None:
            seat = self.seats[client.seat_index]
            if client in seat.clients:
                seat.clients.remove(client)
            if not seat.clients:
                if self.game is None:  # nothing to hold the seat for
                    seat.occupant = None
                    self._save()
                else:
                    seat.dropped_at = self.clock.now()
        self._changed()
        self.check_empty()

    @property
    def empty(self) -> bool:
        """Nobody sits or watches, and no game is in progress (one that is keeps its seats
        for its players, whoever is connected)."""
        if self.spectators or any(s.clients for s in self.seats):
            return False
        if self.game is not None and not self.game.is_over:
            return False
        return self.game is not None or all(s.occupant is None for s in self.seats)

    def check_empty(self) -> None:
        """Close the table ``empty_seconds`` from now if it is (still) empty then."""
        if self.on_empty is None or self._empty_timer is not None or not self.empty:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a test building tables by hand): nothing closes them
        self._empty_timer = self.clock.call_later(self.config.empty_seconds, self._expire)

    def _expire(self) -> None:
        self._empty_timer = None
        if self.empty and self.on_empty is not None and not self._closed:
            self.on_empty(self)

    def active(self, index: int | None) -> None:
        """Seat ``index``'s player did something: his timer's expiries start again from 0
        (an idle player is back, with his full timer)."""
        if index is None:
            return
        if self.runner.active(index):
            self._changed()

    def stand(self, client: SeatClient) -> None:
        """Give up the seat for good: a computer player takes it."""
        index = client.seat_index
        if index is None:
            return
        seat = self.seats[index]
        if client in seat.clients:
            seat.clients.remove(client)
        if not seat.clients:
            seat.occupant = None
            seat.dropped_at = None
        client.seat_index = None
        self.spectators.append(client)
        self._save()
        self._changed()

    @property
    def humans_connected(self) -> int:
        return sum(1 for s in self.seats if s.clients) + len(self.spectators)

    def is_bot(self, index: int, now: float | None = None) -> bool:
        return self.seat_state(index).is_bot(self.clock.now() if now is None else now)

    def seat_state(self, index: int) -> SeatState:
        """Who plays seat ``index``: a computer for an empty seat, its player while he is
        connected, and a computer once a dropped player's grace period is over."""
        seat = self.seats[index]
        if seat.occupant is None:
            return COMPUTER
        if seat.clients or seat.dropped_at is None:
            return SeatState(None, bool(seat.clients))
        return SeatState(seat.dropped_at + self.config.grace_seconds, False)

    def idle(self, index: int) -> bool:
        """Whether the player of seat ``index`` let his turn's timer run out repeatedly."""
        return self.runner.idle(index)

    def _bot(self, index: int) -> Player:
        bot = self.bots.get(index)
        if bot is None:
            bot = self.bots[index] = self.player_factory(self.bot_levels[index])
        return bot

    # --- 压鸽子 (Yichun spectator stakes, yichun.md §7.7) ---------------------------------------
    @property
    def stakes_possible(self) -> bool:
        return self.ruleset.spectator_stakes_allowed()

    @property
    def stake_rules(self) -> StakeRules | None:
        """The ruleset's limits on spectator stakes, where this table takes stakes."""
        return self.ruleset.stake_rules if self.stakes_possible else None

    def allowed_seats(self) -> tuple[int, ...]:
        return tuple(i for i, s in enumerate(self.seats) if s.allow_spectators)

    def stakes_enabled(self) -> bool:
        rules = self.stake_rules
        return rules is not None and rules.enabled(len(self.allowed_seats()))

    def set_allow(self, index: int, allow: bool) -> None:
        """A seated player's "allow spectators" setting (applies from the next hand)."""
        self.seats[index].allow_spectators = allow
        self._save()
        self._changed()

    def stake(self, account: Account, backs: int | None) -> Refusal | None:
        """A spectator backs seat ``backs`` from the next hand (``None``: no stake)."""
        rules = self.stake_rules
        if rules is None:
            return Refusal("no_stakes")
        if self.seat_of(account.id) is not None:
            return Refusal("seated_stake")
        if backs is None:
            if self.stakes.pop(account.id, None) is not None:
                self._save()
                self._changed()
            return None
        if not 0 <= backs < 4:
            return Refusal("no_seat")
        if not self.seats[backs].allow_spectators:
            return Refusal.of("stake_closed", seat=SEAT_NAMES[backs])
        limit = rules.max_stakers
        if account.id not in self.stakes and len(self.stakes) >= limit:
            return Refusal.of("stake_full", n=limit)
        self.stakes[account.id] = Stake(account.id, spectator_name(account.nickname), backs)
        self._save()
        self._changed()
        return None

    def _stakes_for_hand(self) -> HandStakes:
        """What the next hand's break roll fixes: the stakes on seats that allow them, when
        at least two seats allow them; else none."""
        allow = self.allowed_seats()
        rules = self.stake_rules
        if rules is None or not rules.enabled(len(allow)):
            return HandStakes((), allow)
        chosen = tuple(s for s in self.stakes.values() if s.backs in allow)[:rules.max_stakers]
        return HandStakes(chosen, allow)

    def _fix_stakes(self, game: Game, hand_no: int, stakes: HandStakes) -> None:
        self.hand_stakes[hand_no] = stakes
        game.spectators = stakes.spectators()
        game.allow_spectators = stakes.allow

    # --- the game -------------------------------------------------------------------------
    @property
    def state(self) -> TableState:
        game = self.game
        if game is None or game.hand is None:
            return TableState.WAITING
        if game.is_over:
            return TableState.OVER
        if game.hand.is_over:
            return TableState.BETWEEN
        return TableState.PLAYING

    def start(self, seed: int | None = None) -> Refusal | None:
        """Start a game now; computer players take the empty seats."""
        if self.game is not None and not self.game.is_over:
            return None
        if seed is None:
            seed = random.randrange(1 << 31)
        try:
            game = Game(self.ruleset, seed)
        except (OptionError, ValueError) as exc:
            return Refusal.of("bad_game", problem=str(exc))
        self.game_seed = seed
        self.game_no += 1
        self.hands_started = 0
        self.hand_stakes = {}
        self.game = game
        self._new_hand()
        if self.store is not None:
            self.store.drop_actions(self.name, self.game_no)
        self._save()
        self.loop.start()
        self._changed()
        return None

    def _new_hand(self) -> None:
        game = self.game
        assert game is not None
        if game.hand is not None and game.hand.is_over:
            game.finish_hand()
        self._fix_stakes(game, len(game.history) + 1, self._stakes_for_hand())
        game.new_hand()
        self.hands_started += 1
        self.runner.new_hand()
        self._save()
        self._publish()

    def apply(self, index: int, action: Action) -> Refusal | None:
        game = self.game
        if game is None or game.hand is None:
            return Refusal("no_game")
        hand = game.hand
        try:
            game.apply(index, action)
        except IllegalActionError as exc:
            return Refusal.of("illegal", reason=exc.reason)
        self.actions_applied += 1
        self.runner.acted(index)
        if self.store is not None:
            self.store.add_action(self.name, ActionRow(
                self.game_no, hand.hand_no, len(hand.actions) - 1, index, action.to_json()))
        now = self.clock.now()
        if hand.is_over:
            self._hand_over(now)
        else:  # the next player's timer is in the update they get now, not in a second one
            self.runner.step(game, now, self.seat_states(now), self.watched())
        self._publish()
        self.loop.kick()
        return None

    def _hand_over(self, now: float) -> None:
        game = self.game
        assert game is not None and game.hand is not None
        self.runner.hand_over(game.hand, now)
        if self.store is not None:
            self.store.finish_hand(self.name, self.game_no, game.hand.hand_no,
                                   dumps(hand_lines(game.hand)))
            if game.is_over:
                rows = []
                for i, seat in enumerate(self.seats):
                    if seat.occupant is None:
                        continue
                    wins = sum(1 for h in game.history if i in h.winners)
                    rows.append((seat.occupant.account_id, i, game.scores[i], wins,
                                 len(game.history)))
                self.store.finish_game(self.name, self.game_no, self.rules, rows)
                self.store.finish_stakes(self.name, self.game_no, self.rules,
                                         self.stake_results())
        self._changed()

    def stake_results(self) -> list[tuple[int, int, int]]:
        """(account_id, score, hands staked) of every spectator who staked this game."""
        game = self.game
        if game is None:
            return []
        accounts: dict[str, int] = {}
        hands: dict[str, int] = {}
        for hand_no, hs in self.hand_stakes.items():
            if hand_no > len(game.history):
                continue
            for st in hs.stakes:
                accounts[st.name] = st.account_id
                hands[st.name] = hands.get(st.name, 0) + 1
        return [(accounts[n], game.spectator_scores.get(n, 0), hands[n]) for n in accounts]

    def ready(self, index: int | None) -> None:
        """A seat has seen the hand's result."""
        if index is not None:
            self.runner.ready.add(index)
        self.loop.kick()

    # --- TableHost: what the table loop (tui.table_loop) asks ----------------------------
    def seat_states(self, now: float) -> tuple[SeatState, ...]:
        return tuple(self.seat_state(i) for i in range(4))

    def watched(self) -> bool:
        return self.humans_connected > 0  # nobody watching: the table sleeps

    def player(self, seat: int) -> tuple[Player, bool]:
        return self._bot(seat), self.bot_levels[seat] in THREADED_LEVELS

    def play(self, seat: int, action: Action) -> Refusal | None:
        return self.apply(seat, action)

    def deal_next(self) -> None:
        self._new_hand()
        self._changed()

    def expired(self, seat: int) -> None:
        if self.runner.idle(seat):
            self._changed()  # the lobby, the names and the player's own notice

    def publish(self) -> None:
        self._publish()

    # --- publishing -----------------------------------------------------------------------
    def names(self) -> tuple[str, str, str, str]:
        out = []
        now = self.clock.now()
        for i, seat in enumerate(self.seats):
            if seat.occupant is None:
                out.append("bot 电脑")
            elif self.game is not None and self.idle(i) and seat.clients:
                out.append(f"{seat.occupant.name} (idle)")
            elif self.game is not None and self.is_bot(i, now):
                out.append(f"{seat.occupant.name} (bot)")
            elif not seat.clients:
                out.append(f"{seat.occupant.name} (away)")
            else:
                out.append(seat.occupant.name)
        return (out[0], out[1], out[2], out[3])

    def update_for(self, index: int | None) -> TableUpdate | None:
        game = self.game
        if game is None or game.hand is None:
            return None
        view = build_view(game.hand, index)
        deadline, total = self.runner.deadline(index, view)
        return TableUpdate(
            view=view,
            deadline=deadline,
            timer_seconds=total,
            totals=(game.scores[0], game.scores[1], game.scores[2], game.scores[3]),
            history=tuple(game.history),
            hands_per_game=game.hands_per_game,
            game_over=game.is_over,
            names=self.names(),
        )

    def _publish(self) -> None:
        if self.game is None:
            return
        for index, seat in enumerate(self.seats):
            if seat.clients:
                self._send(index, list(seat.clients))
        if self.spectators:
            self._send(None, list(self.spectators))

    def _send(self, index: int | None, clients: list[SeatClient]) -> None:
        update = self.update_for(index)
        if update is None or update == self._last.get(index):
            return
        self._last[index] = update
        for client in clients:
            client.deliver(update)

    def info(self) -> TableInfo:
        now = self.clock.now()
        seats = tuple(
            SeatInfo(s.occupant.name if s.occupant else "", s.occupant is not None,
                     bool(s.clients) or (s.occupant is not None and not self.is_bot(i, now)),
                     self.idle(i) and bool(s.clients))
            for i, s in enumerate(self.seats)
        )
        game = self.game
        return TableInfo(
            name=self.name,
            rules=self.rules,
            options=tuple(sorted(self.options.items())),
            seats=(seats[0], seats[1], seats[2], seats[3]),
            spectators=len(self.spectators),
            state=self.state,
            hand_no=game.hand.hand_no if game is not None and game.hand is not None else 0,
            hands_per_game=int(self.ruleset.options["hands_per_game"]),
            allow=(self.seats[0].allow_spectators, self.seats[1].allow_spectators,
                   self.seats[2].allow_spectators, self.seats[3].allow_spectators),
            stakes_possible=self.stakes_possible,
            stakes=tuple((s.name, s.backs) for s in self.stakes.values()),
            hand_stakes=tuple((s.name, s.backs) for s in self._current_stakes().stakes),
            bot_levels=self.bot_levels,
        )

    def _current_stakes(self) -> HandStakes:
        game = self.game
        if game is None or game.hand is None:
            return HandStakes()
        return self.hand_stakes.get(game.hand.hand_no, HandStakes())

    def _changed(self) -> None:
        info = self.info()
        for client in self.clients():
            client.deliver_info(info)
        for cb in list(self.on_info):
            cb(info)
        if self.game is not None:
            self._last.clear()  # names may have changed
            self._publish()
        self.loop.kick()

    def clients(self) -> list[SeatClient]:
        return [c for s in self.seats for c in s.clients] + list(self.spectators)

    def chat_from(self, account: Account, text: str) -> Refusal | None:
        """``account`` says ``text``: None when it went to everyone at the table, else why
        not (a line over the account's chat rate goes to nobody)."""
        line = clean_line(text)
        if not line:
            return None
        if self.chat_gate is not None and not self.chat_gate(account.id):
            return CHAT_TOO_FAST
        if self.chat_rate is not None and not self.chat_rate.allow():
            return CHAT_TABLE_BUSY
        self.chat(account.nickname, line)
        return None

    def chat(self, who: str, text: str) -> None:
        line = clean_line(text)
        if not line:
            return
        msg = ChatLine(who, line)
        self.chat_log.append(msg)
        for client in self.clients():
            client.deliver_info(msg)

    # --- persistence ----------------------------------------------------------------------
    def row(self) -> TableRow:
        return TableRow(self.name, self.rules, self.options, SavedTable(
            seats=tuple(SavedSeat(s.occupant.account_id, s.occupant.name) if s.occupant
                        else None for s in self.seats),
            game_seed=self.game_seed,
            game_no=self.game_no,
            hands_started=self.hands_started,
            allow=tuple(s.allow_spectators for s in self.seats),
            stakes=tuple(s.saved() for s in self.stakes.values()),
            hand_stakes=tuple((k, v.saved()) for k, v in self.hand_stakes.items()),
            bot_levels=self.bot_levels,
            creator=self.creator,
        ))

    def _save(self) -> None:
        if self.store is not None:
            self.store.save_table(self.row())

    @classmethod
    def restore(cls, row: TableRow, config: TableConfig, store: Store,
                player_factory: Callable[[str], Player] = basic_player) -> SharedTable:
        """Rebuild a table from its row and its recorded actions: the game is replayed from
        its seed, so it resumes at its last applied action with all scores. Anything that
        does not replay exactly (an action missing, out of order, illegal, a hand left
        unfinished before the last) raises: the caller quarantines the table. Nothing is
        written."""
        state = row.state
        levels = state.bot_levels
        table = cls(row.name, row.rules, row.options, config, store, player_factory,
                    parse_levels(",".join(levels)) if levels else None)
        for seat, allow in zip(table.seats, state.allow, strict=True):
            seat.allow_spectators = allow
        for saved in state.stakes:
            st = Stake.from_saved(saved)
            table.stakes[st.account_id] = st
        table.hand_stakes = {k: HandStakes.from_saved(v) for k, v in state.hand_stakes}
        now = table.clock.now()
        for i, s in enumerate(state.seats):
            if s is not None:
                table.seats[i].occupant = Occupant(s.account, s.name)
                table.seats[i].dropped_at = now  # the grace period starts at the restart
        table.creator = state.creator
        table.game_no = state.game_no
        seed = state.game_seed
        started = state.hands_started
        if seed is not None and started > 0:
            game = Game(table.ruleset, int(seed))
            rows = store.iter_actions(row.name, table.game_no)  # one at a time: memory flat
            pending: ActionRow | None = next(rows, None)
            for hand_no in range(1, started + 1):
                hs = table.hand_stakes.get(hand_no, HandStakes((), table.allowed_seats()))
                game.spectators = hs.spectators()
                game.allow_spectators = hs.allow
                hand = game.new_hand()
                while pending is not None and pending.hand_no == hand_no:
                    if pending.i != len(hand.actions):
                        raise CorruptRow(f"hand {hand_no}: action {pending.i} is stored "
                                         f"after {len(hand.actions)} actions")
                    game.apply(pending.seat, Action.from_json(pending.action))
                    pending = next(rows, None)
                if hand_no < started and not hand.is_over:
                    raise CorruptRow(f"hand {hand_no} is not over in the record, though "
                                     f"hand {started} was started")
            if pending is not None:
                raise CorruptRow(f"an action is stored for hand {pending.hand_no}, not one "
                                 f"of the {started} hands started")
            table.game = game
            table.game_seed = int(seed)
            table.hands_started = started
            if game.hand is not None and game.hand.is_over:
                table.runner.hand_over(game.hand, now)
        return table

    def close(self) -> None:
        self._closed = True
        self.loop.close()
        if self._empty_timer is not None:
            self._empty_timer.cancel()
            self._empty_timer = None


class SeatClient:
    """One session's seat at a shared table: a :class:`tui.client.TableClient`."""

    def __init__(self, table: SharedTable, seat_index: int | None, account: Account) -> None:
        self.table = table
        self.seat_index = seat_index
        self.account = account
        self._callbacks: list[UpdateCallback] = []
        self._info_callbacks: list[InfoCallback] = []
        self.closed = False

    @property
    def seat(self) -> int:
        """``TableClient.seat``: the seat's view (a spectator sees from E)."""
        return self.seat_index if self.seat_index is not None else 0

    @seat.setter
    def seat(self, value: int) -> None:  # TableClient declares a plain attribute
        raise AttributeError("a shared table's seat changes only by joining or standing")

    @property
    def spectating(self) -> bool:
        return self.seat_index is None

    @property
    def clock(self) -> Clock:
        return self.table.clock

    # --- TableClient ----------------------------------------------------------------------
    def subscribe(self, callback: UpdateCallback) -> None:
        self._callbacks.append(callback)
        update = self.table.update_for(self.seat_index)
        if update is not None:
            callback(update)

    def send(self, action: Action) -> Refusal | None:
        if self.seat_index is None:
            return Refusal("spectator_play")
        self.poke()
        return self.table.apply(self.seat_index, action)

    def poke(self) -> None:
        """The player pressed a key: he is back, if the computer was playing for him."""
        self.table.active(self.seat_index)

    def next_hand(self) -> None:
        self.table.ready(self.seat_index)

    def new_game(self, rules: str, options: Mapping[str, Any],
                 seed: int | None) -> Refusal | None:
        """At a shared table a new game keeps the table's rules (after a game is over)."""
        return self.table.start()

    def set_paused(self, paused: bool) -> bool:
        return False  # the table does not wait for one small terminal: its timer runs on

    controls_pace = False  # a shared table's pace is the server's

    def set_bot_delay(self, seconds: float) -> None:
        pass

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self._callbacks.clear()
        self._info_callbacks.clear()
        self.table.leave(self)

    # --- beyond TableClient ---------------------------------------------------------------
    def subscribe_info(self, callback: InfoCallback) -> None:
        self._info_callbacks.append(callback)
        callback(self.table.info())

    def deliver(self, update: TableUpdate) -> None:
        for cb in list(self._callbacks):
            cb(update)

    def deliver_info(self, info: TableInfo | ChatLine) -> None:
        for cb in list(self._info_callbacks):
            cb(info)

    def start(self) -> Refusal | None:
        if self.seat_index is None:
            return Refusal("seated_start")
        return self.table.start()

    def chat(self, text: str) -> Refusal | None:
        """Say ``text`` to the table: None when sent, else why not (too many lines)."""
        return self.table.chat_from(self.account, text)

    def stand(self) -> None:
        self.table.stand(self)

    def stake(self, backs: int | None) -> Refusal | None:
        """压鸽子: back seat ``backs`` from the next hand (``None``: withdraw)."""
        if self.seat_index is not None:
            return Refusal("seated_stake")
        return self.table.stake(self.account, backs)

    def set_allow(self, allow: bool) -> Refusal | None:
        """A seated player allows spectators to back them (from the next hand)."""
        if self.seat_index is None:
            return Refusal("seated_allow")
        self.table.set_allow(self.seat_index, allow)
        return None


class TableExists(RefusedError):
    """Joining an existing table with settings of a new one."""


class TableQuarantined(RefusedError):
    """The name of a table whose saved game could not be read: it is not made afresh."""


class TableLimit(RefusedError):
    """A new table over a limit (the creator's, the server's, the address's)."""


QUARANTINE_MARK = "⚠ quarantined: its saved game could not be read 存档无法读取"


@dataclass(frozen=True)
class QuarantinedTable:
    """A stored table kept out of play, untouched in the database, for the operator."""

    name: str
    rules: str
    reason: str

    def refusal(self) -> Refusal:
        return Refusal.of("quarantined", name=self.name, reason=self.reason)


class LoadCounts(int):
    """What :meth:`Registry.load` did: the tables restored (this int, as it always was) and
    the tables ``quarantined``."""

    quarantined: int

    def __new__(cls, restored: int, quarantined: int = 0) -> LoadCounts:
        counts = super().__new__(cls, restored)
        counts.quarantined = quarantined
        return counts

    @property
    def restored(self) -> int:
        return int(self)


def _reason(exc: BaseException) -> str:
    """Why a stored table did not restore, in one short line."""
    if isinstance(exc, CorruptRow):
        text = str(exc)
    elif isinstance(exc, IllegalActionError):
        text = f"a stored action does not replay: {exc}"
    elif isinstance(exc, sqlite3.Error):
        text = f"the database: {exc}"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return clean_line(text, 160)


CHAT_BUCKETS = 10_000  # accounts whose chat rate is remembered at once


class Registry:
    """All tables of the process, by name, with what limits their creation and chat
    (:class:`~net.limits.Limits`), and the stored tables that could not be restored."""

    def __init__(self, config: TableConfig | None = None, store: Store | None = None,
                 player_factory: Callable[[str], Player] = basic_player, *,
                 limits: Limits | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.config = config or TableConfig()
        self.store = store
        self.player_factory = player_factory
        self.limits = limits or Limits()
        self.clock = clock or self.config.clock.now  # the rate limits' time
        self.tables: dict[str, SharedTable] = {}
        self.quarantined: dict[str, QuarantinedTable] = {}
        self._closed: set[str] = set()  # names closed in this process (their row is gone)
        self._created_from = WindowCount(3600.0, self.clock)  # tables created, by address
        self._chat = RateLimits(self.limits.chat_per_minute, 60.0, self.limits.chat_burst,
                                self.clock, keys=CHAT_BUCKETS)  # by account id

    @property
    def storage_problem(self) -> str | None:
        """What the players should know while the database cannot be written."""
        return self.store.problem if self.store is not None else None

    def load(self) -> LoadCounts:
        """Restore the stored tables. One that cannot be read or replayed is quarantined:
        kept in the database untouched, out of play, listed, its name refused; one log line
        each. A database whose tables cannot be read at all raises StorageError."""
        if self.store is None:
            return LoadCounts(0, 0)
        try:
            rows = self.store.load_tables()
        except sqlite3.Error as exc:
            raise StorageError(f"{self.store.path}: its tables cannot be read ({exc}): restore "
                               f"it from a backup or move it away to start afresh") from None
        for row in rows:
            if row.name in self.tables or row.name in self.quarantined:
                continue
            if row.fault is not None:
                self._quarantine(row, row.fault)
                continue
            try:
                table = SharedTable.restore(row, self.config, self.store, self.player_factory)
            except Exception as exc:  # whatever a damaged row makes the replay raise
                log.debug("table %s: restore failed", row.name, exc_info=True)
                self._quarantine(row, _reason(exc))
                continue
            self._adopt(table)
        return LoadCounts(len(self.tables), len(self.quarantined))

    def _quarantine(self, row: TableRow, reason: str) -> None:
        q = QuarantinedTable(row.name, clean_line(row.rules, 20) or "?", reason)
        self.quarantined[row.name] = q
        log.error("table %s quarantined: its saved game could not be read (%s); it stays in "
                  "%s untouched and out of play, and its name is refused",
                  clean_line(row.name, 40), reason,
                  self.store.path if self.store is not None else "the database")

    def _adopt(self, table: SharedTable) -> None:
        table.on_empty = self._drop
        table.chat_gate = self.chat_allowed
        table.chat_rate = RateLimit(self.limits.chat_per_table_minute, 60.0,
                                    self.limits.chat_table_burst, self.clock)
        self.tables[table.name] = table

    def _drop(self, table: SharedTable) -> None:
        """An empty table closes: out of the lobby and the database (its games' results and
        records stay)."""
        if self.tables.get(table.name) is not table:
            return
        del self.tables[table.name]
        table.close()
        if len(self._closed) < 100_000:
            self._closed.add(table.name)
        if self.store is not None:
            self.store.delete_table(table.name)
        log.info("table %s closed: nobody there for %.0f s", table.name,
                 self.config.empty_seconds)

    # --- limits ---------------------------------------------------------------------------
    def chat_allowed(self, account_id: int) -> bool:
        """One more chat line from ``account_id`` is within ``chat_per_minute`` (a burst of
        ``chat_burst``), over all its tables."""
        return self._chat.allow(account_id)

    def check_name(self, name: str) -> None:
        """TableQuarantined when ``name`` belongs to a stored table that is not in play."""
        q = self.quarantined.get(name)
        if q is not None:
            raise TableQuarantined(q.refusal())
        if (name not in self.tables and name not in self._closed and self.store is not None
                and self.store.has_table(name)):
            raise TableQuarantined(Refusal.of("stored", name=name))

    def check_create(self, name: str, creator: Account | None = None,
                     address: str | None = None) -> None:
        """Whether a new table ``name`` may be created now: TableQuarantined for a stored
        table's name, TableLimit past ``tables_total``, the creator's ``tables_per_account``
        open tables, or the address's ``tables_per_address_hour``."""
        self.check_name(name)
        limits = self.limits
        if len(self.tables) >= limits.tables_total:
            raise TableLimit(Refusal.of("server_full", n=len(self.tables)))
        if creator is not None:
            mine = sum(1 for t in self.tables.values() if t.creator == creator.id)
            if mine >= limits.tables_per_account:
                raise TableLimit(Refusal.of("own_tables", n=mine,
                                            most=limits.tables_per_account))
        if address is not None:
            made = self._created_from.count(address)
            if made >= limits.tables_per_address_hour:
                raise TableLimit(Refusal.of("address_tables", n=made,
                                            most=limits.tables_per_address_hour))

    def find(self, name: str) -> SharedTable | None:
        """The table ``name`` to watch, or None; TableQuarantined for a quarantined one."""
        table = self.tables.get(name)
        if table is None:
            self.check_name(name)
        return table

    def get_or_create(self, name: str, rules: str | None = None,
                      options: Mapping[str, Any] | None = None,
                      bots: tuple[str, str, str, str] | None = None,
                      creator: Account | None = None,
                      address: str | None = None) -> SharedTable:
        """The table ``name``; created with ``rules``, ``options`` and computer ``bots``
        levels when new, by ``creator`` from ``address`` (within :meth:`check_create`'s
        limits: TableLimit, TableQuarantined; joining an existing table is never limited).
        For an existing table, settings that differ from its own raise :class:`TableExists`
        (options are chosen when a table is created). Bad options raise
        :class:`~engine.rulesets.OptionError`, an unknown ruleset ValueError."""
        table = self.tables.get(name)
        if table is not None:
            problems = []
            if rules is not None and rules != table.rules:
                problems.append(f"rules {table.rules}")
            if options and any(table.ruleset.options.get(k) != v for k, v in options.items()):
                problems.append("other options")
            if bots is not None and bots != table.bot_levels:
                problems.append("other computer levels")
            if problems:
                raise TableExists(Refusal.of("table_exists", name=name,
                                             what=", ".join(problems)))
            return table
        self.check_create(name, creator, address)
        rules = rules or DEFAULT_RULES
        if rules not in RULESETS:
            raise ValueError(f"unknown ruleset {rules!r} (one of {', '.join(RULESETS)})")
        table = SharedTable(name, rules, options or {}, self.config, self.store,
                            self.player_factory, bots)
        table.creator = creator.id if creator is not None else None
        self._adopt(table)
        self._closed.discard(name)
        if address is not None:
            self._created_from.add(address)
        table._save()
        return table

    def resume(self) -> None:
        """After a restart: let every restored game's loop run (it sleeps until someone
        connects)."""
        for table in self.tables.values():
            if table.game is not None:
                table.loop.start()
            table.check_empty()  # restored with nobody there: closes unless someone comes

    def close(self) -> None:
        for table in self.tables.values():
            table.close()
