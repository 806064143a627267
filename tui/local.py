"""``mahjong-ssh play``: you against three computer players in this terminal.

:class:`LocalTable` implements :class:`tui.client.TableClient` for one human seat: it owns a
:class:`engine.game.Game`, lets computer players (``--bots easy|normal|hard``, default
normal) play the other three seats on the asyncio loop with a short pause per move (so a
human can follow), and runs the turn and claim timers from the table options (expiry discards
the drawn tile — after a claim the rightmost tile — or passes; it never declares a win).
Every finished hand's game record is appended to ``<data dir>/records/``
(``docs/game-record.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from engine.actions import Action, ActionType, IllegalActionError
from engine.bots import make_player
from engine.bots.basic import BasicPlayer
from engine.game import Game
from engine.record import dumps, hand_lines
from engine.rulesets import OptionError
from engine.table import Hand, Phase
from engine.view import View, build_view
from tui.client import TableUpdate, UpdateCallback
from tui.refusal import Refusal
from tui.waker import Waker


class Player(Protocol):
    def choose(self, view: View) -> Action: ...


class LocalTable:
    """One human seat and three computer players, all in this process."""

    def __init__(
        self,
        seat: int = 0,
        bot_delay: float = 0.5,
        timers: bool = True,
        players: Mapping[int, Player] | None = None,
        record_dir: Path | None = None,
    ) -> None:
        self.seat = seat
        self.bot_delay = bot_delay
        self.timers = timers
        self.game: Game | None = None
        self.bots: dict[int, Player] = {s: BasicPlayer() for s in range(4) if s != seat}
        self.bots.update(players or {})
        self._callbacks: list[UpdateCallback] = []
        self._task: asyncio.Task[None] | None = None
        self._waker = Waker()
        self._paused = False
        self._closed = False
        self._deadline: float | None = None
        self._timer_total = 0.0
        self._last: TableUpdate | None = None
        # each computer seat named by its level ("hard"), as a server table names its players;
        # the human's own seat is not named on its own screen
        names = ["" if s == seat or s not in self.bots
                 else str(getattr(self.bots[s], "level", "")) for s in range(4)]
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
            seed = random.randrange(1 << 31)
        try:
            game = Game(rules, seed, dict(options))
        except (OptionError, ValueError) as exc:
            return Refusal.of("bad_game", problem=str(exc))
        self.game = game
        game.new_hand()
        self._deadline = None
        self._publish(force=True)
        self._start()
        return None

    def start_hand(self, game: Game, hand: Hand) -> None:
        """Play ``hand`` (e.g. a rigged one for a test or a tutorial) as ``game``'s hand."""
        self.game = game
        game.hand = hand
        self._deadline = None
        self._publish(force=True)
        self._start()

    def send(self, action: Action) -> Refusal | None:
        game = self.game
        if game is None or game.hand is None:
            return Refusal("no_game")
        try:
            game.apply(self.seat, action)
        except IllegalActionError as exc:
            return Refusal.of("illegal", reason=exc.reason)
        self._deadline = None
        self._publish()
        self._waker.kick()
        return None

    def next_hand(self) -> None:
        game = self.game
        if game is None or game.hand is None or not game.hand.is_over or game.is_over:
            return
        game.new_hand()
        self._deadline = None
        self._publish(force=True)
        self._waker.kick()

    def set_paused(self, paused: bool) -> bool:
        if paused != self._paused:
            self._paused = paused
            self._deadline = None
            self._waker.kick()
        return True  # the computer players and the timer wait

    def close(self) -> None:
        self._closed = True
        self._callbacks.clear()
        if self._task is not None:
            self._task.cancel()
            self._task = None

    # --- the loop --------------------------------------------------------------------------
    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        else:
            self._waker.kick()

    async def _run(self) -> None:
        while not self._closed:
            game = self.game
            hand = game.hand if game is not None else None
            if game is None or hand is None or hand.is_over or self._paused:
                self._publish()
                await self._waker.wait(None)
                continue
            to_act = hand.to_act()
            bots = [s for s in to_act if s != self.seat]
            human = self.seat in to_act
            if bots:
                seat = bots[0]
                if not human and hand.phase is not Phase.CLAIM and hand.phase is not Phase.ROB:
                    stamp = (hand, hand.version)
                    if self.bot_delay > 0:
                        await asyncio.sleep(self.bot_delay)
                    else:
                        await asyncio.sleep(0)
                    if self.game is not game or (game.hand, hand.version) != stamp or self._paused:
                        continue
                action = self.bots[seat].choose(build_view(hand, seat))
                game.apply(seat, action)
                self._publish()
                continue
            if human:
                seconds = self._timer_for(game, hand.phase) if self.timers else 0
                stamp = (hand, hand.version)
                if seconds > 0:
                    if self._deadline is None:
                        self._deadline = time.monotonic() + seconds
                    self._timer_total = float(seconds)
                else:
                    self._deadline = None
                self._publish()
                woke = await self._waker.wait(self._deadline)
                if (
                    not woke
                    and self.game is game
                    and (game.hand, hand.version) == stamp
                    and not self._paused
                ):
                    view = build_view(hand, self.seat)
                    with contextlib.suppress(IllegalActionError):
                        game.apply(self.seat, expiry_action(view))
                    self._deadline = None
                    self._publish()
                continue
            await self._waker.wait(None)  # nobody to act (should not happen)

    @staticmethod
    def _timer_for(game: Game, phase: Phase) -> int:
        opts = game.ruleset.options
        key = "claim_seconds" if phase in (Phase.CLAIM, Phase.ROB) else "turn_seconds"
        return int(opts.get(key) or 0)

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

    def _publish(self, force: bool = False) -> None:
        game = self.game
        if game is None or game.hand is None:
            return
        if game.hand.is_over:
            self._record(game, game.hand)
        view = build_view(game.hand, self.seat)
        deadline = self._deadline if view.my_move else None
        update = TableUpdate(
            view=view,
            deadline=deadline,
            timer_seconds=self._timer_total if deadline is not None else 0.0,
            totals=(game.scores[0], game.scores[1], game.scores[2], game.scores[3]),
            history=tuple(game.history),
            hands_per_game=game.hands_per_game,
            game_over=game.is_over,
            names=self._names,
        )
        if not force and update == self._last:
            return
        self._last = update
        for cb in list(self._callbacks):
            cb(update)


