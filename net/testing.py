"""Test and benchmark support: a real server on port 0 and asyncssh clients with a PTY that
render into a virtual screen (pyte). Used by ``tests/test_net*.py`` and ``bench``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncssh
import pyte

from net.registry import TableConfig
from net.server import MahjongServer, ServerConfig


def fast_config(data_dir: Path, **table: Any) -> ServerConfig:
    """A fast server: no bot pause, short grace, the quickest computer players, port 0."""
    tc = TableConfig(bot_delay=table.pop("bot_delay", 0.0),
                     grace_seconds=table.pop("grace_seconds", 1.0),
                     next_hand_seconds=table.pop("next_hand_seconds", 60.0),
                     bot_level=table.pop("bot_level", "easy"))
    return ServerConfig(host="127.0.0.1", port=0, data_dir=data_dir, table=tc, **table)


async def start_server(config: ServerConfig) -> MahjongServer:
    server = MahjongServer(config)
    await server.start()
    return server


class _Client(asyncssh.SSHClient):
    """A client that answers a keyboard-interactive login with no question."""

    def kbdint_auth_requested(self) -> str:
        return ""

    def kbdint_challenge_received(self, name: str, instructions: str, lang: str,
                                  prompts: Any) -> list[str]:
        return ["" for _ in prompts]


class _ClientSession(asyncssh.SSHClientSession):  # type: ignore[type-arg]
    def __init__(self, owner: PtyClient) -> None:
        self.owner = owner

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.owner._received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.owner.closed.set()

    def exit_status_received(self, status: int) -> None:
        self.owner.exit_status = status


class PtyClient:
    """One player's terminal: an SSH session with a PTY drawn into a pyte screen."""

    def __init__(self, width: int = 80, height: int = 24) -> None:
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.changed = asyncio.Event()
        self.closed = asyncio.Event()
        self.exit_status: int | None = None
        self.raw = bytearray()
        self.bytes_in = 0
        self.keep_raw = True
        self.on_data: Callable[[PtyClient], None] | None = None

    async def connect(self, port: int, username: str, key: asyncssh.SSHKey | None = None,
                      command: str | None = None, term: str = "xterm-256color",
                      pty: bool = True, window: int = 2 * 1024 * 1024) -> PtyClient:
        self.conn = await asyncssh.connect(
            "127.0.0.1", port, username=username, known_hosts=None,
            client_keys=[key] if key is not None else None, agent_path=None,
            client_factory=_Client, kbdint_auth=key is None, preferred_auth=(
                "publickey" if key is not None else "keyboard-interactive"),
        )
        self.chan, _ = await self.conn.create_session(
            lambda: _ClientSession(self), command,
            term_type=term if pty else None,
            term_size=(self.screen.columns, self.screen.lines) if pty else None,
            encoding=None, window=window,
        )
        return self

    def _received(self, data: bytes) -> None:
        self.bytes_in += len(data)
        if self.keep_raw:
            self.raw.extend(data)
        self.stream.feed(data)
        self.changed.set()
        if self.on_data is not None:
            self.on_data(self)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def send(self, keys: str | bytes) -> None:
        assert self.chan is not None
        self.chan.write(keys.encode() if isinstance(keys, str) else keys)

    def resize(self, width: int, height: int) -> None:
        assert self.chan is not None
        self.screen.resize(height, width)
        self.chan.change_terminal_size(width, height)

    async def wait_for(self, predicate: str | Callable[[str], bool],
                       timeout: float = 10.0) -> str:
        check = (lambda t: predicate in t) if isinstance(predicate, str) else predicate
        end = time.monotonic() + timeout
        while True:
            text = self.text()
            if check(text):
                return text
            left = end - time.monotonic()
            if left <= 0 or self.closed.is_set():
                raise AssertionError(f"timed out waiting for {predicate!r}; screen:\n{text}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.5))

    async def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            with contextlib.suppress(Exception):
                await self.conn.wait_closed()


async def run_command(port: int, username: str, command: str,
                      key: asyncssh.SSHKey | None = None) -> asyncssh.SSHCompletedProcess:
    """``ssh -p PORT HOST COMMAND`` without a PTY."""
    async with asyncssh.connect(
        "127.0.0.1", port, username=username, known_hosts=None,
        client_keys=[key] if key is not None else None, agent_path=None, kbdint_auth=key is None,
        client_factory=_Client,
    ) as conn:
        return await conn.run(command, check=False)
