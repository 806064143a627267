"""Who may log in, and how often: the login gate (the counters, shared by every connection)
and the login policy of one SSH connection (net/limits.py holds every number).

The SSH public key is the account, the SSH user name the nickname (made unique); with
``allow_anonymous`` a client without a key gets in by keyboard-interactive: the name's
passphrase, one to choose for a new name (typed twice), or Enter for a guest
(net/front/accounts.py). Each prompt says in both languages what it asks and why the last
answer did not log in (a wrong passphrase, with the tries left; a mismatch; too short).
With an allow list (``serve --allow``) only its keys log in: another key is a failed attempt
(the client tries its next), and keyboard-interactive, which a client tries after its keys,
ends the connection with a line in both languages saying why.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import asyncssh

from net import metrics
from net.front import compat_asyncssh
from net.front.accounts import Keyless, NameLookup, NameState
from net.front.bans import Moderation
from net.front.compat_asyncssh import bound_env
from net.front.hostfiles import AllowList, HostFile
from net.limits import (
    BUDGETED,
    Limits,
    LogBudget,
    LogGate,
    RateLimit,
    WindowCount,
    count_down,
    early_drop,
)
from net.logfmt import about
from net.sanitize import GUEST_MARK, clean_name, guest_name
from net.store.base import Store, store_call
from net.store.model import Account, Ban, StorageError
from words import both, tr

if TYPE_CHECKING:
    from asyncssh.auth import KbdIntChallenge

# the server's logger: its lines about logins are the server's
log = logging.getLogger("net.front.server")

Note = tuple[str, dict[str, object]]  # what a prompt says first: a words key, its fields


def prompt(key: str, note: Note | None = None, **fields: object) -> str:
    """A keyboard-interactive prompt in both languages, ``note`` (why the last answer did
    not log in) before it in each: the prompt, not the instructions, since OpenSSH escapes
    an instruction's Chinese into octal."""
    en, zh = tr("en", key, **fields), tr("zh", key, **fields)
    if note is not None:
        en, zh = f"{tr('en', note[0], **note[1])} {en}", tr("zh", note[0], **note[1]) + zh
    return f"{en} {zh}: "


# why a connection is closed when its client floods a kind of message (net.limits)
GLOBAL_FLOOD = both("flood_global")
CHANNEL_FLOOD = both("flood_channel")
KEY_FLOOD = both("flood_keys")


class LoginGate:
    """The counters every connection's login policy reads and keeps: connections by address
    and in all, those not yet logged in (oldest first), logins lately, logged-in connections
    by address and by account, guests by address; the keyless logins' names and passphrases
    (``keyless``). ``open_session`` makes a logged-in connection's session channel."""

    def __init__(self, limits: Limits, store: Store, log_gate: LogGate, *,
                 allow_anonymous: bool,
                 open_session: Callable[[Connection], asyncssh.SSHServerSession[bytes]],
                 allow: HostFile[AllowList] | None = None,
                 moderation: Moderation | None = None) -> None:
        self.limits = limits
        self.store = store
        self.log_gate = log_gate  # the server's log budget (a connection has its own too)
        self.allow_anonymous = allow_anonymous
        self.allow = allow  # a private server's keys (``serve --allow``): no other gets in
        self.open_session = open_session
        self.moderation = moderation  # the operators' bans (net/front/operators.py)
        self.keyless = Keyless(store, limits)
        self.connections = 0
        self.per_address: Counter[str] = Counter()  # logged-in connections by address
        self.unauth: dict[str, dict[Connection, None]] = {}  # not yet logged in, oldest first
        self.unauth_total = 0
        self.online: Counter[int] = Counter()  # logged-in connections by account id
        self.logins = WindowCount(60.0)  # logins by address in the last minute
        self.logged_in_lately = WindowCount(600.0)  # key or passphrase logins, 10 minutes
        self.guests: Counter[str] = Counter()  # guest accounts connected, by address
        self.connects = WindowCount(60.0)  # new connections by address in the last minute
        self._forgetting: set[asyncio.Task[bool]] = set()  # guests being forgotten off the loop

    def connection(self) -> Connection:
        """A new connection's login policy (asyncssh's server factory)."""
        return Connection(self)

    def leave_unauth(self, conn: Connection) -> None:
        """``conn`` no longer waits to log in (it did, or it is gone)."""
        waiting = self.unauth.get(conn.address)
        if waiting is not None and conn in waiting:
            del waiting[conn]
            self.unauth_total -= 1
            if not waiting:
                del self.unauth[conn.address]

    def logged_out(self, address: str, account: Account | None) -> None:
        """A logged-in connection from ``address`` (as ``account``) is gone."""
        count_down(self.per_address, address)
        if account is not None:
            count_down(self.online, account.id)

    def guest_left(self, address: str, account: Account) -> None:
        """A connection's guest account leaves: its address holds one guest fewer, and the
        account and its name are forgotten when no other connection has it."""
        count_down(self.guests, address)
        if self.online.get(account.id):
            return
        if self.store.off_loop:  # the loop keeps only a weak reference to a task: so do we
            task = asyncio.get_running_loop().create_task(
                store_call(self.store, self.keyless.guest_left, account))
            self._forgetting.add(task)
            task.add_done_callback(self._forgetting.discard)
        else:
            self.keyless.guest_left(account)


