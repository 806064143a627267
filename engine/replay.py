"""A finished game's record, step by step: the table of any hand rebuilt as it stood after
any number of its actions, for the replay viewer (``tui/apps/replay.py``).

:func:`read_game` reads a JSON-lines record (``docs/game-record.md``), re-runs every hand
and checks it against its recorded result; :class:`HandSteps` then gives the hand after its
first ``k`` actions (a record replays deterministically: the hand's seed makes the wall).
Only finished hands are accepted: the viewer shows every concealed tile, which is only
right once the hand is over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.actions import Action
from engine.record import RecordError, hand_from_header, parse_lines, replay_lines
from engine.table import Hand

MAX_HANDS = 1000  # hands of one record the viewer takes (a game has at most a few dozen)


@dataclass
class HandSteps:
    """One finished hand of a record: its header, its actions, and the hand rebuilt after
    ``k`` of them (:meth:`at`), kept so that stepping forward applies one action."""

    header: dict[str, Any]
    actions: tuple[tuple[int, Action], ...]
    nets: tuple[int, int, int, int] = (0, 0, 0, 0)  # each seat's net of the hand, E S W N
    _hand: Hand | None = field(default=None, repr=False)
    _done: int = field(default=0, repr=False)

    @property
    def moves(self) -> int:
        return len(self.actions)

    @property
    def hand_no(self) -> int:
        return int(self.header.get("hand_no", 1))

    def at(self, k: int) -> Hand:
        """The hand after its first ``k`` actions (clamped to 0..:attr:`moves`)."""
        k = max(0, min(k, self.moves))
        if self._hand is None or k < self._done:
            self._hand, self._done = hand_from_header(self.header), 0
        hand = self._hand
        while self._done < k:
            seat, action = self.actions[self._done]
            hand.apply(seat, action)
            self._done += 1
        return hand


@dataclass(frozen=True)
class GameSteps:
    """A game's record ready for the viewer: its hands in order, and its ``game`` line."""

    hands: tuple[HandSteps, ...]
    game: dict[str, Any]
    problems: tuple[str, ...] = ()  # hands whose replay differs from their recorded result


def read_game(text: str) -> GameSteps:
    """The record in ``text``, every hand re-run and checked; :class:`RecordError` (with
    the line that is wrong) for a record that cannot be read, has no hand, or holds a hand
    that is not finished."""
    lines = list(parse_lines(text))
    game: dict[str, Any] = {}
    for obj in lines:
        if obj.get("type") == "game":
            game = {k: v for k, v in obj.items() if k != "_line"}
            break
    if sum(1 for obj in lines if obj.get("type") == "hand") > MAX_HANDS:
        raise RecordError(f"more than {MAX_HANDS} hands: too long to view")
    replayed = replay_lines(lines)
    if not replayed:
        raise RecordError("it holds no hand")
    hands = []
    problems = []
    for r in replayed:
        if not r.hand.is_over:
            raise RecordError(f"hand {r.hand.hand_no} is not finished: only finished hands "
                              f"can be viewed")
        if not r.matches:
            problems.append(f"hand {r.hand.hand_no}: the replay differs from the recorded "
                            f"result")
        settled = r.hand.settlement
        nets = tuple(settled.seats) if settled is not None else (0, 0, 0, 0)
        hands.append(HandSteps(r.hand.header(), tuple(r.hand.actions),
                               (nets[0], nets[1], nets[2], nets[3])))
    return GameSteps(tuple(hands), game, tuple(problems))
