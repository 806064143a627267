"""One hostile client against a live table: the server's memory and the players' key latency
while a stranger tries, one after another, what testers tried against the server.

The server runs as a subprocess (``python -m cli.main serve --data TMP --port 0 --bot-delay
0.3``, plus ``--limit channel_grace=5`` when ``serve`` has ``--limit``), its port read from
its first stdout line, its stderr kept in a file (the log bytes each attack caused), its RSS
read from ``/proc/PID/status`` (VmRSS) so the figure is the server's alone: before an attack
(after the previous one settled), the peak while it runs (sampled every 20 ms by a thread),
and after it (its connections closed, 3 s later).

Four players sit at table ``play`` (``join play --option hands_per_game=1000``) in a worker
process of their own, playing by keys as in ``bench.bench_server``: once all four screens
agree, the player to move presses Enter every 0.5 s, and the latency is from the key until
all four screens show its effect (2 s at most: a key that took longer counts as 2 s in the
percentiles, and is also counted as late). The players connect from 127.0.0.1; the attacker
from 127.0.0.2 (and, where an attack needs a second address, 127.0.0.3), so the server's
per-address limits apply to it and not to the players, as they would on the internet.

First a baseline with no attack, then each attack for ``--seconds`` (default 10) unless it is
bounded by a count:

  huge-pty    a pty of 65535x65535, then a window change to 4294967295x4294967295, the
              session kept in the lobby
  paste-lobby 1 MB of text without bracketed-paste markers, 4 MB, 1 MB of os.urandom, into
  paste-watch lobby sessions / sessions watching the players' table (a third of the time each)
  env         10,000 environment requests of 30 KB (500 to a session, sessions in a row on one
              connection, three kept open), then closed
  churn       lobby sessions opened (first screen drawn) and closed in a row (``--churn``,
              default 500; a new connection every 50); RSS at every 100, growth per 100, and
              that growth carried to 5,000 sessions (goal: within 20 MB)
  silent      200 TCP connections from one address that never send a byte, then a real client
              logs in from that address and one from another: whether they got in, how fast
  no-channel  20 logged-in connections that never open a channel: when the server closed them
  auth-flood  a name kept by a passphrase (made first, from another address), then wrong
              answers to its keyboard-interactive prompt as fast as the server asks, connection
              after connection: attempts before each disconnect; whether the owner still gets in
  bad-keys    195 KB of malformed escape sequences (``ESC [`` and garbage), one per SSH packet,
              into a lobby session (a new one if the garbage ends it): the server's log bytes
  chat        three spectators of the players' table typing chat lines (``/``, text, Enter)
  tables      new tables as fast as the server allows (``join tNNNN`` sessions with a pty, four
              at once, sessions in a row on a connection, a new connection, a new guest, when
              one is refused) for 7 s: how many were made

For each attack: a line of figures (RSS, the players' p50/p99, log bytes, the server's CPU
share), a line of what the attack found, and PASS/FAIL against the goals: no attack raises
the server's RSS (peak over before) by more than 50 MB, none puts the players' p99 above
50 ms, nor leaves them fewer than half the baseline's keys a second (they press a key only
once their four screens agree: screens that lag, or that something covers, hold them up, which
the p99 of the keys they did press would not show); churn's growth carried to 5,000 sessions
within 20 MB. An attack the server refuses (a disconnect, a channel refused, permission denied)
is the server defending itself: it is reported, not a failure of the benchmark.

Run: ``.venv/bin/python -m bench.bench_hostile [--attack NAME ...] [--seconds S] [--churn N]
[--json]`` (``python -m bench hostile`` runs it with the defaults). The whole default run
takes about three minutes. Timing figures mean something only on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import math
import multiprocessing as mp
import os
import queue
import random
import re
import string
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import asyncssh

from bench.bench_server import KEY_TIMEOUT, ROOT, TableDriver, _pct, _proc_rss, _proc_times
from testkit.ssh import LightScreen
from testkit.ssh import LoginClient as Login  # answers every prompt with its passphrase, or Enter

PLAYERS = "127.0.0.1"
ATTACKER = "127.0.0.2"
ELSEWHERE = "127.0.0.3"  # a second address, for what must still work from another one
TABLE = "play"
RSS_GOAL_MB = 50.0
P99_GOAL_MS = 50.0
CHURN_GOAL_MB = 20.0  # growth carried to CHURN_GOAL_SESSIONS sessions
CHURN_GOAL_SESSIONS = 5000
SETTLE = 3.0  # seconds after an attack before its "after" RSS
TAIL = 1.0  # seconds after an attack, its sessions still open, still in its latency window
HELD_UP = 0.5  # a phase with fewer keys a second than this share of the baseline's fails
LOBBY = "lobby 大厅"  # the lobby's title, on its first screen
REFUSED = (asyncssh.Error, OSError, EOFError, asyncssh.ChannelOpenError)


def _refusal(exc: BaseException) -> str:
    """How the server turned a step down, in a few words."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:70]}" if text else type(exc).__name__


