"""A bot's own picture of its tiles, kept from the bot protocol's events alone, as a program
written from docs/bot-protocol.md keeps it (never reading a request's ``state``): the deal,
its own draws, discards, claims and kongs, and a ``resync`` that starts it again."""

from __future__ import annotations

from collections import Counter
from typing import Any


class HandTracker:
    def __init__(self) -> None:
        self.seat: int | None = None
        self.tiles: Counter[str] | None = None  # None: nothing known yet this hand
        self.problems: list[str] = []

    def feed(self, line: dict[str, Any]) -> None:
        kind = line["type"]
        if kind in ("game_start", "hand_start"):
            self.seat = line["seat"]
            if kind == "hand_start":
                self.tiles = None
            return
        if kind == "resync":
            self.seat = line["seat"]
            state = line["state"]
            self.tiles = Counter(state["hand"] + ([state["drawn"]] if state["drawn"] else []))
            return
        if kind == "deal":
            self.tiles = Counter(line["hand"])
            return
        if line.get("seat") != self.seat or self.tiles is None:
            return
        if kind == "draw":
            if "tile" not in line:
                self.problems.append(f"a draw of its own without its tile: {line}")
            else:
                self.tiles[line["tile"]] += 1
        elif kind == "discard":
            self._take([line["tile"]], line)
        elif kind in ("chi", "peng", "minggang"):
            tiles = list(line["tiles"])
            tiles.remove(line["tile"])
            self._take(tiles, line)
        elif kind == "angang":
            if "tile" not in line:
                self.problems.append(f"a concealed kong of its own without its tile: {line}")
            else:
                self._take([line["tile"]] * 4, line)
        elif kind == "bugang":
            self._take([line["tile"]], line)

    def _take(self, tiles: list[str], line: dict[str, Any]) -> None:
        assert self.tiles is not None
        for tile in tiles:
            if self.tiles[tile] <= 0:
                self.problems.append(f"{tile} is not in the hand {sorted(self.elements())} "
                                     f"for {line}")
            self.tiles[tile] -= 1

    def elements(self) -> list[str]:
        return sorted(self.tiles.elements()) if self.tiles is not None else []

    def agrees(self, request: dict[str, Any]) -> bool:
        """Whether the tiles kept are the request's (its hand and drawn tile)."""
        state = request["state"]
        return self.elements() == sorted(state["hand"] + (
            [state["drawn"]] if state["drawn"] else []))
