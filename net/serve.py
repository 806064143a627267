"""``mahjong-ssh serve``: the server put together — the store (SQLite in the data folder, or
PostgreSQL), the table runtime (:class:`~net.runtime.registry.Registry`), this worker's part in a
server of several when ``--nats`` is given (:class:`~net.cluster.node.Node`), and the SSH front
(:class:`~net.front.server.MahjongServer`) that reaches them only through what it is handed. Also
the process's settings (the collector, glibc's allocator) and, with ``--workers N``, the
supervisor (:mod:`net.supervisor`)."""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import ctypes
import ctypes.util
import gc
import logging
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from host.local import default_data_dir
from host.thinking import Budget, ThinkingPool
from net.front.hostfiles import AllowList, HostFile, HostFileError
from net.front.server import MahjongServer, ServerConfig, fingerprint_banner
from net.limits import Limits, load_limits_file, parse_limit_pairs
from net.logfmt import formatter
from net.runtime.registry import Registry
from net.store import StorageError, open_store

if TYPE_CHECKING:
    from net.lan import Announcer


def host_files(config: ServerConfig) -> tuple[HostFile[tuple[str, ...]] | None,
                                              HostFile[AllowList] | None,
                                              HostFile[AllowList] | None]:
    """``--motd``, ``--allow`` and ``--operators`` read: HostFileError, one line, for a
    damaged one."""
    return (HostFile.motd(config.motd_path) if config.motd_path is not None else None,
            HostFile.allow(config.allow_path) if config.allow_path is not None else None,
            HostFile.operators(config.operators_path) if config.operators_path is not None
            else None)


async def start_server(config: ServerConfig) -> MahjongServer:
    """The server's parts, made and started: listening once this returns."""
    # a damaged one stops the start before anything opens
    motd, allow, operators = host_files(config)
    data = Path(config.data_dir)
    data.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        os.chmod(data, 0o700)
    store = open_store(config.db_url or data / "mahjong.sqlite3")
    # a fresh pool for each start (a restarted server in a test reuses its config); its
    # processes start with the first table that has an expert player
    config.table.thinking = ThinkingPool(config.think_workers) if config.think_workers != 0 \
        else None
    registry = Registry(config.table, store, limits=config.limits)
    node = None
    if config.nats_url:
        # imported here: the one-process server does without the NATS client
        from net.cluster.node import Node

        node = Node(registry, store, config.nats_url)
    server = MahjongServer(config, store, registry, node, motd=motd, allow=allow,
                           operators=operators)
    try:
        await server.start()
    except BaseException:
        if node is not None:
            with contextlib.suppress(Exception):
                await node.stop()
        if config.table.thinking is not None:
            config.table.thinking.close()
        store.close()
        raise
    return server


async def announce(server: MahjongServer) -> Announcer | None:
    """``serve --lan``: the server announced on the local network (:mod:`net.lan`), or a
    warning saying why not (the server serves all the same)."""
    from net.lan import Announcer, LanError  # here: only --lan loads zeroconf

    assert server.host_key is not None
    try:
        announcer = Announcer(server.registry.listing, host=server.config.host,
                              port=server.port,
                              fingerprint=server.host_key.get_fingerprint("sha256"))
        await announcer.start()
    except (OSError, LanError) as exc:
        print(f"mahjong-ssh serve: --lan: not announced on the network: {exc}",
              file=sys.stderr, flush=True)
        return None
    print(announcer.note(), flush=True)
    return announcer


class Metrics:
    """``serve --metrics``: the sampler on the loop, the collector's pause timer and the HTTP
    server in its thread (:mod:`net.metrics`), stopped together."""

    def __init__(self, server: MahjongServer, host: str, port: int,
                 worker: str | None = None) -> None:
        from net import metrics  # here: only --metrics loads prometheus_client

        if worker is None:
            worker = str(server.config.worker) if server.config.worker is not None else (
                server.node.name if server.node is not None else "0")
        self.sampler = metrics.Sampler(metrics.snapshot_reader(server))
        self.sampler.start()
        self._unwatch = metrics.watch_collector()
        try:
            self.http = metrics.serve_metrics(host, port, metrics.Collector(self.sampler,
                                                                            worker))
        except BaseException:
            self.sampler.stop()
            self._unwatch()
            raise
        self.host = host
        self.worker = server.config.worker

    @property
    def port(self) -> int:
        return self.http.port

    def note(self) -> str:
        """The line ``serve`` prints: where the figures are (a worker's says which)."""
        shown = f"[{self.host}]" if ":" in self.host else self.host
        who = f"worker {self.worker} " if self.worker is not None else ""
        return f"{who}metrics: http://{shown}:{self.port}/metrics"

    def close(self) -> None:
        self.sampler.stop()
        self._unwatch()
        self.http.close()


