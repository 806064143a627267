"""Dice, the wall layout, breaking and the live tile sequence (``common.md`` §4–8).

Geometry (``common.md`` §6–7): seat i's wall holds π[34i … 34i+33] as 17 stacks numbered from
the owner's right end; stack j has upper tile π[34i + 2(j−1)] and lower π[34i + 2(j−1) + 1].
A break at owner o after n stacks gives the live stack sequence
``o: n+1…17, o−1: 1…17, o−2: 1…17, o−3: 1…17, o: 1…n`` and the tile sequence T with
T[2k] = upper of L[k], T[2k+1] = lower of L[k]. Head draws take T[0], T[1], …; tail draws take
T[134], T[135], T[132], T[133], … (upper before lower, [A-4]).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from engine.tiles import NUM_TILES, TileId

STACKS_PER_WALL = 17


def count_seat(start: int, n: int) -> int:
    """``count(from, n)``: the seat reached counting n players counter-clockwise, ``from`` = 1."""
    return (start + n - 1) % 4


@dataclass(frozen=True)
class Dice:
    a: int
    b: int

    @property
    def total(self) -> int:
        return self.a + self.b

    @classmethod
    def roll(cls, rng: random.Random) -> Dice:
        return cls(rng.randint(1, 6), rng.randint(1, 6))


def shuffle_tiles(rng: random.Random) -> list[TileId]:
    """A uniformly random permutation π of the 136 tile ids."""
    perm = list(range(NUM_TILES))
    rng.shuffle(perm)
    return perm


def stack_tiles(perm: list[TileId], owner: int, stack: int) -> tuple[TileId, TileId]:
    """(upper, lower) of stack ``stack`` (1–17) of ``owner``'s wall."""
    base = 34 * owner + 2 * (stack - 1)
    return perm[base], perm[base + 1]


def live_sequence(perm: list[TileId], owner: int, skip: int) -> list[TileId]:
    """The tile sequence T[0…135] for a break of ``owner``'s wall after ``skip`` stacks."""
    if not 1 <= skip <= STACKS_PER_WALL:
        raise ValueError(f"cannot skip {skip} stacks")
    stacks: list[tuple[int, int]] = [(owner, j) for j in range(skip + 1, STACKS_PER_WALL + 1)]
    for d in (1, 2, 3):
        stacks.extend(((owner - d) % 4, j) for j in range(1, STACKS_PER_WALL + 1))
    stacks.extend((owner, j) for j in range(1, skip + 1))
    seq: list[TileId] = []
    for o, j in stacks:
        seq.extend(stack_tiles(perm, o, j))
    return seq


def tail_position(n: int) -> int:
    """Index in T of the n-th tail draw (0-based): 134, 135, 132, 133, 130, …"""
    return 2 * (67 - n // 2) + n % 2


@dataclass
class Wall:
    """The live wall: a tile sequence consumed from the head and from the tail."""

    seq: list[TileId]
    head: int = 0  # tiles taken from the head
    tail: int = 0  # tiles taken from the tail
    taken: set[int] = field(default_factory=set)  # positions in seq already consumed
    hpos: int = 0  # next head position
    tpos: int = 0  # next tail draw number (see tail_position)

    @property
    def remaining(self) -> int:
        return NUM_TILES - self.head - self.tail

    def draw_head(self) -> TileId:
        if self.remaining <= 0:
            raise IndexError("the wall is empty")
        pos = self.hpos
        while pos in self.taken:  # only where head and tail meet
            pos += 1
        self.hpos = pos + 1
        self.head += 1
        self.taken.add(pos)
        return self.seq[pos]

    def draw_tail(self) -> TileId:
        if self.remaining <= 0:
            raise IndexError("the wall is empty")
        pos = tail_position(self.tpos)
        while pos in self.taken:  # only where head and tail meet
            self.tpos += 1
            pos = tail_position(self.tpos)
        self.tpos += 1
        self.tail += 1
        self.taken.add(pos)
        return self.seq[pos]

    def undrawn(self) -> list[TileId]:
        """The tiles still in the wall (any order)."""
        return [t for i, t in enumerate(self.seq) if i not in self.taken]
