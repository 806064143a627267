"""``ssh HOST tournament …``: a text answer, with a terminal or without (issue 56).

``tournament`` lists the tournaments; ``tournament NAME`` shows one (its standings, its
rounds, each table's seats and state; a round's seeds once it is over), ``--json`` the whole
of it (:meth:`engine.tournament.Tournament.public`); ``tournament new NAME …`` makes one (its
maker is its host; ``--at`` its set start, ``--private --invite`` whom it admits), ``join
NAME`` enters the key's account, ``start NAME`` (its host) seats the first round, ``add NAME
LEVEL`` (its host) enters a computer, ``invite NAME NICK,...`` (its host) invites more. The
words are both languages' (an SSH command's reply comes before a language is known); the
refusals exit with status 1, as ``rename``'s."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime
from typing import Protocol

from rich.cells import cell_len

from engine.rulesets import RULESETS
from engine.tournament import OPEN, RUNNING, Seat, Tournament
from host.table_info import NOBODY, invite_parts, invite_shown
from net.commands import Command
from net.game_id import shown_game_id
from net.runtime.registry import Registry
from net.runtime.tournaments import TournamentRefused, table_name
from net.store.model import Account, StorageError
from words import both, tr

SEAT_LETTERS = "ESWN"
LOBBY_LISTED = 4  # tournaments the lobby's line names at most (``tournament`` lists them all)


class TournamentHost(Protocol):
    @property
    def registry(self) -> Registry: ...


class Replying(Protocol):
    """What the answer needs of a session (net.front.session.Session)."""

    def reply(self, text: str, status: int = 0, code: str = "") -> None: ...


async def answer(host: TournamentHost, account: Account, command: Command) -> tuple[str, int]:
    """The command's text and exit status."""
    board = host.registry.tournaments
    verb = command.words[0] if command.words else "list"
    try:
        if verb == "list":
            return listing(await board.listing(), board.clock.wall()), 0
        if verb == "new":
            t = await board.create(command.table, account, command.rules,
                                   dict(command.options), command.rounds, command.duplicate,
                                   command.round_minutes * 60, command.starts, command.private)
            made = " ".join(tr(lang, "tournament_made", name=t.name, rules=_rules(t),
                               rounds=t.rounds, format=_format(lang, t))
                            for lang in ("en", "zh"))
            if t.starts_at is not None:
                made += " " + both("tournament_starts", at=_when(t.starts_at))
            return made + _nobody_has(t), 0
        if verb == "add":
            entry = await board.add_computer(command.table, account, command.words[1])
            t = await board.get(command.table)
            return both("tournament_added", entry=entry.name, name=t.name, n=len(t.entries)), 0
        if verb == "invite":
            t = await board.invite(command.table, account, command.words[1:])
            return both("tournament_invited", name=t.name,
                        names=", ".join(invite_shown(i) for i in t.invited)) + _nobody_has(t), 0
        if verb == "join":
            t = await board.join(command.table, account)
            return both("tournament_in", name=t.name, n=len(t.entries)), 0
        if verb == "start":
            t = await board.start(command.table, account)
            round_ = t.current
            return both("tournament_begun", name=t.name,
                        n=len(round_.tables) if round_ else 0) + "\n" + shown(t), 0
        t = await board.get(command.table)
        if command.as_json:
            return json.dumps(t.public(), ensure_ascii=False), 0
        return shown(t, board.clock.wall()), 0
    except TournamentRefused as exc:
        en, zh = tr("en", exc.key, **exc.fields), tr("zh", exc.key, **exc.fields)
        return f"{both('error')}: {en} {zh}", 1
    except StorageError as exc:
        return f"{both('error')}: {exc}", 1


def _nobody_has(t: Tournament) -> str:
    """What an invitation of a nickname nobody keeps (it admits nobody) needs, if any."""
    nobody = [n for n, bound in map(invite_parts, t.invited) if bound == NOBODY]
    return "\n" + both("tournament_nobody_has", names=", ".join(nobody), name=t.name) \
        if nobody else ""


def _rules(t: Tournament) -> str:
    cls = RULESETS.get(t.rules)
    return f"{cls.zh} {cls.en}" if cls is not None else t.rules


def _format(lang: str, t: Tournament) -> str:
    return tr(lang, "tournament_duplicate" if t.duplicate else "tournament_raw")


def _state_key(t: Tournament) -> str:
    return {OPEN: "tournament_open", RUNNING: "tournament_running"}.get(
        t.state, "tournament_finished")


def _when(at: float) -> str:
    """A set start as everyone reads it: UTC (``HH:MM`` is typed so)."""
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _state(lang: str, t: Tournament, now: float | None) -> str:
    """Its state, with its set start while open (and why it is still open past it), and
    whether it is private (a private table's mark: 私)."""
    state = tr(lang, _state_key(t))
    if t.state == OPEN and t.starts_at is not None:
        missed = now is not None and now >= t.starts_at
        state += ", " + tr(lang, "tournament_start_missed" if missed else "tournament_starts",
                           at=_when(t.starts_at))
    if t.private:
        state += ", " + tr(lang, "tournament_private_mark")
    return state


