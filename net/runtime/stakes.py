"""压鸽子 at a shared table: which spectator backs which seat, for the next hand and for each
hand of the game (the limits are the ruleset's :class:`~engine.rulesets.StakeRules`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.game import Game
from engine.rulesets import StakeRules
from engine.situation import Spectator
from host.refusal import Refusal
from net.store.model import SavedHandStakes, SavedStake

SEAT_NAMES = ("E", "S", "W", "N")


@dataclass(frozen=True)
class Stake:
    """压鸽子: a spectator (an account) backs a seated player."""

    account_id: int
    name: str
    backs: int

    def saved(self) -> SavedStake:
        return SavedStake(self.account_id, self.name, self.backs)

    @classmethod
    def from_saved(cls, saved: SavedStake) -> Stake:
        return cls(saved.account, saved.name, saved.backs)


@dataclass(frozen=True)
class HandStakes:
    """The stakes fixed for one hand before its break roll."""

    stakes: tuple[Stake, ...] = ()
    allow: tuple[int, ...] = (0, 1, 2, 3)

    def saved(self) -> SavedHandStakes:
        return SavedHandStakes(tuple(s.saved() for s in self.stakes), self.allow)

    @classmethod
    def from_saved(cls, saved: SavedHandStakes) -> HandStakes:
        return cls(tuple(Stake.from_saved(x) for x in saved.stakes), saved.allow)

    def spectators(self) -> tuple[Spectator, ...]:
        return tuple(Spectator(s.name, s.backs) for s in self.stakes)


def spectator_name(nickname: str) -> str:
    """The engine names a spectator by a string that is not a seat letter."""
    return f"{nickname}*" if nickname in SEAT_NAMES else nickname


class StakeBook:
    """A table's stakes: those ``placed`` for the next hand (by account id) and those each
    hand of this game ``fixed`` (by hand number). ``rules`` is None where the table takes no
    stakes."""

    def __init__(self, rules: StakeRules | None) -> None:
        self.rules = rules
        self.placed: dict[int, Stake] = {}
        self.fixed: dict[int, HandStakes] = {}

    @property
    def possible(self) -> bool:
        return self.rules is not None

    def enabled(self, allowing: int) -> bool:
        """Whether stakes count with ``allowing`` seats that allow spectators."""
        return self.rules is not None and self.rules.enabled(allowing)

    def place(self, account_id: int, nickname: str, backs: int | None, seated: bool,
              allows: Sequence[bool]) -> tuple[Refusal | None, bool]:
        """The spectator ``account_id`` backs seat ``backs`` from the next hand (None:
        withdraws). Returns (why not, or None; whether the book changed)."""
        rules = self.rules
        if rules is None:
            return Refusal("no_stakes"), False
        if seated:
            return Refusal("seated_stake"), False
        if backs is None:
            return None, self.placed.pop(account_id, None) is not None
        if not 0 <= backs < 4:
            return Refusal("no_seat"), False
        if not allows[backs]:
            return Refusal.of("stake_closed", seat=SEAT_NAMES[backs]), False
        if account_id not in self.placed and len(self.placed) >= rules.max_stakers:
            return Refusal.of("stake_full", n=rules.max_stakers), False
        self.placed[account_id] = Stake(account_id, spectator_name(nickname), backs)
        return None, True

    def for_hand(self, allow: tuple[int, ...]) -> HandStakes:
        """What the next hand's break roll fixes: the stakes on seats that allow them, when
        enough seats allow them; else none."""
        rules = self.rules
        if rules is None or not rules.enabled(len(allow)):
            return HandStakes((), allow)
        chosen = tuple(s for s in self.placed.values() if s.backs in allow)[:rules.max_stakers]
        return HandStakes(chosen, allow)

    def fix(self, game: Game, hand_no: int, stakes: HandStakes) -> None:
        """``stakes`` are those of hand ``hand_no``, about to be dealt in ``game``."""
        self.fixed[hand_no] = stakes
        game.spectators = stakes.spectators()
        game.allow_spectators = stakes.allow

    def of_hand(self, hand_no: int) -> HandStakes:
        return self.fixed.get(hand_no, HandStakes())

    def results(self, game: Game) -> list[tuple[int, int, int]]:
        """(account_id, score, hands staked) of every spectator who staked in ``game``'s
        finished hands."""
        accounts: dict[str, int] = {}
        hands: dict[str, int] = {}
        for hand_no, hs in self.fixed.items():
            if hand_no > len(game.history):
                continue
            for st in hs.stakes:
                accounts[st.name] = st.account_id
                hands[st.name] = hands.get(st.name, 0) + 1
        return [(accounts[n], game.spectator_scores.get(n, 0), hands[n]) for n in accounts]