def expiry_action(view: View) -> Action:
    """What a timer's expiry plays: discard the drawn tile (after a claim: the rightmost
    tile), pass a claim, decline to buy; never a win."""
    legal = view.legal
    if view.phase is Phase.TURN:
        discards = [a for a in legal if a.type is ActionType.DISCARD and not a.ting]
        for kind in ([view.drawn] if view.drawn is not None else []) + list(view.hand[::-1]):
            if Action.discard(kind) in discards:
                return Action.discard(kind)
        return discards[0]
    if view.phase is Phase.BUY:
        for a in legal:
            if a.type is ActionType.NO_BUY and not a.lighter:
                return a
        return next(a for a in legal if not a.lighter)
    return Action.pass_()


def default_data_dir() -> Path:
    """Where game data lives (records; the server's key and database): the platform's data
    folder, ``$XDG_DATA_HOME/mahjong-ssh`` (``~/.local/share/mahjong-ssh``; Windows:
    ``%LOCALAPPDATA%``)."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "mahjong-ssh"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "mahjong-ssh"


def main(args: argparse.Namespace) -> int:
    """Entry point of ``mahjong-ssh play``."""
    from tui.app import MahjongApp
    from tui.settings import Settings

    settings = Settings.load()
    if getattr(args, "lang", None):
        settings.lang = args.lang
    if getattr(args, "tiles", None):
        settings.tiles = args.tiles
    if getattr(args, "theme", None):
        settings.theme = args.theme
    bots = getattr(args, "bots", None)
    levels = bots if isinstance(bots, tuple) else ("normal",) * 3  # checked by the parser
    players = {seat: make_player(level) for seat, level in zip((1, 2, 3), levels, strict=True)}
    data = getattr(args, "data", None)
    record_dir = (Path(data) if data else default_data_dir()) / "records"
    table = LocalTable(bot_delay=settings.bot_delay, players=players, record_dir=record_dir)
    app = MahjongApp(
        table,
        settings,
        rules=getattr(args, "rules", None),
        seed=getattr(args, "seed", None),
    )
    app.run()
    table.close()
    return 0
