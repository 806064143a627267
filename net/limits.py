"""Every limit on what a client controls, in one place (the server's policy).

Each quantity a client sends or makes the server keep is bounded here: the terminal it asks
for, the bytes it types, the environment it sends, the connections, channels and sessions it
opens, its authentication attempts, its chat lines and tables, and the log lines it can cause.
The defaults are for a server on a public address, after OpenSSH's own (``MaxStartups``,
``MaxAuthTries``, ``LoginGraceTime``, ``AcceptEnv``, ``MaxSessions``); ``serve --limit
NAME=VALUE`` and ``serve --limits FILE`` (TOML, a ``[limits]`` table) change them.
"""

from __future__ import annotations

import logging
import random
import time
import tomllib
from collections import deque
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, TypeVar


@dataclass(frozen=True)
class Limits:
    # --- the terminal: what a session renders (a pty request or a window change asking for
    # more gets this much; the table never needs more than 300x100 cells)
    max_columns: int = 300
    max_rows: int = 100

    # --- input: the SSH receive window of a session channel (what a client can have in flight
    # before it must wait for us), the bytes parsed in one turn of the event loop, and the
    # bytes waiting to be parsed; past the backlog, input is dropped and the player told once
    channel_window: int = 8 * 1024
    channel_packet: int = 8 * 1024
    # SSH packets a session's input may come in a second (a burst of twice that): past it the
    # channel stops taking data for a moment (the client waits: SSH flow control), so a flood
    # of tiny packets, each decrypted and dispatched on the event loop, costs little
    input_packets_per_second: int = 200
    input_chunk: int = 2048
    input_backlog: int = 16 * 1024
    input_events_backlog: int = 256  # parsed keys waiting behind a key being dispatched
    input_events_per_turn: int = 128  # events parsed in one turn (parsing costs by the event,
    # whatever the chunk; past this the rest waits for the next turn)

    # --- ``bot join``: a program's lines on its channel (longer ones are refused unread, see
    # engine.botproto.MAX_ANSWER_BYTES), how many it may send a second (a burst of twice
    # that; past it a line is refused), and the protocol's lines waiting for a program that
    # reads nothing before its session is closed
    bot_lines_per_second: int = 20
    bot_unread_bytes: int = 1024 * 1024
    # the helper commands a program may send a second (``waits``, ``value``: each one works out
    # waits or a settlement for it; a burst of twice that), past it ``too_fast``; and its
    # handshake's name and version, each cut to this many characters for the lobby's line
    bot_helpers_per_second: int = 5
    bot_hello_chars: int = 24

    # --- environment (AcceptEnv): only these names, this many, this long
    env_names: tuple[str, ...] = ("LANG", "LC_ALL", "LC_MESSAGES", "LC_CTYPE", "COLORTERM")
    env_max: int = 8
    env_value_bytes: int = 64
    env_requests: int = 32  # env requests on one channel before further ones are refused

    # --- connections
    max_sessions: int = 4  # session channels on one connection (MaxSessions)
    sessions_per_account: int = 6  # sessions one account holds open at once
    connections_per_address: int = 20  # authenticated connections from one address
    unauth_per_address: int = 10  # connections from one address not yet logged in: a newer
    # one drops that address's oldest, so an address that logs in is never locked out
    unauth_start: int = 30  # MaxStartups start:rate:full, for all addresses together:
    unauth_rate: int = 30  # past start, a new connection is refused with this % chance,
    unauth_full: int = 150  # rising to 100 % at full
    connects_per_address_minute: int = 120  # new connections from one address in a minute
    # (each costs a key exchange), except from an address that logged in with a key or a
    # passphrase within 10 minutes (a guest's login, which anyone can make, does not count)
    login_grace: float = 30.0  # seconds to log in (LoginGraceTime)
    channel_grace: float = 30.0  # seconds a logged-in connection may go without a session
    idle_seconds: float = 1800.0  # no key from a session this long: it is closed
    max_auth_tries: int = 6  # failed attempts of any method on one connection (MaxAuthTries)
    logins_per_address_minute: int = 60  # logins from one address in a minute (each may make
    # an account: a flood of them must not grow the database without end)
    passphrase_min: int = 8  # a new keyless account's passphrase, in characters (one kept
    # from when fewer were asked for still opens its account)
    passphrase_max: int = 128
    hash_concurrency: int = 2  # passphrase hashes (scrypt, 16 MB each) computed at once, an
    # abandoned check's included (it runs to its end holding its place)
    # wrong passphrases for one name, from every connection and address together: after
    # passphrase_free_failures, each further attempt on the name waits passphrase_backoff
    # seconds, doubled with each failure up to passphrase_backoff_max (one attempt that would
    # wait longer than half the login grace is refused at once); a right one clears the count.
    # The names followed are at most passphrase_names_followed (the oldest forgotten first)
    passphrase_free_failures: int = 5
    passphrase_backoff: float = 1.0
    passphrase_backoff_max: float = 300.0
    passphrase_names_followed: int = 10_000
    guests_per_address: int = 8  # guests (Enter at the passphrase prompt) connected at once
    # from one address: each holds a name while it is connected

    # --- sessions on the server: app and ``bot join`` sessions (not a one-line command's
    # answer) open at once, from all addresses, and from one. The last ``sessions_reserved``
    # of the total are kept for players who hold a seat at a table here, so idlers in the
    # lobby cannot lock a seated player out of his own game. A lobby session costs about
    # 0.8 MB at 300x100 (0.45 MB at 80x24): what strangers can hold (the total less the
    # reserve) stays within ~50 MB over an idle server's memory
    sessions_total: int = 96
    sessions_reserved: int = 32
    sessions_per_address: int = 16
    # the lobby's list of tables drawn again, over all lobby sessions, at most this many times
    # a second: a lobby looks each second, but one redraw costs 6-10 ms of the loop, and with
    # 100 lobby sessions every change of any table took a second of CPU in one burst (each
    # lobby then redraws every N/this seconds: 5 s with 100)
    lobby_redraws_per_second: int = 20

    # --- SSH messages: every packet a client sends, of any kind, is counted against its
    # connection's rate (a burst of twice it); past it the connection stops reading for a
    # moment (TCP flow control: the client waits), so no flood of cheap messages (ignore,
    # debug, window adjusts, requests) is dispatched on the event loop faster than this.
    # Clients send an ignore message with each keystroke (OpenSSH's keystroke-timing chaff,
    # asyncssh's too), so a typing client sends twice what its channel carries: this is well
    # above that, and a session's own data is held back first (input_packets_per_second)
    packets_per_second: int = 1000
    # past these the connection is closed: global requests (a client's keepalives come one
    # every few seconds), requests on one session channel (window changes, signals, breaks;
    # a window being dragged sends a few dozen a second; the environment requests a client
    # sends before its shell count too), public-key queries without a signature before
    # login (an agent offers its keys one by one; MaxAuthTries counts those that fail, these
    # are answered "that key would do")
    global_requests_per_second: int = 10
    global_requests_burst: int = 20
    channel_requests_per_second: int = 20
    channel_requests_burst: int = 300
    key_queries: int = 16
    # window changes applied to a session's screen a second: the last size of a storm wins,
    # so a storm costs a redraw per interval
    resizes_per_second: int = 4

    # --- what players make
    chat_per_minute: int = 20  # chat lines one account sends in a minute (a burst of 5)
    chat_burst: int = 5
    # chat lines one table carries in a minute from its seated players together (each also
    # within his own rate above), and apart from them from all its spectators together (guests
    # are new accounts each visit: a crowd of them meets this, and never the players' share)
    chat_per_table_minute: int = 40  # the seated players' lines a minute, together
    chat_table_burst: int = 10  # ... at once
    chat_watchers_table_minute: int = 40  # the spectators' lines a minute, together
    chat_watchers_table_burst: int = 10  # ... at once
    chat_lines_kept: int = 200  # chat lines a session keeps for its history (v), the newest
    tables_per_account: int = 3  # open tables one account created
    tables_total: int = 300  # open tables on the server
    tables_per_address_hour: int = 20  # tables created from one address in an hour
    # a table no session is connected to (no seated player's, no spectator's; a program's
    # ``bot join`` session counts, as it holds a connection) ends this long after the last one
    # left, whether its game is to come, in progress or over: out of the lobby, the store,
    # ``tables_total`` and ``tables_per_account`` (``tables_per_address_hour`` is a rate of
    # creations, not of open tables: it still counts them for its hour); a game in progress
    # keeps its finished hands for replay. Someone who comes back in time finds it; after a
    # restart the time runs from the restart.
    table_unattended_seconds: float = 600.0
    # the coach at a coach table (host.coach): the most seconds one assessment may take (less
    # where the turn's timer has less left), and one session's share of the thinking pool's
    # CPU (seconds a second on average, and at once): past it the coach says it is busy
    coach_seconds: float = 10.0
    coach_cpu_share: float = 0.1
    coach_cpu_burst: float = 1.5

    # --- logging: lines one connection may cause before the rest are counted, not written
    log_lines_per_connection: int = 30
    log_lines_per_minute: int = 120  # from all connections together (a flood of new ones)

    def with_values(self, values: Mapping[str, Any]) -> Limits:
        """These limits with ``values`` (by field name) changed: ValueError naming a field
        that does not exist or a value of the wrong kind."""
        known = {f.name: f for f in fields(self)}
        changes: dict[str, Any] = {}
        for name, raw in values.items():
            key = name.replace("-", "_")
            if key not in known:
                raise ValueError(f"unknown limit {name!r} (one of: {', '.join(sorted(known))})")
            changes[key] = _coerce(key, type(getattr(self, key)), raw)
        return replace(self, **changes)

    def describe(self) -> list[str]:
        return [f"{f.name} = {getattr(self, f.name)!r}" for f in fields(self)]


