"""Refusals are data (a translation key and its fields), read in the session's language: a
Chinese player reads Chinese, an English one English, where both used to be run together;
without a language (the lobby, an exception's message, a log line) both are given."""

from __future__ import annotations

import asyncio
import re
import string
from pathlib import Path

import pytest

from engine.actions import Action, ActionType
from host.local import LocalTable
from host.refusal import Refusal, RefusedError, explain
from net.limits import Limits
from net.runtime.registry import QuarantinedTable, Registry, TableExists, TableLimit
from net.runtime.shared_table import TableConfig
from net.runtime.table_chat import CHAT_TOO_FAST
from net.store import Account
from testkit.ssh import PtyClient, fast_config, start_server
from words.refusals import REFUSALS

ANN, WES = Account(1, "ann", "SHA256:a"), Account(2, "wes", "SHA256:w")
KEYS = sorted(REFUSALS)
PASSED_ON = {"illegal", "bad_game", "bad_invite"}  # the engine's / the ruleset's / the
# invitation parser's own words (both languages), one text
HAN = re.compile(r"[\u4e00-\u9fff]")
# what a player or a program types, the same in both languages
TYPED = re.compile(r"/?\b(close|start|new_game)\b")


def fields(key: str) -> dict[str, str | int]:
    names = {f for text in REFUSALS[key] for _, f, _, _ in string.Formatter().parse(text)
             if f}
    return {name: 3 if name in ("n", "most") else f"<{name}>" for name in names}


@pytest.mark.parametrize("key", KEYS)
def test_each_refusal_reads_in_one_language(key: str) -> None:
    r = Refusal.of(key, **fields(key))
    en, zh = r.text("en"), r.text("zh")
    assert en and zh and "{" not in en + zh
    if key in PASSED_ON:
        assert en == zh == str(r)
        return
    assert not HAN.search(en), en  # English alone ...
    bare = TYPED.sub("", re.sub(r"<\w+>", "", zh))  # no fields, no typed commands
    assert HAN.search(zh) and not re.search(r"[A-Za-z]{3,}", bare), zh
    assert str(r) == f"{en} {zh}"  # ... and both where no language is known


def test_a_refusal_needs_a_text() -> None:
    with pytest.raises(KeyError):
        Refusal("no_such_refusal")


async def test_the_seat_and_the_table_refuse_with_keys() -> None:
    reg = Registry(TableConfig())
    g = reg.get_or_create("g", "gejiu")
    ann, wes = g.join(ANN), g.join(WES, spectate=True)
    assert wes.stake(0) == Refusal("no_stakes")
    assert ann.stake(0) == Refusal("seated_stake")
    assert wes.start() == Refusal("seated_start")
    assert wes.set_allow(False) == Refusal("seated_allow")
    assert wes.send(Action(ActionType.PASS)) == Refusal("spectator_play")
    assert ann.send(Action(ActionType.PASS)) == Refusal("no_game")
    assert g.start(seed=7) is None
    refused = ann.send(Action(ActionType.PASS))  # the dealer's discard is due: no pass
    # in the player's words, not the engine's (issue 53: "pass is not possible now (phase
    # turn)" reached a player)
    assert refused is not None and refused.key.startswith("illegal_")
    en = refused.text("en")
    assert en == "that move is not possible now" or en.startswith("not your move: the table ")
    assert HAN.search(refused.text("zh")) and "phase" not in en
    with pytest.raises(TableExists) as info:
        reg.get_or_create("g", "yichun")
    assert isinstance(info.value, RefusedError)
    assert info.value.refusal == Refusal.of("table_exists", name="g", what="rules gejiu")
    assert explain(info.value, "zh") == "牌桌g已存在，选项只能在创建时设置"
    assert explain(info.value, "en") == ("table g already exists with rules gejiu; options are "
                                         "set when a table is created")
    assert str(info.value) == explain(info.value, None)
    assert explain(ValueError("plain"), "zh") == "plain"
    reg.close()


def test_limits_and_quarantine_name_their_numbers_in_both_languages() -> None:
    reg = Registry(TableConfig(), limits=Limits(tables_per_account=1))
    reg.get_or_create("mine", "gejiu", creator=ANN)
    with pytest.raises(TableLimit) as info:
        reg.check_create("more", ANN)
    assert info.value.refusal == Refusal.of("own_tables", n=1, most=1)
    assert "1" in info.value.refusal.text("zh") and "1" in info.value.refusal.text("en")
    q = QuarantinedTable("old", "yichun", "its state is not JSON").refusal()
    assert q.text("en").startswith("table old is quarantined")
    assert q.text("zh") == "牌桌old的存档无法读取，已隔离，请换一个名字"
    reg.close()


def test_chat_refusal_is_a_refusal() -> None:
    assert CHAT_TOO_FAST.text("zh") == "发言太快"
    assert CHAT_TOO_FAST.text("en") == "slow down: too many chat lines"


def test_the_local_table_refuses_with_keys() -> None:
    table = LocalTable()
    assert table.send(Action(ActionType.PASS)) == Refusal("no_game")
    bad = table.new_game("yichun", {"no_such_option": 1}, 1)
    assert bad is not None and bad.key == "bad_game" and "no_such_option" in bad.text("en")
    table.close()


async def test_a_session_reads_refusals_in_its_language(tmp_path: Path) -> None:
    """A spectator pressing S at a waiting table: only seated players start a game. Each
    session reads why in its own language, no longer both run together."""
    server = await start_server(fast_config(tmp_path))
    try:
        host = await PtyClient().connect(server.port, "host", None, command="join race")
        await host.wait_for("press S")
        seen = {}
        for lang, text in (("zh", "只有入座的玩家可以开始"),
                           ("en", "only a seated player can start")):
            watcher = PtyClient()
            await watcher.connect(server.port, f"w{lang}", None,
                                  command=f"watch race --lang {lang}")
            await watcher.wait_for("race")
            await asyncio.sleep(0.2)
            watcher.send("s")
            seen[lang] = await watcher.wait_for(text)
            await watcher.close()
        assert "only a seated" not in seen["zh"] and "只有入座" not in seen["en"]
        await host.close()
    finally:
        await server.close()
