"""The words of the plain front end (``--plain``, :mod:`tui.plain.front`) in English and Chinese:
tiles by name, each move as a sentence, the prompts. Rule names keep their Chinese name.

Kept apart from :mod:`tui.words.i18n` (the screens' words), whose short labels are made for cells
on a table drawn in 80×24, not for a sentence read aloud.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from engine.tiles import Kind
from tui.words.i18n import ABSOLUTE, lookup

_EN_SUITS: Final = ("characters", "dots", "bamboo")
_ZH_SUITS: Final = ("万", "筒", "条")
_ZH_NUMERALS: Final = "一二三四五六七八九"
_EN_HONOURS: Final = ("east wind", "south wind", "west wind", "north wind",
                      "red dragon 中", "green dragon 发", "white dragon 白")
_ZH_HONOURS: Final = ("东风", "南风", "西风", "北风", "红中", "发财", "白板")

SEATS: Final = ABSOLUTE  # a seat by its wind: East / 东家
RELATIVE: Final = {
    "en": ("you", "on your right", "across", "on your left"),
    "zh": ("你", "下家", "对家", "上家"),
}


def tile_name(kind: Kind, lang: str) -> str:
    """``5 bamboo`` / ``五条``; ``east wind`` / ``东风``."""
    if kind >= 27:
        return (_ZH_HONOURS if lang == "zh" else _EN_HONOURS)[kind - 27]
    if lang == "zh":
        return _ZH_NUMERALS[kind % 9] + _ZH_SUITS[kind // 9]
    return f"{kind % 9 + 1} {_EN_SUITS[kind // 9]}"


def tiles_names(kinds: Iterable[Kind], lang: str) -> str:
    """Tiles in running text, a suit's numbers together: ``1 2 3 characters, east wind``
    / ``一二三万 东风``."""
    groups: list[str] = []
    run: list[Kind] = []

    def flush() -> None:
        if not run:
            return
        suit = run[0] // 9
        if lang == "zh":
            groups.append("".join(_ZH_NUMERALS[k % 9] for k in run) + _ZH_SUITS[suit])
        else:
            groups.append(" ".join(str(k % 9 + 1) for k in run) + " " + _EN_SUITS[suit])
        run.clear()

    for k in kinds:
        if k < 27 and (not run or run[0] // 9 == k // 9):
            run.append(k)
            continue
        flush()
        if k < 27:
            run.append(k)
        else:
            groups.append(tile_name(k, lang))
    flush()
    return (" " if lang == "zh" else ", ").join(groups)


TEXT: Final[dict[str, tuple[str, str]]] = {
    # the table at the start
    "table": ("Table: {rules}, hand {n} of {of}. Dealer: {dealer}.",
              "牌桌：{rules}，第{n}/{of}盘。庄家：{dealer}。"),
    "seats": ("Seats: {seats}.", "座位：{seats}。"),
    "seat_you": ("{seat} you", "{seat} 你"),
    "seat_other": ("{seat} {name} ({rel})", "{seat} {name}（{rel}）"),
    "seat_spectating": ("You watch: no concealed tile is shown.", "你在旁观，看不到暗牌。"),
    "scores": ("Scores: {scores}.", "总分：{scores}。"),
    "hand": ("Your hand: {tiles}.", "手牌：{tiles}。"),
    "hand_drawn": ("Your hand: {tiles}; drawn {tile}.", "手牌：{tiles}；摸到{tile}。"),
    "hand_numbered": ("Your hand by number: {tiles}.", "手牌编号：{tiles}。"),
    "melds_mine": ("Your melds: {melds}.", "你的副露：{melds}。"),
    "wild_is": ("The wild 宝 is {wild} (indicator {ind}).", "宝牌是{wild}（翻开{ind}）。"),
    "kong_tiles": ("The kong tiles 杠牌: {tiles}.", "杠牌：{tiles}。"),
    "wall": ("{n} tiles left in the wall.", "牌墙剩{n}张。"),
    "nothing": ("none", "无"),
    # events
    "ev_deal": ("The tiles are dealt; hand {n}.", "第{n}盘发牌。"),
    "ev_draw_you": ("You draw {tile}.", "你摸到{tile}。"),
    "ev_replacement_you": ("You draw the replacement tile {tile}.", "你补牌{tile}。"),
    "ev_discard": ("{who} discards {tile}.", "{who}打出{tile}。"),
    "ev_discard_you": ("You discard {tile}.", "你打出{tile}。"),
    "ev_ting": ("{who} declares 报听 (ready).", "{who}报听。"),
    "ev_chi": ("{who} chows {tile}: {tiles} (吃).", "{who}吃{tile}：{tiles}。"),
    "ev_peng": ("{who} pongs {tile} (碰).", "{who}碰{tile}。"),
    "ev_minggang": ("{who} kongs {tile} (明杠).", "{who}明杠{tile}。"),
    "ev_angang": ("{who} makes a concealed kong (暗杠).", "{who}暗杠。"),
    "ev_angang_tile": ("{who} makes a concealed kong of {tile} (暗杠).", "{who}暗杠{tile}。"),
    "ev_bugang": ("{who} adds {tile} to a pong (补杠).", "{who}补杠{tile}。"),
    "ev_robbed": ("{who} robs the kong (抢杠).", "{who}抢杠。"),
    "ev_win": ("{who} wins (胡)!", "{who}胡了！"),
    "ev_pond_win": ("{who} wins with the discards (塘子烂糊)!", "{who}塘子烂糊！"),
    "ev_jiebao": ("{who} takes the wild (接宝).", "{who}接宝。"),
    "ev_four_wilds": ("{who} holds four wilds (四个宝).", "{who}四个宝。"),
    "ev_exhausted": ("The wall is exhausted (荒牌): nobody wins.", "荒牌，无人胡牌。"),
    "ev_ting_you": ("You declare 报听 (ready).", "你报听。"),
    "ev_chi_you": ("You chow {tile}: {tiles} (吃).", "你吃{tile}：{tiles}。"),
    "ev_peng_you": ("You pong {tile} (碰).", "你碰{tile}。"),
    "ev_minggang_you": ("You kong {tile} (明杠).", "你明杠{tile}。"),
    "ev_angang_you": ("You make a concealed kong (暗杠).", "你暗杠。"),
    "ev_angang_tile_you": ("You make a concealed kong of {tile} (暗杠).", "你暗杠{tile}。"),
    "ev_bugang_you": ("You add {tile} to your pong (补杠).", "你补杠{tile}。"),
    "ev_robbed_you": ("You rob the kong (抢杠).", "你抢杠。"),
    "ev_win_you": ("You win (胡)!", "你胡了！"),
    "ev_pond_win_you": ("You win with the discards (塘子烂糊)!", "你塘子烂糊！"),
    "ev_jiebao_you": ("You take the wild (接宝).", "你接宝。"),
    "ev_four_wilds_you": ("You hold four wilds (四个宝).", "你四个宝。"),
    "ev_buy_you": ("You buy (买).", "你买。"),
    "ev_no_buy_you": ("You do not buy (不买).", "你不买。"),
    "ev_lighter_you": ("You throw the lighter (打火机).", "你丢打火机。"),
    "ev_buy": ("{who} buys (买).", "{who}买。"),
    "ev_no_buy": ("{who} does not buy (不买).", "{who}不买。"),
    "ev_lighter": ("{who} throws the lighter (打火机).", "{who}丢打火机。"),
    "ev_wild": ("The 宝 indicator is {tile}: the wild is {wild}.", "翻宝{tile}，宝牌是{wild}。"),
    # the player's own state
    "waits": ("You wait on: {tiles}.", "你听：{tiles}。"),
    "waits_left": ("{tile} ({n} left)", "{tile}（剩{n}张）"),
    "waits_any": ("any tile", "任何牌"),
    "ready_by": ("Ready if you discard: {options}.", "打出可听牌：{options}。"),
    "ready_option": ("{tile} (waits on {waits})", "{tile}（听{waits}）"),
    "timer": ("You have {n} seconds.", "你有{n}秒。"),
    "timer_low": ("{n} seconds left!", "还剩{n}秒！"),
    # prompts
    "ask_turn": ("Your turn: type a tile to discard (e.g. {eg}), or its number{more}.",
                 "轮到你：输入要打的牌（如{eg}）或编号{more}。"),
    "ask_turn_win": ("; w or hu: win 胡", "；w 或 hu 胡"),
    "ask_turn_kong": ("; k: kong 杠", "；k 杠"),
    "ask_turn_ting": ("; b TILE: discard and declare 报听", "；b 牌：打出并报听"),
    "ask_claim": ("{who} discarded {tile}. You may: {choices}.",
                  "{who}打出{tile}。你可以：{choices}。"),
    "ask_rob": ("{who} kongs with {tile}. You may: {choices}.",
                "{who}杠{tile}。你可以：{choices}。"),
    "ask_kong": ("Which kong? {choices}.", "杠哪一个？{choices}。"),
    "ask_buy": ("Buy (买) this hand? Your wins and payments count double. {choices}.",
                "本盘买不买？买则输赢加倍。{choices}。"),
    "ask_buy_must": ("You must buy (买) this hand: your wins and payments count double. "
                     "{choices}.", "本盘你必须买，输赢加倍。{choices}。"),
    "not_dealt": ("Your tiles are dealt once everyone has decided whether to buy.",
                  "大家决定买不买之后才发牌。"),
    "ask_declare": ("Your 14 discards make 塘子烂糊. {choices}.",
                    "你的14张弃牌凑成塘子烂糊。{choices}。"),
    "ask_next": ("Press Enter for the next hand.", "按 Enter 开始下一盘。"),
    "ask_next_game": ("Press Enter for a new game, or type quit.",
                      "按 Enter 开始新游戏，或输入 quit 离开。"),
    "ask_waiting": ("Type start to begin now (computer players take the empty seats), "
                    "say TEXT to chat, quit to leave.",
                    "输入 start 立即开始（电脑补位），say 文字 聊天，quit 离开。"),
    "ask_waiting_watch": ("The hand starts when four sit or a player starts it. "
                          "say TEXT to chat, quit to leave.",
                          "四人入座或有玩家开始即开局。say 文字 聊天，quit 离开。"),
    "c_pass": ("Enter: pass 过", "Enter 过"),
    # a decision's options (tui/view/decisions.py), {letter}: `` (p)``, the key that picks it
    "c_win": ("{n} win 胡{letter}", "{n} 胡{letter}"),
    "c_rob": ("{n} rob the kong 抢杠{letter}", "{n} 抢杠胡{letter}"),
    "c_peng": ("{n} pong 碰{letter}", "{n} 碰{letter}"),
    "c_kong": ("{n} kong 杠{letter}{slot}", "{n} 杠{letter}{slot}"),
    "c_chi": ("{n} chow 吃 {tiles}{letter}", "{n} 吃{tiles}{letter}"),
    "c_slot": (" with kong tile {k}: {tile}", "，杠牌{k}：{tile}"),
    "c_angang": ("{n} concealed kong 暗杠 of {tile}{letter}{slot}", "{n} 暗杠{tile}{letter}{slot}"),
    "c_bugang": ("{n} add {tile} to your pong 补杠{letter}{slot}", "{n} 补杠{tile}{letter}{slot}"),
    "c_buy": ("{n} buy 买{lighter}{letter}", "{n} 买{lighter}{letter}"),
    "c_nobuy": ("{n} do not buy 不买{lighter}{letter}", "{n} 不买{lighter}{letter}"),
    "c_lighter": (" and throw the lighter 打火机 (all payments double again)",
                  "并丢打火机（支付再翻倍）"),
    "c_pond": ("{n} win with the discards 塘子烂糊{letter}", "{n} 塘子烂糊{letter}"),
    "c_cancel": ("Enter: cancel", "Enter 取消"),
    # the result
    "res_title": ("Hand {n} is over.", "第{n}盘结束。"),
    "res_hand": ("{who}: {tiles}{melds}.", "{who}：{tiles}{melds}。"),
    "res_melds": ("; melds {melds}", "；副露 {melds}"),
    "res_win": ("{who} wins with {pattern}, {how}; winning tile {tile}.",
                "{who}胡{pattern}，{how}；胡的牌：{tile}。"),
    "res_item": ("{zh} {en}: {value}{tiles}.", "{zh}：{value}{tiles}。"),
    "res_value": ("Value {v}.", "合计{v}。"),
    "res_draw": ("Nobody won (荒牌).", "荒牌，无人胡牌。"),
    "res_pays": ("{payer} pays {payee} {amount}: {why}.", "{payer}付给{payee} {amount}：{why}。"),
    "res_no_pay": ("Nobody pays.", "无人支付。"),
    "res_net": ("This hand: {nets}.", "本盘：{nets}。"),
    "res_totals": ("Totals: {nets}.", "总分：{nets}。"),
    "res_next_dealer": ("Next dealer: {who}.", "下盘庄家：{who}。"),
    "game_over": ("The game is over. {who} wins the game.", "游戏结束。{who}获胜。"),
    "game_tied": ("The game is over. Level at the top: {who}.", "游戏结束。并列第一：{who}。"),
    "game_hands": ("Hand {n}: {nets}; won by {who}.", "第{n}盘：{nets}；{who}胡。"),
    "drawn_hand": ("nobody", "无人"),
    "how_self_draw": ("self-drawn 自摸", "自摸"),
    "how_discard": ("on the discard of {who} 点炮", "{who}点炮"),
    "how_rob_kong": ("robbing the kong of {who} 抢杠", "抢{who}的杠"),
    "how_kong_replacement": ("on a kong's replacement tile 杠开", "杠开"),
    "how_heavenly": ("on the dealt hand 天糊", "天糊"),
    "how_earthly": ("on the first discard of {who} 地糊", "{who}首张点炮（地糊）"),
    "how_pond": ("with the 14 discards 塘子烂糊", "塘子烂糊"),
    # the look at the table
    "look_seat": ("{who}: {n} concealed tiles{flags}; melds {melds}; discards {pond}.",
                  "{who}：暗牌{n}张{flags}；副露 {melds}；弃牌 {pond}。"),
    "flag_dealer": (", dealer 庄", "，庄家"),
    "flag_ting": (", declared 报听", "，已报听"),
    "flag_bought": (", bought 买", "，买"),
    "flag_lighter": (", lighter 打火机", "，打火机"),
    "flag_flown": (", 飞宝 ×{n}", "，飞宝×{n}"),
    "turn_of": ("It is {who}'s turn.", "轮到{who}。"),
    "your_turn": ("It is your turn.", "轮到你。"),
    "turn_claims": ("The others may claim the discard.", "等待其他玩家吃碰。"),
    "meld_chi": ("chow {tiles}", "吃{tiles}"),
    "meld_peng": ("pong {tiles}", "碰{tiles}"),
    "meld_mgang": ("kong {tiles}", "明杠{tiles}"),
    "meld_bgang": ("kong {tiles}", "补杠{tiles}"),
    "meld_agang": ("concealed kong {tiles}", "暗杠{tiles}"),
    "meld_hidden": ("a face-down kong", "暗杠一副"),
    # input
    "help": (
        "Commands: a tile such as 5s, 5p, 5m, E, Z (or its number) discards it in your turn; "
        "w or hu win (then the west wind by its number), k kong, p pong, c chow (c1, c2 … "
        "or k1, k2 … when there are several), b TILE 报听, m buy 买, n do not buy, "
        "d 塘子烂糊, Enter or x pass; hand, table (or look), waits, "
        "log N (the last N moves), scores, plain off, help, quit.",
        "命令：轮到你时输入牌（如 5s 5p 5m E Z）或编号即打出；w 或 hu 胡（此时西风用编号），"
        "k 杠，p 碰，c 吃（多种时 c1 c2 … 或 k1 k2 …），b 牌 报听，m 买，n 不买，d 塘子烂糊，"
        "Enter 或 x 过；hand 手牌，table 或 look 牌桌，"
        "waits 听牌，log N 最近N步，scores 总分，plain off 关闭读屏模式，help 帮助，quit 离开。"),
    "help_shared": (" At a shared table: say TEXT to chat, start to begin while it waits.",
                    " 多人牌桌：say 文字 聊天，等待时 start 开始。"),
    "unknown": ("Not understood: {what}. Type help for the commands.",
                "看不懂：{what}。输入 help 查看命令。"),
    "too_long": ("That line is too long (at most {n} characters).",
                 "这一行太长（最多{n}个字符）。"),
    "not_your_turn": ("It is not your move now.", "现在不是你出牌。"),
    "no_such_tile": ("You have no {tile}.", "你没有{tile}。"),
    "no_number": ("No choice {n}: choose 1 to {most}.", "没有第{n}项：请选1到{most}。"),
    "no_win": ("You cannot win now.", "现在不能胡。"),
    "no_kong": ("No kong is possible now.", "现在不能杠。"),
    "no_ting": ("报听 is not possible with {tile}.", "打{tile}不能报听。"),
    "no_claim": ("That claim is not possible now.", "现在不能这样吃碰。"),
    "which_chow": ("Which chow? {choices}.", "吃哪一种？{choices}。"),
    "no_log": ("No moves yet.", "还没有出牌。"),
    "log_head": ("The last {n} moves:", "最近{n}步："),
    "chat": ("{who} says: {text}", "{who}说：{text}"),
    "chat_usage": ("Type say and then your words.", "请输入 say 和要说的话。"),
    "no_chat": ("There is nobody to talk to at this table.", "这张牌桌没有人可以聊天。"),
    "sits": ("{seat}: {name} sits down.", "{seat}：{name}入座。"),
    "leaves": ("{seat}: {name} left.", "{seat}：{name}离开。"),
    "empty_seat": ("empty (a computer player will sit here)", "空位（电脑补位）"),
    "waiting_table": ("Table {name}, {rules}: waiting for players.",
                      "牌桌{name}，{rules}：等待玩家。"),
    "waiting_for": ("Waiting for {who}.", "等待{who}。"),
    "plain_on": ("Plain mode stays on: the table is lines of text at every start.",
                 "读屏模式保持开启：每次启动都以文字行显示。"),
    "plain_off": ("Plain mode is off from the next start: the table is drawn then "
                  "(--plain still asks for it).",
                  "下次启动起关闭读屏模式，改为画出牌桌（仍可用 --plain）。"),
    "plain_usage": ("Type plain off (the drawn table from the next start) or plain on.",
                    "输入 plain off（下次起画出牌桌）或 plain on。"),
    "bye": ("You left the table.", "你已离开牌桌。"),
    "timer_played": ("Your timer ran out: the table played for you.", "你超时了，系统替你出牌。"),
    # the plain lobby (net/front/plain_session.py)
    "lobby_welcome": ("Lobby. {n} tables.", "大厅。共{n}张牌桌。"),
    "lobby_none": ("No tables yet.", "还没有牌桌。"),
    "lobby_ask": ("Type a table's number or name to sit (a new name creates it; add "
                  "yichun, shangrao or gejiu), watch and a number to watch, list, or quit",
                  "输入牌桌编号或名字入座（新名字即建桌，可加 yichun、shangrao 或 gejiu），"
                  "watch 编号 旁观，list 列表，quit 离开"),
    "lobby_no_number": ("There is no table {n}.", "没有第{n}张牌桌。"),
}


def pt(lang: str, key: str, /, **fields: object) -> str:
    """The plain front end's text ``key`` in ``lang`` (``en`` or ``zh``)."""
    return lookup(TEXT, lang, key, **fields)
