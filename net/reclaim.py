"""What a closed session leaves behind is given back: called once when each session ends."""

from __future__ import annotations


def session_ended() -> None:
    """A session (lobby or table app) has ended and its driver is closed."""