def _coerce(name: str, kind: type, raw: Any) -> Any:
    if kind is tuple:
        items = raw.split(",") if isinstance(raw, str) else list(raw)
        return tuple(str(x).strip() for x in items if str(x).strip())
    try:
        value = kind(raw)
    except (TypeError, ValueError):
        raise ValueError(f"limit {name}: {raw!r} is not a {kind.__name__}") from None
    if isinstance(value, int | float) and value < 0:
        raise ValueError(f"limit {name}: {raw!r} is negative")
    return value


def parse_limit_pairs(pairs: Iterable[str]) -> dict[str, str]:
    """``NAME=VALUE`` words (``serve --limit``) → {name: value}; ValueError for a bad word."""
    out: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--limit needs NAME=VALUE, got {pair!r}")
        out[name.strip()] = value.strip()
    return out


MAX_CONFIG_BYTES = 64 * 1024

# the host's files a running server follows (net/front/hostfiles.py): the lobby's message of
# the day (``serve --motd``: a few lines above the tables, each within a wide terminal's row)
# and a private server's allow list (``serve --allow``: a few thousand ed25519 keys, a few
# hundred 4096-bit RSA ones). Past these the file is refused, never cut.
MOTD_MAX_BYTES = 4 * 1024
MOTD_LINES = 8
MOTD_LINE_CHARS = 200
ALLOW_MAX_BYTES = 512 * 1024
OPERATORS_MAX_BYTES = 64 * 1024  # serve --operators: a few keys

