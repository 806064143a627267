"""A tournament, pure: its entries, the seating of each round, duplicate scoring, standings.

No I/O and no clock: the server (``net/``) stores a :class:`Tournament` as the JSON of
:meth:`Tournament.to_json` and runs its rounds' tables; everything here is deterministic given
the tournament's seed.

- **Seating** (:meth:`Tournament.pair`): tables of four; a table short of people is filled
  with computer players of :attr:`Tournament.fill_level` (seats marked ``filler``), one a table
  from the last table back, so that no table has more computers than it must. Round 1 seats
  the entries in an order drawn from the seed; later rounds are Swiss: by standing, the
  tables chosen so that as few pairs as possible sit together again. Each table's winds are
  given so that each player's winds of the earlier rounds are repeated as little as possible.
- **Deals**: each round has a seed drawn from the tournament's (``random.Random`` of a string,
  which Python hashes the same everywhere). In a duplicate tournament every table of the round
  plays a game of that one seed with ``rotate_dealer`` (:class:`engine.game.Game`): hand k has
  the k-th hand seed and the dealer (first dealer + k - 1) at every table, whatever was won, so
  hand k is the same deal, seat for seat, everywhere (docs/rules-decisions.md). Otherwise each
  table has a seed of its own. A round's seeds are the server's secret until the round ends
  (:meth:`Tournament.public`).
- **Duplicate score** (:func:`duplicate_scores`): for each hand k and seat s, each player's net
  minus the mean of the nets of the others who held seat s of hand k at the round's other
  tables (0 where nobody else did); it sums to zero over each such group.
- **Standings** (:meth:`Tournament.standings`): the duplicate score first in a duplicate
  tournament, the raw score first otherwise, then the other score, then hands won, then the
  order of joining.
- **Who enters**: people by their accounts (:meth:`Tournament.join`), refused once started
  or twice (whom a private one admits is the server's to check); computers of a
  level its host adds (:meth:`Tournament.add_computer`), each named ``LEVEL N`` (a space: no
  account's name). A set start (:attr:`Tournament.starts_at`) is a number the server gives
  and compares with its own clock: nothing here reads one.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

OPEN, RUNNING, FINISHED = "open", "running", "finished"
STATES = (OPEN, RUNNING, FINISHED)
MIN_ENTRIES = 4  # a tournament starts with at least one table of four entries
SEARCH_NODES = 20_000  # the Swiss seating's search gives up past this many tables tried
WINDOW = 11  # a table is chosen among the best remaining player's 11 next in standing


class TournamentError(ValueError):
    """A refused change; ``code`` names the refusal (the words catalogue's key)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Entry:
    """One who plays in the tournament: an account (``pid`` > 0) or a computer of ``level``
    entered as a player (``pid`` < 0)."""

    pid: int
    name: str
    level: str | None = None


@dataclass(frozen=True)
class Seat:
    """A seat of a round's table: an entry's ``pid``, or None for a computer that fills a
    table short of people (``level`` says which)."""

    pid: int | None
    name: str
    level: str | None = None

    @property
    def filler(self) -> bool:
        return self.pid is None


@dataclass(frozen=True)
class TableResult:
    """What a table of a round played: each hand's net by seat, each hand's winners, and the
    finished game's ID (replay, review); ``closed``: the table was closed (an operator's
    ``close``) and the hands it finished count, as a round's time limit settles them."""

    nets: tuple[tuple[int, int, int, int], ...]
    winners: tuple[tuple[int, ...], ...] = ()
    game_id: str = ""
    closed: bool = False

    def totals(self) -> tuple[int, int, int, int]:
        return (sum(n[0] for n in self.nets), sum(n[1] for n in self.nets),
                sum(n[2] for n in self.nets), sum(n[3] for n in self.nets))


@dataclass(frozen=True)
class RoundTable:
    no: int  # 1, 2, ... within the round
    seats: tuple[Seat, Seat, Seat, Seat]  # by wind: east, south, west, north
    seed: int  # the game's seed (the server's secret until the round ends)


@dataclass
class Round:
    no: int
    seed: int
    tables: tuple[RoundTable, ...]
    results: dict[int, TableResult] = field(default_factory=dict)  # table no -> its result

    @property
    def over(self) -> bool:
        return len(self.results) == len(self.tables)


@dataclass(frozen=True)
class Standing:
    pid: int
    name: str
    level: str | None
    raw: int
    duplicate: float
    hands_won: int
    tables: int  # tables played


def duplicate_scores(round_: Round) -> dict[tuple[int, int], float]:
    """Each seat's duplicate score of the round's finished tables: ``(table no, seat) ->``
    the sum over its hands of its net minus the mean of the others who held that seat of that
    hand (0 for a hand nobody else played)."""
    out: dict[tuple[int, int], float] = {}
    results = sorted(round_.results.items())
    for table_no, result in results:
        for seat in range(4):
            total = 0.0
            for k, nets in enumerate(result.nets):
                others = [r.nets[k][seat] for no, r in results
                          if no != table_no and k < len(r.nets)]
                if others:
                    total += nets[seat] - sum(others) / len(others)
            out[(table_no, seat)] = total
    return out


_CLOCK_TIME = re.compile(r"([01]?[0-9]|2[0-3]):([0-5][0-9])")


def parse_start(text: str, now: float, most_seconds: float | None = None) -> float:
    """A set start (``--at``) as Unix time: ``HH:MM``, the next such time UTC after ``now``;
    or an ISO 8601 time with its offset (``2026-12-24T19:30+08:00``, ``…Z``), after ``now``
    and within ``most_seconds`` of it (None: no bound). TournamentError otherwise:
    ``tournament_at_bad`` (not such a time), ``tournament_at_past``, ``tournament_at_far``."""
    text = text.strip()
    clock = _CLOCK_TIME.fullmatch(text)
    if clock is not None:
        today = datetime.fromtimestamp(now, UTC)
        at = today.replace(hour=int(clock[1]), minute=int(clock[2]), second=0, microsecond=0)
        if at.timestamp() <= now:
            at += timedelta(days=1)
        return at.timestamp()
    when: datetime | None = None
    try:
        if len(text) <= 40 and "T" in text.upper():
            when = datetime.fromisoformat(text)
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:  # a time without its offset could be anyone's
        raise TournamentError("tournament_at_bad")
    seconds = when.timestamp()
    if seconds <= now:
        raise TournamentError("tournament_at_past")
    if most_seconds is not None and seconds - now > most_seconds:
        raise TournamentError("tournament_at_far")
    return seconds


def _draw_seed(seed: int, what: str) -> int:
    return random.Random(f"{seed}/{what}").getrandbits(31)


@dataclass
class Tournament:
    name: str
    rules: str
    rounds: int  # K rounds in all
    host: int  # the account that created it (it starts it; its leaving stops nothing)
    seed: int  # the server's secret: every round's seating and deals come from it
    options: tuple[tuple[str, Any], ...] = ()
    duplicate: bool = False
    fill_level: str = "normal"  # the computers that fill a table short of people
    host_name: str = ""  # the host's name when it was made
    # a round's time limit: past it each table plays at most one more hand (0: none)
    round_seconds: int = 0
    # when it starts itself (Unix time, as the server's clock reads it); None: when its host
    # starts it. Still open past it: fewer than four entries came (its host starts it later)
    starts_at: float | None = None
    private: bool = False  # only its host and the invited enter (the server checks who is)
    invited: tuple[str, ...] = ()  # a private one's invitations (net.runtime.privacy's form)
    entries: list[Entry] = field(default_factory=list)
    state: str = OPEN
    played: list[Round] = field(default_factory=list)

    # --- entries and start ------------------------------------------------------------------
    def join(self, entry: Entry) -> None:
        """``entry`` in: refused once started, or where its account (or name) is in already."""
        if self.state != OPEN:
            raise TournamentError("tournament_started")
        if any(e.pid == entry.pid or e.name == entry.name for e in self.entries):
            raise TournamentError("tournament_joined")
        self.entries.append(entry)

    def add_computer(self, level: str) -> Entry:
        """A computer of ``level`` entered as a player (its pid below 0, named ``LEVEL N``,
        N counting the computers entered): refused once started."""
        n = 1 + sum(e.pid < 0 for e in self.entries)
        entry = Entry(-n, f"{level} {n}", level)
        self.join(entry)
        return entry

    def start(self) -> Round:
        """The first round, seated: refused under :data:`MIN_ENTRIES` entries."""
        if self.state != OPEN:
            raise TournamentError("tournament_started")
        if len(self.entries) < MIN_ENTRIES:
            raise TournamentError("tournament_few")
        self.state = RUNNING
        return self._next_round()

    @property
    def current(self) -> Round | None:
        return self.played[-1] if self.played else None

    def record(self, round_no: int, table_no: int, result: TableResult) -> Round | None:
        """A table of the current round finished with ``result``. When it was the round's
        last, the round is scored and the next one seated (returned), or the tournament
        finished (None); None too while other tables play."""
        round_ = self.current
        if self.state != RUNNING or round_ is None or round_.no != round_no:
            raise TournamentError("tournament_no_round")
        if not any(t.no == table_no for t in round_.tables):
            raise TournamentError("tournament_no_table")
        if table_no in round_.results:
            return None  # told twice (a restart): the first is kept
        round_.results[table_no] = result
        if not round_.over:
            return None
        if len(self.played) >= self.rounds:
            self.state = FINISHED
            return None
        return self._next_round()

    # --- seating ----------------------------------------------------------------------------
    def _next_round(self) -> Round:
        no = len(self.played) + 1
        seed = _draw_seed(self.seed, f"round {no}")
        groups = self.pair(no)
        winds = self._winds()
        tables = []
        for i, group in enumerate(groups, 1):
            seats = _seat_winds(group, winds)
            table_seed = seed if self.duplicate else _draw_seed(seed, f"table {i}")
            tables.append(RoundTable(i, seats, table_seed))
        round_ = Round(no, seed, tuple(tables))
        self.played.append(round_)
        return round_

    def pair(self, round_no: int) -> list[list[Seat]]:
        """The tables of round ``round_no`` (not yet in :attr:`played`), each four seats in
        no set order (the winds are given after)."""
        people = self.standing_order() if self.played else self._drawn_order(round_no)
        n_tables = -(-len(people) // 4)
        fill = n_tables * 4 - len(people)
        sizes = [4] * n_tables
        for i in range(fill):  # one computer a table, from the last table back
            sizes[n_tables - 1 - i % n_tables] -= 1
        met = self._met()
        groups = _swiss(people, sizes, met)
        out = []
        for group in groups:
            seats = [Seat(e.pid, e.name, e.level) for e in group]
            seats += [Seat(None, self.fill_level, self.fill_level)] * (4 - len(seats))
            out.append(seats)
        return out

    def _drawn_order(self, round_no: int) -> list[Entry]:
        order = list(self.entries)
        random.Random(f"{self.seed}/order {round_no}").shuffle(order)
        return order

    def _met(self) -> dict[frozenset[int], int]:
        """How many times each pair of entries sat at one table."""
        met: dict[frozenset[int], int] = {}
        for round_ in self.played:
            for table in round_.tables:
                pids = [s.pid for s in table.seats if s.pid is not None]
                for a, b in itertools.combinations(pids, 2):
                    key = frozenset((a, b))
                    met[key] = met.get(key, 0) + 1
        return met

    def _winds(self) -> dict[int, list[int]]:
        """How many times each entry sat at each wind."""
        winds: dict[int, list[int]] = {}
        for round_ in self.played:
            for table in round_.tables:
                for wind, seat in enumerate(table.seats):
                    if seat.pid is not None:
                        winds.setdefault(seat.pid, [0, 0, 0, 0])[wind] += 1
        return winds

    # --- scores -----------------------------------------------------------------------------
    def standings(self) -> list[Standing]:
        """Every entry, best first, over the finished tables of every round."""
        raw = {e.pid: 0 for e in self.entries}
        dup = {e.pid: 0.0 for e in self.entries}
        won = {e.pid: 0 for e in self.entries}
        played = {e.pid: 0 for e in self.entries}
        for round_ in self.played:
            dups = duplicate_scores(round_) if self.duplicate else {}
            for table in round_.tables:
                result = round_.results.get(table.no)
                if result is None:
                    continue
                totals = result.totals()
                for seat_no, seat in enumerate(table.seats):
                    if seat.pid is None or seat.pid not in raw:
                        continue
                    raw[seat.pid] += totals[seat_no]
                    dup[seat.pid] += dups.get((table.no, seat_no), 0.0)
                    won[seat.pid] += sum(seat_no in w for w in result.winners)
                    played[seat.pid] += 1
        order = {e.pid: i for i, e in enumerate(self.entries)}

        def key(e: Entry) -> tuple[float, float, int, int]:
            first, second = (dup[e.pid], raw[e.pid]) if self.duplicate else (raw[e.pid],
                                                                            dup[e.pid])
            return (-first, -second, -won[e.pid], order[e.pid])

        return [Standing(e.pid, e.name, e.level, raw[e.pid], round(dup[e.pid], 2),
                         won[e.pid], played[e.pid]) for e in sorted(self.entries, key=key)]

    def standing_order(self) -> list[Entry]:
        by_pid = {e.pid: e for e in self.entries}
        return [by_pid[s.pid] for s in self.standings()]

    # --- what is shown, what is kept ----------------------------------------------------------
    def public(self) -> dict[str, Any]:
        """The whole tournament as anyone may see it (``tournament NAME --json``): every seed
        of a round not over left out, and the game IDs of its finished tables (their replays
        show the deals the other tables still play); names, not the accounts' ids."""
        data = self.to_json()
        data.pop("seed")
        data.pop("host")  # the accounts' ids are the server's own: names say who is who
        data.pop("invited")  # whom its host invited is the host's to know
        for entry in data["entries"]:
            entry.pop("pid")
        for round_json, round_ in zip(data["rounds"], self.played, strict=True):
            for table in round_json["tables"]:
                for seat in table["seats"]:
                    seat.pop("pid")
            if not round_.over:
                round_json.pop("seed")
                for table in round_json["tables"]:
                    table.pop("seed")
                    if table["result"] is not None:  # its replay would show the deals
                        table["result"]["game_id"] = ""
        data["standings"] = [
            {"name": s.name, "level": s.level, "raw": s.raw, "duplicate": s.duplicate,
             "hands_won": s.hands_won, "tables": s.tables} for s in self.standings()]
        return data

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "rules": self.rules, "options": dict(self.options),
            "rounds_total": self.rounds, "duplicate": self.duplicate, "host": self.host,
            "host_name": self.host_name, "round_seconds": self.round_seconds,
            "seed": self.seed, "fill_level": self.fill_level, "state": self.state,
            "starts_at": self.starts_at, "private": self.private, "invited": list(self.invited),
            "entries": [{"pid": e.pid, "name": e.name, "level": e.level}
                        for e in self.entries],
            "rounds": [_round_json(r) for r in self.played],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tournament:
        """What :meth:`to_json` wrote (ValueError, KeyError or TypeError for anything else)."""
        state = str(data["state"])
        if state not in STATES:
            raise ValueError(f"unknown state {state!r}")
        return cls(
            name=str(data["name"]), rules=str(data["rules"]), rounds=int(data["rounds_total"]),
            host=int(data["host"]), seed=int(data["seed"]),
            options=tuple(sorted(dict(data["options"]).items())),
            duplicate=bool(data["duplicate"]), fill_level=str(data["fill_level"]),
            host_name=str(data.get("host_name", "")),
            round_seconds=int(data.get("round_seconds", 0)),
            starts_at=None if data.get("starts_at") is None else float(data["starts_at"]),
            private=bool(data.get("private", False)),
            invited=tuple(str(i) for i in data.get("invited", ())),
            entries=[Entry(int(e["pid"]), str(e["name"]), _level(e["level"]))
                     for e in data["entries"]],
            state=state, played=[_round_from(r) for r in data["rounds"]])


def _level(value: Any) -> str | None:
    return None if value is None else str(value)


def _round_json(round_: Round) -> dict[str, Any]:
    return {
        "no": round_.no, "seed": round_.seed, "over": round_.over,
        "tables": [{
            "no": t.no, "seed": t.seed,
            "seats": [{"pid": s.pid, "name": s.name, "level": s.level} for s in t.seats],
            "result": _result_json(round_.results.get(t.no)),
        } for t in round_.tables],
    }


def _result_json(result: TableResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    out: dict[str, Any] = {
        "nets": [list(n) for n in result.nets], "winners": [list(w) for w in result.winners],
        "game_id": result.game_id, "totals": list(result.totals())}
    if result.closed:
        out["closed"] = True
    return out


def _round_from(data: Mapping[str, Any]) -> Round:
    tables = []
    results: dict[int, TableResult] = {}
    for t in data["tables"]:
        seats = [Seat(None if s["pid"] is None else int(s["pid"]), str(s["name"]),
                      _level(s["level"])) for s in t["seats"]]
        if len(seats) != 4:
            raise ValueError("a table has four seats")
        no = int(t["no"])
        tables.append(RoundTable(no, (seats[0], seats[1], seats[2], seats[3]), int(t["seed"])))
        r = t.get("result")
        if r is not None:
            nets = [tuple(int(x) for x in n) for n in r["nets"]]
            if any(len(n) != 4 for n in nets):
                raise ValueError("a hand's nets are four")
            results[no] = TableResult(
                tuple((n[0], n[1], n[2], n[3]) for n in nets),
                tuple(tuple(int(x) for x in w) for w in r["winners"]), str(r["game_id"]),
                bool(r.get("closed", False)))
    return Round(int(data["no"]), int(data["seed"]), tuple(tables), results)


def _repeats(group: Sequence[Entry], met: Mapping[frozenset[int], int]) -> int:
    return sum(met.get(frozenset((a.pid, b.pid)), 0)
               for a, b in itertools.combinations(group, 2))


def _swiss(people: list[Entry], sizes: list[int],
           met: Mapping[frozenset[int], int]) -> list[list[Entry]]:
    """``people`` (best first) into tables of ``sizes``: the seating with the fewest repeated
    pairs that a depth-first search finds within :data:`SEARCH_NODES`, trying at each table
    the best remaining player with the nearest in standing first; the plain order by
    standing where nobody met before."""
    best: list[list[Entry]] = []
    best_cost = [-1]
    nodes = [0]

    def search(rest: list[Entry], i: int, cost: int, chosen: list[list[Entry]]) -> None:
        if best_cost[0] == 0 or nodes[0] >= SEARCH_NODES:
            return
        if best_cost[0] >= 0 and cost >= best_cost[0]:
            return
        if i == len(sizes):
            best[:] = [list(g) for g in chosen]
            best_cost[0] = cost
            return
        head, others = rest[0], rest[1:]
        options = []
        window = min(len(others), WINDOW)  # the nearest in standing only: a bounded search
        for combo in itertools.combinations(range(window), sizes[i] - 1):
            group = [head, *(others[j] for j in combo)]
            options.append((_repeats(group, met), sum(combo), combo, group))
        options.sort(key=lambda o: (o[0], o[1]))
        for extra, _, combo, group in options:
            nodes[0] += 1
            left = [p for j, p in enumerate(others) if j not in combo]
            chosen.append(group)
            search(left, i + 1, cost + extra, chosen)
            chosen.pop()
            if best_cost[0] == 0 or nodes[0] >= SEARCH_NODES:
                return

    search(people, 0, 0, [])
    return best


def _seat_winds(group: Sequence[Seat], winds: Mapping[int, list[int]]) -> tuple[
        Seat, Seat, Seat, Seat]:
    """The four seats by wind, each player at the wind he sat at least before (the first
    such order in the group's order where several are as good)."""
    def cost(order: Iterable[Seat]) -> int:
        return sum(winds.get(s.pid, [0, 0, 0, 0])[w] for w, s in enumerate(order)
                   if s.pid is not None)

    best = min(itertools.permutations(group), key=cost)
    return (best[0], best[1], best[2], best[3])
