"""A finished game's ID (``ssh host replay ID``): eight characters of an alphabet without
look-alikes, made at the game's end with :mod:`secrets` (it is not game randomness: the table's
seeded RNG is untouched), so that nobody can derive it from the table's name and game number;
friends read it aloud, strangers cannot list games by guessing (31**8, about 8.5e11, IDs).

Shown as ``k7m2-x9qd``; typed in any case, with or without the hyphen or spaces."""

from __future__ import annotations

import secrets

ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"  # no 0 o 1 i l: nothing to misread
LENGTH = 8
_TYPED_MAX = 32  # characters of typed text looked at, at most (a longer one is not an ID)


def new_game_id() -> str:
    """A fresh ID, canonical form (eight lower-case characters)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))


def parse_game_id(text: str) -> str | None:
    """The canonical ID a player typed (``K7M2-X9QD``, ``k7m2 x9qd``), or None when it is not
    one (wrong length, a character outside the alphabet)."""
    if len(text) > _TYPED_MAX:
        return None
    cleaned = "".join(c for c in text.lower() if c not in "- ")
    if len(cleaned) != LENGTH or any(c not in ALPHABET for c in cleaned):
        return None
    return cleaned


def shown_game_id(game_id: str) -> str:
    """The ID as screens show it: two groups of four (``k7m2-x9qd``)."""
    half = len(game_id) // 2
    return f"{game_id[:half]}-{game_id[half:]}" if len(game_id) == LENGTH else game_id
