"""Helpers for the scoring tests: the ``score`` sub-command run in-process, and a win as the
calculator's JSON input spells it."""

from __future__ import annotations

import argparse
import io
from typing import Any

import pytest

from cli import score as score_cmd


def run(argv: list[str], stdin: str = "", monkeypatch: pytest.MonkeyPatch | None = None
        ) -> tuple[int, str, str]:
    """``mahjong-ssh score ARGV`` with ``stdin``: its exit status, output and errors."""
    parser = argparse.ArgumentParser()
    score_cmd.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["score", *argv])
    if monkeypatch is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    out, err = io.StringIO(), io.StringIO()
    code = args.func(args, out, err)
    return code, out.getvalue(), err.getvalue()


def win(seat: str, hand: str, tile: str, how: str = "self_draw", frm: str | None = None,
        melds: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    """One entry of a situation's ``wins``."""
    out: dict[str, Any] = {"seat": seat, "hand": hand, "tile": tile, "how": how}
    if frm is not None:
        out["from"] = frm
    if melds:
        out["melds"] = melds
    out.update(extra)
    return out
