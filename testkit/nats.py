"""Local NATS servers for tests, benchmarks and scripts, pytest-free: one in a temporary
folder (:func:`local_nats`), a cluster of several on this machine (:func:`local_cluster`)
and a client connected to one (:func:`connect`)."""

from __future__ import annotations

import socket
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import nats
from nats.aio.client import Client

from net.natsd import Cluster, NatsServer, start_nats


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
    """A TCP port free on ``host`` now (for a cluster's routes, which are named before the
    servers start)."""
    with socket.socket() as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def local_cluster(folder: Path, size: int = 3, name: str = "mahjong",
                  host: str = "127.0.0.1") -> Iterator[list[NatsServer]]:
    """``size`` servers on ``host``, each routed to the others, JetStream clustered; yields
    once every node is healthy (a JetStream leader chosen); all stopped at the end."""
    route_ports = [free_port(host) for _ in range(size)]
    routes = [f"nats://{host}:{p}" for p in route_ports]
    with ExitStack() as stack:
        servers = []
        for i, port in enumerate(route_ports):
            node = start_nats(
                folder / f"n{i + 1}", host,
                cluster=Cluster(name, port, tuple(r for j, r in enumerate(routes) if j != i)),
                name=f"{name}-{i + 1}")
            stack.callback(node.stop)
            servers.append(node)
        for node in servers:
            node.wait_healthy()
        yield servers


async def connect(server: NatsServer | str, **options: Any) -> Client:
    """A client of ``server`` (or a URL) that gives up at once when it cannot connect."""
    url = server if isinstance(server, str) else server.url
    options.setdefault("connect_timeout", 2)
    options.setdefault("max_reconnect_attempts", 0)
    return await nats.connect(url, **options)