# --- the server ----------------------------------------------------------------------------
@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    port: int
    log: Path
    limit_flag: bool

    @property
    def pid(self) -> int:
        return self.proc.pid

    def rss(self) -> float:
        return _proc_rss(self.pid) if self.alive() else float("nan")

    def log_bytes(self) -> int:
        return self.log.stat().st_size

    def cpu(self) -> float:
        user, system = _proc_times(self.pid)
        return user + system

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_server(data: Path) -> Server:
    cmd = [sys.executable, "-m", "cli.main", "serve"]
    usage = subprocess.run([*cmd, "--help"], cwd=ROOT, capture_output=True, text=True).stdout
    limit_flag = "--limit " in usage or "--limit\n" in usage
    extra = ["--limit", "channel_grace=5"] if limit_flag else []
    out, log = data / "stdout.txt", data / "stderr.txt"
    with out.open("wb") as stdout, log.open("wb") as stderr:
        proc = subprocess.Popen([*cmd, "--data", str(data / "srv"), "--port", "0",
                                 "--bot-delay", "0.3", *extra],
                                cwd=ROOT, stdout=stdout, stderr=stderr)
    end = time.monotonic() + 60
    while time.monotonic() < end and proc.poll() is None:
        first = out.read_text(errors="replace").partition("\n")
        m = re.search(r"mahjong-ssh serving on [^\s:]+:(\d+)", first[0]) if first[1] else None
        if m:
            return Server(proc, int(m.group(1)), log, limit_flag)
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"the server did not start: {log.read_text(errors='replace')[-2000:]}")


class PeakSampler:
    """The server's RSS every 20 ms in a thread (an attack may keep the client's loop busy)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.peak = server.rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            with contextlib.suppress(OSError):
                self.peak = max(self.peak, self.server.rss())

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak


# --- the players (a worker process) --------------------------------------------------------
class StampedLatencies(list[float]):
    """TableDriver's latency list, each key also stamped with when it was pressed."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[tuple[float, float]] = []  # (pressed, latency)

    def append(self, latency: float) -> None:
        super().append(latency)
        self.keys.append((time.perf_counter() - latency, latency))


class StampedTimeouts(list[int]):
    """TableDriver's timeout counter, each late key stamped with when it was pressed."""

    def __init__(self) -> None:
        super().__init__([0])
        self.pressed: list[float] = []

    def __setitem__(self, index: Any, value: Any) -> None:
        super().__setitem__(index, value)
        self.pressed.append(time.perf_counter() - KEY_TIMEOUT)


async def _players(port: int, ready: Any, stop: Any, out: Any) -> None:
    import bench.bench_server
    from testkit.ssh import PtyClient

    # a hand's result is passed at once (Enter), so that the keys come at a steady pace and a
    # short attack still has keys to time
    bench.bench_server.READ_SECONDS = 0.0
    clients = []
    for i in range(4):
        c = PtyClient(light=True)
        c.keep_raw = False
        await c.connect(port, f"player{i}", None,
                        command=f"join {TABLE} --option hands_per_game=1000")
        clients.append(c)
    for c in clients:
        await c.wait_for("Hand 1/", 60)
    driver = TableDriver(clients, [], seed=1)
    latencies, timeouts = StampedLatencies(), StampedTimeouts()
    ready.put(("ready", ""))
    play = asyncio.create_task(driver.run(math.inf, latencies, timeouts))
    await asyncio.to_thread(stop.wait)
    play.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await play
    out.put({"keys": latencies.keys, "late": timeouts.pressed,
             "closed": sum(1 for c in clients if c.closed.is_set())})
    for c in clients:
        await c.close()


def _players_main(port: int, ready: Any, stop: Any, out: Any) -> None:
    try:
        asyncio.run(_players(port, ready, stop, out))
    except Exception as exc:  # report, do not hang the parent
        ready.put(("error", repr(exc)))
        out.put({"error": repr(exc)})


# --- the attacker's tools --------------------------------------------------------------------
class WrongAnswers(Login):
    """A guesser: a different wrong passphrase at every prompt."""

    def kbdint_challenge_received(self, name: str, instructions: str, lang: str,
                                  prompts: Any) -> list[str]:
        self.challenges += 1
        return [f"guess-{self.challenges:06d}" for _ in prompts]


