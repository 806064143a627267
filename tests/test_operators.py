"""The server's operators (issue 55): ``serve --operators FILE``, read as ``--allow`` is; the
operators' commands over SSH (who, tables, announce, close, kick, mute, ban, unban, bans,
audit), refused from any other key exactly as an unknown command; bans and mutes stored (on
SQLite and PostgreSQL) and holding after a restart; a banned client refused before any
screen with one line; bad durations, targets, networks and reasons refused with a line."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import psycopg
import pytest

from net.commands import unknown_command
from net.front import bans, operators
from net.front.hostfiles import HostFile, HostFileError, parse_operators
from net.front.server import MahjongServer
from net.limits import OP_REASON_MAX, OPERATORS_MAX_BYTES
from net.store import STORE_VERSION, open_store
from net.store.model import Account, Ban
from net.store.postgres import PG_STORE_VERSION
from net.store.sqlite_file import open_sqlite
from testkit.ssh import MakeServer, new_key, run_command
from tests.support.nats import nats_server  # noqa: F401
from tests.support.waiting import until
from tests.test_cluster import Workers, workers  # noqa: F401
from tests.test_net import join
from words import both, tr

ROOT = Path(__file__).resolve().parent.parent


def public_line(key: asyncssh.SSHKey) -> str:
    return key.export_public_key().decode().strip()


# --- the operators file, read as the allow list is ------------------------------------------
def test_operators_file_is_read_strictly(tmp_path: Path) -> None:
    op = new_key()
    keys = parse_operators(f"# the hosts\n{public_line(op)}\n")
    assert keys.count == 1 and keys.admits(op.convert_to_public(), "127.0.0.1")
    assert not keys.admits(new_key().convert_to_public(), "127.0.0.1")
    assert parse_operators("# nobody yet\n").count == 0  # a server with no operator
    with pytest.raises(ValueError, match="line 2: not a public key"):
        parse_operators(f"{public_line(op)}\nssh-ed25519 AAAAbroken\n")
    big = tmp_path / "ops"
    big.write_bytes(b"#" * (OPERATORS_MAX_BYTES + 1))
    with pytest.raises(HostFileError, match=r"--operators .*larger than"):
        HostFile.operators(big)


def test_serve_stops_at_start_on_a_damaged_operators_file(tmp_path: Path) -> None:
    bad = tmp_path / "ops"
    bad.write_text("ssh-ed25519 not-a-key\n")
    out = subprocess.run(
        [sys.executable, "-m", "cli.main", "serve", "--port", "0", "--data",
         str(tmp_path / "data"), "--operators", str(bad)],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mahjong-ssh serve: --operators {bad}:")


# --- strict inputs --------------------------------------------------------------------------
def test_durations_targets_and_reasons_are_parsed_strictly() -> None:
    assert operators.parse_duration("30m") == 1800
    assert operators.parse_duration("2h") == 7200
    assert operators.parse_duration("7d") == 7 * 86400
    for bad in ("0m", "30", "1w", "-1h", "1.5h", "366d", "99999999d", "３０m", "30m "):
        with pytest.raises(operators.OperatorError, match="bad duration"):
            operators.parse_duration(bad)
    fp = "SHA256:" + "A" * 43
    assert operators.parse_target(fp) == ("key", fp)
    assert operators.parse_target("10.1.0.0/16") == ("net", "10.1.0.0/16")
    assert operators.parse_target("2001:db8::/32") == ("net", "2001:db8::/32")
    assert operators.parse_target("192.0.2.7") == ("address", "192.0.2.7")
    assert operators.parse_target("ann") == ("name", "ann")
    for wide in ("10.0.0.0/8", "0.0.0.0/0", "::/0", "2001::/16"):
        with pytest.raises(operators.OperatorError, match="too wide"):
            operators.parse_target(wide)
    for bad in ("10.1.2.3/16", "10.1.0.0/33", "SHA256:short", "a\x1b[2Jb", "", "10.0.0.0/x"):
        with pytest.raises(operators.OperatorError, match="bad target"):
            operators.parse_target(bad)
    assert operators.parse_reason(["spam\x1b]0;x\x07", "again"]) == "spam again"
    with pytest.raises(operators.OperatorError, match="longer than"):
        operators.parse_reason(["x" * (OP_REASON_MAX + 1)])


# --- over SSH -------------------------------------------------------------------------------
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


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_an_operator_mutes_then_bans_a_chat_abuser(
        make_server: MakeServer, request: pytest.FixtureRequest, backend: str,
        tmp_path: Path) -> None:
    op, abuser_key, other = new_key(), new_key(), new_key()
    server = await start(make_server, request, backend, tmp_path, op)
    # a stranger's operator command reads exactly as an unknown command
    for command in ("who", "ban ann 1d spam", "audit"):
        stranger = await run_command(server.port, "eve", command, key=other)
        head = command.split()[0]
        assert stranger.exit_status == 2
        assert stranger.stdout == f"error 错误: {unknown_command(head)}\n"
        unknown = await run_command(server.port, "eve", "frobnicate", key=other)
        assert unknown.exit_status == 2
        assert str(stranger.stdout).split("\n", 1)[1] == str(unknown.stdout).split("\n", 1)[1]
        said = both("unknown_command", command="frobnicate")
        assert str(unknown.stdout).startswith(f"error 错误: {said}")
    abuser = await join(server, "troll", abuser_key, "join pub")
    await abuser.wait_for("press S")
    table = server.registry.tables["pub"]
    account = Account(table.seats[0].occupant.account_id, "troll", None) \
        if table.seats[0].occupant is not None else None
    assert account is not None
    assert table.talk.say(account, "first line") is None

    who = await op_run(server, op, "who")
    assert who.exit_status == 0
    (row,) = [line for line in str(who.stdout).splitlines() if line.startswith("troll")]
    assert abuser_key.get_fingerprint("sha256") in row and "127.0.0.1" in row and "pub" in row
    tables = await op_run(server, op, "tables")
    assert "pub" in str(tables.stdout) and "troll" in str(tables.stdout)

    muted = await op_run(server, op, "mute troll 30m")
    assert muted.exit_status == 0 and "muted troll until" in str(muted.stdout)
    refusal = table.talk.say(account, "more spam")
    assert refusal is not None and refusal.key == "muted_until"
    assert tr("en", "muted_until", until="")[:20] in refusal.text("en")

    for bad, why in (("mute troll 30x", "bad duration"), ("ban 10.0.0.0/8", "too wide"),
                     ("ban 10.1.2.3/16", "bad target"),
                     ("ban troll 1d " + "x" * (OP_REASON_MAX + 5), "longer than"),
                     ("ban boss", "your own"), ("ban 127.0.0.1", "your own"),
                     ("ban 127.0.0.0/16", "your own"),
                     (f"ban {op.get_fingerprint('sha256')}", "your own"),
                     ("mute", "usage"), ("kick nobody", "no player")):
        r = await op_run(server, op, bad)
        assert r.exit_status in (1, 2) and why in str(r.stdout), (bad, r.stdout)

    banned = await op_run(server, op, "ban troll 2h spamming the chat")
    assert banned.exit_status == 0, banned.stdout
    assert "banned troll until" in str(banned.stdout) and "1 session closed" in str(banned.stdout)
    await until(lambda: abuser.closed.is_set(), 10.0, "the banned player's session to end")
    assert "This server has banned you until" in bytes(abuser.raw).decode("utf-8", "replace")

    # the next login: one line in both languages, exit status 1, before any screen
    again = await run_command(server.port, "troll", "stats", key=abuser_key)
    assert again.exit_status == 1
    out = str(again.stdout)
    assert out.startswith("This server has banned you until ") and "spamming the chat" in out
    assert "你已被本服务器封禁至" in out and out.count("\n") == 1
    screen = await join(server, "troll", abuser_key, "lobby")
    await until(lambda: screen.closed.is_set(), 10.0, "the banned lobby to close")
    raw = bytes(screen.raw).decode("utf-8", "replace")
    assert "This server has banned you" in raw and "\x1b[?1049h" not in raw  # no screen
    assert screen.exit_status == 1 or screen.exit_status is None
    await screen.close()
    # another player gets in
    assert (await run_command(server.port, "ann", "stats", key=other)).exit_status == 0

    listed = await op_run(server, op, "bans")
    assert "name    troll" in str(listed.stdout) and "spamming the chat" in str(listed.stdout)
    audit = await op_run(server, op, "audit")
    lines = str(audit.stdout).splitlines()
    assert [line.split("  ")[2].split()[0] for line in lines] == \
        ["who", "tables", "mute", "ban", "bans"]
    assert all(f"boss ({op.get_fingerprint('sha256')})" in line for line in lines)
    assert "ban name troll  (spamming the chat)" in lines[-2]

    # a restart: the ban holds (read from the store before the first login)
    await server.close()
    server = await start(make_server, request, backend, tmp_path, op)
    again = await run_command(server.port, "troll", "stats", key=abuser_key)
    assert again.exit_status == 1 and "spamming the chat" in str(again.stdout)
    unbanned = await op_run(server, op, "unban troll")
    assert unbanned.exit_status == 0 and "unbanned troll" in str(unbanned.stdout)
    assert (await op_run(server, op, "unban troll")).exit_status == 1  # no ban of it now
    assert (await run_command(server.port, "troll", "stats", key=abuser_key)).exit_status == 0
    await abuser.close()


async def test_a_banned_key_and_address_are_refused_before_any_screen(
        make_server: MakeServer, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    op, bad_key = new_key(), new_key()
    server = await start(make_server, request, "sqlite", tmp_path, op)
    fp = bad_key.get_fingerprint("sha256")
    r = await op_run(server, op, f"ban {fp} 30m")
    assert r.exit_status == 0 and "0 sessions closed" in str(r.stdout)
    refused = await run_command(server.port, "anyname", "help", key=bad_key)
    assert refused.exit_status == 1
    assert str(refused.stdout).startswith(both("banned_until", until="", reason="")[:20])
    # an address (the loopback 127.0.0.5 the client binds to), for every key and none
    r = await op_run(server, op, "ban 127.0.0.5 1d from there")
    assert r.exit_status == 0
    for key in (new_key(), None):
        refused = await run_command(server.port, "zed", "stats", key=key, address="127.0.0.5")
        assert refused.exit_status == 1 and "from there" in str(refused.stdout)
    assert (await run_command(server.port, "zed", "stats", key=new_key(),
                              address="127.0.0.6")).exit_status == 0
    bans = str((await op_run(server, op, "bans")).stdout)
    assert f"key     {fp}" in bans and "address 127.0.0.5" in bans


async def test_kick_announce_and_close(make_server: MakeServer,
                                       request: pytest.FixtureRequest, tmp_path: Path) -> None:
    op, a, b = new_key(), new_key(), new_key()
    server = await start(make_server, request, "sqlite", tmp_path, op)
    plain = await join(server, "ann", a, "join t1 --plain")
    await plain.wait_for("t1")
    drawn = await join(server, "bob", b, "join t2")
    await drawn.wait_for("press S")
    told = await op_run(server, op, "announce restart at 12:00 \x1b[2J重启")
    assert told.exit_status == 0 and "told 2 sessions" in str(told.stdout)
    await plain.wait_for("Announcement: restart at 12:00 重启")
    await drawn.wait_for("Announcement: restart at")
    # close: bob's table, whoever sits there; its players told
    closed = await op_run(server, op, "close t2")
    assert closed.exit_status == 0 and "t2 closed" in str(closed.stdout)
    assert "t2" not in server.registry.tables
    await drawn.wait_for("operator")
    assert (await op_run(server, op, "close nosuch")).exit_status == 1
    kicked = await op_run(server, op, "kick ann being rude")
    assert kicked.exit_status == 0 and "1 session of ann closed" in str(kicked.stdout)
    await until(lambda: plain.closed.is_set(), 10.0, "ann's session to end")
    assert "An operator closed your session: being rude" in \
        bytes(plain.raw).decode("utf-8", "replace")
    audit = str((await op_run(server, op, "audit")).stdout)
    assert "announce" in audit and "close t2" in audit and "kick ann  (being rude)" in audit
    await drawn.close()
    await plain.close()


async def test_an_edit_of_the_operators_file_applies_to_the_next_command(
        make_server: MakeServer, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    op, newcomer = new_key(), new_key()
    server = await start(make_server, request, "sqlite", tmp_path, op)
    assert (await op_run(server, op, "who")).exit_status == 0
    assert (await run_command(server.port, "new", "who", key=newcomer)).exit_status == 2
    ops = tmp_path / "operators"
    ops.write_text(f"{public_line(op)}\n{public_line(newcomer)}\n")
    server.reload_files()  # as SIGHUP does
    assert server.operators is not None
    await until(lambda: server.operators is not None and server.operators.value.count == 2,
                10.0, "the operators file read again")
    assert (await run_command(server.port, "new", "who", key=newcomer)).exit_status == 0


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_a_ban_holds_on_every_worker_sharing_the_store(
        make_server: MakeServer, request: pytest.FixtureRequest, backend: str,
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # each worker reads the bans again at a login when what it read is older than this:
    # none here, so the second worker's next login sees the first's ban at once
    monkeypatch.setattr(bans, "OP_CACHE_SECONDS", 0.0)
    op, troll = new_key(), new_key()
    first = await start(make_server, request, backend, tmp_path, op)
    config: dict[str, object] = {"operators_path": tmp_path / "operators"}
    if backend == "postgres":
        config["db_url"] = first.config.db_url
    second = await make_server(**config)  # the same data folder or database: another worker
    assert (await run_command(second.port, "troll", "stats", key=troll)).exit_status == 0
    banned = await op_run(first, op, "ban troll 1h flooding")
    assert banned.exit_status == 0, banned.stdout
    refused = await run_command(second.port, "troll", "stats", key=troll)
    assert refused.exit_status == 1 and "flooding" in str(refused.stdout)
    muted = await op_run(second, op, "mute troll")  # a mute made on the other worker
    assert muted.exit_status == 0 and "further notice" in str(muted.stdout)
    await first.moderation.refresh()
    account = next(iter(first.moderation.mutes))
    refusal = first.moderation.muted(account)
    assert refusal is not None and refusal.key == "muted"


def test_older_databases_are_given_the_operators_tables(
        tmp_path: Path, request: pytest.FixtureRequest) -> None:
    path = tmp_path / "old.db"
    open_sqlite(path).close()
    db = sqlite3.connect(path)  # the file as version 6 left it: no bans, mutes or audit
    db.executescript("DROP TABLE bans; DROP TABLE mutes; DROP TABLE audit;"
                     "PRAGMA user_version = 6;")
    db.close()
    store = open_sqlite(path)
    assert store.version == STORE_VERSION == 10
    ban = Ban("address", "192.0.2.1", None, "r", "op", time.time(), None)
    assert store.add_ban(ban) and store.load_bans() == [ban]
    store.close()
    url = request.getfixturevalue("pg_url")
    pg = open_store(url)
    pg.close()
    with psycopg.connect(url, autocommit=True) as conn:  # as version 5 left it
        conn.execute("DROP TABLE bans; DROP TABLE mutes; DROP TABLE audit;"
                     "UPDATE store_meta SET value = 5 WHERE key = 'version'")
    pg = open_store(url)
    try:
        assert pg.version == PG_STORE_VERSION == 9
        assert pg.add_ban(ban) and pg.flush(10) and pg.load_bans() == [ban]
    finally:
        pg.close()


async def test_announce_kick_and_ban_reach_every_workers_sessions(
        workers: Workers, tmp_path: Path) -> None:  # noqa: F811
    op, ann_key, bob_key = new_key(), new_key(), new_key()
    ops = tmp_path / "operators"
    ops.write_text(f"{public_line(op)}\n")
    first, second = await workers(2, operators_path=ops)
    ann = await join(second, "ann", ann_key, "lobby --plain")  # on the other worker
    await ann.wait_for("Lobby.")
    bob = await join(second, "bob", bob_key, "lobby --plain")
    await bob.wait_for("Lobby.")
    told = await op_run(first, op, "announce back in 5 minutes")
    assert told.exit_status == 0 and "the other workers were told" in str(told.stdout)
    await ann.wait_for("Announcement: back in 5 minutes")
    kicked = await op_run(first, op, "kick ann flooding")
    assert kicked.exit_status == 0, kicked.stdout
    await until(lambda: ann.closed.is_set(), 10.0, "ann's session on the other worker to end")
    assert "An operator closed your session: flooding" in \
        bytes(ann.raw).decode("utf-8", "replace")
    banned = await op_run(first, op, "ban bob 1d spam")
    assert banned.exit_status == 0, banned.stdout
    await until(lambda: bob.closed.is_set(), 10.0, "bob's session on the other worker to end")
    assert "This server has banned you until" in bytes(bob.raw).decode("utf-8", "replace")
    # a table the other worker runs: closed there, told over the bus
    cat = await join(second, "cat", new_key(), "join far")
    await cat.wait_for("press S")
    await until(lambda: "far" in {i.name for i in first.registry.listing()}, 10.0,
                "the table listed on the first worker")
    closed = await op_run(first, op, "close far")
    assert closed.exit_status == 0 and "told to close it" in str(closed.stdout), closed.stdout
    await until(lambda: "far" not in second.registry.tables, 10.0, "the table closed there")
    await cat.wait_for("operator")
    await cat.close()
    await ann.close()
    await bob.close()


async def test_an_operator_types_the_commands_in_a_tables_chat(
        make_server: MakeServer, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    op, troll_key = new_key(), new_key()
    server = await start(make_server, request, "sqlite", tmp_path, op)
    troll = await join(server, "troll", troll_key, "join pub")
    await troll.wait_for("press S")
    boss = await join(server, "boss", op, "join pub")
    await boss.wait_for("troll")
    table = server.registry.tables["pub"]
    (account,) = [Account(s.occupant.account_id, "troll", None) for s in table.seats
                  if s.occupant is not None and s.occupant.name == "troll"]
    boss.send("/")
    await boss.wait_for("chat")
    boss.send("/mute troll 30m\r")
    await boss.wait_for("muted troll until")
    refusal = table.talk.say(account, "spam")
    assert refusal is not None and refusal.key == "muted_until"
    assert not any("/mute" in line.text for line in table.chat_log)  # said to nobody
    boss.send("/")
    boss.send("/kick troll enough\r")
    await until(lambda: troll.closed.is_set(), 10.0, "troll's session to end")
    audit = str((await op_run(server, op, "audit")).stdout)
    assert "mute troll" in audit and "kick troll  (enough)" in audit
    # a player who is no operator: the same line is chat, for everyone at the table
    other = await join(server, "ann", new_key(), "join pub")
    await other.wait_for("boss")
    other.send("/")
    other.send("/kick boss\r")
    await until(lambda: any("/kick boss" in line.text for line in table.chat_log), 10.0,
                "the line said at the table")
    assert not boss.closed.is_set()
    for c in (boss, other, troll):
        await c.close()


def test_workers_are_given_the_operators_file(tmp_path: Path) -> None:
    from cli.main import build_parser
    from net import supervisor
    from net.front.server import ServerConfig

    ops = tmp_path / "ops"
    args = build_parser().parse_args(["serve", "--workers", "2", "--operators", str(ops)])
    config = ServerConfig(operators_path=ops)
    cmd = supervisor.worker_command(args, config, 1, "nats://127.0.0.1:4222")
    assert cmd[cmd.index("--operators") + 1] == str(ops)
