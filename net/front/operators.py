"""The server's operators (``serve --operators FILE``, public keys as in ``authorized_keys``):
a session whose key is listed there may run, over SSH (``ssh -p PORT op@HOST COMMAND``),

- ``who``: each session's name, key fingerprint, address, table and idle time, on a server
  of several workers every worker's with the worker's name (asked over the bus; one silent
  past ``OP_WHO_SECONDS`` is named as such);
- ``tables``: the tables, who sits and their state (never a concealed tile);
- ``announce TEXT``: a toast on every drawn screen, a line in plain mode;
- ``close TABLE``: the table closed whoever sits there, its players told, its game kept for
  replay (the registry's close, as its host's);
- ``kick NAME [REASON]``: the name's sessions closed, a line saying why;
- ``mute NAME [DURATION]`` / ``unmute NAME``: the account's chat refused with a line saying
  until when;
- ``ban TARGET [DURATION] [REASON]`` / ``unban TARGET`` / ``bans``: a key (``SHA256:...``), a
  name (its account), an address or a network refused at login, before any screen, with one
  line in both languages and exit status 1;
- ``audit``: the operators' last actions;
- ``reports [N]``: the players' last N reports (``/report``, net/front/players.py).

From any other key each is refused exactly as an unknown command is, so a stranger learns
nothing of them. Every input is parsed strictly (net/limits.py ``OP_*``): a duration is a
number and m, h or d within ``OP_DURATION_MAX_DAYS``, a reason is cleaned as chat is and
bounded, a network no wider than ``OP_NET_PREFIX_V4``/``OP_NET_PREFIX_V6``; a ban that covers
the operator's own key, account or address is refused. Bans and mutes are kept in the store
(net/store/moderation.py), which every worker shares: each worker reads them again at a login
when what it read is older than ``OP_CACHE_SECONDS``, so they hold on every worker and after
a restart. Every action is written to the audit (who, what, target, when, reason).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import re
import time
import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

import asyncssh

from host.client import SharedTableClient
from host.refusal import Refusal, RefusedError
from net.commands import unknown_command
from net.front.bans import Moderation, ban_line, covers, shown_time, until_text
from net.front.hostfiles import AllowList, HostFile
from net.limits import (
    OP_ANNOUNCE_MAX,
    OP_AUDIT_LINES,
    OP_DURATION_MAX_DAYS,
    OP_NET_PREFIX_V4,
    OP_NET_PREFIX_V6,
    OP_REASON_MAX,
    OP_WHO_REPLY_BYTES,
    OP_WHO_ROWS,
    OP_WHO_SECONDS,
    REPORTS_LISTED,
    REPORTS_LISTED_MAX,
)
from net.logfmt import about
from net.runtime.registry import Registry
from net.sanitize import clean_line, clean_name, pad
from net.store.base import Store, store_call
from net.store.model import AuditRow, Ban, Mute
from words import both, tr

if TYPE_CHECKING:
    from net.cluster.node import Node
    from net.front.login import Connection
    from net.front.session import Session

log = logging.getLogger("net.front.server")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")
DURATION = re.compile(r"([1-9][0-9]{0,5})([mhd])")
UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400}
BUS_SUBJECT = "mahjong.operators"  # every worker listens: what another's operator did
BUS_MAX_BYTES = 4096  # a message on it read at most this long
KICK_SECONDS = 2.0  # a kicked session's connection is closed this long after its line
USAGE = {
    "who": "who", "tables": "tables", "announce": "announce TEXT", "close": "close TABLE",
    "kick": "kick NAME [REASON]", "mute": "mute NAME [DURATION]", "unmute": "unmute NAME",
    "ban": "ban KEY|NAME|ADDRESS|NET [DURATION] [REASON]", "unban": "unban KEY|NAME|ADDRESS|NET",
    "bans": "bans", "audit": "audit", "reports": f"reports [1-{REPORTS_LISTED_MAX}]",
}


class OperatorError(ValueError):
    """An operator's command that cannot run: its line (both languages) and exit status."""

    def __init__(self, line: str, status: int = 2) -> None:
        super().__init__(line)
        self.status = status


