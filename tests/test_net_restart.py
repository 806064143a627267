"""A server killed with SIGKILL mid-hand and started again resumes the table at its last
applied action, with the same host key; the player reconnects to the seat."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import asyncssh

from net.store import SqliteStore
from testkit.ssh import PtyClient

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def start(data: Path, port: int) -> tuple[subprocess.Popen[bytes], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--data", str(data),
         "--bot-delay", "0.1"],  # computer players quicker than the default: not under test
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    banner = b""
    while b"connect:" not in banner:
        line = await asyncio.to_thread(proc.stdout.readline)
        assert line, "the server did not start"
        banner += line
    fp = re.search(rb"fingerprint: (\S+)", banner)
    assert fp is not None
    return proc, fp.group(1).decode()


def table_line(text: str) -> str:
    """The status row without the timer (which moves)."""
    return text.splitlines()[0].split("⏱")[0].strip()


async def to_my_move(c: PtyClient) -> None:
    """Wait until the table waits for this player (its turn, or a buy); a hand a computer
    player won meanwhile (the game's seed is random) is left with Enter for the next one."""
    while True:
        text = await c.wait_for(lambda t: "Your turn" in t or "(买)" in t  # a buy prompt
                                or "Enter: next hand" in t, 30)
        if "Enter: next hand" not in text:
            return
        c.send("\r")
        await c.wait_for(lambda t: "Enter: next hand" not in t, 10)


def mine(text: str) -> list[str]:
    """The player's own rows (not the log's row of moves: a new session fills it afresh, where
    the old one had added moves to what it showed since its last restart)."""
    return [ln for ln in text.splitlines() if "You " in ln and " · " not in ln]


async def test_sigkill_and_restart_resume_the_table(tmp_path: Path) -> None:
    port = free_port()
    key = asyncssh.generate_private_key("ssh-ed25519")
    proc, fp1 = await start(tmp_path, port)
    try:
        c = PtyClient()
        await c.connect(port, "kim", key, command="join k9")
        await c.wait_for("press S")
        c.send("s")
        # computer players move (0.1 s each) until it is kim's turn: the table then waits
        await to_my_move(c)
        for _ in range(3):
            before = table_line(c.text())
            c.send("\r")
            await c.wait_for(lambda t, b=before: table_line(t) != b, 10)
            await to_my_move(c)
        shown = table_line(c.text())
        hand_row = mine(c.text())
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert (tmp_path / "ssh_host_ed25519_key").stat().st_mode & 0o777 == 0o600
    store = SqliteStore(tmp_path / "mahjong.sqlite3")
    played = len(store.actions("k9", 1))
    store.close()
    assert played > 0
    proc, fp2 = await start(tmp_path, port)
    try:
        assert fp2 == fp1, "the host key is generated once"
        c2 = PtyClient()
        await c2.connect(port, "kim", key, command="join k9")
        text = await c2.wait_for(lambda t: "Your turn" in t or "(买)" in t, 15)
        assert table_line(text) == shown
        assert mine(text) == hand_row
        await c2.close()
    finally:
        proc.terminate()
        proc.wait(10)
