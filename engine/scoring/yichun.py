"""Yichun (宜春) settlement — ``rules/yichun.md`` §4–10.

``pay(w, p) = V × D(p) × B(w) × B(p) × 2^L``; kong points (明杠 / 补杠 1, 暗杠 2 from each other
seat) whenever somebody wins; 压鸽子 spectators mirror their player's transfers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from engine.hands import readings
from engine.melds import MeldType
from engine.scoring.common import (
    Candidate,
    Ledger,
    SituationError,
    StakeRules,
    check_chis,
    check_from,
    check_kong_replacement,
    check_kongs,
    check_seat,
    check_several_wins,
    full_concealed,
    in_play_order,
    is_chow,
    item,
    kong_points,
    not_a_win,
    seat_letter,
    suit_profile,
    win_field,
)
from engine.scoring.patterns import YICHUN as T
from engine.scoring.shapes import YICHUN_SHAPES as SHAPES
from engine.situation import (
    Item,
    ReasonPart,
    Settlement,
    Situation,
    Transfer,
    Win,
    WinMethod,
    WinScore,
    reason,
    words,
)
from engine.wall import count_seat

# 压鸽子: at most 4 spectators stake, and only with 2 seated players allowing them (§7.7).
STAKES: Final[StakeRules] = StakeRules(max_stakers=4, min_allowing_seats=2)


_DISCARD_LIKE = (WinMethod.DISCARD, WinMethod.ROB_KONG, WinMethod.EARTHLY)
_ALLOWED = (
    WinMethod.SELF_DRAW, WinMethod.DISCARD, WinMethod.ROB_KONG, WinMethod.KONG_REPLACEMENT,
    WinMethod.HEAVENLY, WinMethod.EARTHLY,
)


def _candidates(win: Win, index: int) -> list[Candidate]:
    concealed = full_concealed(win, index)
    rs = readings(SHAPES, concealed, win.melds)
    if not rs:
        raise not_a_win(win, index, "Yichun")
    tiles = concealed + [k for m in win.melds for k in m.tiles]
    one_suit, _half, all_honours = suit_profile(tiles)
    out: list[Candidate] = []
    for r in rs:
        if r.shape == "standard":
            if all_honours:
                out.append(Candidate.of(T["字一色（成阕）"], True))
            elif r.pungs:
                if one_suit:
                    out.append(Candidate.of(T["清一色大七"], True))
                out.append(Candidate.of(T["大七对"], True))
            if one_suit:
                out.append(Candidate.of(T["清一色"], True))
            out.append(Candidate.of(T["平糊"], True))
        elif r.shape == "seven_pairs":
            n = r.quads
            if one_suit:
                zh = "清一色豪华小七" if n else "清一色小七"
                en = f"Pure luxury seven pairs (N={n})" if n else T["清一色小七"].en
                out.append(Candidate(zh, en, T["清一色小七"].value * 2**n))
            if n:
                lux = T["豪华小七对"]
                out.append(Candidate(lux.zh, f"{lux.en} (N={n})", lux.value * 2**n))
            out.append(Candidate.of(T["小七对"]))
        elif r.shape == "knitted":
            if r.seven_star:
                out.append(Candidate.of(T["七星十三烂"]))
            out.append(Candidate.of(T["十三烂"]))
        elif r.shape == "zi_free":
            out.append(Candidate.of(T["字一色（不成阕）"]))
    return out


def _times(v: int, items: list[Item], zh: str, *tiles: int) -> int:
    """``v`` times the modifier ``zh``, which joins ``items``."""
    row = T[zh]
    items.append(item(row.zh, row.en, f"×{row.value}", tiles))
    return v * row.value


def _value(win: Win, index: int) -> tuple[int, str, str, list[Item]]:
    """V, pattern names and items of one win (``yichun.md`` §4–6)."""
    if win.how is WinMethod.KONG_REPLACEMENT:
        check_kong_replacement(win, index)
    cands = _candidates(win, index)
    claims = any(m.type is not MeldType.AGANG for m in win.melds)
    has_agang = any(m.type is MeldType.AGANG for m in win.melds)
    tile = win.tile
    assert tile is not None
    tiles = sorted([*win.hand, tile, *[k for m in win.melds for k in m.tiles]])
    best: tuple[int, str, str, list[Item]] | None = None
    for c in cands:
        items = [item(c.zh, c.en, f"P={c.p}", tiles)]
        v = c.p
        if not claims and win.how.is_self_drawn:
            v = _times(v, items, "门清")
        if c.modified and len(win.melds) == 4 and len(win.hand) == 1 and not has_agang:
            v = _times(v, items, "单钓", tile)
        if win.how is WinMethod.KONG_REPLACEMENT:
            v = _times(v, items, "杠开", tile)
        if win.how is WinMethod.ROB_KONG:
            v = _times(v, items, "抢杠", tile)
        if best is None or v > best[0]:
            best = (v, c.zh, c.en, items)
    assert best is not None
    if win.how in (WinMethod.HEAVENLY, WinMethod.EARTHLY):
        row = T["天糊" if win.how is WinMethod.HEAVENLY else "地糊"]
        if best[0] <= row.value:
            return row.value, row.zh, row.en, [item(row.zh, row.en, f"{row.value} flat", tiles)]
        items = [item(row.zh, row.en, f"ordinary value {best[0]} > {row.value}"), *best[3]]
        return best[0], row.zh, row.en, items
    return best


def _is_set(tiles: Sequence[int]) -> bool:
    """A chi meld is a Yichun set: a chow, three different winds or 中發白 (``yichun.md`` §3)."""
    a, b, c = tiles  # sorted kinds
    if a < 27:
        return is_chow(tiles)
    return len({a, b, c}) == 3 and (c <= 30 or a >= 31)


def _check_win(situation: Situation, win: Win, index: int) -> None:
    check_chis(win, index, _is_set, "is not a set (a chow, three different winds or 中發白)")
    if win.how not in _ALLOWED:
        raise SituationError(win_field(index, "how"), f"Yichun has no {win.how.value} win")
    check_from(win, index, win.how in _DISCARD_LIKE)
    if win.how is WinMethod.HEAVENLY:
        if win.seat != situation.dealer:
            raise SituationError(win_field(index, "how"), "天糊 is the dealer's dealt hand")
        if win.melds:
            raise SituationError(win_field(index, "melds"), "天糊 is declared before any meld")
    if win.how is WinMethod.EARTHLY:
        if win.seat == situation.dealer or win.from_seat != situation.dealer:
            raise SituationError(
                win_field(index, "from"), "地糊 is a non-dealer's win on the dealer's first discard"
            )
        if win.melds:
            raise SituationError(win_field(index, "melds"), "地糊 comes before any meld")


def buyers(situation: Situation) -> set[int]:
    """The buyers of the hand: ``buyers`` if given, else the dealer and count(dealer, dice),
    else the dealer alone (``yichun.md`` §7.3, rules/README.md)."""
    if situation.buyers is not None:
        for s in situation.buyers:
            check_seat("buyers", s)
        return set(situation.buyers)
    if situation.dice is not None:
        if not 2 <= situation.dice <= 12:
            raise SituationError("dice", f"two dice sum to 2–12, got {situation.dice}")
        return {situation.dealer, count_seat(situation.dealer, situation.dice)}
    return {situation.dealer}


def _check_spectators(situation: Situation, allowed_stakes: bool) -> None:
    specs = situation.spectators
    if not specs:
        return
    if not allowed_stakes:
        raise SituationError("spectators", "the table option spectator_stakes is off")
    if len(specs) > STAKES.max_stakers:
        raise SituationError(
            "spectators", f"at most {STAKES.max_stakers} spectators, got {len(specs)}"
        )
    allow = set(situation.allow_spectators)
    for s in allow:
        check_seat("allow_spectators", s)
    if not STAKES.enabled(len(allow)):
        raise SituationError(
            "allow_spectators",
            f"spectator stakes need at least {STAKES.min_allowing_seats} seated players who "
            "allow them",
        )
    names = [s.name for s in specs]
    if len(set(names)) != len(names):
        raise SituationError("spectators", "two spectators have the same name")
    for i, sp in enumerate(specs):
        if sp.name in ("E", "S", "W", "N") or not sp.name:
            raise SituationError(f"spectators[{i}].name", f"{sp.name!r} cannot name a spectator")
        check_seat(f"spectators[{i}].backs", sp.backs)
        if sp.backs not in allow:
            raise SituationError(
                f"spectators[{i}].backs",
                f"{seat_letter(sp.backs)} does not allow spectators",
            )


def score(situation: Situation, options: Mapping[str, Any]) -> Settlement:
    """Settle ``situation`` with the table ``options`` checked by the ruleset
    (:meth:`engine.rulesets.Ruleset.settle`)."""
    check_seat("dealer", situation.dealer)
    check_several_wins(situation, _DISCARD_LIKE)
    buying = buyers(situation)
    lighters = situation.lighters
    if lighters < 0:
        raise SituationError("lighters", f"cannot be negative, got {lighters}")
    max_l = options["max_lighters"]
    if max_l is not None and lighters > max_l:
        raise SituationError("lighters", f"{lighters} thrown but the table allows {max_l}")
    _check_spectators(situation, bool(options["spectator_stakes"]))
    for i, w in enumerate(situation.wins):
        _check_win(situation, w, i)
    kongs = check_kongs(situation)

    ledger = Ledger(int(options["base_point"]))
    scores: list[WinScore] = []
    for i, w in in_play_order(situation.wins):
        v, zh, en, items = _value(w, i)
        scores.append(WinScore(w.seat, zh, en, tuple(items), v))
        if w.how in _DISCARD_LIKE:
            assert w.from_seat is not None
            payers = [w.from_seat]
        else:
            payers = [p for p in range(4) if p != w.seat]
        for p in payers:
            amount = v
            why: list[str | ReasonPart] = [words(zh, en), f" V={v}"]
            if w.how in _DISCARD_LIKE and p == w.from_seat and options["discarder_pays_double"]:
                amount *= 2
                why += [" ×2 ", words("放冲", "discarder") if w.how is not WinMethod.ROB_KONG
                        else words("被抢杠", "robbed konger")]
            for buyer in (w.seat, p):
                if buyer in buying:
                    amount *= 2
                    letter = seat_letter(buyer)
                    why += [" ×2 ", ReasonPart(f"买 {letter} bought", f"买 {letter}")]
            if w.seat in buying and p in buying:
                why.append(" (对火 ×4)")
            if lighters:
                amount *= 2**lighters
                why += [f" ×{2**lighters} ", words("丢打火机", "lighters")]
            ledger.pay(p, w.seat, amount, *why)
    if situation.wins:  # kong points (yichun.md §8)
        for seat in range(4):
            for m in kongs[seat]:
                zh = "暗杠" if m.type is MeldType.AGANG else "明杠"
                ledger.pay_each(seat, kong_points(m), words("杠分", "kong points"), f" {zh} ", m)
    # 压鸽子: mirror every primary transfer for the spectators (yichun.md §7.7)
    primary: list[Transfer] = list(ledger.transfers)
    for t in primary:
        for sp in situation.spectators:
            backs = seat_letter(sp.backs)
            mirror = reason(ReasonPart(f"压鸽子 {sp.name} backs {backs}: ",
                                       f"压鸽子 {sp.name} 押 {backs}："), *t.reason)
            if sp.backs == t.payee:
                ledger.transfers.append(Transfer(t.payer, sp.name, t.amount, mirror))
            if sp.backs == t.payer:
                ledger.transfers.append(Transfer(sp.name, t.payee, t.amount, mirror))
    if not situation.wins:
        if situation.last_drawer is not None:
            check_seat("last_drawer", situation.last_drawer)
        next_dealer = situation.last_drawer
    elif len(situation.wins) == 1:
        next_dealer = situation.wins[0].seat
    else:
        next_dealer = situation.wins[0].from_seat
    return ledger.settle(scores, next_dealer, [sp.name for sp in situation.spectators])
