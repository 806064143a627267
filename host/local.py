"""The local table: you against three computer players, in this process.

:class:`LocalTable` implements the seat part, :class:`host.client.TableClient`, for one human
seat: it owns a :class:`engine.game.Game`, lets computer players
(``--bots easy|normal|hard|expert``, default normal) play the other three seats with a short
pause per move (so a human can follow; ``hard`` thinks in a thread, ``expert`` in a worker
process of its own, :mod:`host.thinking`: the screen never waits for them), and runs the turn
and claim timers from the table options (expiry discards the drawn tile — after a claim the
rightmost tile — or passes; it never declares a win). Every finished hand's game record is
appended to ``<data dir>/records/`` (``docs/game-record.md``).
"""

from __future__ import annotations

import os
import secrets
import sys
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from engine.actions import Action, IllegalActionError
from engine.bots import Player
from engine.bots.basic import BasicPlayer
from engine.bots.hard import HardPlayer
from engine.game import Game
from engine.record import dumps, hand_lines
from engine.rulesets import OptionError
from engine.runner import COMPUTER, HUMAN, Pace, SeatState, TableRunner
from engine.table import Hand
from host.client import TableUpdate, UpdateCallback
from host.clock import SYSTEM_CLOCK, Clock
from host.refusal import Refusal, illegal
from host.table_loop import TableLoop, table_update
from host.thinking import ThinkingPool


