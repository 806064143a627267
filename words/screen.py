"""The Textual front end's words: the table's status, flags, prompts and log, the result and
game-over screens, the replay and review viewers, new game, settings and help. Short labels, made
for cells on a table drawn in 80×24."""

from __future__ import annotations

from typing import Final

SCREEN: Final[dict[str, tuple[str, str]]] = {
    # status bar
    "hand_no": ("Hand {n}/{of}", "第{n}/{of}盘"),
    "dealer": ("Dealer {seat}", "庄 {seat}"),
    "wall": ("Wall {n}", "牌墙 {n}"),
    "turn_of": ("{who} to play", "轮到{who}"),
    "your_turn": ("Your turn", "轮到你"),
    "claims": ("Claim window", "吃碰中"),
    # the timer with a time bank (the option time_bank): own seconds left, then the bank's
    "timer_bank": ("{s}s + bank {b}s", "{s}秒 + 备用{b}秒"),
    "timer_bank_short": ("{s}+{b}s", "{s}+{b}秒"),
    # the auto toggles on (z, u, o at the table), on the status line: in words where it fits,
    # else by the marks the prompts use (过 pass, 胡 win, 切 the drawn tile out)
    "auto_on": ("Auto: {what}", "自动：{what}"),
    "auto_pass": ("no calls", "不吃碰"),
    "auto_win": ("win", "胡"),
    "auto_discard": ("discard drawn", "摸切"),
    "auto_short": ("[{what}]", "[{what}]"),
    # the status line while the table plays a seat whose timer ran out twice, until a key
    "away_on": ("Away: the timer plays for you, any key: back", "离席：计时代打，按任意键回来"),
    "away_short": ("Away: any key", "离席：按任意键"),
    "auto_pass_mark": ("过", "过"),
    "auto_win_mark": ("胡", "胡"),
    "auto_discard_mark": ("切", "切"),
    # the toggles' notices are said in the table's centre (42 cells at 80 columns), wrapped
    # at spaces: each Chinese one, which has none, fits on one line of it
    "auto_pass_set": ("No calls on: chi, pung and kong offers are passed for you (a win is "
                      "still yours to take)", "自动不吃碰：吃碰杠自动过，胡牌仍由你定"),
    "auto_pass_unset": ("No calls off", "已关闭自动不吃碰"),
    "auto_win_set": ("Auto-win on: every win offered is taken", "自动胡牌：能胡就胡"),
    "auto_win_unset": ("Auto-win off", "已关闭自动胡牌"),
    "auto_discard_set": ("Auto-discard on: the drawn tile goes out when there is no win or kong "
                         "to decide", "自动摸切：无胡无杠时打出摸到的牌"),
    "auto_discard_unset": ("Auto-discard off", "已关闭自动摸切"),
    "rob": ("Robbing window", "抢杠中"),
    "buy_phase": ("Buying", "选择买不买"),
    "declare": ("塘子烂糊?", "塘子烂糊？"),
    "ended": ("Hand over", "本盘结束"),
    "ended_waiting": ("Hand over: waiting for {n}", "本盘结束：等待{n}人"),
    "waiting_for": ("Waiting for {who}", "等待{who}"),
    "waiting_for_game": ("New game when all are ready: waiting for {who}",
                         "全员准备后开始新游戏：等待{who}"),
    "game_asked": ("A new game is asked for: Enter to play again",
                   "有人请求新游戏：按 Enter 再来一局"),
    "game_asked_also": (" (and waiting for {who})", "（也在等{who}）"),
    "tiles_left": ("{n} tiles", "{n}张"),
    "tiles_left_1": ("{n} tile", "{n}张"),
    # rulesets
    "wild": ("宝 wild {wild} (indicator {ind})", "宝 {wild}（翻开 {ind}）"),
    "kong_tiles": ("杠牌 kong tiles {tiles}", "杠牌 {tiles}"),
    "buyers": ("买 bought: {who}", "买：{who}"),
    "lighters": ("打火机 lighter: {who}", "打火机：{who}"),
    "nobody": ("nobody", "无人"),
    "dice": ("Dice {n}", "骰子 {n}"),
    "flag_buy": ("买", "买"),
    "flag_nobuy": ("不买", "不买"),
    "flag_lighter": ("火", "火"),
    "flag_ting": ("听 ready", "报听"),
    "flag_flown": ("飞宝×{n}", "飞宝×{n}"),
    "flag_dealer": ("庄 dealer", "庄"),
    # the one-character forms a narrow side seat falls back on (flags are never dropped)
    "flag_ting_short": ("听", "听"),
    "flag_flown_short": ("飞{n}", "飞{n}"),
    "flag_dealer_short": ("庄", "庄"),
    "tiles_left_short": ("{n}t", "{n}张"),
    # prompts and keys
    "k_discard": ("Enter: discard {tile}", "Enter 打出 {tile}"),
    "k_fly": ("(飞宝: ×2 win or pay)", "（飞宝：输赢翻倍）"),
    "ddz": ("斗地主 follow", "斗地主"),
    "k_win": ("w: win 胡", "w 胡"),
    "k_kong": ("k: kong 杠", "k 杠"),
    "k_ting": ("b: ready 报听", "b 报听"),
    "k_help": ("?: help", "? 帮助"),
    "k_face": ("t: tiles", "t 牌面"),
    "wait_others": ("Waiting for the others…", "等待其他玩家…"),
    "watching": ("Watching (no concealed tile shown)", "旁观中（看不到暗牌）"),
    "claim_on": ("{who} discarded {tile}:", "{who}打出 {tile}："),
    "rob_on": ("{who} kongs with {tile}:", "{who}杠牌 {tile}："),
    "buy_q": ("Buy (买) this hand?", "本盘买不买？"),
    # a seat that may not decline (yichun.md §7.3) is asked only whether to add a lighter
    "buy_q_must": ("You must buy (买): a lighter too?", "你必须买：再丢打火机吗？"),
    "buy_why_dealer": ("The dealer always buys (庄家必买)", "庄家必买"),
    "buy_why_wall": ("The dice ({dice}) start the deal at your wall: its owner buys",
                     "骰子{dice}点，从你的牌墙开始拿牌：开始拿牌的人必买"),
    # the seats choose one at a time (yichun.md §7.3): whose choice the table waits for
    "buy_in_turn": ("Buying in turn from the dealer's right, dealer last: {who} chooses",
                    "从庄家下家起依次选择买不买，庄家最后：现在轮到{who}"),
    "buy_not_yet": ("Not your choice yet: {who} is choosing (in turn, the dealer last)",
                    "还没轮到你：现在轮到{who}选择（依次选择，庄家最后）"),
    "kong_q": ("Which kong?", "杠哪一张？"),
    "declare_q": ("Your 14 discards make 塘子烂糊: win?", "你的14张弃牌凑成塘子烂糊，胡吗？"),
    "declare_note": ("d: win with them · x: pass", "d 胡塘子烂糊 · x 过"),
    "opt_pass": ("Pass 过", "过"),
    "opt_win": ("Win 胡", "胡"),
    "opt_rob": ("Rob the kong 抢杠", "抢杠胡"),
    "opt_peng": ("Pung 碰", "碰"),
    "opt_kong": ("Kong 杠", "杠"),
    "opt_chi": ("Chi 吃 {tile}", "吃 {tile}"),  # {tile}: the chow's run
    "opt_angang": ("暗杠 {tile}", "暗杠 {tile}"),
    "opt_bugang": ("补杠 {tile}", "补杠 {tile}"),
    "opt_slot": (" (杠牌 {n})", "（杠牌{n}）"),
    "opt_buy": ("Buy 买", "买"),
    "lighter_note": ("Lighter +打火机: all payments ×2 again", "+打火机：本盘胡牌支付再翻倍"),
    "buy_note": ("Buy 买: your wins and payments ×2", "买：你本盘输赢加倍"),
    # buying comes before the deal: the hand under the prompt is empty until all have chosen
    "buy_deal_after": ("The tiles are dealt once all four have chosen to buy or not",
                       "四家都选好买不买后才发牌"),
    "pond_of": ("{who} discards", "{who} 弃牌"),
    "opt_nobuy": ("No 不买", "不买"),
    "opt_lighter": ("+打火机", "+打火机"),
    "opt_pond": ("Win with the pond 塘子烂糊", "塘子烂糊"),
    "opt_cancel": ("Cancel", "取消"),
    "prompt_keys": ("←/→ choose · Enter confirm", "←/→ 选择 · Enter 确认"),
    # hints
    "waits": ("听 Waits:", "听牌："),
    "waits_after": ("Discard {tile} → waits:", "打 {tile} 听："),
    "waits_any": ("any tile ({n} unseen)", "任何牌（未见 {n} 张）"),
    "waits_but": ("any tile except {tiles} ({n} unseen)", "除 {tiles} 外任何牌（未见 {n} 张）"),
    "left_n": ("{n} left", "剩{n}"),
    "suggest": ("Suggested discard: {tile}", "建议打：{tile}"),
    "not_now": ("Nothing to do now", "现在不能操作"),
    "not_your_turn": ("Not your turn", "还没轮到你"),
    "no_win": ("No win possible now", "现在不能胡"),
    "no_kong": ("No kong possible now", "现在不能杠"),
    "no_ting": ("报听 is not possible with {tile}", "打{tile}不能报听"),
    "no_ting_at_all": ("报听 is not possible now", "现在不能报听"),
    "quit_again": ("Press q again to leave the table", "再按 q 离开牌桌"),
    # a seat at a shared table mid-game: the computer plays it on and the game is rated
    # (docs/playing.md, Ratings), which a player leaving may not expect
    "quit_again_rated": ("Press q again to leave: the computer plays your seat to the end, "
                         "and the game still counts for your rating",
                         "再按 q 离开：电脑替你打完本局，\n本局仍计入你的等级分"),
    # log
    "ev_buy": ("{who} 买", "{who}买"),
    "ev_no_buy": ("{who} 不买", "{who}不买"),
    "ev_lighter": ("{who} 打火机", "{who}丢打火机"),
    "ev_deal": ("Dealt", "发牌"),
    "ev_wild": ("宝 indicator {tile}", "翻宝 {tile}"),
    "ev_draw": ("{who} drew", "{who}摸牌"),
    "ev_replacement": ("{who} replacement", "{who}补牌"),
    "ev_discard": ("{who} ▶{tile}", "{who}打{tile}"),
    "ev_ting": ("{who} 报听", "{who}报听"),
    "ev_chi": ("{who} 吃 {tiles}", "{who}吃{tiles}"),
    "ev_peng": ("{who} 碰 {tile}", "{who}碰{tile}"),
    "ev_minggang": ("{who} 明杠 {tile}", "{who}明杠{tile}"),
    "ev_angang": ("{who} 暗杠", "{who}暗杠"),
    "ev_bugang": ("{who} 补杠 {tile}", "{who}补杠{tile}"),
    "ev_robbed": ("{who} robbed 抢杠", "{who}抢杠"),
    "ev_win": ("{who} 胡!", "{who}胡了！"),
    "ev_pond_win": ("{who} 塘子烂糊!", "{who}塘子烂糊！"),
    "ev_jiebao": ("{who} 接宝", "{who}接宝"),
    "ev_four_wilds": ("{who} 四个宝", "{who}四个宝"),
    "ev_exhausted": ("Wall exhausted 荒牌", "荒牌"),
    # too small
    "too_small": (
        "Please enlarge the terminal to at least 80×24 (now {w}×{h}). The game is paused.",
        "请把终端放大到至少 80×24（现在 {w}×{h}）。游戏已暂停。",
    ),
    "too_small_live": (
        "Please enlarge the terminal to at least 80×24 (now {w}×{h}). The table plays on: "
        "your turn timer keeps running.",
        "请把终端放大到至少 80×24（现在 {w}×{h}）。牌桌照常进行，你的计时不会停。",
    ),
    "too_small_watch": (
        "Please enlarge the terminal to at least 80×24 (now {w}×{h}). The table plays on.",
        "请把终端放大到至少 80×24（现在 {w}×{h}）。牌桌照常进行。",
    ),
    # under the notice, after a key that would act on the table the notice hides
    "too_small_keys": ("Keys that play do nothing until the table is shown (? help, q q leave)",
                       "牌桌显示之前，出牌的按键不起作用（? 帮助，q q 离开）"),
    # result screen
    "res_title": ("Hand {n} result", "第{n}盘结果"),
    "res_draw": ("Drawn hand 荒牌 — nobody won", "荒牌 — 无人胡牌"),
    "res_winner": ("{who} wins 胡: {pattern}", "{who}胡：{pattern}"),
    "how_self_draw": ("self-drawn 自摸", "自摸"),
    "how_discard": ("on {who}'s discard 点炮", "{who}点炮"),
    "how_discard_you": ("on your discard 点炮", "你点炮"),
    "how_rob_kong": ("robbing {who}'s kong 抢杠", "抢{who}的杠"),
    "how_rob_kong_you": ("robbing your kong 抢杠", "抢你的杠"),
    "how_kong_replacement": ("on a kong's replacement tile 杠开", "杠开"),
    "how_heavenly": ("on the dealt hand 天糊", "天糊"),
    "how_earthly": ("on {who}'s first discard 地糊", "{who}首张点炮（地糊）"),
    "how_earthly_you": ("on your first discard 地糊", "你首张点炮（地糊）"),
    "how_pond": ("with the 14 discards 塘子烂糊", "塘子烂糊"),
    "res_total": ("Value {v}", "合计 {v}"),
    "res_transfers": ("Who paid whom", "谁付给谁"),
    # one payer's payments to one payee, summed (the summary at the result's top)
    "res_paid": ("{payer} → {payee} {amount}", "{payer}→{payee} {amount}"),
    "res_why": ("Payments, each with its reason", "支付明细"),
    # chat at a shared table: its history (v), and a toast's count of lines heard meanwhile
    "chat_log_title": ("Chat at this table (newest last)", "本桌聊天记录（最新在下）"),
    "chat_log_empty": ("Nobody has said anything yet. /: write a line",
                       "还没有人说话。按 / 发言"),
    "chat_log_keys": ("↑/↓ PgUp/PgDn Home/End: scroll · /: write · Esc: close",
                      "↑/↓ PgUp/PgDn Home/End 翻看 · / 发言 · Esc 关闭"),
    "chat_more": ("+{n} · v: chat history", "+{n} · v 聊天记录"),
    "res_pays": ("{payer} → {payee}  {amount}  {why}", "{payer} → {payee}  {amount}  {why}"),
    "res_net": ("This hand", "本盘"),
    "res_totals": ("Totals", "总分"),
    "res_next": ("Enter: next hand · ?: help · q: leave", "Enter 下一盘 · ? 帮助 · q 离开"),
    "res_last": ("Enter: game result", "Enter 查看总成绩"),
    "res_hands": ("Hands", "手牌"),
    "res_win_tile": ("winning tile", "胡的牌"),
    "res_next_dealer": ("Next dealer: {seat}", "下盘庄家：{seat}"),
    "game_title": ("Game over — {rules}", "游戏结束 — {rules}"),
    "game_hand": ("Hand {n}", "第{n}盘"),
    "game_winner": ("Winner: {who}", "赢家：{who}"),
    "game_tied": ("Level at the top: {who}", "并列第一：{who}"),
    "game_keys": ("Enter: new game · q: leave", "Enter 新游戏 · q 离开"),
    "game_keys_leave": ("Enter / q: leave", "Enter / q 离开"),
    "game_keys_leave_review": ("Enter / q: leave · r: review your play",
                               "Enter / q 离开 · r 复盘"),
    "game_tournament_next": ("Tournament {name}: the lobby shows your next table (or the "
                             "standings once it is over)",
                             "比赛 {name}：大厅会显示你的下一桌（比赛结束后显示排名）"),
    # the replay viewer (tui/apps/replay.py)
    "rp_title": ("Replay {id} · {rules} · hand {n}/{of} · move {k}/{moves}",
                 "重看 {id} · {rules} · 第{n}/{of}盘 · 第{k}/{moves}步"),
    "rp_seen": ("seen from {seat}", "视角：{seat}"),
    "rp_start": ("(the deal: no move yet)", "（发牌：尚未行动）"),
    "rp_pond": ("pond", "牌河"),
    "rp_log": ("Moves", "行牌记录"),
    "rp_keys": ("←/→ move · Home/End · PgUp/PgDn or [ ] hand · Tab seat · "
                "digits+Enter: go to move · q: leave",
                "←/→ 一步 · Home/End 首/尾 · PgUp/PgDn 或 [ ] 换盘 · Tab 换视角 · "
                "数字+Enter 跳到第几步 · q 离开"),
    "rp_goto": ("go to move {n} (Enter; Esc: cancel)", "跳到第{n}步（Enter；Esc 取消）"),
    "rp_problem": ("note: {problem}", "注意：{problem}"),
    "rp_list_title": ("Your finished games (newest first) · Enter: open · q: leave",
                      "你完成的对局（最新在前）· Enter 打开 · q 离开"),
    "rp_list_none": ("No finished game yet: play one, then its ID is on its game-over "
                     "screen. Friends' games open with: ssh … replay ID",
                     "还没有完成的对局。对局结束时会显示编号；朋友的对局用 ssh … replay 编号 打开"),
    "rp_list_row": ("{id}  {date}  {rules}  {table}  seat {seat}  {score:+d}  ({n} hands)",
                    "{id}  {date}  {rules}  {table}  {seat}家  {score:+d}（{n}盘）"),
    "rp_list_row_1": ("{id}  {date}  {rules}  {table}  seat {seat}  {score:+d}  ({n} hand)",
                      "{id}  {date}  {rules}  {table}  {seat}家  {score:+d}（{n}盘）"),
    # the review of one's play by the expert (tui/apps/review.py, tui/words/review_text.py)
    "game_keys_review": ("Enter: new game · r: review your play · q: leave",
                         "Enter 新游戏 · r 复盘（高手点评）· q 离开"),
    "rv_title": ("Review {id} · {rules} · {seat}", "复盘 {id} · {rules} · {seat}"),
    "rv_where": ("decision {i}/{n} · hand {hand} move {move}",
                 "第{i}/{n}个决定 · 第{hand}盘第{move}步"),
    "rv_assessing": ("assessing {done}/{n}", "评估中 {done}/{n}"),
    "rv_assessed": ("assessed {n}/{n}", "已评估 {n}/{n}"),
    "rv_waiting": ("(assessing this decision…)", "（正在评估这一步……）"),
    "rv_failed": ("could not be assessed: {why}", "无法评估：{why}"),
    "rv_played": ("You played: {action}", "你的选择：{action}"),
    "rv_expert": ("Expert: {action}", "高手：{action}"),
    "rv_versus": ("({gain} over the played)", "（比所打 {gain}）"),
    "rv_loss": ("loss {loss:.2f} ±{half:.2f} points", "少得 {loss:.2f} ±{half:.2f} 分"),
    "rv_not_weighed": ("not weighed by the search (buying, kongs, 报听 follow hard's rules): "
                       "the expert would play {action}",
                       "此类决定（买、杠、报听）不做模拟评估：高手会{action}"),
    "rv_values_head": ("Expected points this hand over {samples} sampled hidden hands "
                       "(± 95% interval):",
                       "本盘期望得分（{samples}种暗牌抽样，± 95%区间）："),
    # the actions no line above names, below the table (those named are on the first screen)
    "rv_values_rest": ("The other choices, on the same samples:", "其余选择（同样的抽样）："),
    "rv_mark_played": ("played", "你的"),
    "rv_mark_expert": ("expert", "高手"),
    "rv_hidden": ("{n} tiles", "{n}张"),
    "rv_hidden_1": ("{n} tile", "{n}张"),
    "rv_keys": ("←/→ decision · Home/End · s: summary · q: leave",
                "←/→ 上/下一个决定 · Home/End 首/尾 · s 总结 · q 离开"),
    # {even}: played otherwise with no loss (inside the figures' uncertainty, or as good)
    "rv_summary_head": ("Summary: {n} decisions, {agreed} as the expert plays, {even} "
                        "otherwise with no clear loss; {lost:.2f} points lost in all",
                        "总结：{n}个决定，{agreed}个与高手一致，{even}个不同但无明显损失；"
                        "共少得 {lost:.2f} 分"),
    "rv_summary_head_1": ("Summary: {n} decision, {agreed} as the expert plays, {even} "
                          "otherwise with no clear loss; {lost:.2f} points lost in all",
                          "总结：{n}个决定，{agreed}个与高手一致，{even}个不同但无明显损失；"
                          "共少得 {lost:.2f} 分"),
    "rv_summary_pending": ("({left} still being assessed)", "（还有{left}个在评估）"),
    "rv_summary_list": ("Biggest losses first (↑/↓, Enter: go to it):",
                        "损失最大的决定（↑/↓ 选择，Enter 查看）："),
    "rv_summary_none": ("No decision of yours had a choice.", "你没有需要选择的决定。"),
    "rv_summary_row": ("hand {hand} move {move}: {taken} · expert {choice} · −{loss:.2f}",
                       "第{hand}盘第{move}步：{taken} · 高手 {choice} · −{loss:.2f}"),
    "rv_summary_keys": ("↑/↓ choose · Enter: open · →: first decision · q: leave",
                        "↑/↓ 选择 · Enter 查看 · → 第一个决定 · q 离开"),
    "rv_text_head": ("Review of {id} ({rules}), seat {seat}: the expert with {samples} "
                     "samples per action",
                     "复盘 {id}（{rules}），{seat}：高手每个选择模拟{samples}次"),
    "rv_text_row": ("hand {hand} move {move}: {taken} · expert {choice} · {verdict}",
                    "第{hand}盘第{move}步：{taken} · 高手 {choice} · {verdict}"),
    "rv_text_agrees": ("agrees", "一致"),
    "rv_text_tied": ("as good by the figures", "按模拟一样好"),
    "rv_text_unweighed": ("not weighed", "不评估"),
    "rv_text_unclear": ("no clear loss", "无明显损失"),
    "rv_text_ahead": ("no loss: yours scores {gain:.2f} more", "不亏：你的选择多得 {gain:.2f} 分"),
    # why the expert plays what its figures alone do not explain (tui/words/review_text.py)
    "rv_why_noise": (
        "Why the expert keeps {choice}: {better} shows {gain:.2f} more points, but that is "
        "inside the figures' uncertainty (±{half:.2f}): over these sampled hands the two cannot "
        "be told apart, and the expert changes its usual play only for a clear gain.",
        "高手为何仍选{choice}：{better}多 {gain:.2f} 分，但在模拟的误差之内（±{half:.2f}）："
        "这些抽样分不出两者高下，高手只在明显更好时才改变常规打法。"),
    # the same words as rv_why_noise: one rule for a gap the samples cannot tell from nothing
    "rv_why_unclear": (
        "Why no loss: {choice} shows {gain:.2f} more points than yours, but that is inside "
        "the figures' uncertainty (±{half:.2f}): over these sampled hands the two cannot be "
        "told apart, so it is not counted as a loss.",
        "为何不算损失：{choice}比你的选择多 {gain:.2f} 分，但在模拟的误差之内（±{half:.2f}）："
        "这些抽样分不出两者高下，所以不算损失。"),
    "rv_why_small": (
        "Why the expert keeps {choice}: {better} shows {gain:.2f} more points (±{half:.2f}), "
        "less than the {least:.2f} a hand the expert needs before it changes its usual play.",
        "高手为何仍选{choice}：{better}多 {gain:.2f} 分（±{half:.2f}），不到高手改变常规打法"
        "所需的每盘 {least:.2f} 分。"),
    "rv_why_rechecked": (
        "Why the expert keeps {choice}: {better} shows {gain:.2f} more points on these sampled "
        "hands, but on {n} fresh ones it gained {fresh:+.2f} (±{fresh_half:.2f}): the first "
        "figure was the luck of the samples, so the expert keeps its usual play.",
        "高手为何仍选{choice}：在这些抽样中{better}多 {gain:.2f} 分，但换{n}种新的抽样只多 "
        "{fresh:+.2f}（±{fresh_half:.2f}）：先前的数字是抽样的运气，高手保持常规打法。"),
    "rv_why_baodiao": (
        "Why not win: this win's pattern is worth {now:g}; after {choice} the wild stands "
        "alone beside complete sets (宝吊头), and any tile drawn next wins with a pattern worth "
        "{value:g} (宝吊头 3, 碰碰糊宝吊头 8). The expert waits for that, at the risk of an "
        "opponent self-drawing first or the wall running out.",
        "为何不胡：这手胡的牌型值 {now:g}；{choice}之后宝牌单吊、其余成组（宝吊头），下一张摸到"
        "任何牌都能胡，牌型值 {value:g}（宝吊头 3，碰碰糊宝吊头 8）。高手等这一手，风险是对手先"
        "自摸或牌摸完。"),
    "rv_why_menqing": (
        "Why not win: the hand is concealed (门清), and a self-draw is paid by all three at "
        "double; with enough tiles left to draw, the expert passes this discard to win by "
        "its own hand.",
        "为何不胡：这手是门清，自摸由三家付且翻倍；还有足够的牌可摸，高手放过这张，等自摸。"),
    "rv_why_win_figures": (
        "Why not win: a win's points are certain, playing on is the mean over sampled hands, "
        "and by these figures {choice} is worth {gain:.2f} (±{half:.2f}) more than this win.",
        "为何不胡：胡牌的分数是确定的，打下去是抽样的平均值；按这些数字，{choice}比这手胡"
        "多 {gain:.2f} 分（±{half:.2f}）。"),
    "rv_spectator": ("A spectator has no play of his own to review: ssh … replay ID shows "
                     "the game", "旁观者没有自己的牌可复盘：用 ssh … replay 编号 重看对局"),
    "rv_no_game": ("This game was not kept: there is nothing to review",
                   "这局没有保存，无法复盘"),
    "rv_opening": ("Opening the review…", "正在打开复盘……"),
    "rv_not_found": ("The review cannot open: {why}", "无法打开复盘：{why}"),
    # review actions, in the project's tile notation
    "rv_a_discard": ("discard {tile}", "打{tile}"),
    "rv_a_ting": ("discard {tile} and 报听", "打{tile}报听"),
    "rv_a_win": ("win 胡", "胡"),
    "rv_a_pass": ("pass 过", "过"),
    "rv_a_peng": ("pung 碰 {tile}", "碰{tile}"),
    "rv_a_chi": ("chi 吃 {tile} with {tiles}", "用{tiles}吃{tile}"),
    "rv_a_minggang": ("kong 明杠 {tile}", "明杠{tile}"),
    "rv_a_angang": ("kong 暗杠 {tile}", "暗杠{tile}"),
    "rv_a_bugang": ("kong 补杠 {tile}", "补杠{tile}"),
    "rv_a_buy": ("buy 买", "买"),
    "rv_a_no_buy": ("no buy 不买", "不买"),
    "rv_a_lighter": (" + 丢打火机", "并丢打火机"),
    "rv_a_pond_win": ("塘子烂糊", "塘子烂糊"),
    "game_id": ("Game ID {id} · watch it again (friends too): ssh … replay {id}",
                "对局编号 {id} · 重看（朋友也可以）：ssh … replay {id}"),
    "drawn_short": ("drawn", "荒"),
    "game_won_by": ("won by", "胡牌"),
    # a seat the computer plays, in the words the README and docs/bot-protocol.md use
    # ("(computer)"; "[bot]" is a program): with its level where the table knows it
    "bot_name": ("computer", "电脑"),
    "bot_name_level": ("{level} (computer)", "{level}电脑"),
    "level_easy": ("easy", "简单"),
    "level_normal": ("normal", "普通"),
    "level_hard": ("hard", "困难"),
    "level_expert": ("expert", "高手"),
    # new game / settings
    "ng_title": ("New game 新游戏", "新游戏"),
    "ng_rules": ("Ruleset 规则", "规则"),
    "ng_seed": ("Seed (empty = random)", "随机种子（留空随机）"),
    "ng_start": ("Start 开始", "开始"),
    "ng_options": ("Table options 牌桌选项", "牌桌选项"),
    "ng_help": (
        "Tab moves · Enter starts · Ctrl+R: rulesets · F1: help · Ctrl+S: settings",
        "Tab 切换 · Enter 开始 · Ctrl+R 规则列表 · F1 帮助 · Ctrl+S 设置",
    ),
    "bad_option": ("{key}: {problem}", "{key}: {problem}"),
    "set_title": ("Settings 设置", "设置"),
    "set_lang": ("Language 语言", "语言"),
    "set_tiles": ("Tiles 牌面", "牌面"),
    # a saved face this terminal cannot show ({face}: the saved one), said once a session
    "face_ascii_only": ("This terminal shows tiles in ASCII only: ASCII tiles here "
                        "(your {face} tiles stay saved for other terminals)",
                        "此终端只能显示 ASCII 牌面：这里用 ASCII 牌面"
                        "（保存的 {face} 牌面在其他终端仍然有效）"),
    "face_not_here": ("This terminal cannot show {face} tiles", "此终端无法显示 {face} 牌面"),
    "face_glyph_wide": ("This terminal draws the tile glyphs two cells wide: CJK tiles here "
                        "(your {face} tiles stay saved for other terminals)",
                        "此终端把麻将牌符号画成两格宽：这里用汉字牌面"
                        "（保存的 {face} 牌面在其他终端仍然有效）"),
    # the settings' choices of tiles and theme, by the face's and the theme's id
    "face_cjk": ("Chinese characters", "汉字"),
    "face_glyph": ("Tile pictures", "麻将牌图形"),
    "face_ascii": ("ASCII letters", "ASCII 字母"),
    "set_theme": ("Theme 主题", "主题"),
    "theme_mahjong-classic": ("Classic green", "经典绿"),
    "theme_mahjong-dark": ("Dark", "深色"),
    "theme_mahjong-contrast": ("High contrast", "高对比度"),
    "set_delay": ("Computer speed (seconds per move)", "电脑出牌间隔（秒）"),
    "set_suggest": ("Show the computer's suggested discard", "显示电脑建议的出牌"),
    "set_bell": ("Ring the terminal bell when it is your move", "轮到你时终端响铃"),
    "set_turn_title": ("Say in the terminal's title when it is your move",
                       "轮到你时在终端标题中显示"),
    "set_notify": ("Desktop notice on your move while away (terminals with OSC 9)",
                   "轮到你而你不在时发桌面通知（支持 OSC 9 的终端）"),
    # the terminal's title while the table waits for you, and the desktop notification
    # ({title}: "mahjong-ssh TABLE"); a notification never begins with a digit (ConEmu)
    "att_title": ("▶ your move — {title}", "▶ 轮到你 — {title}"),
    "att_notify": ("{title}: your move", "{title}：轮到你了"),
    "set_plain": ("Plain mode for screen readers, from the next start (lines of text)",
                  "读屏模式（下次启动起，以文字行显示）"),
    "set_hints": ("Show winning tiles when ready", "听牌时显示胡哪些牌"),
    "set_saved": ("Saved to {path}", "已保存到 {path}"),
    "set_ambi": ("Box lines, dots and arrows ({found})", "框线、圆点、箭头的宽度（{found}）"),
    "ambi_found_wide": ("this terminal says: two cells", "终端回答：双格"),
    "ambi_found_narrow": ("this terminal says: one cell", "终端回答：单格"),
    "ambi_found_none": ("this terminal did not say: one cell", "终端未回答：按单格"),
    "ambi_auto": ("auto", "自动"),
    "ambi_narrow": ("one cell", "单格"),
    "ambi_wide": ("two cells", "双格"),
    "set_how": ("Tab: next row · ←/→: move · Enter: take · Esc: close",
                "Tab 下一项 · ←/→ 移动 · Enter 选定 · Esc 关闭"),
    "set_session": ("These settings last for this connection", "设置只在本次连接内有效"),
    "set_account": ("Kept with your SSH key for your next visit",
                    "随你的 SSH 密钥保存，下次连接仍有效"),
    "set_keys": (
        "Keys can be remapped in the settings file under \"keys\" (the binding ids: "
        "docs/playing.md, Settings)",
        "按键可在设置文件的 \"keys\" 项中修改（绑定名见 docs/playing.md 的 Settings 一节）",
    ),
    "close": ("Esc: close", "Esc 关闭"),
    # Ctrl-C, which many press to quit: what quits instead ({key}: the app's quit key)
    "quit_how": ("Ctrl+C does not quit here: press {key} to quit",
                 "这里 Ctrl+C 不会退出：按 {key} 退出"),
    # help
    "help_title": ("Help 帮助", "帮助"),
    "help_keys": ("Keys 按键", "按键"),
    "help_rules": ("Rules: {rules}", "规则：{rules}"),
    # the coach at a practice table (the option coach=on; host/coach.py): its key, its
    # answers and why none, the mark that such a table is not rated
    "k_coach": ("e: coach", "e 教练"),
    "coach_off": ("No coach at this table: a table made with --option coach=on has one",
                  "本桌没有教练：用 --option coach=on 开的桌才有"),
    "coach_spectator": ("The coach is for the seated players, not for spectators",
                        "教练只为入座的玩家，旁观者不能用"),
    "coach_nothing": ("The coach weighs a decision in front of you: there is none now",
                      "教练评估轮到你的决定：现在没有"),
    "coach_asking": ("The coach is thinking…", "教练思考中……"),
    "coach_thinking": ("The coach is still thinking about this decision",
                       "教练还在思考这一步"),
    "coach_late": ("The coach could not weigh this decision in the time left",
                   "剩余时间内教练来不及评估这一步"),
    "coach_busy": ("The coach is busy (the server's share for it is spent): ask again soon",
                   "教练正忙（服务器给教练的份额已用完）：稍后再问"),
    "coach_failed": ("The coach could not weigh this decision", "教练无法评估这一步"),
    "coach_head": ("Coach: {action}", "教练：{action}"),
    "coach_values": ("Points expected this hand ({samples} samples, ±95%):",
                     "本盘期望得分（{samples}次抽样，±95%）："),
    "coach_unrated": ("coach table: not rated", "教练桌：不计等级分"),
    # puzzles from one's own game (ssh host puzzles [ID]; tui/apps/puzzles.py)
    "pz_title": ("Puzzles from game {id}", "对局 {id} 的练习题"),
    "pz_looking": ("assessing {done}/{n}, puzzles found: {found}",
                   "评估中 {done}/{n}，已找到练习题：{found}"),
    "pz_found": ("puzzles: {n}", "练习题：{n}"),
    "pz_head": ("Your costly decisions in this game, as puzzles (the biggest loss first):",
                "本局中代价较大的决定，作为练习题（损失最大的在前）："),
    "pz_none_yet": ("(none found yet)", "（尚未找到）"),
    "pz_none": ("None: no decision of yours in this game lost points by the expert's figures.",
                "没有：按高手的评估，你在本局的决定都没有失分。"),
    "pz_row": ("puzzle {n} · hand {hand} move {move}", "第{n}题 · 第{hand}盘第{move}步"),
    "pz_where": ("Puzzle {n}/{of} · hand {hand} move {move}",
                 "第{n}/{of}题 · 第{hand}盘第{move}步"),
    "pz_ask": ("What would you play? (1-9)", "你会怎么打？（1-9）"),
    "pz_right": ("Your answer: {action}, as the expert plays", "你的答案：{action}，与高手一致"),
    "pz_wrong": ("Your answer: {action}; the expert plays {expert}",
                 "你的答案：{action}；高手会{expert}"),
    "pz_versus": ("Yours: {mine} · the expert's: {expert} (points this hand)",
                  "你的：{mine} · 高手的：{expert}（本盘期望得分）"),
    "pz_ask_keys": ("1-9: answer · ←/→ puzzle · s: list · q: leave",
                    "1-9 作答 · ←/→ 上/下一题 · s 列表 · q 离开"),
    "pz_keys": ("←/→ puzzle · s: list · q: leave", "←/→ 上/下一题 · s 列表 · q 离开"),
    "pz_list_keys": ("↑/↓ · Enter: open · q: leave", "↑/↓ 选择 · Enter 打开 · q 离开"),
    # the puzzles in plain mode (net/front/plain_puzzles.py)
    "ppz_assessing": ("Looking for your costly decisions: decisions to assess: {n}.",
                      "正在寻找你代价较大的决定：待评估的决定：{n}。"),
    "ppz_progress": ("assessed {done} of {n}", "已评估 {done}/{n}"),
    "ppz_help": ("Type the number of your answer (1 to {n}), or q to leave.",
                 "输入答案的编号（1到{n}），或输入 q 离开。"),
    "ppz_next": ("Enter: the next puzzle, q: leave", "回车：下一题，q：离开"),
    "ppz_last": ("That was the last puzzle. Enter: leave", "这是最后一题。回车：离开"),
    "ppz_needs_id": ("in plain mode, puzzles needs a game's ID: puzzles ID --plain "
                     "(ssh HOST replay lists your games)",
                     "读屏模式下请给出对局编号：puzzles 编号 --plain"
                     "（ssh HOST replay 列出你的对局）"),
    "p_help_coach": (" At this coach table: coach (the expert's view of your decision).",
                     " 本桌有教练：教练（高手对你当前决定的评估）。"),
    # the running score's chart (tui/view/score_chart.py)
    "chart_title": ("Running score", "累计得分"),
    "chart_hands": ("{n} hands", "{n}盘"),
    "chart_hands_1": ("{n} hand", "{n}盘"),
    "chart_per_mark": ("{n} hands, a mark ≈ {per}", "{n}盘，每格约{per}"),  # per: chart_hands
}
