"""A server's processes as the kernel counts them (``/proc``), for the benchmarks: the CPU of
a whole process tree (a supervisor, its workers, the NATS server it started, a PostgreSQL), its
memory, and the sockets listening on a port.

A tree's CPU is the sum, over its live processes, of each one's own time and of its children's
that it waited for (``cutime``/``cstime``): a process that ended and was reaped inside the tree
still counts, so the difference of two samples is the CPU the tree used between them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

_TCK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Proc:
    """One process: its parent, its name (``comm``), its command line, and its CPU seconds
    (user and system, each with its reaped children's)."""

    pid: int
    ppid: int
    comm: str
    cmdline: tuple[str, ...]
    user: float
    system: float

    @property
    def cpu(self) -> float:
        return self.user + self.system


def _read(pid: int) -> Proc | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # ended meanwhile
        return None
    head, _, rest = stat.rpartition(")")
    comm = head.partition("(")[2]
    fields = rest.split()
    # after the name: state ppid ... utime(11) stime(12) cutime(13) cstime(14)
    utime, stime, cutime, cstime = (int(f) for f in fields[11:15])
    return Proc(pid, int(fields[1]), comm, tuple(a.decode(errors="replace")
                                                 for a in raw.split(b"\0") if a),
                (utime + cutime) / _TCK, (stime + cstime) / _TCK)


def all_procs() -> dict[int, Proc]:
    procs = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            p = _read(int(entry))
            if p is not None:
                procs[p.pid] = p
    return procs


def tree(*roots: int) -> dict[int, Proc]:
    """The live processes of the trees under ``roots`` (the roots included)."""
    procs = all_procs()
    children: dict[int, list[int]] = {}
    for p in procs.values():
        children.setdefault(p.ppid, []).append(p.pid)
    found: dict[int, Proc] = {}
    todo = [r for r in roots if r in procs]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found[pid] = procs[pid]
            todo.extend(children.get(pid, ()))
    return found


def role(p: Proc) -> str:
    """What a server's process is: ``nats``, ``postgres``, ``worker`` (``--worker K`` on its
    command line), ``think`` (a process of the expert players' pool, or its resource tracker:
    ``multiprocessing`` on its command line) or ``server`` (the process the benchmark started,
    or anything else)."""
    if "nats" in p.comm:
        return "nats"
    if p.comm.startswith("postgres") or (p.cmdline and p.cmdline[0].endswith("postgres")):
        return "postgres"
    if "--worker" in p.cmdline:
        return "worker"
    if any("multiprocessing" in arg for arg in p.cmdline):  # the thinking pool's (host.thinking)
        return "think"
    return "server"


def cpu_by_role(before: dict[int, Proc], after: dict[int, Proc]) -> dict[str, float]:
    """CPU seconds used between two samples of a tree, by role (``role``). A process seen
    only in the second sample counts from zero (it started in between); one that ended in
    between is in its parent's children's time, all of it, so what it had used before the first
    sample is taken off there."""
    used: dict[str, float] = {}
    for pid, p in after.items():
        was = before.get(pid)
        base = was.cpu if was is not None and was.comm == p.comm else 0.0
        used[role(p)] = used.get(role(p), 0.0) + p.cpu - base
    for pid, p in before.items():
        parent = after.get(p.ppid)
        if pid not in after and parent is not None:
            used[role(parent)] = used.get(role(parent), 0.0) - p.cpu
    return used


def system_seconds(before: dict[int, Proc], after: dict[int, Proc]) -> float:
    """The kernel's part of the CPU used between two samples of a tree."""
    return sum(p.system - (before[pid].system if pid in before else 0.0)
               for pid, p in after.items())


def rss_mib(procs: dict[int, Proc]) -> float:
    """The resident memory of these processes, summed (pages shared between them, such as
    PostgreSQL's buffers, counted in each)."""
    total = 0
    for pid in procs:
        try:
            m = re.search(r"VmRSS:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
        except OSError:
            continue
        total += int(m.group(1)) if m else 0
    return total / 1024


def listeners(port: int) -> int:
    """How many sockets listen on TCP ``port`` (with ``SO_REUSEPORT``, one per worker)."""
    n = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                n += 1
    return n