class LocalTable:
    """One human seat and three computer players, all in this process: a
    :class:`host.table_loop.TableHost` whose loop is the server's."""

    controls_pace = True  # TableClient: the computer players' pause is the player's setting

    def __init__(
        self,
        seat: int = 0,
        bot_delay: float = 0.5,
        timers: bool = True,
        players: Mapping[int, Player] | None = None,
        record_dir: Path | None = None,
        clock: Clock = SYSTEM_CLOCK,
        bot_name: str = "computer",
        bot_names: Mapping[int, str] | None = None,
        thinking: ThinkingPool | None = None,
    ) -> None:
        self.seat = seat
        self.thinking = thinking  # the pool the expert players think in: closed with the table
        self.clock = clock
        self.game: Game | None = None
        self.bots: dict[int, Player] = {s: BasicPlayer() for s in range(4) if s != seat}
        self.bots.update(players or {})
        self._callbacks: list[UpdateCallback] = []
        # the next hand waits for the player; a timer that runs out never makes him "away"
        self.runner = TableRunner(Pace(bot_delay, timers, next_hand_seconds=None,
                                       idle_after=None))
        self.loop = TableLoop(self, self.runner, clock, name="local table")
        self._paused = False
        self._last: TableUpdate | None = None
        # each computer seat named as one, in the docs' words ("normal (computer)", "普通电脑":
        # ``bot_names``, by seat; ``bot_name`` for the others), not by its level alone, which
        # reads as a player called "normal"; the human's own seat is not named on its screen
        names = ["" if s == seat or s not in self.bots else (bot_names or {}).get(s, bot_name)
                 for s in range(4)]
        self._names: tuple[str, str, str, str] = (names[0], names[1], names[2], names[3])
        self.record_dir = record_dir  # every finished hand's game record is appended there
        self.record_path: Path | None = None
        self._recorded: set[int] = set()

    # --- TableClient ---------------------------------------------------------------------
    def subscribe(self, callback: UpdateCallback) -> None:
        self._callbacks.append(callback)
        if self._last is not None:
            callback(self._last)

    def new_game(self, rules: str, options: Mapping[str, Any],
                 seed: int | None) -> Refusal | None:
        if seed is None:
            seed = secrets.randbits(31)  # the OS's entropy: a seed tells of no other game
        try:
            game = Game(rules, seed, dict(options))
        except (OptionError, ValueError) as exc:
            return Refusal.of("bad_game", problem=str(exc))
        self.start_hand(game, game.new_hand())
        return None

    def start_hand(self, game: Game, hand: Hand) -> None:
        """Play ``hand`` (e.g. a rigged one for a test or a tutorial) as ``game``'s hand."""
        self.game = game
        game.hand = hand
        self.runner.new_hand()
        self.publish(force=True)
        self.loop.start()

    def send(self, action: Action) -> Refusal | None:
        refusal = self.play(self.seat, action)
        if refusal is None:
            self.loop.kick()
        return refusal

    def next_hand(self) -> None:
        game = self.game
        if game is None or game.hand is None or not game.hand.is_over or game.is_over:
            return
        self.deal_next()  # the player is ready: the hand is dealt at once
        self.loop.kick()

    def set_paused(self, paused: bool) -> bool:
        if paused != self._paused:
            self._paused = paused
            self.runner.reset_timers()
            self.loop.kick()
        return True  # the computer players and the timer wait

    def set_bot_delay(self, seconds: float) -> None:
        self.runner.pace = replace(self.runner.pace, bot_delay=seconds)

    def close(self) -> None:
        self._callbacks.clear()
        self.loop.close()
        if self.thinking is not None:
            self.thinking.close()

    # --- TableHost -------------------------------------------------------------------------
    def seat_states(self, now: float) -> tuple[SeatState, ...]:
        return tuple(HUMAN if s == self.seat or s not in self.bots else COMPUTER
                     for s in range(4))

    def watched(self) -> bool:
        return not self._paused

    def player(self, seat: int) -> tuple[Player, bool]:
        # hard (and an expert without a pool) thinks in a thread: the screen keeps its keys
        bot = self.bots[seat]
        return bot, isinstance(bot, HardPlayer)

    def play(self, seat: int, action: Action) -> Refusal | None:
        game = self.game
        if game is None or game.hand is None:
            return Refusal("no_game")
        try:
            game.apply(seat, action)
        except IllegalActionError as exc:
            return illegal(exc)
        self.runner.acted(seat, self.clock.now())
        self.publish()
        return None

    def deal_next(self) -> None:
        game = self.game
        if game is None or game.is_over:
            return
        game.new_hand()
        self.runner.new_hand()
        self.publish(force=True)

    def next_game(self) -> None:
        game = self.game
        if game is not None:
            self.new_game(game.ruleset.name, game.ruleset.options, None)

    def expired(self, seat: int) -> None:
        pass  # one player alone: nobody else to tell

    # --- records and updates -----------------------------------------------------------------
    def _record(self, game: Game, hand: Hand) -> None:
        """Append the finished hand's record (``docs/game-record.md``) to this game's file."""
        if self.record_dir is None or id(hand) in self._recorded:
            return
        self._recorded.add(id(hand))
        try:
            if self.record_path is None or hand.hand_no == 1:
                self.record_dir.mkdir(parents=True, exist_ok=True)
                stamp = time.strftime("%Y%m%d-%H%M%S")
                name = f"{stamp}-{game.ruleset.name}-{game.seed}.jsonl"
                self.record_path = self.record_dir / name
            with self.record_path.open("a", encoding="utf-8") as f:
                f.write(dumps(hand_lines(hand)))
        except OSError:
            self.record_dir = None  # an unwritable folder never stops the game

    def publish(self, force: bool = False) -> None:
        """Send the player his update where it changed (``force``: even if not, a new hand)."""
        game = self.game
        if game is None or game.hand is None:
            return
        if game.hand.is_over:
            self._record(game, game.hand)
        update = table_update(game, self.runner, self.seat, self._names)
        if update is None or (not force and update == self._last):
            return
        self._last = update
        for cb in list(self._callbacks):
            cb(update)


def default_data_dir() -> Path:
    """Where game data lives (records; the server's key and database): the platform's data
    folder, ``$XDG_DATA_HOME/mahjong-ssh`` (``~/.local/share/mahjong-ssh``; Windows:
    ``%LOCALAPPDATA%``)."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "mahjong-ssh"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "mahjong-ssh"
