"""Commands run with the client's input at its end (``ssh -n HOST stats``, ``< /dev/null``, a
script): each prints all it has and exits with its status, however early the client's EOF
comes (issue 53, bug 1: the server half-closed the channel on the EOF, so an answer written
after it failed with 'Channel not open for sending' and the client waited for ever)."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from net.front.server import MahjongServer
from testkit.ssh import PtyClient, new_key

RUNS = 20  # the EOF raced the answer: about half the calls lost it


async def run_closed(port: int, command: str, key: asyncssh.SSHKey,
                     username: str = "ann") -> tuple[int | None, str]:
    """``ssh HOST COMMAND < /dev/null`` by asyncssh: the EOF written as soon as the command
    is accepted; the exit status and all that was printed."""
    async with asyncssh.connect("127.0.0.1", port, username=username, known_hosts=None,
                                client_keys=[key], agent_path=None) as conn:
        process = await conn.create_process(command)
        process.stdin.write_eof()
        out = await asyncio.wait_for(process.stdout.read(), 10)
        await asyncio.wait_for(process.wait_closed(), 10)
        return process.exit_status, out


def slow_answers(server: MahjongServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's reads and a seat's opening take a while (as from a database server), so
    the client's EOF is sure to come before the answer."""
    monkeypatch.setattr(server.store, "off_loop", True)
    board = server.stats_board

    def slow_board() -> Any:  # in a thread (off_loop)
        time.sleep(0.2)
        return board()

    open_seat = server.open_seat

    async def slow_open_seat(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.2)
        return await open_seat(*args, **kwargs)

    monkeypatch.setattr(server, "stats_board", slow_board)
    monkeypatch.setattr(server, "open_seat", slow_open_seat)


async def test_commands_print_all_and_exit_after_the_clients_eof(
        server: MahjongServer, monkeypatch: pytest.MonkeyPatch) -> None:
    slow_answers(server, monkeypatch)
    key = new_key()
    for _ in range(RUNS):
        status, out = await run_closed(server.port, "stats", key)
        assert status == 0 and "Leaderboard" in out and "Tables" in out, out
    server.registry.get_or_create("taken", "gejiu")
    for command, expected, says in (
            ("help", 0, "join NAME"),
            ("replay", 0, "No finished game yet"),
            ("replay zzzz-2222", 2, "no finished game"),
            ("review", 2, "review needs a terminal: ssh -t"),  # one line, a usage error
            ("stats now", 2, "stats takes no arguments")):
        for _ in range(3):
            status, out = await run_closed(server.port, command, key)
            assert status == expected and says in out, (command, status, out)
    # bot join's refusals: the error line, then the status
    for _ in range(5):
        status, out = await run_closed(server.port, "bot join taken --rules yichun", key)
        line = json.loads(out)
        assert status == 2 and line["type"] == "error" and line["code"] == "refused", out


async def test_a_terminal_session_whose_input_ends_still_gets_its_error(
        server: MahjongServer) -> None:
    """``ssh -t HOST replay ID < /dev/null``: the refusal and status 2, not a crash."""
    key = new_key()
    for _ in range(3):
        c = PtyClient(80, 24, answers=False)  # its input is at its end: it answers nothing
        await c.connect(server.port, "ann", key, command="replay zzzz-zzzz")
        assert c.chan is not None
        c.chan.write_eof()
        await asyncio.wait_for(c.closed.wait(), 10)
        assert c.exit_status == 2 and "no finished game" in c.text(), (c.exit_status, c.text())
        await c.close()


@pytest.mark.skipif(shutil.which("ssh") is None, reason="OpenSSH's ssh is not installed")
async def test_openssh_n_gets_every_answer(server: MahjongServer, tmp_path: Path) -> None:
    """``ssh -n``: OpenSSH sends its EOF with the command, before the answer."""
    key = new_key()
    key_file = tmp_path / "id_ed25519"
    key_file.write_bytes(key.export_private_key())
    key_file.chmod(0o600)

    async def ssh_n(command: str) -> tuple[int | None, str]:
        proc = await asyncio.create_subprocess_exec(
            "ssh", "-n", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o",
            "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-i", str(key_file),
            "-p", str(server.port), "ann@127.0.0.1", command,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            out, _err = await asyncio.wait_for(proc.communicate(), 20)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            raise AssertionError(f"ssh -n {command}: no end") from None
        return proc.returncode, out.decode()

    for _ in range(RUNS):
        status, out = await ssh_n("stats")
        assert status == 0 and "Leaderboard" in out, out
    for command, expected, says in (("help", 0, "join NAME"),
                                    ("replay zzzz-2222", 2, "no finished game"),
                                    ("bot join t1 --lang zh", 2, "no --lang")):
        status, out = await ssh_n(command)
        assert status == expected and says in out, (command, status, out)
