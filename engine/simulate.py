"""Computer players play whole games while every invariant is checked after every action.

Checks after each action: all 136 tiles accounted for exactly once (wall, kong tiles, hands,
melds, ponds); settlements zero-sum and running scores zero-sum; no view leaks (each seat's view
holds exactly its own concealed tiles, and only counts of everybody else's). A violation raises
:class:`SimulationViolation` naming the seed, the hand and the action index that reproduce it.

Duplicate mode (``simulate(..., duplicate=True)``, ``mahjong-ssh simulate --duplicate``) plays
every deal :data:`ROTATIONS` times with the levels rotated through the seats, so that each level
meets the same tiles from every seat and the luck of the deal cancels out of the comparison.
A *deal* is the first hand of a one-hand :class:`~engine.game.Game` with the deal's seed: that
fixes everything a hand takes from its game (the hand's seed, hence the shuffle, the dice, the
wild / kong tiles; the dealer, from the game's first-dealer roll; hand number 1; running scores
0, 0, 0, 0) and nothing carries over from one deal to the next (no dealer kept after a win: that
would make the next deal depend on who won this one). Buying (买) and the rest of a hand's
ruleset state happen inside the hand, so the players' choices there are part of the play, not of
the deal. The statistics are per level, with the 95% interval computed over deals.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.bots import BasicPlayer, Player, make_player
from engine.game import Game, HandSummary
from engine.leaks import view_leaks
from engine.rulesets import find_ruleset
from engine.table import Hand, InvariantError, Phase
from engine.view import View, build_view

GAME_LENGTH = 1000  # the most hands_per_game allows
ROTATIONS = 4  # duplicate mode: plays per deal, one per rotation of the levels


def rotation_levels(levels: Sequence[str], rotation: int) -> tuple[str, ...]:
    """Each seat's level in play ``rotation`` of a duplicate deal: seat ``s`` gets
    ``levels[(s - rotation) % 4]`` (every level moves one seat on, E→S→W→N, per rotation), so
    over the four plays every level sits in every seat once."""
    return tuple(levels[(s - rotation) % 4] for s in range(4))


class SimulationViolation(AssertionError):
    def __init__(self, seed: int, hand_no: int, hand_seed: int, action_index: int, problem: str,
                 rotation: int | None = None):
        self.seed = seed
        self.hand_no = hand_no  # in duplicate mode: the play's number, deal × 4 + rotation + 1
        self.hand_seed = hand_seed
        self.action_index = action_index
        self.problem = problem
        self.rotation = rotation  # duplicate mode only
        where = "" if rotation is None else (
            f" (deal {(hand_no - 1) // ROTATIONS + 1}, rotation {rotation})")
        super().__init__(
            f"violation at seed {seed}, hand {hand_no}{where} (hand seed {hand_seed}), "
            f"action index {action_index}: {problem}"
        )

    def __reduce__(self) -> tuple[Any, ...]:  # so that it crosses a process boundary whole
        return (SimulationViolation, (self.seed, self.hand_no, self.hand_seed,
                                      self.action_index, self.problem, self.rotation))


@dataclass
class SimulationReport:
    rules: str
    seed: int
    hands: int = 0
    actions: int = 0
    draws: int = 0  # drawn hands (荒牌: the wall ran out), not tiles drawn
    wins_by_pattern: Counter[str] = field(default_factory=Counter)
    win_methods: Counter[str] = field(default_factory=Counter)
    multi_winner_hands: int = 0
    seat_wins: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    seat_net: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    total_paid: int = 0  # sum of positive nets over hands (what changed hands)
    labels: tuple[str, ...] = ()  # each seat's player (e.g. its computer level), if named
    seat_hand_net: list[list[int]] = field(default_factory=lambda: [[], [], [], []])
    seat_deal_ins: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # hands, not wins
    # duplicate mode: ``hands`` counts plays, play i being rotation i % 4 of deal i // 4 (so
    # ``seat_hand_net[s][i]`` is seat s's net in it, with level ``rotation_levels(labels,
    # i % 4)[s]``); wins and deal-ins are also booked per level
    duplicate: bool = False
    label_wins: Counter[str] = field(default_factory=Counter)
    label_deal_ins: Counter[str] = field(default_factory=Counter)

    def merge(self, later: SimulationReport) -> None:
        """Add the report of the run's next chunk (see :func:`plan`) to this one."""
        if (later.rules, later.seed, later.labels, later.duplicate) != (
                self.rules, self.seed, self.labels, self.duplicate):
            raise ValueError("the reports are not of one run")
        self.hands += later.hands
        self.actions += later.actions
        self.draws += later.draws
        self.wins_by_pattern.update(later.wins_by_pattern)
        self.win_methods.update(later.win_methods)
        self.multi_winner_hands += later.multi_winner_hands
        self.total_paid += later.total_paid
        for s in range(4):
            self.seat_wins[s] += later.seat_wins[s]
            self.seat_net[s] += later.seat_net[s]
            self.seat_hand_net[s].extend(later.seat_hand_net[s])
            self.seat_deal_ins[s] += later.seat_deal_ins[s]
        self.label_wins.update(later.label_wins)
        self.label_deal_ins.update(later.label_deal_ins)

    @property
    def deals(self) -> int:
        """Duplicate mode: the deals played (each :data:`ROTATIONS` times); else 0."""
        return self.hands // ROTATIONS if self.duplicate else 0

    def mean_payment(self) -> float:
        return self.total_paid / self.hands if self.hands else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "seed": self.seed,
            "hands": self.hands,
            "actions": self.actions,
            "draws": self.draws,
            "wins_by_pattern": dict(self.wins_by_pattern.most_common()),
            "win_methods": dict(self.win_methods.most_common()),
            "multi_winner_hands": self.multi_winner_hands,
            "seat_wins": self.seat_wins,
            "seat_net": self.seat_net,
            "mean_payment_per_hand": round(self.mean_payment(), 3),
            "seat_deal_ins": self.seat_deal_ins,
            "seats": [st.to_json() for st in self.seat_stats()],
            "levels": [st.to_json() for st in self.label_stats()],
            "duplicate": ({"deals": self.deals, "plays_per_deal": ROTATIONS,
                           "interval_over": "deals"} if self.duplicate else None),
        }

    def seat_stats(self) -> list[SeatStats]:
        """Per seat: mean points per hand with a 95% interval, win and deal-in rates. None in
        duplicate mode, where a seat's player changes from play to play."""
        if self.duplicate:
            return []
        labels = self.labels or tuple("ESWN")
        return [
            SeatStats.of(f"{'ESWN'[s]} {labels[s]}" if self.labels else labels[s],
                         [float(v) for v in self.seat_hand_net[s]],
                         self.seat_wins[s], self.seat_deal_ins[s])
            for s in range(4)
        ]

    def label_stats(self) -> list[SeatStats]:
        """Per label (computer level) over its seats: the per-hand mean of those seats' nets
        (so the interval comes from the spread of whole hands)."""
        if not self.labels:
            return []
        if self.duplicate:
            return self.duplicate_stats()
        out = []
        for label in sorted(set(self.labels), key=self.labels.index):
            seats = [s for s in range(4) if self.labels[s] == label]
            per_hand = [sum(self.seat_hand_net[s][i] for s in seats) / len(seats)
                        for i in range(self.hands)]
            out.append(SeatStats.of(
                f"{label} x{len(seats)}", per_hand,
                sum(self.seat_wins[s] for s in seats) / len(seats),
                sum(self.seat_deal_ins[s] for s in seats) / len(seats),
            ))
        return out

    def deal_means(self, label: str) -> list[float]:
        """Duplicate mode: per deal, ``label``'s mean net over every (play, seat) it held in
        the deal's :data:`ROTATIONS` plays: the deal's one sample for that level."""
        seats = [rotation_levels(self.labels, r) for r in range(ROTATIONS)]
        out = []
        for d in range(self.deals):
            nets = [self.seat_hand_net[s][d * ROTATIONS + r]
                    for r in range(ROTATIONS) for s in range(4) if seats[r][s] == label]
            out.append(sum(nets) / len(nets))
        return out

    def duplicate_stats(self) -> list[SeatStats]:
        """Duplicate mode, per level: mean points per hand, its 95% interval over DEALS (the
        independent unit: a deal's plays share its tiles, so they are not independent samples),
        win and deal-in rates per hand the level played in a seat."""
        out = []
        for label in sorted(set(self.labels), key=self.labels.index):
            k = self.labels.count(label)
            seat_hands = self.deals * ROTATIONS * k
            st = SeatStats.of(f"{label} x{k}", self.deal_means(label), 0, 0)
            out.append(SeatStats(
                st.name, self.deals * ROTATIONS, st.mean, st.ci95,
                self.label_wins[label] / seat_hands if seat_hands else 0.0,
                self.label_deal_ins[label] / seat_hands if seat_hands else 0.0,
                deals=self.deals,
            ))
        return out


