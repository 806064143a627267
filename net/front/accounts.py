"""Accounts without an SSH key: a name protected by a passphrase only its owner holds.

A client without a key logs in by keyboard-interactive. The first time a name is used it is
asked to choose a passphrase (at least ``Limits.passphrase_min`` characters), which keeps the
name for later visits: the next login under that name is asked for it, and a wrong one is a
failed attempt (counted with every other, ``Limits.max_auth_tries``). Wrong passphrases are
also counted by name, from every connection and address (:class:`NameBackoff`): past a few,
each further attempt on the name waits longer. Pressing Enter instead plays as a **guest**: a
fresh account for this visit only, under the name with the guest's mark (``bob~``,
net.sanitize.GUEST_MARK, which no key's or passphrase's name can carry, so a guest never holds
a name they ask for), else a numbered ``bob~2``; no later login can enter it: a guest who
drops cannot come back as himself (his seat goes to a computer player after the grace period),
and so no stranger ever takes a guest's seat either. The account and its name are forgotten
when its guest leaves (unless it left a result or a seat: then at a start a day later).
Passphrases are stored as scrypt hashes (memory-hard, 16 MiB each; stdlib ``hashlib.scrypt``),
computed off the event loop, at most ``Limits.hash_concurrency`` at once, a check that its
login abandoned included (:meth:`Keyless._hash`).

Accounts made before passphrases existed (keyless, none chosen) are claimed by the first login
that chooses one while nobody is connected under that name. A name held by a connected player
is never handed to another connection: only the key's or the passphrase's owner gets it.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from net.limits import Limits
from net.sanitize import guest_name
from net.store.base import Store
from net.store.model import Account

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # 16 MiB (128·N·r): slow to guess, quick for one login
GUEST_KEPT = 86_400.0  # a guest account unseen this long that left nothing is forgotten


def hash_passphrase(passphrase: str, salt: bytes | None = None) -> str:
    salt = salt if salt is not None else os.urandom(16)
    key = hashlib.scrypt(passphrase.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R,
                         p=SCRYPT_P, maxmem=64 * 1024 * 1024, dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${key.hex()}"


def check_passphrase(passphrase: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, key = stored.split("$")
        if kind != "scrypt" or int(n) > 2**20 or int(r) > 32 or int(p) > 4:
            return False
        got = hashlib.scrypt(passphrase.encode("utf-8"), salt=bytes.fromhex(salt), n=int(n),
                             r=int(r), p=int(p), maxmem=256 * 1024 * 1024,
                             dklen=len(bytes.fromhex(key)))
    except (ValueError, TypeError, MemoryError):
        return False
    return hmac.compare_digest(got, bytes.fromhex(key))


class NameState(Enum):
    NEW = "new"  # no account has the name: choose a passphrase, or play as a guest
    PROTECTED = "protected"  # a keyless account with a passphrase: asked for it
    UNCLAIMED = "unclaimed"  # a keyless account from before passphrases: first to choose one
    TAKEN = "taken"  # a key's account or a guest's: a new name is offered


@dataclass(frozen=True)
class NameLookup:
    state: NameState
    nickname: str  # the name the login will get (a free variant when taken)
    account_id: int | None = None
    stored: str | None = None  # the passphrase hash, when protected


TRUSTED_PER_NAME = 4  # addresses a name's passphrase was given from, remembered a name
BACKOFF_FORGET = 86_400.0  # a name's wrong passphrases are forgotten after a day without one


@dataclass
class _Failures:
    count: int = 0
    next_at: float = 0.0  # time.monotonic() before which an attempt waits
    last: float = 0.0  # the last failure's


class NameBackoff:
    """Wrong passphrases counted by name (its account id), whatever the connection or the
    address: after ``passphrase_free_failures`` each attempt on the name waits its turn, the
    turns ``passphrase_backoff`` seconds apart, doubled with each failure up to
    ``passphrase_backoff_max``. An attempt whose turn is more than half the login grace away
    is refused at once (it would not be answered in time). At most
    ``passphrase_names_followed`` names are followed, the least recently failed forgotten
    first; a right passphrase forgets the name's failures.

    So that a guesser cannot lock a name's owner out, an address the name's passphrase was
    given from lately (at most ``TRUSTED_PER_NAME`` a name, for ``BACKOFF_FORGET``) does not
    wait behind the name's failures: it has its own ``passphrase_free_failures``, and past
    them it is one more address, waiting its turn with the others."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self._names: OrderedDict[int, _Failures] = OrderedDict()
        # name → address → wrong passphrases from there since the name's last right one
        self._trusted: OrderedDict[int, OrderedDict[str, _Failures]] = OrderedDict()

    def failures(self, key: int) -> int:
        entry = self._names.get(key)
        return 0 if entry is None else entry.count

    def delay(self, key: int) -> float:
        """The time between two attempts on ``key`` now (0 while failures are free)."""
        limits = self.limits
        over = self.failures(key) - limits.passphrase_free_failures
        if over < 0:
            return 0.0
        return min(limits.passphrase_backoff * 2.0 ** min(over, 64),
                   limits.passphrase_backoff_max)

    def _trust(self, key: int, address: str | None) -> _Failures | None:
        """The failures from ``address`` on ``key`` when it is one the name's passphrase
        was given from lately and has not failed past the free ones since."""
        addresses = self._trusted.get(key) if address is not None else None
        entry = addresses.get(address) if addresses is not None and address is not None \
            else None
        if entry is None or self.clock() - entry.last > BACKOFF_FORGET:
            return None
        return entry if entry.count < self.limits.passphrase_free_failures else None

    def turn(self, key: int, address: str | None = None) -> float | None:
        """The seconds an attempt on ``key`` made now (from ``address``) waits before it is
        checked (0: at once); None: refused, its turn too far away. Taking a turn puts the
        next one a :meth:`delay` later, so that attempts made at once go one by one."""
        if self._trust(key, address) is not None:
            return 0.0
        entry = self._entry(key)
        if entry is None or entry.count < self.limits.passphrase_free_failures:
            return 0.0
        now = self.clock()
        start = max(now, entry.next_at)
        if start - now > self.limits.login_grace / 2:
            return None
        entry.next_at = start + self.delay(key)
        return start - now

    def failed(self, key: int, address: str | None = None) -> None:
        now = self.clock()
        trusted = self._trust(key, address)
        if trusted is not None:
            trusted.count += 1
            return
        entry = self._entry(key) or _Failures()
        entry.count += 1
        entry.last = now
        self._names[key] = entry
        self._names.move_to_end(key)
        entry.next_at = max(entry.next_at, now + self.delay(key))
        while len(self._names) > max(1, self.limits.passphrase_names_followed):
            self._names.popitem(last=False)

    def passed(self, key: int, address: str | None = None) -> None:
        self._names.pop(key, None)
        if address is None:
            return
        addresses = self._trusted.setdefault(key, OrderedDict())
        addresses[address] = _Failures(last=self.clock())
        addresses.move_to_end(address)
        self._trusted.move_to_end(key)
        while len(addresses) > TRUSTED_PER_NAME:
            addresses.popitem(last=False)
        while len(self._trusted) > max(1, self.limits.passphrase_names_followed):
            self._trusted.popitem(last=False)

    def _entry(self, key: int) -> _Failures | None:
        entry = self._names.get(key)
        if entry is not None and self.clock() - entry.last > BACKOFF_FORGET:
            del self._names[key]
            return None
        return entry


