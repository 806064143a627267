"""What the store holds, as the rest of the server sees it, whichever database keeps it:
accounts, tables and their typed saved state (checked field by field when read), actions,
leaderboard rows, the errors, and the bounded readers both backends use on what they read."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

# What one value read from the file may be at most; a longer one is damage (a table's JSON is
# well under 4 KB, an action under 100 bytes, a hand's record under 100 KB).
MAX_TABLE_JSON = 256 * 1024  # a table's options or state
MAX_ACTION_JSON = 4 * 1024
MAX_RECORD = 4 * 1024 * 1024  # one hand's game record
MAX_GAME_RECORD = 16 * 1024 * 1024  # a finished game's whole record (every hand's)
MAX_GAMES_LISTED = 50  # an account's finished games listed by ``replay``, newest first
MAX_SETTINGS_JSON = 16 * 1024
MAX_NAME = 200  # a table's name or an account's nickname, in characters
MAX_SECRET = 512  # a keyless account's passphrase hash (about 150 characters)
MAX_TABLE_ROWS = 10_000  # tables read at start (the server keeps Limits.tables_total open)


@dataclass(frozen=True)
class Account:
    id: int
    nickname: str
    key_fingerprint: str | None = None
    guest: bool = False  # keyless, for one visit (net/front/accounts.py): nothing is kept for it

    @property
    def anonymous(self) -> bool:
        return self.key_fingerprint is None


class Renamed(Enum):
    """What :meth:`~net.store.base.Store.rename_account` did."""

    DONE = "done"
    TAKEN = "taken"  # another account has the name, or one that looks like it (its skeleton)
    SEATED = "seated"  # the account sits at a stored table, whose seat shows its name


@dataclass(frozen=True)
class KeylessRow:
    """The account that holds a nickname, as keyless logins see it."""

    account_id: int
    has_key: bool  # a key's account: a keyless login never enters it
    kind: str | None  # its secret: 'passphrase', 'guest', or None (from before passphrases)
    stored: str | None  # the passphrase's hash


def seated_accounts(state: str) -> list[int]:
    """The account ids seated in a table's saved state (a corrupt state: none)."""
    try:
        data = json.loads(state)
        seats = data.get("seats", []) if isinstance(data, dict) else []
        return [s["account"] for s in seats
                if isinstance(s, dict) and isinstance(s.get("account"), int)]
    except (ValueError, TypeError, AttributeError, RecursionError):
        return []


TABLE_STATE_VERSION = 2  # SavedTable.schema_version as written now (0: before it was named)
MAX_INVITED = 64  # invitations a saved private table may list (the server keeps 12)


def _field(d: dict[str, Any], key: str, what: str) -> Any:
    if key not in d:
        raise CorruptRow(f"{what} lacks {key!r}")
    return d[key]


def _text(value: Any, what: str, limit: int = MAX_NAME) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise CorruptRow(f"{what} is {value!r:.40}, not a name")
    return value


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise CorruptRow(f"{what} is {value!r:.40}, not true or false")
    return value


def _seat_no(value: Any, what: str) -> int:
    seat = whole(value, what)
    if not 0 <= seat <= 3:
        raise CorruptRow(f"{what} is {seat}, not a seat (0–3)")
    return seat


def _list(value: Any, what: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise CorruptRow(f"{what} is {value!r:.40}, not a list")
    if length is not None and len(value) != length:
        raise CorruptRow(f"{what} has {len(value)} entries, not {length}")
    return value


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise CorruptRow(f"{what} is {value!r:.40}, not an object")
    return value


@dataclass(frozen=True)
class SavedSeat:
    """Who sits in a seat of a saved table."""

    account: int
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"account": self.account, "name": self.name}

    @classmethod
    def from_json(cls, raw: Any, what: str) -> SavedSeat:
        d = _object(raw, what)
        return cls(whole(_field(d, "account", what), f"{what}.account"),
                   _text(_field(d, "name", what), f"{what}.name"))


@dataclass(frozen=True)
class SavedStake:
    """压鸽子: a spectator's account, its engine name and the seat it backs."""

    account: int
    name: str
    backs: int

    def to_json(self) -> dict[str, Any]:
        return {"account": self.account, "name": self.name, "backs": self.backs}

    @classmethod
    def from_json(cls, raw: Any, what: str) -> SavedStake:
        d = _object(raw, what)
        return cls(whole(_field(d, "account", what), f"{what}.account"),
                   _text(_field(d, "name", what), f"{what}.name"),
                   _seat_no(_field(d, "backs", what), f"{what}.backs"))


