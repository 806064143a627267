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
import json
import os
import sqlite3
import time
from dataclasses import dataclass
from enum import Enum

from net.limits import Limits
from net.store import Account, Store

SCHEMA = """
CREATE TABLE IF NOT EXISTS account_secrets (  -- keyless accounts: a passphrase, or a guest
    account_id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,                   -- 'passphrase' or 'guest'
    hash TEXT,                            -- scrypt$N$r$p$salt$key (hex); NULL for a guest
    created REAL NOT NULL
);
"""

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # 16 MiB, about 50 ms on one core
GUEST_KEPT = 86_400.0  # a guest account unseen this long that left nothing is forgotten


def _seated(state: str) -> list[int]:
    """The account ids seated in a table's saved state (a corrupt state: none)."""
    try:
        data = json.loads(state)
        seats = data.get("seats", []) if isinstance(data, dict) else []
        return [s["account"] for s in seats
                if isinstance(s, dict) and isinstance(s.get("account"), int)]
    except (ValueError, TypeError, AttributeError, RecursionError):
        return []


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
    """Keyless accounts over the server's store."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self.db: sqlite3.Connection = store.db
        self.db.executescript(SCHEMA)
        self._hashing = asyncio.Semaphore(max(1, limits.hash_concurrency))
        self.pruned = self.prune_guests()

    def prune_guests(self, older_than: float = GUEST_KEPT) -> int:
        """Forget guest accounts unseen for ``older_than`` seconds that left nothing behind
        (no result, no stake result, no seat at a table): they can never be entered again, and
        a stranger's flood of guest logins must not grow the database for ever."""
        cutoff = time.time() - older_than
        seated = {i for (state,) in self.db.execute("SELECT state FROM tables")
                  for i in _seated(state)}
        rows = self.db.execute(
            "SELECT a.id FROM accounts a JOIN account_secrets s ON s.account_id = a.id "
            "WHERE s.kind = 'guest' AND a.last_seen < ? "
            "AND NOT EXISTS (SELECT 1 FROM results r WHERE r.account_id = a.id) "
            "AND NOT EXISTS (SELECT 1 FROM stake_results r WHERE r.account_id = a.id)",
            (cutoff,)).fetchall()
        gone = [(i,) for (i,) in rows if i not in seated]
        if gone:
            self.db.executemany("DELETE FROM account_secrets WHERE account_id = ?", gone)
            self.db.executemany("DELETE FROM accounts WHERE id = ?", gone)
        return len(gone)

    def lookup(self, wanted: str) -> NameLookup:
        row = self.db.execute(
            "SELECT a.id, a.key_fingerprint, s.kind, s.hash FROM accounts a "
            "LEFT JOIN account_secrets s ON s.account_id = a.id WHERE a.nickname = ?",
            (wanted,)).fetchone()
        if row is None:
            return NameLookup(NameState.NEW, wanted)
        account_id, fingerprint, kind, stored = row
        if fingerprint is None and kind == "passphrase" and stored:
            return NameLookup(NameState.PROTECTED, wanted, account_id, stored)
        if fingerprint is None and kind is None:
            return NameLookup(NameState.UNCLAIMED, wanted, account_id)
        return NameLookup(NameState.TAKEN, self.free_name(wanted))

    def free_name(self, wanted: str) -> str:
        n = 1
        name = wanted
        while self.db.execute("SELECT 1 FROM accounts WHERE nickname = ?",
                              (name,)).fetchone() is not None:
            n += 1
            name = f"{wanted[:13]}-{n}"
        return name

    async def verify(self, passphrase: str, stored: str) -> bool:
        if not self.limits.passphrase_min <= len(passphrase) <= self.limits.passphrase_max:
            return False
        async with self._hashing:
            return await asyncio.to_thread(check_passphrase, passphrase, stored)

    async def hashed(self, passphrase: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(hash_passphrase, passphrase)

    def account(self, account_id: int) -> Account:
        row = self.db.execute("SELECT nickname FROM accounts WHERE id = ?",
                              (account_id,)).fetchone()
        now = time.time()
        self.db.execute("UPDATE accounts SET last_seen = ? WHERE id = ?", (now, account_id))
        return Account(account_id, str(row[0]), None)

    def protect(self, lookup: NameLookup, stored: str) -> Account | None:
        """The account for a newly chosen passphrase: a new account under ``lookup``'s name,
        or the unclaimed one. None when the name was taken meanwhile."""
        now = time.time()
        if lookup.state is NameState.UNCLAIMED and lookup.account_id is not None:
            cur = self.db.execute(
                "INSERT OR IGNORE INTO account_secrets (account_id, kind, hash, created) "
                "VALUES (?, 'passphrase', ?, ?)", (lookup.account_id, stored, now))
            return self.account(lookup.account_id) if cur.rowcount == 1 else None
        account_id = self._insert(lookup.nickname, now)
        if account_id is None:
            return None
        self.db.execute("INSERT INTO account_secrets (account_id, kind, hash, created) "
                        "VALUES (?, 'passphrase', ?, ?)", (account_id, stored, now))
        return Account(account_id, lookup.nickname, None)

    def guest(self, wanted: str) -> Account:
        """A fresh guest account, under ``wanted`` if free, else a numbered variant."""
        now = time.time()
        while True:
            name = self.free_name(wanted)
            account_id = self._insert(name, now)
            if account_id is not None:
                self.db.execute("INSERT INTO account_secrets (account_id, kind, hash, created) "
                                "VALUES (?, 'guest', NULL, ?)", (account_id, now))
                return Account(account_id, name, None, guest=True)

    def _insert(self, nickname: str, now: float) -> int | None:
        try:
            cur = self.db.execute(
                "INSERT INTO accounts (key_fingerprint, nickname, created, last_seen) "
                "VALUES (NULL, ?, ?, ?)", (nickname, now, now))
        except sqlite3.IntegrityError:  # the name was taken meanwhile
            return None
        return cur.lastrowid