T = TypeVar("T")


class Keyless:
    """Keyless logins over the server's store (which reads and writes the accounts)."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self._hashing = asyncio.Semaphore(max(1, limits.hash_concurrency))
        self.hashing = 0  # hashes running now (in their threads)
        self.most_hashing = 0  # the most that ever ran at once
        self.backoff = NameBackoff(limits)
        store.forget_guests(time.time() - GUEST_KEPT)

    def lookup(self, wanted: str) -> NameLookup:
        """What a keyless login asking for ``wanted`` (a clean name) meets: a name no
        account has nor looks like is NEW; one held or looked like by a key's account (or
        another's that no passphrase enters) is TAKEN, with a free variant."""
        row = self.store.keyless_row(wanted)
        if row is None:
            free = self.store.free_nickname(wanted)
            return NameLookup(NameState.NEW if free == wanted else NameState.TAKEN, free)
        if not row.has_key and row.kind == "passphrase" and row.stored:
            return NameLookup(NameState.PROTECTED, wanted, row.account_id, row.stored)
        if not row.has_key and row.kind is None:
            return NameLookup(NameState.UNCLAIMED, wanted, row.account_id)
        return NameLookup(NameState.TAKEN, self.store.free_nickname(wanted))

    async def verify(self, passphrase: str, stored: str) -> bool:
        """Whether ``passphrase`` opens ``stored``. Not held to today's ``passphrase_min``: a
        passphrase chosen when fewer characters were asked for still opens its account."""
        if not 0 < len(passphrase) <= self.limits.passphrase_max:
            return False
        return await self._hash(check_passphrase, passphrase, stored)

    async def hashed(self, passphrase: str) -> str:
        return await self._hash(hash_passphrase, passphrase)

    async def _hash(self, work: Callable[..., T], *args: object) -> T:
        """``work(*args)`` in a thread, at most ``hash_concurrency`` at once. A caller
        cancelled (its login abandoned the check) while it waits for its turn: the hash never
        runs; once it runs: it runs to its end holding its turn (a thread cannot be stopped),
        so abandoned checks never make more hashes run at once."""
        await self._hashing.acquire()
        try:
            job = asyncio.ensure_future(asyncio.to_thread(work, *args))
        except BaseException:
            self._hashing.release()
            raise
        self.hashing += 1
        self.most_hashing = max(self.most_hashing, self.hashing)

        def done(fut: asyncio.Future[T]) -> None:
            self.hashing -= 1
            self._hashing.release()
            if not fut.cancelled():
                fut.exception()  # retrieved: an abandoned check's error is not logged

        job.add_done_callback(done)
        return await asyncio.shield(job)

    def account(self, lookup: NameLookup) -> Account:
        """The protected account ``lookup`` found, its passphrase given."""
        assert lookup.account_id is not None
        return self.store.keyless_account(lookup.account_id, lookup.nickname)

    def protect(self, lookup: NameLookup, stored: str) -> Account | None:
        """The account for a newly chosen passphrase: a new account under ``lookup``'s name,
        or the unclaimed one. None when the name was taken meanwhile."""
        claimed = lookup.account_id if lookup.state is NameState.UNCLAIMED else None
        return self.store.keep_with_passphrase(lookup.nickname, stored, claimed)

    def guest(self, wanted: str) -> Account:
        """A fresh guest account, under ``wanted`` with the guest's mark (``bob~``) if free,
        else a numbered variant (``bob~2``)."""
        return self.store.guest_account(guest_name(wanted))

    def guest_left(self, account: Account) -> bool:
        """The last connection of guest ``account`` closed: its account and name are
        forgotten (unless it left a result or a seat). True when they were."""
        if not account.guest or account.id < 0:
            return False
        return self.store.forget_guest(account.id)