# the operators' commands (net/front/operators.py): the longest ban or mute, a reason's
# length (cleaned as chat is), the widest network a ban may name (a /8 would shut out a
# country's providers), an announcement's length, the audit lines ``audit`` prints, and how
# long a worker uses the bans and mutes it read from the store (they share it: another
# worker's ban holds here within this)
OP_DURATION_MAX_DAYS = 365
OP_REASON_MAX = 200
OP_NET_PREFIX_V4 = 16
OP_NET_PREFIX_V6 = 32
OP_ANNOUNCE_MAX = 300
OP_AUDIT_LINES = 100
OP_CACHE_SECONDS = 2.0
# ``who`` on a server of several workers: how long it waits for the others' answers (a worker
# silent past it is named as such), the sessions one worker's answer lists at most, and the
# longest answer read (each row is about 150 bytes)
OP_WHO_SECONDS = 2.0
OP_WHO_ROWS = 2000
OP_WHO_REPLY_BYTES = 512 * 1024

# the players' own levers (net/front/players.py): the names one account may ignore
# (``/ignore``), a report's reason (cleaned as chat is), the reports one account may make in a
# day and how long before it may report the same name again, and the reports an operator's
# ``reports`` prints (``reports N``: at most REPORTS_LISTED_MAX)
IGNORE_MAX = 100
REPORT_REASON_MAX = 300
REPORTS_PER_DAY = 10
REPORT_SAME_SECONDS = 3600
REPORTS_LISTED = 50
REPORTS_LISTED_MAX = 1000

