"""``mahjong-ssh find``'s words: what it found on the local network (``cli/find.py``).

A key ending in ``_1`` is its key's English for exactly one (``tr`` takes it when ``n`` is 1)."""

from __future__ import annotations

from typing import Final

FIND: Final[dict[str, tuple[str, str]]] = {
    "find_looking": ("Looking for mahjong-ssh servers on the local network ({seconds:g} s)...",
                     "正在局域网中查找 mahjong-ssh 服务器（{seconds:g} 秒）……"),
    "find_none": ("No server found.", "没有找到服务器。"),
    "find_hint": ("Is one running with `serve --lan` (and --host 0.0.0.0 to be seen from other "
                  "machines)? A firewall must let multicast DNS through (UDP port 5353, "
                  "224.0.0.251), and some Wi-Fi networks keep devices from seeing each other; "
                  "try a longer --timeout.",
                  "服务器是否以 `serve --lan` 运行（其他机器要看到它还需 --host 0.0.0.0）？"
                  "防火墙须放行组播 DNS（UDP 5353 端口，224.0.0.251），有些 Wi-Fi 网络不让"
                  "设备互相发现；也可以加长 --timeout。"),
    "find_found": ("{n} servers found:", "找到 {n} 台服务器："),
    "find_found_1": ("{n} server found:", "找到 {n} 台服务器："),
    "find_server": ("{name}  {address}:{port}  (version {version})",
                    "{name}  {address}:{port}  （版本 {version}）"),
    "find_also": ("  also at: {addresses}", "  其他地址：{addresses}"),
    "find_fingerprint": ("  host key: {fp}  (ssh shows it on first connection: compare)",
                         "  主机密钥：{fp}  （首次连接时 ssh 会显示，请核对）"),
    "find_lobby": ("  lobby:    {line}", "  大厅：    {line}"),
    "find_no_tables": ("  no tables yet: the lobby creates one", "  还没有牌桌：在大厅里可以建桌"),
    "find_waiting": ("{free} free of 4, {players}", "空位 {free}/4，{players}"),
    "find_playing": ("hand {hand}/{hands}, {players}", "第 {hand}/{hands} 局，{players}"),
    "find_players": ("{n} players", "{n} 位玩家"),
    "find_players_1": ("{n} player", "{n} 位玩家"),
    "find_over": ("game over", "对局结束"),
    "find_watchers": (", {n} watching", "，{n} 人旁观"),
    "find_stakes": (", 压鸽子 stakes on", "，压鸽子开"),
    "find_more": ("  ... and {n} more tables: see the lobby", "  ……另有 {n} 张牌桌：请到大厅查看"),
    "find_more_1": ("  ... and {n} more table: see the lobby",
                    "  ……另有 {n} 张牌桌：请到大厅查看"),
    "find_unreadable": ("  ({n} table entries unreadable)", "  （{n} 条牌桌信息无法读取）"),
    "find_unreadable_1": ("  ({n} table entry unreadable)", "  （{n} 条牌桌信息无法读取）"),
    "find_skipped": ("{n} announcements skipped: unreadable or of another version.",
                     "跳过 {n} 条无法读取或版本不同的广播。"),
    "find_skipped_1": ("{n} announcement skipped: unreadable or of another version.",
                       "跳过 {n} 条无法读取或版本不同的广播。"),
    "find_error": ("mahjong-ssh find: {error}", "mahjong-ssh find: {error}"),
    # a table's state as announced (host.table_info.TableState's values)
    "find_st_waiting": ("waiting", "等待中"),
    "find_st_playing": ("playing", "对局中"),
    "find_st_between hands": ("between hands", "局间"),
    "find_st_game over": ("game over", "已结束"),
}
