"""Computer players play whole games while every invariant is checked after every action.

Checks after each action: all 136 tiles accounted for exactly once (wall, kong tiles, hands,
melds, ponds); settlements zero-sum and running scores zero-sum; no view leaks (each seat's view
holds exactly its own concealed tiles, and only counts of everybody else's). A violation raises
:class:`SimulationViolation` naming the seed, the hand and the action index that reproduce it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.actions import Action
from engine.game import Game
from engine.table import Hand, InvariantError, Phase
from engine.view import View, build_view


class Player(Protocol):
    def choose(self, view: View) -> Action: ...


class SimulationViolation(AssertionError):
    def __init__(self, seed: int, hand_no: int, hand_seed: int, action_index: int, problem: str):
        self.seed = seed
        self.hand_no = hand_no
        self.hand_seed = hand_seed
        self.action_index = action_index
        self.problem = problem
        super().__init__(
            f"violation at seed {seed}, hand {hand_no} (hand seed {hand_seed}), "
            f"action index {action_index}: {problem}"
        )


@dataclass
class SimulationReport:
    rules: str
    seed: int
    hands: int = 0
    actions: int = 0
    draws: int = 0
    wins_by_pattern: Counter[str] = field(default_factory=Counter)
    win_methods: Counter[str] = field(default_factory=Counter)
    multi_winner_hands: int = 0
    seat_wins: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    seat_net: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    total_paid: int = 0  # sum of positive nets over hands (what changed hands)

    def mean_payment(self) -> float:
        return self.total_paid / self.hands if self.hands else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "seed": self.seed,
            "hands": self.hands,
            "actions": self.actions,
            "draws": self.draws,
            "wins_by_pattern": dict(self.wins_by_pattern.most_common()),
            "win_methods": dict(self.win_methods.most_common()),
            "multi_winner_hands": self.multi_winner_hands,
            "seat_wins": self.seat_wins,
            "seat_net": self.seat_net,
            "mean_payment_per_hand": round(self.mean_payment(), 3),
        }


def check_view(hand: Hand, view: View) -> None:
    """The cheap structural leak check used after every action; also checks that the view's
    cached parts equal a view built from scratch."""
    saved, hand.view_cache = hand.view_cache, {}
    try:
        fresh = build_view(hand, view.viewer)
    finally:
        hand.view_cache = saved
    if fresh != view:
        raise InvariantError(f"the cached view of {view.viewer} is stale")
    for p in view.seats:
        if len(hand.seats[p.seat].concealed) != p.concealed_count:
            raise InvariantError(f"view shows a wrong count for seat {p.seat}")
    if view.viewer is None:
        if view.hand or view.drawn is not None or view.legal:
            raise InvariantError("a spectator view holds concealed tiles or actions")
        return
    own = sorted(hand.seats[view.viewer].kinds())
    shown = sorted([*view.hand, *([view.drawn] if view.drawn is not None else [])])
    if hand.phase is not Phase.BUY and own != shown:
        raise InvariantError(f"view of seat {view.viewer} does not show exactly its own hand")
    for a in view.legal:
        if a not in hand.legal_actions(view.viewer):
            raise InvariantError(f"view of seat {view.viewer} offers an illegal action {a}")


def play_hand(
    hand: Hand,
    players: Sequence[Player],
    check: bool = True,
    on_violation: Callable[[int, str], None] | None = None,
) -> None:
    """Let ``players`` (one per seat) play ``hand`` to its end."""
    index = 0
    while not hand.is_over:
        waiting = hand.to_act()
        if not waiting:
            raise InvariantError("the table waits for nobody but the hand is not over")
        seat = waiting[0]
        action = players[seat].choose(build_view(hand, seat))
        hand.apply(seat, action)
        index += 1
        if check:
            try:
                hand.check_invariants()
                for viewer in (0, 1, 2, 3, None):
                    check_view(hand, build_view(hand, viewer))
            except InvariantError as exc:
                if on_violation is not None:
                    on_violation(index - 1, str(exc))
                raise


def simulate(
    rules: str,
    hands: int,
    seed: int,
    players: Sequence[Player] | None = None,
    options: Mapping[str, Any] | None = None,
    check: bool = True,
    on_hand: Callable[[Hand], None] | None = None,
) -> SimulationReport:
    """Play ``hands`` hands (one long game) and return the statistics; ``on_hand`` is called
    with every finished hand (e.g. to write its record)."""
    from engine.bots import BasicPlayer

    opts = dict(options or {})
    opts["hands_per_game"] = hands
    game = Game(rules, seed, opts)
    seats: Sequence[Player] = players or [BasicPlayer() for _ in range(4)]
    report = SimulationReport(rules=game.ruleset.name, seed=seed)
    for _ in range(hands):
        hand = game.new_hand()
        current = hand

        def fail(index: int, problem: str, h: Hand = current) -> None:
            raise SimulationViolation(seed, h.hand_no, h.seed, index, problem)

        try:
            play_hand(hand, seats, check=check, on_violation=fail)
        except SimulationViolation:
            if on_hand is not None:
                on_hand(hand)  # the record up to the violation
            raise
        except Exception as exc:  # an engine error is a violation too
            if on_hand is not None:
                on_hand(hand)
            raise SimulationViolation(
                seed, hand.hand_no, hand.seed, len(hand.actions), f"{type(exc).__name__}: {exc}"
            ) from exc
        summary = game.finish_hand()
        if on_hand is not None:
            on_hand(hand)
        if check and sum(game.scores) + sum(game.spectator_scores.values()) != 0:
            raise SimulationViolation(
                seed, hand.hand_no, hand.seed, len(hand.actions), "running scores not zero-sum"
            )
        report.hands += 1
        report.actions += len(hand.actions)
        settlement = hand.settlement
        assert settlement is not None
        if not settlement.wins:
            report.draws += 1
        if len(settlement.wins) > 1:
            report.multi_winner_hands += 1
        for w in settlement.wins:
            report.wins_by_pattern[f"{w.pattern_zh} {w.pattern_en}"] += 1
            report.seat_wins[w.seat] += 1
        for win in hand.wins:
            report.win_methods[win.how.value] += 1
        for s in range(4):
            report.seat_net[s] += summary.net[s]
        report.total_paid += sum(v for v in settlement.net.values() if v > 0)
    return report
