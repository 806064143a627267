"""Each leader's recent trend for ``stats`` and the lobby: the running total of a player's last
few games of a ruleset as a sparkline, so that a leader who is slipping shows it beside the
totals, which only grow with time. The lobby's short leaderboard (:class:`LobbyLeaders`), and
the ratings it shows beside the seated players and the viewer's own (:class:`LobbyRatings`).

The scores come from the store (``Store.recent_scores``, SQLite or PostgreSQL alike).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, ClassVar, Self, TypeVar
from weakref import WeakKeyDictionary

from rich.cells import cell_len
from rich.text import Text

from engine import rating as elo
from engine.bots import LEVELS
from engine.rulesets import RULESETS
from net.sanitize import clean_line, pad
from net.store.base import Store
from net.store.model import LeaderRow, Rating
from tui.view.score_chart import BLOCKS, sparkline
from words import both

log = logging.getLogger("net.front")

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


Boards = list[tuple[str, list[LeaderRow], dict[str, str]]]  # (rules, leaders, their trends)


def leader_boards(store: Store, limit: int = 20) -> Boards:
    """Each ruleset played (their points are on different scales), its first ``limit``
    leaders and their trends: the one ranking ``stats`` and the lobby both show, by rating
    (the rated first, highest first, then the unrated by score)."""
    boards = []
    for rules in store.rulesets_played():
        leaders = store.leaderboard(limit=limit, rules=rules, by_rating=True)
        boards.append((rules, leaders, trends(store, rules, [r.nickname for r in leaders])))
    return boards


def leader_rating(row: LeaderRow) -> str:
    """A leader's rating as ranked: ``1523``, ``1523?`` while provisional, ``-`` unrated."""
    return elo.label(row.rating, row.rated) if row.rating is not None else "-"


LOBBY_LEADERS = 3  # leaders per ruleset the lobby shows (``stats`` has the whole board)
LOBBY_SECONDS = 30.0  # how long the lobby keeps what it read before reading again
# after a game's results: read at once, and again this much later (a database server commits
# the rating update from its writer thread, maybe after the first read)
RESULTS_SETTLE = 2.0
T = TypeVar("T")


