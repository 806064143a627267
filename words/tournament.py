"""The tournaments' words (net/runtime/tournaments.py, net/front/tournaments.py, the lobby's
line): the commands' help, replies and refusals, and ``tournament NAME``'s text."""

from __future__ import annotations

from typing import Final

TOURNAMENT: Final[dict[str, tuple[str, str]]] = {
    # the help (net/commands.py)
    "help_tournament_new": ("make a tournament: you are its host and start it;\n"
                            "--duplicate: every table of a round plays the\n"
                            "same deals; --minutes: a round's time limit;\n"
                            "--at: it starts itself then (HH:MM is UTC);\n"
                            "--private: only you and the invited enter", "建比赛"),
    "help_tournament_add": ("enter a computer of a level (its host, before\n"
                            "the start)", "加电脑选手"),
    "help_tournament_invite": ("invite more to a private one (its host, before\n"
                               "the start)", "邀请"),
    "help_tournament_join": ("enter a tournament (once), or start yours (its\n"
                             "host; four entries at least)", "报名／开赛"),
    "help_tournament": ("the tournaments, or one's standings, rounds and\n"
                        "tables (--json: the whole of it)", "比赛"),
    # refusals
    "tournament_rounds": ("a tournament's rounds: 1 to {n} (--rounds K)",
                          "比赛轮数为 1 到 {n}（--rounds K）"),
    "tournament_minutes": ("a round's time limit in minutes: 1 to {n} (--minutes M)",
                           "每轮限时 1 到 {n} 分钟（--minutes M）"),
    "tournament_time_limit": ("A round's time limit: {minutes} min; then each table plays one "
                              "more hand at most.",
                              "每轮限时 {minutes} 分钟，到时各桌至多再打一盘。"),
    "tournament_bad_name": ("bad tournament name {name}: letters, digits, - and _, at most {n} "
                            "wide (a Chinese character counts 2)",
                            "比赛名 {name} 不可用：字母、数字、- 和 _，宽度至多 {n}（汉字算 2）"),
    "tournament_none": ("no tournament {name} (ssh HOST tournament lists them)",
                        "没有比赛 {name}（ssh HOST tournament 可列出）"),
    "tournament_exists": ("there is a tournament {name} already (or tables of its name)",
                          "比赛 {name} 已存在（或已有同名牌桌）"),
    "tournament_server_full": ("the server runs the most tournaments it may ({n}): try later",
                               "服务器已有 {n} 场比赛，已达上限：请稍后再试"),
    "tournament_yours_full": ("you host the most tournaments not finished you may ({n})",
                              "你主办的未结束比赛已有 {n} 场，已达上限"),
    "tournament_full": ("tournament {name} is full (entries: {n})",
                        "比赛 {name} 已有 {n} 人报名，已满"),
    "tournament_joined": ("you are in tournament {name} already", "你已报名比赛 {name}"),
    "tournament_started": ("tournament {name} has started: it takes no more entries",
                           "比赛 {name} 已开始，不再接受报名"),
    "tournament_few": ("tournament {name} needs four entries at least to start",
                       "比赛 {name} 至少要四人报名才能开始"),
    "tournament_not_host": ("only the host of tournament {name} starts it",
                            "只有比赛 {name} 的主办人可以开始"),
    "tournament_no_round": ("tournament {name} plays no such round", "比赛 {name} 没有此轮"),
    "tournament_no_table": ("tournament {name} has no such table", "比赛 {name} 没有此桌"),
    "tournament_at_bad": ("--at {at}: give HH:MM (UTC) or an ISO 8601 time with its offset, "
                          "as 2026-12-24T19:30+08:00",
                          "--at {at}：请写 HH:MM（UTC）或带时区的 ISO 8601 时间，如 "
                          "2026-12-24T19:30+08:00"),
    "tournament_at_past": ("--at: that time has passed", "--at：该时间已过"),
    "tournament_at_far": ("--at: at most {days} days ahead", "--at：至多提前 {days} 天"),
    "tournament_private": ("tournament {name} is private: only its host {host} and those "
                           "invited enter",
                           "比赛 {name} 为私人比赛：只有主办人 {host} 和受邀者可以报名"),
    "tournament_host_only": ("only the host of tournament {name} adds computers and invites",
                             "只有比赛 {name} 的主办人可以加电脑选手和邀请"),
    "tournament_not_private": ("tournament {name} is not private: anyone may enter",
                               "比赛 {name} 不是私人比赛：任何人都可以报名"),
    "tournament_invites_full": ("a private tournament invites {n} at most",
                                "私人比赛至多邀请 {n} 人"),
    "tournament_unsaved": ("it could not be saved now: try again later",
                           "现在无法保存：请稍后再试"),
    # replies
    "tournament_made": ("Tournament {name} made ({rules}, rounds: {rounds}, {format}). Players "
                        "enter with: ssh HOST tournament join {name}; you start it with: "
                        "ssh HOST tournament start {name}",
                        "比赛 {name} 已创建（{rules}，轮数：{rounds}，{format}）。报名：ssh HOST "
                        "tournament join {name}；开始：ssh HOST tournament start {name}"),
    "tournament_in": ("You are in tournament {name} (entries: {n}).",
                      "你已报名比赛 {name}（报名人数：{n}）。"),
    "tournament_added": ("{entry} entered in tournament {name} (entries: {n}).",
                         "{entry} 已加入比赛 {name}（报名人数：{n}）。"),
    "tournament_nobody_has": ("nobody keeps the name {names} here (a key, or a passphrase): "
                              "they log in once, then ssh HOST tournament invite {name} {names} "
                              "again; or invite their key (SHA256:…)",
                              "无人以密钥或口令保有此名：{names}；请对方先登录一次，再执行 "
                              "ssh HOST tournament invite {name} {names}，"
                              "或邀请其密钥（SHA256:…）"),
    "tournament_invited": ("Tournament {name} invites: {names}.", "比赛 {name} 邀请：{names}。"),
    "tournament_begun": ("Tournament {name} started: round 1, tables: {n}.",
                         "比赛 {name} 已开始：第 1 轮，桌数：{n}。"),
    # tournament NAME, and the list
    "tournament_head": ("Tournament {name}: {rules}, {format}, {state}, round {round} of "
                        "{rounds}, entries: {n}, host {host}",
                        "比赛 {name}：{rules}，{format}，{state}，第 {round}/{rounds} 轮，"
                        "报名人数：{n}，主办人 {host}"),
    "tournament_open": ("open for entries", "报名中"),
    "tournament_starts": ("starts {at}", "{at} 开始"),
    "tournament_start_missed": ("its start {at} came with fewer than four entries: its host "
                                "starts it", "{at} 开赛时报名不足四人：由主办人开始"),
    "tournament_private_mark": ("私 private", "私 私人"),
    "tournament_computer": ("(computer)", "（电脑）"),
    "tournament_table_closed": ("closed by the operator after {hands} hands, game {id}",
                                "已被管理员关闭（打完 {hands} 盘），对局 {id}"),
    "tournament_running": ("playing", "进行中"),
    "tournament_finished": ("finished", "已结束"),
    "tournament_duplicate": ("duplicate", "复式"),
    "tournament_raw": ("not duplicate", "非复式"),
    "tournament_standings": ("Standings (duplicate score, raw score, hands won):",
                             "排名（复式分、原始分、和牌数）："),
    "tournament_standings_raw": ("Standings (score, hands won):", "排名（得分、和牌数）："),
    "tournament_round": ("Round {round}:", "第 {round} 轮："),
    "tournament_table": ("table {table} (join {name}): {seats} · {state}",
                         "第 {table} 桌（join {name}）：{seats} · {state}"),
    "tournament_table_ended": ("table {table}: {seats} · {state}",
                               "第 {table} 桌：{seats} · {state}"),
    "tournament_table_plays": ("playing", "进行中"),
    "tournament_table_over": ("over, game {id}", "已结束，对局 {id}"),
    "tournament_seeds": ("seed {seed} (published: the round is over)",
                         "种子 {seed}（本轮已结束，公开）"),
    "tournament_filler": ("{level} (computer, fills the table)", "{level}（电脑，补位）"),
    "tournament_nobody": ("nobody yet", "还没有人"),
    "tournaments_none": ("No tournaments. ssh HOST tournament new NAME --rounds K makes one.",
                         "还没有比赛。ssh HOST tournament new 名字 --rounds K 可创建。"),
    "tournaments_list": ("Tournaments:", "比赛："),
    "tournament_item": ("{name}: {rules}, {format}, {state}, entries: {n}",
                        "{name}：{rules}，{format}，{state}，报名人数：{n}"),
    # the lobby's line (net/front/lobby.py)
    # {format}: lobby_duplicate, or nothing (the line fits 80 columns with one tournament)
    "lobby_tournament": ("{name} ({format}{state}, round {round}/{rounds})",
                         "{name}（{format}{state}，第 {round}/{rounds} 轮）"),
    "lobby_duplicate": ("duplicate, ", "复式，"),
    "tournament_your_table": ("Your table now: join {table}", "你现在的牌桌：join {table}"),
    "lobby_tournaments": ("Tournaments: {list} · ssh … tournament NAME",
                          "比赛：{list} · ssh … tournament 名字"),
}
