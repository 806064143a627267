"""Computer players. Each sees exactly one seat's :class:`~engine.view.View` — the same view a
human gets — and answers with one of its legal actions.

Levels: ``easy`` (:class:`BasicPlayer`), ``normal`` (:class:`NormalPlayer`: shortest way to a
win), ``hard`` (:class:`HardPlayer`: also the value of the hands within reach, and defence) and
``expert`` (:class:`ExpertPlayer`: ``hard``'s candidates decided by search over sampled hidden
tiles).
"""

from __future__ import annotations

from typing import Final, Protocol

from engine.actions import Action
from engine.bots.basic import BasicPlayer
from engine.bots.expert import ExpertPlayer
from engine.bots.hard import HardPlayer
from engine.bots.normal import NormalPlayer
from engine.view import View

LEVELS: Final = ("easy", "normal", "hard", "expert")


class Player(Protocol):
    def choose(self, view: View) -> Action: ...


def make_player(level: str) -> Player:
    """A computer player of ``level``: ``"easy"``, ``"normal"``, ``"hard"`` or ``"expert"``."""
    if level == "easy":
        return BasicPlayer()
    if level == "normal":
        return NormalPlayer()
    if level == "hard":
        return HardPlayer()
    if level == "expert":
        return ExpertPlayer()
    raise ValueError(f"unknown computer level {level!r} (one of: {', '.join(LEVELS)})")


__all__ = [
    "LEVELS", "BasicPlayer", "ExpertPlayer", "HardPlayer", "NormalPlayer", "Player", "make_player",
]
