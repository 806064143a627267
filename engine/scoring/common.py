"""Shared pieces of the three scorers: the error type, validation helpers, the transfer ledger,
spectator stakes' limits."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from engine.melds import Meld, MeldType
from engine.scoring.patterns import Pattern
from engine.situation import (
    SEAT_LETTERS,
    Item,
    ReasonPart,
    Settlement,
    Situation,
    Transfer,
    Win,
    WinMethod,
    WinScore,
    reason,
)
from engine.tiles import NUM_KINDS, Kind, format_tiles


class SituationError(ValueError):
    """A situation that cannot be settled; ``field`` names the offending input field."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class NotAWinError(SituationError):
    """A declared win whose tiles do not form a winning hand of the ruleset."""


@dataclass(frozen=True)
class StakeRules:
    """Spectator stakes (Yichun 压鸽子, ``yichun.md`` §7.7): how many spectators may stake at
    a table, and how many seated players must allow them before any stake counts. The scorer
    checks a settlement's stakes by them; the ruleset offers them to the table
    (``Ruleset.stake_rules``)."""

    max_stakers: int
    min_allowing_seats: int

    def enabled(self, allowing_seats: int) -> bool:
        """Whether stakes count with ``allowing_seats`` seated players allowing them."""
        return allowing_seats >= self.min_allowing_seats


@dataclass(frozen=True)
class Candidate:
    """A pattern one win may score (the scorer keeps the best), and whether the ruleset's
    pattern-bound modifier applies to it (Yichun 单钓, Shangrao 九幺名目)."""

    zh: str
    en: str
    p: int
    modified: bool = False

    @classmethod
    def of(cls, row: Pattern, modified: bool = False) -> Candidate:
        return cls(row.zh, row.en, row.value, modified)


def seat_letter(seat: int | str) -> str:
    return SEAT_LETTERS[seat] if isinstance(seat, int) else seat


def check_seat(name: str, seat: int) -> None:
    if not 0 <= seat <= 3:
        raise SituationError(name, f"not a seat: {seat!r}")


def check_chis(win: Win, index: int, is_set: Callable[[Sequence[Kind]], bool],
               not_a_set: str) -> None:
    """The winner's seat, and each chi meld a set of the ruleset (``not_a_set`` says what
    the meld is not)."""
    check_seat(win_field(index, "seat"), win.seat)
    for j, m in enumerate(win.melds):
        if m.type is MeldType.CHI and not is_set(m.tiles):
            raise SituationError(win_field(index, f"melds[{j}]"), f"{m} {not_a_set}")


def win_field(index: int, name: str = "") -> str:
    return f"wins[{index}]" + (f".{name}" if name else "")


def full_concealed(win: Win, index: int) -> list[Kind]:
    """The winner's concealed tiles including the winning tile; checks the tile count."""
    if win.tile is None:
        raise SituationError(win_field(index, "tile"), "the winning tile is missing")
    need = 3 * (4 - len(win.melds)) + 1
    if len(win.melds) > 4:
        raise SituationError(win_field(index, "melds"), f"at most 4 melds, got {len(win.melds)}")
    if len(win.hand) != need:
        raise SituationError(
            win_field(index, "hand"),
            f"with {len(win.melds)} melds the hand before the winning tile holds {need} tiles, "
            f"got {len(win.hand)} ({format_tiles(win.hand)})",
        )
    tiles = [*win.hand, win.tile]
    counts = [0] * NUM_KINDS
    for k in tiles:
        counts[k] += 1
    for m in win.melds:
        for k in m.tiles:
            counts[k] += 1
    for k, c in enumerate(counts):
        if c > 4:
            raise SituationError(
                win_field(index), f"{c} copies of {format_tiles([k])} (a tile has 4 copies)"
            )
    return tiles


def all_tiles(win: Win) -> list[Kind]:
    out = list(win.hand)
    if win.tile is not None:
        out.append(win.tile)
    for m in win.melds:
        out.extend(m.tiles)
    return sorted(out)


def check_kongs(situation: Situation) -> dict[int, list[Meld]]:
    """Every completed kong by seat: the winners' kong melds plus ``kongs`` of the others,
    less a robbed 补杠, which is not completed and earns nothing (common.md §12)."""
    winners = {w.seat for w in situation.wins}
    out: dict[int, list[Meld]] = {s: [] for s in range(4)}
    for w in situation.wins:
        out[w.seat].extend(m for m in w.melds if m.is_kong)
    for seat, melds in situation.kongs.items():
        check_seat("kongs", seat)
        if seat in winners:
            raise SituationError(
                f"kongs.{seat_letter(seat)}",
                "a winner's kongs belong in that win's melds, not in kongs",
            )
        for m in melds:
            if not m.is_kong:
                raise SituationError(
                    f"kongs.{seat_letter(seat)}", f"{m} is not a kong (mgang, bgang or agang)"
                )
        out[seat].extend(melds)
    robbed = situation.wins[0] if situation.wins else None  # several robbers rob one tile
    if robbed is not None and robbed.how is WinMethod.ROB_KONG and robbed.from_seat is not None:
        out[robbed.from_seat] = [m for m in out[robbed.from_seat]
                                 if not (m.type is MeldType.BGANG and m.kind == robbed.tile)]
    return out


def kong_points(meld: Meld) -> int:
    """明杠 / 补杠 1, 暗杠 2 (Yichun kong points, Shangrao 碰杠 / 自摸杠 bonus)."""
    return 2 if meld.type is MeldType.AGANG else 1