def listing(ts: list[Tournament], now: float | None = None) -> str:
    if not ts:
        return both("tournaments_none", sep="\n")
    lines = [both("tournaments_list")]
    for t in ts:
        for lang in ("en", "zh"):
            lines.append("  " + tr(lang, "tournament_item", name=t.name, rules=_rules(t),
                                    format=_format(lang, t), state=_state(lang, t, now),
                                    n=len(t.entries)))
    return "\n".join(lines)


def _seat(lang: str, seat: Seat) -> str:
    if seat.filler:
        return tr(lang, "tournament_filler", level=seat.level or "")
    return seat.name


def _signed(value: float) -> str:
    return f"{value:+.1f}" if value != int(value) else f"{int(value):+d}"


def shown(t: Tournament, now: float | None = None) -> str:
    """``tournament NAME``: the head in both languages, the standings, each round's tables
    (a round's seed once it is over); ``now``: the server's wall clock (a set start passed)."""
    lines = []
    for lang in ("en", "zh"):
        lines.append(tr(lang, "tournament_head", name=t.name, rules=_rules(t),
                        format=_format(lang, t), state=_state(lang, t, now),
                        round=len(t.played), rounds=t.rounds, n=len(t.entries),
                        host=t.host_name or "?"))
    if t.round_seconds:
        lines.append(both("tournament_time_limit", minutes=-(-t.round_seconds // 60)))
    lines.append("")
    lines.append(both("tournament_standings" if t.duplicate else "tournament_standings_raw"))
    rows = t.standings()
    if not rows:
        lines.append("  " + both("tournament_nobody"))
    mark = both("tournament_computer", sep="")  # an entered computer's, as a name's tail
    names = [f"{r.name} {mark}" if r.level is not None else r.name for r in rows]
    width = max((cell_len(n) for n in names), default=0)
    for i, (r, name) in enumerate(zip(rows, names, strict=True), 1):
        scores = (f"{_signed(r.duplicate):>8} {r.raw:>+7d}" if t.duplicate
                  else f"{r.raw:>+7d}")
        pad = " " * (width - cell_len(name))
        lines.append(f"  {i:>3}. {name}{pad}  {scores}  {r.hands_won:>3}")
    for round_ in reversed(t.played):
        lines.append("")
        lines.append(both("tournament_round", round=round_.no))
        for table in round_.tables:
            result = round_.results.get(table.no)
            for lang in ("en", "zh"):
                seats = ", ".join(f"{SEAT_LETTERS[w]} {_seat(lang, s)}"
                                  for w, s in enumerate(table.seats))
                # a game's replay shows the deals the round's other tables may still play
                game_id = result.game_id if result is not None and round_.over else ""
                game_id = shown_game_id(game_id) if game_id else "-"
                state = (tr(lang, "tournament_table_plays") if result is None
                         else tr(lang, "tournament_table_closed", hands=len(result.nets),
                                 id=game_id) if result.closed
                         else tr(lang, "tournament_table_over", id=game_id))
                # a table still playing is joined (its entrants) or watched by its name
                lines.append("  " + tr(lang, "tournament_table" if result is None
                                       else "tournament_table_ended", table=table.no,
                                       seats=seats, state=state,
                                       name=table_name(t.name, round_.no, table.no)))
        if round_.over:
            lines.append("  " + both("tournament_seeds", seed=round_.seed))
    return "\n".join(lines)


def lobby_lines(registry: Registry, lang: str, account_id: int | None = None) -> list[str]:
    """The lobby's line of the tournaments not finished, in ``lang``, then a line saying
    where the account plays now if it does (none: no tournament, or a lobby's stand-in
    registry without them)."""
    board = getattr(registry, "tournaments", None)
    ts = board.listed() if board is not None else []
    if not ts:
        return []
    now = board.clock.wall() if board is not None else None
    items = [tr(lang, "lobby_tournament", name=t.name,
                format=tr(lang, "lobby_duplicate") if t.duplicate else "",
                state=_state(lang, t, now), round=len(t.played), rounds=t.rounds)
             for t in ts[:LOBBY_LISTED]]
    more = ", …" if len(ts) > LOBBY_LISTED else ""
    line = tr(lang, "lobby_tournaments", list=", ".join(items) + more)
    table = board.table_of(account_id) if board is not None and account_id is not None else None
    return [line, tr(lang, "tournament_your_table", table=table)] if table else [line]


async def reply(host: TournamentHost, session: Replying, account: Account,
                command: Command) -> None:
    text, status = await answer(host, account, command)
    with contextlib.suppress(OSError):  # the client left meanwhile
        session.reply(text + "\n", status)
