"""压鸽子 at a shared table: which spectator backs which seat, for the next hand and for each
hand of the game (the limits are the ruleset's :class:`~engine.rulesets.StakeRules`), each
stake as the store keeps it (:class:`~net.store.model.SavedStake`, a hand's
:class:`~net.store.model.SavedHandStakes`)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.game import Game
from engine.rulesets import StakeRules
from engine.situation import Spectator
from host.refusal import Refusal
from net.store.model import SavedHandStakes, SavedStake

SEAT_NAMES = ("E", "S", "W", "N")


def spectators(stakes: SavedHandStakes) -> tuple[Spectator, ...]:
    """The engine's spectators of a hand's stakes."""
    return tuple(Spectator(s.name, s.backs) for s in stakes.stakes)


def spectator_name(nickname: str) -> str:
    """The engine names a spectator by a string that is not a seat letter."""
    return f"{nickname}*" if nickname in SEAT_NAMES else nickname


class StakeBook:
    """A table's stakes: those ``placed`` for the next hand (by account id) and those each
    hand of this game ``fixed`` (by hand number). ``rules`` is None where the table takes no
    stakes."""

    def __init__(self, rules: StakeRules | None) -> None:
        self.rules = rules
        self.placed: dict[int, SavedStake] = {}
        self.fixed: dict[int, SavedHandStakes] = {}

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
        self.placed[account_id] = SavedStake(account_id, spectator_name(nickname), backs)
        return None, True

    def for_hand(self, allow: tuple[int, ...]) -> SavedHandStakes:
        """What the next hand's break roll fixes: the stakes on seats that allow them, when
        enough seats allow them; else none."""
        rules = self.rules
        if rules is None or not rules.enabled(len(allow)):
            return SavedHandStakes((), allow)
        chosen = tuple(s for s in self.placed.values() if s.backs in allow)[:rules.max_stakers]
        return SavedHandStakes(chosen, allow)

    def fix(self, game: Game, hand_no: int, stakes: SavedHandStakes) -> None:
        """``stakes`` are those of hand ``hand_no``, about to be dealt in ``game``."""
        self.fixed[hand_no] = stakes
        game.spectators = spectators(stakes)
        game.allow_spectators = stakes.allow

    def of_hand(self, hand_no: int) -> SavedHandStakes:
        """The stakes hand ``hand_no`` was dealt with (none before the first, hand 0)."""
        return self.fixed.get(hand_no, SavedHandStakes())

    def results(self, game: Game) -> list[tuple[int, int, int]]:
        """(account_id, score, hands staked) of every spectator who staked in ``game``'s
        finished hands."""
        accounts: dict[str, int] = {}
        hands: dict[str, int] = {}
        for hand_no, hs in self.fixed.items():
            if hand_no > len(game.history):
                continue
            for st in hs.stakes:
                accounts[st.name] = st.account
                hands[st.name] = hands.get(st.name, 0) + 1
        return [(accounts[n], game.spectator_scores.get(n, 0), hands[n]) for n in accounts]
