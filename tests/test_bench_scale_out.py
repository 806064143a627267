"""The scale-out benchmark's own parts (``bench/scale_out.py`` and the core settings of
``bench/bench_server.py``), checked without a server: the cores each side gets, the refusal on
too few, and the search for the most tables held."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import Any

import pytest

from bench import bench_server, scale_out


def test_core_lists_read_and_write_as_taskset_does() -> None:
    assert bench_server.cpu_list("0-8") == set(range(9))
    assert bench_server.cpu_list("0,2,9-11") == {0, 2, 9, 10, 11}
    assert scale_out._cpus_text([0, 1, 2, 3, 4, 5, 6, 7, 8]) == "0-8"
    assert scale_out._cpus_text([0, 2, 9, 10, 11]) == "0,2,9-11"


def test_fewer_cores_than_needed_is_refused_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    for name in ("MJ_BENCH_WARMUP", "MJ_BENCH_STAGGER", "MJ_BENCH_SECONDS"):
        monkeypatch.setenv(name, "5")  # main sets them when not given: kept to this test
    assert scale_out.main(["--json", os.devnull]) == 2
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "needs 16 cores" in out and "gives 2" in out


def test_sixteen_cores_split_nine_for_the_server_and_seven_for_the_clients(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    monkeypatch.delenv("MJ_BENCH_SERVER_CPUS", raising=False)
    monkeypatch.delenv("MJ_BENCH_CLIENT_CPUS", raising=False)
    args = scale_out._arguments([])
    assert scale_out._plan(args) == (list(range(9)), list(range(9, 16)))
    monkeypatch.setenv("MJ_BENCH_SERVER_CPUS", "0-7")
    monkeypatch.setenv("MJ_BENCH_CLIENT_CPUS", "7-15")  # overlapping: refused
    assert isinstance(scale_out._plan(args), str)
    monkeypatch.setenv("MJ_BENCH_CLIENT_CPUS", "8-15")
    assert scale_out._plan(args) == (list(range(8)), list(range(8, 16)))


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores")
def test_what_starts_on_the_servers_cores_keeps_them_and_the_caller_gets_its_own_back() -> None:
    mine = os.sched_getaffinity(0)
    one = min(mine)
    with bench_server._on_cpus({one}):
        child = subprocess.run(
            [sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
            capture_output=True, text=True, check=True)
    assert child.stdout.strip() == f"[{one}]"
    assert os.sched_getaffinity(0) == mine


def _search(monkeypatch: pytest.MonkeyPatch, limit: int, argv: list[str]
            ) -> tuple[scale_out.Count, list[int]]:
    """A search against a made-up server that holds ``limit`` tables at most."""
    args = scale_out._arguments(argv)
    args.clients = 2
    search = scale_out.Search(args, seconds=10, warmup=5)
    tried: list[int] = []

    def probe(workers: int, tables: int) -> dict[str, Any]:
        tried.append(tables)
        return {"tables": tables, "p99_all_ms": 30.0 if tables <= limit else 80.0}

    monkeypatch.setattr(search, "probe", probe)
    found = scale_out.Count(1)
    search.count(found, args.guess, 1)
    return found, tried


def test_the_search_steps_up_then_halves_the_gap(monkeypatch: pytest.MonkeyPatch) -> None:
    found, tried = _search(monkeypatch, 63, [])
    assert tried == [50, 65, 60]  # ×1.3 up, then halving while the gap is over a tenth
    assert found.tables == 60 and found.missed is not None and found.missed["tables"] == 65


def test_the_search_steps_down_from_a_guess_too_high(monkeypatch: pytest.MonkeyPatch) -> None:
    found, tried = _search(monkeypatch, 20, [])
    assert tried == [50, 35, 25, 15] and found.tables == 15  # ÷1.3 down, 4 probes at most


def test_the_dry_run_probes_five_tables_first_and_twice_at_most(
        monkeypatch: pytest.MonkeyPatch) -> None:
    found, tried = _search(monkeypatch, 5, ["--dry-run"])
    assert tried == [5, 7] and found.tables == 5


def test_a_probe_that_would_end_past_the_budget_is_not_started(
        monkeypatch: pytest.MonkeyPatch) -> None:
    found, tried = _search(monkeypatch, 63, ["--budget", "20"])  # less than one probe's play
    assert tried == [] and found.held is None


def test_the_report_gives_the_ratios_against_one_worker_and_the_goals(
        capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(p99=50.0, clients=14)
    run = {"p50_ms": 8.0, "p99_ms": 40.0, "server_ms_per_key": 6.0, "server_cpu": 0.6,
           "client_cpu": 0.2, "client_cpu_max": 0.05}
    counts = [scale_out.Count(1, [run], {**run, "tables": 50}),
              scale_out.Count(2, [run], {**run, "tables": 85, "server_ms_per_key": 6.6}),
              scale_out.Count(8, [], None)]
    search = scale_out.Search(argparse.Namespace(budget=600), seconds=10, warmup=5)
    result = scale_out._report(counts, (list(range(9)), list(range(9, 16))), args, search,
                               {"seconds": 10.0, "warmup": 5.0})
    out = capsys.readouterr().out
    assert "| 2 | 85 | 8.0 / 40.0 ms | 6.60 ms |" in out
    assert "2 workers: ×1.70 the tables of one (goal ≥ 1.6: met), ×1.10 the server CPU" in out
    assert "8 workers: not measured" in out
    assert result["ratios"]["2"] == {"tables": 1.7, "goal": 1.6, "met": True,
                                     "server_ms_per_key": 1.1}
