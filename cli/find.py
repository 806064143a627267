"""``mahjong-ssh find``: the servers announced on the local network (``serve --lan``), each
with its host key fingerprint and its tables, and the ``ssh`` line to type for each."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from net.lan import FindResult, Found, LanTable

TIMEOUT_MAX = 60.0

TEXT = {
    "en": {
        "looking": "Looking for mahjong-ssh servers on the local network ({seconds:g} s)...",
        "none": "No server found.",
        "hint": ("Is one running with `serve --lan` (and --host 0.0.0.0 to be seen from "
                 "other machines)? A firewall must let multicast DNS through (UDP port 5353, "
                 "224.0.0.251), and some Wi-Fi networks keep devices from seeing each "
                 "other; try a longer --timeout."),
        "found": "{count} server(s) found:",
        "server": "{name}  {address}:{port}  (version {version})",
        "also": "  also at: {addresses}",
        "fingerprint": "  host key: {fp}  (ssh shows it on first connection: compare)",
        "lobby": "  lobby:    {line}",
        "no_tables": "  no tables yet: the lobby creates one",
        "waiting": "{free} free of 4, {players} player(s)",
        "playing": "hand {hand}/{hands}, {players} player(s)",
        "over": "game over",
        "watchers": ", {n} watching",
        "stakes": ", 压鸽子 stakes on",
        "more": "  ... and {n} more table(s): see the lobby",
        "unreadable": "  ({n} table entry(ies) unreadable)",
        "skipped": "{n} announcement(s) skipped: unreadable or of another version.",
        "error": "mahjong-ssh find: {error}",
    },
    "zh": {
        "looking": "正在局域网中查找 mahjong-ssh 服务器（{seconds:g} 秒）……",
        "none": "没有找到服务器。",
        "hint": ("服务器是否以 `serve --lan` 运行（其他机器要看到它还需 --host 0.0.0.0）？"
                 "防火墙须放行组播 DNS（UDP 5353 端口，224.0.0.251），有些 Wi-Fi 网络不让"
                 "设备互相发现；也可以加长 --timeout。"),
        "found": "找到 {count} 台服务器：",
        "server": "{name}  {address}:{port}  （版本 {version}）",
        "also": "  其他地址：{addresses}",
        "fingerprint": "  主机密钥：{fp}  （首次连接时 ssh 会显示，请核对）",
        "lobby": "  大厅：    {line}",
        "no_tables": "  还没有牌桌：在大厅里可以建桌",
        "waiting": "空位 {free}/4，{players} 位玩家",
        "playing": "第 {hand}/{hands} 局，{players} 位玩家",
        "over": "对局结束",
        "watchers": "，{n} 人旁观",
        "stakes": "，压鸽子开",
        "more": "  ……另有 {n} 张牌桌：请到大厅查看",
        "unreadable": "  （{n} 条牌桌信息无法读取）",
        "skipped": "跳过 {n} 条无法读取或版本不同的广播。",
        "error": "mahjong-ssh find: {error}",
    },
}

STATE_ZH = {"waiting": "等待中", "playing": "对局中", "between hands": "局间",
            "game over": "已结束"}


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
    text = TEXT[lang]
    state = table.state.value
    if state == "waiting":
        what = text["waiting"].format(free=table.free, players=table.players)
    elif state == "game over":
        what = text["over"]
    else:
        what = text["playing"].format(hand=table.hand, hands=table.hands,
                                      players=table.players)
    if table.watchers:
        what += text["watchers"].format(n=table.watchers)
    if table.stakes:
        what += text["stakes"]
    shown_state = STATE_ZH.get(state, state) if lang == "zh" else state
    command = "join" if table.free and state != "game over" else "watch"
    return [f"  {table.name}  {table.rules}  {shown_state}: {what}",
            f"      {ssh_line(found, command, table.name)}"]


def report(result: FindResult, lang: str) -> list[str]:
    """The lines ``find`` prints for what it found."""
    text = TEXT[lang]
    lines: list[str] = []
    if not result.servers:
        lines += [text["none"], text["hint"]]
    else:
        lines.append(text["found"].format(count=len(result.servers)))
    for found in result.servers:
        a = found.announcement
        lines += ["", text["server"].format(name=found.name, address=found.address,
                                            port=found.port, version=a.version)]
        others = [x for x in found.addresses if x != found.address]
        if others:
            lines.append(text["also"].format(addresses=", ".join(others)))
        lines.append(text["fingerprint"].format(fp=a.fingerprint))
        lines.append(text["lobby"].format(line=ssh_line(found)))
        if not a.tables and not a.more:
            lines.append(text["no_tables"])
        for table in a.tables:
            lines += table_lines(found, table, lang)
        if a.more:
            lines.append(text["more"].format(n=a.more))
        if a.unreadable:
            lines.append(text["unreadable"].format(n=a.unreadable))
    if result.skipped:
        lines += ["", text["skipped"].format(n=result.skipped)]
    return lines


def cmd_find(args: argparse.Namespace) -> int:
    """``mahjong-ssh find [--timeout SECONDS] [--lang zh|en]``: 0 when a server was found, 1
    when none was (or the network could not be browsed)."""
    import asyncio  # here: the offline commands start without it (see cli.main)

    from net.commands import locale_lang
    from net.lan import LanError, find

    lang = args.lang or locale_lang(os.environ) or "en"
    text = TEXT[lang]
    print(text["looking"].format(seconds=args.timeout), file=sys.stderr, flush=True)
    try:
        result = asyncio.run(find(args.timeout))
    except LanError as exc:
        print(text["error"].format(error=exc), file=sys.stderr)
        print(text["hint"], file=sys.stderr)
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