@dataclass(frozen=True)
class SeatStats:
    name: str
    hands: int
    mean: float  # points per hand
    ci95: float  # half-width of the 95% confidence interval of the mean (normal approx.)
    win_rate: float
    deal_in_rate: float
    deals: int | None = None  # duplicate mode: the deals the interval is computed over

    @classmethod
    def of(cls, name: str, nets: Sequence[float], wins: float, deal_ins: float) -> SeatStats:
        n = len(nets)
        mean = sum(nets) / n if n else 0.0
        var = sum((x - mean) ** 2 for x in nets) / (n - 1) if n > 1 else 0.0
        half = 1.96 * (var / n) ** 0.5 if n else 0.0
        return cls(name, n, mean, half, wins / n if n else 0.0, deal_ins / n if n else 0.0)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name, "hands": self.hands, "mean": round(self.mean, 3),
            "ci95": round(self.ci95, 3), "win_rate": round(self.win_rate, 4),
            "deal_in_rate": round(self.deal_in_rate, 4)}
        if self.deals is not None:
            out["deals"] = self.deals
        return out


def check_view(hand: Hand, view: View) -> None:
    """The cheap structural leak check used after every action; also checks that the view's
    cached parts equal a view built from scratch."""
    saved, hand.view_cache = hand.view_cache, {}
    try:
        fresh = build_view(hand, view.viewer)
    finally:
        hand.view_cache = saved
    if fresh != view:
        raise InvariantError(f"the cached view of {view.viewer} is stale")
    for p in view.seats:
        if len(hand.seats[p.seat].concealed) != p.concealed_count:
            raise InvariantError(f"view shows a wrong count for seat {p.seat}")
    if view.viewer is None:
        if view.hand or view.drawn is not None or view.legal:
            raise InvariantError("a spectator view holds concealed tiles or actions")
        return
    own = sorted(hand.seats[view.viewer].kinds())
    shown = sorted([*view.hand, *([view.drawn] if view.drawn is not None else [])])
    if hand.phase is not Phase.BUY and own != shown:
        raise InvariantError(f"view of seat {view.viewer} does not show exactly its own hand")
    for a in view.legal:
        if a not in hand.legal_actions(view.viewer):
            raise InvariantError(f"view of seat {view.viewer} offers an illegal action {a}")


