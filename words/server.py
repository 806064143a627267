"""The server's words (net/), shown with :func:`words.both` before a session's language is known:
the lobby and its new-table form, the SSH command line and its help, the login, the replies
and refusals of a session, the stats, and what the store, the registry and the LAN announce.

Most are glosses: the English says the detail (a value typed, a limit, a hint) and the Chinese
what it is in short, so the Chinese may leave out the English's fields (tests/test_words.py
lists which). An English line break (``\n``) is kept where the caller lays the text out in a
column (the help's descriptions)."""

from __future__ import annotations

from typing import Final

SERVER: Final[dict[str, tuple[str, str]]] = {
    # the lobby (net/front/lobby.py)
    "lobby_help": ("A table's name and Enter: sit there (a new name: Enter twice; add a ruleset "
                   "and options: 'friday gejiu hands_per_game=4 bots=hard'). 'new' or Ctrl-N: "
                   "the form; 'watch NAME'; 'close NAME' (yours); PageUp / PageDown: more.",
                   "输入牌桌名回车入座（新名字按两次回车建桌）；'new' 或 Ctrl-N 建桌表单；"
                   "'watch 名字' 旁观；'close 名字' 关闭自己的牌桌；PageUp / PageDown 翻页。"),
    # a name that is no table yet: said before a table is made (lobby_command), the Textual
    # lobby's (Enter and Esc) and the plain lobby's (a line typed again)
    "lobby_new": ("No table {table} yet: Enter again to create it ({rules}, {n} hands{more}) "
                  "and sit there; Esc cancels",
                  "还没有牌桌 {table}：再按回车创建（{rules}，{n}盘{more}）并入座；Esc 取消"),
    "lobby_new_1": ("No table {table} yet: Enter again to create it ({rules}, {n} hand{more}) "
                    "and sit there; Esc cancels",
                    "还没有牌桌 {table}：再按回车创建（{rules}，{n}盘{more}）并入座；Esc 取消"),
    "lobby_new_plain": ("No table {table} yet: type the same line again to create it ({rules}, "
                        "{n} hands{more}) and sit there, or another line",
                        "还没有牌桌 {table}：再输入同一行即创建（{rules}，{n}盘{more}）并入座，"
                        "或输入别的"),
    "lobby_new_plain_1": ("No table {table} yet: type the same line again to create it "
                          "({rules}, {n} hand{more}) and sit there, or another line",
                          "还没有牌桌 {table}：再输入同一行即创建（{rules}，{n}盘{more}）并入座，"
                          "或输入别的"),
    "lobby_private_new": ("private", "私人"),
    # a row of the lobby: hands per game, seats free (those held for the invited apart)
    "lobby_hands": ("{n} hands", "{n}盘"),
    "lobby_hands_1": ("{n} hand", "{n}盘"),
    "lobby_free": ("{n} free", "空{n}"),
    "lobby_held": ("{n} seats held for the invited, not here yet", "为未到的受邀者保留{n}座"),
    "lobby_held_1": ("{n} seat held for the invited, not here yet", "为未到的受邀者保留{n}座"),
    # a private table to one who may not sit there: no seat is free for him
    "lobby_no_seat": ("no seat", "无座"),
    "lobby_free_invited": ("{n} seats free for the invited, none for you",
                           "{n}个空位只供受邀者，你无座"),
    "lobby_free_invited_1": ("{n} seat free for the invited, none for you",
                             "{n}个空位只供受邀者，你无座"),
    # closing one's own table: close NAME in the lobby, /close in its chat
    "lobby_closed": ("table {table} is closed; its finished games stay for replay",
                     "牌桌 {table} 已关闭，已完成的对局仍可重看"),
    "lobby_none": ("No tables yet. Type a name to create one.", "还没有牌桌，输入名字创建。"),
    "lobby_computer": ("computer", "电脑"),
    "lobby_stakes_on": ("on", "开"),
    "lobby_stakes_off": ("off", "关"),
    "lobby_yours": ("your table, /invite NAME in its chat", "你的牌桌"),
    "lobby_invited": ("you are invited", "你已受邀"),
    "lobby_may_watch": ("not invited: you may watch", "未受邀，可旁观"),
    "lobby_not_invited": ("not invited", "未受邀"),
    "lobby_round_table": ("a round of tournament {name}", "比赛 {name} 的一桌"),
    "lobby_your_seat": ("your seat", "你的座位"),
    "lobby_watch_round": ("you may watch", "可旁观"),
    "lobby_round_no_watch": ("its entrants may not watch now", "本轮选手不可旁观"),
    # its new-table form, each note by the id of its field
    "create-private": ("Only you and those you invite may sit; /invite NAME in the table's "
                       "chat adds more", "只有你和受邀玩家可以入座"),
    "create-invite": ("Nicknames or key fingerprints (SHA256:...), separated by commas",
                      "受邀玩家的昵称或密钥指纹，用逗号分隔"),
    "create-watchers": ("A private table: whether players not invited may watch",
                        "私人牌桌是否允许未受邀的人旁观"),
    "form_title": ("New table", "新牌桌"),
    "form_name": ("Table name", "牌桌名"),
    "form_create": ("Create", "创建"),
    "form_cancel": ("Cancel", "取消"),
    "form_no": ("no", "否"),
    "form_yes": ("yes", "是"),
    "form_private": ("Private", "私人牌桌"),
    "form_watchers": ("Strangers may watch", "陌生人可旁观"),
    "form_invite": ("Invite", "邀请"),
    "form_invite_row": ("Invite (nicknames, keys)", "邀请（昵称或密钥）"),
    "form_bot_seat": ("Computer at {wind} if empty", "{wind}位空时的电脑"),
    # the new-table forms' option labels, by the option's key (its full meaning is the
    # ruleset's own words, under the fields when the field has the focus)
    "opt_base_point": ("Base point", "底分"),
    "opt_hands_per_game": ("Hands per game", "每局盘数"),
    "opt_turn_seconds": ("Turn time (seconds)", "出牌时限（秒）"),
    "opt_claim_seconds": ("Claim time (seconds)", "吃碰时限（秒）"),
    "opt_time_bank": ("Time bank (seconds)", "备用时间（秒）"),
    "opt_coach": ("Coach (practice, unrated)", "教练（练习，不计分）"),
    "opt_discarder_pays_double": ("Discarder pays double", "放冲者付双倍"),
    "opt_max_lighters": ("Lighters per hand", "打火机上限"),
    "opt_spectator_stakes": ("Spectators may stake", "允许旁观压鸽子"),
    "opt_discard_wins": ("Wins on a discard", "可以点炮胡"),
    "opt_first_roller": ("Who rolls for first dealer", "定庄掷骰者"),
    "form_exists": ("table {table} exists: type its name to sit", "牌桌已存在"),
    "invite": ("invite", "邀请"),
    "bot_note": ("Computer player's level for this seat when nobody sits there: {levels}",
                 "空位电脑的水平"),
    "create": ("create", "创建"),
    "cancel": ("cancel", "取消"),
    "quit": ("quit", "退出"),
    "list": ("list", "列表"),
    "lobby": ("lobby", "大厅"),
    "lobby_private": ("private", "私人牌桌"),
    "lobby_host": ("host", "桌主"),
    "lobby_stakes": ("stakes", "压鸽子"),
    "no_table": ("no table {table}", "没有这个牌桌"),
    "no_table_named": ("no table named {table}", "没有这个牌桌"),
    "table_full": ("{table} is full: Enter again to watch it, or type another table",
                   "已满座：再按回车旁观，或换一张牌桌"),
    # the lobby in plain lines (net/front/plain_session.py), in the session's language
    "pl_away": (" (away)", " (离线)"),
    "pl_bot": (" [bot]", " [bot]"),  # a program's seat (bot join), as the lobby marks it
    "pl_waiting": ("waiting, {n} free seats", "等待中，空位{n}个"),
    "pl_waiting_1": ("waiting, {n} free seat", "等待中，空位{n}个"),
    "pl_waiting_uninvited": ("waiting, no seat for you ({n} free for the invited)",
                             "等待中，你无座（受邀者空位{n}个）"),
    "pl_playing": ("playing hand {hand} of {hands}", "第{hand}/{hands}盘进行中"),
    "pl_between": ("between hands", "盘间"),
    "pl_over": ("game over", "已结束"),
    "pl_nobody": ("nobody", "无人"),
    "pl_table": ("{n} {name}: {rules}, {state}; {names}; {watching} watching.",
                 "{n} {name}：{rules}，{state}；{names}；旁观{watching}人。"),
    # the SSH command line and its help (net/commands.py)
    "help_lobby": ("the lobby: tables, create, join, watch", "大厅"),
    "help_join": ("sit at table NAME (created if new, with these\noptions and computer levels)",
                  "入座／建桌"),
    "help_options": ("options", "选项"),
    "help_watch": ("watch table NAME without seeing any hand", "旁观"),
    "help_lang": ("--lang zh|en also after join NAME / watch NAME: the\ntable's language", "语言"),
    "help_plain": ("the table as lines of text, for a screen\nreader", "读屏模式"),
    "help_bot": ("a program on your side plays the seat over the\nbot protocol (JSON lines on "
                 "stdin/stdout, see\ndocs/bot-protocol.md)", "程序入座"),
    "help_ambiwidth": ("--ambiwidth narrow|wide also after watch NAME, lobby:\nwhether your "
                       "terminal draws ambiguous-width\ncharacters (box lines, dots, arrows) "
                       "one cell\nor two (found by itself when not given)",
                       "歧义宽度字符：窄（单格）或宽（双格）"),
    "help_stats": ("the leaderboard", "排行榜"),
    "help_replay": ("your finished games: choose one to step through\n(without -t: the list "
                    "as text)", "我的对局／重看"),
    "help_replay_id": ("open a finished game by the ID on its game-over\nscreen (anyone's: "
                       "share it); without -t: its\nrecord as JSON lines, for `mahjong-ssh "
                       "replay\nFILE --view`", "按编号重看"),
    "help_review": ("the expert's review of your own play in a finished\ngame (without ID: "
                    "choose from your games)", "复盘"),
    "help_puzzles": ("your costly decisions in a finished game as puzzles:\nwhat would you "
                     "play? then the expert's figures", "练习题"),
    "help_help": ("this text", "帮助"),
    "help_close": ("your own table (you created it) closes with /close in its chat, or\n"
                   "    close NAME in the lobby, while nobody else sits there (its finished "
                   "games\n    stay for replay).", "关闭牌桌"),
    "help_rename": ("play as NEWNAME from now on, if no other player has\nit (or one that "
                    "looks like it); your games and\nratings stay yours", "改名"),
    "help_report": ("tell the operators of a player's abuse (at a\ntable: /report NAME "
                    "REASON; /ignore NAME hides\ntheir chat for you)", "举报玩家"),
    "help_names": ("Your SSH key is your account. Its name is the SSH user name (NAME@HOST) of "
                   "its\nfirst visit, numbered if another player has it (frank-2); a later "
                   "user name\ndoes not change it, rename NEWNAME does. Without a key: "
                   "NAME@HOST and its\npassphrase.",
                   "SSH 密钥即账号，名字取自首次登录时的用户名（已被占用则加编号），\n"
                   "之后的用户名不会改变它，rename 新名字 可以改。没有密钥：用户名加口令。"),
    "help_start": ("The hand starts when four people sit, or when a seated player presses S\n"
                   "in the waiting room (computer players take the empty seats; at the\n"
                   "table itself s opens the settings).",
                   "四人入座即开始，或在等候室按 S 由电脑补位开始（开局后 s 打开设置）。"),
    "help_commands": ("The commands", "命令"),
    "unknown_command": ("unknown command {command!r}", "未知命令"),
    "did_you_mean": ("did you mean {command}?", "是不是 {command}？"),
    "usage": ("usage: {usage}", "用法"),
    "bot_usage": ("usage: bot {usage} (a program plays the seat: docs/bot-protocol.md)", "用法"),
    "bot_lang": ("bot join takes no --lang (the protocol is JSON)", "机器人不需要语言"),
    "bad_watchers": ("--watchers takes yes or no, not {value!r}", "旁观：yes 或 no"),
    "bad_ambiwidth": ("--ambiwidth takes narrow or wide, not {value!r}",
                      "歧义宽度只能是 narrow 或 wide"),
    "bad_lang": ("--lang takes zh or en, not {value!r}", "语言只能是 zh 或 en"),
    "bad_game_id": ("{id!r} is not a game ID (eight letters and digits, as the game-over screen "
                    "shows it, e.g. k7m2-x9qd)", "不是对局编号"),
    "bad_command_line": ("cannot read the command line: {problem}", "命令无法解析"),
    "no_arguments": ("{command} takes no arguments, got {got!r}", "不带参数"),
    "bad_levels": ("computer level: one of {levels}, or four separated by commas (seats E,S,W,N),"
                   " got {got!r}", "电脑等级无效"),
    "table_name_rule": ("letters, digits, - or _, up to 24 cells (a Chinese character takes two)",
                        "牌桌名：字母、数字、汉字、- 或 _，最长 24 个字符（一个汉字算两个）"),
    # invitations and a private table's host commands (net/runtime/privacy.py)
    "invites_long": ("an invitation list is at most {n} characters", "邀请名单太长"),
    "not_fingerprint": ("{word!r} is not a key fingerprint (SHA256: and 43 characters, as "
                        "ssh-keygen -l shows it)", "不是密钥指纹"),
    "not_nickname": ("{word!r} is not a nickname (at most {n} characters, no spaces, quotes or "
                     "brackets)", "不是昵称"),
    # a name of letters from several scripts (a Cyrillic а in ann): it could pass for another
    "not_nickname_mixed": ("{word!r} mixes the letters of several scripts, so it could pass "
                           "for another name: use the letters of one script",
                           "{word!r} 混用了几种文字的字母，可能被看成别的名字："
                           "请只用一种文字的字母"),
    "invites_many": ("at most {n} invited players", "最多邀请{n}人"),
    "watchers_on": ("strangers may watch", "允许旁观"),
    "watchers_off": ("strangers may not watch (who watches now stays)", "不许旁观"),
    "uninvited": ("uninvited {names} (who sits keeps the seat)", "已取消邀请 {names}"),
    "invited": ("invited {names}", "已邀请 {names}"),
    "nobody_has": ("nobody keeps the name {names} here (a key, or a passphrase): they log in "
                   "once and keep it, then /invite again, or you invite their key (SHA256:…)",
                   "无人以密钥或口令保有此名：{names}"),
    # the login (net/front/login.py): why a connection is closed, the passphrase prompts
    "flood_global": ("too many global requests", "请求过多"),
    "flood_channel": ("too many channel requests", "会话请求过多"),
    "flood_keys": ("too many public keys offered", "公钥尝试过多"),
    "connecting_fast": ("too many connections from your address, wait a minute", "连接过于频繁"),
    "waiting_many": ("too many connections waiting to log in, try again", "稍后再试"),
    "address_many": ("too many connections from your address", "连接过多"),
    "no_session": ("no session opened", "未打开会话"),
    "auth_failures": ("too many authentication failures", "认证失败次数过多"),
    "logins_fast": ("too many logins from your address, wait a minute", "登录过于频繁"),
    "allow_only": ("this server admits only the keys its host listed: send the host your "
                   "public key (~/.ssh/id_ed25519.pub) to be added",
                   "本服务器只接受主人登记的密钥：请把你的公钥（~/.ssh/id_ed25519.pub）交给主人登记"),
    "ask_passphrase": ("Passphrase for {name} (Enter: play as guest {guest})",
                       "口令（回车：游客 {guest}）"),
    "new_passphrase": ("Choose a passphrase for {name} (Enter: guest {guest})",
                       "为 {name} 设口令（回车：游客 {guest}）"),
    "repeat_passphrase": ("Type the passphrase for {name} again to confirm it",
                          "再输一次口令以确认"),
    # what the next prompt says first: why the last answer did not log in (OpenSSH shows a
    # challenge's instructions escaped outside ASCII: the Chinese goes in the prompt)
    "login_wrong": ("Wrong passphrase ({n} tries left on this connection).",
                    "口令错误（本次连接还可试 {n} 次）。"),
    "login_wrong_1": ("Wrong passphrase ({n} try left on this connection).",
                      "口令错误（本次连接还可试 {n} 次）。"),
    "login_slowed": ("Too many wrong passphrases for {name} lately: try again later.",
                     "{name} 近来口令错误过多，请稍后再试。"),
    "login_mismatch": ("The two passphrases did not match.", "两次输入的口令不一致。"),
    "login_short": ("Too short: {n} characters or more.", "口令太短，至少 {n} 个字符。"),
    "login_taken_now": ("That name was just taken.", "这个名字刚被别人占用。"),
    "login_guests": ("{n} guests are connected from your address: no more now.",
                     "你的地址已有 {n} 位游客在线，暂时不能再进。"),
    "login_guests_1": ("{n} guest is connected from your address: no more now.",
                       "你的地址已有 {n} 位游客在线，暂时不能再进。"),
    "unsaved_passphrase": ("Passphrase for {name} not saved, try later",
                           "无法保存口令，请稍后再试"),
    "enter_guest": ("Enter: guest", "回车：游客"),
    # a session's replies (net/front/session.py, commands_run.py, replay.py, driver.py)
    "sessions_full": ("The server is full ({n} sessions): try again later.",
                    "服务器已满（{n} 个会话），请稍后再试。"),
    "sessions_full_1": ("The server is full ({n} session): try again later.",
                        "服务器已满（{n} 个会话），请稍后再试。"),
    "address_full": ("{n} sessions are open from your address already: close one first.",
                     "你的地址已打开 {n} 个会话，请先关闭一个。"),
    "address_full_1": ("{n} session is open from your address already: close it first.",
                       "你的地址已打开 {n} 个会话，请先关闭它。"),
    "account_full": ("You have {n} sessions open already: close one first.",
                     "你已打开 {n} 个会话，请先关闭一个。"),
    "account_full_1": ("You have {n} session open already: close it first.",
                       "你已打开 {n} 个会话，请先关闭它。"),
    "stopping": ("The server is stopping; your game is saved and resumes when it is back.",
                 "服务器正在关闭，对局已保存，重启后继续。"),
    # a table lost with its worker (net/cluster/remote.py, net/front/commands_run.py): said
    # as the session's last line, on the terminal's own screen; {line}: the ssh command
    "table_goes_on": ("The table goes on, run by another server process",
                      "牌桌继续，由另一服务器进程运行"),
    "table_lost": ("The server process running table {table} was lost, and the table could "
                   "not be found again yet. To come back: {line}",
                   "牌桌 {table} 所在的服务器进程已断开，暂时找不到该牌桌。回来请输入：{line}"),
    "stopping_moves": ("This server process is stopping; table {table} goes on in another. "
                       "To come back to your seat: {line}",
                       "此服务器进程正在关闭，牌桌 {table} 在另一进程继续。回到座位请输入：{line}"),
    "stopping_table": ("The server is stopping; your game is saved and resumes when it is "
                       "back. To come back then: {line}",
                       "服务器正在关闭，对局已保存，重启后继续。届时回来请输入：{line}"),
    "error": ("error", "错误"),
    "command_failed": ("the server could not answer this command (it is logged for the "
                       "operators); try again later",
                       "服务器未能回答此命令（已记录供管理员查看），请稍后再试"),
    "needs_terminal": ("{command} needs a terminal: ssh -t -p PORT NAME@HOST {command} ...",
                       "{command} 需要终端：请加 -t（ssh -t -p PORT NAME@HOST {command} ...）"),
    "session_failed": ("Sorry: this session failed.", "会话出错。"),
    "left_table": ("left {table}", "已离开"),
    # a key's name and rename NEWNAME (net/front/commands_run.py)
    "name_taken": ("You play as {name}: {asked} is another player's name (or looks like "
                   "one). ssh … rename NEWNAME picks another.",
                   "你的名字是 {name}：{asked} 已被占用。可用 ssh … rename 新名字 改名。"),
    "name_kept": ("You play as {name}, the name your key got on its first visit. ssh … rename "
                  "{asked} changes it.",
                  "你的名字是 {name}，即密钥首次登录时的名字。可用 ssh … rename {asked} 改名。"),
    "renamed": ("You play as {name} from now on ({old} before); your games and ratings stay "
                "yours.", "以后你以 {name} 登录（原名 {old}），战绩和等级分不变。"),
    "renamed_keyless": ("You play as {name} from now on ({old} before): log in as "
                        "{name}@HOST with the same passphrase; your games and ratings stay "
                        "yours.", "以后你以 {name} 登录（原名 {old}）：用户名 {name}，口令不变；"
                        "战绩和等级分不变。"),
    "rename_same": ("You play as {name} already.", "你已经叫 {name}。"),
    "rename_guest": ("A guest's name ({name}) is for this visit only: log in with an SSH key, "
                     "or choose a passphrase for a name, to keep one.",
                     "游客名（{name}）只用这一次：用 SSH 密钥登录，或为名字设口令，才能保留名字。"),
    "rename_taken": ("{name} is another player's name, or looks like one: choose another.",
                     "{name} 已是别人的名字（或与之相似），请另选。"),
    "rename_seated": ("You sit at a table (or have another session open): leave it, close "
                      "the others, then rename.", "你正在牌桌上（或另有会话）：先离开再改名。"),
    "rename_unsaved": ("The server cannot save a new name now: try again later.",
                       "服务器暂时无法保存新名字，请稍后再试。"),
    "not_your_game": ("you did not play in game {game}: ssh … replay {game} shows it",
                      "你没有参加这局"),
    "bot_no_seat": ("table {table} has no free seat for a bot (four players sit there)",
                    "没有空位"),
    "bot_replaced": ("a newer bot join with this key took the seat at table {table}: this "
                     "session ends", "同一密钥新的 bot join 接管了牌桌 {table} 的座位：本会话结束"),
    "game_unreadable": ("game {game} cannot be read now: {problem}", "暂时无法读取"),
    "no_game_id": ("no finished game has the ID {game}", "没有这个编号的对局"),
    "keys_dropped": ("Too much input at once: some keys were dropped", "输入过多，部分按键已丢弃"),
    "end_session": ("End the session", "断开"),
    "dumb_terminal": (
        "This terminal (TERM={term}) cannot draw the mahjong table: it needs a terminal that "
        "moves the cursor and shows UTF-8, such as Windows Terminal, PuTTY, iTerm2, GNOME "
        "Terminal, Terminal.app or tmux, with TERM=xterm-256color (TERM=xterm-256color ssh -t "
        "HOST, or the terminal type in your client's settings). With a screen reader, or on "
        "this terminal, play in plain lines instead: ssh -t HOST join NAME --plain",
        "此终端（TERM={term}）无法显示牌桌：需要能移动光标并显示 UTF-8 的终端，如 Windows "
        "Terminal、PuTTY、iTerm2、GNOME 终端、Terminal.app 或 tmux，并设 TERM=xterm-256color。"
        "使用读屏软件或在此终端上，可用纯文本模式：ssh -t HOST join NAME --plain"),
    # the stats and the lobby's leaders (net/front/server.py, trends.py)
    "leaderboard": ("Leaderboard", "排行榜"),
    "leaders": ("Leaders", "排行榜"),
    "whole_board": ("ssh … stats: the whole board", "全部排行"),
    "leaders_columns": ("by rating, with points and recent games", "按等级分排名，另列总分与近况"),
    "no_games_yet": ("No finished games yet.", "还没有完成的对局。"),
    "recent": ("recent", "近况"),
    "tables": ("Tables", "牌桌"),
    "thinking": ("Expert players' thinking", "电脑思考"),
    "provisional": ("provisional", "暂定"),
    "your_rating": ("your rating", "等级分"),
    # the store, the registry and the LAN announcement
    "store_problem": ("the server cannot save right now (disk full, or its database locked or "
                      "read-only): games are paused until it can; nothing saved is lost",
                      "服务器暂时无法存档（磁盘已满？）：对局暂停，恢复后继续，已保存的不会丢失"),
    "quarantine_mark": ("⚠ quarantined: its saved game could not be read", "存档无法读取"),
    "lan_loopback": ("loopback only: only this machine finds it (serve --host 0.0.0.0 to be found "
                     "on the network)", "仅本机可见"),
    # the operators (net/front/operators.py): what a banned, kicked or told player reads
    "banned": ("This server has banned you: {reason}", "你已被本服务器封禁：{reason}"),
    "banned_until": ("This server has banned you until {until}: {reason}",
                     "你已被本服务器封禁至 {until}：{reason}"),
    "no_reason": ("no reason given", "未说明原因"),
    "kicked": ("An operator closed your session: {reason}", "管理员断开了你的连接：{reason}"),
    "announce": ("Announcement: {text}", "公告：{text}"),
    # an operator's commands: answers and refusals (each line in both languages)
    "op_usage": ("usage: {usage}", "用法：{usage}"),
    "op_bad_duration": ("bad duration '{value}': a number and m, h or d (30m, 2h, 7d), at most "
                        "{most} days", "时长 '{value}' 无效：数字加 m、h 或 d，最多 {most} 天"),
    "op_bad_target": ("bad target '{value}': a key fingerprint (SHA256:...), a player's name, "
                      "an address or a network (10.0.0.0/24)",
                      "目标 '{value}' 无效：密钥指纹、玩家名、地址或网段"),
    "op_wide_net": ("network {value} is too wide: at most /{v4} for IPv4, /{v6} for IPv6",
                    "网段 {value} 太大：IPv4 最多 /{v4}，IPv6 最多 /{v6}"),
    "op_own": ("{value} covers your own key or address: not banned",
               "{value} 包括你自己的密钥或地址，未封禁"),
    "op_long_reason": ("the reason is longer than {most} characters",
                       "原因超过 {most} 个字符"),
    "op_no_player": ("no player {name}", "没有玩家 {name}"),
    "op_no_ban": ("no ban of {target}", "{target} 未被封禁"),
    "op_not_saved": ("not saved: the server cannot write now", "未保存：服务器暂时无法写入"),
    "op_banned": ("banned {target} until {until}; {n} sessions closed",
                  "已封禁 {target} 至 {until}；断开 {n} 个连接"),
    "op_banned_1": ("banned {target} until {until}; {n} session closed",
                    "已封禁 {target} 至 {until}；断开 {n} 个连接"),
    "op_unbanned": ("unbanned {target}", "已解封 {target}"),
    "op_muted": ("muted {name} until {until}", "已禁言 {name} 至 {until}"),
    "op_unmuted": ("unmuted {name}", "已解除禁言 {name}"),
    "op_kicked": ("{n} sessions of {name} closed", "已断开 {name} 的 {n} 个连接"),
    "op_kicked_1": ("{n} session of {name} closed", "已断开 {name} 的 {n} 个连接"),
    "op_announced": ("told {n} sessions", "已通知 {n} 个连接"),
    "op_announced_1": ("told {n} session", "已通知 {n} 个连接"),
    "op_closed": ("table {table} closed, its game kept for replay",
                  "牌桌 {table} 已关闭，对局已保存"),
    "op_no_end": ("further notice", "另行通知"),
    "op_no_bans": ("no bans", "没有封禁"),
    "op_close_sent": ("table {table} runs on another worker: it was told to close it",
                      "牌桌 {table} 在另一个服务进程上：已通知它关闭"),
    "op_elsewhere": ("the other workers were told too", "其他服务进程也已通知"),
    "op_no_audit": ("no operator actions yet", "还没有管理操作"),
    "op_nobody": ("nobody online", "无人在线"),
    "op_who_silent": ("worker {worker}: no answer in time, its sessions not listed",
                      "服务进程 {worker}：未及时回答，其连接未列出"),
    "op_no_reports": ("no reports", "没有举报"),
    # the players' /ignore and /report (net/front/players.py)
    "player_yourself": ("not yourself", "不能是你自己"),
    "player_not_saved": ("it could not be saved now: try again later",
                         "现在无法保存：请稍后再试"),
    "ignoring": ("you ignore: {names}", "你已屏蔽：{names}"),
    "ignoring_none": ("you ignore nobody (/ignore NAME hides a player's chat)",
                      "你没有屏蔽任何人（/ignore 名字 可屏蔽其聊天）"),
    "ignored": ("{name}'s chat is hidden for you from now on (/unignore {name} shows it)",
                "从现在起不再显示 {name} 的聊天（/unignore {name} 恢复）"),
    "unignored": ("{name}'s chat is shown again", "已恢复显示 {name} 的聊天"),
    "ignored_already": ("you already ignore {name}", "你已屏蔽 {name}"),
    "ignored_not": ("you do not ignore {name}", "你没有屏蔽 {name}"),
    "ignore_full": ("you ignore {n} players, the most: /unignore one first",
                    "你已屏蔽 {n} 人，已达上限：请先 /unignore 一人"),
    "ignore_full_1": ("you ignore {n} player, the most: /unignore them first",
                      "你已屏蔽 {n} 人，已达上限：请先 /unignore 此人"),
    "report_kept": ("your report of {name} is kept for the operators",
                    "你对 {name} 的举报已转交管理员"),
    "report_day_full": ("you have made {n} reports today, the most: try again tomorrow",
                        "你今天已举报 {n} 次，已达上限：请明天再试"),
    "report_day_full_1": ("you have made {n} report today, the most: try again tomorrow",
                          "你今天已举报 {n} 次，已达上限：请明天再试"),
    "report_again": ("you reported {name} within the last {minutes} minutes",
                     "你在 {minutes} 分钟内已举报过 {name}"),
}
