"""The ``score`` calculator: JSON situation in, settlement out (``rules/README.md``).

Pure functions, no I/O: :func:`parse_situation` validates one JSON object into a
:class:`~engine.situation.Situation` (errors name the field and the problem),
:func:`settlement_to_json` and :func:`render_text` present the result, :func:`score_object` does
the three steps and turns "this hand does not win" into a plain answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from engine.melds import Meld, MeldType
from engine.rulesets import RULESETS, score
from engine.scoring import NotAWinError, SituationError
from engine.scoring.common import seat_letter
from engine.situation import (
    SEAT_LETTERS,
    BaoDiao,
    Settlement,
    Situation,
    Spectator,
    Win,
    WinMethod,
)
from engine.tiles import NUM_KINDS, Kind, TileParseError, format_tiles, next_kind, parse_tiles

TOP_FIELDS: Final = frozenset(
    {"id", "rules", "options", "dealer", "wins", "kongs", "dice", "buyers", "lighters",
     "spectators", "allow_spectators", "last_drawer", "wild", "indicator", "flown", "got",
     "jiebao", "pond", "doudizhu"}
)
WIN_FIELDS: Final = frozenset(
    {"seat", "hand", "melds", "tile", "how", "from", "kongs_in_turn", "baodiao"}
)


def _seat(value: Any, name: str) -> int:
    if not isinstance(value, str) or value not in SEAT_LETTERS or len(value) != 1:
        raise SituationError(name, f"a seat is \"E\", \"S\", \"W\" or \"N\", got {value!r}")
    return SEAT_LETTERS.index(value)


def _seat_list(value: Any, name: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise SituationError(name, f"expected a list of seats, got {value!r}")
    return tuple(_seat(v, f"{name}[{i}]") for i, v in enumerate(value))


def _int(value: Any, name: str, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SituationError(name, f"expected a whole number, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        rng = f"{lo}–{hi}" if hi is not None else f"at least {lo}"
        raise SituationError(name, f"must be {rng}, got {value}")
    return value


def _tiles(value: Any, name: str) -> list[Kind]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = " ".join(value)
    if not isinstance(value, str):
        raise SituationError(name, f"expected tiles like \"123m 55p EEE\", got {value!r}")
    try:
        return parse_tiles(value)
    except TileParseError as exc:
        raise SituationError(name, str(exc)) from None


def _tile(value: Any, name: str) -> Kind:
    kinds = _tiles(value, name)
    if len(kinds) != 1:
        raise SituationError(name, f"expected exactly one tile, got {len(kinds)} in {value!r}")
    return kinds[0]


def _meld(value: Any, name: str) -> Meld:
    if not isinstance(value, str):
        raise SituationError(name, f"expected a meld like \"peng 222m\", got {value!r}")
    try:
        return Meld.parse(value)
    except TileParseError as exc:
        raise SituationError(name, exc.problem if exc.position == 0 else str(exc)) from None


def _melds(value: Any, name: str) -> tuple[Meld, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SituationError(name, f"expected a list of melds, got {value!r}")
    return tuple(_meld(v, f"{name}[{i}]") for i, v in enumerate(value))


def _seat_map(value: Any, name: str) -> dict[int, int]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SituationError(name, f"expected an object keyed by seat, got {value!r}")
    return {_seat(k, f"{name} key"): _int(v, f"{name}.{k}", 0, 4) for k, v in value.items()}


def _win(value: Any, index: int, rules: str) -> Win:
    name = f"wins[{index}]"
    if not isinstance(value, dict):
        raise SituationError(name, f"expected an object, got {value!r}")
    for key in value:
        if key not in WIN_FIELDS:
            raise SituationError(f"{name}.{key}", "unknown field")
    if "seat" not in value:
        raise SituationError(f"{name}.seat", "missing")
    seat = _seat(value["seat"], f"{name}.seat")
    how_text = value.get("how", "self_draw")
    try:
        how = WinMethod(how_text)
    except ValueError:
        choices = ", ".join(m.value for m in WinMethod)
        raise SituationError(f"{name}.how", f"{how_text!r} is not one of {choices}") from None
    melds = _melds(value.get("melds"), f"{name}.melds")
    hand: tuple[Kind, ...] = ()
    tile: Kind | None = None
    if how is not WinMethod.POND or "hand" in value:
        if "hand" not in value:
            raise SituationError(f"{name}.hand", "missing (the concealed tiles before the win)")
        hand = tuple(_tiles(value["hand"], f"{name}.hand"))
    if how is not WinMethod.POND or value.get("tile") is not None:
        if value.get("tile") is None:
            raise SituationError(f"{name}.tile", "missing (the winning tile)")
        tile = _tile(value["tile"], f"{name}.tile")
    frm = value.get("from")
    from_seat = None if frm is None else _seat(frm, f"{name}.from")
    kit = value.get("kongs_in_turn")
    kongs_in_turn = 0 if kit is None else _int(kit, f"{name}.kongs_in_turn", 0, 4)
    if how is WinMethod.KONG_REPLACEMENT and kongs_in_turn == 0:
        kongs_in_turn = 1
    bd = value.get("baodiao", False)
    if bd is False or bd is None:
        baodiao = BaoDiao.NONE
    elif bd in ("head", "touji"):
        baodiao = BaoDiao(bd)
    else:
        raise SituationError(f"{name}.baodiao", f"false, \"head\" or \"touji\", got {bd!r}")
    return Win(seat, hand, melds, tile, how, from_seat, kongs_in_turn, baodiao)


def _spectators(value: Any) -> tuple[Spectator, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SituationError("spectators", f"expected a list, got {value!r}")
    out: list[Spectator] = []
    for i, sp in enumerate(value):
        if not isinstance(sp, dict) or "name" not in sp or "backs" not in sp:
            raise SituationError(f"spectators[{i}]", "expected {\"name\": ..., \"backs\": seat}")
        if not isinstance(sp["name"], str) or not sp["name"]:
            raise SituationError(f"spectators[{i}].name", f"expected a name, got {sp['name']!r}")
        out.append(Spectator(sp["name"], _seat(sp["backs"], f"spectators[{i}].backs")))
    return tuple(out)


def _doudizhu(value: Any) -> tuple[tuple[Kind, ...] | None, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise SituationError("doudizhu", f"expected a list of circuits, got {value!r}")
    out: list[tuple[Kind, ...] | None] = []
    for i, c in enumerate(value):
        if c == "void":
            out.append(None)
        else:
            out.append(tuple(_tiles(c, f"doudizhu[{i}]")))
    return tuple(out)


def parse_situation(obj: Mapping[str, Any]) -> Situation:
    """Validate one ``score`` input object (``rules/README.md``) into a :class:`Situation`."""
    if not isinstance(obj, Mapping):
        raise SituationError("input", f"expected a JSON object, got {type(obj).__name__}")
    for key in obj:
        if key not in TOP_FIELDS:
            raise SituationError(key, "unknown field")
    rules = obj.get("rules")
    if not isinstance(rules, str) or rules not in RULESETS:
        names = [f'"{name}"' for name in RULESETS]
        raise SituationError(
            "rules", f"{', '.join(names[:-1])} or {names[-1]}, got {rules!r}"
        )
    assert isinstance(rules, str)
    options = obj.get("options") or {}
    if not isinstance(options, dict):
        raise SituationError("options", f"expected an object, got {options!r}")
    dealer = _seat(obj.get("dealer", "E"), "dealer")
    wins_v = obj.get("wins") or []
    if not isinstance(wins_v, list):
        raise SituationError("wins", f"expected a list, got {wins_v!r}")
    wins = tuple(_win(w, i, rules) for i, w in enumerate(wins_v))
    kongs_v = obj.get("kongs") or {}
    if not isinstance(kongs_v, dict):
        raise SituationError("kongs", f"expected an object keyed by seat, got {kongs_v!r}")
    kongs = {_seat(k, "kongs key"): _melds(v, f"kongs.{k}") for k, v in kongs_v.items()}
    dice = obj.get("dice")
    buyers = obj.get("buyers")
    lighters = obj.get("lighters")
    allow = obj.get("allow_spectators")
    last = obj.get("last_drawer")
    wild: Kind | None = None
    if obj.get("wild") is not None:
        wild = _tile(obj["wild"], "wild")
    if obj.get("indicator") is not None:
        from_indicator = next_kind(_tile(obj["indicator"], "indicator"))
        if wild is not None and wild != from_indicator:
            raise SituationError(
                "indicator",
                f"indicator {obj['indicator']} makes {format_tiles([from_indicator])} wild, "
                f"not {obj['wild']}",
            )
        wild = from_indicator
    pond_v = obj.get("pond")
    pond = None if pond_v is None else tuple(_tiles(pond_v, "pond"))
    return Situation(
        rules=rules,
        dealer=dealer,
        options=dict(options),
        wins=wins,
        kongs=kongs,
        dice=None if dice is None else _int(dice, "dice", 2, 12),
        buyers=None if buyers is None else _seat_list(buyers, "buyers"),
        lighters=0 if lighters is None else _int(lighters, "lighters", 0),
        spectators=_spectators(obj.get("spectators")),
        allow_spectators=(0, 1, 2, 3) if allow is None else _seat_list(allow, "allow_spectators"),
        last_drawer=None if last is None else _seat(last, "last_drawer"),
        wild=wild,
        flown=_seat_map(obj.get("flown"), "flown"),
        got=_seat_map(obj.get("got"), "got"),
        jiebao=() if obj.get("jiebao") is None else _seat_list(obj["jiebao"], "jiebao"),
        pond=pond,
        doudizhu=_doudizhu(obj.get("doudizhu")),
    )


def _shared_winning_tile(situation: Situation) -> bool:
    """True when the wins are on one discarded or robbed tile: several winners then hold the
    same physical winning tile, so it is counted once."""
    return bool(situation.wins) and situation.wins[0].how in (
        WinMethod.DISCARD, WinMethod.ROB_KONG, WinMethod.EARTHLY,
    ) and situation.wins[0].from_seat is not None


def _tiles_in_play(situation: Situation) -> list[int]:
    """Copies of each kind the situation puts on the table: every winner's concealed tiles and
    melds, each winning tile once, and every other seat's kongs (a robbed 补杠's fourth tile is
    the winning tile itself)."""
    counts = [0] * NUM_KINDS
    for w in situation.wins:
        if w.how is WinMethod.POND:
            held: tuple[Kind, ...] = situation.pond or ()
        else:
            held = w.hand
        for k in held:
            counts[k] += 1
        for m in w.melds:
            for k in m.tiles:
                counts[k] += 1
    for melds in situation.kongs.values():
        for m in melds:
            for k in m.tiles:
                counts[k] += 1
    tiles = [w.tile for w in situation.wins if w.tile is not None and w.how is not WinMethod.POND]
    if _shared_winning_tile(situation) and tiles:
        first = situation.wins[0]
        robbed = first.how is WinMethod.ROB_KONG and any(
            m.type is MeldType.BGANG and m.kind == first.tile
            for m in situation.kongs.get(first.from_seat or 0, ())
        )
        tiles = [] if robbed else tiles[:1]
    for k in tiles:
        counts[k] += 1
    return counts


def _held_wilds(win: Win, wild: Kind) -> int:
    return sum(1 for k in win.hand if k == wild) + (1 if win.tile == wild else 0)


def check_possible(situation: Situation) -> None:
    """Refuse a situation no table can reach, naming the contradiction: the calculator is typed
    in by hand, and an impossible situation would otherwise be settled and paid."""
    counts = _tiles_in_play(situation)
    for k, c in enumerate(counts):
        if c > 4:
            where = "the winners' hands and melds" + (
                " and the other seats' kongs" if any(situation.kongs.values()) else "")
            raise SituationError(
                "wins",
                f"{c} copies of {format_tiles([k])} counting {where} (a tile has 4 copies)",
            )
    if situation.rules == "shangrao" and situation.wild is not None:
        wild = situation.wild
        held = sum(_held_wilds(w, wild) for w in situation.wins)
        flown = sum(situation.flown.values())
        if held + flown > 4:
            raise SituationError(
                "flown",
                f"{held} wild(s) {format_tiles([wild])} held by the winners and {flown} flown: "
                "only four wilds exist",
            )
        for i, w in enumerate(situation.wins):
            n = _held_wilds(w, wild)
            f = situation.flown.get(w.seat, 0)
            seat = SEAT_LETTERS[w.seat]
            if w.seat not in situation.got:  # not told: only four wilds must be told (四个宝)
                if n + f == 4:
                    raise SituationError(
                        f"got.{seat}",
                        f"wins[{i}] holds {n} and flew {f} wild(s) {format_tiles([wild])}: {seat} "
                        "received all four, so got must say 4 (四个宝 Four wilds)",
                    )
                continue
            received = situation.got[w.seat]
            if n + f > received:
                flew = f" and flew {f}" if f else ""
                raise SituationError(
                    f"got.{seat}",
                    f"wins[{i}] holds {n} wild(s) {format_tiles([wild])}{flew} but got.{seat} "
                    f"says {seat} received {received}",
                )
    if situation.rules == "yichun":
        for i, w in enumerate(situation.wins):
            if w.how in (WinMethod.HEAVENLY, WinMethod.EARTHLY):
                for konger, melds in situation.kongs.items():
                    if melds:
                        name = "天糊" if w.how is WinMethod.HEAVENLY else "地糊"
                        raise SituationError(
                            f"kongs.{SEAT_LETTERS[konger]}",
                            f"wins[{i}] is {w.how.value} ({name}), which comes before any "
                            "claim or kong by another seat",
                        )


def settlement_to_json(s: Settlement, situation: Situation | None = None) -> dict[str, Any]:
    """The ``--json`` structure: patterns and modifiers (zh + en, value, tiles), transfers
    ``{from, to, amount, why}``, ``net`` by seat letter / spectator name, ``next_dealer``."""
    out: dict[str, Any] = {}
    if situation is not None:
        out["rules"] = situation.rules
    out["wins"] = [
        {
            "seat": SEAT_LETTERS[w.seat],
            "pattern": {"zh": w.pattern_zh, "en": w.pattern_en},
            "value": w.value,
            "items": [
                {"zh": i.zh, "en": i.en, "value": i.value, "tiles": format_tiles(i.tiles)}
                for i in w.items
            ],
        }
        for w in s.wins
    ]
    out["transfers"] = [
        {"from": seat_letter(t.payer), "to": seat_letter(t.payee), "amount": t.amount, "why": t.why}
        for t in s.transfers
    ]
    out["net"] = {seat_letter(p): n for p, n in s.parties()}
    out["next_dealer"] = None if s.next_dealer is None else SEAT_LETTERS[s.next_dealer]
    return out


def not_a_win_json(err: NotAWinError) -> dict[str, Any]:
    """A declared win that does not win is a refused situation: an ``error`` like any other
    (so a batch reader needs one test), with ``win: false`` and the field to tell it apart."""
    message = f"does not win: {err}"
    return {"error": message, "win": False, "field": err.field, "message": message}


def render_text(s: Settlement, lang: str = "en", situation: Situation | None = None) -> str:
    """A readable settlement table with Chinese and English names (``lang`` picks which comes
    first and the language of the headings)."""
    zh = lang == "zh"

    def both(z: str, e: str) -> str:
        return f"{z} {e}" if zh else f"{e} {z}"

    lines: list[str] = []
    if situation is not None:
        cls = RULESETS[situation.rules]
        rz, re_ = cls.zh, cls.en
        dealer = SEAT_LETTERS[situation.dealer]
        lines.append(f"{both(rz, re_)} — {'庄家' if zh else 'dealer'} {dealer}")
    if not s.wins:
        lines.append("荒牌 流局 — no winner" if zh else "Drawn hand (荒牌) — no winner")
    for w in s.wins:
        seat = SEAT_LETTERS[w.seat]
        head = f"{seat} {'胡' if zh else 'wins'}: {both(w.pattern_zh, w.pattern_en)}"
        lines.append(f"{head}  = {w.value}")
        width = max((len(i.zh) * 2 + len(i.en) for i in w.items), default=0) + 2
        for i in w.items:
            name = both(i.zh, i.en)
            pad = width - (len(i.zh) * 2 + len(i.en))
            lines.append(f"  {name}{' ' * pad}{i.value:>10}  {format_tiles(i.tiles)}".rstrip())
    lines.append("支付 Transfers:" if zh else "Transfers 支付:")
    if not s.transfers:
        lines.append("  (none)")
    for t in s.transfers:
        payer, payee = seat_letter(t.payer), seat_letter(t.payee)
        lines.append(f"  {payer:>4} → {payee:<4} {t.amount:>7}  {t.why}")
    net = "  ".join(f"{seat_letter(p)} {n:+d}" for p, n in s.parties())
    lines.append(f"{'输赢 Net' if zh else 'Net 输赢'}: {net}")
    nd = "—" if s.next_dealer is None else SEAT_LETTERS[s.next_dealer]
    lines.append(f"{'下盘庄家 Next dealer' if zh else 'Next dealer 下盘庄家'}: {nd}")
    return "\n".join(lines)


def render_not_a_win(err: NotAWinError, lang: str = "en") -> str:
    if lang == "zh":
        return f"不能胡牌 — this hand does not win: {err}"
    return f"This hand does not win (不能胡牌): {err}"


def score_object(obj: Mapping[str, Any]) -> tuple[Situation, Settlement]:
    """parse + score; raises :class:`SituationError` / :class:`NotAWinError`."""
    situation = parse_situation(obj)
    check_possible(situation)
    return situation, score(situation)


def score_json(obj: Mapping[str, Any]) -> dict[str, Any]:
    """One batch result: the settlement, or ``{"error": ...}`` for a refused situation
    (malformed, impossible, or a declared win that does not win: then also ``"win": false``).
    An ``id`` in the input is echoed."""
    out: dict[str, Any] = {}
    if isinstance(obj, Mapping) and "id" in obj:
        out["id"] = obj["id"]
    try:
        situation, settlement = score_object(obj)
    except NotAWinError as err:
        out.update(not_a_win_json(err))
        return out
    except (SituationError, ValueError) as err:
        out["error"] = str(err)
        return out
    out.update(settlement_to_json(settlement, situation))
    return out


__all__ = [
    "NotAWinError", "SituationError", "not_a_win_json", "parse_situation", "render_not_a_win",
    "render_text", "score_json", "score_object", "settlement_to_json",
]