def play_hand(
    hand: Hand,
    players: Sequence[Player],
    check: bool = True,
    on_violation: Callable[[int, str], None] | None = None,
    watch: Callable[[Hand], None] | None = None,
) -> None:
    """Let ``players`` (one per seat) play ``hand`` to its end. With ``check``, after every
    action: the tile and zero-sum invariants, every view's structure and caches, and a re-deal
    of the hidden tiles for one viewer in turn (:func:`engine.leaks.view_leaks`). ``watch``
    is called before the first action and after every one (a program playing a seat over the
    bot protocol hears every event that way)."""
    rng = random.Random(hand.seed)
    index = 0
    if watch is not None:
        watch(hand)
    while not hand.is_over:
        waiting = hand.to_act()
        if not waiting:
            raise InvariantError("the table waits for nobody but the hand is not over")
        seat = waiting[0]
        action = players[seat].choose(build_view(hand, seat))
        hand.apply(seat, action)
        index += 1
        if watch is not None:
            watch(hand)
        if check:
            try:
                hand.check_invariants()
                viewers: tuple[int | None, ...] = (0, 1, 2, 3, None)
                for viewer in viewers:
                    check_view(hand, build_view(hand, viewer))
                leak_viewer = viewers[index % 5]
                if view_leaks(hand, leak_viewer, rng):
                    raise InvariantError(f"the view of {leak_viewer} depends on hidden tiles")
            except InvariantError as exc:
                if on_violation is not None:
                    on_violation(index - 1, str(exc))
                raise


