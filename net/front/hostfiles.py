"""The host's own files that a running server follows: the message of the day shown in the
lobby (``serve --motd FILE``), the allow list of a private server (``serve --allow FILE``)
and the operators' keys (``serve --operators FILE``), both lists public keys in OpenSSH's
``authorized_keys`` form.

Each is read whole at start, where a damaged one (not UTF-8, over its bound in
net/limits.py, a line that is not what it should be) stops the server with one line naming
the file and the line. A running server reads it again when it changes (its size, time or
inode, looked at every :data:`POLL_SECONDS`; an editor that writes a new file and renames it
is seen too) or on SIGHUP: a damaged edit, or the file gone, is logged and the list or
message read before is kept, so a typo never opens a private server or empties its lobby.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import asyncssh

from net.limits import (
    ALLOW_MAX_BYTES,
    MOTD_LINE_CHARS,
    MOTD_LINES,
    MOTD_MAX_BYTES,
    OPERATORS_MAX_BYTES,
)
from net.sanitize import strip_controls

log = logging.getLogger("net.front.server")

POLL_SECONDS = 2.0  # how often the files' sizes and times are looked at (a stat each)

T = TypeVar("T")
GONE = (-1, -1, -1)  # a file's (size, time, inode) where there is no file


class HostFileError(ValueError):
    """A host file that cannot be used: one line saying which and why."""


def read_bounded(path: Path, max_bytes: int, flag: str) -> str:
    """``path``'s text (UTF-8, at most ``max_bytes``): HostFileError naming ``flag`` and the
    file otherwise. Reads at most one byte past the bound, whatever the file's size."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise HostFileError(f"{flag} {path}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise HostFileError(f"{flag} {path}: larger than {max_bytes} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise HostFileError(f"{flag} {path}: line {line}: not UTF-8 text") from None