def parse_duration(text: str) -> float:
    """``30m``, ``2h``, ``7d``: seconds; OperatorError otherwise or past the longest."""
    match = DURATION.fullmatch(text)
    seconds = int(match[1]) * UNIT_SECONDS[match[2]] if match else 0
    if not match or seconds > OP_DURATION_MAX_DAYS * 86400:
        raise OperatorError(both("op_bad_duration", value=clean_line(text, 30),
                                 most=OP_DURATION_MAX_DAYS))
    return float(seconds)


def parse_reason(words: Iterable[str]) -> str:
    """The words of a reason, cleaned as a chat line is; OperatorError past its length."""
    reason = clean_line(" ".join(words), OP_REASON_MAX + 1)
    if len(reason) > OP_REASON_MAX:
        raise OperatorError(both("op_long_reason", most=OP_REASON_MAX))
    return reason


def parse_target(text: str) -> tuple[str, str]:
    """A ban's target as ``(kind, target)``: 'key' (a SHA256 fingerprint), 'net' (a
    network, strictly: no host bits set, at most as wide as net/limits.py allows),
    'address', or 'name' (a name a login could have). OperatorError otherwise."""
    bad = OperatorError(both("op_bad_target", value=clean_line(text, 60)))
    if text.upper().startswith("SHA256:"):
        if not FINGERPRINT.fullmatch(text):
            raise bad
        return "key", text
    if "/" in text:
        try:
            net = ipaddress.ip_network(text, strict=True)
        except ValueError:
            raise bad from None
        if net.prefixlen < (OP_NET_PREFIX_V4 if net.version == 4 else OP_NET_PREFIX_V6):
            raise OperatorError(both("op_wide_net", value=str(net), v4=OP_NET_PREFIX_V4,
                                     v6=OP_NET_PREFIX_V6))
        return "net", str(net)
    with contextlib.suppress(ValueError):
        return "address", str(ipaddress.ip_address(text))
    if not text or clean_name(text) != text:
        raise bad
    return "name", text


def is_operator(operators: HostFile[AllowList] | None, conn: Connection) -> bool:
    """Whether ``conn`` logged in with a key the operators file lists now."""
    return (operators is not None and conn.key is not None
            and operators.value.admits(conn.key, conn.address))


class OperatorHost(Protocol):
    """What the operators' commands need of the server."""

    store: Store
    sessions: set[Session]
    moderation: Moderation
    operator_bus: OperatorBus | None  # a server of several workers: the others told

    @property
    def registry(self) -> Registry: ...


