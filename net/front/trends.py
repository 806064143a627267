"""Each leader's recent trend for ``stats`` and the lobby: the running total of a player's last
few games of a ruleset as a sparkline, so that a leader who is slipping shows it beside the
totals, which only grow with time. And the lobby's short leaderboard (:class:`LobbyLeaders`).

The scores come from the store (``Store.recent_scores``, SQLite or PostgreSQL alike).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any
from weakref import WeakKeyDictionary

from rich.text import Text

from engine.rulesets import RULESETS
from net.sanitize import clean_line, pad
from net.store.base import Store
from tui.score_chart import BLOCKS, sparkline

TREND_GAMES = 10  # the games a trend covers, the most recent


def trend(scores: Sequence[int]) -> str:
    """The running total of ``scores`` (from 0 before the first) as a sparkline on its own
    scale; "" for no games."""
    if not scores:
        return ""
    totals = [0]
    for s in scores:
        totals.append(totals[-1] + s)
    return sparkline(totals, min(totals), max(totals), BLOCKS)


def trends(store: Store, rules: str, nicknames: Sequence[str]) -> dict[str, str]:
    """Each named player's trend in ``rules`` ("" for none)."""
    recent = store.recent_scores(rules, nicknames, TREND_GAMES) if nicknames else {}
    return {name: trend(recent.get(name, [])) for name in nicknames}


LOBBY_LEADERS = 3  # leaders per ruleset the lobby shows (``stats`` has the whole board)
LOBBY_SECONDS = 30.0  # how long the lobby keeps what it read before reading again


class LobbyLeaders:
    """The lobby's leaderboard: each ruleset's first few leaders with their total and trend,
    read from ``store`` at most once every :data:`LOBBY_SECONDS` (the lobby redraws every
    second) for all the lobbies of the server (:meth:`shared`). No store (a test's server of
    tables alone): no lines."""

    def __init__(self, store: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.clock = clock
        self._read_at: float | None = None
        self._text = Text()

    @classmethod
    def shared(cls, store: Any) -> LobbyLeaders:
        """The one board of ``store`` that every lobby session reads (so a hundred lobbies
        open make one read every :data:`LOBBY_SECONDS`, not a hundred)."""
        if store is None:
            return cls(None)
        board = _boards.get(store)
        if board is None:
            board = _boards[store] = cls(store)
        return board

    def text(self) -> Text:
        now = self.clock()
        if self.store is not None and (self._read_at is None
                                       or now - self._read_at >= LOBBY_SECONDS):
            self._read_at = now
            self._text = self._read()
        return self._text

    def _read(self) -> Text:
        t = Text()
        played = self.store.rulesets_played()
        if not played:
            return t
        t.append("\n  Leaders 排行榜", style="bold")
        t.append("   (ssh … stats: the whole board 全部排行)\n")
        for rules in played:
            leaders = self.store.leaderboard(limit=LOBBY_LEADERS, rules=rules)
            recent = trends(self.store, rules, [r.nickname for r in leaders])
            cls = RULESETS.get(rules)
            title = f"{cls.zh} {cls.en}" if cls is not None else clean_line(rules, 16)
            for i, r in enumerate(leaders, 1):
                head = pad(title if i == 1 else "", 14)
                name = clean_line(r.nickname, 16) + (" [bot]" if r.bot_games else "")
                t.append(f"    {head} {i} {pad(name, 16)} "
                         f"{r.score:>+7}  {recent[r.nickname]}".rstrip() + "\n")
        return t


_boards: WeakKeyDictionary[Any, LobbyLeaders] = WeakKeyDictionary()
