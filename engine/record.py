"""Game records: JSON lines, one block per hand (``docs/game-record.md``).

A hand's block is a ``hand`` line (everything needed to rebuild the hand: ruleset, options,
seed, dealer, running scores, spectators), one ``action`` line per applied action, and a
``result`` line (the final state and the settlement). :func:`replay_lines` rebuilds each hand
from its header and actions and checks that the final state and the settlement agree.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.actions import Action
from engine.rulesets import find_ruleset
from engine.situation import SEAT_LETTERS, Settlement, Spectator
from engine.table import Hand
from engine.tiles import format_tiles

RECORD_VERSION = 1


class RecordError(ValueError):
    """A record that cannot be read or does not replay to what it says."""


def _party(p: int | str) -> str:
    return SEAT_LETTERS[p] if isinstance(p, int) else p


def settlement_json(s: Settlement) -> dict[str, Any]:
    return {
        "wins": [
            {"seat": _party(w.seat), "pattern": w.pattern_zh, "en": w.pattern_en, "value": w.value}
            for w in s.wins
        ],
        "transfers": [[_party(t.payer), _party(t.payee), t.amount, t.why] for t in s.transfers],
        "net": {_party(k): v for k, v in sorted(s.parties(), key=lambda kv: str(kv[0]))},
        "next_dealer": _party(s.next_dealer) if s.next_dealer is not None else None,
    }


def final_state(hand: Hand) -> dict[str, Any]:
    """The public and private end state of a hand, in notation (for golden files and replay)."""
    return {
        "phase": hand.phase.value,
        "remaining": hand.remaining(),
        "hands": [format_tiles(st.kinds()) for st in hand.seats],
        "melds": [[m.notation() for m in st.melds] for st in hand.seats],
        "ponds": [format_tiles([p.kind for p in st.discards], sort=False) for st in hand.seats],
        "winners": [SEAT_LETTERS[w.seat] for w in hand.wins],
        "how": [w.how.value for w in hand.wins],
    }


def hand_lines(hand: Hand) -> list[dict[str, Any]]:
    """The record block of one hand (finished or not)."""
    lines = [hand.header()]
    for i, (seat, action) in enumerate(hand.actions):
        lines.append({"type": "action", "i": i, "seat": SEAT_LETTERS[seat], **action.to_json()})
    if hand.settlement is not None:
        lines.append(
            {
                "type": "result",
                "final": final_state(hand),
                "settlement": settlement_json(hand.settlement),
            }
        )
    return lines


def dumps(lines: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in lines)


def hand_from_header(header: dict[str, Any]) -> Hand:
    if header.get("type") != "hand":
        raise RecordError(f"expected a 'hand' line, got {header.get('type')!r}")
    if header.get("version") != RECORD_VERSION:
        raise RecordError(f"record version {header.get('version')!r} is not {RECORD_VERSION}")
    try:
        ruleset = find_ruleset(header["rules"], header.get("options", {}))
        return Hand(
            ruleset,
            seed=int(header["seed"]),
            dealer=SEAT_LETTERS.index(header["dealer"]),
            hand_no=int(header.get("hand_no", 1)),
            scores=tuple(header.get("scores", (0, 0, 0, 0))),
            spectators=tuple(
                Spectator(s["name"], SEAT_LETTERS.index(s["backs"]))
                for s in header.get("spectators", [])
            ),
            allow_spectators=tuple(
                SEAT_LETTERS.index(x) for x in header.get("allow_spectators", "ESWN")
            ),
        )
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise RecordError(f"bad hand header: {exc}") from exc


@dataclass
class ReplayedHand:
    hand: Hand
    recorded_final: dict[str, Any] | None
    recorded_settlement: dict[str, Any] | None

    @property
    def matches(self) -> bool:
        if self.recorded_final is None or self.hand.settlement is None:
            return self.recorded_final is None
        return (
            self.recorded_final == final_state(self.hand)
            and self.recorded_settlement == settlement_json(self.hand.settlement)
        )


def parse_lines(text: str) -> Iterator[dict[str, Any]]:
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise RecordError(f"line {n}: not JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise RecordError(f"line {n}: expected an object")
        obj["_line"] = n
        yield obj


def replay_lines(lines: Iterable[dict[str, Any]]) -> list[ReplayedHand]:
    """Re-run every hand block; raises :class:`RecordError` on a bad line or an illegal action."""
    out: list[ReplayedHand] = []
    current: ReplayedHand | None = None
    for obj in lines:
        kind = obj.get("type")
        line = obj.get("_line", "?")
        if kind == "game":
            continue
        if kind == "hand":
            header = {k: v for k, v in obj.items() if k != "_line"}
            current = ReplayedHand(hand_from_header(header), None, None)
            out.append(current)
        elif kind == "action":
            if current is None:
                raise RecordError(f"line {line}: an action before any hand line")
            try:
                seat = SEAT_LETTERS.index(obj["seat"])
                action = Action.from_json(obj)
                current.hand.apply(seat, action)
            except (KeyError, ValueError, TypeError, AttributeError, IndexError) as exc:
                # a line edited by hand: a field missing or of the wrong type
                raise RecordError(f"line {line}: action {obj.get('i')}: {exc}") from exc
        elif kind == "result":
            if current is None:
                raise RecordError(f"line {line}: a result before any hand line")
            current.recorded_final = obj.get("final")
            current.recorded_settlement = obj.get("settlement")
        else:
            raise RecordError(f"line {line}: unknown line type {kind!r}")
    return out
