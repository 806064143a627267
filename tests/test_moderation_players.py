"""The players' side of moderation (issue 55): a session an operator removes (kicked, from
the lobby or a table) ends with a line saying so and a non-zero exit status; ``/ignore`` and
``/report`` at a table, kept in the store (SQLite and PostgreSQL); ``who`` across workers."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import asyncssh
import psycopg
import pytest

from net.cluster.directory import Beat
from net.commands import unknown_command
from net.front import players
from net.front.server import MahjongServer
from net.store import STORE_VERSION, open_store
from net.store.model import Account, Report
from net.store.postgres import PG_STORE_VERSION
from net.store.sqlite_file import open_sqlite
from testkit.ssh import MakeServer, new_key, run_command
from tests.support.nats import nats_server  # noqa: F401
from tests.support.waiting import until
from tests.test_cluster import Workers, workers  # noqa: F401
from tests.test_net import join


def public_line(key: asyncssh.SSHKey) -> str:
    return key.export_public_key().decode().strip()


async def start(make_server: MakeServer, request: pytest.FixtureRequest, backend: str,
                tmp_path: Path, op: asyncssh.SSHKey) -> MahjongServer:
    ops = tmp_path / "operators"
    if not ops.exists():
        ops.write_text(f"# the host\n{public_line(op)}\n")
    config: dict[str, object] = {"operators_path": ops}
    if backend == "postgres":
        config["db_url"] = request.getfixturevalue("pg_url")
    return await make_server(**config)


async def op_run(server: MahjongServer, op: asyncssh.SSHKey,
                 command: str) -> asyncssh.SSHCompletedProcess:
    return await run_command(server.port, "boss", command, key=op)


# --- a kicked session ends as a refused one does ------------------------------------------
@pytest.mark.parametrize("command", ["lobby", "lobby --plain", "join t1", "join t2 --plain"])
async def test_a_kicked_session_exits_non_zero_with_a_line(
        make_server: MakeServer, request: pytest.FixtureRequest, tmp_path: Path,
        command: str) -> None:
    op, key = new_key(), new_key()
    server = await start(make_server, request, "sqlite", tmp_path, op)
    client = await join(server, "ann", key, command)
    await client.wait_for("press S" if command == "join t1" else
                          "t2" if command.startswith("join") else "obby")
    kicked = await op_run(server, op, "kick ann being rude")
    assert kicked.exit_status == 0, kicked.stdout
    await until(lambda: client.exit_status is not None or client.closed.is_set(), 10.0,
                "the kicked session to end")
    await until(lambda: client.closed.is_set(), 10.0, "its connection to close")
    assert client.exit_status == 1
    assert "An operator closed your session: being rude" in \
        bytes(client.raw).decode("utf-8", "replace")
    await client.close()


# --- who across workers ---------------------------------------------------------------------
async def test_who_lists_every_workers_sessions(workers: Workers, tmp_path: Path) -> None:  # noqa: F811
    op, ann_key, bob_key = new_key(), new_key(), new_key()
    ops = tmp_path / "operators"
    ops.write_text(f"{public_line(op)}\n")
    first, second = await workers(2, operators_path=ops)
    ann = await join(first, "ann", ann_key, "lobby --plain")
    await ann.wait_for("Lobby.")
    bob = await join(second, "bob", bob_key, "join far")  # a session of the other worker
    await bob.wait_for("press S")
    assert first.node is not None and second.node is not None
    await until(lambda: second.node is not None
                and second.node.name in first.node.directory.workers, 10.0,
                "the other worker's heartbeat seen")
    who = await op_run(first, op, "who")
    assert who.exit_status == 0, who.stdout
    rows = {line.split()[0]: line for line in str(who.stdout).splitlines()}
    assert set(rows) >= {"ann", "bob"}
    assert ann_key.get_fingerprint("sha256") in rows["ann"] and "lobby" in rows["ann"]
    assert rows["ann"].endswith(first.node.name)
    bob_row = rows["bob"]
    assert bob_key.get_fingerprint("sha256") in bob_row and "127.0.0.1" in bob_row
    assert " far " in bob_row and bob_row.endswith(second.node.name)
    # a worker the directory knows that does not answer: named, and who still answers
    first.node.directory.workers["ghost:1:abcdef"] = Beat(0, first.node.clock())
    who = await op_run(first, op, "who")
    assert who.exit_status == 0
    out = str(who.stdout)
    assert "bob" in out and "ann" in out
    assert "worker ghost:1:abcdef: no answer in time" in out
    await ann.close()
    await bob.close()


# --- /ignore ------------------------------------------------------------------------------
def seated_account(server: MahjongServer, table: str, name: str) -> Account:
    (account,) = [Account(s.occupant.account_id, name, None)
                  for s in server.registry.tables[table].seats
                  if s.occupant is not None and s.occupant.name == name]
    return account


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_ignore_hides_a_players_chat_and_holds_after_a_restart(
        make_server: MakeServer, request: pytest.FixtureRequest, backend: str,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    op, ann_key, bob_key, cat_key = new_key(), new_key(), new_key(), new_key()
    server = await start(make_server, request, backend, tmp_path, op)
    ann = await join(server, "ann", ann_key, "join pub")
    await ann.wait_for("press S")
    bob = await join(server, "bob", bob_key, "join pub --plain")
    await bob.wait_for("pub")
    cat = await join(server, "cat", cat_key, "join pub")
    await cat.wait_for("bob")
    talk = server.registry.tables["pub"].talk
    bob_account = seated_account(server, "pub", "bob")
    cat_account = seated_account(server, "pub", "cat")
    for line, said in (("/ignore ann", "not yourself"), ("/ignore nobody", "no player nobody"),
                       ("/unignore bob", "you do not ignore bob"),
                       ("/ignore", "you ignore nobody"), ("/ignore a b", "usage")):
        ann.send("/")
        await ann.wait_for("chat")
        ann.send(line + "\r")
        await ann.wait_for(said)
    ann.send("/")
    ann.send("/ignore bob\r")
    await ann.wait_for("bob's chat is hidden for you")
    assert talk.say(bob_account, "spam from bob") is None
    assert talk.say(cat_account, "hello from cat") is None
    assert any(line.text == "spam from bob"  # said to the others
               for line in server.registry.tables["pub"].chat_log)
    bob.send("say /ignore cat\r")  # plain mode: the same command
    await bob.wait_for("cat's chat is hidden for you")
    assert talk.say(cat_account, "second from cat") is None
    assert talk.say(bob_account, "bob again") is None
    await bob.wait_for("bob again")
    assert "second from cat" not in bytes(bob.raw).decode("utf-8", "replace")
    ann.send("v")  # the chat's history
    await ann.wait_for("hello from cat")
    assert "spam from bob" not in ann.text() and "bob again" not in ann.text()
    assert "/ignore" not in " ".join(line.text for line in server.registry.tables["pub"].chat_log)
    ann.send("\x1b")
    await ann.close()
    # a new session's history (the table's lines said before it came) hides them too
    ann = await join(server, "ann", ann_key, "join pub")
    await ann.wait_for("press S")
    ann.send("v")
    await ann.wait_for("hello from cat")
    assert "spam from bob" not in ann.text()
    await ann.close()
    for c in (bob, cat):
        await c.close()
    # a restart: the ignore is the account's, in the store
    await server.close()
    server = await start(make_server, request, backend, tmp_path, op)
    ann = await join(server, "ann", ann_key, "join pub2 --plain")
    await ann.wait_for("pub2")
    ann.send("say /ignore\r")
    await ann.wait_for("you ignore: bob")
    monkeypatch.setattr(players, "IGNORE_MAX", 1)
    ann.send("say /ignore cat\r")
    await ann.wait_for("you ignore 1 player, the most")
    ann.send("say /unignore bob\r")
    await ann.wait_for("bob's chat is shown again")
    ann.send("say /ignore\r")
    await ann.wait_for("you ignore nobody")
    await ann.close()


# --- /report and reports -------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_reports_are_kept_rate_limited_and_listed_for_operators(
        make_server: MakeServer, request: pytest.FixtureRequest, backend: str,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    op, ann_key, bob_key, cat_key = new_key(), new_key(), new_key(), new_key()
    server = await start(make_server, request, backend, tmp_path, op)
    for name, key in (("bob", bob_key), ("cat", cat_key)):  # accounts to report
        assert (await run_command(server.port, name, "stats", key=key)).exit_status == 0
    # at a table, in its chat
    ann = await join(server, "ann", ann_key, "join pub")
    await ann.wait_for("press S")
    ann.send("/")
    await ann.wait_for("chat")
    ann.send("/report bob spamming \x1b[2Jthe chat\r")
    await ann.wait_for("your report of bob is kept")
    assert not server.registry.tables["pub"].chat_log  # said to nobody
    ann.send("/")
    ann.send("/report bob again\r")
    await ann.wait_for("you reported bob within")
    await ann.close()
    # over SSH
    said = await run_command(server.port, "ann", "report cat rude in the lobby", key=ann_key)
    assert said.exit_status == 0 and "your report of cat is kept" in str(said.stdout)
    for command, why, status in (
            ("report ann me", "not yourself", 1), ("report nobody x", "no player nobody", 1),
            ("report cat", "usage", 2), ("report cat " + "x" * 400, "longer than", 2)):
        refused = await run_command(server.port, "ann", command, key=ann_key)
        assert refused.exit_status == status and why in str(refused.stdout), refused.stdout
    monkeypatch.setattr(players, "REPORTS_PER_DAY", 2)
    refused = await run_command(server.port, "bob", "report ann x", key=bob_key)
    assert refused.exit_status == 0  # bob's first
    full = await run_command(server.port, "ann", "report bob later", key=ann_key)
    assert full.exit_status == 1 and "2 reports today, the most" in str(full.stdout)
    # the operators' list; from any other key the unknown command's answer
    listed = await op_run(server, op, "reports")
    assert listed.exit_status == 0, listed.stdout
    lines = str(listed.stdout).splitlines()
    assert len(lines) == 3
    assert lines[0].endswith("ann -> bob  pub  (spamming the chat)")
    assert lines[1].endswith("ann -> cat  -  (rude in the lobby)")
    assert lines[2].endswith("bob -> ann  -  (x)")
    assert str((await op_run(server, op, "reports 1")).stdout).splitlines() == lines[-1:]
    for bad in ("reports 0", "reports x", "reports 1 2", "reports 99999"):
        assert (await op_run(server, op, bad)).exit_status == 2
    stranger = await run_command(server.port, "ann", "reports", key=ann_key)
    assert stranger.exit_status == 2
    assert stranger.stdout == f"error 错误: {unknown_command('reports')}\n"
    assert "reports" in str((await op_run(server, op, "audit")).stdout)
    # a restart: they are in the store
    await server.close()
    server = await start(make_server, request, backend, tmp_path, op)
    assert str((await op_run(server, op, "reports")).stdout).splitlines() == lines


def test_older_databases_are_given_the_players_tables(
        tmp_path: Path, request: pytest.FixtureRequest) -> None:
    path = tmp_path / "old.db"
    open_sqlite(path).close()
    db = sqlite3.connect(path)  # the file as version 7 left it: no ignores or reports
    db.executescript("DROP TABLE ignores; DROP TABLE reports; PRAGMA user_version = 7;")
    db.close()
    store = open_sqlite(path)
    report = Report(time.time(), 1, "ann", 2, "bob", "", "spam")
    try:
        assert store.version == STORE_VERSION == 10
        assert store.add_report(report) and store.reports(5) == [report]
        assert store.add_ignore(1, 2) and store.ignored_by(1) == []  # no account 2 here
    finally:
        store.close()
    url = request.getfixturevalue("pg_url")
    open_store(url).close()
    with psycopg.connect(url, autocommit=True) as conn:  # as version 6 left it
        conn.execute("DROP TABLE ignores; DROP TABLE reports;"
                     "UPDATE store_meta SET value = 6 WHERE key = 'version'")
    pg = open_store(url)
    try:
        assert pg.version == PG_STORE_VERSION == 9
        assert pg.add_report(report) and pg.flush(10) and pg.reports(5) == [report]
        assert pg.reports_by(1, 0.0) == [(2, report.at)]
    finally:
        pg.close()


async def test_a_report_typed_in_the_lobby(make_server: MakeServer,
                                          request: pytest.FixtureRequest,
                                          tmp_path: Path) -> None:
    op, ann_key, bob_key, cat_key = new_key(), new_key(), new_key(), new_key()
    server = await start(make_server, request, "sqlite", tmp_path, op)
    assert (await run_command(server.port, "bob", "stats", key=bob_key)).exit_status == 0
    ann = await join(server, "ann", ann_key, "lobby")
    await ann.wait_for("Esc")
    ann.send("report bob cheating at pub\r")
    await ann.wait_for("your report of bob is kept")
    ann.send("report bob again\r")
    await ann.wait_for("you reported bob within")
    cat = await join(server, "cat", cat_key, "lobby --plain")
    await cat.wait_for("Lobby.")
    cat.send("/report bob rude\r")
    await cat.wait_for("your report of bob is kept")
    lines = str((await op_run(server, op, "reports")).stdout).splitlines()
    assert [line.split("  ", 1)[1] for line in lines] == [
        "ann -> bob  -  (cheating at pub)", "cat -> bob  -  (rude)"]
    await ann.close()
    await cat.close()


async def test_ignore_holds_at_another_workers_table(workers: Workers,  # noqa: F811
                                                     tmp_path: Path) -> None:
    first, second = await workers(2)
    bob = await join(first, "bob", new_key(), "join far --plain")
    await bob.wait_for("far")
    ann_key = new_key()
    ann = await join(second, "ann", ann_key, "join far --plain")  # a seat at first's table
    await ann.wait_for("bob")
    ann.send("say /ignore bob\r")
    await ann.wait_for("bob's chat is hidden for you")
    table = first.registry.tables["far"]
    table.talk.chat("bob", "spam from bob")
    table.talk.chat("", "the table's own line")
    await ann.wait_for("the table's own line")
    await bob.wait_for("spam from bob")
    assert "spam from bob" not in bytes(ann.raw).decode("utf-8", "replace")
    await ann.close()
    # back on the same worker: the table's lines said before (its chat_log) without bob's
    ann = await join(second, "ann", ann_key, "join far --plain")
    await ann.wait_for("the table's own line")
    assert "spam from bob" not in bytes(ann.raw).decode("utf-8", "replace")
    await ann.close()
    await bob.close()
