"""What a shared table's game leaves in the store when it ends: its results (rated, the
computers at their level's reference, the programs' seats marked, and the spectators' stakes)
and the game kept for replay under a new ID (:mod:`net.game_id`), which any worker then serves
from the store alone (``ssh host replay ID``); a game its table ended without keeps its
finished hands."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.game import Game
from engine.rating import reference as rating_reference
from engine.record import dumps, hand_lines
from host.coach import coach_table
from net.game_id import new_game_id
from net.runtime.seat_client import Seat
from net.runtime.stakes import StakeBook
from net.store.base import Store
from net.store.model import ComputerSeat

Rows = list[tuple[int, int, int, int, int]]  # account, seat, score, wins, hands


@dataclass(frozen=True)
class GameEnd:
    """Table ``table``'s game ``game_no`` as the store keeps it."""

    store: Store
    table: str
    game_no: int
    rules: str
    seed: int | None
    game: Game
    seats: Sequence[Seat]

    def hand_over(self, levels: Sequence[str], stakes: StakeBook) -> str | None:
        """Its hand is over: the hand's record written; and if the game is over with it, its
        results and its stakes' results, and the kept game's ID returned."""
        game = self.game
        assert game.hand is not None
        self.store.finish_hand(self.table, self.game_no, game.hand.hand_no,
                               dumps(hand_lines(game.hand)))
        return self._finished(levels, stakes.results(game)) if game.is_over else None

    def _finished(self, levels: Sequence[str], stakes: list[tuple[int, int, int]]) -> str:
        game = self.game
        rows: Rows = []
        computers = []  # rated against at their level's reference (engine.rating)
        for i, seat in enumerate(self.seats):
            if seat.occupant is None:
                computers.append(ComputerSeat(
                    i, game.scores[i], rating_reference(self.rules, levels[i])))
                continue
            wins = sum(1 for h in game.history if i in h.winners)
            rows.append((seat.occupant.account_id, i, game.scores[i], wins, len(game.history)))
        bots = [i for i, seat in enumerate(self.seats)
                if seat.occupant is not None and seat.occupant.bot]
        # a coach table's games are practice: kept, never rated (host.coach)
        self.store.finish_game(self.table, self.game_no, self.rules, rows, computers,
                               self.seed or 0, bots,
                               rated=not coach_table(game.ruleset.options))
        self.store.finish_stakes(self.table, self.game_no, self.rules, stakes)
        return self._keep(rows)

    def unfinished(self) -> str | None:
        """The table ends with its game unfinished: its finished hands kept for replay, under
        a game ID its seated players find in their ``replay`` list (only finished hands
        replay; a game none of whose hands was finished leaves nothing: None). It is not a
        result: nothing is rated, nobody wins or loses by leaving."""
        game = self.game
        if game.is_over or not game.history:
            return None
        return self._keep([(seat.occupant.account_id, i, game.scores[i], 0, len(game.history))
                           for i, seat in enumerate(self.seats) if seat.occupant is not None],
                          unfinished=True)

    def _keep(self, rows: Rows, unfinished: bool = False) -> str:
        game_id = new_game_id()
        names = [s.occupant.name if s.occupant is not None else "" for s in self.seats]
        line: dict[str, Any] = {"type": "game", "rules": self.rules, "seed": self.seed,
                                "id": game_id, "table": self.table, "names": names}
        if unfinished:
            line["unfinished"] = True
        self.store.keep_game(self.table, self.game_no, len(self.game.history), game_id,
                             self.rules, dumps([line]), [(a, s, sc) for a, s, sc, _w, _h in rows])
        return game_id