# --- the commands -----------------------------------------------------------------------
class Operator:
    """One operator's command, run for ``session``."""

    def __init__(self, host: OperatorHost, session: Session) -> None:
        self.host = host
        self.session = session
        conn = session.conn
        account = conn.account
        self.account_id = account.id if account is not None else None
        name = account.nickname if account is not None else "?"
        self.who = f"{name} ({conn.fingerprint})"

    async def run(self, words: list[str]) -> tuple[str, int]:
        """The command's answer and exit status."""
        head, rest = words[0], words[1:]
        try:
            text = await self._run(head, rest)
        except OperatorError as exc:
            return str(exc), exc.status
        except RefusedError as exc:
            return str(exc.refusal), 1
        return text, 0

    def _usage(self, head: str) -> OperatorError:
        return OperatorError(both("op_usage", usage=USAGE[head]))

    async def _run(self, head: str, rest: list[str]) -> str:
        if head in ("who", "tables", "bans", "audit") and rest:
            raise self._usage(head)
        if head == "audit":
            rows = await store_call(self.host.store, self.host.store.audit_rows,
                                    OP_AUDIT_LINES)
            return "\n".join(f"{shown_time(r.at)}  {r.operator}  {r.action} {r.target}".rstrip()
                             + (f"  ({r.reason})" if r.reason else "")
                             for r in rows) or both("op_no_audit")
        if head == "reports":
            return await self.reports(rest)
        if head == "who":
            await self._audit("who", "", "")
            return await self.who_text()
        if head == "tables":
            await self._audit("tables", "", "")
            return self.tables_text()
        if head == "bans":
            await self.host.moderation.refresh(force=True)
            await self._audit("bans", "", "")
            return self.bans_text()
        if not rest:
            raise self._usage(head)
        if head == "announce":
            return await self.announce(" ".join(rest))
        if head == "close":
            if len(rest) != 1:
                raise self._usage(head)
            return await self.close(rest[0])
        if head == "kick":
            return await self.kick(rest[0], parse_reason(rest[1:]))
        if head in ("mute", "unmute"):
            return await self.mute(head, rest)
        if head == "ban":
            return await self.ban(rest)
        return await self.unban(rest)

    async def _audit(self, action: str, target: str, reason: str) -> None:
        row = AuditRow(time.time(), self.who, action, target, reason)
        conn = self.session.conn
        account = conn.account.nickname if conn.account is not None else None
        log.info("operator %s: %s%s%s", self.who, action, f" {target}" if target else "",
                 f" ({reason})" if reason else "", extra=about(account, conn.address))
        await store_call(self.host.store, self.host.store.add_audit, row)

    async def _saved(self, done: bool) -> None:
        """After a write: an error line where it failed, else every worker's reads see it
        (a database server's writes are queued) and this worker's at once."""
        store = self.host.store
        if not done or not await store_call(store, store.flush, 5.0):
            raise OperatorError(both("op_not_saved"), status=1)
        await self.host.moderation.refresh(force=True)

    async def who_text(self) -> str:
        """Every session's row, this worker's and (a server of several) every other's, with
        the worker's name; a worker that did not answer in time named on a line of its own."""
        bus = self.host.operator_bus
        rows = [(*row, bus.node.name if bus is not None else "") for row in who_rows(self.host)]
        silent: list[str] = []
        if bus is not None:
            heard, silent = await bus.ask_who()
            rows += [(*row, worker) for worker, found in heard.items() for row in found]
        lines = [f"{pad(name, 16)} {fingerprint:<51} {address:<15} {pad(table, 16)} "
                 f"{idle // 60}m{idle % 60:02d}s" + (f"  {worker}" if worker else "")
                 for name, fingerprint, address, table, idle, worker in sorted(rows)]
        lines += [both("op_who_silent", worker=worker) for worker in sorted(silent)]
        return "\n".join(lines) or both("op_nobody")

    def tables_text(self) -> str:
        lines = []
        for info in self.host.registry.listing():
            names = ", ".join(s.name for s in info.seats if s.name) or "-"
            lines.append(f"{pad(info.name, 16)} {info.rules:<9} {info.state.value:<10} "
                         f"{names}" + ("  private" if info.private else ""))
        return "\n".join(lines) or both("tables") + ": 0"

    def bans_text(self) -> str:
        lines = []
        for ban in self.host.moderation.bans:
            until = shown_time(ban.expires) if ban.expires is not None else "-"
            lines.append(f"{ban.kind:<7} {ban.target:<44} {until:<20} {ban.operator}"
                         + (f"  ({ban.reason})" if ban.reason else ""))
        return "\n".join(lines) or both("op_no_bans")

    async def reports(self, rest: list[str]) -> str:
        """The players' last reports, oldest first (``REPORTS_LISTED``, or N)."""
        if len(rest) > 1 or (rest and not (rest[0].isascii() and rest[0].isdigit()
                                           and 1 <= int(rest[0]) <= REPORTS_LISTED_MAX)):
            raise self._usage("reports")
        store = self.host.store
        rows = await store_call(store, store.reports,
                                int(rest[0]) if rest else REPORTS_LISTED)
        await self._audit("reports", "", "")
        return "\n".join(f"{shown_time(r.at)}  {r.reporter} -> {r.reported}  "
                         f"{r.table or '-'}  ({r.reason})" for r in rows) \
            or both("op_no_reports")

    async def announce(self, text: str) -> str:
        line = clean_line(text, OP_ANNOUNCE_MAX)
        if not line:
            raise self._usage("announce")
        told = announce_here(self.host, line)
        await self._audit("announce", "", line)
        return both("op_announced", n=told) + await self._tell_others("announce", text=line)

    async def close(self, name: str) -> str:
        """The table closed here, or by the worker that runs it (told over the bus)."""
        try:
            self.host.registry.close_table(name, None)
            answer = both("op_closed", table=name)
        except RefusedError as exc:
            if exc.refusal.key != "close_elsewhere" or not await self._tell_others(
                    "close", table=name):
                raise
            answer = both("op_close_sent", table=name)
        await self._audit("close", name, "")
        return answer

    async def _tell_others(self, what: str, **fields: str) -> str:
        """The other workers told to do ``what`` for their sessions (a server of several):
        the answer's line saying so, or nothing."""
        bus = self.host.operator_bus
        if bus is None or not await bus.tell(what, **fields):
            return ""
        return "\n" + both("op_elsewhere")

    async def kick(self, name: str, reason: str) -> str:
        reason = reason or tr("en", "no_reason")
        n = kick_here(self.host, name, reason)
        elsewhere = await self._tell_others("kick", name=name, reason=reason)
        if not n and not elsewhere:
            raise OperatorError(both("op_no_player", name=clean_line(name, 30)), status=1)
        await self._audit("kick", name, reason)
        return both("op_kicked", n=n, name=name) + elsewhere

    async def _account_of(self, name: str) -> int:
        store = self.host.store
        row = await store_call(store, store.keyless_row, clean_name(name))
        if row is None or clean_name(name) != name:
            raise OperatorError(both("op_no_player", name=clean_line(name, 30)), status=1)
        return row.account_id

    async def mute(self, head: str, rest: list[str]) -> str:
        name = rest[0]
        if len(rest) > (2 if head == "mute" else 1):
            raise self._usage(head)
        seconds = parse_duration(rest[1]) if len(rest) == 2 else None
        account_id = await self._account_of(name)
        store = self.host.store
        if head == "unmute":
            await self._saved(await store_call(store, store.remove_mute, account_id))
            await self._audit("unmute", name, "")
            return both("op_unmuted", name=name)
        now = time.time()
        until = now + seconds if seconds is not None else None
        await self._saved(await store_call(store, store.set_mute,
                                           Mute(account_id, name, until, self.who, now)))
        await self._audit("mute", name, f"until {shown_time(until)}" if until else "")
        return "\n".join(tr(lang, "op_muted", name=name, until=until_text(lang, until))
                         for lang in ("en", "zh"))

    def _own(self, kind: str, target: str, account_id: int | None) -> bool:
        conn = self.session.conn
        return covers(kind, target, account_id, conn.fingerprint, self.account_id,
                      conn.address)

    async def ban(self, rest: list[str]) -> str:
        kind, target = parse_target(rest[0])
        seconds = None
        words = rest[1:]
        if words and words[0][:1].isdigit():
            seconds = parse_duration(words[0])
            words = words[1:]
        reason = parse_reason(words)
        account_id = await self._account_of(target) if kind == "name" else None
        if self._own(kind, target, account_id):
            raise OperatorError(both("op_own", value=target))
        now = time.time()
        ban = Ban(kind, target, account_id, reason, self.who, now,
                  now + seconds if seconds is not None else None)
        store = self.host.store
        await self._saved(await store_call(store, store.add_ban, ban))
        await self._audit("ban", f"{kind} {target}", reason)
        n = ban_here(self.host, ban)
        elsewhere = await self._tell_others("ban")
        return "\n".join(tr(lang, "op_banned", target=target, n=n,
                            until=until_text(lang, ban.expires))
                         for lang in ("en", "zh")) + elsewhere

    async def unban(self, rest: list[str]) -> str:
        if len(rest) != 1:
            raise self._usage("unban")
        kind, target = parse_target(rest[0])
        await self.host.moderation.refresh(force=True)
        if not any(b.kind == kind and b.target == target for b in self.host.moderation.bans):
            raise OperatorError(both("op_no_ban", target=target), status=1)
        store = self.host.store
        await self._saved(await store_call(store, store.remove_ban, kind, target))
        await self._audit("unban", f"{kind} {target}", "")
        return both("op_unbanned", target=target)


