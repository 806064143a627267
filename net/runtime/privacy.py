"""Who may sit at a shared table and who may watch it: a private table (私, ``join NAME
--private``) admits only its host, the invited and who already sits, and strangers watch only
if its host lets them; the host changes that at the table with ``/invite``, ``/uninvite`` and
``/watchers``. An invitation names a key fingerprint or a nickname, bound to the account that
keeps the nickname when it is made (:mod:`host.table_info`'s ``invites``). Any table's host
closes it (``/close``, ``close NAME`` in the lobby) while nobody else sits there."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from host.refusal import Refusal, RefusedError
from host.table_info import (
    FINGERPRINT_PREFIX,
    NOBODY,
    bound_invite,
    invite_parts,
    invite_shown,
    invites,
)
from net.limits import MAX_INVITE_TEXT, MAX_INVITES
from net.sanitize import NAME_MAX, clean_line, clean_name
from net.store.base import Store
from net.store.model import Account
from words import both

log = logging.getLogger("net.runtime.shared_table")  # a table's lines, all under its logger

FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")  # OpenSSH's, as `ssh-keygen -l` shows it
HOST_COMMANDS = ("/invite", "/uninvite", "/watchers")  # a private table's host types them
CLOSE_COMMAND = "/close"  # any table's host closes it (nobody else seated), as 'close NAME' does


def parse_invites(text: str) -> tuple[str, ...]:
    """``bob,carol SHA256:…``: the nicknames and key fingerprints a private table invites
    (commas or spaces between them; each once, in order). ValueError saying what is wrong: a
    word that is neither a nickname nor a fingerprint, or more than ``MAX_INVITES``."""
    if len(text) > MAX_INVITE_TEXT:
        raise ValueError(both("invites_long", n=MAX_INVITE_TEXT))
    out: list[str] = []
    for word in text.replace(",", " ").split():
        if word[:7].upper() == "SHA256:":
            word = "SHA256:" + word[7:]
            if not FINGERPRINT.fullmatch(word):
                raise ValueError(both("not_fingerprint", word=clean_line(word, 60)))
        elif len(word) > NAME_MAX or clean_name(word) != word:
            raise ValueError(both("not_nickname", word=clean_line(word, 30), n=NAME_MAX))
        if word not in out:
            out.append(word)
        if len(out) > MAX_INVITES:
            raise ValueError(both("invites_many", n=MAX_INVITES))
    return tuple(out)


@dataclass(frozen=True)
class Privacy:
    """A private table's settings when it is created (``join NAME --private``): whom it
    invites (nicknames, key fingerprints) and whether strangers may watch."""

    invited: tuple[str, ...] = ()
    watchers: bool = False


@dataclass(frozen=True)
class Said:
    """What a host command says in the chat: to the host alone (``host_only``: whom the
    host invites, a name shown to strangers would tell them what to ask for) or to all."""

    text: str
    host_only: bool


def keeper(store: Store, nickname: str) -> int:
    """The account that keeps ``nickname`` by a key or a passphrase, else NOBODY."""
    row = store.keyless_row(nickname)
    if row is not None and row.account_id > 0 and (row.has_key or row.kind == "passphrase"):
        return row.account_id
    return NOBODY


_BINDING: set[asyncio.Task[None]] = set()  # invitations being bound (a task is kept alive)


class Admission:
    """A table's privacy: public, or private with its invitations and whether strangers
    watch; its host (the account that created the table, which counts against its limit, and
    its nickname). ``changed``: the table saves and tells its sessions (an invitation bound
    later, from a thread)."""

    def __init__(self, table: str, store: Store | None, host_id: int | None, host_name: str,
                 privacy: Privacy | None, changed: Callable[[], None]) -> None:
        self.table = table
        self.store = store
        self.host_id = host_id
        self.host_name = host_name
        self.private = privacy is not None
        self.watchers = privacy.watchers if privacy is not None else True
        self._changed = changed
        self._invited: list[str] = []
        self.invited = list(privacy.invited) if privacy is not None else []
        # who else may not watch, and why (a tournament's round: its entrants at the others'
        # tables, net.runtime.tournaments); None: whoever the privacy lets
        self.watch_refusal: Callable[[Account], Refusal | None] | None = None

    def saved(self) -> dict[str, Any]:
        """What a table's saved row keeps of it (:class:`~net.store.model.SavedTable`'s
        fields of the same names)."""
        return {"creator": self.host_id, "host": self.host_name, "private": self.private,
                "invited": tuple(self.invited), "watchers": self.watchers}

    @property
    def invited(self) -> list[str]:
        """The invitations (host.table_info.invites). Set, each nickname is bound to the
        account that keeps it now, by a key or a passphrase, or to nobody when none does (a
        guest's never: its name carries the guest's mark), so that only who held the name
        when invited is admitted by it; a key's fingerprint is bound when its player sits
        (:meth:`bind_key`)."""
        return self._invited

    @invited.setter
    def invited(self, entries: list[str]) -> None:
        self._invited = [self._bound(e) for e in entries]
        self._bind_later()

    def _bound(self, entry: str) -> str:
        """``entry`` bound to the protected account that holds its nickname now, if the store
        tells at once; a database server's store is not waited for on the event loop: the
        entry stays unbound, admitting nobody, until :meth:`_bind_later` has its answer."""
        name, bound = invite_parts(entry)
        store = self.store
        if bound is not None or name.startswith(FINGERPRINT_PREFIX) or store is None \
                or store.off_loop:
            return entry
        return bound_invite(name, keeper(store, name))

    def _bind_later(self) -> None:
        """Bind the nicknames still unbound by asking a database server's store from a
        thread; the answers are applied on the event loop."""
        store = self.store
        names = [n for n, b in map(invite_parts, self._invited)
                 if b is None and not n.startswith(FINGERPRINT_PREFIX)]
        if not names or store is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a table built by hand): the entries stay unbound, admitting nobody

        async def bind() -> None:
            try:
                kept = await asyncio.to_thread(lambda: {n: keeper(store, n) for n in names})
            except Exception:  # the store's own errors are its to report; stay unbound
                log.debug("table %s: invitations not bound", self.table, exc_info=True)
                return
            self._invited = [bound_invite(n, kept[n]) if b is None and n in kept else e
                             for e, (n, b) in ((e, invite_parts(e)) for e in self._invited)]
            self._changed()

        task = loop.create_task(bind())
        _BINDING.add(task)
        task.add_done_callback(_BINDING.discard)

    def admits(self, account: Account, seated: bool) -> bool:
        """Whether ``account`` may sit here: anyone at a public table; at a private one its
        host, an invited player, or one who already sits (``seated``)."""
        if not self.private or account.id == self.host_id or seated:
            return True
        return invites(tuple(self._invited), account.id, account.nickname,
                       account.key_fingerprint, account.guest)

    def check(self, account: Account, seated: bool, spectate: bool) -> None:
        """:class:`~host.refusal.RefusedError` when ``account`` may not sit (or, a stranger,
        watch) at this private table."""
        refusal = None if seated or self.watch_refusal is None else self.watch_refusal(account)
        if refusal is not None:
            raise RefusedError(refusal)
        if self.admits(account, seated):
            return
        if not spectate or not self.watchers:
            key = "private_no_watch" if spectate else \
                "private_watch" if self.watchers else "private"
            raise RefusedError(Refusal.of(key, name=self.table, host=self.host_name or "?"))

    def may_close(self, account: Account, others: Sequence[str]) -> Refusal | None:
        """Why ``account`` may not close this table, if so: only its host closes it (the
        account that made it, public or private), and only while nobody else sits there
        (``others``: the other players seated, present or not; a program's seat counts), so
        that no game of someone else's is ended; computers and watchers do not hold it."""
        if account.id != self.host_id or self.host_id is None:
            return Refusal.of("host_only", host=self.host_name or "?")
        if others:
            return Refusal.of("close_others" if len(others) == 1 else "close_others_many",
                              names=", ".join(others), table=self.table)
        return None

    def bind_key(self, account: Account) -> None:
        """The key invitation that let ``account`` sit is bound to it from now on, shown by
        its nickname (a key's account keeps its nickname, and no other account gets it)."""
        fp = account.key_fingerprint
        if not self.private or account.guest or account.id < 0 or fp is None:
            return
        for i, entry in enumerate(self._invited):
            if entry != fp:
                continue
            new = bound_invite(account.nickname, account.id)
            if new in self._invited:
                del self._invited[i]
            else:
                self._invited[i] = new
            return

    def command(self, account: Account, command: str, rest: str) -> Refusal | Said:
        """``/invite NAME…``, ``/uninvite NAME…``, ``/watchers on|off`` from ``account``:
        the host of a private table changes whom it admits, and what the chat says of it.
        Anyone else, or at a public table: a refusal, said to the sender only."""
        if not self.private:
            return Refusal("not_private")
        if account.id != self.host_id:
            return Refusal.of("host_only", host=self.host_name or "?")
        if command == "/watchers":
            flag = rest.strip().lower()
            if flag not in ("on", "off", "yes", "no"):
                return Refusal.of("watchers_usage", usage="/watchers on|off")
            self.watchers = flag in ("on", "yes")
            return Said(both("watchers_on" if self.watchers else "watchers_off"), False)
        try:
            names = parse_invites(rest)
        except ValueError as exc:
            return Refusal.of("bad_invite", problem=str(exc))
        if not names:
            return Refusal.of("invite_usage", usage=f"{command} NAME")
        if command == "/invite":
            return self._invite(names)
        gone = [e for e in self._invited if invite_parts(e)[0] in names]
        if not gone:
            return Refusal.of("not_invited", names=", ".join(invite_shown(n) for n in names))
        self._invited = [e for e in self._invited if e not in gone]
        shown = ", ".join(invite_shown(e) for e in gone)
        return Said(both("uninvited", names=shown), True)

    def _invite(self, names: Sequence[str]) -> Refusal | Said:
        present = {invite_parts(e)[0] for e in self._invited}
        # a nickname nobody kept when it was invited is looked up again
        again = {e for e in self._invited
                 if invite_parts(e)[1] == NOBODY and invite_parts(e)[0] in names}
        kept = [e for e in self._invited if e not in again]
        new = [n for n in names if n not in present or any(
            invite_parts(e)[0] == n for e in again)]
        if len(kept) + len(new) > MAX_INVITES:
            return Refusal.of("invites_full", most=MAX_INVITES)
        self.invited = kept + new
        nobody = [n for n, b in map(invite_parts, self._invited) if b == NOBODY and n in names]
        fine = [n for n in names if n not in nobody]
        parts = []
        if fine:
            shown = ", ".join(invite_shown(n) for n in fine)
            parts.append(both("invited", names=shown))
        if nobody:
            parts.append(both("nobody_has", names=", ".join(nobody)))
        return Said("; ".join(parts), True)
