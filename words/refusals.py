"""Why a table, a seat or the lobby said no (:class:`host.refusal.Refusal`): each refusal's
words; its fields are the refusal's params. A key travels between workers (net/cluster/wire),
so it is never renamed."""

from __future__ import annotations

from typing import Final

REFUSALS: Final[dict[str, tuple[str, str]]] = {
    "illegal": ("{reason}", "{reason}"),  # the engine's words (a worker of an older version)
    # an action the table does not allow now: engine.actions.ILLEGAL_REASONS' keys, each
    # ``illegal_<key>`` (its fields are the engine's)
    "illegal_no_seat": ("there is no such seat", "没有这个座位"),
    "illegal_hand_over": ("the hand is over", "本盘已经结束"),
    "illegal_answered": ("you already answered this discard", "这张牌你已经回应过了"),
    "illegal_not_offered": ("this tile offers you no claim", "这张牌你不能吃碰"),
    "illegal_not_your_move": ("not your move: the table waits for {waiting}",
                              "还没轮到你：牌桌在等{waiting}"),
    "illegal_own_turn": ("in your own turn there is no discard to claim",
                         "自己的回合没有可吃碰的牌"),
    "illegal_discard_first": ("after a chow or pung you discard first", "吃碰之后要先出牌"),
    "illegal_no_win": ("your hand does not win with this tile", "这张牌不能胡"),
    "illegal_no_tile": ("you hold no {tile}", "你手里没有{tile}"),
    "illegal_ting_drawn": ("once declared ready (bao ting) you discard the tile you drew (or "
                           "win)",
                           "报听后只能打摸到的牌（或胡牌）"),
    "illegal_ting_not_ready": ("to declare ready (bao ting) the hand must wait on a tile "
                               "after this discard",
                               "报听要求打出这张后听牌"),
    "illegal_discard_now": ("after a chow or pung you discard at once", "吃碰之后要马上出牌"),
    "illegal_no_kong": ("that kong is not possible now", "现在不能杠"),
    "illegal_not_now": ("that move is not possible now", "现在不能这样出牌"),
    "bad_game": ("{problem}", "{problem}"),  # the ruleset's words for its options
    "no_game": ("no game in progress", "没有进行中的游戏"),
    # a table served by another worker of the server (net/cluster)
    "moving": ("the table is moving to another server: a moment",
                      "牌桌正在转到另一台服务器，请稍候"),
    "not_your_move": ("not one of your moves now", "现在不能这样出牌"),
    "unreachable": ("the table's server cannot be reached now: try again",
                           "暂时连不上牌桌所在的服务器，请重试"),
    # the server cannot save the table's game (net/runtime/shared_table.py): it pauses
    "unsaved": ("the server cannot save this game (disk full?): play is paused until it "
                       "can; nothing is lost",
                       "服务器无法保存本局（磁盘已满？）：对局暂停，待可保存时继续，不会丢失"),
    "saved_again": ("the game is saved again: play goes on", "本局已恢复保存：对局继续"),
    "spectator_play": ("spectators cannot play", "旁观者不能出牌"),
    "seated_start": ("only a seated player can start", "只有入座的玩家可以开始"),
    # a program's commands (net/front/botsession.py): start before the game, new_game after
    "game_started": ("the game has begun: start is for a table that waits",
                     "对局已经开始：start 只用于等待开局的牌桌"),
    "game_not_over": ("the game is not over: new_game asks for another game after it",
                      "对局尚未结束：new_game 用于终局后再开一局"),
    "seated_allow": ("only a seated player can allow spectators",
                            "只有入座玩家可以允许压鸽子"),
    "chat_fast": ("slow down: too many chat lines", "发言太快"),
    "chat_busy": ("the table's chat is busy: wait a moment", "本桌聊天太频繁，请稍候"),
    "no_stakes": ("no spectator stakes at this table", "本桌不能压鸽子"),
    "seated_stake": ("seated players do not stake", "入座玩家不能压鸽子"),
    "no_seat": ("no such seat", "没有这个座位"),
    "stake_closed": ("{seat} does not allow spectators", "{seat}不允许压鸽子"),
    "stake_full": ("at most {n} spectators stake", "最多{n}人压鸽子"),
    "table_exists": (
        "table {name} already exists with {what}; options are set when a table is created",
        "牌桌{name}已存在，选项只能在创建时设置",
    ),
    "quarantined": (
        "table {name} is quarantined: its saved game could not be read ({reason}); it is kept "
        "for the server's operator: choose another name",
        "牌桌{name}的存档无法读取，已隔离，请换一个名字",
    ),
    "stored": (
        "table {name} is in the database but not in play (not restored at start): choose "
        "another name",
        "牌桌{name}已存在于数据库中，请换一个名字",
    ),
    "server_full": ("the server has {n} open tables, its most: join one of them",
                           "服务器已开{n}张牌桌，已满，请加入现有牌桌"),
    "own_tables": (
        "you have {n} open tables you created (at most {most}): play at one, or close one "
        "('close NAME' in the lobby, /close in its chat)",
        "你已创建{n}张牌桌，已达上限（最多{most}张）：可在大厅输入 close 名字 关闭一张",
    ),
    "own_tables_1": (
        "you have {n} open table you created (at most {most}): play at it, or close it "
        "('close NAME' in the lobby, /close in its chat)",
        "你已创建{n}张牌桌，已达上限（最多{most}张）：可在大厅输入 close 名字 关闭它",
    ),
    "address_tables": (
        "{n} tables were created from your address in the last hour (at most {most}): join "
        "one that exists",
        "本地址一小时内已建{n}张牌桌，建桌过多（最多{most}张）",
    ),
    "address_tables_1": (
        "{n} table was created from your address in the last hour (at most {most}): join "
        "one that exists",
        "本地址一小时内已建{n}张牌桌，建桌过多（最多{most}张）",
    ),
    # a private table (net/runtime/shared_table.py)
    "private": (
        "table {name} is private: only its host {host} and the players invited may sit "
        "(ask {host} to /invite you)",
        "牌桌{name}是私人牌桌：只有桌主{host}和受邀玩家可以入座（请{host}邀请你）",
    ),
    "private_watch": (
        "table {name} is private: only its host {host} and the players invited may sit; you "
        "may watch it: watch {name}",
        "牌桌{name}是私人牌桌：只有桌主{host}和受邀玩家可以入座；你可以旁观",
    ),
    "private_no_watch": (
        "table {name} is private and its host {host} does not let strangers watch",
        "牌桌{name}是私人牌桌，桌主{host}不允许陌生人旁观",
    ),
    "host_only": ("only the table's host {host} can do that", "只有桌主{host}可以这样做"),
    # closing one's own table (close NAME in the lobby, /close in its chat: net/runtime)
    "close_others": ("{names} sits at {table}: a table closes only when nobody but its "
                     "host sits there", "{names} 在牌桌 {table} 入座：只有无人入座（桌主除外）"
                     "时才能关闭"),
    "close_others_many": ("{names} sit at {table}: a table closes only when nobody but its "
                          "host sits there", "{names} 在牌桌 {table} 入座：只有无人入座（桌主"
                          "除外）时才能关闭"),
    "no_such_table": ("no table {table}", "没有牌桌 {table}"),
    "close_elsewhere": ("table {table} runs on another worker of this server: sit at it and "
                        "type /close in its chat", "牌桌 {table} 在另一个服务进程上：请入座后在"
                        "聊天中输入 /close"),
    "table_closed": ("table {table} is closed by its host {host}: Q goes back to the lobby; "
                     "its finished games stay for replay",
                     "牌桌 {table} 已被桌主 {host} 关闭：按 Q 回到大厅；已完成的对局仍可重看"),
    "table_closed_op": ("table {table} is closed by the server's operator: Q goes back to the "
                        "lobby; its finished games stay for replay",
                        "牌桌 {table} 已被服务器管理员关闭：按 Q 回到大厅；已完成的对局仍可重看"),
    "muted": ("an operator has muted your chat", "管理员已禁止你发言"),
    "muted_until": ("an operator has muted your chat until {until}",
                    "管理员已禁止你发言至 {until}"),
    "not_private": ("this table is not private: everyone may sit",
                           "这不是私人牌桌，谁都可以入座"),
    "invite_usage": ("usage: {usage} (a nickname, or a key's SHA256:... fingerprint)",
                            "用法：{usage}（昵称或密钥指纹）"),
    "watchers_usage": ("usage: {usage}", "用法：{usage}"),
    "bad_invite": ("{problem}", "{problem}"),
    "invites_full": ("at most {most} invited players", "最多邀请{most}人"),
    "not_invited": ("not invited: {names}", "未被邀请：{names}"),
    "held": (
        "seats are held for {names} (invited, not here yet): press S again to start with "
        "computer players in their seats (they take them over when they come)",
        "座位为受邀玩家{names}保留：再按 S 由电脑代坐开始（他们来了即可接手）",
    ),
    # a round's table of a tournament (net/runtime/tournaments.py): nobody else makes it
    "tournament_table_kept": ("{name} is the name of a tournament's table: choose another",
                              "{name} 是比赛牌桌的名字：请换一个"),
    # a round not over: its games and other tables (net/runtime/tournaments.py)
    "tournament_kept_back": ("game of tournament {name}'s round {round}: it opens when every "
                             "table of the round has played (ssh HOST tournament {name})",
                             "这是比赛 {name} 第 {round} 轮的对局：本轮各桌都打完后才能查看"),
    "tournament_no_watch": ("you play in tournament {name}: its other tables of round {round} "
                            "are watched once the round is over",
                            "你参加了比赛 {name}：第 {round} 轮结束后才能观看其他牌桌"),
    "tournament_table_done": ("this tournament table's game is over: no new game here "
                              "(ssh HOST tournament {name} says where the next round plays)",
                              "本桌比赛对局已结束，不再开新局；比赛 {name} 的下一轮另有牌桌"),
}
