"""The players' side of moderation (issue 55): a session an operator removes (kicked, from
the lobby or a table) ends with a line saying so and a non-zero exit status; ``/ignore`` and
``/report`` at a table, kept in the store (SQLite and PostgreSQL); ``who`` across workers."""

from __future__ import annotations

from pathlib import Path

import asyncssh
import pytest

from net.front.server import MahjongServer
from testkit.ssh import MakeServer, new_key, run_command
from tests.support.waiting import until
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
