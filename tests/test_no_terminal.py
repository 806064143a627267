"""A command that needs a terminal, run without one (``ssh -n HOST review ID``, a script): one
line saying to add ``-t``, with the command to type, and status 2 as for every usage error; not
the whole help after it (issue 53, the smaller frictions)."""

from __future__ import annotations

import asyncio

import asyncssh

from net.commands import HELP_TEXT
from net.front.server import MahjongServer
from testkit.ssh import new_key


async def test_a_command_that_needs_a_terminal_says_so_in_one_line(
        server: MahjongServer) -> None:
    key = new_key()
    async with asyncssh.connect("127.0.0.1", server.port, username="ann", known_hosts=None,
                                client_keys=[key], agent_path=None) as conn:
        for command, name in (("review k7m2-x9qd", "review"), ("join fri", "join"),
                              ("lobby", "lobby")):
            process = await conn.create_process(command)  # no pty asked for
            out = await asyncio.wait_for(process.stdout.read(), 10)
            await asyncio.wait_for(process.wait_closed(), 10)
            assert process.exit_status == 2, (command, out)
            assert out == (
                f"{name} needs a terminal: ssh -t -p PORT NAME@HOST {name} ...\n"
                f"{name} 需要终端：请加 -t（ssh -t -p PORT NAME@HOST {name} ...）\n"), out
            assert HELP_TEXT.splitlines()[0] not in out
