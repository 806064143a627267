"""``serve --lan`` and ``mahjong-ssh find``: the server announced on the local network over
multicast DNS service discovery (mDNS/DNS-SD, python-zeroconf), with its tables in the TXT
record, and the browsing that lists what is announced.

The TXT record (format version 1), each string ``key=value`` of at most 255 bytes and the whole
record within :data:`TXT_BUDGET` bytes:

- ``v``: the format's version (``1``); ``fp``: the host key's SHA-256 fingerprint, for the
  player to compare with what ``ssh`` shows on first connection; ``sv``: the server's version;
- ``n``: the number of tables the server has; ``t0``, ``t1``...: the most interesting of them
  (waiting tables with players first, then games in play, finished ones last), as many as fit,
  each ``name;rules;state;free seats;players;watchers;hand;hands per game;flags`` (``;`` is
  in no table name; flags: ``s`` when 压鸽子 spectator stakes are on, unknown letters
  ignored). Anyone may watch any table. The finder says "N more" for the rest.

Everything read from the network is hostile: :func:`decode_txt` takes bytes of any length and
content, removes escape and control characters, bounds every length and count, and refuses what
does not parse (:class:`BadAnnouncement`); one bad table entry is skipped alone.

Imported only by the composition root (``net.serve``) and the command line; import-linter keeps
the table runtime, the store, the SSH front and the bus free of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import re
import socket
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from host.table_info import TableInfo, TableState
from net.sanitize import clean_line, table_name, valid_table_name
from words import both

if TYPE_CHECKING:  # zeroconf is loaded only by serve --lan and find
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

log = logging.getLogger("net.lan")

SERVICE_TYPE = "_mahjong-ssh._tcp.local."
TXT_VERSION = "1"
TXT_BUDGET = 1100  # bytes of the whole TXT record: with PTR, SRV and A it stays in one packet
STRING_MAX = 255  # a TXT string's length byte
TABLES_MAX = 16  # tables announced at most (more would not help someone choosing on a screen)
UPDATE_SECONDS = 2.0  # the record is rewritten at most this often, and only when it changed
INSTANCE_MAX = 63  # bytes of a DNS-SD instance name (RFC 6763 §4.1.1)
HOST_LABEL_MAX = 40
FOUND_MAX = 64  # servers a finder lists at most
RESOLVE_MS = 1500  # how long a finder waits for a service's records after browsing
ADDRESSES_MAX = 8  # addresses shown of one server
VERSION_MAX = 32
TABLE_FIELDS = 9
TABLE_COUNT_MAX = 1_000_000
WATCHERS_MAX = 100_000
HANDS_MAX = 10_000

_FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")
_RULES = re.compile(r"[a-z][a-z0-9_]{0,15}")
_FLAGS = re.compile(r"[a-z]{0,8}")
_VERSION = re.compile(r"[0-9A-Za-z.+_-]{1,32}")
_STATE_CODES = {TableState.WAITING: "w", TableState.PLAYING: "p", TableState.BETWEEN: "b",
                TableState.OVER: "o"}
_CODE_STATES = {code: state for state, code in _STATE_CODES.items()}


class LanError(Exception):
    """The announcement could not be made (no multicast, a socket refused): the message says
    why."""


class BadAnnouncement(ValueError):
    """An announcement that does not read as format version 1: skipped by the finder."""


@dataclass(frozen=True)
class LanTable:
    """One table as announced."""

    name: str
    rules: str
    state: TableState
    free: int  # seats nobody sits at
    players: int  # seats a person sits at (the rest are computer players or empty)
    watchers: int
    hand: int
    hands: int
    stakes: bool = False  # 压鸽子: spectators may back a seat (Yichun's option, enough players)

    @classmethod
    def of(cls, info: TableInfo) -> LanTable:
        return cls(name=info.name, rules=info.rules, state=info.state,
                   free=sum(1 for s in info.seats if not s.name),
                   players=sum(1 for s in info.seats if s.name and s.human),
                   watchers=info.spectators, hand=info.hand_no, hands=info.hands_per_game,
                   stakes=info.stakes_possible and info.stakes_enabled)

    def encode(self) -> str:
        return ";".join((self.name, self.rules, _STATE_CODES[self.state], str(self.free),
                         str(self.players), str(self.watchers), str(self.hand),
                         str(self.hands), "s" if self.stakes else ""))

    @classmethod
    def decode(cls, raw: bytes) -> LanTable:
        """One ``tN`` value: ValueError when it does not parse or is out of bounds."""
        # cleaned whole, then split: an escape sequence may carry a ``;``
        parts = clean_line(raw.decode("utf-8"), STRING_MAX).split(";")
        if len(parts) != TABLE_FIELDS:
            raise ValueError(f"{len(parts)} fields, not {TABLE_FIELDS}")
        name = table_name(parts[0])
        if not valid_table_name(name):
            raise ValueError("not a table name")
        rules = parts[1]
        if not _RULES.fullmatch(rules):
            raise ValueError("not a ruleset's name")
        state = _CODE_STATES.get(parts[2])
        if state is None:
            raise ValueError("unknown state")
        free, players, watchers, hand, hands = (
            _bounded(parts[3], 4), _bounded(parts[4], 4), _bounded(parts[5], WATCHERS_MAX),
            _bounded(parts[6], HANDS_MAX), _bounded(parts[7], HANDS_MAX))
        if free + players > 4:
            raise ValueError("more than four seats")
        flags = parts[8]
        if not _FLAGS.fullmatch(flags):
            raise ValueError("not flags")
        return cls(name, rules, state, free, players, watchers, hand, hands, "s" in flags)


def _bounded(text: str, high: int) -> int:
    """A whole number from 0 to ``high`` written in plain ASCII digits: ValueError if not."""
    if not (0 < len(text) <= len(str(high)) and text.isascii() and text.isdigit()):
        raise ValueError(f"not a whole number: {text[:12]!r}")
    value = int(text)
    if value > high:
        raise ValueError(f"{value} is over {high}")
    return value


def interest(table: LanTable) -> tuple[int, int, int, str]:
    """The order tables are announced in: the ones to sit at first (waiting, with players
    already there), then the games to watch (the most watched first), finished ones last."""
    if table.state is TableState.WAITING:
        group = 0 if table.free else 1
    elif table.state is TableState.OVER:
        group = 2
    else:
        group = 1
    return group, -table.players, -table.watchers, table.name


@dataclass(frozen=True)
class Announcement:
    """What one server's TXT record says."""

    fingerprint: str
    version: str
    tables: tuple[LanTable, ...]
    total: int  # tables the server has (``more`` of them not in the record)
    unreadable: int = 0  # table entries skipped as malformed

    @property
    def more(self) -> int:
        return max(0, self.total - len(self.tables))


