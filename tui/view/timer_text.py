"""What the turn timer shows (bar cells, seconds, low colour, the time bank left) and when that
next changes, so the screen redraws the timer exactly when its text would differ and never on
a fixed tick.

A table with a time bank (the option ``time_bank``) runs a decision's own time, then the seat's
bank: the update's deadline includes the bank (``bank_seconds``, its last part). The bar shows
the own time running down, then the bank (in the low colour); the text says both ("5s + bank
12s", or "5+12s" where the status line is short).
"""

from __future__ import annotations

from host.client import TableUpdate

TIMER_BAR = 10


def _parts(update: TableUpdate, now: float) -> tuple[float, float]:
    """(own time left, bank left) of the timer at ``now``."""
    assert update.deadline is not None
    left = max(0.0, update.deadline - now)
    bank = max(0.0, update.bank_seconds)
    return max(0.0, left - bank), min(left, bank)


def timer_state(update: TableUpdate, now: float) -> tuple[int, int, bool] | None:
    """(full cells of the bar, seconds shown, low) of the timer, or None. Once the own time
    has run out and a bank is left, the bar shows the bank running down, always low."""
    if update.deadline is None or update.timer_seconds <= 0:
        return None
    own, bank = _parts(update, now)
    if own <= 0 and bank > 0:
        return round(min(1.0, bank / update.bank_seconds) * TIMER_BAR), 0, True
    frac = min(1.0, own / update.timer_seconds)
    return round(frac * TIMER_BAR), int(own + 0.999), frac < 0.3


def bank_shown(update: TableUpdate, now: float) -> int | None:
    """The whole seconds of the time bank the timer shows (None: the timer has no bank)."""
    if update.deadline is None or update.timer_seconds <= 0 or update.bank_seconds <= 0:
        return None
    return int(_parts(update, now)[1] + 0.999)


def next_timer_change(update: TableUpdate, now: float) -> float | None:
    """The ``time.monotonic()`` after ``now`` at which :func:`timer_state` or
    :func:`bank_shown` next changes (a second shown, a cell of the bar, the low colour), or
    None when the timer is off or ran out."""
    if update.deadline is None or update.timer_seconds <= 0:
        return None
    left = update.deadline - now
    if left <= 0:
        return None
    total, bank = update.timer_seconds, max(0.0, update.bank_seconds)
    own, in_bank = _parts(update, now)
    # the largest ``left`` below the current one at which each part differs
    marks = [bank]  # the own time ends: the bank starts to run
    if own > 0:
        secs = int(own + 0.999)
        full = round(min(1.0, own / total) * TIMER_BAR)
        marks.append(bank + secs - 0.999)  # int(own + 0.999) drops below secs
        if full > 0:
            marks.append(bank + (full - 0.5) * total / TIMER_BAR)  # round(frac * TIMER_BAR)
        marks.append(bank + 0.3 * total)  # frac < 0.3
    elif bank > 0:
        secs = int(in_bank + 0.999)
        full = round(min(1.0, in_bank / bank) * TIMER_BAR)
        marks.append(secs - 0.999)
        if full > 0:
            marks.append((full - 0.5) * bank / TIMER_BAR)
    below = [m for m in marks if m < left]
    mark = max(below) if below else 0.0
    return update.deadline - max(0.0, mark) + 0.002
