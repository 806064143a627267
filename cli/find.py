"""``mahjong-ssh find``: the servers announced on the local network (``serve --lan``), each
with its host key fingerprint and its tables, and the ``ssh`` line to type for each."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import TYPE_CHECKING, Any

from words import tr

if TYPE_CHECKING:
    from net.lan import FindResult, Found, LanTable

TIMEOUT_MAX = 60.0

def timeout_seconds(text: str) -> float:
    """``find --timeout``: seconds, from 0.5 to 60."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of seconds, got {text!r}") from None
    if not 0.5 <= value <= TIMEOUT_MAX:  # also refuses nan
        raise argparse.ArgumentTypeError(f"from 0.5 to {TIMEOUT_MAX:g} seconds, got {text}")
    return value


def ssh_line(found: Found, command: str = "", table: str = "") -> str:
    """What to type to reach ``found`` (its lobby, or ``command`` TABLE)."""
    from net.sanitize import valid_table_name  # here: the offline commands load no net

    words = ["ssh", "-t", "-p", str(found.port), found.address]
    line = " ".join(shlex.quote(w) for w in words)
    if command:  # a table name (letters, digits, - and _) needs no quotes in a shell
        line += f" {command} {table if valid_table_name(table) else shlex.quote(table)}"
    return line


def table_lines(found: Found, table: LanTable, lang: str) -> list[str]:
    state = table.state.value
    players = tr(lang, "find_players", n=table.players)
    if state == "waiting":
        what = tr(lang, "find_waiting", free=table.free, players=players)
    elif state == "game over":
        what = tr(lang, "find_over")
    else:
        what = tr(lang, "find_playing", hand=table.hand, hands=table.hands, players=players)
    if table.watchers:
        what += tr(lang, "find_watchers", n=table.watchers)
    if table.stakes:
        what += tr(lang, "find_stakes")
    shown_state = tr(lang, f"find_st_{state}")
    command = "join" if table.free and state != "game over" else "watch"
    return [f"  {table.name}  {table.rules}  {shown_state}: {what}",
            f"      {ssh_line(found, command, table.name)}"]


def report(result: FindResult, lang: str) -> list[str]:
    """The lines ``find`` prints for what it found."""
    lines: list[str] = []
    if not result.servers:
        lines += [tr(lang, "find_none"), tr(lang, "find_hint")]
    else:
        lines.append(tr(lang, "find_found", n=len(result.servers)))
    for found in result.servers:
        a = found.announcement
        lines += ["", tr(lang, "find_server", name=found.name, address=found.address,
                         port=found.port, version=a.version)]
        others = [x for x in found.addresses if x != found.address]
        if others:
            lines.append(tr(lang, "find_also", addresses=", ".join(others)))
        lines.append(tr(lang, "find_fingerprint", fp=a.fingerprint))
        lines.append(tr(lang, "find_lobby", line=ssh_line(found)))
        if not a.tables and not a.more:
            lines.append(tr(lang, "find_no_tables"))
        for table in a.tables:
            lines += table_lines(found, table, lang)
        if a.more:
            lines.append(tr(lang, "find_more", n=a.more))
        if a.unreadable:
            lines.append(tr(lang, "find_unreadable", n=a.unreadable))
    if result.skipped:
        lines += ["", tr(lang, "find_skipped", n=result.skipped)]
    return lines


def cmd_find(args: argparse.Namespace) -> int:
    """``mahjong-ssh find [--timeout SECONDS] [--lang zh|en]``: 0 when a server was found, 1
    when none was (or the network could not be browsed)."""
    import asyncio  # here: the offline commands start without it (see cli.main)

    from net.commands import locale_lang
    from net.lan import LanError, find

    lang = args.lang or locale_lang(os.environ) or "en"
    print(tr(lang, "find_looking", seconds=args.timeout), file=sys.stderr, flush=True)
    try:
        result = asyncio.run(find(args.timeout))
    except LanError as exc:
        print(tr(lang, "find_error", error=exc), file=sys.stderr)
        print(tr(lang, "find_hint"), file=sys.stderr)
        return 1
    print("\n".join(report(result, lang)))
    return 0 if result.servers else 1


def add_parser(sub: Any) -> None:
    """Register ``find`` on an ``argparse`` sub-parsers object."""
    p: argparse.ArgumentParser = sub.add_parser(
        "find", help="list the mahjong-ssh servers announced on the local network (serve "
        "--lan), their tables and the ssh line to type")
    p.add_argument("--timeout", type=timeout_seconds, default=3.0, metavar="SECONDS",
                   help="how long to listen for announcements (default 3, at most 60)")
    p.add_argument("--lang", choices=["zh", "en"], default=None,
                   help="the language (default: the locale's)")
    p.set_defaults(func=cmd_find)

