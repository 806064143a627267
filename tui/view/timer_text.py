"""What the turn timer shows (bar cells, seconds, low colour) and when that next changes, so
the screen redraws the timer exactly when its text would differ and never on a fixed tick."""

from __future__ import annotations

from host.client import TableUpdate

TIMER_BAR = 10


def timer_state(update: TableUpdate, now: float) -> tuple[int, int, bool] | None:
    """(full cells of the bar, seconds shown, low) of the timer, or None."""
    if update.deadline is None or update.timer_seconds <= 0:
        return None
    left = max(0.0, update.deadline - now)
    frac = min(1.0, left / update.timer_seconds)
    return round(frac * TIMER_BAR), int(left + 0.999), frac < 0.3


def next_timer_change(update: TableUpdate, now: float) -> float | None:
    """The ``time.monotonic()`` after ``now`` at which :func:`timer_state` next changes (a
    second shown, a cell of the bar, the low colour), or None when the timer is off or ran
    out."""
    if update.deadline is None or update.timer_seconds <= 0:
        return None
    left = update.deadline - now
    if left <= 0:
        return None
    total = update.timer_seconds
    state = timer_state(update, now)
    assert state is not None
    full, secs, low = state
    # the largest ``left`` below the current one at which each part differs
    marks = [secs - 0.999]  # int(left + 0.999) drops below secs
    if full > 0:
        marks.append((full - 0.5) * total / TIMER_BAR)  # round(frac * TIMER_BAR) drops
    if not low:
        marks.append(0.3 * total)  # frac < 0.3
    below = [m for m in marks if m < left]
    mark = max(below) if below else 0.0
    return update.deadline - max(0.0, mark) + 0.002
