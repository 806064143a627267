"""A table shared by the sessions seated at it: one engine :class:`~engine.game.Game`, four
seats, any number of spectators.

A :class:`SharedTable` is a :class:`host.table_loop.TableHost`: the table loop lets computers
act for empty seats (and dropped players after their grace), runs the timers, and the table
publishes a :class:`~host.client.TableUpdate` to every connected seat after each action (each
session holds a :class:`~net.runtime.seat_client.SeatClient`; callbacks only post messages).
Its owner's hooks, host and privacy are given to its constructor; its other jobs are beside
it: who may sit (privacy), the chat (table_chat), the disk-full pause (save_pause), an ended
game's store (results), its knobs, hooks and computers (config).
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from engine.actions import Action, IllegalActionError
from engine.bots import Player
from engine.game import Game
from engine.rulesets import OptionError, find_ruleset
from engine.runner import COMPUTER, SeatState, TableRunner
from host.client import TableUpdate
from host.clock import Timer
from host.refusal import Refusal, illegal
from host.table_info import ChatLine, InfoCallback, SeatInfo, TableInfo, TableState
from host.table_loop import TableLoop, table_update
from net import metrics
from net.runtime.config import NO_HOOKS, Computers, TableConfig, TableHooks, basic_player
from net.runtime.privacy import Admission, Privacy
from net.runtime.results import GameEnd
from net.runtime.save_pause import SavePause
from net.runtime.seat_client import Occupant, Seat, SeatClient
from net.runtime.stakes import StakeBook
from net.runtime.table_chat import TableChat
from net.store.base import Store
from net.store.model import Account, ActionRow, SavedSeat, SavedTable, TableRow

CHAT_KEPT = 20  # chat lines a table keeps for those who come later
UNSAVED = Refusal("unsaved")  # the table is paused: its last move is not saved yet


class SharedTable:
    """One table: one Game, four seats, any number of spectators. ``creator``: the account
    that created it (it counts against its limit), the host of a private table (``privacy``:
    :mod:`net.runtime.privacy`)."""

    def __init__(self, name: str, rules: str, options: Mapping[str, Any], config: TableConfig,
                 store: Store | None = None,
                 player_factory: Callable[[str], Player] = basic_player,
                 bot_levels: tuple[str, str, str, str] | None = None, *,
                 creator: int | None = None, host_name: str = "",
                 privacy: Privacy | None = None, hooks: TableHooks[SharedTable] = NO_HOOKS,
                 rotate_dealer: bool = False) -> None:
        self.name = name
        # a duplicate tournament's table (net/runtime/tournaments.py): its games pass the
        # deal on after every hand, so that hand k is the round's same deal everywhere
        self.rotate_dealer = rotate_dealer
        self.tournament = ""  # whose round's table this is: its one game counts, no new one
        self.hooks = hooks
        self._empty_timer: Timer | None = None
        # the latest chat lines, for whoever opens the chat line (and joins) later
        self.chat_log: deque[ChatLine] = deque(maxlen=CHAT_KEPT)
        self.talk = TableChat(self)
        self.rules = rules
        self.options = dict(options)
        self.ruleset = find_ruleset(rules, self.options)  # validates the options
        self.config = config
        self.bot_levels: tuple[str, str, str, str] = bot_levels or (config.bot_level,) * 4
        self.stakes = StakeBook(self.ruleset.stake_rules
                                if self.ruleset.spectator_stakes_allowed() else None)
        self.store = store
        self.seats = [Seat() for _ in range(4)]
        self.spectators: list[SeatClient] = []
        self.computers = Computers(config, self.bot_levels, player_factory)
        self.game: Game | None = None
        self.game_seed: int | None = None
        self.game_no = 0
        self.game_id = ""  # the finished game's ID for replay (net.game_id); "" until then
        self.hands_started = 0
        self.clock = config.clock
        self.runner = TableRunner(config.pace())
        self.loop = TableLoop(self, self.runner, self.clock, name=f"table {name}")
        self._last: dict[int | None, TableUpdate] = {}
        # the finished game's players who left its game-over screen, by seat: still named on
        # that screen (and given their seat back if they come back before the next game)
        self._gone: dict[int, Occupant] = {}
        self.closed = False  # by its host (close_by): nothing more is played, said or saved
        self._publishing = False  # a publication waits for the store's writes
        self.pause = SavePause(name, store, self.clock, config.save_retry_seconds,
                               self._paused, self._resumed)
        self.on_info: list[InfoCallback] = []  # the lobby listens here
        self.actions_applied = 0
        self.admission = Admission(name, store, creator, host_name, privacy, self.save_changed)

    # --- its owner's hooks, its host and privacy ------------------------------------------
    @property
    def unattended_seconds(self) -> float:
        return self.hooks.unattended_seconds

    def may_act(self) -> bool:
        """Whether the table may apply moves and play (its lease, in a cluster)."""
        return self.hooks.may_act is None or self.hooks.may_act()

    @property
    def creator(self) -> int | None:
        return self.admission.host_id

    @property
    def host_name(self) -> str:
        return self.admission.host_name

    @property
    def private(self) -> bool:
        return self.admission.private

    @property
    def watchers(self) -> bool:
        return self.admission.watchers

    @property
    def invited(self) -> list[str]:
        return self.admission.invited

    # --- seats ----------------------------------------------------------------------------
    def seat_of(self, account_id: int) -> int | None:
        for i, seat in enumerate(self.seats):
            if seat.occupant is not None and seat.occupant.account_id == account_id:
                return i
        return None

    def admits(self, account: Account) -> bool:
        """Whether ``account`` may sit here (:meth:`Admission.admits`)."""
        return self.admission.admits(account, self.seat_of(account.id) is not None)

    def join(self, account: Account, spectate: bool = False, bot: bool = False) -> SeatClient:
        """Reconnect ``account`` to its seat, else sit it in a free seat, else on the bench.
        At a private table a stranger is refused (:meth:`Admission.check`). ``bot``: a program
        plays the seat (``bot join``), marked so in the lobby, the names and the results;
        the seat's latest session says whether it is one."""
        self.admission.check(account, self.seat_of(account.id) is not None, spectate)
        index = self.seat_of(account.id)
        if index is None and not spectate:
            free = [i for i, s in enumerate(self.seats) if s.occupant is None]
            own = [i for i in free if (g := self._gone.get(i)) and g.account_id == account.id]
            if free:
                index = (own or free)[0]
                self._gone.pop(index, None)
                self.seats[index].occupant = Occupant(account.id, account.nickname, bot)
                self.runner.ready.add(index)
                self.seats[index].allow_spectators = True  # each player's own setting
                self.stakes.placed.pop(account.id, None)  # a seated player does not stake
                self.admission.bind_key(account)
                self._save()
        elif index is not None and not spectate:
            occupant = self.seats[index].occupant
            if occupant is not None:
                occupant.bot = bot
                occupant.program = ""  # told again by the new session's handshake, if any
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
            seat.grace = None
            if self.game is not None:
                self.computers.forget(index)
            if self.game is None and all(s.occupant is not None for s in self.seats):
                self.start()
        self._changed()
        return client

    def leave(self, client: SeatClient) -> None:
        """A session ends (dropped or quit). Within a game the seat is held for the player's
        grace period; before a game, or once it is over, nothing holds it: the seat is free
        (:meth:`_free`), so that nobody is seated, and rated, in a new game he did not stay
        for, whether he pressed q or his connection dropped."""
        if client in self.spectators:
            self.spectators.remove(client)
        elif client.seat_index is not None:
            index = client.seat_index
            seat = self.seats[index]
            if client in seat.clients:
                seat.clients.remove(client)
            if not seat.clients:
                if self.game is None or self.game.is_over:
                    self._free(index)
                    self._save()
                else:
                    seat.dropped_at = self.clock.now()
        self._changed()
        self.check_empty()

    def _free(self, index: int) -> None:
        """Seat ``index``'s player is out of the table: after a game, still named on its
        game-over screen; his ask for a new game, if any, goes with him."""
        seat = self.seats[index]
        if seat.occupant is not None and self.game is not None and self.game.is_over:
            self._gone[index] = seat.occupant
        seat.occupant = None
        seat.dropped_at = None
        seat.grace = None
        self.runner.game_ready.discard(index)

    @property
    def empty(self) -> bool:
        """No session is connected: no seated player's (a ``bot join`` program's counts), no
        spectator's. A game in progress does not keep a table nobody comes back to: a
        stranger could otherwise start tables, leave them and fill the server's limits."""
        return not self.spectators and not any(s.clients for s in self.seats)

    def check_empty(self) -> None:
        """The table ends ``unattended_seconds`` from now if it is (still) empty then, whether
        its game is to come, in progress or over (:meth:`_expire`); anyone who joins or
        watches meanwhile keeps it (:meth:`join`)."""
        if (self.hooks.on_empty is None or self._empty_timer is not None or not self.empty
                or self.closed):
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a test building tables by hand): nothing closes them
        self._empty_timer = self.clock.call_later(self.unattended_seconds, self._expire)

    def _expire(self) -> None:
        self._empty_timer = None
        if not self.empty or self.hooks.on_empty is None or self.closed:
            return
        if not self.may_act():
            self.check_empty()  # the lease is in doubt: whoever holds it decides, later
            return
        self._keep_unfinished()
        self.hooks.on_empty(self)

    def _keep_unfinished(self) -> None:
        """The table ends: an unfinished game keeps its finished hands for replay."""
        game = self.game
        if game is not None and self.store is not None:
            self.game_id = GameEnd(self.store, self.name, self.game_no, self.rules,
                                   self.game_seed, game, self.seats).unfinished() or self.game_id

    @property
    def idle_over(self) -> bool:
        """Its game is over and nobody is there: it holds no game of anyone's, so it does not
        count against its creator's open tables (it still ends when unattended)."""
        return self.state is TableState.OVER and self.empty

    def close_by(self, account: Account | None) -> Refusal | None:
        """Its host closes it (``/close``, ``close NAME``) while nobody else sits there
        (:meth:`Admission.may_close`), or the operator (``account`` None) whoever sits: an
        unfinished game keeps its finished hands, whoever is connected is told, nothing more
        is played or saved, its owner ends it at once (``on_close``). None when closed."""
        if self.closed:
            return self.closed_refusal()
        refusal = None if account is None else self.admission.may_close(account, [
            s.occupant.name for s in self.seats
            if s.occupant is not None and s.occupant.account_id != account.id])
        if refusal is not None:
            return refusal
        if not self.may_act():
            return Refusal("moving")
        self._keep_unfinished()
        self._notice(self.closed_refusal() if account is not None
                     else Refusal.of("table_closed_op", table=self.name))
        if self.hooks.on_close is not None:
            self.hooks.on_close(self)  # out of the registry, the store and the lobby
        if not self.closed:
            self.close()
        return None

    def closed_refusal(self) -> Refusal:
        return Refusal.of("table_closed", table=self.name, host=self.host_name or "?")

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
            seat.grace = None
        client.seat_index = None
        self.spectators.append(client)
        self.save_changed()

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
        return SeatState(seat.covered_at(self.config.grace_seconds), False)

    def idle(self, index: int) -> bool:
        """Whether the player of seat ``index`` let his turn's timer run out repeatedly."""
        return self.runner.idle(index)

    # --- 压鸽子 (Yichun spectator stakes, net.runtime.stakes) ------------------------------
    @property
    def stakes_possible(self) -> bool:
        return self.stakes.possible

    def allowed_seats(self) -> tuple[int, ...]:
        return tuple(i for i, s in enumerate(self.seats) if s.allow_spectators)

    def stakes_enabled(self) -> bool:
        return self.stakes.enabled(len(self.allowed_seats()))

    def set_program(self, index: int, text: str) -> None:
        """A program's handshake named it (``bot join``): shown with the seat's ``[bot]``."""
        occupant = self.seats[index].occupant
        if occupant is not None and occupant.bot and occupant.program != text:
            occupant.program = text
            self._changed()

    def set_allow(self, index: int, allow: bool) -> None:
        """A seated player's "allow spectators" setting (applies from the next hand)."""
        self.seats[index].allow_spectators = allow
        self.save_changed()

    def stake(self, account: Account, backs: int | None) -> Refusal | None:
        """A spectator backs seat ``backs`` from the next hand (``None``: no stake)."""
        refusal, changed = self.stakes.place(
            account.id, account.nickname, backs, self.seat_of(account.id) is not None,
            [s.allow_spectators for s in self.seats])
        if changed:
            self.save_changed()
        return refusal

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
        if self.closed:
            return self.closed_refusal()
        if self.game is not None and not self.game.is_over:
            return None
        if not self.may_act():
            return Refusal("moving")
        if not self.pause.saved_up():
            return UNSAVED
        if self.game is not None:  # after a game: who is not connected now is not in the next
            for i, seat in enumerate(self.seats):
                if seat.occupant is not None and not seat.clients:
                    self._free(i)
        self._gone.clear()
        if seed is None:
            # from the operating system's entropy: every kept game shows its seed, and seeds
            # drawn from the process's Mersenne Twister would let its state, and so the next
            # tables' walls, be rebuilt from enough of them
            seed = secrets.randbits(31)
        try:
            game = Game(self.ruleset, seed, rotate_dealer=self.rotate_dealer)
        except (OptionError, ValueError) as exc:
            return Refusal.of("bad_game", problem=str(exc))
        self.game_seed = seed
        self.game_no += 1
        self.game_id = ""
        self.hands_started = 0
        self.stakes.fixed = {}
        self.game = game
        self.computers.warm()
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
        self.stakes.fix(game, len(game.history) + 1, self.stakes.for_hand(self.allowed_seats()))
        game.new_hand()
        self.hands_started += 1
        self.runner.new_hand()
        self._save()
        self._publish()

    def apply(self, index: int, action: Action) -> Refusal | None:
        if self.closed:
            return self.closed_refusal()
        game = self.game
        if game is None or game.hand is None:
            return Refusal("no_game")
        if not self.may_act():
            return Refusal("moving")
        if not self.pause.saved_up():
            return UNSAVED
        hand = game.hand
        try:
            game.apply(index, action)
        except IllegalActionError as exc:
            return illegal(exc)
        self.actions_applied += 1
        metrics.action()
        self.runner.acted(index, self.clock.now())
        if self.store is not None:
            self.store.add_action(self.name, ActionRow(
                self.game_no, hand.hand_no, len(hand.actions) - 1, index, action.to_json()))
        now = self.clock.now()
        if hand.is_over:
            self._hand_over(now)
        else:  # the next player's timer is in the update they get now, not in a second one
            self.runner.step(game, now, self.seat_states(now), self.watched())
        self.pause.check()
        self._publish()
        self.loop.kick()
        return None

    def _hand_over(self, now: float) -> None:
        game = self.game
        assert game is not None and game.hand is not None
        self.runner.hand_over(game.hand, now)
        if self.store is not None:
            self.game_id = GameEnd(self.store, self.name, self.game_no, self.rules,
                                   self.game_seed, game, self.seats).hand_over(
                self.bot_levels, self.stakes) or self.game_id
        self._changed()

    def held_for(self) -> tuple[str, ...]:
        """Before the first game of a private table: the invited players who have not come,
        for whom the empty seats are held (none when no seat is empty)."""
        if not self.private or self.game is not None:
            return ()
        info = self.info()
        return info.absent_invited if info.held else ()

    def start_by(self, index: int | None, confirmed: bool = False) -> Refusal | None:
        """A seated player presses S. At a private table whose empty seats are held for
        invited players who have not come, S says for whom (``held``) unless ``confirmed``
        (the player's second S, :class:`~net.runtime.seat_client.StartAsk`): then computers
        play those seats, and an invited player who comes later takes his over."""
        if index is None:
            return Refusal("seated_start")
        held = self.held_for()
        if held and not confirmed:
            return Refusal.of("held", names=", ".join(held))
        return self.start()

    def ask_new_game(self, index: int | None) -> Refusal | None:
        """A seated player asks for a new game after the last one: it starts when every
        present player has asked (or the game-over screen's time is up), as a hand does."""
        if index is None:
            return Refusal("seated_start")
        if self.game is None or not self.game.is_over:
            return self.start()
        if self.tournament:
            return Refusal.of("tournament_table_done", name=self.tournament)
        self.runner.ask_new_game(index, self.clock.now())
        self.loop.kick()
        self._publish()  # every screen says whom the table waits for
        self._changed()
        return None

    def next_game(self) -> None:  # TableHost: everyone asked (or the time is up)
        self.start()

    def ready(self, index: int | None) -> None:
        """A seat has seen the hand's result."""
        if index is not None:
            self.runner.ready.add(index)
        self.loop.kick()

    # --- TableHost: what the table loop (host.table_loop) asks ----------------------------
    def seat_states(self, now: float) -> tuple[SeatState, ...]:
        return tuple(self.seat_state(i) for i in range(4))

    def watched(self) -> bool:
        """Whether the table plays on now. Whether anyone is connected does not matter: a
        dropped player's (or program's) timers and grace period run, and then a computer plays
        his seat, as when someone watches; a table nobody comes back to ends
        (:meth:`check_empty`)."""
        if not self.may_act():
            return False  # the lease is in doubt: nothing is played until it is settled
        return not self.pause.paused  # paused: nothing moves until what it did is saved

    def player(self, seat: int) -> tuple[Player, bool]:
        return self.computers.player(seat)

    def play(self, seat: int, action: Action) -> Refusal | None:
        refusal = self.apply(seat, action)
        if refusal is UNSAVED:
            return None  # not a wrong move: the loop sleeps (``watched``) and asks again later
        return refusal

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
        now, game = self.clock.now(), self.game
        out = [seat.shown_name(self._gone.get(i), game is not None,
                               game is not None and game.is_over,
                               game is not None and seat.occupant is not None and self.idle(i),
                               game is not None and seat.occupant is not None
                               and self.is_bot(i, now))
               for i, seat in enumerate(self.seats)]
        return (out[0], out[1], out[2], out[3])

    def update_for(self, index: int | None) -> TableUpdate | None:
        game = self.game
        if game is None or game.hand is None:
            return None
        update = table_update(game, self.runner, index, self.names())
        if update is not None and self.game_id and game.is_over:
            update = dataclasses.replace(update, game_id=self.game_id)
        return update

    def _publish(self) -> None:
        """Send each seat its update once what it shows is stored: a move a player saw is
        never lost to a crash (SQLite writes at once; PostgreSQL's writer commits first)."""
        if self.game is None or self._publishing:
            return
        if self.store is None:
            self._send_all()
            return
        self._publishing = True
        self.store.when_written(self._stored)

    def _stored(self) -> None:
        self._publishing = False
        if not self.closed and not self.pause.paused:  # an unsaved move is not shown
            self._send_all()

    def _send_all(self) -> None:
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
            metrics.delivered(self, client)  # a move's wave waits for this screen
            client.deliver(update)

    def info(self) -> TableInfo:
        seats = tuple(
            # connected: a session is there (a seat held for a dropped player's grace period
            # is not: the lobby marks him away at once, as the table's names do)
            SeatInfo(s.occupant.name if s.occupant else "", s.occupant is not None,
                     bool(s.clients),
                     self.idle(i) and bool(s.clients),
                     s.occupant is not None and s.occupant.bot,
                     s.occupant.program if s.occupant is not None else "")
            for i, s in enumerate(self.seats)
        )
        game = self.game
        hand_no = game.hand.hand_no if game is not None and game.hand is not None else 0
        return TableInfo(
            name=self.name,
            rules=self.rules,
            options=tuple(sorted(self.options.items())),
            seats=(seats[0], seats[1], seats[2], seats[3]),
            spectators=len(self.spectators),
            state=self.state,
            hand_no=hand_no,
            hands_per_game=int(self.ruleset.options["hands_per_game"]),
            allow=(self.seats[0].allow_spectators, self.seats[1].allow_spectators,
                   self.seats[2].allow_spectators, self.seats[3].allow_spectators),
            stakes_possible=self.stakes_possible,
            stakes=tuple((s.name, s.backs) for s in self.stakes.placed.values()),
            hand_stakes=tuple((s.name, s.backs) for s in self.stakes.of_hand(hand_no).stakes),
            bot_levels=self.bot_levels,
            private=self.private,
            host=self.host_name,
            host_id=self.creator,
            invited=tuple(self.invited),
            watchers=self.watchers,
            tournament=self.tournament,
        )

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
        """``account`` says ``text`` at the table (:meth:`TableChat.say`)."""
        return self.talk.say(account, text)

    # --- persistence ----------------------------------------------------------------------
    def row(self) -> TableRow:
        return TableRow(self.name, self.rules, self.options, SavedTable(
            seats=tuple(SavedSeat(s.occupant.account_id, s.occupant.name) if s.occupant
                        else None for s in self.seats),
            game_seed=self.game_seed,
            game_no=self.game_no,
            hands_started=self.hands_started,
            allow=tuple(s.allow_spectators for s in self.seats),
            stakes=tuple(self.stakes.placed.values()),
            hand_stakes=tuple(self.stakes.fixed.items()),
            bot_levels=self.bot_levels,
            rotate_dealer=self.rotate_dealer,
            **self.admission.saved(),
        ))

    def save_changed(self) -> None:
        """Save the table's row and tell everyone there what changed (a host's command)."""
        self._save()
        self._changed()

    def _save(self) -> None:
        if self.store is not None and not self.closed:  # a closed table's row is gone
            self.store.save_table(self.row())
            self.pause.check()

    def _paused(self) -> None:
        """Nothing more is applied (:meth:`apply` refuses, the loop sleeps: ``watched``) nor
        shown; the players are told (:class:`~net.runtime.save_pause.SavePause`)."""
        self._notice(UNSAVED)
        self._changed()

    def _resumed(self) -> None:
        self._notice(Refusal("saved_again"))
        self._publish()
        self.loop.kick()
        self._changed()

    def _notice(self, refusal: Refusal) -> None:
        """A line from the server to everyone at the table, in both languages."""
        line = ChatLine("", refusal.text(None))
        for client in self.clients():
            client.deliver_info(line)

    def close(self) -> None:
        self.closed = True
        self.loop.close()
        self.pause.close()
        if self._empty_timer is not None:
            self._empty_timer.cancel()
            self._empty_timer = None
