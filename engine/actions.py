"""Player actions and the errors an illegal one raises.

An action names tile **kinds**; the table chooses the physical tile deterministically. Actions
print and parse in pairs (``Action.parse("discard 5m")`` / ``str(action)``) and round-trip
through JSON for game records.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from engine.tiles import Kind, format_tiles, kind_to_str, parse_tile, parse_tiles


class ActionType(enum.Enum):
    BUY = "buy"  # Yichun 买 (buy phase)
    NO_BUY = "no_buy"  # Yichun: decline to buy
    DISCARD = "discard"  # 打牌; ``ting`` declares Gejiu 报听 with it
    WIN = "win"  # 胡: self-draw in one's turn, or on the offered discard / kong tile
    ANGANG = "angang"  # 暗杠
    BUGANG = "bugang"  # 补杠 / 加杠
    MINGGANG = "minggang"  # 明杠 from a discard
    PENG = "peng"  # 碰
    CHI = "chi"  # 吃 (``tiles`` = the two tiles from hand)
    PASS = "pass"  # 过: let a discard / kong / 塘子烂糊 go
    POND_WIN = "pond_win"  # Gejiu 塘子烂糊


CLAIMS = frozenset({ActionType.WIN, ActionType.MINGGANG, ActionType.PENG, ActionType.CHI})


@dataclass(frozen=True)
class Action:
    type: ActionType
    tile: Kind | None = None
    tiles: tuple[Kind, ...] = ()
    ting: bool = False  # Gejiu 报听 with this discard
    lighter: bool = False  # Yichun 丢打火机 with this buy decision
    slot: int | None = None  # Gejiu: which face-up kong tile (0 or 1) the kong takes

    # --- construction helpers ---
    @classmethod
    def discard(cls, tile: Kind, ting: bool = False) -> Action:
        return (_TING_DISCARDS if ting else _DISCARDS)[tile]

    @classmethod
    def pass_(cls) -> Action:
        return _PASS

    @classmethod
    def win(cls) -> Action:
        return _WIN

    # --- notation ---
    def __str__(self) -> str:
        parts = [self.type.value]
        if self.tile is not None:
            parts.append(kind_to_str(self.tile))
        if self.tiles:
            parts.append(format_tiles(self.tiles))
        if self.ting:
            parts.append("ting")
        if self.lighter:
            parts.append("lighter")
        if self.slot is not None:
            parts.append(f"slot{self.slot}")
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> Action:
        """Inverse of ``str()``: ``"discard 5m ting"``, ``"chi 46m"``, ``"angang E slot1"``."""
        words = text.split()
        if not words:
            raise ValueError("empty action")
        try:
            atype = ActionType(words[0])
        except ValueError:
            names = ", ".join(t.value for t in ActionType)
            raise ValueError(f"unknown action {words[0]!r} (one of: {names})") from None
        tile: Kind | None = None
        tiles: tuple[Kind, ...] = ()
        ting = lighter = False
        slot: int | None = None
        for w in words[1:]:
            if w == "ting":
                ting = True
            elif w == "lighter":
                lighter = True
            elif w.startswith("slot") and w[4:].isdigit():
                slot = int(w[4:])
            elif atype is ActionType.CHI and (tile is not None or len(parse_tiles(w)) > 1):
                tiles = tuple(sorted(parse_tiles(w)))
            else:
                tile = parse_tile(w)
        return cls(atype, tile, tiles, ting, lighter, slot)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"a": self.type.value}
        if self.tile is not None:
            out["tile"] = kind_to_str(self.tile)
        if self.tiles:
            out["tiles"] = format_tiles(self.tiles)
        if self.ting:
            out["ting"] = True
        if self.lighter:
            out["lighter"] = True
        if self.slot is not None:
            out["slot"] = self.slot
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Action:
        atype = ActionType(obj["a"])
        return cls(
            atype,
            parse_tile(obj["tile"]) if "tile" in obj else None,
            tuple(sorted(parse_tiles(obj["tiles"]))) if "tiles" in obj else (),
            bool(obj.get("ting", False)),
            bool(obj.get("lighter", False)),
            int(obj["slot"]) if "slot" in obj else None,
        )


# The most frequent actions, made once (actions are immutable values).
_DISCARDS = tuple(Action(ActionType.DISCARD, k) for k in range(34))
_TING_DISCARDS = tuple(Action(ActionType.DISCARD, k, ting=True) for k in range(34))
_PASS = Action(ActionType.PASS)
_WIN = Action(ActionType.WIN)


# Why the table refuses an action: a key and the engine's own words, which a program reads
# (engine/botproto) and a log line keeps. A player reads the key's words in his language
# (``illegal_<key>`` in words/refusals.py), never these.
ILLEGAL_REASONS: dict[str, str] = {
    "no_seat": "there is no such seat",
    "hand_over": "the hand is over",
    "answered": "you already answered this discard",
    "not_offered": "no claim was offered to you on this tile",
    "not_your_move": "it is not your move (waiting for {waiting})",
    "own_turn": "there is no discard to claim in your own turn",
    "discard_first": "after a chi or peng you must discard first [A-6]",
    "no_win": "your hand does not win with this tile",
    "no_tile": "you hold no {tile}",
    "ting_drawn": "after 报听 you must discard the tile you drew (or win)",
    "ting_not_ready": "报听 needs a hand that is one tile from winning after this discard",
    "discard_now": "after a chi or peng you must discard at once",
    "no_kong": "that kong is not possible now",
    "not_now": "{move} is not possible now (phase {phase})",
}


class IllegalActionError(ValueError):
    """An action the table does not allow now; nothing was changed.

    ``why`` (a key of :data:`ILLEGAL_REASONS`) and its ``fields`` say why; ``reason`` in the
    engine's words; ``legal`` lists what the seat may do.
    """

    def __init__(self, seat: int, action: Action, why: str, legal: list[Action],
                 **fields: str) -> None:
        self.seat = seat
        self.action = action
        self.why = why
        self.fields = fields
        self.reason = ILLEGAL_REASONS[why].format(**fields)
        self.legal = legal
        seat_name = "ESWN"[seat] if 0 <= seat < 4 else str(seat)
        allowed = ", ".join(str(a) for a in legal) if legal else "nothing (not your move)"
        super().__init__(f"seat {seat_name} cannot {action}: {self.reason}; legal now: "
                         f"{allowed}")
