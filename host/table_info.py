"""What a shared table tells the sessions at it besides the views: who sits where, its
options and state, the spectators' stakes (:class:`TableInfo`), and chat (:class:`ChatLine`).

The server's tables make them (``net.runtime.registry``); the waiting room, the lobby and the stake
screen show them. They are plain values so that ``tui`` shows a table without knowing how it
is served.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from engine.rulesets import RULESETS
from words import computer_name

# The name a shared table gives a seat its computer plays (and its records keep); each screen
# shows it in its own language, with the seat's level (:func:`computer_names`)
COMPUTER_NAME = "bot 电脑"


def computer_names(names: tuple[str, ...], lang: str,
                   levels: tuple[str, ...] | None) -> tuple[str, str, str, str]:
    """``names`` with each :data:`COMPUTER_NAME` in ``lang`` and the docs' words, its seat's
    level where ``levels`` (the table's :attr:`TableInfo.bot_levels`) say it: ``normal
    (computer)`` / ``普通电脑``."""
    out = [computer_name(lang, levels[i] if levels and i < len(levels) else None)
           if n == COMPUTER_NAME else n for i, n in enumerate(names)]
    return (out[0], out[1], out[2], out[3])


class TableState(Enum):
    WAITING = "waiting"  # seats being taken; no game yet
    PLAYING = "playing"
    BETWEEN = "between hands"
    OVER = "game over"


@dataclass(frozen=True)
class SeatInfo:
    name: str  # "" when empty
    human: bool
    connected: bool
    idle: bool = False  # connected, but its turn timer ran out repeatedly (away)
    bot: bool = False  # a program plays the seat over the bot protocol (``bot join``)
    program: str = ""  # that program's name and version, as its handshake said (cleaned)


@dataclass(frozen=True)
class TableInfo:
    """What the lobby and the waiting screen show about a table."""

    name: str
    rules: str
    options: tuple[tuple[str, Any], ...]
    seats: tuple[SeatInfo, SeatInfo, SeatInfo, SeatInfo]
    spectators: int
    state: TableState
    hand_no: int
    hands_per_game: int
    allow: tuple[bool, bool, bool, bool] = (True, True, True, True)  # 压鸽子 per seat
    stakes_possible: bool = False  # Yichun with the spectator_stakes option on
    stakes: tuple[tuple[str, int], ...] = ()  # chosen (name, seat): from the next hand
    hand_stakes: tuple[tuple[str, int], ...] = ()  # fixed for the hand in play
    bot_levels: tuple[str, str, str, str] = ("normal", "normal", "normal", "normal")
    # a private table (私): only its host and the players it invites may sit; strangers may
    # watch only if ``watchers``. ``invited``: its invitations (:func:`invites`): key
    # fingerprints (``SHA256:…``), nicknames bound to their accounts (``carol 17``; ``carol
    # 0`` when nobody kept the name). Screens show them to the host only
    # (tui.apps.room.private_lines)
    private: bool = False
    host: str = ""  # the nickname of the account that created it
    host_id: int | None = None
    invited: tuple[str, ...] = ()
    watchers: bool = True
    # the tournament whose round this table plays (net.runtime.tournaments): its entrants sit
    # where the round seats them, and its one game is the table's last ("": none)
    tournament: str = ""

    def admits(self, account_id: int, nickname: str, fingerprint: str | None,
               guest: bool = False) -> bool:
        """Whether this account may sit here: anyone at a public table; at a private one
        its host, an invited player (:func:`invites`), or one who already sits."""
        if not self.private or account_id == self.host_id:
            return True
        return (any(s.name == nickname for s in self.seats if s.human)
                or invites(self.invited, account_id, nickname, fingerprint, guest))

    @property
    def invited_names(self) -> tuple[str, ...]:
        """The invitations as they were made: nicknames and key fingerprints."""
        return tuple(invite_parts(e)[0] for e in self.invited)

    @property
    def absent_invited(self) -> tuple[str, ...]:
        """The invited players who do not sit here (yet), as :func:`invite_shown` names
        them."""
        seated = {s.name for s in self.seats if s.human}
        return tuple(invite_shown(e) for e in self.invited
                     if invite_parts(e)[0] not in seated and invite_parts(e)[0] != self.host)

    @property
    def held(self) -> int:
        """Empty seats held for invited players who have not come yet."""
        return min(len(self.absent_invited), sum(1 for s in self.seats if not s.name))

    @property
    def stakes_enabled(self) -> bool:
        """yichun.md §7.7: enough seated players (two) allow spectators."""
        rules = RULESETS[self.rules].stake_rules
        return self.stakes_possible and rules is not None and rules.enabled(sum(self.allow))


FINGERPRINT_PREFIX = "SHA256:"


def invite_parts(entry: str) -> tuple[str, int | None]:
    """An invitation's nickname or fingerprint, and the account it is bound to (None: not
    bound yet). A nickname has no space, so ``carol 17`` is carol bound to account 17."""
    name, _, bound = entry.partition(" ")
    return name, int(bound) if bound.isdigit() else None


def bound_invite(name: str, account_id: int) -> str:
    return f"{name} {account_id}"


NOBODY = 0  # an invitation bound to no account: nobody kept its nickname when it was made


def invites(entries: tuple[str, ...], account_id: int, nickname: str, fingerprint: str | None,
            guest: bool = False) -> bool:
    """Whether one of a private table's invitations names this account: a key's
    fingerprint that key; a nickname the account it was bound to when the invitation was
    made (the key's or passphrase's account that kept the name then) and no other. A
    nickname nobody kept then (bound to :data:`NOBODY`), or one not bound yet (a database
    server still answering), admits nobody: whoever took the name later could be anyone."""
    for entry in entries:
        name, bound = invite_parts(entry)
        if bound is not None:
            if bound == account_id and bound != NOBODY and not guest:
                return True
        elif name.startswith(FINGERPRINT_PREFIX) and name == fingerprint:
            return True
    return False


def invite_shown(entry: str) -> str:
    """An invitation as a screen shows it: a nickname, or a key's fingerprint cut short."""
    name, _ = invite_parts(entry)
    if name.startswith(FINGERPRINT_PREFIX):
        return name[:len(FINGERPRINT_PREFIX) + 8] + "..."
    return name


@dataclass(frozen=True)
class ChatLine:
    who: str
    text: str


InfoCallback = Callable[[TableInfo | ChatLine], None]
