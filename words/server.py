"""The server's words (net/): the lobby and its new-table form, shown with :func:`words.both`
before a session's language is known."""

from __future__ import annotations

from typing import Final

SERVER: Final[dict[str, tuple[str, str]]] = {
    # the lobby (net/front/lobby.py)
    "lobby_help": ("Type a table name and Enter to sit (a new name creates it, with a ruleset "
                   "and options: 'friday gejiu hands_per_game=4 bots=hard'); 'new' or Ctrl-N: "
                   "the new-table form; 'watch NAME' to watch; PageUp / PageDown: more tables.",
                   "输入牌桌名并回车入座（新名字即建桌）；'new' 或 Ctrl-N 建桌表单；"
                   "'watch 名字' 旁观；PageUp / PageDown 翻看牌桌。"),
    "lobby_none": ("No tables yet. Type a name to create one.", "还没有牌桌，输入名字创建。"),
    "lobby_computer": ("computer", "电脑"),
    "lobby_stakes_on": ("on", "开"),
    "lobby_stakes_off": ("off", "关"),
    "lobby_yours": ("your table, /invite NAME in its chat", "你的牌桌"),
    "lobby_invited": ("you are invited", "你已受邀"),
    "lobby_may_watch": ("not invited: you may watch", "未受邀，可旁观"),
    "lobby_not_invited": ("not invited", "未受邀"),
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
}
