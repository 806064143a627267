"""``mahjong-ssh serve``: one asyncssh server, one Textual app per SSH session, one table
registry shared by all, so that every table is one object whichever session acts on it.

Login: the SSH public key is the account, the SSH user name the nickname (made unique); with
``allow_anonymous`` a client without a key gets in by keyboard-interactive with no question,
under its nickname. Only session channels exist: no port, agent or X11 forwarding, no SFTP or
SCP, and the only commands are ``join NAME [--rules R] [--option KEY=VALUE ...] [--bots L]``
(the options and computer levels apply when the table is created), ``watch NAME``, ``stats``
and ``help``; a plain ``ssh -t`` opens the lobby. A join or watch command with bad arguments
gets the reason (exit status 2); anything else is refused.

The server object and its stats are here; who may log in is ``net.front.login``, a session's
channel ``net.front.session``, what each command runs ``net.front.commands_run``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import asyncssh

from engine.rulesets import RULESETS
from host.client import SharedTableClient
from host.local import default_data_dir
from net.commands import Command
from net.front import commands_run, reclaim
from net.front.bans import Moderation
from net.front.compat_asyncssh import quiet_packet_log
from net.front.hostfiles import POLL_SECONDS, AllowList, HostFile
from net.front.login import LoginGate
from net.front.operators import OperatorBus
from net.front.reviewing import ReviewPool
from net.front.session import Session
from net.front.trends import Boards, leader_boards, leader_rating, rating_note
from net.limits import BUDGETED, OP_CACHE_SECONDS, Limits, LogGate
from net.runtime.config import TableConfig
from net.runtime.registry import Registry
from net.runtime.shared_table import SharedTable
from net.sanitize import pad
from net.store.base import Store
from net.store.model import Account
from tui.compat import compat_textual, stdout_redirects
from words import both

if TYPE_CHECKING:
    from net.cluster.node import Node
    from net.cluster.tournaments import SharedBoard

log = logging.getLogger("net.front.server")


@dataclass
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 2222
    data_dir: Path = field(default_factory=default_data_dir)
    allow_anonymous: bool = True
    limits: Limits = field(default_factory=Limits)  # every limit on what a client controls
    table: TableConfig = field(default_factory=TableConfig)
    write_high_water: int = 256 * 1024
    # a server of several workers (net/cluster): the bus every worker joins, and the database
    # they share (None: the SQLite file in the data folder)
    nats_url: str | None = None
    db_url: str | None = None
    reuse_port: bool = False  # several worker processes listen on one port (SO_REUSEPORT)
    worker: int | None = None  # this worker's number under ``serve --workers N``
    # the processes expert players think in (host.thinking): None one per core but one, 0 none
    # (they think in a thread); the pool is made at start, its workers at the first decision
    think_workers: int | None = None
    # the host's files the server follows (net.front.hostfiles): the lobby's message of the
    # day, and the public keys of a private server (None: any key, and keyless logins as
    # allow_anonymous says)
    motd_path: Path | None = None
    allow_path: Path | None = None
    operators_path: Path | None = None  # the operators' keys (net/front/operators.py)


# --- no stdout/stderr redirection for SSH apps (tui.compat.compat_textual) ---------------
neutralise_redirects = stdout_redirects.neutralise_redirects




# Ciphers the server offers. Not chacha20-poly1305, which clients prefer: asyncssh does it
# several times slower than AES-GCM or AES-CTR with an EtM MAC (docs/performance.md), and every
# frame of every session is encrypted on the one event loop. All are standard; OpenSSH then
# picks aes128-ctr.
# the libraries' loggers whose lines go through the server's log budget (asyncio's "socket.send()
# raised exception." for every write to a lost connection, asyncssh's own)
LIBRARY_LOGGERS = ("asyncio", "asyncssh", "asyncssh.sftp")

ENCRYPTION_ALGS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr",
                   "aes192-ctr", "aes256-ctr")


class MahjongServer:
    """The server: SSH listener, table registry and store."""

    def __init__(self, config: ServerConfig, store: Store, registry: Registry,
                 node: Node | None = None, *, motd: HostFile[tuple[str, ...]] | None = None,
                 allow: HostFile[AllowList] | None = None,
                 operators: HostFile[AllowList] | None = None) -> None:
        compat_textual.apply()  # no cyclic garbage per line drawn
        reclaim.install()  # a closed connection's and its transport's cycles let go of
        quiet_packet_log()
        self.config = config
        self.limits = config.limits
        self.data_dir = Path(config.data_dir)
        self.store = store  # accounts, settings, results: the front reads them through it
        self.registry = registry  # the tables this process runs (net.runtime)
        self.account_sessions: Counter[int] = Counter()  # open app sessions by account id
        self.address_sessions: Counter[str] = Counter()  # open app sessions by address
        # every log line of the server's (the event loop's and asyncssh's too: start())
        self.log_gate = LogGate(config.limits.log_lines_per_minute)
        self._log_report: asyncio.TimerHandle | None = None
        self.motd = motd  # the lobby's message of the day (``serve --motd``)
        self.allow = allow  # a private server's keys (``serve --allow``)
        self.operators = operators  # the operators' keys (``serve --operators``)
        self._files_poll: asyncio.TimerHandle | None = None
        self._bans_poll: asyncio.TimerHandle | None = None
        self._bans_reading: asyncio.Task[None] | None = None
        self._files_reading: set[asyncio.Task[bool]] = set()
        self.moderation = Moderation(store)  # the operators' bans and mutes, as last read
        self.operator_bus: OperatorBus | None = None  # several workers: the others told
        self.shared_board: SharedBoard | None = None  # several workers: their tournaments
        registry.muted = self.moderation.muted
        self.gate = LoginGate(self.limits, store, self.log_gate,
                              allow_anonymous=config.allow_anonymous,
                              open_session=partial(Session, self), allow=allow,
                              moderation=self.moderation)
        self.sessions: set[Session] = set()
        self.acceptor: asyncssh.SSHAcceptor | None = None
        self.host_key: asyncssh.SSHKey | None = None
        self.port = config.port
        self.node = node  # this worker's part in a server of several (net.cluster)
        self.reviews = ReviewPool()  # the reviews' assessments: one niced process, when asked

    @property
    def write_high_water(self) -> int:
        return self.config.write_high_water

    def start_session(self, session: Session) -> None:
        commands_run.start(self, session)

    def host_key_path(self) -> Path:
        return self.data_dir / "ssh_host_ed25519_key"

    def holds_seat(self, account_id: int) -> bool:
        """Whether the account has a seat at one of this process's tables (a player coming
        back to it may use the sessions kept in reserve)."""
        return any(table.seat_of(account_id) is not None
                   for table in list(self.registry.tables.values()))

    def report_log(self) -> None:
        """Once a minute: how many log lines the budget left out, if any."""
        left_out = self.log_gate.take_suppressed()
        if left_out:
            log.warning("%d log lines were left out in the last minute (over %d a minute)",
                        left_out, self.limits.log_lines_per_minute, extra=BUDGETED)
        self._log_report = asyncio.get_running_loop().call_later(60.0, self.report_log)

    def motd_lines(self) -> tuple[str, ...]:
        """The message of the day as the lobby shows it now (none without ``--motd``)."""
        return self.motd.value if self.motd is not None else ()

    def reload_files(self, force: bool = True) -> None:
        """The host's files read again: each that changed, or every one with ``force``
        (SIGHUP). A damaged one is logged and what was read before kept."""
        for hostfile in (self.motd, self.allow, self.operators):
            if hostfile is not None:
                task = asyncio.get_running_loop().create_task(hostfile.check(force))
                self._files_reading.add(task)  # the loop keeps only a weak reference
                task.add_done_callback(self._files_reading.discard)

    def _poll_files(self) -> None:
        self.reload_files(force=False)
        self._files_poll = asyncio.get_running_loop().call_later(POLL_SECONDS, self._poll_files)

    def _poll_bans(self) -> None:
        """The bans and mutes read again now and then (another worker's mute holds here
        without waiting for a login)."""
        reading = self._bans_reading
        if reading is None or reading.done():
            self._bans_reading = asyncio.get_running_loop().create_task(
                self.moderation.refresh())
        self._bans_poll = asyncio.get_running_loop().call_later(OP_CACHE_SECONDS,
                                                                self._poll_bans)

    def load_host_key(self) -> asyncssh.SSHKey:
        """Generated once (mode 0600) in the data folder."""
        return load_host_key(self.host_key_path())

    async def start(self) -> int:
        neutralise_redirects()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            os.chmod(self.data_dir, 0o700)
        self.host_key = self.load_host_key()
        await self.moderation.refresh(force=True)  # the bans hold from the first login
        self._bans_poll = asyncio.get_running_loop().call_later(OP_CACHE_SECONDS,
                                                                self._poll_bans)
        for name in LIBRARY_LOGGERS:  # their lines through the server's budget too
            logging.getLogger(name).addFilter(self.log_gate)
        self._log_report = asyncio.get_running_loop().call_later(60.0, self.report_log)
        if self.motd is not None or self.allow is not None or self.operators is not None:
            self._files_poll = asyncio.get_running_loop().call_later(POLL_SECONDS,
                                                                     self._poll_files)
        if self.node is not None:
            from net.cluster.tournaments import SharedBoard  # only a worker of several's

            # tournaments kept in the store, their rounds' tables made through the directory
            # (installed first: a round's table taken over at start is watched at once)
            self.shared_board = SharedBoard(self.node)
            self.registry.tournaments.cluster = self.shared_board
            await self.node.start()  # one worker of several: it takes tables as it goes
            self.shared_board.start()
            self.operator_bus = OperatorBus(self, self.node)
            await self.operator_bus.start()
        else:
            restored = self.registry.load()
            if restored or restored.quarantined:
                log.info("restored %d tables, quarantined %d", restored, restored.quarantined)
            self.registry.resume()
        self.acceptor = await asyncssh.create_server(
            self.gate.connection,
            self.config.host,
            self.config.port,
            server_host_keys=[self.host_key],
            encoding=None,
            line_editor=False,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            sftp_factory=None,
            allow_pty=True,
            # an allow list offers it only to refuse a keyless login with a line saying why
            kbdint_auth=self.config.allow_anonymous or self.allow is not None,
            password_auth=False,
            login_timeout=self.limits.login_grace,
            server_version="mahjong-ssh",  # not the library and its version
            keepalive_interval=15,
            keepalive_count_max=4,
            encryption_algs=ENCRYPTION_ALGS,
            reuse_port=self.config.reuse_port or None,
        )
        self.port = self.acceptor.sockets[0].getsockname()[1]
        return self.port

    async def open_seat(self, command: Command, account: Account,
                        address: str | None = None) -> SharedTableClient | None:
        """The seat (or spectator's place) a join or watch command asks for, wherever its
        table runs: None for a watch of no table; ValueError with the reason it cannot be had
        (quarantined, a limit, other settings)."""
        if self.node is not None:
            return await self.node.open_seat(command, account, address)
        table = self.table_for(command, account, address)
        if table is None:
            return None
        return table.join(account, spectate=command.name == "watch", bot=command.bot)

    def table_for(self, command: Command, account: Account | None = None,
                  address: str | None = None) -> SharedTable | None:
        """The table a join or watch command names: a join creates it (within the table
        limits, as ``account`` from ``address``). ValueError with the reason it cannot
        (quarantined, a limit, other settings)."""
        if command.name == "watch":
            return self.registry.find(command.table)
        return self.registry.get_or_create(command.table, command.rules, dict(command.options),
                                           command.bots, creator=account, address=address,
                                           privacy=command.private)

    def stats_board(self) -> Boards:
        """What ``stats`` reads from the store (:func:`~net.front.trends.leader_boards`, the
        lobby's ranking too)."""
        return leader_boards(self.store)

    def stats_text(self, board: Boards | None = None) -> str:
        """The leaderboard, one per ruleset (their points are on different scales) ordered by
        rating, then the tables. ``board``: :meth:`stats_board`, read already."""
        lines = [both("leaderboard")]
        if board is None:
            board = leader_boards(self.store)
        if not board:
            lines += ["", both("no_games_yet")]
        for rules, leaders, recent in board:
            cls = RULESETS.get(rules)
            lines += ["", f"{cls.zh} {cls.en}" if cls is not None else rules]
            lines.append(f"{'#':>3}  {'player':<16} {'rating':>6} {'games':>5} {'hands':>5} "
                         f"{'wins':>4} {'score':>7} {'a hand':>6}  {both('recent')}")
            for i, r in enumerate(leaders, 1):
                per = f"{r.score / r.hands:+.2f}" if r.hands else "-"
                name = f"{r.nickname} [bot]" if r.bot_games else r.nickname
                shown = leader_rating(r)
                lines.append(f"{i:>3}  {pad(name, 16)} {shown:>6} {r.games:>5} "
                             f"{r.hands:>5} {r.wins:>4} {r.score:>+7} {per:>6}  "
                             f"{recent[r.nickname]}".rstrip())
            lines.append(rating_note(rules))
        infos = self.registry.listing()
        lines += ["", f"{both('tables')}: {len(infos)}"]
        for info in infos:
            seated = sum(1 for s in info.seats if s.name)
            lines.append(f"  {pad(info.name, 16)} {info.rules:<9} {seated}/4 seated  "
                         f"{info.state.value}" + ("  私 private" if info.private else ""))
        pool = self.registry.config.thinking
        if pool is not None and (pool.stats.pooled or pool.stats.fallbacks):
            lines.append(f"{both('thinking')}: {pool.stats.line()}")
        if self.node is not None:  # which worker answered (in a server of several)
            lines.append(f"\nServed by worker {self.node.name}.")
        return "\n".join(lines) + "\n"

    async def close(self) -> None:
        """Stop: no new connections, every session told the server is stopping and ended
        (what it played is already saved: every action is written as it is applied), the
        tables and the database closed."""
        if self.acceptor is not None:
            self.acceptor.close()
        if self._log_report is not None:
            self._log_report.cancel()
            self._log_report = None
        if self._files_poll is not None:
            self._files_poll.cancel()
            self._files_poll = None
        if self._bans_poll is not None:
            self._bans_poll.cancel()
            self._bans_poll = None
        for name in LIBRARY_LOGGERS:
            logging.getLogger(name).removeFilter(self.log_gate)
        for session in list(self.sessions):
            session.stopping = True
            session.end_app()
        tasks = [s.task for s in list(self.sessions) if s.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=1.0)
        if self.acceptor is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.acceptor.wait_closed(), 0.2)
        if self.shared_board is not None:
            await self.shared_board.stop()
        if self.node is not None:
            await self.node.stop()
        self.reviews.close()
        self.registry.close()
        if self.config.table.thinking is not None:
            self.config.table.thinking.close()
        self.store.close()


def load_host_key(path: Path) -> asyncssh.SSHKey:
    """The host key in ``path``, generated there once (mode 0600) if there is none."""
    if path.exists():
        return asyncssh.read_private_key(str(path))
    key = asyncssh.generate_private_key("ssh-ed25519", comment="mahjong-ssh host key")
    fd = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(key.export_private_key())
    return key


def fingerprint_banner(server: MahjongServer) -> str:
    assert server.host_key is not None
    config = server.config
    return banner(config.host, server.port, server.host_key,
                  f"(data: {server.data_dir}"
                  f"{', database: ' + safe_url(config.db_url) if config.db_url else ''})")


def banner(host: str, port: int, host_key: asyncssh.SSHKey, serving: str) -> str:
    """What ``serve`` prints once it listens: where, with what (``serving``), the host key's
    fingerprint for the players to compare, and the lines they type."""
    shown = "HOST" if host in ("0.0.0.0", "::", "") else host
    return (
        f"mahjong-ssh serving on {host}:{port} {serving}\n"
        f"host key fingerprint: {host_key.get_fingerprint('sha256')}\n"
        f"connect:  ssh -t -p {port} YOURNAME@{shown} join TABLE\n"
        f"lobby:    ssh -t -p {port} YOURNAME@{shown}\n"
    )


def safe_url(url: str) -> str:
    """A database URL without its password, for the banner."""
    head, at, tail = url.rpartition("@")
    if not at:
        return url
    scheme, _, cred = head.partition("://")
    return f"{scheme}://{cred.split(':', 1)[0]}@{tail}"