def metrics_address(text: str | None, worker: int | None) -> tuple[str, int] | None:
    """``--metrics HOST:PORT`` for this process: worker K of ``--workers N`` serves on
    ``PORT + K - 1`` (each worker its own figures: see docs/operating.md); port 0 is any."""
    if not text:
        return None
    from net.metrics import parse_address

    host, port = parse_address(text)
    if port and worker is not None:
        port += worker - 1
        if port > 65535:
            raise ValueError(f"--metrics {text!r}: worker {worker}'s port {port} is past 65535")
    return host, port


async def serve(config: ServerConfig, ready: asyncio.Event | None = None,
                lan: bool = False, metrics: tuple[str, int] | None = None) -> None:
    server = await start_server(config)
    watching: Metrics | None = None
    if metrics is not None:
        try:
            watching = Metrics(server, *metrics)
        except OSError:
            await server.close()
            raise
        print(watching.note(), flush=True)
    handlers = logging.getLogger().handlers  # every line the process writes, through the
    for handler in handlers:  # server's budget (net.limits.LogGate), not the libraries' alone
        handler.addFilter(server.log_gate)
    gc.collect()
    gc.freeze()  # what start-up made lives as long as the process: no full collection rescans it
    if config.worker is not None:  # the supervisor prints the banner once for all
        print(f"worker {config.worker} ready", flush=True)
    else:
        print(fingerprint_banner(server), flush=True)
    announcer = await announce(server) if lan else None
    sweeping = asyncio.get_running_loop().create_task(sweep_when_idle(server))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    with contextlib.suppress(NotImplementedError, RuntimeError, AttributeError):
        # the host's files read again (systemd's reload); without them SIGHUP does nothing
        loop.add_signal_handler(signal.SIGHUP, server.reload_files)
    if ready is not None:
        ready.set()
    try:
        await stop.wait()
    finally:
        if announcer is not None:  # first: the finders hear it is gone
            await announcer.close()
        sweeping.cancel()
        if watching is not None:
            watching.close()
        await server.close()
        for handler in handlers:
            handler.removeFilter(server.log_gate)


# The collector's thresholds. A young collection's pause grows with what was made since the
# last one and is still alive, which the allocation count understates (a new row counts +1,
# the old one it replaces -1): young collections every 1_000 allocations and a middle one
# every 5 keep each pause short (docs/performance.md). A full collection of many sessions
# stops the loop for long, so it stays rare: one every 1_000 middle collections.
GC_THRESHOLDS = (1_000, 5, 1_000)


def _freeze_after(phase: str, info: dict[str, int]) -> None:
    if phase == "stop" and info["generation"] >= 1:
        gc.freeze()


def freeze_survivors() -> None:
    """What survives a middle collection is frozen at once, so no full collection scans it.

    A session's objects (its apps, screens, strips) outlive many collections, and a full one
    scans every object in the oldest generation: with 100 sessions that stopped the loop for
    200 ms (docs/performance.md). Frozen, they are still freed by reference counting when
    their session ends, and none of a session's objects is in a reference cycle
    (net.front.reclaim; tests/test_net_memory.py), nor of a closed screen's or a restyled
    widget's (tui.compat.app_release, tui.compat.component_nodes), so freezing keeps only
    what a full collection would have freed of cycles made elsewhere: none at 25 tables after
    25 s of play (``MJ_BENCH_FULLGC=15 python -m bench server``), and what there is is given
    back when the server next has no session (:func:`sweep_when_idle`)."""
    if _freeze_after not in gc.callbacks:
        gc.callbacks.append(_freeze_after)


def sweep_frozen() -> int:
    """Collect the frozen objects too (a full collection of everything): for when no session
    waits on the loop. Returns the objects freed."""
    gc.unfreeze()
    try:
        return gc.collect()
    finally:
        gc.freeze()


SWEEP_EVERY = 60.0  # seconds between two looks for a server without sessions


