"""``serve --workers 2`` as an operator runs it: a supervisor, a NATS server it starts, two
worker processes on one port; four players' connections land where the kernel puts them; the
table's owner is killed with SIGKILL mid-hand and the game goes on. The bus it starts takes only
clients with the credentials it made (issue 51, finding 12)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import nats
import pytest

from net.cluster import wire
from net.cluster.directory import BUCKET, table_key
from net.cluster.natsd import CONFIG_NAME, read_auth
from testkit.ssh import PtyClient, new_key
from tests.support.waiting import until

ROOT = Path(__file__).resolve().parent.parent


class Cluster:
    def __init__(self, proc: subprocess.Popen[str], port: int, bus: str, log: Path,
                 data: Path) -> None:
        self.proc = proc
        self.port = port
        self.bus = bus
        self.log = log
        self.data = data
        self.banner = ""


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    log = tmp_path / "server.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", "--workers", "2", "--port", "0",
         "--data", str(tmp_path / "data"), "--bot-delay", "0", "--grace", "60"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=log.open("wb"), text=True)
    assert proc.stdout is not None
    port = bus = None
    banner = ""
    end = time.monotonic() + 60
    while time.monotonic() < end:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r"serving on [\d.]+:(\d+) with 2 workers .*bus: (nats://[\d.:]+)", line)
        if m:
            port, bus = int(m.group(1)), m.group(2)
        banner += line
        if line.startswith("connect:"):
            break
    assert port and bus, f"the server did not start:\n{log.read_text()}"
    c = Cluster(proc, port, bus, log, tmp_path / "data")
    c.banner = banner
    yield c
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


async def worker_of(c: PtyClient) -> str:
    """The worker a connection landed on (its ``stats`` says so)."""
    assert c.conn is not None
    out = await c.conn.run("stats", check=False)
    m = re.search(r"Served by worker (\S+)\.", str(out.stdout))
    assert m, out.stdout
    return m.group(1)


async def owner_of(cluster: Cluster, table: str) -> str:
    auth = read_auth(cluster.data / "nats")
    assert auth is not None
    nc = await nats.connect(cluster.bus, **auth.options())
    try:
        kv = await nc.jetstream().key_value(BUCKET)
        entry = await kv.get(table_key(table))
        item = wire.decode(entry.value, 0.0)
        assert isinstance(item, wire.Entry)
        return item.owner
    finally:
        await nc.close()


async def press(clients: list[PtyClient], until_text: str, most: int) -> int:
    """Play as the players would, from what each screen shows: Enter on one's turn, x on a
    claim prompt; until every screen shows ``until_text`` or ``most`` keys were pressed."""
    pressed = 0
    idle_since = time.monotonic()
    while pressed < most:
        if all(until_text in c.text() for c in clients):
            return pressed
        acted = False
        for c in clients:
            if c.closed.is_set():
                continue
            text = c.text()
            lines = text.splitlines()
            key = None
            if "[Pass" in text:
                key = "x"
            elif lines and "Your turn" in lines[0]:
                key = "\r"
            if key is None:
                continue
            c.send(key)
            pressed += 1
            acted = True
            with contextlib.suppress(AssertionError):  # a key the table had no use for
                await c.wait_for(lambda t, old=text: t != old, 3.0)
        if not acted:
            if time.monotonic() - idle_since > 20:
                raise AssertionError("nobody's move for 20 s:\n" + "\n----\n".join(
                    c.text() for c in clients))
            await asyncio.sleep(0.05)
        else:
            idle_since = time.monotonic()
    return pressed


async def test_sigkill_of_the_owner_mid_hand(cluster: Cluster) -> None:
    keys = [new_key() for _ in range(4)]
    clients = []
    for i in range(4):
        c = PtyClient(100, 30)
        await c.connect(cluster.port, f"p{i}", keys[i], command="join fri --rules gejiu")
        clients.append(c)
        await c.wait_for("个旧" if i == 3 else "fri")
    for c in clients:
        await c.wait_for("个旧")
    landed = [await worker_of(c) for c in clients]
    for _ in range(20):  # the kernel chose one worker for all four: come in again
        if len(set(landed)) == 2:
            break
        await clients[3].close()
        clients[3] = PtyClient(100, 30)
        await clients[3].connect(cluster.port, "p3", keys[3], command="join fri")
        await clients[3].wait_for("个旧")
        landed[3] = await worker_of(clients[3])
    assert len(set(landed)) == 2, "the connections all landed on one worker"
    owner = await owner_of(cluster, "fri")
    assert owner in landed
    await press(clients, "Enter: next hand", most=8)
    pid = int(owner.split(":")[1])
    os.kill(pid, signal.SIGKILL)
    killed_at = time.monotonic()
    # the other worker owns the table within 5 s
    new_owner = ""

    async def moved() -> bool:
        nonlocal new_owner
        new_owner = await owner_of(cluster, "fri")
        return new_owner != owner

    while not await moved():
        assert time.monotonic() - killed_at < 5.0, "no other worker took the table over"
        await asyncio.sleep(0.2)
    # the players whose connection was elsewhere are told the table goes on (issue 53)
    for i, c in enumerate(clients):
        if landed[i] != owner:
            await c.wait_for(lambda t: "The table goes on," in t and "牌桌继续" in t, 10.0)
    # the players whose connection was on the killed worker reconnect and get their seats
    for i, c in enumerate(clients):
        if landed[i] == owner:
            await until(lambda c=c: c.closed.is_set(), 5.0, "the dead worker's connection")
            c2 = PtyClient(100, 30)
            await c2.connect(cluster.port, f"p{i}", keys[i], command="join fri")
            clients[i] = c2
    for c in clients:
        await c.wait_for("个旧")
    # and everyone plays the hand to its end
    await press(clients, "Enter: next hand", most=400)
    log = cluster.log.read_text()
    assert "ended (status -9): starting it again" in log
    assert "took over table fri" in log
    for c in clients:
        await c.close()


async def _quiet(exc: Exception) -> None:
    """nats-py prints each refusal unless given an error callback."""


async def test_the_bus_takes_only_the_workers(cluster: Cluster) -> None:
    """A local program without the credentials is refused by the bus; the credentials are
    in a 0600 file, in no process's command line and not in the banner; with them, the
    directory of the workers is there (and the other test shows the workers play)."""
    with pytest.raises(nats.errors.Error, match="Authorization Violation"):
        await nats.connect(cluster.bus, connect_timeout=2, allow_reconnect=False,
                           error_cb=_quiet)
    auth = read_auth(cluster.data / "nats")
    assert auth is not None
    assert (cluster.data / "nats" / CONFIG_NAME).stat().st_mode & 0o777 == 0o600
    assert (cluster.data / "nats").stat().st_mode & 0o777 == 0o700
    nc = await nats.connect(cluster.bus, connect_timeout=2, allow_reconnect=False,
                            **auth.options())
    try:
        kv = await nc.jetstream().key_value(BUCKET)
        beats = [k for k in await kv.keys() if k.startswith("w.")]
        assert len(beats) == 2  # both workers' heartbeats: they joined with the credentials
    finally:
        await nc.close()
    assert auth.password not in cluster.banner
    assert auth.password not in cluster.log.read_text()
    pids = [cluster.proc.pid] + [int(p) for p in Path(
        f"/proc/{cluster.proc.pid}/task/{cluster.proc.pid}/children").read_text().split()]
    assert len(pids) >= 4  # the supervisor, the bus, two workers
    for pid in pids:
        assert auth.password.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