@dataclass(frozen=True)
class Chunk:
    """A piece of a simulation that can be played on its own (in another process, say) and
    whose report :meth:`SimulationReport.merge` joins to the others, in order, into exactly
    the report of the whole run. Normal mode: one game of ``hands`` hands with seed
    ``seeds[0]``, its first hand being hand ``first + 1`` of the run. Duplicate mode: the deals
    with ``seeds``, the first being deal ``first`` (from 0) of the run."""

    rules: str
    seed: int  # the run's seed (named by a violation)
    first: int
    seeds: tuple[int, ...]
    hands: int  # hands played by the chunk
    options: tuple[tuple[str, Any], ...] = ()
    levels: tuple[str, ...] | None = None
    duplicate: bool = False
    check: bool = True


def plan(
    rules: str,
    hands: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    check: bool = True,
    levels: Sequence[str] | None = None,
    duplicate: bool = False,
    deals_per_chunk: int = 0,
) -> list[Chunk]:
    """The run :func:`simulate` makes, cut into chunks (:class:`Chunk`): one per game in normal
    mode (games of at most :data:`GAME_LENGTH` hands: the first has ``seed``, the next ones
    seeds drawn from ``random.Random(seed)``), and in duplicate mode blocks of
    ``deals_per_chunk`` deals (all of them in one if 0), deal k having the k-th seed drawn from
    ``random.Random(seed)``. Raises ValueError for a run that cannot be made."""
    if hands < 0:
        raise ValueError(f"cannot play {hands} hands")
    if levels is not None and len(levels) != 4:
        raise ValueError(f"four seats need four levels, got {len(levels)}")
    opts = dict(options or {})
    lv = tuple(levels) if levels is not None else None
    if duplicate:
        if lv is None:
            raise ValueError("duplicate mode needs levels (and makes its own players)")
        if hands % ROTATIONS:
            raise ValueError(f"duplicate mode plays each deal {ROTATIONS} times: "
                             f"{hands} hands is not a multiple of {ROTATIONS}")
        opts["hands_per_game"] = 1
        find_ruleset(rules, opts)  # an OptionError before any play
        draw = random.Random(seed)
        seeds = [draw.getrandbits(63) for _ in range(hands // ROTATIONS)]
        step = deals_per_chunk or max(len(seeds), 1)
        return [Chunk(rules, seed, k, tuple(seeds[k:k + step]),
                      len(seeds[k:k + step]) * ROTATIONS, tuple(opts.items()), lv, True, check)
                for k in range(0, max(len(seeds), 1), step)]  # one, empty, for 0 hands
    draw = random.Random(seed)
    chunks: list[Chunk] = []
    played, game_seed = 0, seed
    while played < hands or not chunks:
        n = min(hands - played, GAME_LENGTH)
        opts["hands_per_game"] = n or 1
        chunks.append(Chunk(rules, seed, played, (game_seed,), n, tuple(opts.items()), lv,
                            False, check))
        played += n
        game_seed = draw.getrandbits(63)
    find_ruleset(rules, dict(chunks[0].options))
    return chunks


def play_chunk(
    chunk: Chunk,
    players: Sequence[Player] | None = None,
    on_hand: Callable[[Hand], None] | None = None,
    make: Callable[[str], Player] | None = None,
    watch: Callable[[Hand, Sequence[Player]], None] | None = None,
) -> SimulationReport:
    """Play one :class:`Chunk` of a run: its report, to be merged with the others'. ``make``
    gives the player of a label (its computer level by default; ``arena`` also gives programs);
    ``watch`` is told the hand and its players before the first action and after every one."""
    if make is None:
        make = make_player

    opts = dict(chunk.options)
    labels = chunk.levels or ()
    report = SimulationReport(rules=find_ruleset(chunk.rules, opts).name, seed=chunk.seed,
                              labels=labels, duplicate=chunk.duplicate)
    if chunk.duplicate:
        for i, deal_seed in enumerate(chunk.seeds):
            d = chunk.first + i
            for r in range(ROTATIONS):
                seated = rotation_levels(labels, r)
                game = Game(chunk.rules, deal_seed, opts)
                hand, summary = _play(game, [make(level) for level in seated],
                                      chunk.check, on_hand, chunk.seed, d * ROTATIONS + r + 1, r,
                                      watch)
                _book(report, hand, summary)
                assert hand.settlement is not None
                for w in hand.settlement.wins:
                    report.label_wins[seated[w.seat]] += 1
                for s in _dealt_in(hand):
                    report.label_deal_ins[seated[s]] += 1
        return report
    if players is None:
        players = ([make(level) for level in labels] if labels
                   else [BasicPlayer() for _ in range(4)])
    game = Game(chunk.rules, chunk.seeds[0], opts)
    for i in range(chunk.hands):
        hand, summary = _play(game, players, chunk.check, on_hand, chunk.seed,
                              chunk.first + i + 1, None, watch)
        _book(report, hand, summary)
    return report


def simulate(
    rules: str,
    hands: int,
    seed: int,
    players: Sequence[Player] | None = None,
    options: Mapping[str, Any] | None = None,
    check: bool = True,
    on_hand: Callable[[Hand], None] | None = None,
    levels: Sequence[str] | None = None,
    duplicate: bool = False,
) -> SimulationReport:
    """Play ``hands`` hands and return the statistics; ``on_hand`` is called with every
    finished hand (e.g. to write its record). ``levels`` names a computer level per seat
    (``easy`` / ``normal`` / ``hard``) instead of ``players``.

    The hands are played as consecutive games of at most :data:`GAME_LENGTH` hands (the
    longest game the table options allow): the first game has ``seed``, the next ones seeds
    drawn from ``random.Random(seed)``, so the first N hands are the same whatever ``hands`` is.

    With ``duplicate`` (which needs ``levels``), ``hands`` counts the hands played and must be
    a multiple of :data:`ROTATIONS`: ``hands // 4`` deals are each played four times, play
    ``r`` seating ``rotation_levels(levels, r)`` with players made afresh for it. Deal k is the
    one hand of a ``Game`` whose seed is the k-th drawn from ``random.Random(seed)`` (see the
    module docstring), so the first deals are the same whatever ``hands`` is.

    The run is the :func:`plan`'s chunks played in turn and merged: playing them apart (in
    other processes) and merging them in order gives the same report.
    """
    if duplicate and players is not None:
        raise ValueError("duplicate mode needs levels (and makes its own players)")
    chunks = plan(rules, hands, seed, options, check, levels, duplicate)
    report = play_chunk(chunks[0], players, on_hand)
    for chunk in chunks[1:]:
        report.merge(play_chunk(chunk, players, on_hand))
    return report


def _play(
    game: Game,
    players: Sequence[Player],
    check: bool,
    on_hand: Callable[[Hand], None] | None,
    seed: int,
    number: int,
    rotation: int | None = None,
    watch: Callable[[Hand, Sequence[Player]], None] | None = None,
) -> tuple[Hand, HandSummary]:
    """Play the game's next hand (hand ``number`` of the simulation) and settle it."""
    hand = game.new_hand()
    seen = None if watch is None else (lambda h: watch(h, players))

    def fail(index: int, problem: str) -> None:
        raise SimulationViolation(seed, number, hand.seed, index, problem, rotation)

    try:
        play_hand(hand, players, check=check, on_violation=fail, watch=seen)
    except SimulationViolation:
        if on_hand is not None:
            on_hand(hand)  # the record up to the violation
        raise
    except Exception as exc:  # an engine error is a violation too
        if on_hand is not None:
            on_hand(hand)
        raise SimulationViolation(
            seed, number, hand.seed, len(hand.actions), f"{type(exc).__name__}: {exc}",
            rotation,
        ) from exc
    summary = game.finish_hand()
    if on_hand is not None:
        on_hand(hand)
    if check and sum(game.scores) + sum(game.spectator_scores.values()) != 0:
        raise SimulationViolation(
            seed, number, hand.seed, len(hand.actions), "running scores not zero-sum", rotation
        )
    return hand, summary


def _dealt_in(hand: Hand) -> set[int]:
    """The seats that discarded a winning tile or had a kong robbed."""
    return {w.from_seat for w in hand.wins if w.from_seat is not None}


def _book(report: SimulationReport, hand: Hand, summary: HandSummary) -> None:
    report.hands += 1
    report.actions += len(hand.actions)
    settlement = hand.settlement
    assert settlement is not None
    if not settlement.wins:
        report.draws += 1
    if len(settlement.wins) > 1:
        report.multi_winner_hands += 1
    for w in settlement.wins:
        report.wins_by_pattern[f"{w.pattern_zh} {w.pattern_en}"] += 1
        report.seat_wins[w.seat] += 1
    for win in hand.wins:
        report.win_methods[win.how.value] += 1
    for s in range(4):
        report.seat_net[s] += summary.net[s]
        report.seat_hand_net[s].append(summary.net[s])
    for s in _dealt_in(hand):
        report.seat_deal_ins[s] += 1  # hands, not wins
    report.total_paid += sum(v for _, v in settlement.parties() if v > 0)