@dataclass(frozen=True)
class SavedHandStakes:
    """The stakes a started hand was dealt with, and the seats that allowed them."""

    stakes: tuple[SavedStake, ...] = ()
    allow: tuple[int, ...] = (0, 1, 2, 3)

    def to_json(self) -> dict[str, Any]:
        return {"stakes": [s.to_json() for s in self.stakes], "allow": list(self.allow)}

    @classmethod
    def from_json(cls, raw: Any, what: str) -> SavedHandStakes:
        d = _object(raw, what)
        stakes = _list(d.get("stakes", []), f"{what}.stakes")
        allow = _list(d.get("allow", [0, 1, 2, 3]), f"{what}.allow")
        return cls(tuple(SavedStake.from_json(x, f"{what}.stakes[{i}]")
                         for i, x in enumerate(stakes)),
                   tuple(_seat_no(x, f"{what}.allow[{i}]") for i, x in enumerate(allow)))


@dataclass(frozen=True)
class SavedTable:
    """A table's saved state, enough with its stored actions to resume it after a restart.
    ``schema_version`` says which layout the JSON had; :meth:`from_json` reads every earlier
    one and checks each field, so a damaged row is a :class:`CorruptRow`, never a crash in
    the middle of a restore."""

    seats: tuple[SavedSeat | None, ...] = (None, None, None, None)
    game_seed: int | None = None
    game_no: int = 0
    hands_started: int = 0
    allow: tuple[bool, ...] = (True, True, True, True)
    stakes: tuple[SavedStake, ...] = ()
    hand_stakes: tuple[tuple[int, SavedHandStakes], ...] = ()  # (hand number, its stakes)
    bot_levels: tuple[str, ...] | None = None  # E S W N, or None: the server's default
    creator: int | None = None
    host: str = ""  # the creator's nickname (a private table's host)
    private: bool = False
    invited: tuple[str, ...] = ()  # a private table's invitations: nicknames, fingerprints
    watchers: bool = True  # strangers may watch a private table
    # a duplicate tournament's table: the deal passes on after every hand (Game); read
    # as False from a state that does not name it
    rotate_dealer: bool = False
    schema_version: int = TABLE_STATE_VERSION

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": [s.to_json() if s is not None else None for s in self.seats],
            "game_seed": self.game_seed,
            "game_no": self.game_no,
            "hands_started": self.hands_started,
            "allow": list(self.allow),
            "stakes": [s.to_json() for s in self.stakes],
            "hand_stakes": {str(k): v.to_json() for k, v in self.hand_stakes},
            "bot_levels": list(self.bot_levels) if self.bot_levels is not None else None,
            "creator": self.creator,
            "host": self.host,
            "private": self.private,
            "invited": list(self.invited),
            "watchers": self.watchers,
            # named only where it is on: an ordinary table's state is as it was
            **({"rotate_dealer": True} if self.rotate_dealer else {}),
            "schema_version": self.schema_version,
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> SavedTable:
        version = raw.get("schema_version", 0)
        if type(version) is not int or not 0 <= version <= TABLE_STATE_VERSION:
            raise CorruptRow(f"its state has schema_version {version!r:.20} (this server "
                             f"reads 0 to {TABLE_STATE_VERSION})")
        d = dict(raw)
        for step in _STATE_MIGRATIONS[version:]:
            d = step(d)
        what = "its state"
        seats = _list(_field(d, "seats", what), f"{what}.seats", 4)
        seed = _field(d, "game_seed", what)
        levels = _field(d, "bot_levels", what)
        creator = _field(d, "creator", what)
        hand_stakes = _object(_field(d, "hand_stakes", what), f"{what}.hand_stakes")
        invited = _list(_field(d, "invited", what), f"{what}.invited")
        if len(invited) > MAX_INVITED:
            raise CorruptRow(f"{what}.invited has {len(invited)} entries (at most {MAX_INVITED})")
        hands: list[tuple[int, SavedHandStakes]] = []
        for k, v in hand_stakes.items():
            if not (k.isascii() and k.isdigit()) or len(k) > 9:
                raise CorruptRow(f"{what}.hand_stakes has the key {k!r:.20}, not a hand number")
            hands.append((int(k), SavedHandStakes.from_json(v, f"{what}.hand_stakes.{k}")))
        return cls(
            seats=tuple(None if s is None else SavedSeat.from_json(s, f"{what}.seats[{i}]")
                        for i, s in enumerate(seats)),
            game_seed=None if seed is None else whole(seed, f"{what}.game_seed"),
            game_no=whole(_field(d, "game_no", what), f"{what}.game_no"),
            hands_started=whole(_field(d, "hands_started", what), f"{what}.hands_started"),
            allow=tuple(_flag(x, f"{what}.allow[{i}]") for i, x in enumerate(
                _list(_field(d, "allow", what), f"{what}.allow", 4))),
            stakes=tuple(SavedStake.from_json(x, f"{what}.stakes[{i}]") for i, x in enumerate(
                _list(_field(d, "stakes", what), f"{what}.stakes"))),
            hand_stakes=tuple(hands),
            bot_levels=None if levels is None else tuple(
                _text(x, f"{what}.bot_levels[{i}]", 20)
                for i, x in enumerate(_list(levels, f"{what}.bot_levels", 4))),
            creator=None if creator is None else whole(creator, f"{what}.creator"),
            host=_text(_field(d, "host", what), f"{what}.host"),
            private=_flag(_field(d, "private", what), f"{what}.private"),
            invited=tuple(_text(x, f"{what}.invited[{i}]", 80)
                          for i, x in enumerate(invited)),
            watchers=_flag(_field(d, "watchers", what), f"{what}.watchers"),
            rotate_dealer=_flag(d.get("rotate_dealer", False), f"{what}.rotate_dealer"),
        )