# --- what a worker does for its own sessions (told by its operator, or by another worker's) ---
def live(sessions: Iterable[Session]) -> list[Session]:
    return [s for s in list(sessions) if s.conn.account is not None and not s.ended]


WhoRow = tuple[str, str, str, str, int]  # name, key fingerprint, address, table, idle seconds


def who_rows(host: OperatorHost) -> list[WhoRow]:
    """This worker's sessions as ``who`` lists them (``OP_WHO_ROWS`` at most)."""
    now = time.monotonic()
    rows = []
    for s in live(host.sessions)[:OP_WHO_ROWS]:
        account = s.conn.account
        assert account is not None
        table = next((t.name for t in list(host.registry.tables.values())
                      if t.seat_of(account.id) is not None), None)
        if table is None and s.command is not None and s.command.table:
            table = s.command.table
        rows.append((account.nickname, s.conn.fingerprint or "no key", s.conn.address,
                     table or "lobby", int(now - s.last_input)))
    return rows


def _who_row(raw: Any) -> WhoRow | None:
    """A row another worker sent, checked and cleaned (None: not a row)."""
    if not (isinstance(raw, list) and len(raw) == 5 and all(isinstance(x, str) for x in raw[:4])
            and type(raw[4]) is int and raw[4] >= 0):
        return None
    name, fingerprint, address, table = (clean_line(x, 60) for x in raw[:4])
    return name, fingerprint, address, table, raw[4]


