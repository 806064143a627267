"""What players make is rated: chat lines per account (a line over the rate goes to nobody,
and its sender is told), tables per creator, per address an hour and in all (joining a table
that exists is never limited)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual.widgets import Static

from host.clock import ManualClock
from host.table_info import ChatLine, TableInfo
from net.front.lobby import LobbyApp
from net.limits import Limits
from net.runtime.registry import CHAT_BUCKETS, Registry, TableLimit
from net.runtime.shared_table import TableConfig
from net.runtime.table_chat import CHAT_TABLE_BUSY, CHAT_TOO_FAST
from net.store import Account, SqliteStore

ANN, BOB, CY, DEE = (Account(i, n) for i, n in enumerate(("ann", "bob", "cy", "dee"), 1))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def heard(client: Any) -> list[str]:
    """The chat lines a session is sent (its table's info callbacks)."""
    lines: list[str] = []

    def on_info(info: TableInfo | ChatLine) -> None:
        if isinstance(info, ChatLine):
            lines.append(f"{info.who}: {info.text}")

    client.subscribe_info(on_info)
    return lines


# --- chat -------------------------------------------------------------------------------------
async def test_chat_over_the_rate_is_refused_with_a_message_and_sent_to_nobody() -> None:
    """Three spectators spamming chat drove the server to 100% CPU: now each account has
    ``chat_per_minute`` (a burst of ``chat_burst``)."""
    clock = Clock()
    reg = Registry(TableConfig(), limits=Limits(chat_per_minute=6, chat_burst=3), clock=clock)
    t = reg.get_or_create("t", "gejiu")
    ann = t.join(ANN)
    spam = [t.join(a, spectate=True) for a in (BOB, CY, DEE)]
    ears = [heard(c) for c in (ann, *spam)]
    for i in range(3):  # the burst
        assert spam[0].chat(f"hello {i}") is None
    assert spam[0].chat("hello 3") == CHAT_TOO_FAST
    assert str(CHAT_TOO_FAST) == "slow down: too many chat lines 发言太快"
    assert spam[0].chat("   ") is None  # an empty line is nothing: no message, no token
    for ear in ears:  # the sender too: a refused line is not shown as said
        assert ear == ["bob: hello 0", "bob: hello 1", "bob: hello 2"]
    assert [line.text for line in t.chat_log] == ["hello 0", "hello 1", "hello 2"]
    assert spam[1].chat("mine") is None  # another account has its own rate
    clock.now += 10.0  # 6 a minute: one line every 10 s
    assert spam[0].chat("later") is None
    assert spam[0].chat("again") == CHAT_TOO_FAST
    assert ears[0][-2:] == ["cy: mine", "bob: later"]
    reg.close()


async def test_the_chat_rate_is_the_accounts_over_all_its_tables() -> None:
    clock = Clock()
    reg = Registry(TableConfig(), limits=Limits(chat_per_minute=60, chat_burst=2), clock=clock)
    one = reg.get_or_create("one", "gejiu").join(ANN, spectate=True)
    two = reg.get_or_create("two", "gejiu").join(ANN, spectate=True)
    assert one.chat("a") is None and two.chat("b") is None
    assert one.chat("c") == CHAT_TOO_FAST and two.chat("d") == CHAT_TOO_FAST
    reg.close()


async def test_a_table_carries_at_most_its_own_chat_rate_from_everyone() -> None:
    """Guests are new accounts each visit: a crowd of them watching, each within its own
    rate, still meets the table's for its spectators (``chat_watchers_table_minute``, a
    burst of ``chat_watchers_table_burst``; the seated players' own share:
    tests/test_net_chat_share.py)."""
    clock = Clock()
    reg = Registry(TableConfig(), limits=Limits(chat_watchers_table_minute=12,
                                                chat_watchers_table_burst=4), clock=clock)
    t = reg.get_or_create("crowd", "gejiu")
    crowd = [t.join(Account(100 + i, f"g{i}"), spectate=True) for i in range(6)]
    said = [c.chat("hi") for c in crowd]
    assert said == [None] * 4 + [CHAT_TABLE_BUSY] * 2
    assert len(t.chat_log) == 4
    other = reg.get_or_create("calm", "gejiu").join(Account(200, "z"), spectate=True)
    assert other.chat("hello") is None  # another table's chat is its own
    clock.now += 5.0  # 12 a minute: one line every 5 s
    assert crowd[5].chat("now") is None and crowd[4].chat("me too") == CHAT_TABLE_BUSY
    reg.close()


def test_the_chat_rates_remembered_are_bounded() -> None:
    clock = Clock()
    reg = Registry(TableConfig(), clock=clock)
    while reg.chat_allowed(-1):  # an account that spent its burst
        pass
    for account in range(CHAT_BUCKETS - 1):
        assert reg.chat_allowed(account)
    assert not reg.chat_allowed(-1)  # remembered among CHAT_BUCKETS accounts,
    assert reg.chat_allowed(CHAT_BUCKETS - 1)
    assert reg.chat_allowed(-1)  # and forgotten (the oldest) rather than one more remembered


# --- tables -----------------------------------------------------------------------------------
async def test_table_creation_is_limited_per_account_and_the_count_survives_a_restart(
        tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db.sqlite3")
    limits = Limits(tables_per_account=2)
    reg = Registry(TableConfig(), store, limits=limits)
    reg.get_or_create("a1", "gejiu", creator=ANN)
    reg.get_or_create("a2", "yichun", creator=ANN)
    with pytest.raises(TableLimit) as info:
        reg.get_or_create("a3", "gejiu", creator=ANN)
    assert str(info.value).startswith("you have 2 open tables you created (at most 2)")
    assert "a3" not in reg.tables and not store.has_table("a3")
    reg.get_or_create("b1", "gejiu", creator=BOB)  # another account's own count
    reg.close()

    clock = ManualClock()  # restarted: who created what is kept
    reg2 = Registry(TableConfig(clock=clock), store, limits=limits)
    assert reg2.load() == 3
    assert reg2.tables["a1"].creator == ANN.id and reg2.tables["b1"].creator == BOB.id
    with pytest.raises(TableLimit):
        reg2.get_or_create("a3", "gejiu", creator=ANN)
    reg2.tables["a1"].check_empty()  # nobody comes back to one of ann's tables: it closes,
    await clock.advance(limits.table_unattended_seconds)
    assert "a1" not in reg2.tables and "a2" in reg2.tables  # and she may make another
    assert reg2.get_or_create("a3", "gejiu", creator=ANN).creator == ANN.id
    reg2.close()
    store.close()


async def test_table_creation_is_limited_in_total() -> None:
    reg = Registry(TableConfig(), limits=Limits(tables_total=3))
    for i in range(3):
        reg.get_or_create(f"t{i}", "gejiu", creator=Account(10 + i, f"p{i}"))
    with pytest.raises(TableLimit, match="the server has 3 open tables, its most"):
        reg.get_or_create("t3", "gejiu", creator=Account(20, "new"))
    with pytest.raises(TableLimit):
        reg.get_or_create("t3", "gejiu")  # anonymous callers too
    assert sorted(reg.tables) == ["t0", "t1", "t2"]
    reg.close()


async def test_table_creation_is_limited_per_address_an_hour() -> None:
    """500 tables were created in 7 s by anonymous clients (a new nickname each)."""
    clock = Clock()
    reg = Registry(TableConfig(), limits=Limits(tables_per_address_hour=2), clock=clock)
    reg.get_or_create("x1", "gejiu", creator=Account(1, "n1"), address="10.0.0.9")
    reg.get_or_create("x2", "gejiu", creator=Account(2, "n2"), address="10.0.0.9")
    with pytest.raises(TableLimit, match="2 tables were created from your address in the "
                       "last hour"):
        reg.get_or_create("x3", "gejiu", creator=Account(3, "n3"), address="10.0.0.9")
    reg.get_or_create("y1", "gejiu", creator=Account(4, "n4"), address="10.0.0.10")
    clock.now += 3600.0
    reg.get_or_create("x3", "gejiu", creator=Account(3, "n3"), address="10.0.0.9")
    reg.close()


async def test_joining_an_existing_table_is_never_limited() -> None:
    clock = Clock()
    reg = Registry(TableConfig(), limits=Limits(tables_per_account=1, tables_total=1,
                                                tables_per_address_hour=1), clock=clock)
    t = reg.get_or_create("only", "gejiu", creator=ANN, address="10.0.0.1")
    with pytest.raises(TableLimit):
        reg.get_or_create("more", "gejiu", creator=ANN, address="10.0.0.1")
    for who in (ANN, BOB, CY):  # over every limit, and yet
        assert reg.get_or_create("only", "gejiu", creator=who, address="10.0.0.1") is t
        assert reg.get_or_create("only", creator=who, address="10.0.0.1") is t
    reg.close()


async def test_the_lobby_says_a_tables_limit_before_the_table_is_made() -> None:
    reg = Registry(TableConfig(), limits=Limits(tables_per_account=1))
    reg.get_or_create("mine", "gejiu", creator=ANN)
    app = LobbyApp(SimpleNamespace(registry=reg), ANN)  # type: ignore[arg-type]
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"another", "enter")
        await pilot.pause()
        text = str(app.query_one("#msg", Static).render())
        assert "you have 1 open table you created (at most 1)" in text
        await pilot.press(*["backspace"] * 7, *"mine", "enter")  # joining one is not limited
        await pilot.pause()
    assert app.return_value is not None and app.return_value.table == "mine"
    assert sorted(reg.tables) == ["mine"]
    reg.close()