def _state_v0_to_v1(d: dict[str, Any]) -> dict[str, Any]:
    """Version 0 (before the state named its version) left out what a table did not have
    yet: fill in what the restore assumed for each missing field."""
    defaults: dict[str, Any] = {
        "seats": [None] * 4, "game_seed": None, "game_no": 0, "hands_started": 0,
        "allow": [True] * 4, "stakes": [], "hand_stakes": {}, "bot_levels": None,
        "creator": None,
    }
    out = {**defaults, **d, "schema_version": 1}
    if isinstance(out["seats"], list):  # restore read the first four; each falsy one empty
        out["seats"] = [s or None for s in out["seats"][:4]]
        out["seats"] += [None] * (4 - len(out["seats"]))
    if isinstance(out["allow"], list):  # zip() read at most four, each as a truth value
        out["allow"] = [bool(x) for x in out["allow"][:4]] + [True] * (4 - len(out["allow"]))
    if not out["bot_levels"]:
        out["bot_levels"] = None
    return out


def _state_v1_to_v2(d: dict[str, Any]) -> dict[str, Any]:
    """Version 2 adds private tables: every table of before is public, its host unnamed."""
    return {"host": "", "private": False, "invited": [], "watchers": True, **d,
            "schema_version": 2}


# _STATE_MIGRATIONS[v] turns a state of schema_version v into one of v + 1
_STATE_MIGRATIONS: tuple[Callable[[dict[str, Any]], dict[str, Any]], ...] = (
    _state_v0_to_v1, _state_v1_to_v2)
assert len(_STATE_MIGRATIONS) == TABLE_STATE_VERSION


@dataclass
class TableRow:
    name: str
    rules: str
    options: dict[str, Any]
    state: SavedTable = field(default_factory=SavedTable)
    fault: str | None = None  # why the stored row cannot be read (then options are {})


@dataclass(frozen=True)
class ActionRow:
    game_no: int
    hand_no: int
    i: int
    seat: int
    action: dict[str, Any]


@dataclass(frozen=True)
class KeptGame:
    """A finished game kept for replay (``ssh host replay ID``): its whole JSON-lines record
    (the ``game`` line, then each hand's block) and who sat where ("" for a computer)."""

    game_id: str
    table_name: str
    rules: str
    finished: float  # Unix time
    record: str
    names: tuple[str, str, str, str]


@dataclass(frozen=True)
class GameEntry:
    """One line of an account's finished games (``ssh host replay``)."""

    game_id: str
    finished: float  # Unix time
    rules: str
    table_name: str
    seat: int
    score: int
    hands: int


@dataclass(frozen=True)
class LeaderRow:
    nickname: str
    games: int
    hands: int
    wins: int
    score: int
    rating: float | None = None  # the ruleset's rating (asked for one ruleset), None: unrated
    rated: int = 0  # the games that rating counts
    bot_games: int = 0  # of ``games``, those a program played (``bot join``)


@dataclass(frozen=True)
class Rating:
    """An account's rating in one ruleset (engine.rating) and the games it counts."""

    rating: float
    games: int


@dataclass(frozen=True)
class ComputerSeat:
    """A computer's seat at the end of a game, for the rating update: its final score and
    its level's fixed reference rating (engine.rating.reference)."""

    seat: int
    score: int
    rating: float


@dataclass(frozen=True)
class Ban:
    """An operator's ban (net/front/operators.py): ``kind`` 'key' (``target`` a key's
    fingerprint), 'name' (an account: ``account_id``, ``target`` its name when banned),
    'address' or 'net' (``target`` as ipaddress writes it); ``expires`` None: until unbanned."""

    kind: str
    target: str
    account_id: int | None
    reason: str
    operator: str
    created: float
    expires: float | None


