"""Local NATS servers for tests, benchmarks and scripts, pytest-free: one in a temporary
folder (:func:`local_nats`), a cluster of several on this machine (:func:`local_cluster`)
and a client connected to one (:func:`connect`)."""

from __future__ import annotations

import random
import socket
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import nats
from nats.aio.client import Client

from net.cluster.natsd import Cluster, NatsServer, NatsStartError, start_nats


@contextmanager
def local_nats(folder: Path | None = None, **options: Any) -> Iterator[NatsServer]:
    """A server (``start_nats`` ``options``) in ``folder`` or a temporary folder removed
    afterwards; stopped at the end."""
    with ExitStack() as stack:
        if folder is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="nats-")))
        server = start_nats(folder, **options)
        stack.callback(server.stop)
        yield server


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now, below the kernel's range of ephemeral ports (so that
    no outgoing connection takes it before the server that is told it binds it)."""
    low = _ephemeral_low()
    for _ in range(200):
        port = random.randrange(max(1024, low - 12000), low)
        with socket.socket() as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
            return port
    raise OSError(f"no free port below {low} on {host}")


def _ephemeral_low() -> int:
    """The first port the kernel hands out to outgoing connections."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


@contextmanager
def local_cluster(folder: Path, size: int = 3, name: str = "mahjong",
                  host: str = "127.0.0.1", attempts: int = 3) -> Iterator[list[NatsServer]]:
    """``size`` servers on ``host``, each routed to all (itself included, which a server
    ignores), JetStream clustered; yields once every node is healthy (a JetStream leader
    chosen); all stopped at the end. Another program may take a route port between its
    choice and its use: then the whole cluster is started again on other ports."""
    for attempt in range(attempts):
        with ExitStack() as stack:
            routes = tuple(f"nats://{host}:{free_port(host)}" for _ in range(size))
            servers: list[NatsServer] = []
            try:
                for i, route in enumerate(routes):
                    node = start_nats(folder / f"try{attempt}-n{i + 1}", host,
                                      cluster=Cluster(name, int(route.rsplit(":", 1)[1]),
                                                      routes),
                                      name=f"{name}-{i + 1}")
                    stack.callback(node.stop)
                    servers.append(node)
            except NatsStartError as exc:
                if "address already in use" in str(exc) and attempt + 1 < attempts:
                    continue
                raise
            for node in servers:
                node.wait_healthy()
            yield servers
            return


async def connect(server: NatsServer | str, **options: Any) -> Client:
    """A client of ``server`` (or a URL) that gives up at once when it cannot connect."""
    url = server if isinstance(server, str) else server.url
    options.setdefault("connect_timeout", 2)
    options.setdefault("max_reconnect_attempts", 0)
    return await nats.connect(url, **options)