class SharedBoard:
    """What the lobbies read of a store: one board of a kind for every lobby of the server
    (:meth:`shared`: a hundred lobbies open make one read, not a hundred), read on the event
    loop where the store is a local file and in a thread where its reads wait on a database
    server (``Store.off_loop``), the lobbies going on with what was read before meanwhile.
    No store (a test's server of tables alone): nothing is read."""

    _shared: ClassVar[WeakKeyDictionary[Any, Any]] = WeakKeyDictionary()  # store -> board

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._shared = WeakKeyDictionary()  # a board of each kind

    def __init__(self, store: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.clock = clock
        self._read_at: float | None = None
        self._reading: asyncio.Task[None] | None = None

    @classmethod
    def shared(cls, store: Any) -> Self:
        """The one board of ``store`` that every lobby session reads."""
        if store is None:
            return cls(None)
        board = cls._shared.get(store)
        if board is None:
            board = cls._shared[store] = cls(store)
        return board

    def _read_then(self, read: Callable[[], T], then: Callable[[T], None], what: str) -> None:
        """``then(read())``: at once on a local file, else ``read`` in a thread."""
        if not getattr(self.store, "off_loop", False):
            then(read())
            return
        with contextlib.suppress(RuntimeError):  # no loop (a test's lobby): read next time
            self._reading = asyncio.get_running_loop().create_task(
                self._read_off_loop(read, then, what))

    async def _read_off_loop(self, read: Callable[[], T], then: Callable[[T], None],
                             what: str) -> None:
        try:
            then(await asyncio.to_thread(read))
        except Exception:
            log.exception("reading the lobby's %s failed", what)
        finally:
            self._reading = None


class LobbyLeaders(SharedBoard):
    """The lobby's leaderboard: each ruleset's first few leaders in ``stats``'s ranking
    (:func:`leader_boards`) with their rating, total and trend, read from ``store`` at most
    once every :data:`LOBBY_SECONDS` (the lobby redraws every second), and as soon as this
    process has kept a game's results (a player back from a game sees it counted). No
    store: no lines."""

    def __init__(self, store: Any, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(store, clock)
        self._text = Text()
        self._kept = getattr(store, "results_kept", 0)
        self._settle_at: float | None = None

    def text(self) -> Text:
        now = self.clock()
        kept = getattr(self.store, "results_kept", 0)
        if kept != self._kept:  # a game's results: read now, and once more a moment later
            self._kept, self._read_at, self._settle_at = kept, None, now + RESULTS_SETTLE
        elif self._settle_at is not None and now >= self._settle_at:
            self._settle_at, self._read_at = None, None
        if self.store is not None and (self._read_at is None
                                       or now - self._read_at >= LOBBY_SECONDS):
            self._read_at = now
            if self._reading is None:  # a database server's: shown when read
                self._read_then(self._read, partial(setattr, self, "_text"), "leaderboard")
        return self._text

    def _read(self) -> Text:
        t = Text()
        boards = leader_boards(self.store, LOBBY_LEADERS)
        if not boards:
            return t
        t.append(f"\n  {both('leaders')}", style="bold")
        t.append(f"   ({both('whole_board')})\n")
        t.append(f"    {both('leaders_columns')}\n")  # two numbers: which is which
        for rules, leaders, recent in boards:
            cls = RULESETS.get(rules)
            title = f"{cls.zh} {cls.en}" if cls is not None else clean_line(rules, 16)
            for i, r in enumerate(leaders, 1):
                head = pad(title if i == 1 else "", 14)
                name = clean_line(r.nickname, 16) + (" [bot]" if r.bot_games else "")
                t.append(f"    {head} {i} {pad(name, 16)} {leader_rating(r):>6} "
                         f"{r.score:>+7}  {recent[r.nickname]}".rstrip() + "\n")
        return t


def reference_text(rules: str, levels: Sequence[str] = LEVELS) -> str:
    """The computer levels' fixed ratings in ``rules``: ``easy 1211 · normal 1500 · ...``."""
    refs = elo.REFERENCE.get(rules, {})
    return " · ".join(f"{lv} {elo.shown(refs[lv])}" for lv in dict.fromkeys(levels)
                      if lv in refs)


def rating_note(rules: str) -> str:
    """The lines under a ruleset's board in ``stats``: the computers' fixed ratings, and what
    the mark of a provisional rating means (two lines, so four levels fit in 80 cells)."""
    return f"     {both('lobby_computer')}: {reference_text(rules)}\n     ? {both('provisional')}"


RATING_SECONDS = 10.0  # how long the lobby keeps the ratings it read before reading again
RATING_NAMES = 400  # seated names the lobby's ratings follow at most (its tables' seats)
RATING_ACCOUNTS = 1000  # viewers whose own ratings it follows at most (open lobbies)


class LobbyRatings(SharedBoard):
    """The ratings every lobby of the server shows: each seated player's in his table's
    ruleset, and each viewer's own. A lobby asks (:meth:`seat`, :meth:`own`) and gets what
    was read last; the names asked since are read at most every :data:`RATING_SECONDS`. No
    store: nothing (an unrated look)."""

    def __init__(self, store: Any, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(store, clock)
        self._new_at = 0.0  # the last read of names not read before
        self._seats: dict[tuple[str, str], Rating] = {}
        self._own: dict[int, dict[str, Rating]] = {}
        self._asked_seats: set[tuple[str, str]] = set()
        self._asked_own: set[int] = set()
        self._seen_seats: set[tuple[str, str]] = set()  # asked in the last read (rated or not)
        self._seen_own: set[int] = set()

    def seat(self, rules: str, nickname: str) -> Rating | None:
        """``nickname``'s rating in ``rules`` as last read (None: unrated, or not read yet)."""
        if self.store is not None and len(self._asked_seats) < RATING_NAMES:
            self._asked_seats.add((rules, nickname))
        return self._seats.get((rules, nickname))

    def own(self, account_id: int) -> dict[str, Rating]:
        """The viewer's ratings by ruleset as last read, the most played first."""
        if self.store is not None and len(self._asked_own) < RATING_ACCOUNTS:
            self._asked_own.add(account_id)
        return self._own.get(account_id, {})

    def refresh(self) -> None:
        """Read what was asked, if it is time (the lobby calls this as it redraws): all of it
        every :data:`RATING_SECONDS`, and a name not read yet within a second."""
        now = self.clock()
        if self.store is None or self._reading is not None:
            return
        if self._read_at is None or now - self._read_at >= RATING_SECONDS:
            seats, own = self._asked_seats, self._asked_own
            if not seats and not own:
                return
            self._read_at = self._new_at = now
            self._asked_seats, self._asked_own = set(), set()
            self._seen_seats, self._seen_own = seats, own
            self._start_read(seats, own, whole=True)
            return
        seats = self._asked_seats - self._seen_seats
        own = self._asked_own - self._seen_own
        if (seats or own) and now - self._new_at >= 1.0:
            self._new_at = now
            self._seen_seats |= seats
            self._seen_own |= own
            self._start_read(seats, own, whole=False)

    def _start_read(self, seats: set[tuple[str, str]], own: set[int], whole: bool) -> None:
        self._read_then(partial(self._read, seats, own),
                        lambda got: self._store_read(*got, whole=whole), "ratings")

    def _read(self, seats: set[tuple[str, str]], own: set[int]
              ) -> tuple[dict[tuple[str, str], Rating], dict[int, dict[str, Rating]]]:
        by_rules: dict[str, list[str]] = {}
        for rules, name in seats:
            by_rules.setdefault(rules, []).append(name)
        got_seats = {(rules, name): r for rules, names in by_rules.items()
                     for name, r in self.store.ratings(rules, names).items()}
        got_own = {a: self.store.ratings_of(a) for a in own}
        return got_seats, got_own

    def _store_read(self, seats: dict[tuple[str, str], Rating],
                    own: dict[int, dict[str, Rating]], whole: bool) -> None:
        """What was read: all that is shown (``whole``), or names added to it."""
        if whole:
            self._seats, self._own = seats, own
        else:
            self._seats.update(seats)
            self._own.update(own)


def rating_title(ratings: dict[str, Rating], width: int = 76) -> str:
    """The lobby title's line of the viewer's own ratings ("" for none): ``your rating 等级分:
    个旧 gejiu 1532? · 宜春 yichun 1490``, within ``width`` cells (the English names left out
    when they do not fit, then the rulesets played least)."""
    if not ratings:
        return ""
    def part(rules: str, r: Rating, english: bool) -> str:
        cls = RULESETS.get(rules)
        name = (f"{cls.zh} {rules}" if english else cls.zh) if cls is not None else rules
        return f"{clean_line(name, 24)} {elo.label(r.rating, r.games)}"
    items = list(ratings.items())
    for n in range(len(items), 0, -1):  # a ruleset dropped only when no name is left to cut
        for english in (True, False):
            line = f"{both('your_rating')}: {' · '.join(part(k, r, english) for k, r in items[:n])}"
            if cell_len(line) <= width:
                return line
    return ""


def boards_reading(store: Any) -> bool:
    """Whether the lobby's shared boards of ``store`` are reading it in a thread now (the
    store must not be closed under them)."""
    return any(b is not None and b._reading is not None
               for b in (LobbyLeaders._shared.get(store), LobbyRatings._shared.get(store)))