def _size(key: str, value: str) -> int:
    return 1 + len(key.encode()) + 1 + len(value.encode())


def encode_txt(fingerprint: str, version: str, infos: Iterable[TableInfo],
               budget: int = TXT_BUDGET) -> dict[str, str]:
    """The TXT record of a server with these tables: the most interesting that fit."""
    record = {"v": TXT_VERSION, "fp": fingerprint[:STRING_MAX - 3],
              "sv": version[:VERSION_MAX] or "unknown"}
    tables = sorted((LanTable.of(info) for info in infos), key=interest)
    record["n"] = str(min(len(tables), TABLE_COUNT_MAX))
    used = sum(_size(k, v) for k, v in record.items())
    for table in tables[:TABLES_MAX]:
        key, value = f"t{len(record) - 4}", table.encode()
        size = _size(key, value)
        if size - 1 > STRING_MAX or used + size > budget:
            break
        record[key] = value
        used += size
    return record


def txt_size(record: Mapping[str, str]) -> int:
    """The bytes ``record`` takes in a DNS TXT record."""
    return sum(_size(k, v) for k, v in record.items())


def decode_txt(properties: Mapping[bytes, bytes | None]) -> Announcement:
    """A received TXT record (python-zeroconf's ``properties``): :class:`BadAnnouncement` if
    it is not a readable version-1 record; malformed table entries are skipped and counted."""
    if len(properties) > 4 * TABLES_MAX:
        raise BadAnnouncement(f"{len(properties)} TXT strings")

    def text(key: bytes) -> str:
        value = properties.get(key)
        if value is None:
            raise BadAnnouncement(f"no {key.decode()}")
        if len(value) > STRING_MAX:
            raise BadAnnouncement(f"{key.decode()} too long")
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            raise BadAnnouncement(f"{key.decode()} is not UTF-8") from None

    if text(b"v") != TXT_VERSION:
        raise BadAnnouncement("another format version")
    fingerprint = text(b"fp")
    if not _FINGERPRINT.fullmatch(fingerprint):
        raise BadAnnouncement("no SHA256 host key fingerprint")
    version = text(b"sv")
    if not _VERSION.fullmatch(version):
        version = "unknown"
    try:
        total = _bounded(text(b"n"), TABLE_COUNT_MAX)
    except ValueError:
        raise BadAnnouncement("no table count") from None
    tables: list[LanTable] = []
    unreadable = 0
    seen: set[str] = set()
    for i in range(TABLES_MAX):
        raw = properties.get(f"t{i}".encode())
        if raw is None:
            continue
        try:
            if len(raw) > STRING_MAX:
                raise ValueError("too long")
            table = LanTable.decode(raw)
        except ValueError:  # also UnicodeDecodeError
            unreadable += 1
            continue
        if table.name in seen:
            unreadable += 1
            continue
        seen.add(table.name)
        tables.append(table)
    return Announcement(fingerprint, version, tuple(tables),
                        max(total, len(tables) + unreadable), unreadable)


