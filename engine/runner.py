"""A table's life between and inside hands, as a state machine that is told the time.

``play`` (one person against three computer players) and the server (four seats shared by
sessions) run a table the same way: computer players act after a short pause, a human's turn
and claim window run on a timer whose expiry plays a safe action (a table with a time bank
adds to each decision's own time what is left of the seat's bank for the hand: see
:meth:`TableRunner.bank_left`), a dropped player's seat waits
out a grace period before a computer plays it, a player who lets his turn's timer run out
twice in a row counts as away (his timer shrinks until he presses a key), a finished hand
waits until every present player is ready (or the result screen's time is up), and a finished
game starts again once a seated player asks and every other present player is ready too (or
the game-over screen's time, counted from the first ask, is up).
:class:`TableRunner` holds those rules and their deadlines; it never reads a clock and never
waits. Its owner asks :meth:`TableRunner.step` what is due at time ``now`` and gets one
:class:`Step`: a computer player's move, a timer's expiry, the next hand, or the time to ask
again. The asyncio loop around it (``host.table_loop``) is a few lines, and tests drive it with
a clock of their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.game import Game
from engine.rulesets import Ruleset
from engine.table import Hand, Phase
from engine.view import View

CLAIM_PHASES = frozenset({Phase.CLAIM, Phase.ROB})  # windows where several seats may answer


@dataclass(frozen=True)
class Pace:
    """How a table paces itself: the owner's knobs (tests shorten them)."""

    bot_delay: float = 0.5  # a computer player's pause before a move nobody else waits on
    timers: bool = True  # False: no turn timer and no claim window at all (tests, tutorials)
    # a finished hand waits this long for everyone to be ready; None: as long as it takes
    next_hand_seconds: float | None = 60.0
    # turn-timer expiries in a row after which a seated player counts as away; None: never
    idle_after: int | None = 2
    idle_seconds: float = 1.0  # an away player's timer (his turn is played as expiry plays)
    # once a seated player asked for a new game, the others have this long to be ready too;
    # None: as long as it takes
    next_game_seconds: float | None = 120.0


def bank_seconds(ruleset: Ruleset) -> int:
    """The table option ``time_bank``: the seconds each seat may think past its decisions'
    own time in one hand, all its decisions together (Mahjong Soul's 5 + 20 s); 0: none."""
    return int(ruleset.options.get("time_bank") or 0)


def phase_seconds(ruleset: Ruleset, phase: Phase) -> int:
    """The option that times a decision in ``phase`` (``claim_seconds`` in a claim window,
    else ``turn_seconds``) for a table that runs timers; 0: no timer."""
    key = "claim_seconds" if phase in CLAIM_PHASES else "turn_seconds"
    return int(ruleset.options.get(key) or 0)


@dataclass(frozen=True)
class SeatState:
    """Who plays a seat, as the owner knows it at the time of a step."""

    # the time from which a computer plays the seat: None while a person holds it (connected,
    # or dropped and within the grace period, then the grace period's end); 0.0 for a computer
    bot_from: float | None
    present: bool = False  # a person is connected (and so must be ready between hands)

    def is_bot(self, now: float) -> bool:
        return self.bot_from is not None and now >= self.bot_from


HUMAN = SeatState(None, True)
COMPUTER = SeatState(0.0, False)


@dataclass(frozen=True)
class Wait:
    """Nothing is due: ask again at ``until`` (None: only when something changes)."""

    until: float | None


@dataclass(frozen=True)
class BotMove:
    """The computer player of ``seat`` is to act now."""

    seat: int
    paced: bool = False  # a move nobody else waits on (after the pause, if there is one)


@dataclass(frozen=True)
class Expire:
    """The timer of ``seat`` ran out: play :func:`engine.expiry.expiry_action` for it now."""

    seat: int


@dataclass(frozen=True)
class NextHand:
    """Every present player is ready (or the result screen's time is up): deal the next hand."""


@dataclass(frozen=True)
class NextGame:
    """The game is over, a seated player asked for another and every present player is ready
    (or the game-over screen's time is up): start a new game."""


Step = Wait | BotMove | Expire | NextHand | NextGame