def tell(session: Session, text: str) -> bool:
    """``text`` as a toast on a drawn screen, a line in plain mode: whether it was shown."""
    if session.app is not None and session.driver is not None:
        with contextlib.suppress(Exception):
            session.app.notify(text, markup=False, timeout=20)  # type: ignore[attr-defined]
            return True
    elif session.plain is not None and session.chan is not None:
        with contextlib.suppress(Exception):
            for line in text.splitlines():
                session.write_line(line)
            return True
    return False


def announce_here(host: OperatorHost, line: str) -> int:
    """``line`` (cleaned) told to each session: how many."""
    said = both("announce", text=line)
    return sum(tell(s, said) for s in live(host.sessions))


def close_sessions(sessions: list[Session], line: str, reason: str) -> int:
    """Each session ended with ``line`` (both languages), its connection closed soon after
    with ``reason`` (English: what a client shows of a disconnection)."""
    loop = asyncio.get_running_loop()
    for s in sessions:
        s.farewell = line
        s.end_app()
        if s.app is None and s.chan is not None:  # plain mode, a bot: the line now
            with contextlib.suppress(Exception):
                s.write_line(line)
        conn = s.conn.conn
        if conn is not None:
            loop.call_later(KICK_SECONDS, conn.disconnect, asyncssh.DISC_BY_APPLICATION,
                            reason)
    return len(sessions)


def kick_here(host: OperatorHost, name: str, reason: str) -> int:
    sessions = [s for s in live(host.sessions)
                if s.conn.account is not None and s.conn.account.nickname == name]
    return close_sessions(sessions, both("kicked", reason=reason),
                          tr("en", "kicked", reason=reason))


def ban_here(host: OperatorHost, ban: Ban) -> int:
    """The sessions ``ban`` covers closed with the ban's line: how many."""
    covered = [s for s in live(host.sessions)
               if covers(ban.kind, ban.target, ban.account_id, s.conn.fingerprint,
                         s.conn.account.id if s.conn.account else None, s.conn.address)]
    return close_sessions(covered, ban_line(ban), ban_line(ban, ("en",)))


