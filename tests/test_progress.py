"""Long commands show a progress bar on a terminal's stderr, and nothing else changes: none
when stderr is not a terminal or with ``--quiet``, the same bytes on stdout either way; with
``--jobs`` the bar counts the whole run. And ``simulate``'s histogram of points per hand."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from cli import histogram, progress, simulate
from cli.main import main
from engine.simulate import SimulationReport


class TerminalErr(io.StringIO):
    """A stderr that says it is a terminal (Rich then draws its bar into it)."""

    def isatty(self) -> bool:
        return True


def _run(argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
         terminal: bool) -> tuple[str, str]:
    """``main(argv)``'s stdout, and what it wrote on a stderr that is a terminal or not; the
    clock stands still, so that the timings in ``--json`` are the same from run to run."""
    monkeypatch.setattr(simulate, "time", SimpleNamespace(perf_counter=lambda: 100.0))
    err = TerminalErr() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert main(argv) == 0
    out = capsys.readouterr().out
    return out, err.getvalue()


@pytest.mark.parametrize("extra", [[], ["--jobs", "2"]], ids=["one-process", "jobs"])
def test_json_is_the_same_bytes_with_a_bar_without_and_quiet(
        extra: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--rules", "gejiu", "--hands", "6", "--seed", "4", "--fast", "--json",
            *extra]
    plain, plain_err = _run(argv, monkeypatch, capsys, terminal=False)
    barred, bar = _run(argv, monkeypatch, capsys, terminal=True)
    quiet, quiet_err = _run([*argv, "--quiet"], monkeypatch, capsys, terminal=True)
    assert barred == plain == quiet
    assert json.loads(plain)["hands"] == 6 and "\x1b" not in plain
    assert plain_err == "" and quiet_err == ""  # not a terminal, or --quiet: no bar
    assert "simulate gejiu" in bar and "hands/s" in bar and "/6" in bar


def test_text_output_is_the_same_with_a_bar(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--rules", "yichun", "--hands", "5", "--seed", "2", "--fast"]
    plain, _ = _run(argv, monkeypatch, capsys, terminal=False)
    barred, bar = _run(argv, monkeypatch, capsys, terminal=True)
    assert barred == plain and "hands/s" in bar
    assert "points per hand, share of each level's seat-hands" in plain


def test_record_and_replay_show_a_bar_and_write_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["record", "--rules", "gejiu", "--seed", "3", "--hands", "3"]
    plain, _ = _run(argv, monkeypatch, capsys, terminal=False)
    barred, bar = _run(argv, monkeypatch, capsys, terminal=True)
    assert barred == plain and "record gejiu" in bar and "/3" in bar
    path = tmp_path / "game.jsonl"
    path.write_text(plain, encoding="utf-8")
    replayed, _ = _run(["replay", str(path)], monkeypatch, capsys, terminal=False)
    replayed_bar, bar = _run(["replay", str(path)], monkeypatch, capsys, terminal=True)
    assert replayed_bar == replayed and replayed.count("check: final state") == 3
    assert "replay" in bar and "/3" in bar
    _, quiet = _run(["replay", "--quiet", str(path)], monkeypatch, capsys, terminal=True)
    assert quiet == ""


def _on_a_pty(argv: list[str]) -> tuple[bytes, bytes]:
    """The command run with stderr on a pseudo-terminal and stdout on a pipe: (stdout, what
    the terminal received)."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm-256color"}
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", *argv], stdout=subprocess.PIPE,
                            stderr=slave, stdin=subprocess.DEVNULL, env=env,
                            cwd=Path(__file__).resolve().parent.parent)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal (EIO)
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    out = proc.stdout.read() if proc.stdout is not None else b""
    assert proc.wait(timeout=120) == 0
    return out, seen


def test_a_real_terminal_gets_the_bar_and_a_pipe_does_not() -> None:
    argv = ["simulate", "--rules", "gejiu", "--hands", "40", "--seed", "1", "--fast", "--json"]
    out, terminal = _on_a_pty(argv)
    assert json.loads(out)["hands"] == 40 and b"\x1b" not in out
    assert b"hands/s" in terminal and b"/40" in terminal
    out, terminal = _on_a_pty([*argv, "--quiet"])
    assert json.loads(out)["hands"] == 40 and terminal == b""
    piped = subprocess.run([sys.executable, "-m", "cli.main", *argv], capture_output=True,
                           cwd=Path(__file__).resolve().parent.parent, check=True)
    assert piped.stderr == b""


