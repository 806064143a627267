"""The SSH server under load: N tables x 4 PTY clients, one discard per table every 0.5 s.

The server runs as a subprocess (``mahjong-ssh serve`` on a free port, temporary data folder);
the clients are asyncssh sessions with a PTY in this process. For each table, every 0.5 s the
client whose screen says "Your turn" presses Enter; the latency is the time from that key until
all four sessions have received output after it. Reported: p50/p99 latency, server CPU share,
server RSS per session, connect-to-first-screen time.

``MJ_BENCH_TABLES`` (default ``5,25``) lists the table counts; ``MJ_BENCH_SECONDS`` (default
10) is the measuring time per count.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _proc_rss(pid: int) -> float:
    m = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(m.group(1)) / 1024 if m else 0.0


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def _run(tables: int, seconds: float) -> dict[str, float]:
    from net.testing import PtyClient

    data = tempfile.mkdtemp(prefix="mj-bench-")
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "net.cli", "serve", "--port", str(port), "--data", data,
         "--max-per-address", "1000"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    while b"connect:" not in (await asyncio.to_thread(proc.stdout.readline)):
        pass
    try:
        idle_rss = _proc_rss(proc.pid)
        groups: list[list[PtyClient]] = []
        connect_times: list[float] = []
        for t in range(tables):
            group = []
            for i in range(4):
                c = PtyClient()
                c.keep_raw = False
                started = time.perf_counter()
                await c.connect(port, f"b{t}x{i}", None, command=f"join bench{t}")
                await c.wait_for(lambda text: "Table" in text or "Hand " in text, 20)
                connect_times.append(time.perf_counter() - started)
                group.append(c)
            groups.append(group)
        for group in groups:
            await group[0].wait_for(lambda text: "Hand 1/" in text, 20)
        rss = _proc_rss(proc.pid)
        latencies: list[float] = []
        stop_at = time.monotonic() + seconds

        async def drive(group: list[PtyClient]) -> None:
            while time.monotonic() < stop_at:
                await asyncio.sleep(0.5)
                movers = [c for c in group if "Your turn" in c.screen.display[0]
                          or "this hand?" in c.text()]
                if not movers:
                    if any("Enter: next hand" in c.text() for c in group):
                        for c in group:
                            c.send("\r")
                    continue
                counts = [c.bytes_in for c in group]
                t0 = time.perf_counter()
                movers[0].send("\r")
                done = [False] * 4
                end = time.monotonic() + 2.0
                while not all(done) and time.monotonic() < end:
                    for i, c in enumerate(group):
                        if not done[i] and c.bytes_in > counts[i]:
                            done[i] = True
                    if not all(done):
                        waits = [c.changed.wait() for i, c in enumerate(group) if not done[i]]
                        for c in group:
                            c.changed.clear()
                        await asyncio.wait([asyncio.ensure_future(w) for w in waits],
                                           timeout=0.05, return_when=asyncio.FIRST_COMPLETED)
                if all(done):
                    latencies.append(time.perf_counter() - t0)

        cpu0, wall0 = _proc_cpu(proc.pid), time.perf_counter()
        await asyncio.gather(*(drive(g) for g in groups))
        cpu = (_proc_cpu(proc.pid) - cpu0) / (time.perf_counter() - wall0)
        for group in groups:
            for c in group:
                await c.close()
        return {
            "tables": tables,
            "sessions": tables * 4,
            "p50_ms": _pct(latencies, 0.5) * 1000,
            "p99_ms": _pct(latencies, 0.99) * 1000,
            "samples": len(latencies),
            "server_cpu": cpu,
            "rss_per_session_mib": (rss - idle_rss) / (tables * 4),
            "idle_rss_mib": idle_rss,
            "connect_p50_ms": statistics.median(connect_times) * 1000,
            "connect_max_ms": max(connect_times) * 1000,
        }
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    counts = [int(x) for x in os.environ.get("MJ_BENCH_TABLES", "5,25").split(",") if x]
    seconds = float(os.environ.get("MJ_BENCH_SECONDS", "10"))
    for n in counts:
        r = asyncio.run(_run(n, seconds))
        print(f"{r['tables']:4d} tables {r['sessions']:4d} sessions: key→4 screens "
              f"p50 {r['p50_ms']:.1f} ms p99 {r['p99_ms']:.1f} ms ({r['samples']} keys); "
              f"server CPU {r['server_cpu'] * 100:.0f}%; RSS/session "
              f"{r['rss_per_session_mib']:.2f} MiB (idle {r['idle_rss_mib']:.0f} MiB); "
              f"connect→first screen p50 {r['connect_p50_ms']:.0f} ms "
              f"max {r['connect_max_ms']:.0f} ms", flush=True)


if __name__ == "__main__":
    main()
