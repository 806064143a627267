"""The server benchmark's own parts (``bench/bench_server.py``, ``bench/proctree.py``,
``bench/instrumented_server.py``, ``testkit.ssh.LightScreen``): they decide what the benchmark
reports, so they are checked without a server."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyte
import pytest

from bench import proctree
from testkit.ssh import LightScreen

# what Textual writes, and what a light screen must read as pyte does: colours, cursor
# addresses, wide characters, erases, line moves and private modes
FRAMES = [
    "\x1b[?1049h\x1b[?25l\x1b[1;1H\x1b[2J\x1b[1;1H\x1b[38;5;230;48;5;22m 宜春 Yichun │ Hand 1/8"
    " │ Wall 80 │ Your turn\x1b[0m\x1b[2;1Habc\x1b[0K\x1b[5;1Hhello world\x1b[12;1Hrow twelve"
    "\x1b[10;1Hten ten ten ten\x1b[3;1Hthree three",
    "\x1b[1;50H\x1b[38;5;230;48;5;22m Claim window  \x1b[0m\x1b[4;20H\x1b[1;38;5;25m7筒\x1b[0m",
    "\x1b[24;1HPass 过 · Pong 碰\x1b[2;2H\x1b[K\x1b[5;3H\x1b[1K"
    "\x1b[6;1H\x1b[12Cxy\x1b[2D\x1b[Az\x1b[3Bq\r\nw",
    "\x1b[10;10H\x1b[0J\x1b[3;5H\x1b[1J\x1b[H發發\x08!\x1b[7G#\x1b[2;71H末尾が長い",
    "\x1b[2J\x1b[1;1H\x1b[38;5;230mLeft N to play\x1b[0m\x1b[24;70H⏱ ███ 9s\x1b[?25h",
]


def _pyte_rows(screen: pyte.Screen) -> list[str]:
    return ["".join(screen.buffer[y][x].data for x in range(screen.columns))
            for y in range(screen.lines)]


@pytest.mark.parametrize("seed", range(12))
def test_the_light_screen_reads_as_pyte_after_every_chunk(seed: int) -> None:
    """Read between chunks too: a row's text is kept until it changes, and must change with
    every write, erase and wide character, however the packets cut the sequences."""
    data = "".join(FRAMES).encode()
    rng = random.Random(seed)
    light = LightScreen(80, 24)
    reference = pyte.Screen(80, 24)
    stream = pyte.ByteStream(reference)
    i = 0
    versions = [light.version]
    while i < len(data):
        n = 1 if seed == 0 else rng.choice([1, 2, 3, 5, 8, 17, 64])
        light.feed(data[i:i + n])
        stream.feed(data[i:i + n])
        i += n
        assert light.display == _pyte_rows(reference), f"after byte {i}"
        assert light.row(0) == light.display[0]
        versions.append(light.version)
    assert versions == sorted(set(versions))  # every chunk a new version


class ScreenClient:
    """What ``TableDriver`` needs of a client: a light screen and the keys sent."""

    def __init__(self) -> None:
        self.screen = self.stream = LightScreen(80, 24)
        self.sent: list[str] = []
        self.on_data: Any = None

    def show(self, row0: str, row22: str = "") -> None:
        self.stream.feed(b"\x1b[H\x1b[2K" + row0.encode() + b"\x1b[23;1H\x1b[2K" + row22.encode())
        if self.on_data is not None:
            self.on_data(self)

    def send(self, keys: str) -> None:
        self.sent.append(keys)


def test_an_untimed_prompt_is_answered_once_until_resend_passes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim prompt still shown is not answered at every turn of the driver's loop (a slow
    server then got a key every 50 ms per player), only again after RESEND."""
    from bench import bench_server
    from bench.bench_server import TableDriver

    head = " 宜春 Yichun │ Hand 1/8 │ Dealer E │ Wall 80 │ {}"
    cs = [ScreenClient() for _ in range(4)]
    d = TableDriver(cs, [])  # type: ignore[arg-type]
    for c, turn in zip(cs, ["Your turn", "Left E to play", "Across E to play",
                            "Right E to play"], strict=True):
        c.show(head.format(turn))
    cs[1].show(head.format("Claim window"), "Pong 碰 · Pass 过")
    now = [1000.0]
    monkeypatch.setattr(bench_server.time, "perf_counter", lambda: now[0])
    assert d.prompt(1) == "claim" and d.prompt(0) == ""
    assert d.untimed() and cs[1].sent == ["x"]
    now[0] += 0.05
    assert not d.untimed() and cs[1].sent == ["x"]  # still shown, too soon
    now[0] += bench_server.RESEND
    assert d.untimed() and cs[1].sent == ["x", "x"]
    cs[1].show(head.format("Claim window"), "")  # answered: the prompt is gone
    now[0] += 1.0
    assert d.prompt(1) == "" and not d.untimed()
    assert [c.sent for c in cs] == [[], ["x", "x"], [], []]