# a private table's invitations (``join NAME --invite a,b,c``, ``/invite NAME`` at the table):
# at most this many names or key fingerprints, each a nickname (net.sanitize.NAME_MAX) or an
# OpenSSH SHA256 fingerprint
MAX_INVITES = 12
MAX_INVITE_TEXT = 1024  # characters of one --invite value or /invite line, read at most

# tournaments (net/runtime/tournaments.py): their names are tables' names (net.sanitize), a
# shorter one, their options a table's; at most this many rounds, entries in one, tournaments
# not yet finished on the server, and ones a single account created and has not seen finish
TOURNAMENT_NAME_CELLS = 16  # its tables are named NAME-ROUND-TABLE, within a table's 24 cells
TOURNAMENT_ROUNDS_MAX = 20
TOURNAMENT_ROUND_MINUTES_MAX = 600  # --minutes: a round's time limit
TOURNAMENT_ENTRIES_MAX = 256
TOURNAMENTS_OPEN_MAX = 50
TOURNAMENTS_PER_ACCOUNT = 3
TOURNAMENT_START_DAYS_MAX = 30  # --at: a set start at most this many days ahead
# a private one (--private --invite): its invitations at most MAX_INVITES, as a table's


def load_limits_file(path: Path | str, base: Limits | None = None) -> Limits:
    """Limits from a TOML file's ``[limits]`` table; ValueError saying what is wrong."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise ValueError(f"{p}: {size} bytes, more than a limits file needs")
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{p}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{p}: not TOML ({exc})") from None
    table = data.get("limits", data)
    if not isinstance(table, dict):
        raise ValueError(f"{p}: [limits] must be a table")
    return (base or Limits()).with_values(table)


class RateLimit:
    """A token bucket: ``rate`` events a ``per`` seconds on average, ``burst`` at once."""

    __slots__ = ("burst", "clock", "rate", "stamp", "tokens")

    def __init__(self, rate: float, per: float = 60.0, burst: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate / per if per > 0 else float("inf")
        self.burst = float(burst if burst is not None else max(rate, 1))
        self.tokens = self.burst
        self.clock = clock
        self.stamp = clock()

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class RateLimits:
    """A :class:`RateLimit` per key (chat lines per account), at most ``keys`` remembered:
    past that the buckets that are full again (as good as new) are forgotten, then the
    oldest."""

    def __init__(self, rate: float, per: float = 60.0, burst: float | None = None,
                 clock: Callable[[], float] = time.monotonic, keys: int = 10_000) -> None:
        self.rate, self.per, self.burst, self.clock, self.keys = rate, per, burst, clock, keys
        self._buckets: dict[Any, RateLimit] = {}

    def __len__(self) -> int:
        return len(self._buckets)

    def allow(self, key: Any) -> bool:
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.keys:
                self._forget()
            bucket = self._buckets[key] = RateLimit(self.rate, self.per, self.burst,
                                                    self.clock)
        return bucket.allow()

    def _forget(self) -> None:
        now = self.clock()
        for key in [k for k, b in self._buckets.items()
                    if b.tokens + (now - b.stamp) * b.rate >= b.burst]:
            del self._buckets[key]
        while len(self._buckets) >= self.keys // 2:
            del self._buckets[next(iter(self._buckets))]


KEYS_KEPT = 10_000  # addresses a WindowCount remembers at once


K = TypeVar("K")


def count_down(counts: MutableMapping[K, int], key: K) -> None:
    """One fewer of ``key`` in ``counts``: a count of what is open (by address, by account)
    keeps no entry at 0, so the keys of those gone do not pile up."""
    counts[key] -= 1
    if counts[key] <= 0:
        del counts[key]


class WindowCount:
    """Events in the last ``window`` seconds, by key (table creations per address), counted
    up to ``cap`` a key (a flood saturates the count instead of growing a list)."""

    def __init__(self, window: float, clock: Callable[[], float] = time.monotonic,
                 cap: int = 10_000) -> None:
        self.window = window
        self.clock = clock
        self.cap = cap
        self._events: dict[str, deque[float]] = {}

    def count(self, key: str) -> int:
        stamps = self._events.get(key)
        if stamps is None:
            return 0
        now = self.clock()
        while stamps and now - stamps[0] >= self.window:
            stamps.popleft()
        if not stamps:
            del self._events[key]
            return 0
        return len(stamps)

    def add(self, key: str) -> None:
        stamps = self._events.get(key)
        if stamps is None:
            if len(self._events) >= KEYS_KEPT:  # forget the keys whose events are all old,
                for old in list(self._events):  # then the oldest keys
                    self.count(old)
                while len(self._events) >= KEYS_KEPT // 2:
                    del self._events[next(iter(self._events))]
            stamps = self._events[key] = deque(maxlen=self.cap)
        stamps.append(self.clock())


class LogBudget:
    """At most ``lines`` log lines for one connection; the rest are counted, and said once."""

    __slots__ = ("lines", "suppressed", "used")

    def __init__(self, lines: int) -> None:
        self.lines = lines
        self.used = 0
        self.suppressed = 0

    def allow(self) -> bool:
        if self.used < self.lines:
            self.used += 1
            return True
        self.suppressed += 1
        return False


# ``extra=`` of a log line that has been through a :class:`LogGate` already (a connection's
# lines are counted against the server's budget where they are made)
BUDGETED = {"budgeted": True}


class LogGate(logging.Filter):
    """The server's budget of log lines, ``per_minute`` (a burst of a quarter of it), for
    every line: a filter on the libraries' loggers and on the process's log handlers. A line
    is counted once (it is marked as it passes); the lines over the budget are counted, and
    :meth:`take_suppressed` says how many."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.bucket = RateLimit(per_minute, 60.0, max(1, per_minute // 4), clock)
        self.suppressed = 0

    def allow(self) -> bool:
        if self.bucket.allow():
            return True
        self.suppressed += 1
        return False

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "budgeted", False):
            return True
        record.budgeted = True
        return self.allow()

    def take_suppressed(self) -> int:
        """The lines left out since the last call."""
        count, self.suppressed = self.suppressed, 0
        return count


def early_drop(count: int, limits: Limits, rng: random.Random | None = None) -> bool:
    """MaxStartups: whether a new unauthenticated connection is refused when ``count`` are
    already waiting to log in."""
    if count < limits.unauth_start:
        return False
    if count >= limits.unauth_full:
        return True
    span = max(1, limits.unauth_full - limits.unauth_start)
    chance = limits.unauth_rate + (100 - limits.unauth_rate) * (count - limits.unauth_start) / span
    return (rng or random).random() * 100 < chance


def clamp_size(width: int, height: int, limits: Limits) -> tuple[int, int]:
    """A terminal size a client asked for, within what a session renders (1x1 at least)."""
    return (min(max(1, int(width or 80)), limits.max_columns),
            min(max(1, int(height or 24)), limits.max_rows))