@dataclass(frozen=True)
class Mute:
    """An operator's mute of an account's chat, until ``until`` (None: until unmuted)."""

    account_id: int
    nickname: str
    until: float | None
    operator: str
    created: float


@dataclass(frozen=True)
class AuditRow:
    """One operator action, as ``audit`` prints it."""

    at: float
    operator: str  # the operator's name and key fingerprint
    action: str
    target: str
    reason: str


@dataclass(frozen=True)
class Report:
    """A player's report of another for the operators (``/report NAME REASON``), with the
    names as they were then and the table it was made at ('': over SSH or in the lobby)."""

    at: float
    reporter_id: int
    reporter: str
    reported_id: int
    reported: str
    table: str
    reason: str


class StorageError(Exception):
    """A database the server must not run on: the message names the file and what to do."""


class CorruptRow(ValueError):
    """A stored row that cannot be read: too long, not JSON, or of the wrong kind."""


def json_object(raw: Any, what: str, limit: int) -> dict[str, Any]:
    """A stored JSON object; :class:`CorruptRow` saying what is wrong with it. ``raw`` is
    ``None`` when SQL left out a value longer than ``limit``."""
    if raw is None:
        raise CorruptRow(f"{what} is longer than {limit} bytes")
    if not isinstance(raw, str | bytes):
        raise CorruptRow(f"{what} is a {type(raw).__name__}, not JSON text")
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError
        raise CorruptRow(f"{what} is not JSON ({str(exc)[:80]})") from None
    if not isinstance(value, dict):
        raise CorruptRow(f"{what} is not a JSON object")
    return value


def whole(value: Any, what: str) -> int:
    if type(value) is not int:
        raise CorruptRow(f"{what} is {value!r:.40}, not a whole number")
    return value


def sum_number(value: Any) -> int:
    """A sum SQL computed (NULL for none; a damaged row may make it text or a float)."""
    if isinstance(value, int):
        return value
    try:
        return int(float(value or 0))
    except (TypeError, ValueError, OverflowError):
        return 0


def read_table_row(name: Any, kind: Any, length: Any, rules: Any, options: Any,
                   state: Any) -> TableRow:
    """A stored table's row read with its bounds (``kind``, ``length``: of its name); one
    that cannot be read is returned with its ``fault``."""
    shown = str(name)
    try:
        if kind != "text" or length > MAX_NAME:
            raise CorruptRow(f"its name is a {kind} of {length} characters")
        return TableRow(shown, str(rules), json_object(options, "its options", MAX_TABLE_JSON),
                        SavedTable.from_json(json_object(state, "its state", MAX_TABLE_JSON)))
    except CorruptRow as exc:
        return TableRow(shown, str(rules), {}, fault=str(exc))


def read_action_row(game_no: int, hand_no: Any, i: Any, seat: Any, action: Any) -> ActionRow:
    """A stored action read with its bounds; :class:`CorruptRow` when it cannot be."""
    what = f"action {i!r:.20} of hand {hand_no!r:.20}"
    return ActionRow(game_no, whole(hand_no, f"{what}: its hand"), whole(i, f"{what}: its index"),
                     whole(seat, f"{what}: its seat"),
                     json_object(action, what, MAX_ACTION_JSON))


def kept_game_row(game_id: str, table: Any, rules: Any, finished: Any, record: Any,
                  seated: list[tuple[Any, Any]]) -> KeptGame:
    """A kept game as read (its record bounded by the query: None when too long); the
    names of the seats found (a damaged seat number is left out)."""
    if not isinstance(record, str):
        raise CorruptRow(f"the record of game {game_id} is not readable (too long, or not "
                         f"text)")
    names = ["", "", "", ""]
    for seat, nickname in seated:
        if isinstance(seat, int) and 0 <= seat <= 3 and isinstance(nickname, str):
            names[seat] = nickname
    return KeptGame(game_id, str(table), str(rules),
                    float(finished) if isinstance(finished, (int, float)) else 0.0, record,
                    (names[0], names[1], names[2], names[3]))


def game_entries(rows: list[tuple[Any, ...]]) -> list[GameEntry]:
    """An account's games as read; a damaged row is left out."""
    out = []
    for game_id, finished, rules, table, seat, score, hands in rows:
        if (isinstance(game_id, str) and isinstance(finished, (int, float))
                and isinstance(seat, int) and 0 <= seat <= 3 and isinstance(score, int)
                and isinstance(hands, int)):
            out.append(GameEntry(game_id, float(finished), str(rules), str(table), seat, score,
                                 hands))
    return out