def test_one_worker_is_the_single_process_and_more_add_the_flag(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.bench_server import _server_command

    monkeypatch.delenv("MJ_BENCH_NATS", raising=False)
    single = _server_command(2222, "/d", 1, None)
    assert single[1:4] == ["-m", "bench.instrumented_server", "serve"]
    assert "--workers" not in single and "--db" not in single
    two = _server_command(2222, "/d", 2, "postgresql://x")
    assert two[:len(single)] == single
    assert two[len(single):] == ["--workers", "2", "--db", "postgresql://x"]


def test_each_process_of_a_server_with_workers_writes_its_own_probes() -> None:
    from bench.instrumented_server import stats_path

    assert stats_path("/d/probes.json", ["serve", "--port", "1"], 7) == Path("/d/probes.json")
    assert stats_path("/d/probes.json", ["serve", "--workers", "2"], 7) == Path(
        "/d/probes-7.json")
    assert stats_path("/d/probes.json", ["serve", "--workers", "2", "--worker", "1"], 8) == Path(
        "/d/probes-8.json")


def test_the_probes_of_several_processes_are_merged() -> None:
    from bench.bench_server import _merge_probes

    a = {"gc": {"0": [0.001], "1": [], "2": []}, "lag": [0.002], "slow_kinds": {"k": [1, 0.5]},
         "garbage": [["dict", 3]]}
    b = {"gc": {"0": [0.003], "1": [0.01], "2": []}, "lag": [0.004, 0.005],
         "slow_kinds": {"k": [2, 0.25]}, "garbage": [["dict", 1], ["list", 2]]}
    m = _merge_probes([json.loads(json.dumps(x)) for x in (a, b)])
    assert m["files"] == 2
    assert m["gc"] == {"0": [0.001, 0.003], "1": [0.01], "2": []}
    assert m["lag"] == [0.002, 0.004, 0.005]
    assert m["slow_kinds"] == {"k": (3, 0.75)}
    assert m["garbage"] == [("dict", 4), ("list", 2)]


BUSY = ("import time\n"
        "t = time.process_time()\n"
        "while time.process_time() - t < {0}: pass\n")
LIVE = BUSY.format(0.3) + "print('busy', flush=True)\ntime.sleep(60)\n"


def test_a_tree_counts_its_childrens_cpu_even_once_they_ended() -> None:
    """The server's CPU is its whole tree's: a child still running, and one that ended and
    was waited for (its time now in its parent's), each counted once."""
    parent = subprocess.Popen(
        [sys.executable, "-c",
         "import subprocess, sys, time\n"
         "sys.stdin.readline()\n"
         f"subprocess.run([sys.executable, '-c', {BUSY.format(0.4)!r}])\n"
         f"live = subprocess.Popen([sys.executable, '-c', {LIVE!r}])\n"
         "time.sleep(60)\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(0.3)  # the interpreter's start, before the window
        before = proctree.tree(parent.pid)
        assert parent.stdin is not None and parent.stdout is not None
        parent.stdin.write("\n")
        parent.stdin.flush()
        assert parent.stdout.readline() == "busy\n"  # the live child's loop is done
        after = proctree.tree(parent.pid)
        assert len(after) == 2 and parent.pid in after
        used = sum(proctree.cpu_by_role(before, after).values())
        # 0.4 s ended + 0.3 s live + two interpreters' starts; the parent itself idle
        assert 0.65 <= used <= 1.6, used
    finally:
        for pid in proctree.tree(parent.pid):
            subprocess.run(["kill", str(pid)], check=False)
        parent.wait()


def test_listeners_counts_the_sockets_listening_on_a_port() -> None:
    with socket.socket() as a:
        a.bind(("127.0.0.1", 0))
        port = a.getsockname()[1]
        assert proctree.listeners(port) == 0
        a.listen()
        assert proctree.listeners(port) == 1


FAKE_WORKER = """
import json, os, signal, socket, sys, time
port, stats = int(sys.argv[1]), sys.argv[2]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
s.bind(("127.0.0.1", port))
s.listen()
def end(*_):
    path = stats.replace(".json", f"-{os.getpid()}.json")
    open(path, "w").write(json.dumps({"gc": {"0": [0.001], "1": [], "2": []}, "lag": [0.002]}))
    sys.exit(0)
signal.signal(signal.SIGTERM, end)
t = time.process_time()
while time.process_time() - t < 0.2: pass
print("connect:", flush=True)
while True: time.sleep(1)
"""
FAKE_SUPERVISOR = """
import signal, subprocess, sys, time
port, stats, worker = sys.argv[1:4]
kids = [subprocess.Popen([sys.executable, "-c", worker, port, stats, "--worker", str(k)])
        for k in range(2)]
def end(*_):
    for k in kids:
        k.terminate()
    time.sleep(0.3)  # the supervisor leaves first: the benchmark waits for the workers
    sys.exit(0)
signal.signal(signal.SIGTERM, end)
while True: time.sleep(1)
"""


def test_a_server_of_several_processes_is_waited_for_counted_and_its_probes_merged(
        tmp_path: Path) -> None:
    """What the benchmark does with ``serve --workers 2`` (two processes sharing the port),
    shown with a stand-in supervisor: ready once both listen, both in the tree as workers,
    and on stop every worker's probes read, after the supervisor ended first."""
    from bench.bench_server import _free_port, _Output, _stop, _wait_ready

    port = _free_port()
    stats = tmp_path / "probes.json"
    proc = subprocess.Popen([sys.executable, "-c", FAKE_SUPERVISOR, str(port), str(stats),
                             FAKE_WORKER], stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None
        _wait_ready(proc, _Output(proc.stdout), port, 2, timeout=30)
        assert proctree.listeners(port) == 2
        seen = proctree.tree(proc.pid)
        assert sorted(proctree.role(p) for p in seen.values()) == ["server", "worker", "worker"]
        probes = _stop(proc, str(tmp_path), seen)
        assert probes["files"] == 2 and probes["gc"]["0"] == [0.001, 0.001]
        assert probes["lag"] == [0.002, 0.002]
    finally:
        for pid in proctree.tree(proc.pid):
            subprocess.run(["kill", str(pid)], check=False)
        proc.wait()