def host_label(hostname: str | None = None) -> str:
    """This machine's name as one DNS label: letters, digits and ``-``, bounded."""
    name = (hostname if hostname is not None else socket.gethostname()).split(".")[0]
    label = re.sub(r"[^A-Za-z0-9-]+", "-", name).strip("-")[:HOST_LABEL_MAX].strip("-")
    return label or "mahjong"


def instance_name(port: int, hostname: str | None = None) -> str:
    """The service's instance name (what the finder shows first): the host and the port."""
    return f"mahjong-ssh on {host_label(hostname)} port {port}"[:INSTANCE_MAX]


# --- where to announce ---------------------------------------------------------------------


@dataclass(frozen=True)
class Reach:
    """Where an announcement goes: the interfaces' addresses (None: every interface), the IP
    version, the addresses announced, and whether that is this machine only."""

    interfaces: tuple[str, ...] | None
    ipv6: bool
    ipv4: bool
    addresses: tuple[str, ...]
    loopback_only: bool


def machine_addresses(ipv4: bool = True, ipv6: bool = False) -> list[str]:
    """This machine's addresses, loopback and link-local ones last (ifaddr)."""
    import ifaddr  # zeroconf's own dependency for the interfaces

    found: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            raw = ip.ip[0] if isinstance(ip.ip, tuple) else ip.ip
            try:
                address = ipaddress.ip_address(raw)
            except ValueError:
                continue
            wanted = (address.version == 4 and ipv4) or (address.version == 6 and ipv6)
            if wanted and address not in found:
                found.append(address)
    found.sort(key=lambda a: (a.is_loopback, a.is_link_local, a.version))
    return [str(a) for a in found]


def reach_of(host: str) -> Reach:
    """Where ``serve --host HOST --lan`` announces: on every interface for ``0.0.0.0`` (IPv4)
    or ``::`` (both), on the one address otherwise; a loopback address only reaches this
    machine. OSError when ``host`` does not resolve."""
    if host in ("", "0.0.0.0"):
        addresses = machine_addresses()
        outside = [a for a in addresses if not ipaddress.ip_address(a).is_loopback]
        return Reach(None, False, True, tuple(outside or addresses), not outside)
    if host == "::":
        addresses = [a for a in machine_addresses(ipv6=True)
                     if not ipaddress.ip_address(a).is_link_local]
        outside = [a for a in addresses if not ipaddress.ip_address(a).is_loopback]
        return Reach(None, True, True, tuple(outside or addresses), not outside)
    try:
        address = ipaddress.ip_address(host)
    except ValueError:  # a host name: the address it listens on
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        address = ipaddress.ip_address(infos[0][4][0])
    if address.version == 6:
        return Reach(None, True, False, (str(address),), address.is_loopback)
    return Reach((str(address),), False, True, (str(address),), address.is_loopback)