class Connection(asyncssh.SSHServer):
    """Login policy for one connection (net/limits.py holds every number).

    Before login a connection counts against its address (``unauth_per_address``: a newer one
    drops that address's oldest, so an address that logs in is never locked out) and against
    all addresses together (``unauth_start``/``unauth_rate``/``unauth_full``, MaxStartups'
    random early drop), and must log in within ``login_grace``. Every failed authentication
    attempt of any method is counted (``max_auth_tries``). After login it must open a session
    within ``channel_grace`` (and again after its last session closes), may hold at most
    ``max_sessions`` at once, and at most ``connections_per_address`` logged-in connections
    come from one address.
    """

    def __init__(self, gate: LoginGate) -> None:
        self.gate = gate
        self.limits = gate.limits
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = "?"
        self.username = ""
        self.fingerprint: str | None = None
        self.key: asyncssh.SSHKey | None = None  # the key it logged in with (operators)
        self.account: Account | None = None
        self.banned: Ban | None = None  # an operator's ban covers it: its sessions say so
        self.logged_in = asyncio.Event()  # set once auth_completed has read the account
        self.failures = 0
        self.authenticated = False
        self.closed = False
        self.sessions: set[asyncssh.SSHServerSession[bytes]] = set()
        self.paused = 0  # times reading stopped for a moment: over packets_per_second
        self.log_budget = LogBudget(self.limits.log_lines_per_connection)
        self._grace: asyncio.TimerHandle | None = None
        self._keyless: NameLookup | None = None
        self._offer: str = ""  # the passphrase a new name was given, asked a second time
        self._wanted = ""  # the clean name a keyless login asked for
        self._exchange = False  # a keyboard-interactive challenge is out, not yet answered
        self._checking: int | None = None  # the account whose passphrase is being checked
        self._guest: Account | None = None  # the guest account made for this connection

    # --- logging, within the connection's budget ---------------------------------------------
    def log(self, level: int, msg: str, *args: Any, exc_info: bool = False,
            table: str | None = None, limit: str | None = None) -> None:
        """A log line about this connection, within its budget and the server's (a flood of
        new connections, each with a fresh budget, is bounded by the second), naming its
        address, its account once logged in, and ``table`` where it is about one
        (net.logfmt). ``limit``: the line says a refusal by that limit (net/limits.py),
        counted for the metrics whether or not the line is written."""
        if limit is not None:
            metrics.limit_hit(limit)
        gate = self.gate
        account = self.account.nickname if self.account is not None else None
        extra = {**BUDGETED, **about(account, self.address, table)}
        if not self.log_budget.allow():
            if self.log_budget.suppressed == 1 and gate.log_gate.allow():
                log.warning("%s: more log lines from this connection are left out",
                            self.address, extra=extra)
            else:
                metrics.limit_hit("log_lines_per_connection")
            return
        if gate.log_gate.allow():  # what it leaves out is said once a minute
            log.log(level, "%s: " + msg, self.address, *args, exc_info=exc_info,
                    extra=extra)
        else:
            metrics.limit_hit("log_lines_per_minute")

    def disconnect(self, code: int, reason: str) -> None:
        conn = self.conn
        if conn is not None and not self.closed:
            self.closed = True
            asyncio.get_running_loop().call_soon(conn.disconnect, code, reason)

    # --- connection ----------------------------------------------------------------------------
    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self._gate_messages(conn)
        peer = conn.get_extra_info("peername")
        self.address = str(peer[0]) if peer else "?"
        gate = self.gate
        gate.connections += 1
        gate.connects.add(self.address)
        if (gate.connects.count(self.address) > self.limits.connects_per_address_minute
                and not gate.logged_in_lately.count(self.address)):
            self.log(logging.WARNING, "refused: too many new connections from this address",
                     limit="connects_per_address_minute")
            self.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, both("connecting_fast"))
            return
        if early_drop(gate.unauth_total, self.limits):
            self.log(logging.WARNING, "refused: %d connections waiting to log in",
                     gate.unauth_total, limit="unauth_start")
            self.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, both("waiting_many"))
            return
        waiting = gate.unauth.setdefault(self.address, {})
        waiting[self] = None
        gate.unauth_total += 1
        if len(waiting) > self.limits.unauth_per_address:
            oldest = next(iter(waiting))
            gate.leave_unauth(oldest)
            oldest.log(logging.INFO, "dropped: too many connections waiting to log in",
                       limit="unauth_per_address")
            oldest.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, both("address_many"))
        self._count_failures(conn)

    def _gate_messages(self, conn: asyncssh.SSHServerConnection) -> None:
        """Every SSH message the client sends counted (net/limits.py, "SSH messages"): all
        of them against ``packets_per_second`` (past it the connection stops reading for a
        moment), global requests against their own rate and unsigned public-key queries
        against ``key_queries`` (past those the connection is closed). The callables given
        hold rate buckets, not the connection (asyncssh keeps them on it)."""
        limits = self.limits
        rate = limits.packets_per_second
        packets = RateLimit(rate, 1.0, 2 * rate)

        def packet_allowed() -> bool:
            if packets.allow():
                return True
            self.paused += 1
            return False

        compat_asyncssh.rate_packets(conn, packet_allowed)
        requests = RateLimit(limits.global_requests_per_second, 1.0,
                             limits.global_requests_burst)
        compat_asyncssh.rate_global_requests(
            conn, lambda: None if requests.allow() else GLOBAL_FLOOD)
        queries = [0]

        def key_query() -> str | None:
            queries[0] += 1
            return KEY_FLOOD if queries[0] > limits.key_queries else None

        compat_asyncssh.count_key_queries(conn, key_query)

    def _count_failures(self, conn: asyncssh.SSHServerConnection) -> None:
        """Every failed attempt, of any method (none, password, hostbased, publickey,
        keyboard-interactive), as MaxAuthTries counts them: asyncssh answers each one with
        ``send_userauth_failure``. A client's first "none" request, which asks what methods
        there are, is not held against it."""

        compat_asyncssh.count_auth_failures(conn, self._failed_attempt)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if isinstance(exc, compat_asyncssh.MessageFlood):
            self.log(logging.WARNING, "closed: %s", exc.reason)
        gate = self.gate
        gate.leave_unauth(self)
        if self.authenticated:
            gate.logged_out(self.address, self.account)
        self._guest_gone()
        gate.connections -= 1
        self._cancel_grace()

    def _cancel_grace(self) -> None:
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None

    def _arm_grace(self) -> None:
        self._cancel_grace()
        if not self.closed:
            self._grace = asyncio.get_running_loop().call_later(
                self.limits.channel_grace, self._grace_over)

    def _grace_over(self) -> None:
        self._grace = None
        if not self.sessions:
            self.log(logging.INFO, "closed: logged in but opened no session")
            self.disconnect(asyncssh.DISC_BY_APPLICATION, both("no_session"))

    # --- authentication ------------------------------------------------------------------------
    def begin_auth(self, username: str) -> bool:
        self.username = username
        self._keyless = None
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        allow = self.gate.allow
        if allow is not None and not allow.value.admits(key, self.address):
            # a failed attempt: the client offers its next key, and after its last one
            # keyboard-interactive, which says why (get_kbdint_challenge)
            self.log(logging.INFO, "key %s is not on the allow list",
                     key.get_fingerprint("sha256"))
            return False
        self.fingerprint = key.get_fingerprint("sha256")
        self.key = key
        return True

    def kbdint_auth_supported(self) -> bool:
        # offered with an allow list too, only to refuse with a line (get_kbdint_challenge):
        # a refused key carries no word to the client
        return self.gate.allow_anonymous or self.gate.allow is not None

    async def get_kbdint_challenge(self, username: str, lang: str,
                                   submethods: str) -> KbdIntChallenge:
        """No key: the name's passphrase, or (a new name) one to choose, or Enter for a
        guest (net/front/accounts.py). An exchange started while the last one's challenge
        was still unanswered counts as a failed attempt (else a client could try without
        end, each check abandoned before its failure)."""
        self.fingerprint = None
        self.key = None
        if self.gate.allow is not None:  # a private server: listed keys only
            self.log(logging.INFO, "refused: no key on the allow list")
            if self.conn is not None and not self.closed:
                # the line in both languages as a banner, which OpenSSH prints as it is,
                # then the reason in English, which it prints with everything outside ASCII
                # escaped into octal; now, not soon: both must reach the client before the
                # failure the answer below sends (a client with no method left stops reading)
                self.closed = True
                with contextlib.suppress(OSError):
                    self.conn.send_auth_banner(both("allow_only") + "\r\n")
                self.conn.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE,
                                     tr("en", "allow_only"))
            return False
        if self._exchange:
            self.log(logging.INFO, "a keyboard-interactive exchange abandoned unanswered")
            if not self._failed_attempt():
                return False
        self._exchange = True
        keyless = self.gate.keyless
        self._wanted = clean_name(username)
        found = await store_call(self.gate.store, keyless.lookup, self._wanted)
        self._keyless = found
        self._offer = ""
        return self._challenge(found)

    def _challenge(self, found: NameLookup, note: Note | None = None) -> KbdIntChallenge:
        """The prompt: for a kept name its passphrase, else one to choose (asked twice, said
        so). OpenSSH shows a challenge's instructions escaped outside ASCII (a name or
        Chinese there reads as octal), its prompts as they are: the instructions are plain
        English, the name, the Chinese and the ``note`` (why the last answer did not log
        in) are in the prompt."""
        self._exchange = True
        name = found.nickname
        guest = guest_name(self._wanted or name)
        if found.state is NameState.PROTECTED:
            return ("mahjong-ssh", "", "",
                    ((prompt("ask_passphrase", note, name=name, guest=guest), False),))
        lead = "That name is taken. " if found.state is NameState.TAKEN else "A new name. "
        text = (f"{lead}Choose a passphrase ({self.limits.passphrase_min} characters or "
                f"more; you type it twice) to keep it for your next visits, or press Enter "
                f"to play as a guest this once (a guest's name ends with {GUEST_MARK}).")
        return ("mahjong-ssh", text, "",
                ((prompt("new_passphrase", note, name=name, guest=guest), False),))

    async def validate_kbdint_response(self, username: str,
                                       responses: Any) -> KbdIntChallenge:
        # a key only queried (never signed for) must not count: this login is keyless
        self.fingerprint = None
        self.key = None
        self._exchange = False
        found = self._keyless
        if found is None or self.closed or not isinstance(responses, list | tuple) \
                or len(responses) != 1 or not isinstance(responses[0], str):
            return False
        try:
            return await self._answered(found, responses[0])
        except asyncio.CancelledError:
            # a new exchange began before this one's answer was checked (asyncssh cancels
            # it): a failed attempt, for the connection and for the name being checked; the
            # hash itself runs to its end within hash_concurrency (Keyless._hash)
            if self._checking is not None:
                self.gate.keyless.backoff.failed(self._checking, self.address)
                self._checking = None
            if not self.closed:
                self.log(logging.INFO, "a keyboard-interactive answer abandoned unchecked")
                self._failed_attempt()
            raise

    async def _answered(self, found: NameLookup, answer: str) -> KbdIntChallenge:
        keyless = self.gate.keyless
        if len(answer) > self.limits.passphrase_max:
            return False
        if found.state is NameState.PROTECTED and answer:
            assert found.stored is not None and found.account_id is not None
            backoff = keyless.backoff
            wait = backoff.turn(found.account_id, self.address)
            if wait is None:
                self.log(logging.INFO, "refused: %d wrong passphrases for %s lately",
                         backoff.failures(found.account_id), found.nickname,
                         limit="passphrase_backoff_max")
                return self._again(found, ("login_slowed", {"name": found.nickname}))
            self._checking = found.account_id
            if wait > 0:  # the name's turn: wrong passphrases for it came before
                await asyncio.sleep(wait)
            right = await keyless.verify(answer, found.stored)
            self._checking = None
            if not right:
                backoff.failed(found.account_id, self.address)
                self.log(logging.INFO, "wrong passphrase for %s (%d lately)", found.nickname,
                         backoff.failures(found.account_id))
                return self._again(found, ("login_wrong", {}))
            backoff.passed(found.account_id, self.address)
            self.account = await store_call(self.gate.store, keyless.account, found)
            return True
        if not answer:  # a guest, this once
            return await self._as_guest(found)
        if len(answer) < self.limits.passphrase_min:
            return self._challenge(found, ("login_short", {"n": self.limits.passphrase_min}))
        if not self._offer:  # asked twice, as passwd does: a typo would lock the name
            self._offer = answer
            self._exchange = True
            return ("mahjong-ssh", "Type the same passphrase again to confirm it.", "",
                    ((prompt("repeat_passphrase", name=found.nickname), False),))
        if answer != self._offer:
            self._offer = ""
            return self._challenge(found, ("login_mismatch", {}))
        if found.state is NameState.UNCLAIMED and self.gate.online.get(found.account_id or -1):
            return False  # its player is connected: the name is not handed over
        try:
            account = await store_call(self.gate.store, keyless.protect, found,
                                       await keyless.hashed(answer))
        except StorageError:  # not stored: never a name the next visit would not find
            self._offer = ""
            self._exchange = True
            return ("mahjong-ssh", "The server cannot save a passphrase now (disk full?): "
                    "try again later, or press Enter to play as a guest this once.", "",
                    ((f"{both('unsaved_passphrase', name=found.nickname)} "
                      f"({both('enter_guest')}): ", False),))
        if account is None:  # taken meanwhile: start again with what the name is now
            self._keyless = found = await store_call(self.gate.store, keyless.lookup,
                                                     found.nickname)
            self._offer = ""
            return self._challenge(found, ("login_taken_now", {}))
        keyless.backoff.passed(account.id, self.address)  # its owner's address, trusted
        self.account = account
        return True

    def _again(self, found: NameLookup, note: Note) -> KbdIntChallenge:
        """A wrong passphrase (or one the name's backoff refused): a failed attempt, counted
        here as asyncssh's failure would have been (past ``max_auth_tries`` the connection
        ends), and the prompt again in the same exchange, saying so, with the tries the
        connection has left. In the same exchange, not a failure the client answers with a
        new one: OpenSSH gives a keyboard-interactive login three exchanges
        (NumberOfPasswordPrompts), so only the server's count is the player's."""
        if not self._failed_attempt():
            return False
        if note[0] == "login_wrong":
            note = (note[0], {"n": self.limits.max_auth_tries + 2 - self.failures})
        return self._challenge(found, note)

    async def _as_guest(self, found: NameLookup) -> KbdIntChallenge:
        """Enter at the prompt: a guest account under the name asked for with the guest's
        mark, unless ``guests_per_address`` guests from this address are connected (each
        holds a name): then a failed attempt, and the prompt again."""
        gate = self.gate
        if gate.guests[self.address] >= self.limits.guests_per_address:
            self.log(logging.INFO, "refused a guest: %d guests connected from this address",
                     gate.guests[self.address], limit="guests_per_address")
            if not self._failed_attempt():
                return False
            return self._challenge(found, ("login_guests", {"n": gate.guests[self.address]}))
        account = await store_call(gate.store, gate.keyless.guest, self._wanted)
        gate.guests[self.address] += 1
        self._guest = account
        if self.closed:  # gone meanwhile: connection_lost did not see it
            self._guest_gone()
            return False
        self.account = account
        return True

    def _guest_gone(self) -> None:
        """This connection's guest account leaves (``LoginGate.guest_left``)."""
        account, self._guest = self._guest, None
        if account is not None:
            self.gate.guest_left(self.address, account)

    def _failed_attempt(self) -> bool:
        """One failed authentication attempt (MaxAuthTries): False, the connection being
        closed, past ``max_auth_tries`` (a client's first "none" request, which asks what
        methods there are, is not held against it)."""
        self.failures += 1
        if self.failures > self.limits.max_auth_tries + 1:
            if not self.closed:
                self.log(logging.INFO, "too many failed authentication attempts",
                         limit="max_auth_tries")
            self.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, both("auth_failures"))
            return False
        return True

    def password_auth_supported(self) -> bool:
        return False

    async def auth_completed(self) -> None:
        try:
            await self._logging_in()
        finally:  # the sessions waiting for the account go on (or end, if it is None)
            self.logged_in.set()

    async def _logging_in(self) -> None:
        self.gate.leave_unauth(self)
        self.authenticated = True
        gate = self.gate
        count = gate.per_address[self.address] + 1
        gate.per_address[self.address] = count
        nickname = clean_name(self.username)
        if self.fingerprint is not None:
            # in a thread where the store waits on a database server (asyncssh awaits this)
            account = await store_call(gate.store, gate.store.account_for_key,
                                       self.fingerprint, nickname)
            if self.closed:  # gone meanwhile: nothing was counted for its account
                return
            self.account = account
        elif self.account is None:  # keyboard-interactive always sets it; never a free pass
            self.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, "not logged in")
            return
        gate.online[self.account.id] += 1
        gate.logins.add(self.address)
        if not self.account.guest:  # anyone can be a guest: that exempts no address
            gate.logged_in_lately.add(self.address)
        if gate.logins.count(self.address) > self.limits.logins_per_address_minute:
            self.log(logging.WARNING, "refused: too many logins from this address",
                     limit="logins_per_address_minute")
            self.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, both("logins_fast"))
            return
        if count > self.limits.connections_per_address:
            self.log(logging.WARNING, "refused: %d logged-in connections from this address",
                     count, limit="connections_per_address")
            self.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, both("address_many"))
            return
        moderation = gate.moderation
        if moderation is not None:  # the bans every worker shares, read again if not lately
            await moderation.refresh()
            self.banned = moderation.ban_for(self.fingerprint, self.account.id, self.address)
            if self.banned is not None:  # its session says so before any screen
                self.log(logging.INFO, "refused: banned (%s %s)", self.banned.kind,
                         self.banned.target)
        self.log(logging.INFO, "logged in as %s (%s)", self.account.nickname,
                 self.fingerprint or "no key")
        self._arm_grace()

    def session_requested(self) -> Any:
        conn = self.conn
        if conn is None or self.closed:
            return False
        if len(self.sessions) >= self.limits.max_sessions:
            metrics.limit_hit("max_sessions")
            return False
        self._cancel_grace()
        chan = conn.create_server_channel(window=self.limits.channel_window,
                                          max_pktsize=self.limits.channel_packet)
        session = self.gate.open_session(self)
        bound_env(chan, self.limits)
        requests = RateLimit(self.limits.channel_requests_per_second, 1.0,
                             self.limits.channel_requests_burst)
        compat_asyncssh.rate_channel_requests(
            chan, lambda: None if requests.allow() else CHANNEL_FLOOD)
        self.sessions.add(session)
        return chan, session

    def session_closed(self, session: asyncssh.SSHServerSession[bytes]) -> None:
        self.sessions.discard(session)
        if not self.sessions:
            self._arm_grace()

    def connection_requested(self, *args: Any) -> bool:  # no port forwarding
        return False

    def server_requested(self, *args: Any) -> bool:  # no remote forwarding
        return False

    def unix_connection_requested(self, *args: Any) -> bool:
        return False

    def unix_server_requested(self, *args: Any) -> bool:
        return False

