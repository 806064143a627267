"""A table's chat keeps its seated players' share: three guest spectators flooding it used
up the one budget of the table, and the seated host got 3 of his 10 lines through. The
spectators now share a budget of their own (``chat_watchers_table_minute``); the seated players
theirs (``chat_per_table_minute``); each account is still within its own rate."""

from __future__ import annotations

from net.limits import Limits
from net.runtime.registry import Registry
from net.runtime.shared_table import TableConfig
from net.runtime.table_chat import CHAT_TABLE_BUSY, CHAT_TOO_FAST
from net.store import Account
from tests.test_net_rates import Clock, heard


async def test_spectators_flooding_the_chat_leave_the_seated_players_their_lines() -> None:
    """The default limits. Three guests watch and each says a line every second (each within
    its own rate about one in three gets through: together more than the table carries); the
    host, seated, says a line every 4 seconds (within his own 20 a minute): every one of his
    lines reaches everyone, while the spectators together stay within their budget."""
    clock = Clock()
    limits = Limits()
    reg = Registry(TableConfig(), limits=limits, clock=clock)
    table = reg.get_or_create("t", "gejiu", creator=Account(1, "host"))
    host = table.join(Account(1, "host"))
    assert host.seat_index == 0
    guests = [table.join(Account(100 + i, f"guest{i}"), spectate=True) for i in range(3)]
    ears = heard(guests[0])
    host_said: list[object] = []
    guests_said: list[object] = []
    for second in range(40):
        for i, guest in enumerate(guests):  # the flood comes first each second
            guests_said.append(guest.chat(f"spam {i} {second}"))
        if second % 4 == 0:
            host_said.append(host.chat(f"host line {second // 4}"))
        clock.now += 1.0
    assert host_said == [None] * 10
    assert [line for line in ears if line.startswith("host:")] == [
        f"host: host line {n}" for n in range(10)]
    # the spectators were refused by the table (their budget used up), not just each by its
    # own rate, and carried no more than their budget: a burst and 40 s of the rate
    assert CHAT_TABLE_BUSY in guests_said and CHAT_TOO_FAST in guests_said
    spam = sum(1 for said in guests_said if said is None)
    most = limits.chat_watchers_table_burst + 40 * limits.chat_watchers_table_minute / 60
    assert limits.chat_watchers_table_burst < spam <= most
    reg.close()


async def test_a_seated_player_is_still_within_his_own_rate_and_the_seats_budget() -> None:
    """The seated players' share is no way around the limits: each account's own rate, and the
    seats' budget for all of them together."""
    clock = Clock()
    reg = Registry(TableConfig(), limits=Limits(chat_per_minute=60, chat_burst=3,
                                                chat_per_table_minute=60, chat_table_burst=4),
                   clock=clock)
    table = reg.get_or_create("t", "gejiu")
    ann, bob = table.join(Account(1, "ann")), table.join(Account(2, "bob"))
    assert ann.seat_index is not None and bob.seat_index is not None
    assert [ann.chat(f"a{i}") for i in range(4)] == [None] * 3 + [CHAT_TOO_FAST]
    assert bob.chat("b0") is None  # the fourth of the seats' burst
    assert bob.chat("b1") == CHAT_TABLE_BUSY
    watcher = table.join(Account(3, "cy"), spectate=True)
    assert watcher.chat("hello") is None  # the spectators' budget is apart
    clock.now += 1.0
    assert bob.chat("b2") is None
    reg.close()


async def test_a_player_who_stands_up_chats_from_the_spectators_budget() -> None:
    clock = Clock()
    reg = Registry(TableConfig(), limits=Limits(chat_per_minute=600, chat_burst=100,
                                                chat_watchers_table_minute=1,
                                                chat_watchers_table_burst=1),
                   clock=clock)
    table = reg.get_or_create("t", "gejiu")
    ann = table.join(Account(1, "ann"))
    assert [ann.chat("seated") for _ in range(5)] == [None] * 5
    ann.stand()
    assert ann.chat("watching") is None
    assert ann.chat("watching again") == CHAT_TABLE_BUSY
    reg.close()