# --- the message of the day --------------------------------------------------------------------
def parse_motd(text: str) -> tuple[str, ...]:
    """The lobby's lines: each cleaned of escape sequences and control characters (tabs as
    spaces), blank lines at the start and end dropped; ValueError past :data:`MOTD_LINES`
    lines or a line past :data:`MOTD_LINE_CHARS` characters. An empty file: no message."""
    lines = [strip_controls(line.replace("\t", "    ")).rstrip()
             for line in text.removeprefix("\ufeff").splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    if len(lines) > MOTD_LINES:
        raise ValueError(f"{len(lines)} lines (at most {MOTD_LINES})")
    for n, line in enumerate(lines, 1):
        if len(line) > MOTD_LINE_CHARS:
            raise ValueError(f"line {n}: longer than {MOTD_LINE_CHARS} characters")
    return tuple(lines)


# --- the allow list ----------------------------------------------------------------------------
# what an allow list's line may carry before its key: the addresses it may come from, as in
# authorized_keys (an option such as command= or no-pty means nothing here, so a line with
# one is refused rather than read as if it were obeyed)
ALLOW_OPTIONS = frozenset({"from"})


@dataclass(frozen=True)
class AllowList:
    """The public keys a private server admits, each with its ``from=`` patterns if any."""

    keys: asyncssh.SSHAuthorizedKeys
    count: int

    def admits(self, key: asyncssh.SSHKey, address: str) -> bool:
        """Whether ``key`` is listed, and ``address`` within its line's ``from=`` (matched
        as an address: the server looks no names up)."""
        try:
            return self.keys.validate(key, address, address) is not None
        except ValueError:  # an address asyncssh cannot read ("?"): matches no from=
            return False


def parse_allow(text: str) -> AllowList:
    """An ``authorized_keys`` text read strictly: every line that is not blank or a comment
    must be one public key (ssh-ed25519, ecdsa, rsa...), with at most a ``from=`` option;
    ValueError naming the first line that is not, or a list with no key."""
    keys = parse_keys(text)
    if not keys.count:
        raise ValueError("no public key in it (a server nobody may enter)")
    return keys


def parse_operators(text: str) -> AllowList:
    """The operators' keys, read as an allow list is (:func:`parse_keys`); an empty list is
    a server with no operator."""
    return parse_keys(text)


def parse_keys(text: str) -> AllowList:
    """Every line that is not blank or a comment one public key with at most a ``from=``
    option: ValueError naming the first line that is not."""
    count = 0
    for n, raw in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:  # one line at a time: the whole text's import passes over a line it cannot read
            entry = asyncssh.import_authorized_keys(line)
        except ValueError:  # asyncssh's KeyImportError too
            raise ValueError(f"line {n}: not a public key") from None
        options = _options_of(entry)
        if options is None:
            raise ValueError(f"line {n}: not a public key (a certificate or an authority)")
        unknown = sorted(set(options) - ALLOW_OPTIONS)
        if unknown:
            raise ValueError(f"line {n}: option {unknown[0]} is not obeyed here "
                             f"(only from=\"ADDRESSES\")")
        count += 1
    if not count:  # asyncssh refuses a text with no entry
        return AllowList(asyncssh.SSHAuthorizedKeys(), 0)
    return AllowList(asyncssh.import_authorized_keys(text.removeprefix("\ufeff")), count)


def _options_of(keys: asyncssh.SSHAuthorizedKeys) -> dict[str, object] | None:
    """The options of a one-line list's entry, or None where it is not a user's key (an
    authority, an X.509 certificate or subject)."""
    user = getattr(keys, "_user_entries", None)
    if user is None:  # asyncssh changed: take the line's options as none
        return {}
    if len(user) != 1:
        return None
    return dict(user[0].options)


# --- following a file --------------------------------------------------------------------------
class HostFile(Generic[T]):
    """A host file and what it says now (``value``): read at :meth:`open`, again by
    :meth:`check` when it changed, or always with ``force`` (SIGHUP). A read that fails
    while the server runs is logged and the value kept."""

    def __init__(self, path: Path, flag: str, max_bytes: int,
                 parse: Callable[[str], T]) -> None:
        self.path = path
        self.flag = flag  # ``--motd``: how the host named it, in every line about it
        self.max_bytes = max_bytes
        self.parse = parse
        self.seen: tuple[int, int, int] | None = None  # (size, mtime, inode) last read
        self.failed: tuple[int, int, int] | None = None  # the version last refused
        self._lock = asyncio.Lock()  # one reading at a time (the poll and a SIGHUP)
        self.value = self._read()

    @classmethod
    def motd(cls, path: Path) -> HostFile[tuple[str, ...]]:
        return HostFile(path, "--motd", MOTD_MAX_BYTES, parse_motd)

    @classmethod
    def allow(cls, path: Path) -> HostFile[AllowList]:
        return HostFile(path, "--allow", ALLOW_MAX_BYTES, parse_allow)

    @classmethod
    def operators(cls, path: Path) -> HostFile[AllowList]:
        return HostFile(path, "--operators", OPERATORS_MAX_BYTES, parse_operators)

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_size, st.st_mtime_ns, st.st_ino

    def _read(self) -> T:
        """The file read and parsed now: HostFileError with one line saying why not."""
        seen = self._stat()
        text = read_bounded(self.path, self.max_bytes, self.flag)
        try:
            value = self.parse(text)
        except ValueError as exc:
            raise HostFileError(f"{self.flag} {self.path}: {exc}") from None
        self.seen = seen
        return value

    async def check(self, force: bool = False) -> bool:
        """Read again if the file changed (or ``force``), off the event loop: whether the
        value changed. A damaged or missing file is logged once a version and the value
        kept."""
        async with self._lock:
            return await self._check(force)

    async def _check(self, force: bool) -> bool:
        now = self._stat()
        if not force and (now == self.seen or (now or GONE) == self.failed):
            return False
        try:
            value = await asyncio.to_thread(self._read)
        except HostFileError as exc:
            self.failed = now if now is not None else GONE
            log.error("%s; keeping the one read before", exc)
            return False
        self.failed = None
        self.value = value
        log.info("%s %s read again", self.flag, self.path)
        return True
