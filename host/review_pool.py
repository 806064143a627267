"""The process the review's assessments run in: one worker, at a lower priority.

An assessment is 50–400 ms of CPU (``engine.review.assess``): run on the event loop, or in a
thread of it (the GIL), it would stall every screen of the process. The worker is started
with ``spawn`` (not ``fork``: the parent may be a server with threads and open connections)
and lowers its own priority first (``os.nice(10)``), so that a review gives way to the play.
This module imports nothing heavy: the worker imports it to run its initializer.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import resource_tracker
from typing import Final

NICENESS: Final = 10


def lower_priority() -> None:
    """The worker's initializer: ``os.nice(10)`` (where the system has it). Ctrl-C in the
    terminal is for the parent, which ends the worker as it stops (the worker would only print
    a traceback); the worker also ends by itself when its parent is gone."""
    with contextlib.suppress(AttributeError, OSError):
        os.nice(NICENESS)
    with contextlib.suppress(ValueError, OSError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def niced_pool() -> ProcessPoolExecutor:
    """A pool of one worker process for assessments, its priority lowered (the process starts
    with the first assessment)."""
    _tracker_running()
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=lower_priority)


def _tracker_running() -> None:
    """Start multiprocessing's resource tracker with the real stderr: it hands its process
    ``sys.stderr.fileno()``, and in a Textual app ``sys.stderr`` is the app's capture, whose
    ``fileno()`` is -1 (the pool's first lock then failed: "bad value(s) in fds_to_keep")."""
    real = sys.__stderr__
    saved = sys.stderr
    try:
        if real is not None:
            sys.stderr = real
        resource_tracker.ensure_running()
    finally:
        sys.stderr = saved