class Watcher(asyncssh.SSHClientSession):  # type: ignore[type-arg]
    """An attacker's session: counts what the server sends, drawn into a screen if it has one;
    ``until`` waits for a condition on it, checked as each chunk arrives."""

    def __init__(self, screen: LightScreen | None) -> None:
        self.screen = screen
        self.bytes_in = 0
        self.closed = asyncio.Event()
        self.exit_status: int | None = None
        self._want: tuple[Callable[[Watcher], bool], asyncio.Event] | None = None

    def text(self) -> str:
        return "\n".join(self.screen.display) if self.screen is not None else ""

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.bytes_in += len(data)
        if self.screen is not None:
            self.screen.feed(data)
        self._check()

    def _check(self) -> None:
        if self._want is not None and (self.closed.is_set() or self._want[0](self)):
            self._want[1].set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()
        self._check()

    def exit_status_received(self, status: int) -> None:
        self.exit_status = status

    async def until(self, check: Callable[[Watcher], bool], timeout: float) -> bool:
        if not check(self) and not self.closed.is_set():
            self._want = (check, asyncio.Event())
            try:
                await asyncio.wait_for(self._want[1].wait(), max(0.0, timeout))
            except TimeoutError:
                pass
            finally:
                self._want = None
        return check(self)


def shows(text: str) -> Callable[[Watcher], bool]:
    return lambda w: text in w.text()


