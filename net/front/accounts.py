"""Accounts without an SSH key: a name protected by a passphrase only its owner holds.

A client without a key logs in by keyboard-interactive. The first time a name is used it is
asked to choose a passphrase (at least ``Limits.passphrase_min`` characters), which keeps the
name for later visits: the next login under that name is asked for it, and a wrong one is a
failed attempt (counted with every other, ``Limits.max_auth_tries``). Pressing Enter instead
plays as a **guest**: a fresh account for this visit only, under the name if it is free (else
the name with a number), which no later login can enter: a guest who drops cannot come back
as himself (his seat goes to a computer player after the grace period), and so no stranger
ever takes a guest's seat either. Passphrases are stored as scrypt hashes (memory-hard,
16 MiB each; stdlib ``hashlib.scrypt``), computed off the event loop, at most
``Limits.hash_concurrency`` at once.

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
from dataclasses import dataclass
from enum import Enum

from net.limits import Limits
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


class Keyless:
    """Keyless logins over the server's store (which reads and writes the accounts)."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self._hashing = asyncio.Semaphore(max(1, limits.hash_concurrency))
        store.forget_guests(time.time() - GUEST_KEPT)

    def lookup(self, wanted: str) -> NameLookup:
        row = self.store.keyless_row(wanted)
        if row is None:
            return NameLookup(NameState.NEW, wanted)
        if not row.has_key and row.kind == "passphrase" and row.stored:
            return NameLookup(NameState.PROTECTED, wanted, row.account_id, row.stored)
        if not row.has_key and row.kind is None:
            return NameLookup(NameState.UNCLAIMED, wanted, row.account_id)
        return NameLookup(NameState.TAKEN, self.store.free_nickname(wanted))

    async def verify(self, passphrase: str, stored: str) -> bool:
        if not self.limits.passphrase_min <= len(passphrase) <= self.limits.passphrase_max:
            return False
        async with self._hashing:
            return await asyncio.to_thread(check_passphrase, passphrase, stored)

    async def hashed(self, passphrase: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(hash_passphrase, passphrase)

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
        """A fresh guest account, under ``wanted`` if free, else a numbered variant."""
        return self.store.guest_account(wanted)
