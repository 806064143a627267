"""The operators' bans and mutes as a worker uses them (net/front/operators.py makes them):
read from the store, which every worker shares, again when what was read is older than
``OP_CACHE_SECONDS`` (at a login, and now and then for the mutes), so that a ban holds on every
worker and after a restart; what a ban covers; the line a banned client reads."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import time

from host.refusal import Refusal
from net.limits import OP_CACHE_SECONDS
from net.store.base import Store, store_call
from net.store.model import Ban, Mute, StorageError
from words import tr

log = logging.getLogger("net.front.server")


def shown_time(when: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(when))


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def covers(kind: str, target: str, account_id: int | None, fingerprint: str | None,
           owner_id: int | None, address: str) -> bool:
    """Whether a ban of ``kind`` ``target`` (a name's: ``account_id``) covers a client with
    key ``fingerprint``, account ``owner_id``, from ``address``."""
    if kind == "key":
        return fingerprint == target
    if kind == "name":
        return account_id is not None and owner_id == account_id
    peer = _address(address)
    if peer is None:
        return False
    if kind == "address":
        return peer == _address(target)
    try:
        return peer in ipaddress.ip_network(target)
    except ValueError:
        return False


class Moderation:
    """The bans and mutes in force, as this worker last read them from the store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.bans: list[Ban] = []
        self.mutes: dict[int, Mute] = {}
        self.read_at = -1e9  # time.monotonic() of the last read
        self._lock = asyncio.Lock()

    async def refresh(self, force: bool = False) -> None:
        """Read them again where the last read is older than ``OP_CACHE_SECONDS`` (or
        ``force``); a failed read is logged and what was read before kept."""
        async with self._lock:
            if not force and time.monotonic() - self.read_at < OP_CACHE_SECONDS:
                return
            try:
                bans = await store_call(self.store, self.store.load_bans)
                mutes = await store_call(self.store, self.store.load_mutes)
            except StorageError as exc:
                log.error("%s; keeping the bans read before", exc)
            else:
                self.bans, self.mutes = bans, {m.account_id: m for m in mutes}
            self.read_at = time.monotonic()

    def ban_for(self, fingerprint: str | None, account_id: int | None,
                address: str) -> Ban | None:
        """The ban in force that covers this client, if any."""
        now = time.time()
        for ban in self.bans:
            if (ban.expires is None or ban.expires > now) and covers(
                    ban.kind, ban.target, ban.account_id, fingerprint, account_id, address):
                return ban
        return None

    def muted(self, account_id: int) -> Refusal | None:
        """The refusal of a muted account's chat line (None: not muted)."""
        mute = self.mutes.get(account_id)
        if mute is None or (mute.until is not None and mute.until <= time.time()):
            return None
        if mute.until is None:
            return Refusal("muted")
        return Refusal.of("muted_until", until=shown_time(mute.until))


def until_text(lang: str, until: float | None) -> str:
    return shown_time(until) if until is not None else tr(lang, "op_no_end")


def ban_line(ban: Ban, langs: tuple[str, ...] = ("en", "zh")) -> str:
    """What a banned client reads, in both languages, before any screen."""
    fields = {"en": tr("en", "no_reason"), "zh": tr("zh", "no_reason")}
    key = "banned" if ban.expires is None else "banned_until"
    until = shown_time(ban.expires) if ban.expires is not None else ""
    return " ".join(tr(lang, key, reason=ban.reason or fields[lang], until=until)
                    for lang in langs)