@dataclass
class TableRunner:
    """The deadlines of one table and the rules that set them (see the module docstring)."""

    pace: Pace = field(default_factory=Pace)
    deadlines: dict[int, float] = field(default_factory=dict)  # a human seat's timer runs out
    timer_total: dict[int, float] = field(default_factory=dict)  # that timer's own length
    # the part of a running timer that is the seat's time bank (after the timer's own length)
    banked: dict[int, float] = field(default_factory=dict)
    # the time bank each seat has spent in this hand (the bank is the table's per hand)
    bank_spent: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0, 0.0])
    timeouts: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # expiries in a row
    ready: set[int] = field(default_factory=set)  # seats ready for the next hand
    game_ready: set[int] = field(default_factory=set)  # seats that asked for a new game
    game_asked_at: float | None = None  # when the first of them asked
    hand_ended_at: float | None = None
    # who was present at the last step: whom the table waits for, between hands and games
    present: tuple[bool, bool, bool, bool] = (False, False, False, False)
    _paced: tuple[int, int, float] | None = None  # (hand id, version, due) of a bot's pause
    _ended: int | None = None  # id of the hand ``hand_ended_at`` belongs to

    # --- what is due ------------------------------------------------------------------------
    def step(self, game: Game | None, now: float, seats: Sequence[SeatState],
             watched: bool = True) -> Step:
        """What the table does at ``now``. Asking twice at the same time gives the same answer;
        a human's timer starts the first time it is asked for once no computer acts first."""
        hand = game.hand if game is not None else None
        self.present = (seats[0].present, seats[1].present, seats[2].present, seats[3].present)
        if game is None or hand is None or not watched:
            return Wait(None)  # no game, or its owner holds it (paused): the table sleeps
        if hand.is_over:
            return self._between(game, hand, now, seats)
        to_act = hand.to_act()
        for s in [s for s in self.deadlines if s not in to_act]:
            self._stop(s, now)  # its decision ended (another seat's claim closed the window)
        bots = [s for s in to_act if seats[s].is_bot(now)]
        humans = [s for s in to_act if s not in bots]
        if bots:
            paced = not humans and hand.phase not in CLAIM_PHASES
            if paced and self.pace.bot_delay > 0:
                stamp = (id(hand), hand.version)
                if self._paced is None or self._paced[:2] != stamp:
                    self._paced = (*stamp, now + self.pace.bot_delay)
                if now < self._paced[2]:
                    return Wait(self._paced[2])
            return BotMove(bots[0], paced)
        seconds = self.timer_for(game.ruleset, hand.phase)
        for s in humans:
            if seconds > 0 and s not in self.deadlines:
                away = self.idle(s)  # an away player's short timer draws nothing from the bank
                wait = min(float(seconds), self.pace.idle_seconds) if away else seconds
                bank = 0.0 if away else self.bank_left(s, game.ruleset)
                self.deadlines[s] = now + wait + bank
                self.timer_total[s] = float(wait)
                self.banked[s] = bank
            due = self.deadlines.get(s)
            if due is not None and due <= now:
                return Expire(s)
        wakes = [d for d in (self.deadlines.get(s) for s in humans) if d is not None]
        wakes += [st.bot_from for st in seats if st.bot_from is not None and st.bot_from > now]
        return Wait(min(wakes) if wakes else None)

    def _between(self, game: Game, hand: Hand, now: float, seats: Sequence[SeatState]) -> Step:
        if self._ended != id(hand):
            self.hand_over(hand, now)
        if game.is_over:
            return self._next_game(now)
        if not self.waiting_for(game):
            return NextHand()
        if self.pace.next_hand_seconds is None:
            return Wait(None)
        ended = self.hand_ended_at if self.hand_ended_at is not None else now
        due = ended + self.pace.next_hand_seconds
        return NextHand() if now >= due else Wait(due)

    def _next_game(self, now: float) -> Step:
        if self.game_asked_at is None:
            return Wait(None)  # a new game is asked for by someone, not by the clock
        if not self.waiting_for_game():
            return NextGame()
        if self.pace.next_game_seconds is None:
            return Wait(None)
        due = self.game_asked_at + self.pace.next_game_seconds
        return NextGame() if now >= due else Wait(due)

    def _waits_on(self, seat: int, ready: set[int]) -> bool:
        return self.present[seat] and seat not in ready and not self.idle(seat)

    def waiting_for(self, game: Game | None) -> tuple[int, ...]:
        """The present players the table waits for now: between hands those not ready for the
        next hand, after the game those not ready for a new one once someone asked for it;
        () while a hand is played or nobody has asked."""
        hand = game.hand if game is not None else None
        if game is None or hand is None or not hand.is_over:
            return ()
        if game.is_over:
            return self.waiting_for_game() if self.game_asked_at is not None else ()
        return tuple(s for s in range(4) if self._waits_on(s, self.ready))

    def waiting_for_game(self) -> tuple[int, ...]:
        return tuple(s for s in range(4) if self._waits_on(s, self.game_ready))

    def ask_new_game(self, seat: int, now: float) -> None:
        """The player of ``seat`` asked for a new game after the last one ended at ``now``."""
        self.game_ready.add(seat)
        if self.game_asked_at is None:
            self.game_asked_at = now

    def timer_for(self, ruleset: Ruleset, phase: Phase) -> int:
        """The table option's seconds for ``phase``'s timer (0: none)."""
        return phase_seconds(ruleset, phase) if self.pace.timers else 0

    def bank_left(self, seat: int, ruleset: Ruleset) -> float:
        """What is left of the time bank of ``seat`` in this hand: a decision's timer runs
        its own time (``turn_seconds``, ``claim_seconds``), then this; what a decision did
        not use of it carries to the seat's next decision of the hand (0 without timers)."""
        if not self.pace.timers:
            return 0.0
        return max(0.0, bank_seconds(ruleset) - self.bank_spent[seat])

    def deadline(self, seat: int | None, view: View) -> tuple[float | None, float]:
        """(when the timer of ``seat`` runs out, its own length) for that seat's update; a
        timer shows only while the seat has a move. The deadline includes the seat's bank
        (:meth:`banked_for`)."""
        if seat is None or not view.my_move or seat not in self.deadlines:
            return None, 0.0
        return self.deadlines[seat], self.timer_total.get(seat, 0.0)

    def banked_for(self, seat: int | None, view: View) -> float:
        """The seconds of the seat's time bank at the end of its running timer (the last
        part of the time until :meth:`deadline`); 0 where no timer shows."""
        if self.deadline(seat, view)[0] is None:
            return 0.0
        assert seat is not None
        return self.banked.get(seat, 0.0)

    # --- what happened ------------------------------------------------------------------------
    def _stop(self, seat: int, now: float | None) -> None:
        """The timer of ``seat`` stops at ``now``: the time it ran past its own length is
        taken from the seat's bank (None: nothing is, as after a pause)."""
        due = self.deadlines.pop(seat, None)
        bank = self.banked.pop(seat, 0.0)
        if due is not None and now is not None and bank > 0:
            self.bank_spent[seat] += min(bank, max(0.0, now - (due - bank)))

    def acted(self, seat: int, now: float | None = None) -> None:
        """``seat`` made its move at ``now``: its timer stops (what it used of the bank is
        spent; the owners pass the time, a test may leave it out where no bank runs)."""
        self._stop(seat, now)

    def expired(self, seat: int, phase: Phase) -> None:
        """The timer of ``seat`` ran out in ``phase`` (its bank with it). A claim window left
        to run out is a pass; a turn's timer is absence, counted towards :meth:`idle`."""
        due = self.deadlines.get(seat)
        self._stop(seat, due)
        if phase not in CLAIM_PHASES:
            self.timeouts[seat] += 1

    def active(self, seat: int) -> bool:
        """The player of ``seat`` pressed a key: he is back. True when he had been away."""
        was = self.idle(seat)
        self.timeouts[seat] = 0
        return was

    def idle(self, seat: int) -> bool:
        """Whether the player of ``seat`` let his turn's timer run out ``idle_after`` times in
        a row (his timer, until he presses a key, is ``idle_seconds``)."""
        after = self.pace.idle_after
        return after is not None and self.timeouts[seat] >= after

    def hand_over(self, hand: Hand, now: float) -> None:
        """``hand`` ended at ``now``: everyone's readiness starts again."""
        self._ended = id(hand)
        self.hand_ended_at = now
        self.deadlines.clear()
        self.banked.clear()
        self.ready.clear()

    def new_hand(self) -> None:
        """A hand was dealt: no timer from the last one survives, every bank is full."""
        self._ended = None
        self.hand_ended_at = None
        self.deadlines.clear()
        self.banked.clear()
        self.bank_spent = [0.0, 0.0, 0.0, 0.0]
        self.ready.clear()
        self.game_ready.clear()
        self.game_asked_at = None
        self._paced = None

    def reset_timers(self) -> None:
        """Every running timer starts again in full the next time it is due (a pause), with
        the bank its seat had when it started."""
        self.deadlines.clear()
        self.banked.clear()
        self._paced = None

