"""Shangrao (上饶) settlement — ``rules/shangrao.md`` §5–11.

``V = P × 2^k (杠开) × 2 (单吊) × 2 (九幺名目) × 2^f(w) (飞宝)``, maximised over the clean and the
wild interpretations; self-draw: each other seat pays ``V × 2^f(p)``; 抢杠: the konger alone pays
``6 × V × 2^f(konger)``; 天糊 / 地糊 10 flat unless the ordinary value is larger; bonuses (碰杠 1,
自摸杠 2, 接宝 10, 四个宝 10) from each other seat, also on a drawn hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.hands import Reading, is_baodiao_pung_shape, is_baodiao_shape, readings
from engine.melds import Meld, MeldType
from engine.scoring.common import (
    Candidate,
    Ledger,
    SituationError,
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
    win_field,
)
from engine.scoring.patterns import SHANGRAO as T
from engine.scoring.shapes import SHANGRAO_SHAPES as SHAPES
from engine.situation import (
    BaoDiao,
    Item,
    ReasonPart,
    Settlement,
    Situation,
    Win,
    WinMethod,
    WinScore,
    reason,
    words,
)
from engine.tiles import format_tiles, is_terminal_or_honour


def _candidates(win: Win, index: int, wild: int | None, self_drawn: bool) -> list[Candidate]:
    concealed = full_concealed(win, index)
    rs = readings(SHAPES, concealed, win.melds, wild)
    if not rs:
        raise not_a_win(win, index, "Shangrao")
    baodiao = win.baodiao is not BaoDiao.NONE
    out: list[Candidate] = []
    if baodiao:  # first, so that a tie names the 宝吊 row
        out.extend(_baodiao_candidates(win, index, wild, rs))
    out.extend(pattern_candidates(rs, self_drawn, baodiao))
    return out


def pattern_candidates(rs: Sequence[Reading], self_drawn: bool,
                       baodiao: bool = False) -> list[Candidate]:
    """The §6 rows other than the 宝吊 family (1–4, 11–18) that the readings ``rs`` of a
    winning hand score; with ``baodiao`` (a 宝吊 win) no 碰碰糊 with wilds (row 6 instead)."""
    out: list[Candidate] = []
    for r in rs:
        cl = "清" if r.clean else ""
        if r.shape == "standard":
            if r.pungs:
                if r.clean:
                    out.append(Candidate.of(T["清碰碰糊"], r.terminal))
                elif not baodiao:
                    out.append(Candidate.of(T["碰碰糊"], r.terminal))
            if r.clean and self_drawn:
                out.append(Candidate.of(T["平糊自摸"]))
            out.append(Candidate.of(T["平糊"]))
        elif r.shape == "seven_pairs":
            if r.quads:
                lux = T[f"{cl}豪华七对"]
                out.append(Candidate(lux.zh, f"{lux.en} n={r.quads}", lux.value * 2**r.quads,
                                      r.terminal))
            else:
                out.append(Candidate.of(T[f"{cl}七对"], r.terminal))
        elif r.shape in ("knitted", "jiuyao"):
            prefix_zh = "无宝" if r.clean else "有宝"
            tag = "clean" if r.clean else "wild"
            family = "十三浪" if r.shape == "knitted" else "九幺"
            for row in (T[f"七星{family}"], T[family]) if r.seven_star else (T[family],):
                out.append(Candidate(prefix_zh + row.zh, f"{row.en} ({tag})",
                                      row.clean if r.clean else row.value, False))
    return out


def pattern_value(rs: Sequence[Reading], self_drawn: bool) -> int:
    """The best P × 九幺名目 of :func:`pattern_candidates`: what an ordinary win of these
    readings is worth before the other 名目 (杠开, 单吊, 飞宝); 0 for no reading."""
    terminal = T["九幺（名目）"].value
    return max((c.p * (terminal if c.modified else 1) for c in pattern_candidates(rs, self_drawn)),
               default=0)


def _baodiao_candidates(
    win: Win, index: int, wild: int | None, rs: list[Reading]
) -> list[Candidate]:
    """Rows 5–10: a 宝吊 win (``shangrao.md`` §5)."""
    assert wild is not None  # checked by _check_win
    if not is_baodiao_shape(win.hand, wild):
        raise SituationError(
            win_field(index, "baodiao"),
            f"{format_tiles(win.hand)} before the winning tile is not one wild + complete sets",
        )
    assert win.tile is not None
    melds_pungs = all(m.is_pung_like for m in win.melds)
    pungs = melds_pungs and is_baodiao_pung_shape(win.hand, wild)
    natural = [k for k in (*win.hand, win.tile) if k != wild] + [
        k for m in win.melds for k in m.tiles
    ]
    term = pungs and all(is_terminal_or_honour(k) for k in natural)
    out: list[Candidate] = []
    if win.baodiao is BaoDiao.TOUJI:
        for r in rs:
            if r.shape == "standard" and r.clean:
                if r.pungs:
                    out.append(Candidate.of(T["碰碰糊宝吊无宝"], r.terminal))
                out.append(Candidate.of(T["宝吊无宝"]))
        if win.tile == wild:
            if pungs:
                out.append(Candidate.of(T["碰碰糊宝吊宝"], term))
            out.append(Candidate.of(T["宝吊宝"]))
    if pungs:
        out.append(Candidate.of(T["碰碰糊宝吊头"], term))
    out.append(Candidate.of(T["宝吊头"], term))
    return out


def _ordinary(
    win: Win, index: int, wild: int | None, flown: int, self_drawn: bool
) -> tuple[int, str, str, list[Item]]:
    """V = P × 名目 of one win, maximised over interpretations."""
    k = check_kong_replacement(win, index) if win.how is WinMethod.KONG_REPLACEMENT else 0
    cands = _candidates(win, index, wild, self_drawn)
    tile = win.tile
    assert tile is not None
    tiles = sorted([*win.hand, tile, *[t for m in win.melds for t in m.tiles]])
    best: tuple[int, str, str, list[Item]] | None = None
    for c in cands:
        v = c.p
        items = [item(c.zh, c.en, f"P={c.p}", tiles)]
        if k:
            row = T["杠开"]
            v *= row.value**k
            items.append(item(row.zh, f"{row.en} (k={k})", f"×{row.value}^{k}", (tile,)))
        if len(win.hand) == 1:
            row = T["单吊"]
            v *= row.value
            items.append(item(row.zh, row.en, f"×{row.value}", (tile,)))
        if c.modified:
            row = T["九幺（名目）"]
            v *= row.value
            items.append(item("九幺", row.en, f"×{row.value}", tiles))
        if flown:
            row = T["飞宝"]
            v *= row.value**flown
            items.append(item(row.zh, f"Flew {flown} wild(s)", f"×{row.value}^{flown}"))
        if best is None or v > best[0]:
            best = (v, c.zh, c.en, items)
    assert best is not None
    return best


def _check_win(situation: Situation, win: Win, index: int, discard_wins: bool) -> None:
    check_chis(win, index, is_chow, "is not a chow of one suit (§4)")
    how = win.how
    if how is WinMethod.POND:
        raise SituationError(win_field(index, "how"), "Shangrao has no pond win")
    if how is WinMethod.DISCARD and not discard_wins:
        raise SituationError(
            win_field(index, "how"),
            "Shangrao wins only by self-draw or robbing a kong [A-S1] (options.discard_wins)",
        )
    if how is WinMethod.EARTHLY:
        if win.seat == situation.dealer:
            raise SituationError(win_field(index, "how"), "地糊 is a non-dealer's win")
        if win.from_seat is not None:
            if not discard_wins:
                raise SituationError(
                    win_field(index, "from"),
                    "地糊 is a self-draw on the first draw unless options.discard_wins is on",
                )
            if win.from_seat != situation.dealer:
                raise SituationError(
                    win_field(index, "from"), "地糊 on a discard is on the dealer's first discard"
                )
    if how is WinMethod.HEAVENLY and win.seat != situation.dealer:
        raise SituationError(win_field(index, "how"), "天糊 is the dealer's dealt hand")
    if how in (WinMethod.HEAVENLY, WinMethod.EARTHLY) and win.melds:
        raise SituationError(win_field(index, "melds"), f"{how.value} comes before any meld")
    check_from(win, index, how in (WinMethod.DISCARD, WinMethod.ROB_KONG))
    if how is WinMethod.EARTHLY and win.from_seat is None and discard_wins:
        raise SituationError(
            win_field(index, "from"),
            "with options.discard_wins 地糊 is a win on the dealer's first discard (from the "
            "dealer) [A-S1]",
        )
    if win.baodiao is not BaoDiao.NONE:
        if how in (WinMethod.HEAVENLY, WinMethod.EARTHLY):
            raise SituationError(
                win_field(index, "baodiao"),
                f"{how.value}: the winner has not discarded yet, so is in no 宝吊头 state (§5)",
            )
        if situation.wild is None:
            raise SituationError(
                win_field(index, "baodiao"), "宝吊头 needs the wild (wild/indicator)"
            )
    wild = situation.wild
    if wild is None:
        return
    for j, m in enumerate(win.melds):
        if wild in m.tiles:
            raise SituationError(
                win_field(index, f"melds[{j}]"),
                f"{m} holds the wild {format_tiles([wild])}: wilds are never used in chi, peng "
                "or kong (§3, A-S15)",
            )
    claimed = how in (WinMethod.DISCARD, WinMethod.ROB_KONG) or (
        how is WinMethod.EARTHLY and win.from_seat is not None
    )
    if claimed and win.tile == wild:
        raise SituationError(
            win_field(index, "tile"),
            f"{format_tiles([wild])} is the wild: a discarded wild can never be claimed and no "
            "kong holds a wild (§3)",
        )


def _check_wild_counts(situation: Situation) -> None:
    for name, table in (("flown", situation.flown), ("got", situation.got)):
        total = 0
        for seat, n in table.items():
            check_seat(name, seat)
            if not 0 <= n <= 4:
                raise SituationError(f"{name}.{seat_letter(seat)}", f"must be 0–4, got {n}")
            total += n
        if total > 4:
            raise SituationError(name, f"only four wilds exist, the counts add up to {total}")
    for seat, f in situation.flown.items():
        if seat in situation.got and situation.got[seat] < f:
            raise SituationError(
                f"flown.{seat_letter(seat)}",
                f"discarded {f} wilds but received only {situation.got[seat]}",
            )


def score(situation: Situation, options: Mapping[str, Any]) -> Settlement:
    """Settle ``situation`` with the table ``options`` checked by the ruleset
    (:meth:`engine.rulesets.Ruleset.settle`)."""
    check_seat("dealer", situation.dealer)
    discard_wins = bool(options["discard_wins"])
    check_several_wins(situation, (WinMethod.ROB_KONG,))
    for i, w in enumerate(situation.wins[1:], 1):
        if w.tile != situation.wins[0].tile:
            raise SituationError(
                win_field(i, "tile"), "several robbers win on the one robbed tile (common §12)"
            )
    _check_wild_counts(situation)
    for i, w in enumerate(situation.wins):
        _check_win(situation, w, i, discard_wins)
    kongs = check_kongs(situation)
    wild = situation.wild
    for seat, melds in situation.kongs.items():
        for m in melds:
            if m.kind == wild:
                raise SituationError(
                    f"kongs.{seat_letter(seat)}",
                    f"{m} is a kong of the wild: wilds are never used in a kong (§3, A-S15)",
                )
    for w in situation.wins:
        if w.how in (WinMethod.HEAVENLY, WinMethod.EARTHLY) and any(situation.kongs.values()):
            raise SituationError(
                "kongs", f"{w.how.value} comes before any kong (§6 rows 19–20: no chi/peng/kong)"
            )
    flown = {s: situation.flown.get(s, 0) for s in range(4)}

    ledger = Ledger(int(options["base_point"]))
    scores: list[WinScore] = []
    for i, w in in_play_order(situation.wins):
        how = w.how
        on_discard = how is WinMethod.DISCARD or (
            how is WinMethod.EARTHLY and w.from_seat is not None
        )
        self_drawn = how.is_self_drawn or (how is WinMethod.EARTHLY and not on_discard)
        v, zh, en, items = _ordinary(w, i, wild, flown[w.seat], self_drawn)
        # ordinary per-payer amounts
        ordinary: dict[int, tuple[int, tuple[ReasonPart, ...]]] = {}
        if how is WinMethod.ROB_KONG:
            assert w.from_seat is not None
            c = w.from_seat
            ordinary[c] = (6 * v * 2 ** flown[c], reason(
                words("抢杠", "robbed kong"), f": 6 × V={v}", *_fly(c, flown[c])))
        elif on_discard:
            assert w.from_seat is not None
            d = w.from_seat
            ordinary[d] = (3 * v * 2 ** flown[d], reason(
                words("放炮", "discarder pays for three"), f": 3 × V={v}", *_fly(d, flown[d])))
        else:
            for p in range(4):
                if p != w.seat:
                    ordinary[p] = (v * 2 ** flown[p],
                                   reason(f"自摸 V={v}", *_fly(p, flown[p])))
        if how in (WinMethod.HEAVENLY, WinMethod.EARTHLY):
            row = T["天糊" if how is WinMethod.HEAVENLY else "地糊"]
            hz, he, flat = row.zh, row.en, row.value
            if sum(a for a, _ in ordinary.values()) < 3 * flat:
                scores.append(WinScore(w.seat, hz, he, (item(hz, he, f"{flat} flat"),), flat))
                if on_discard:
                    assert w.from_seat is not None
                    ledger.pay(w.from_seat, w.seat, 3 * flat, words(hz, he), ReasonPart(
                        f": {flat} flat × 3, discarder pays", f"：{flat} × 3，放炮者付"))
                else:
                    ledger.pay_each(w.seat, flat, words(hz, he),
                                    ReasonPart(f": {flat} flat", f"：{flat}"))
                continue
            items = [item(hz, he, f"ordinary value larger than {flat} flat"), *items]
        scores.append(WinScore(w.seat, zh, en, tuple(items), v))
        for p, (amount, why) in ordinary.items():
            ledger.pay(p, w.seat, amount, words(zh, en), ": ", *why)
    _bonuses(situation, ledger, kongs)
    if not situation.wins:
        next_dealer = situation.dealer
    elif len(situation.wins) == 1:
        next_dealer = situation.wins[0].seat
    else:
        konger = situation.wins[0].from_seat
        assert konger is not None
        winners = {w.seat for w in situation.wins}
        next_dealer = next(s for s in ((konger + j) % 4 for j in (1, 2, 3)) if s in winners)
    return ledger.settle(scores, next_dealer)


def _fly(seat: int, f: int) -> tuple[str | ReasonPart, ...]:
    """The 飞宝 factor of a payer who flew ``f`` wilds (none when ``f`` is 0)."""
    if not f:
        return ()
    letter = seat_letter(seat)
    return (f" × 2^{f} (", ReasonPart(f"{letter} 飞宝 flew {f}", f"{letter} 飞宝 {f}"), ")")


def _bonuses(situation: Situation, ledger: Ledger, kongs: dict[int, list[Meld]]) -> None:
    """奖励分 (``shangrao.md`` §9): each other seat pays the earner; never multiplied."""
    for seat in range(4):
        for m in kongs[seat]:
            zh, en = ("自摸杠", "concealed kong") if m.type is MeldType.AGANG else (
                "碰杠", "exposed kong")
            ledger.pay_each(seat, kong_points(m), "奖励分 ", words(zh, en), " ", m)
    got = situation.got
    for x in situation.jiebao:
        check_seat("jiebao", x)
        if got.get(x, 0) < 3:
            raise SituationError(
                "jiebao", f"{seat_letter(x)} needs got ≥ 3 for 接宝, got {got.get(x, 0)}"
            )
        if got.get(x, 0) == 4:
            raise SituationError(
                "jiebao", f"{seat_letter(x)} received all four wilds: 四个宝, not 接宝"
            )
        if not any(situation.flown.get(q, 0) >= 1 for q in range(4) if q != x):
            raise SituationError(
                "jiebao", f"接宝 for {seat_letter(x)} needs another seat's flown ≥ 1"
            )
    if len(set(situation.jiebao)) != len(situation.jiebao):
        raise SituationError("jiebao", "a seat is listed twice")
    for x in situation.jiebao:
        ledger.pay_each(x, 10, "奖励分 ", words("接宝", "catching the wild"))
    for x in range(4):
        if got.get(x, 0) == 4:
            ledger.pay_each(x, 10, "奖励分 ", words("四个宝", "four wilds"))
