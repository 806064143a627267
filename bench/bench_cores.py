"""Does a process's CPU time for a fixed piece of work grow when the machine's other core is
busy too? On a virtual machine whose two CPUs are hyperthreads of one physical core, or are
shared with other guests, it does, and then "server CPU per key" over two workers (bench_server
with MJ_BENCH_SERVER_WORKERS=2) is inflated by the machine, not by the distributed path.

The work: a fixed pure-Python loop (arithmetic, a dict, sorting; no I/O) in a child process
that reports its own CPU time. One child alone, then two at once, alternating,
ROUNDS times; medians and the ratio. Run it on an idle machine:
``.venv/bin/python -m bench cores``.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

ROUNDS = 5
WORK = """
import time
t = time.process_time()
seen = {}
for i in range(ROUNDS_OF_WORK * 100_000):  # the interpreter's own work: arithmetic, dicts, lists
    k = (i * 7919) % 10_007
    seen[k] = seen.get(k, 0) + 1
    if not i % 1000:
        sorted(seen.values())[:3]
print(time.process_time() - t)
"""


def _child(rounds_of_work: int) -> subprocess.Popen[str]:
    code = WORK.replace("ROUNDS_OF_WORK", str(rounds_of_work))
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


def _cpu(procs: list[subprocess.Popen[str]]) -> list[float]:
    out = []
    for p in procs:
        stdout, _ = p.communicate()
        if p.returncode != 0:
            raise SystemExit(f"the work failed (exit {p.returncode})")
        out.append(float(stdout.strip()))
    return out


def main() -> None:
    work = 3
    start = time.perf_counter()
    _cpu([_child(work)])  # warm the files' caches, and size the work to about a second
    took = time.perf_counter() - start
    work = max(1, round(work * 1.5 / max(took, 0.05)))
    alone: list[float] = []
    together: list[float] = []
    for _ in range(ROUNDS):
        alone += _cpu([_child(work)])
        together += _cpu([_child(work), _child(work)])
    a, b = statistics.median(alone), statistics.median(together)
    print(f"the same work's CPU time, median of {ROUNDS} rounds (alternating):")
    print(f"  one process alone:     {a:.3f} s")
    print(f"  two processes at once: {b:.3f} s each")
    print(f"  ratio:                 x{b / a:.2f}  (x1.00: the two cores are independent)")


if __name__ == "__main__":
    main()
