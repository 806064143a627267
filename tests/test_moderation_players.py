"""The players' side of moderation (issue 55): a session an operator removes (kicked, from
the lobby or a table) ends with a line saying so and a non-zero exit status; ``/ignore`` and
``/report`` at a table, kept in the store (SQLite and PostgreSQL); ``who`` across workers."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest

from net.cluster.directory import Beat
from net.front.server import MahjongServer
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