class OperatorBus:
    """An operator's announcement, kick or ban told to the other workers of a server of
    several over its bus (net.cluster), each doing it for its own sessions (a ban: read
    again from the store, which has it before it is told)."""

    def __init__(self, host: OperatorHost, node: Node) -> None:
        self.host = host
        self.node = node

    async def start(self) -> None:
        await self.node.nc.subscribe(BUS_SUBJECT, cb=self._heard)

    async def ask_who(self) -> tuple[dict[str, list[WhoRow]], list[str]]:
        """Every other worker's sessions (by worker), asked over the bus, and the workers the
        directory knows (their heartbeats) that did not answer within ``OP_WHO_SECONDS``."""
        nc = self.node.nc
        expected = set(self.node.directory.workers) - {self.node.name}
        heard: dict[str, list[WhoRow]] = {}
        all_in = asyncio.Event()

        async def answered(msg: Any) -> None:
            if len(msg.data) > OP_WHO_REPLY_BYTES:
                return
            with contextlib.suppress(ValueError):
                said = json.loads(msg.data)
                worker, rows = said.get("from"), said.get("rows")
                if isinstance(worker, str) and isinstance(rows, list):
                    found = [_who_row(raw) for raw in rows[:OP_WHO_ROWS]]
                    heard[clean_line(worker, 80)] = [r for r in found if r is not None]
                    if expected <= set(heard):
                        all_in.set()

        try:
            inbox = nc.new_inbox()
            sub = await nc.subscribe(inbox, cb=answered)
        except Exception as exc:
            log.warning("operators: could not ask the other workers (%s)", exc)
            return heard, sorted(expected)
        try:
            await nc.publish(BUS_SUBJECT, json.dumps({"what": "who", "from": self.node.name})
                             .encode(), reply=inbox)
            if expected:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(all_in.wait(), OP_WHO_SECONDS)
            else:  # none known yet (heartbeats not read): whoever answers in the time
                await asyncio.sleep(OP_WHO_SECONDS)
        except Exception as exc:
            log.warning("operators: could not ask the other workers (%s)", exc)
        finally:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
        return dict(heard), sorted(expected - set(heard))

    async def tell(self, what: str, **fields: str) -> bool:
        """Whether it was sent (the bus may be away: then logged)."""
        data = json.dumps({"what": what, "from": self.node.name, **fields}).encode()
        try:
            await self.node.nc.publish(BUS_SUBJECT, data)
        except Exception as exc:
            log.warning("operators: could not tell the other workers (%s)", exc)
            return False
        return True

    async def _heard(self, msg: Any) -> None:
        data = msg.data
        if len(data) > BUS_MAX_BYTES:
            return
        try:
            said = json.loads(data)
        except ValueError:
            return
        if not isinstance(said, dict) or said.get("from") == self.node.name:
            return
        what, text, table = said.get("what"), said.get("text"), said.get("table")
        name, reason = said.get("name"), said.get("reason")
        if what == "who" and msg.reply:
            found = who_rows(self.host)
            while True:  # within the longest answer read: fewer rows rather than none
                rows = json.dumps({"from": self.node.name, "rows": found}).encode()
                if len(rows) <= OP_WHO_REPLY_BYTES or not found:
                    break
                found = found[:len(found) // 2]
            with contextlib.suppress(Exception):
                await self.node.nc.publish(msg.reply, rows)
        elif what == "announce" and isinstance(text, str):
            announce_here(self.host, clean_line(text, OP_ANNOUNCE_MAX))
        elif what == "kick" and isinstance(name, str) and isinstance(reason, str):
            kick_here(self.host, name, clean_line(reason, OP_REASON_MAX))
        elif what == "close" and isinstance(table, str) and table in self.host.registry.tables:
            with contextlib.suppress(RefusedError):  # closed meanwhile, or moving
                self.host.registry.close_table(table, None)
        elif what == "ban":
            await self.host.moderation.refresh(force=True)
            for ban in self.host.moderation.bans:
                ban_here(self.host, ban)


# an operator's commands typed in a table's chat (the same as over SSH, with a slash)
TABLE_COMMANDS = frozenset({"announce", "kick", "mute", "unmute", "ban", "unban"})


def chat_through(client: SharedTableClient,
                 handle: Callable[[Session, str], bool],
                 session: Session) -> None:
    """``client``'s chat lines go first to ``handle(session, text)``, which returns True to
    pass a line on to the chat as it was (the class's, or a ``chat_through`` before this one),
    False when it answered it itself. The new chat holds the client and the session weakly:
    held strongly, the client's own attribute would make it, the session and its connection
    a reference cycle, which a server that freezes its survivors never collects
    (``net.serve``)."""
    before = client.__dict__.get("chat")  # a chat_through's, which holds nothing strongly
    own = type(client).chat
    me = weakref.ref(client)
    who = weakref.ref(session)

    def chat(text: str) -> Refusal | None:
        c, s = me(), who()
        if c is None or s is None:
            return None
        if not handle(s, text):
            return None
        return before(text) if before is not None else own(c, text)

    setattr(client, "chat", chat)  # noqa: B010 (the instance's, not its class's)


def at_table(host: OperatorHost, operators: HostFile[AllowList] | None, session: Session,
             client: SharedTableClient) -> None:
    """``client``'s chat, for a session whose key the operators file lists: ``/kick NAME``,
    ``/mute NAME 30m``, ``/ban NAME 1d REASON``, ``/announce TEXT``, ``/unmute``, ``/unban``
    run as the same commands over SSH do, their answer told to the operator alone; any other
    line (and every line, once the key is no longer listed) goes to the table."""
    running: set[asyncio.Task[None]] = set()

    def handle(session: Session, text: str) -> bool:
        words = text.split()
        head = words[0][1:].lower() if words and words[0].startswith("/") else ""
        if head not in TABLE_COMMANDS or not is_operator(operators, session.conn):
            return True
        task = asyncio.get_running_loop().create_task(_at_table(host, session,
                                                                [head, *words[1:]]))
        running.add(task)  # the loop keeps only a weak reference
        task.add_done_callback(running.discard)
        return False

    chat_through(client, handle, session)


async def _at_table(host: OperatorHost, session: Session, words: list[str]) -> None:
    text, _ = await Operator(host, session).run(words)
    tell(session, text)


def answered_first(session: Session, again: Callable[[], None]) -> bool:
    """Whether the session's command is answered before it runs: its account and bans still
    being read (a database server; ``again`` once they are), or a ban covers it (its line,
    exit status 1, before any screen)."""
    conn = session.conn
    if not conn.logged_in.is_set():
        session.task = asyncio.get_running_loop().create_task(_logged_in(session, again))
        return True
    if conn.banned is not None:
        session.reply(ban_line(conn.banned) + "\n", status=1)
        return True
    return False


async def _logged_in(session: Session, again: Callable[[], None]) -> None:
    await session.conn.logged_in.wait()
    if session.conn.account is not None and session.chan is not None and not session.ended:
        again()


def start(host: OperatorHost, operators: HostFile[AllowList] | None, session: Session,
          words: list[str]) -> None:
    """An operator's command, run from a key the operators file lists; from any other, the
    unknown command's answer."""
    if not is_operator(operators, session.conn):
        session.reply(f"{both('error')}: {unknown_command(words[0])}\n", status=2,
                      code="usage")
        return
    session.task = asyncio.get_running_loop().create_task(run_command(host, session, words))


async def run_command(host: OperatorHost, session: Session, words: list[str]) -> None:
    """An operator's command (the session's key checked before): its answer, then its
    exit status."""
    text, status = await Operator(host, session).run(words)
    if session.chan is not None:
        with contextlib.suppress(OSError):
            session.reply(text.rstrip("\n") + "\n", status=status)