async def sweep_when_idle(server: MahjongServer, every: float = SWEEP_EVERY) -> None:
    """The frozen objects collected once the server has had sessions and has none: the pause
    (a full collection, over 300 ms with 100 sessions) then stops nobody."""
    had = False
    while True:
        await asyncio.sleep(every)
        if server.sessions:
            had = True
        elif had:
            had = False
            sweep_frozen()


def main(args: argparse.Namespace) -> int:
    """Entry point of ``mahjong-ssh serve``."""
    try:  # one line an event, key=value or JSON (net.logfmt), naming whom it is about
        line_format = formatter(getattr(args, "log_format", None) or "text")
        metrics = metrics_address(getattr(args, "metrics", None), getattr(args, "worker", None))
    except ValueError as exc:
        print(f"mahjong-ssh serve: {exc}", file=sys.stderr)
        return 2
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(line_format)
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    gc.set_threshold(*GC_THRESHOLDS)
    freeze_survivors()
    fixed_mmap_threshold()
    config = ServerConfig(
        host=getattr(args, "host", None) or "127.0.0.1",
        port=2222 if getattr(args, "port", None) is None else int(args.port),
        data_dir=Path(args.data) if getattr(args, "data", None) else default_data_dir(),
        allow_anonymous=not getattr(args, "no_anonymous", False),
        nats_url=getattr(args, "nats", None),
        db_url=getattr(args, "db", None),
        worker=getattr(args, "worker", None),
        motd_path=Path(args.motd) if getattr(args, "motd", None) else None,
        allow_path=Path(args.allow) if getattr(args, "allow", None) else None,
        operators_path=Path(args.operators) if getattr(args, "operators", None) else None,
    )
    config.reuse_port = config.worker is not None or config.nats_url is not None
    config.think_workers = getattr(args, "think_workers", None)
    think_share = getattr(args, "think_share", None)
    if think_share is not None:
        config.table.think_budget = Budget(share=float(think_share))
    try:
        config.limits = limits_from_args(args)
    except ValueError as exc:
        print(f"mahjong-ssh serve: {exc}", file=sys.stderr)
        return 2
    for name, attr in (("grace", "grace_seconds"), ("bot_delay", "bot_delay")):
        value = getattr(args, name, None)
        if value is not None:
            setattr(config.table, attr, float(value))
    with contextlib.suppress(AttributeError, ValueError):  # a reload while starting: until
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # serve() reads the files again on it
    try:  # checked before anything starts (the workers read them again)
        host_files(config)
    except HostFileError as exc:
        print(f"mahjong-ssh serve: {exc}", file=sys.stderr)
        return 1
    if getattr(args, "workers", None) and config.worker is None:
        from net import supervisor  # here: only a supervisor needs it

        return supervisor.main(args, config)
    code = 0
    try:
        asyncio.run(serve(config, lan=bool(getattr(args, "lan", False)), metrics=metrics))
    except (StorageError, OSError, HostFileError) as exc:
        print(f"mahjong-ssh serve: {exc}", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        pass
    # Everything is saved and closed: leave without the interpreter's teardown, which with a
    # large heap is slow (every object freed one by one, and the frozen ones scanned). What was
    # registered to run at exit (the benchmark's probes, logging's flush) still runs.
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_functions is not None:
        run_exit_functions()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def fixed_mmap_threshold(threshold: int = 128 * 1024) -> bool:
    """glibc serves a large allocation from mmap, and gives it back when freed, only below a
    threshold that it raises each time such a block is freed: after a few passphrase hashes
    (16 MiB each, net/front/accounts.py) they would come from the heap and stay there, the RSS of a
    failed-login flood kept for good (docs/performance.md, auth-flood). Fixing it at its initial
    128 KiB keeps large blocks returnable. False where there is no glibc."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(M_MMAP_THRESHOLD, threshold))
    except (OSError, AttributeError):
        return False


M_MMAP_THRESHOLD = -3  # glibc's malloc.h


def limits_from_args(args: argparse.Namespace) -> Limits:
    """``serve --limits FILE`` (a TOML ``[limits]`` table), then ``--limit NAME=VALUE``
    words, then the older ``--max-per-address``: ValueError naming what is wrong."""
    limits = Limits()
    path = getattr(args, "limits", None)
    if path:
        limits = load_limits_file(path, limits)
    pairs = getattr(args, "limit", None)
    if pairs:
        limits = limits.with_values(parse_limit_pairs(pairs))
    per_address = getattr(args, "max_per_address", None)
    if per_address:
        limits = limits.with_values({"connections_per_address": per_address})
    return limits