class Crowd:
    """The attacker's connections in one attack: every one closed at its end."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conns: list[asyncssh.SSHClientConnection] = []

    async def login(self, name: str, answer: str = "", address: str = ATTACKER,
                    client: Login | None = None
                    ) -> tuple[asyncssh.SSHClientConnection, Login]:
        """Log in as ``name`` from ``address``, answering every prompt with ``answer`` (or
        as ``client`` answers)."""
        factory = (lambda: client) if client is not None else partial(Login, answer)
        conn, made = await asyncssh.create_connection(
            factory, "127.0.0.1", self.port, username=name,
            local_addr=(address, 0), known_hosts=None, client_keys=None, agent_path=None,
            kbdint_auth=True, preferred_auth="keyboard-interactive", connect_timeout=20)
        self.conns.append(conn)
        if not isinstance(made, Login):  # asyncssh forgets the client of a closed connection
            raise ConnectionError("closed by the server as the login ended")
        return conn, made

    async def drop(self, conn: asyncssh.SSHClientConnection) -> None:
        conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(conn.wait_closed(), 5)
        with contextlib.suppress(ValueError):
            self.conns.remove(conn)

    async def close(self) -> None:
        await asyncio.gather(*(self.drop(c) for c in list(self.conns)))


async def open_session(conn: asyncssh.SSHClientConnection, command: str | None = None,
                       size: tuple[int, int] = (80, 24), draw: bool = True,
                       env: Sequence[tuple[str, str]] = ()
                       ) -> tuple[asyncssh.SSHClientChannel[bytes], Watcher]:
    """A session with a pty (``command`` None: the lobby), drawn into a screen of ``size``
    when ``draw``."""
    watcher = Watcher(LightScreen(*size) if draw else None)
    chan, _ = await conn.create_session(lambda: watcher, command, term_type="xterm-256color",
                                        term_size=size, encoding=None, env=env)
    return chan, watcher


async def flushed(chan: asyncssh.SSHClientChannel[bytes], watcher: Watcher,
                  deadline: float, below: int = 0) -> bool:
    """Wait until the server took all but ``below`` bytes of what was written (its window
    opened for them), the session ended, or ``deadline`` (perf_counter) passed."""
    while chan.get_write_buffer_size() > below:
        if watcher.closed.is_set() or time.perf_counter() >= deadline:
            return False
        await asyncio.sleep(0.005)
    return True


# --- the attacks -------------------------------------------------------------------------------
@dataclass
class Ctx:
    server: Server
    seconds: float
    churn: int
    rss_marks: list[tuple[int, float]] = field(default_factory=list)  # churn: (sessions, MB)


Attack = Callable[[Ctx, Crowd], Awaitable[str]]


async def huge_pty(ctx: Ctx, crowd: Crowd) -> str:
    deadline = time.perf_counter() + ctx.seconds
    conn, _ = await crowd.login("giant")
    try:
        chan, w = await open_session(conn, size=(65535, 65535), draw=False)
    except REFUSED as exc:
        return f"pty 65535x65535 refused ({_refusal(exc)})"
    drawn = await w.until(lambda w: w.bytes_in > 0, 10)
    first = w.bytes_in
    await asyncio.sleep(1.0)
    at_open = w.bytes_in
    try:
        chan.change_terminal_size(4294967295, 4294967295)
    except (ValueError, OverflowError, asyncssh.Error) as exc:
        return f"the client could not send the window change: {_refusal(exc)}"
    await asyncio.sleep(max(0.0, deadline - time.perf_counter()))
    return (f"lobby drawn: {'yes' if drawn else 'no'} (first chunk {first} B, {at_open / 1024:.0f}"
            f" KB in its first second); after the window change {(w.bytes_in - at_open) / 1024:.0f}"
            f" KB more; session {'ended by the server' if w.closed.is_set() else 'still open'}")


PASTE_TEXT = (string.ascii_lowercase.replace("q", "") + string.digits + " .,") * 1000


def _paste(size: int, rand: bool) -> bytes:
    if rand:
        return os.urandom(size)
    block = PASTE_TEXT.encode()
    return (block * (size // len(block) + 1))[:size]


async def _pastes(ctx: Ctx, crowd: Crowd, command: str | None, ready: str) -> str:
    conn, _ = await crowd.login("paster")
    out = []
    for label, size, rand in (("1 MB", 1 << 20, False), ("4 MB", 4 << 20, False),
                              ("1 MB random", 1 << 20, True)):
        deadline = time.perf_counter() + ctx.seconds / 3
        try:
            chan, w = await open_session(conn, command)
        except REFUSED as exc:
            out.append(f"{label}: session refused ({_refusal(exc)})")
            continue
        await w.until(shows(ready), 10)
        data = _paste(size, rand)
        t0 = time.perf_counter()
        chan.write(data)
        done = await flushed(chan, w, deadline)
        took = time.perf_counter() - t0
        taken = size - chan.get_write_buffer_size()
        await w.until(lambda w: w.closed.is_set(), deadline - time.perf_counter())
        ended = w.closed.is_set()  # by the end of its third of the time
        chan.close()
        out.append(f"{label}: {'all' if done else f'{taken / 1024:.0f} KB'} taken in "
                   f"{took:.2f} s{', the session ended' if ended else ''}")
    return "; ".join(out)


async def paste_lobby(ctx: Ctx, crowd: Crowd) -> str:
    return await _pastes(ctx, crowd, None, LOBBY)


async def paste_watch(ctx: Ctx, crowd: Crowd) -> str:
    return await _pastes(ctx, crowd, f"watch {TABLE}", "Hand ")


ENV_REQUESTS = 10_000
ENV_VALUE = "v" * 30_000
ENV_PER_SESSION = 500


async def env_flood(ctx: Ctx, crowd: Crowd) -> str:
    deadline = time.perf_counter() + ctx.seconds
    conn, _ = await crowd.login("envy")
    open_: list[asyncssh.SSHClientChannel[bytes]] = []
    sent = sessions = 0
    refused = ""
    t0 = time.perf_counter()
    while sent < ENV_REQUESTS and time.perf_counter() < deadline:
        env = [(f"X{i:05d}", ENV_VALUE) for i in range(sent, sent + ENV_PER_SESSION)]
        try:
            chan, _w = await open_session(conn, env=env, draw=False)
        except REFUSED as exc:
            refused = f"; refused after {sent} ({_refusal(exc)})"
            break
        sent += len(env)
        sessions += 1
        open_.append(chan)
        if len(open_) >= 3:
            open_.pop(0).close()
    took = time.perf_counter() - t0
    rss_open = ctx.server.rss()
    for chan in open_:
        chan.close()
    return (f"{sent} env requests of 30 KB ({sent * 30 / 1024:.0f} MB) in {sessions} sessions"
            f" in {took:.1f} s{refused}; RSS with the last three open {rss_open:.1f} MB")


async def churn(ctx: Ctx, crowd: Crowd) -> str:
    count = ctx.churn
    conn: asyncssh.SSHClientConnection | None = None
    drawn = refused = 0
    notes: list[str] = []
    ctx.rss_marks = [(0, ctx.server.rss())]
    t0 = time.perf_counter()
    for i in range(count):
        if conn is None or i % 50 == 0:
            if conn is not None:
                await crowd.drop(conn)
            conn, _ = await crowd.login(f"churn{i // 50}")
        try:
            chan, w = await open_session(conn)
        except REFUSED as exc:
            refused += 1
            if len(notes) < 2:
                notes.append(f"session {i}: {_refusal(exc)}")
            conn = None
            continue
        drawn += await w.until(shows(LOBBY), 10)
        chan.close()
        await w.until(lambda w: w.closed.is_set(), 5)
        if (i + 1) % 100 == 0:
            ctx.rss_marks.append((i + 1, ctx.server.rss()))
    took = time.perf_counter() - t0
    marks = ctx.rss_marks
    steps = ", ".join(f"{b[1] - a[1]:+.1f}" for a, b in itertools.pairwise(marks))
    return (f"{count} sessions in {took:.0f} s ({took / max(count, 1) * 1000:.0f} ms each), "
            f"{drawn} drawn, {refused} refused{': ' + '; '.join(notes) if notes else ''}; "
            f"RSS growth per 100 (MB): {steps}")


def churn_projection(marks: list[tuple[int, float]]) -> float | None:
    """RSS growth carried to CHURN_GOAL_SESSIONS sessions, at the pace of the run's second
    half (the first sessions fill caches that stay: their growth is no leak)."""
    if len(marks) < 2:
        return None
    a, b = marks[(len(marks) - 1) // 2], marks[-1]
    if b[0] <= a[0]:
        a = marks[0]
    return (b[1] - a[1]) / (b[0] - a[0]) * CHURN_GOAL_SESSIONS


async def _real_login(crowd: Crowd, name: str, address: str) -> str:
    t0 = time.perf_counter()
    try:
        conn, _ = await asyncio.wait_for(crowd.login(name, address=address), 30)
        chan, w = await open_session(conn)
        got = await w.until(shows(LOBBY), 30)
    except (TimeoutError, *REFUSED) as exc:
        return f"not in after {time.perf_counter() - t0:.2f} s ({_refusal(exc)})"
    took = time.perf_counter() - t0
    chan.close()
    return f"in the lobby in {took * 1000:.0f} ms" if got else f"no lobby after {took:.1f} s"


async def silent(ctx: Ctx, crowd: Crowd) -> str:
    deadline = time.perf_counter() + ctx.seconds
    writers: list[asyncio.StreamWriter] = []
    closed: list[float] = []
    failed = 0
    t0 = time.perf_counter()

    async def hold(reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(OSError):
            while await reader.read(4096):
                pass
        closed.append(time.perf_counter() - t0)

    holders = []
    for _ in range(200):
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", ctx.server.port, local_addr=(ATTACKER, 0))
        except OSError:
            failed += 1
            continue
        writers.append(writer)
        holders.append(asyncio.create_task(hold(reader)))
    opened = time.perf_counter() - t0
    same = await _real_login(crowd, "realsame", ATTACKER)
    other = await _real_login(crowd, "realother", ELSEWHERE)
    await asyncio.sleep(max(0.0, deadline - time.perf_counter()))
    open_at_end = len(writers) - len(closed)
    for writer in writers:
        writer.close()
    await asyncio.gather(*holders, return_exceptions=True)
    return (f"{len(writers)} connected in {opened:.2f} s ({failed} failed), the server closed "
            f"{len(writers) - open_at_end} of them within {ctx.seconds:.0f} s; a real client "
            f"from the same address: {same}; from another: {other}")


async def no_channel(ctx: Ctx, crowd: Crowd) -> str:
    """Logged in one after another (twenty logins at once would be more than an address may
    have waiting, and the server drops the oldest), then all left without a channel."""
    grace = 5.0 if ctx.server.limit_flag else 30.0
    waits: list[float] = []
    refused: list[str] = []

    async def closed(conn: asyncssh.SSHClientConnection, since: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(conn.wait_closed(), grace + 15)
            waits.append(time.perf_counter() - since)

    waiting = []
    for i in range(20):
        try:
            conn, _ = await crowd.login(f"idle{i}")
        except REFUSED as exc:
            refused.append(_refusal(exc))
            continue
        waiting.append(asyncio.create_task(closed(conn, time.perf_counter())))
    await asyncio.gather(*waiting)
    got = f"closed {len(waits)} of {len(waiting)} logged in"
    if waits:
        got += f" {min(waits):.1f}-{max(waits):.1f} s after their login"
    if len(waits) < len(waiting):
        got += f"; the rest still open after {grace + 15:.0f} s"
    if refused:
        got += f"; {len(refused)} refused at login ({refused[0]})"
    return got + f" (channel_grace {'5 s, set by --limit' if ctx.server.limit_flag else 'default'})"


async def auth_flood(ctx: Ctx, crowd: Crowd) -> str:
    secret = "correct horse battery"
    try:
        owner, _ = await crowd.login("victim", secret, address=ELSEWHERE)
        await crowd.drop(owner)
    except REFUSED as exc:
        return f"could not keep the name first: {_refusal(exc)}"
    deadline = time.perf_counter() + ctx.seconds
    per_conn: list[int] = []
    ends: list[str] = []
    t0 = time.perf_counter()
    while time.perf_counter() < deadline:
        guesser = WrongAnswers()
        try:
            conn, _ = await asyncio.wait_for(
                crowd.login("victim", client=guesser),
                max(1.0, deadline - time.perf_counter() + 5))
        except (TimeoutError, *REFUSED) as exc:
            ends.append(type(exc).__name__)
            per_conn.append(guesser.challenges)
            continue
        await crowd.drop(conn)
        return f"a wrong guess got in after {guesser.challenges} prompts!"
    took = time.perf_counter() - t0
    total = sum(per_conn)
    kinds = ", ".join(sorted(set(ends)))
    owner_in = await _real_login(crowd, "victim", ELSEWHERE)  # answers Enter: a guest
    try:
        owner, _ = await crowd.login("victim", secret, address=ELSEWHERE)
        kept = "the owner's passphrase still works"
        await crowd.drop(owner)
    except REFUSED as exc:
        kept = f"the owner is refused ({_refusal(exc)})"
    first = per_conn[0] if per_conn else 0
    return (f"{first} prompts answered wrongly before the first disconnect; {len(per_conn)} "
            f"connections, {total} wrong answers in {took:.1f} s ({total / took:.1f}/s; "
            f"ended by {kinds}); {kept}; Enter at the prompt: {owner_in}")


BAD_KEYS_BYTES = 195 * 1024
GARBAGE = bytes(range(0x20, 0x7F)) + bytes(range(0x80, 0x100))


async def bad_keys(ctx: Ctx, crowd: Crowd) -> str:
    deadline = time.perf_counter() + ctx.seconds
    rng = random.Random(8)
    conn, _ = await crowd.login("garbler")
    sent = packets = sessions = 0
    w: Watcher | None = None
    chan: asyncssh.SSHClientChannel[bytes] | None = None
    ended = ""
    while sent < BAD_KEYS_BYTES and time.perf_counter() < deadline:
        if chan is None or w is None or w.closed.is_set():
            try:
                chan, w = await open_session(conn)
            except REFUSED as exc:
                ended = f"; a new session refused ({_refusal(exc)})"
                break
            sessions += 1
            await w.until(shows(LOBBY), 10)
        seq = b"\x1b[" + bytes(rng.choice(GARBAGE) for _ in range(rng.randint(1, 10)))
        chan.write(seq)  # one write, one SSH packet
        sent += len(seq)
        packets += 1
        if packets % 64 == 0:
            await flushed(chan, w, deadline, below=16 * 1024)
    if chan is not None and w is not None:
        await flushed(chan, w, deadline)
        chan.close()
    return (f"{sent / 1024:.0f} KB in {packets} packets, {sessions} lobby session(s) "
            f"(the garbage ended {max(0, sessions - 1)}){ended}")


async def chat(ctx: Ctx, crowd: Crowd) -> str:
    deadline = time.perf_counter() + ctx.seconds
    typed = [0, 0, 0]
    notes: list[str] = []
    watchers: list[Watcher] = []

    async def spam(i: int) -> None:
        try:
            conn, _ = await crowd.login(f"spammer{i}")
            chan, w = await open_session(conn, f"watch {TABLE}")
        except REFUSED as exc:
            notes.append(_refusal(exc))
            return
        watchers.append(w)
        await w.until(shows("Hand "), 10)
        while time.perf_counter() < deadline and not w.closed.is_set():
            chan.write(f"/spam {i}-{typed[i]} {'blah ' * 30}\r".encode())
            typed[i] += 1
            await flushed(chan, w, deadline)
            await asyncio.sleep(0.02)

    await asyncio.gather(*(spam(i) for i in range(3)))
    received = sum(w.bytes_in for w in watchers)
    return (f"{sum(typed)} chat lines typed by {len(watchers)} spectators "
            f"({received / 1024:.0f} KB sent back to them)"
            + (f"; refused: {notes[0]}" if notes else ""))


async def tables(ctx: Ctx, crowd: Crowd) -> str:
    """Four makers, each with a connection used for one ``join tNNNN`` session after another,
    as fast as the server answers; when the server refuses a table or closes the connection,
    a new connection: a new guest, another account."""
    deadline = time.perf_counter() + min(7.0, ctx.seconds)
    made: list[str] = []
    refusals: dict[str, int] = {}
    names = iter(range(100_000))
    logins = [0]

    def refused(why: str) -> None:
        refusals[why[:80]] = refusals.get(why[:80], 0) + 1

    async def maker(k: int) -> None:
        conn: asyncssh.SSHClientConnection | None = None
        while time.perf_counter() < deadline:
            try:
                if conn is None:
                    logins[0] += 1
                    conn, _ = await crowd.login(f"maker{k}-{logins[0]}")
                n = next(names)
                chan, w = await open_session(conn, f"join t{n:04d}")
            except REFUSED as exc:
                refused(_refusal(exc))
                if conn is not None:
                    await crowd.drop(conn)
                conn = None
                continue
            # the refusal's text may come after its exit status: wait for the channel's end
            await w.until(lambda w: "press S" in w.text() or w.closed.is_set(), 10)
            if "press S" in w.text():
                made.append(f"t{n:04d}")
            else:
                refused(next((ln.strip() for ln in w.text().splitlines() if ln.strip()),
                             f"the session ended with nothing shown (status {w.exit_status})"))
                await crowd.drop(conn)  # the next try as a new guest: another account
                conn = None
                continue
            chan.close()
            await w.until(lambda w: w.closed.is_set(), 5)

    t0 = time.perf_counter()
    await asyncio.gather(*(maker(k) for k in range(4)))
    took = time.perf_counter() - t0
    listed = await _tables_listed(crowd)
    top = sorted(refusals.items(), key=lambda kv: -kv[1])[:3]
    return (f"{len(made)} tables made in {took:.1f} s ({logins[0]} logins), "
            f"{sum(refusals.values())} refused"
            + (" (" + "; ".join(f"{n}x {why!r}" for why, n in top) + ")" if top else "")
            + f"; tables listed by stats: {listed}")


async def _tables_listed(crowd: Crowd) -> str:
    try:
        conn, _ = await crowd.login("counter", address=ELSEWHERE)
        done = await conn.run("stats", check=False)
        await crowd.drop(conn)
    except REFUSED as exc:
        return f"? ({_refusal(exc)})"
    m = re.search(r"Tables 牌桌: (\d+)", str(done.stdout))
    return m.group(1) if m else "?"


ATTACKS: dict[str, Attack] = {
    "huge-pty": huge_pty,
    "paste-lobby": paste_lobby,
    "paste-watch": paste_watch,
    "env": env_flood,
    "churn": churn,
    "silent": silent,
    "no-channel": no_channel,
    "auth-flood": auth_flood,
    "bad-keys": bad_keys,
    "chat": chat,
    "tables": tables,
}


# --- a run -------------------------------------------------------------------------------------
def _at_most(value: float, goal: float, shown: str, goal_shown: str) -> tuple[bool, str]:
    ok = value <= goal  # nan: not ok
    return ok, f"{shown.format(value)} {'≤' if ok else '>'} {goal_shown.format(goal)}"


@dataclass
class Phase:
    name: str
    start: float = 0.0
    end: float = 0.0
    rss_before: float = 0.0
    rss_peak: float = 0.0
    rss_after: float = 0.0
    log_bytes: int = 0
    server_cpu: float = 0.0
    found: str = ""
    p50_ms: float = float("nan")
    p99_ms: float = float("nan")
    keys: int = 0
    late: int = 0
    churn_5000_mb: float | None = None
    verdict: str = ""
    passed: bool = False

    def keys_per_s(self) -> float:
        return self.keys / max(self.end - self.start, 1e-9)

    def judge(self, base_rate: float) -> None:
        """PASS or FAIL against the goals; ``base_rate``: the baseline's keys a second (the
        players press fewer when their screens lag or disagree, which the p99 of the keys
        they did press does not show)."""
        grew = self.rss_peak - self.rss_before
        rate, least = self.keys_per_s(), HELD_UP * base_rate
        checks = [_at_most(grew, RSS_GOAL_MB, "RSS {:+.1f} MB", "{:.0f}"),
                  _at_most(self.p99_ms, P99_GOAL_MS, "p99 {:.0f} ms", "{:.0f}") if self.keys
                  else (False, "no key timed"),
                  (rate >= least, f"{rate:.1f} keys/s {'≥' if rate >= least else '<'} "
                   f"{HELD_UP:.0%} of the baseline's {base_rate:.1f}")]
        if self.churn_5000_mb is not None:
            checks.append(_at_most(self.churn_5000_mb, CHURN_GOAL_MB,
                                   f"{{:+.1f}} MB at {CHURN_GOAL_SESSIONS} sessions", "{:.0f}"))
        self.passed = all(ok for ok, _ in checks)
        self.verdict = ("PASS" if self.passed else "FAIL") + " (" + ", ".join(
            text for _, text in checks) + ")"


async def _run_phase(ctx: Ctx, name: str) -> Phase:
    server = ctx.server
    phase = Phase(name, rss_before=server.rss())
    log0, cpu0 = server.log_bytes(), server.cpu()
    sampler = PeakSampler(server)
    crowd = Crowd(server.port)
    phase.start = time.perf_counter()
    try:
        if name == "baseline":
            await asyncio.sleep(ctx.seconds)
            phase.found = "no attack"
        else:
            phase.found = await asyncio.wait_for(ATTACKS[name](ctx, crowd), 600)
            await asyncio.sleep(TAIL)  # what the server still has to digest, sessions open
    except TimeoutError:
        phase.found = "the attack did not end within 600 s"
    except REFUSED as exc:  # the server defending itself
        phase.found = f"the server stopped the attack: {_refusal(exc)}"
    finally:
        phase.end = time.perf_counter()
        await crowd.close()
    phase.rss_peak = sampler.stop()
    phase.server_cpu = (server.cpu() - cpu0) / max(phase.end - phase.start, 1e-9)
    await asyncio.sleep(SETTLE)
    phase.rss_after = server.rss()
    phase.rss_peak = max(phase.rss_peak, phase.rss_after)
    phase.log_bytes = server.log_bytes() - log0
    if name == "churn":
        phase.churn_5000_mb = churn_projection(ctx.rss_marks)
    if not server.alive():
        phase.found += f"; THE SERVER EXITED (status {server.proc.returncode})"
    return phase


def _key_figures(phases: list[Phase], keys: list[tuple[float, float]], late: list[float]) -> None:
    for p in phases:
        mine = [lat for t, lat in keys if p.start <= t < p.end]
        missed = sum(1 for t in late if p.start <= t < p.end)
        values = mine + [KEY_TIMEOUT] * missed
        p.keys, p.late = len(values), missed
        p.p50_ms, p.p99_ms = _pct(values, 0.5) * 1000, _pct(values, 0.99) * 1000
    base = phases[0]
    for p in phases:
        p.judge(base.keys / max(base.end - base.start, 1e-9))


def _print(p: Phase) -> None:
    print(f"{p.name:<12} RSS {p.rss_before:6.1f} → peak {p.rss_peak:6.1f} → after "
          f"{p.rss_after:6.1f} MB ({p.rss_peak - p.rss_before:+.1f}); keys p50 {p.p50_ms:5.1f} "
          f"ms p99 {p.p99_ms:6.1f} ms ({p.keys} keys, {p.late} late); log "
          f"{p.log_bytes / 1024:.1f} KB; server CPU {p.server_cpu * 100:.0f}% over "
          f"{p.end - p.start:.0f} s", flush=True)
    print(f"{'':12} {p.found}", flush=True)
    print(f"{'':12} {p.verdict}", flush=True)


async def _attack_all(ctx: Ctx, names: list[str]) -> list[Phase]:
    phases = []
    for name in ["baseline", *names]:
        phases.append(await _run_phase(ctx, name))
        print(f"  ({name} done: {phases[-1].found[:100]})", file=sys.stderr, flush=True)
        if not ctx.server.alive():
            break
    return phases


def run(names: list[str], seconds: float, churn_sessions: int) -> list[Phase]:
    data = Path(tempfile.mkdtemp(prefix="mj-hostile-"))
    server = start_server(data)
    mpc = mp.get_context("spawn")
    ready, out, stop = mpc.Queue(), mpc.Queue(), mpc.Event()
    players = mpc.Process(target=_players_main, args=(server.port, ready, stop, out))
    players.start()
    try:
        try:
            kind, detail = ready.get(timeout=180)
        except queue.Empty:
            raise RuntimeError("the players did not sit within 180 s") from None
        if kind == "error":
            raise RuntimeError(f"the players could not sit: {detail}")
        time.sleep(2.0)  # the first hand's buying round
        ctx = Ctx(server, seconds, churn_sessions)
        phases = asyncio.run(_attack_all(ctx, names))
        stop.set()
        try:
            result = out.get(timeout=60)
        except queue.Empty:
            raise RuntimeError("the players did not report") from None
        if "error" in result:
            raise RuntimeError(f"the players failed: {result['error']}")
        _key_figures(phases, [tuple(k) for k in result["keys"]], result["late"])
        if result["closed"]:
            phases[-1].found += f"; {result['closed']} of the 4 players were disconnected"
        return phases
    finally:
        stop.set()
        players.join(30)
        if players.is_alive():
            players.kill()
        server.stop()
        print(f"(server log: {server.log})", file=sys.stderr, flush=True)


def _positive(kind: Callable[[str], float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a number, got {text!r}") from None
        if not 0 < value < math.inf:
            raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
        return value

    return parse


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_hostile",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--attack", action="append", choices=sorted(ATTACKS), metavar="NAME",
                        help=f"run this attack only (repeatable): {', '.join(ATTACKS)}")
    parser.add_argument("--seconds", type=_positive(float), default=10.0,
                        help="seconds per attack (default 10)")
    parser.add_argument("--churn", type=_positive(int), default=500,
                        help="lobby sessions opened and closed by the churn attack (default "
                        "500; 5000 measures the goal's figure itself)")
    parser.add_argument("--json", action="store_true", help="the figures as JSON")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv if argv is not None else [])
    names = args.attack or list(ATTACKS)
    if not args.json:
        print(f"{os.cpu_count()} CPUs; load {os.getloadavg()[0]:.1f}; {args.seconds:g} s per "
              f"attack; 4 players at one table (a key every 0.5 s) from {PLAYERS}, one "
              f"attacker from {ATTACKER}; goals: RSS +{RSS_GOAL_MB:.0f} MB, p99 "
              f"{P99_GOAL_MS:.0f} ms", flush=True)
    phases = run(names, args.seconds, args.churn)
    if args.json:
        print(json.dumps([asdict(p) for p in phases], ensure_ascii=False, indent=2))
    else:
        for p in phases:
            _print(p)
        failed = [p.name for p in phases if not p.passed]
        print(f"{len(phases) - len(failed)} of {len(phases)} PASS"
              + (f"; FAIL: {', '.join(failed)}" if failed else ""), flush=True)
    return 0 if all(p.passed for p in phases) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