def test_the_bar_follows_the_workers_count_while_it_waits() -> None:
    """``in_order`` gives the results in order and, while a result is not ready, reads the
    count the workers add to: the bar has the whole run's hands at the end."""
    console = Console(file=io.StringIO(), force_terminal=True, width=100)
    count = progress.shared_count(True)
    assert count is not None
    progress.count_in_worker(count)
    seen: list[int] = []

    def work(n: int) -> int:
        for _ in range(n):
            time.sleep(0.03)
            progress.count_hand()
        return n

    with progress.HandProgress(30, "test", console=console) as bar:
        original = bar.set

        def spy(done: int) -> None:
            seen.append(done)
            original(done)

        bar.set = spy  # type: ignore[method-assign]
        with ThreadPoolExecutor(2) as pool:
            results = list(bar.in_order([pool.submit(work, n) for n in (10, 15, 5)], count))
    progress.count_in_worker(None)
    assert results == [10, 15, 5]
    assert bar.done == 30 and seen[-1] == 30
    assert any(0 < v < 30 for v in seen)  # counted while it waited, not only at the end
    assert seen == sorted(seen)


def test_disabled_progress_does_nothing() -> None:
    bar = progress.HandProgress(10, "x", quiet=True, console=Console(file=io.StringIO(),
                                                                     force_terminal=True))
    assert not bar.enabled
    with bar:
        bar.advance(3)
    assert bar.done == 3
    assert progress.shared_count(False) is None
    assert not progress.wanted(stream=io.StringIO())
    assert not progress.wanted(quiet=True, stream=TerminalErr())
    assert progress.wanted(stream=TerminalErr())


def test_bins_widen_away_from_zero() -> None:
    bins = histogram.make_bins([0, -1, 3, 7, 12, 12, -30])
    assert [b.label() for b in bins] == ["-49 … -20", "-1", "0", "+2 … +4", "+5 … +9",
                                         "+10 … +19"]
    assert histogram.magnitudes((1, 2, 5), 60) == [1, 2, 5, 10, 20, 50, 100]
    # a wide spread is binned coarser so that the histogram stays short
    wide = histogram.make_bins([*range(-5000, 5001)])
    assert len(wide) == 9 <= histogram.MAX_ROWS
    assert wide[0].label() == "-9999 … -1000" and wide[-1].label() == "+1000 … +9999"


def test_bars_in_eighths() -> None:
    assert histogram.bar(0.5, 1.0, 12) == "██████"
    assert histogram.bar(1.0, 1.0, 4) == "████"
    assert histogram.bar(0.25 + 1 / 32, 1.0, 4) == "█▏"  # 9 of 32 eighths: a cell and 1/8
    assert histogram.bar(0.001, 1.0, 12) == "▏"  # something shows
    assert histogram.bar(0.0, 1.0) == ""
    assert histogram.percent(0.0001) == " <0.1%" and histogram.percent(0.5) == " 50.0%"


def test_histogram_of_known_groups() -> None:
    lines = histogram.histogram_lines({"easy x2": [0, 0, -2, 6], "hard x2": [6, 6, 0, -1]},
                                      indent="")
    assert lines == [
        "         easy x2              hard x2",
        "-4 … -2   25.0% ██████          0.0%",
        "     -1    0.0%                25.0% ██████",
        "      0   50.0% ████████████   25.0% ██████",
        "+5 … +9   25.0% ██████         50.0% ████████████",
    ]


def test_histogram_per_level_follows_the_rotation() -> None:
    """Duplicate mode: play i seats the levels of rotation i % 4, so a seat's net in play i is
    booked to the level that sat there."""
    report = SimulationReport("gejiu", 1, hands=4, labels=("hard", "easy", "easy", "easy"),
                              duplicate=True)
    report.seat_hand_net = [[9, 0, 0, 0], [0, 9, 0, 0], [0, 0, 9, 0], [0, 0, 0, 9]]
    groups = histogram.level_points(report)
    assert groups == {"hard x1": [9, 9, 9, 9], "easy x3": [0] * 12}
    plain = SimulationReport("gejiu", 1, hands=1)
    plain.seat_hand_net = [[1], [2], [3], [-6]]
    assert histogram.level_points(plain) == {"all seats": [1, 2, 3, -6]}
