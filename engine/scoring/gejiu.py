"""Gejiu (个旧) settlement — ``rules/gejiu.md`` §4–9.

Hand fan ``H = A (suit) + B (shape) + C (一条龙) + D (method)``, maximised over interpretations;
every other seat pays ``2^F(p)`` with ``F(p) = H + 自摸 + 放炮者 + 当庄 (winner) + 当庄 (payer)``;
斗地主 side payments; 塘子烂糊 scored from the pond as a self-draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.hands import lanpai_family, readings, standard_ok
from engine.melds import Meld, MeldType
from engine.scoring.common import (
    Ledger,
    NotAWinError,
    SituationError,
    check_chis,
    check_from,
    check_kong_replacement,
    check_kongs,
    check_seat,
    check_several_wins,
    full_concealed,
    is_chow,
    item,
    not_a_win,
    seat_letter,
    suit_profile,
    win_field,
)
from engine.scoring.patterns import GEJIU as T
from engine.scoring.patterns import Pattern
from engine.scoring.shapes import GEJIU_SHAPES as SHAPES
from engine.situation import (
    Item,
    ReasonPart,
    Settlement,
    Situation,
    Win,
    WinMethod,
    WinScore,
    words,
)
from engine.tiles import Kind, format_tiles, to_counts

_ALLOWED = (
    WinMethod.SELF_DRAW, WinMethod.DISCARD, WinMethod.ROB_KONG, WinMethod.KONG_REPLACEMENT,
    WinMethod.POND,
)


def has_dragon(concealed: Sequence[Kind], melds: Sequence[Meld]) -> bool:
    """一条龙: chows 123, 456, 789 of one suit (concealed or chi'd), standard hand [A-G11]."""
    for base in (0, 9, 18):
        counts = to_counts(concealed)
        ok = True
        for start in (base, base + 3, base + 6):
            if any(m.type is MeldType.CHI and m.tiles == (start, start + 1, start + 2)
                   for m in melds):
                continue  # a chi'd chow (a second identical chi could serve no other run)
            if all(counts[k] >= 1 for k in (start, start + 1, start + 2)):
                for k in (start, start + 1, start + 2):
                    counts[k] -= 1
            else:
                ok = False
                break
        if ok and standard_ok(counts, 0, SHAPES):
            return True
    return False


def _hand_fan(win: Win, index: int) -> tuple[int, str, str, list[Item]]:
    concealed = full_concealed(win, index)
    rs = readings(SHAPES, concealed, win.melds)
    if not rs:
        raise not_a_win(win, index, "Gejiu")
    tiles = sorted(concealed + [k for m in win.melds for k in m.tiles])
    one_suit, half, all_honours = suit_profile(tiles)
    suit = [T[zh] for zh, on in (("字一色", all_honours), ("青一色", one_suit), ("混一色", half))
            if on][:1]
    method: list[Pattern] = []
    if win.how is WinMethod.KONG_REPLACEMENT:
        check_kong_replacement(win, index)
        method = [T["杠上花"]]
    elif win.how is WinMethod.ROB_KONG:
        method = [T["抢杠花"]]
    best: tuple[int, str, str, list[Item]] | None = None
    for r in rs:
        if r.shape == "lanpai":
            parts = [T[r.family]]
        elif r.shape == "seven_pairs":
            parts = [*suit, T["小七对"]]
        elif r.pungs:
            parts = [*suit, T["大对子"]]
        elif has_dragon(concealed, win.melds):
            parts = [*suit, T["平胡"], T["一条龙"]]
        else:
            parts = [*suit, T["平胡"]]
        parts += method
        fan = sum(p.value for p in parts)
        if best is None or fan > best[0]:
            named = [p for p in parts if p.value] or parts  # 平胡 (0番) only names a bare hand
            zh = "".join(p.zh for p in named)
            en = " + ".join(p.en for p in named)
            items = [item(p.zh, p.en, f"{p.value}番", tiles) for p in parts]
            best = (fan, zh, en, items)
    assert best is not None
    return best


def _pond_fan(situation: Situation, win: Win, index: int) -> tuple[int, str, str, list[Item]]:
    pond = situation.pond
    if pond is None:
        raise SituationError("pond", "a pond win needs the 14 discards in pond")
    if len(pond) != 14:
        raise SituationError("pond", f"the pond holds 14 discards, got {len(pond)}")
    if any(m.type is not MeldType.AGANG for m in win.melds):
        raise SituationError(
            win_field(index, "melds"), "塘子烂糊 needs no chi, peng or 明杠 this hand"
        )
    counts = to_counts([*pond, *(k for m in win.melds for k in m.tiles)])
    for k, c in enumerate(counts):
        if c > 4:
            raise SituationError(
                "pond", f"{c} copies of {format_tiles([k])} with the 暗杠 melds (a tile has 4)"
            )
    fam = lanpai_family(pond)
    if fam is None:
        raise NotAWinError(
            "pond", f"{format_tiles(pond)} is not a 烂牌 / 一般高 / 七星一般高 pattern"
        )
    pond_row, row = T["塘子烂糊"], T[fam]
    items = [item(pond_row.zh, pond_row.en, "self-draw", pond),
             item(row.zh, row.en, f"{row.value}番", pond)]
    return row.value, f"塘子烂糊（{fam}）", f"Pond win ({row.en})", items


def _doudizhu(situation: Situation, ledger: Ledger) -> None:
    """斗地主 (``gejiu.md`` §7): circuits of dealer-led discards until one pays nothing."""
    dealer = situation.dealer
    circuits = situation.doudizhu
    for n, circuit in enumerate(circuits):  # every entry is checked, also after the chain stops
        if circuit is not None and len(circuit) != 4 and not (
            len(circuit) < 4 and n == len(circuits) - 1
        ):
            raise SituationError(
                f"doudizhu[{n}]", f"a circuit is four discards, got {len(circuit)}"
            )
    for n, circuit in enumerate(circuits):
        if circuit is None or len(circuit) < 4:
            break  # void, or the unfinished last circuit (ignored)
        ref = circuit[0]
        followers = [j for j in (1, 2, 3) if circuit[j] == ref]
        seats = [(dealer + j) % 4 for j in range(4)]
        if len(followers) == 3:
            for p in seats[1:]:
                ledger.pay(dealer, p, 2, words("大地主", "big landlord"),
                           *_circuit(n, ref))
        elif len(followers) == 2:
            odd = seats[next(j for j in (1, 2, 3) if j not in followers)]
            for p in range(4):
                if p != odd:
                    letter = seat_letter(odd)
                    ledger.pay(odd, p, 1, ReasonPart(f"斗地主 landlord {letter}",
                                                     f"斗地主 {letter}"), *_circuit(n, ref))
        else:
            break


def _circuit(n: int, ref: Kind) -> tuple[ReasonPart, ...]:
    """Which 斗地主 circuit (counted from 1) and its tile, for a payment's reason."""
    return (ReasonPart(f", circuit {n + 1}", f"，第{n + 1}圈"),
            ReasonPart(f" ({format_tiles([ref])})"))


def score(situation: Situation, options: Mapping[str, Any]) -> Settlement:
    """Settle ``situation`` with the table ``options`` checked by the ruleset
    (:meth:`engine.rulesets.Ruleset.settle`)."""
    dealer = situation.dealer
    check_seat("dealer", dealer)
    if len(situation.wins) > 1:
        raise SituationError("wins", "Gejiu has one winner per hand (截胡) [A-8]")
    check_several_wins(situation, ())
    check_kongs(situation)
    ledger = Ledger(int(options["base_point"]))
    scores: list[WinScore] = []
    for i, w in enumerate(situation.wins):
        check_chis(w, i, is_chow, "is not a chow (three consecutive tiles of one suit; "
                   "honours never form chows) [A-G24]")
        if w.how not in _ALLOWED:
            raise SituationError(
                win_field(i, "how"),
                f"Gejiu has no {w.how.value} win (a dealt winning hand is a self_draw) [A-G23]",
            )
        check_from(w, i, w.how in (WinMethod.DISCARD, WinMethod.ROB_KONG))
        if w.how is WinMethod.POND:
            fan, zh, en, items = _pond_fan(situation, w, i)
        else:
            fan, zh, en, items = _hand_fan(w, i)
        scores.append(WinScore(w.seat, zh, en, tuple(items), fan))
        self_drawn = w.how in (WinMethod.SELF_DRAW, WinMethod.KONG_REPLACEMENT, WinMethod.POND)
        for p in range(4):
            if p == w.seat:
                continue
            f = fan
            why: list[str | ReasonPart] = [f"{zh} H={fan}番"]
            if self_drawn:
                f += T["自摸"].value
                why.append(f" +{T['自摸'].value} 自摸")
            if w.from_seat == p and not self_drawn:
                f += 1
                why.append(" +1 放炮者" if w.how is WinMethod.DISCARD else " +1 被抢杠")
            if w.seat == dealer:
                f += 1
                why += [" ", ReasonPart("+1 当庄 (winner)", "+1 当庄（胡者）")]
            if p == dealer:
                f += 1
                why += [" ", ReasonPart("+1 当庄 (payer)", "+1 当庄（付者）")]
            ledger.pay(p, w.seat, 2**f, *why, f" → 2^{f}")
    _doudizhu(situation, ledger)
    if situation.wins and situation.wins[0].seat == dealer:
        next_dealer = dealer
    else:
        next_dealer = (dealer + 1) % 4
    return ledger.settle(scores, next_dealer)
