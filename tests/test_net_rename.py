"""A key's name (issue 53, bug 4): a key's account keeps the name of its first visit, numbered
when that was taken (``frank`` → ``frank-2``); the lobby says which name the key plays under
and why whenever the SSH user name differs, and ``rename NEWNAME`` chooses another free name
(unique, no look-alike, no guest's mark), its games and ratings kept by the account."""

from __future__ import annotations

import asyncssh

from net.front.server import MahjongServer
from net.store import SavedSeat, SavedTable, Store, TableRow
from net.store.model import Renamed
from testkit.ssh import PtyClient, new_key, run_command


async def lobby(server: MahjongServer, user: str, key: asyncssh.SSHKey | None,
                command: str | None = None, says: str = "welcome") -> str:
    """The lobby's first screen for ``user@`` with ``key``, once it shows ``says``."""
    c = PtyClient(80, 24)
    await c.connect(server.port, user, key, command=command)
    try:
        await c.wait_for("welcome" if command is None else " >")
        return await c.wait_for(says, 5.0) if says else c.text()
    finally:
        await c.close()


async def test_a_key_is_told_its_name_and_why_and_renames(server: MahjongServer) -> None:
    frank, other = new_key(), new_key()
    assert (await run_command(server.port, "frank", "stats", frank)).exit_status == 0
    # the first visit of another key asking for frank: frank-2, and why
    text = await lobby(server, "frank", other, says="You play as")
    assert "welcome frank-2" in text, text
    assert "You play as frank-2: frank is another player's name" in text, text
    assert "rename NEWNAME" in text and "frank 已被占用" in text, text
    # a later visit as gina@: still frank-2, the key keeps it, and gina is free to take
    text = await lobby(server, "gina", other, says="You play as")
    assert "welcome frank-2" in text, text
    assert "the name your key got on its first visit" in text and "rename gina" in text, text
    # names it cannot have: another's, a look-alike, a guest's mark, not one name
    for asked, status, says in (("frank", 1, "frank is another player's name"),
                                ("fr\u0430nk", 2, "mixes the letters"),  # a Cyrillic а
                                ("'bob~'", 2, "is not a nickname"),
                                ("'a b'", 2, "is not a nickname"),
                                ("a b", 2, "usage: rename NEWNAME"),
                                ("frank-2", 0, "You play as frank-2 already")):
        r = await run_command(server.port, "gina", f"rename {asked}", other)
        assert r.exit_status == status and says in str(r.stdout), (asked, r.stdout)
    r = await run_command(server.port, "gina", "rename gina", other)
    assert r.exit_status == 0, r.stdout
    assert "You play as gina from now on (frank-2 before)" in str(r.stdout)
    assert "以后你以 gina 登录" in str(r.stdout)
    # the key is gina now, whatever user name it comes with; nothing more to say as gina@
    text = await lobby(server, "gina", other)
    assert "welcome gina" in text and "You play as" not in text, text
    text = await lobby(server, "frank", other, says="You play as")
    assert "welcome gina" in text and "frank is another player's name" in text, text
    # in plain mode, in the session's language
    text = await lobby(server, "frank", other, command="lobby --plain --lang zh",
                       says="你的名字是")
    assert "你的名字是 gina：frank 已被占用" in text, text
    # the name frank-2 is free again: a new key asking for it gets it
    r = await run_command(server.port, "frank-2", "rename frank-2", new_key())
    assert r.exit_status == 0 and "already" in str(r.stdout), r.stdout
    # the help says how names go
    r = await run_command(server.port, "gina", "help", other)
    assert "rename NEWNAME" in str(r.stdout) and "first" in str(r.stdout)


async def test_rename_waits_for_a_seat_and_guests_and_passphrases(
        server: MahjongServer) -> None:
    key = new_key()
    c = PtyClient(80, 24)
    await c.connect(server.port, "hal", key, command="join t1")
    try:
        await c.wait_for("press S")
        r = await run_command(server.port, "hal", "rename hank", key)
        assert r.exit_status == 1 and "You sit at a table" in str(r.stdout), r.stdout
    finally:
        await c.close()
    # a guest's name is for one visit
    r = await run_command(server.port, "kim", "rename kimberly")
    assert r.exit_status == 1 and "A guest's name (kim~)" in str(r.stdout), r.stdout
    # a passphrase's name: the next login is under the new name, with the same passphrase
    r = await run_command(server.port, "lee", "rename leo", passphrase="a long passphrase")
    assert r.exit_status == 0 and "log in as leo@HOST" in str(r.stdout), r.stdout
    r = await run_command(server.port, "leo", "rename leo", passphrase="a long passphrase")
    assert r.exit_status == 0 and "You play as leo already" in str(r.stdout), r.stdout


def test_the_store_renames_unless_taken_looked_alike_or_seated(any_store: Store) -> None:
    a = any_store.account_for_key("SHA256:aaa", "kIm")
    b = any_store.account_for_key("SHA256:bbb", "bo")
    assert any_store.rename_account(b.id, "kIm") is Renamed.TAKEN
    assert any_store.rename_account(b.id, "k1m") is Renamed.TAKEN  # looks like kIm
    assert any_store.rename_account(a.id, "k1m") is Renamed.DONE  # its own look-alike
    assert any_store.account_for_key("SHA256:aaa", "x").nickname == "k1m"
    assert any_store.rename_account(b.id, "kIm") is Renamed.TAKEN  # still k1m's look-alike
    any_store.save_table(TableRow("t", "gejiu", {}, SavedTable(
        seats=(SavedSeat(b.id, "bo"), None, None, None), game_seed=7, game_no=1)))
    assert any_store.flush(30)
    assert any_store.rename_account(b.id, "bob") is Renamed.SEATED
    any_store.delete_table("t")
    assert any_store.flush(30)
    assert any_store.rename_account(b.id, "bob") is Renamed.DONE
    assert any_store.account_for_key("SHA256:bbb", "bo").nickname == "bob"
    assert any_store.account_for_key("SHA256:ccc", "bo").nickname == "bo"  # free again
