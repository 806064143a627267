"""One hostile session's input against the server's event loop (bounded input, net/front/driver.py).

A real server in this process (``testkit.ssh.start_server``, temporary data folder) and two
keyless PTY clients in its lobby: the flooder sends ``MJ_BENCH_INPUT_BYTES`` (default 1 MB)
of random bytes in one write, without bracketed-paste markers (its C0 controls but Tab and
Esc are replaced by ``.``, and an Esc that a second Esc follows, so the flood cannot end the
session or submit a line; a lone Esc starts the escape sequences a random stream holds); the
other client types a probe while the flood is parsed.

Reported: the event loop's longest stall (a task that sleeps 1 ms and notes how late it woke)
from the write until the flooder's own probe, typed after the flood, is on its screen; the
other client's probe echo time; the flooder's probe echo time after the flood; the driver's
drop counters; and the process's RSS before and after. The clients run in the same process
and the machine may be shared: quote the figures with the load. Run:
``.venv/bin/python -m bench input``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import tempfile
import time
from pathlib import Path

from testkit.fakes import rss_mb
from testkit.ssh import PtyClient, fast_config, start_server

TOTAL = int(os.environ.get("MJ_BENCH_INPUT_BYTES", str(1024 * 1024)))



def flood_bytes(n: int, seed: int = 1) -> bytes:
    data = bytearray(random.Random(seed).randbytes(n))
    for i, b in enumerate(data):
        if (b < 0x20 and b not in (0x09, 0x1B)) or b == 0x7F:
            data[i] = 0x2E
    for i in range(len(data)):  # Esc Esc is the Esc key, which leaves the lobby
        if data[i] == 0x1B and (i + 1 == len(data) or data[i + 1] == 0x1B):
            data[i] = 0x2E
    return bytes(data)


async def echoed(client: PtyClient, text: str, resend: str | None = None,
                 timeout: float = 60.0) -> float:
    """Seconds until ``text`` is on the client's screen (``resend`` typed again every
    0.5 s: a key that arrives while input is being dropped is dropped too)."""
    start = time.perf_counter()
    last = start
    while text not in client.text():
        now = time.perf_counter()
        if now - start > timeout:
            return float("inf")
        if resend is not None and now - last > 0.5:
            client.send(resend)
            last = now
        client.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.changed.wait(), 0.05)
    return time.perf_counter() - start


async def run() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = await start_server(fast_config(Path(tmp)))
        flooder, other = PtyClient(light=True), PtyClient(light=True)
        await flooder.connect(server.port, "flood", None, command="lobby")
        await other.connect(server.port, "calm", None, command="lobby")
        for c in (flooder, other):
            await c.wait_for("welcome", 30)
        data = flood_bytes(TOTAL)
        await asyncio.sleep(0.5)
        rss0 = rss_mb()
        worst = 0.0
        done = False

        async def watch() -> None:
            nonlocal worst
            while not done:
                t = time.perf_counter()
                await asyncio.sleep(0.001)
                worst = max(worst, time.perf_counter() - t - 0.001)

        watcher = asyncio.get_running_loop().create_task(watch())
        await asyncio.sleep(0.05)
        flooder.send(data)
        await asyncio.sleep(0.05)
        other.send("\x15calmprobe")
        other_s = await echoed(other, "calmprobe")
        mine_s = await echoed(flooder, "floodprobe", resend="\x15floodprobe")
        done = True
        await watcher
        rss1 = rss_mb()
        drivers = [s.driver for s in server.sessions if s.driver is not None]
        counts = ", ".join(
            f"{name}={sum(getattr(d, name, 0) for d in drivers)}"
            for name in ("bytes_dropped", "events_dropped", "paste_dropped", "chars_parsed"))
        print(f"{TOTAL // 1024} KB random bytes to one lobby session "
              f"(load average {os.getloadavg()[0]:.2f})")
        print(f"  longest event-loop stall  {worst * 1000:8.1f} ms")
        print(f"  other session's echo      {other_s * 1000:8.1f} ms")
        print(f"  flooder's echo after      {mine_s * 1000:8.1f} ms")
        print(f"  RSS                       {rss0:8.1f} -> {rss1:.1f} MB")
        print(f"  driver counters           {counts or 'n/a'}")
        for c in (flooder, other):
            await c.close()
        await server.close()


def main() -> None:
    asyncio.run(run())


if __name__ == "__main__":
    main()
