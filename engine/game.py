"""A game: a run of hands with running scores and a configurable length.

Every random choice comes from the game's ``random.Random(seed)``: the first-dealer roll and
each hand's own seed. A game is reproducible from its seed and its players' actions, and each
hand from its record (``docs/game-record.md``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.actions import Action
from engine.rulesets import Ruleset, find_ruleset
from engine.situation import Spectator
from engine.table import Hand
from engine.wall import Dice


@dataclass(frozen=True)
class HandSummary:
    hand_no: int
    dealer: int
    seed: int
    winners: tuple[int, ...]
    net: tuple[int, int, int, int]
    spectator_net: tuple[tuple[str, int], ...]
    next_dealer: int


class Game:
    """Hands in sequence; the dealer moves by the ruleset; scores accumulate."""

    def __init__(
        self,
        rules: str | Ruleset,
        seed: int,
        options: Mapping[str, Any] | None = None,
        spectators: Sequence[Spectator] = (),
        allow_spectators: Sequence[int] = (0, 1, 2, 3),
        rotate_dealer: bool = False,
    ) -> None:
        self.ruleset = rules if isinstance(rules, Ruleset) else find_ruleset(rules, options)
        self.seed = seed
        self.rng = random.Random(seed)
        self.scores = [0, 0, 0, 0]
        self.spectator_scores: dict[str, int] = {s.name: 0 for s in spectators}
        self.spectators = tuple(spectators)
        self.allow_spectators = tuple(allow_spectators)
        # a duplicate tournament's game (engine/tournament.py): the deal passes to the right
        # after every hand, whoever won, so that hand k has the same dealer at every table
        self.rotate_dealer = rotate_dealer
        # a tournament round's time limit (net/runtime/tournaments.py): the game ends after
        # this many hands, fewer than its option's (None: the option's)
        self.hand_limit: int | None = None
        self.first_dealer_roll = Dice.roll(self.rng)
        self.dealer = self.ruleset.first_dealer(self.first_dealer_roll.total)
        self.history: list[HandSummary] = []
        self.hand: Hand | None = None

    @property
    def hands_per_game(self) -> int:
        n = int(self.ruleset.options["hands_per_game"])
        return n if self.hand_limit is None else min(n, self.hand_limit)

    @property
    def is_over(self) -> bool:
        return len(self.history) >= self.hands_per_game and (
            self.hand is None or self.hand.is_over
        )

    def new_hand(self) -> Hand:
        """Start the next hand (the previous one must be over and settled)."""
        if self.hand is not None and not self.hand.is_over:
            raise RuntimeError("the current hand is not over")
        if self.hand is not None:
            self._close_hand()
        if len(self.history) >= self.hands_per_game:
            raise RuntimeError("the game is over")
        self.hand = Hand(
            self.ruleset,
            seed=self.rng.getrandbits(63),
            dealer=self.dealer,
            hand_no=len(self.history) + 1,
            scores=tuple(self.scores),
            spectators=self.spectators,
            allow_spectators=self.allow_spectators,
        )
        return self.hand

    def finish_hand(self) -> HandSummary:
        """Book the finished hand's settlement into the running scores."""
        return self._close_hand()

    def _close_hand(self) -> HandSummary:
        hand = self.hand
        assert hand is not None and hand.settlement is not None
        if self.history and self.history[-1].hand_no == hand.hand_no:
            return self.history[-1]
        s = hand.settlement
        net = s.seats
        for seat in range(4):
            self.scores[seat] += net[seat]
        spec = tuple(s.spectators.items())
        for name, v in spec:
            self.spectator_scores[name] = self.spectator_scores.get(name, 0) + v
        next_dealer = s.next_dealer if s.next_dealer is not None else hand.dealer
        if self.rotate_dealer:
            next_dealer = (hand.dealer + 1) % 4
        summary = HandSummary(
            hand_no=hand.hand_no,
            dealer=hand.dealer,
            seed=hand.seed,
            winners=tuple(w.seat for w in hand.wins),
            net=(net[0], net[1], net[2], net[3]),
            spectator_net=spec,
            next_dealer=next_dealer,
        )
        self.history.append(summary)
        self.dealer = next_dealer
        return summary

    def apply(self, seat: int, action: Action) -> None:
        if self.hand is None:
            raise RuntimeError("no hand in progress")
        self.hand.apply(seat, action)
        if self.hand.is_over:
            self._close_hand()
