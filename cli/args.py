"""The command line's argument values: argparse types and ``--option`` pairs, each refused with
a message naming what was wrong (argparse adds the option's name)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from engine.bots import LEVELS
from engine.rulesets import OptionError, parse_option_pairs


def table_options(pairs: list[str] | None) -> dict[str, Any]:
    """``--option key=value`` → {key: value} (the engine's one parser; the ruleset checks the
    values): whole numbers, on/off words, unlimited words."""
    try:
        return parse_option_pairs(pairs or [])
    except OptionError as exc:
        raise SystemExit(str(exc)) from None


def whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` (argparse names the option)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"a whole number, got {text!r}") from None
        if value < low or (high is not None and value > high):
            limits = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {limits}, got {value}")
        return value

    return parse


port = whole(0, 65535)  # 0: any free port
positive = whole(1)


def play_levels(text: str) -> tuple[str, str, str]:
    """``play --bots``: one computer level for the three seats, or one each for S, W, N."""
    levels = [w.strip().lower() for w in text.split(",")]
    if len(levels) == 1:
        levels *= 3
    if len(levels) != 3:
        raise argparse.ArgumentTypeError(
            f"one level, or three (for S,W,N; you sit at E), got {len(levels)}: {text!r}")
    for level in levels:
        if level not in LEVELS:
            raise argparse.ArgumentTypeError(
                f"unknown level {level!r} (one of: {', '.join(LEVELS)})")
    return levels[0], levels[1], levels[2]


def seconds(text: str) -> float:
    """A duration in seconds, not negative."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of seconds, got {text!r}") from None
    if not value >= 0 or value == float("inf"):  # also refuses nan
        raise argparse.ArgumentTypeError(f"seconds must be 0 or more, got {text}")
    return value


def share(text: str) -> float:
    """A share of a CPU: a number above 0, at most 64 (cores)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number, got {text!r}") from None
    if not 0 < value <= 64:  # also refuses nan
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 64, got {text}")
    return value


def seat_levels(text: str) -> list[str]:
    """``simulate --seats``: a computer level for each of the four seats E, S, W, N."""
    levels = [x.strip() for x in text.split(",")]
    if len(levels) != 4 or any(x not in LEVELS for x in levels):
        raise argparse.ArgumentTypeError(
            f"four levels separated by commas, each one of {', '.join(LEVELS)}: got {text!r}")
    return levels