def quiet_zeroconf() -> None:
    """zeroconf warns, with a traceback, of each interface it cannot send on (IPv6 on a
    loopback without a multicast route, say) and goes on with the others: its errors only."""
    logging.getLogger("zeroconf").setLevel(logging.ERROR)


# --- announcing ----------------------------------------------------------------------------


def server_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mahjong-ssh")
    except PackageNotFoundError:
        return "unknown"


class Announcer:
    """A server's announcement: registered by :meth:`start`, its TXT record rewritten at most
    every :data:`UPDATE_SECONDS` when the tables it shows changed, withdrawn by :meth:`close`
    (the goodbye packets tell the finders it is gone)."""

    def __init__(self, listing: Callable[[], Sequence[TableInfo]], *, host: str, port: int,
                 fingerprint: str, version: str | None = None, hostname: str | None = None,
                 interval: float = UPDATE_SECONDS) -> None:
        self.listing = listing
        self.port = port
        self.fingerprint = fingerprint
        self.version = version or server_version()
        self.interval = interval
        self.reach = reach_of(host)
        self.name = instance_name(port, hostname)
        self.server_name = f"{host_label(hostname)}-mahjong-ssh.local."
        self.record: dict[str, str] = {}
        self.updates = 0  # records sent after the first
        self._zc: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None
        self._failing = False  # an update failed: said once, not every interval
        self._task: asyncio.Task[None] | None = None

    def note(self) -> str:
        """What ``serve`` prints once announced."""
        where = ", ".join(self.reach.addresses)
        text = f"LAN: announced as {self.name!r} ({SERVICE_TYPE}) on {where}"
        if self.reach.loopback_only:
            text += f"\nLAN: {both('lan_loopback')}"
        return text

    def _service(self) -> AsyncServiceInfo:
        from zeroconf.asyncio import AsyncServiceInfo

        return AsyncServiceInfo(
            SERVICE_TYPE, f"{self.name}.{SERVICE_TYPE}", port=self.port,
            properties=self.record, server=self.server_name,
            addresses=[ipaddress.ip_address(a).packed for a in self.reach.addresses])

    def _current(self) -> dict[str, str]:
        return encode_txt(self.fingerprint, self.version, self.listing())

    async def start(self) -> None:
        """Registered (probing for a unique name takes about a second; with another server of
        the same name on the network this one becomes ``NAME-2``). LanError when it cannot."""
        from zeroconf import Error, IPVersion
        from zeroconf.asyncio import AsyncZeroconf

        quiet_zeroconf()
        reach = self.reach
        version = (IPVersion.All if reach.ipv4 and reach.ipv6
                   else IPVersion.V6Only if reach.ipv6 else IPVersion.V4Only)
        try:
            if reach.interfaces is None:
                zc = AsyncZeroconf(ip_version=version)
            else:
                zc = AsyncZeroconf(interfaces=list(reach.interfaces), ip_version=version)
        except (OSError, Error) as exc:
            raise LanError(f"no multicast socket: {exc}") from exc
        self._zc = zc
        self.record = self._current()
        info = self._service()
        try:
            await zc.async_register_service(info, allow_name_change=True)
        except BaseException as exc:
            await zc.async_close()
            self._zc = None
            if isinstance(exc, (OSError, Error)):
                raise LanError(f"not registered: {exc}") from exc
            raise
        self._info = info
        self.name = info.name.removesuffix(f".{SERVICE_TYPE}")
        self._task = asyncio.get_running_loop().create_task(self._keep(), name="lan announce")

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.refresh()
            except Exception:  # a table's info that failed, a socket gone: try again later
                if not self._failing:
                    log.exception("LAN announcement not updated (tried again every %g s)",
                                  self.interval)
                self._failing = True
            else:
                self._failing = False

    async def refresh(self) -> bool:
        """The record rewritten if the tables it shows changed: whether it was."""
        record = self._current()
        zc = self._zc
        if record == self.record or zc is None or self._info is None:
            return False
        self.record = record
        info = self._service()  # the same name (as registered), the new record
        await zc.async_update_service(info)
        self._info = info
        self.updates += 1
        return True

    async def close(self) -> None:
        """Withdrawn (goodbye packets) and the sockets closed; again is nothing."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        zc = self._zc
        self._zc = None
        self._info = None
        if zc is None:
            return
        with contextlib.suppress(Exception):
            await zc.async_unregister_all_services()
        await zc.async_close()


# --- finding -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """A server found on the network."""

    name: str  # the instance name, cleaned
    addresses: tuple[str, ...]
    port: int
    announcement: Announcement

    @property
    def address(self) -> str:
        """The address to type: the first that is not loopback (the server's own order)."""
        for a in self.addresses:
            if not ipaddress.ip_address(a).is_loopback:
                return a
        return self.addresses[0]


@dataclass
class FindResult:
    servers: list[Found] = field(default_factory=list)
    skipped: int = 0  # announcements that were not readable


def found_of(name: str, addresses: Iterable[str], port: int | None,
             properties: Mapping[bytes, bytes | None]) -> Found:
    """A resolved service as the finder keeps it: BadAnnouncement when it is not usable."""
    if port is None or not 0 < port < 65536:
        raise BadAnnouncement("no port")
    kept: list[str] = []
    for a in addresses:
        try:
            address = ipaddress.ip_address(a)
        except ValueError:
            continue
        if address.is_multicast or address.is_unspecified:
            continue
        if str(address) not in kept:
            kept.append(str(address))
    if not kept:
        raise BadAnnouncement("no address")
    shown = clean_line(name.removesuffix(f".{SERVICE_TYPE}"), INSTANCE_MAX) or "?"
    return Found(shown, tuple(kept[:ADDRESSES_MAX]), port, decode_txt(properties))


async def find(timeout: float = 3.0, interfaces: Sequence[str] | None = None) -> FindResult:
    """Browse for ``timeout`` seconds: the servers announced, each resolved (address, port,
    TXT record) and decoded; what cannot be read is counted in ``skipped``."""
    from zeroconf import Error, IPVersion, ServiceStateChange, Zeroconf
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

    quiet_zeroconf()
    try:
        if interfaces is not None:
            zc = AsyncZeroconf(interfaces=list(interfaces), ip_version=IPVersion.V4Only)
        else:
            try:
                zc = AsyncZeroconf(ip_version=IPVersion.All)
            except (OSError, Error):  # a machine without IPv6: IPv4 alone
                zc = AsyncZeroconf(ip_version=IPVersion.V4Only)
    except (OSError, Error) as exc:
        raise LanError(f"no multicast socket: {exc}") from exc
    names: dict[str, None] = {}

    def changed(zeroconf: Zeroconf, service_type: str, name: str,
                state_change: ServiceStateChange) -> None:
        if state_change is ServiceStateChange.Removed:
            names.pop(name, None)
        elif len(names) < FOUND_MAX * 2:
            names[name] = None

    result = FindResult()

    async def resolve(name: str) -> Found | None:
        """The service ``name`` resolved and read: None if it went away; BadAnnouncement, or
        zeroconf's Error for a name it will not take, when it cannot be read."""
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        if not await info.async_request(zc.zeroconf, RESOLVE_MS):
            return None
        return found_of(name, info.parsed_addresses(), info.port, info.properties)

    browser = AsyncServiceBrowser(zc.zeroconf, SERVICE_TYPE, handlers=[changed])
    try:
        await asyncio.sleep(timeout)
        # all at once: what answers from the cache at once, the rest within RESOLVE_MS
        outcomes = await asyncio.gather(*(resolve(name) for name in list(names)),
                                        return_exceptions=True)
        resolved: list[Found] = []
        for name, outcome in zip(list(names), outcomes, strict=False):
            if isinstance(outcome, (BadAnnouncement, ValueError, UnicodeError, Error)):
                log.debug("skipped %r: %s", name, outcome)
                result.skipped += 1
            elif isinstance(outcome, BaseException):
                raise outcome
            elif outcome is not None and len(resolved) < FOUND_MAX:
                resolved.append(outcome)
        result.servers = sorted(resolved, key=lambda f: (f.name, f.port))
    finally:
        await browser.async_cancel()
        await zc.async_close()
    return result
