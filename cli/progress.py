"""A progress bar on stderr for the commands that play or re-run many hands: hands done, hands
a second and the time left, drawn by Rich (installed with Textual).

There is no bar when stderr is not a terminal (a pipe, a log, a CI job) or with ``--quiet``:
the command's output on stdout is the same with or without it. Rich is imported only when a bar
is drawn, so the offline commands still start light.

Worker processes (``--jobs``) cannot reach the parent's bar: they add each hand they finish to
a shared count (:func:`shared_count`, :func:`count_in_worker`, :func:`count_hand`), and the
parent reads it while it waits for their results (:meth:`HandProgress.in_order`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, TextIO, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future
    from multiprocessing.sharedctypes import Synchronized

    from rich.console import Console
    from rich.progress import Progress, ProgressColumn, Task, TaskID

T = TypeVar("T")

POLL_SECONDS = 0.1  # how often the parent reads the workers' count while it waits


def wanted(quiet: bool = False, stream: TextIO | None = None) -> bool:
    """Whether a bar belongs on ``stream`` (stderr by default): a terminal, and not ``quiet``."""
    if quiet:
        return False
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


class HandProgress:
    """Counts hands toward ``total`` and, when enabled, draws them as a bar on stderr (or on
    ``console``, a Rich console the caller made: the tests give one with ``force_terminal``).
    Disabled, every method does nothing, so a command calls them unconditionally."""

    def __init__(self, total: int, label: str, *, unit: str = "hands", quiet: bool = False,
                 console: Console | None = None) -> None:
        self.total = total
        self.label = label
        self.unit = unit
        self.enabled = not quiet and (console is not None or wanted())
        self.done = 0
        self._console = console
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> HandProgress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            console = self._console or Console(file=sys.stderr)
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TaskProgressColumn(),
                _rate_column(self.unit),
                TimeElapsedColumn(),
                TextColumn("·"),
                TimeRemainingColumn(),
                TextColumn("left"),
                console=console,
                transient=True,  # the command's own output follows, not a finished bar
                speed_estimate_period=60.0,
                refresh_per_second=4,  # enough for a bar that moves by the second
            )
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=self.total)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def advance(self, n: int = 1) -> None:
        """``n`` more hands are done."""
        self.set(self.done + n)

    def set(self, done: int) -> None:
        """``done`` hands are done in all (a count read from the workers)."""
        self.done = done
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=done)

    def in_order(self, futures: Sequence[Future[T]],
                 count: Synchronized[int] | None = None) -> Iterator[T]:
        """The futures' results in order, as each is ready (its exception raised, as
        ``Executor.map`` does); while it waits the bar follows ``count``, the workers'
        shared count of hands done."""
        for future in futures:
            while self.enabled and count is not None:
                try:
                    future.result(timeout=POLL_SECONDS)
                    break
                except TimeoutError:
                    self.set(count.value)
            if count is not None:
                self.set(count.value)
            yield future.result()


def _rate_column(unit: str) -> ProgressColumn:
    """A column of hands a second (Rich's estimate over the last minute), worked out when the
    bar is drawn (ten times a second), not at every hand."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.1f} {unit}/s" if speed else f"… {unit}/s")

    return RateColumn()


def shared_count(wanted: bool) -> Synchronized[int] | None:
    """A count of hands that worker processes add to (:func:`count_hand`), or None when no bar
    reads it."""
    if not wanted:
        return None
    import multiprocessing  # here: only --jobs loads multiprocessing

    return multiprocessing.Value("q", 0)


_worker_count: Synchronized[int] | None = None


def count_in_worker(count: Synchronized[int] | None) -> None:
    """A worker process's initializer: the shared count its :func:`count_hand` adds to."""
    global _worker_count
    _worker_count = count


def count_hand(n: int = 1) -> None:
    """In a worker process: ``n`` more hands done (nothing if no bar is drawn)."""
    count = _worker_count
    if count is not None:
        with count.get_lock():
            count.value += n