def is_chow(tiles: Sequence[Kind]) -> bool:
    """Three consecutive ranks of one suit (sorted kinds): the chi meld of every ruleset
    (Yichun also chis wind and dragon sets, ``yichun.md`` §3)."""
    a, b, c = tiles[:3]
    return c < 27 and a // 9 == c // 9 and b == a + 1 and c == b + 1


def in_play_order(wins: Sequence[Win]) -> list[tuple[int, Win]]:
    """(index in the input, win) in the order a settlement takes them: several winners on one
    discard or robbed kong in play order after the discarder / konger (yichun.md §10); the
    index stays the input's, for messages that name a field."""
    def after_source(pair: tuple[int, Win]) -> int:
        w = pair[1]
        return (w.seat - w.from_seat) % 4 if w.from_seat is not None else 0

    return sorted(enumerate(wins), key=after_source)


def check_several_wins(situation: Situation, allowed: Iterable[WinMethod]) -> None:
    """Several entries in ``wins`` only for one discard / one robbed kong (all same ``from``)."""
    wins = situation.wins
    seats = [w.seat for w in wins]
    if len(set(seats)) != len(seats):
        raise SituationError("wins", "a seat appears twice")
    if len(wins) <= 1:
        return
    allowed_set = set(allowed)
    for i, w in enumerate(wins):
        if w.how not in allowed_set:
            names = ", ".join(sorted(m.value for m in allowed_set))
            raise SituationError(
                win_field(i, "how"),
                f"several winners only on one discard or robbed kong ({names}), got {w.how.value}",
            )
        if w.from_seat != wins[0].from_seat or w.how is not wins[0].how:
            raise SituationError(
                win_field(i, "from"), "several winners must win on the same tile (same how, from)"
            )


def check_from(win: Win, index: int, needs_from: bool) -> None:
    if needs_from:
        if win.from_seat is None:
            raise SituationError(
                win_field(index, "from"), f"a {win.how.value} win needs the seat it came from"
            )
        check_seat(win_field(index, "from"), win.from_seat)
        if win.from_seat == win.seat:
            raise SituationError(win_field(index, "from"), "a player cannot win on his own tile")


def check_kong_replacement(win: Win, index: int) -> int:
    """k for 杠开: kongs declared consecutively (0 given = 1); checks a kong exists."""
    kongs = sum(1 for m in win.melds if m.is_kong)
    if kongs == 0:
        raise SituationError(
            win_field(index, "how"), "a kong_replacement win needs a kong among the melds"
        )
    k = max(1, win.kongs_in_turn)
    if k > kongs:
        raise SituationError(
            win_field(index, "kongs_in_turn"),
            f"{k} consecutive kongs but only {kongs} kong(s) among the melds",
        )
    return k


@dataclass
class Ledger:
    """Collects transfers (already multiplied by the base point) and computes the net."""

    base: int
    transfers: list[Transfer] = field(default_factory=list)

    def pay(self, payer: int | str, payee: int | str, amount: int,
            *why: str | Meld | ReasonPart) -> None:
        """Book a transfer; ``why`` is the reason's parts in reading order (:func:`reason`)."""
        if amount == 0 or payer == payee:
            return
        self.transfers.append(Transfer(payer, payee, amount * self.base, reason(*why)))

    def pay_each(self, payee: int, amount: int, *why: str | Meld | ReasonPart) -> None:
        """Every other seat pays ``payee`` ``amount``, in seat order."""
        for p in range(4):
            self.pay(p, payee, amount, *why)

    def net(
        self, extra_parties: Sequence[str] = ()
    ) -> tuple[tuple[int, int, int, int], dict[str, int]]:
        """The seats' net and the spectators' (every name in ``extra_parties``, in order)."""
        seats = [0, 0, 0, 0]
        spectators: dict[str, int] = {name: 0 for name in extra_parties}
        for t in self.transfers:
            for party, amount in ((t.payer, -t.amount), (t.payee, t.amount)):
                if isinstance(party, int):
                    seats[party] += amount
                else:
                    spectators[party] = spectators.get(party, 0) + amount
        assert sum(seats) + sum(spectators.values()) == 0
        return (seats[0], seats[1], seats[2], seats[3]), spectators

    def settle(
        self, wins: Sequence[WinScore], next_dealer: int | None, extra_parties: Sequence[str] = ()
    ) -> Settlement:
        seats, spectators = self.net(extra_parties)
        return Settlement(tuple(wins), tuple(self.transfers), seats, spectators, next_dealer)


def item(zh: str, en: str, value: str, tiles: Iterable[Kind] = ()) -> Item:
    return Item(zh, en, value, tuple(tiles))


def suit_profile(tiles: Sequence[Kind]) -> tuple[bool, bool, bool]:
    """(one suit only, no honours; suited tiles in one suit with >= 1 honour; all honours)."""
    suits = {k // 9 for k in tiles if k < 27}
    honours = any(k >= 27 for k in tiles)
    one_suit = len(suits) == 1 and not honours
    half = len(suits) == 1 and honours
    all_honours = not suits
    return one_suit, half, all_honours


def not_a_win(win: Win, index: int, ruleset: str) -> NotAWinError:
    """The error for a declared win whose tiles do not win, naming hand, tile and melds."""
    melds = " ".join(str(m) for m in win.melds)
    tile = format_tiles([win.tile]) if win.tile is not None else "?"
    text = f"{format_tiles(win.hand)} + {tile}" + (f" with {melds}" if melds else "")
    return NotAWinError(win_field(index), f"{text} does not win (no {ruleset} winning shape)")
