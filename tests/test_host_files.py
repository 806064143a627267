"""The host's files a server follows (issue 55): the lobby's message of the day (``serve
--motd``) and a private server's allow list (``serve --allow``), over SSH on port 0. Each is
read strictly at start (a damaged one stops ``serve`` with one line), read again when it
changes or on SIGHUP, and a damaged edit while running is logged with the old kept."""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pytest

from net import supervisor
from net.front.hostfiles import HostFile, HostFileError, parse_allow, parse_motd
from net.front.server import MahjongServer, ServerConfig
from net.limits import ALLOW_MAX_BYTES, MOTD_LINES, MOTD_MAX_BYTES
from testkit.ssh import LoginClient, MakeServer, PtyClient, new_key, run_command
from words import tr

ROOT = Path(__file__).resolve().parent.parent


def public_line(key: asyncssh.SSHKey, options: str = "") -> str:
    line = key.export_public_key().decode().strip()
    return f"{options} {line}" if options else line


def write(path: Path, text: str | bytes) -> None:
    """``path``'s new content, seen as a change by the poll (a newer time, as an editor's
    save a moment later gives it)."""
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000_000))


async def eventually(check: object, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < end, "the server did not read the file again"
        await asyncio.sleep(0.1)


# --- reading the files strictly ------------------------------------------------------------
def test_motd_is_cleaned_and_bounded() -> None:
    text = "\n\nWelcome\x1b]0;owned\x07 to \x1b[2Jthe club\t!\r\n\n周五 8 点 \x9b比赛\n\n"
    assert parse_motd(text) == ("Welcome to the club    !", "", "周五 8 点 比赛")
    assert parse_motd("") == ()
    with pytest.raises(ValueError, match="lines"):
        parse_motd("x\n" * (MOTD_LINES + 1))
    with pytest.raises(ValueError, match="line 2"):
        parse_motd("ok\n" + "x" * 1000)


def test_allow_list_is_read_strictly() -> None:
    a, b = new_key(), new_key()
    b_from = public_line(b, 'from="127.0.0.2,10.0.0.0/8"')
    keys = parse_allow(f"# the club\n{public_line(a)}\n\n{b_from}\n")
    assert keys.count == 2
    a, b = a.convert_to_public(), b.convert_to_public()  # as a client offers them
    assert keys.admits(a, "127.0.0.1")
    assert keys.admits(b, "10.1.2.3") and not keys.admits(b, "127.0.0.1")
    assert not keys.admits(new_key().convert_to_public(), "127.0.0.1")
    for bad, why in ((f"{public_line(a)}\nssh-ed25519 AAAAbroken\n", "line 2: not a public key"),
                     (f"{public_line(a)[:40]}\n", "line 1: not a public key"),
                     (public_line(a, 'command="sh"'), "option command"),
                     (f"cert-authority {public_line(a)}\n", "line 1"),
                     ("# nobody yet\n", "no public key")):
        with pytest.raises(ValueError, match=why):
            parse_allow(bad)


def test_damaged_or_oversized_files_say_why(tmp_path: Path) -> None:
    motd, allow = tmp_path / "motd", tmp_path / "allow"
    motd.write_bytes(b"caf\xe9\n")
    with pytest.raises(HostFileError, match=r"--motd .*motd: line 1: not UTF-8"):
        HostFile.motd(motd)
    motd.write_bytes(b"x" * (MOTD_MAX_BYTES + 1))
    with pytest.raises(HostFileError, match="larger than"):
        HostFile.motd(motd)
    allow.write_bytes(b"#" * (ALLOW_MAX_BYTES + 1))
    with pytest.raises(HostFileError, match=r"--allow .*larger than"):
        HostFile.allow(allow)
    with pytest.raises(HostFileError, match="No such file"):
        HostFile.allow(tmp_path / "absent")


@pytest.mark.parametrize("flag", ["--motd", "--allow"])
def test_serve_stops_at_start_with_one_line(tmp_path: Path, flag: str) -> None:
    bad = tmp_path / "bad"
    bad.write_text("ssh-ed25519 not-a-key\n" if flag == "--allow" else "x\n" * 50)
    out = subprocess.run(
        [sys.executable, "-m", "cli.main", "serve", "--port", "0", "--data",
         str(tmp_path / "data"), flag, str(bad)],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mahjong-ssh serve: {flag} {bad}:"), out.stderr
    assert not (tmp_path / "data").exists()  # nothing was started


def test_workers_are_given_the_files(tmp_path: Path) -> None:
    from cli.main import build_parser

    args = build_parser().parse_args(["serve", "--workers", "2", "--motd", "m", "--allow",
                                      str(tmp_path / "a")])
    config = ServerConfig(motd_path=Path("m"), allow_path=tmp_path / "a")
    cmd = supervisor.worker_command(args, config, 1, "nats://127.0.0.1:4222")
    assert cmd[cmd.index("--motd") + 1] == "m"
    assert cmd[cmd.index("--allow") + 1] == str(tmp_path / "a")


# --- the message of the day over SSH -------------------------------------------------------
async def lobby(server: MahjongServer, name: str, **kw: object) -> PtyClient:
    c = PtyClient(100, 30)
    await c.connect(server.port, name, new_key(), **kw)  # type: ignore[arg-type]
    await c.wait_for("welcome")
    return c


async def test_motd_in_the_lobby_follows_the_file(make_server: MakeServer, tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    motd = tmp_path / "motd.txt"
    write(motd, "Tournament friday 8pm\x1b]0;owned\x07\n周五八点比赛\n")
    server = await make_server(motd_path=motd)
    c = await lobby(server, "amy")
    try:
        screen = await c.wait_for("周五八点比赛")
        assert "Tournament friday 8pm" in screen
        assert b"owned" not in c.raw  # the escape sequence and what it carried: never sent
        # an edit is seen while the lobby is open
        write(motd, "Server restarts at 23:00\n")
        await c.wait_for("Server restarts at 23:00")
        assert "Tournament" not in c.text()
        # SIGHUP reads it even when its size, time and inode look the same
        st = motd.stat()
        motd.write_text("Server restarts at 23:30\n")
        os.utime(motd, ns=(st.st_atime_ns, st.st_mtime_ns))
        await asyncio.sleep(2.5)
        assert server.motd_lines() == ("Server restarts at 23:00",)
        server.reload_files()  # what serve's SIGHUP handler calls
        await c.wait_for("Server restarts at 23:30")
        # a damaged edit: logged, the message read before kept
        caplog.set_level(logging.INFO, logger="net.front.server")
        write(motd, b"\xff\xfe broken\n")
        await eventually(lambda: "not UTF-8" in caplog.text)
        assert "keeping the one read before" in caplog.text
        assert server.motd_lines() == ("Server restarts at 23:30",)
        assert "Server restarts at 23:30" in c.text()
    finally:
        await c.close()


async def test_motd_in_the_plain_lobby(make_server: MakeServer, tmp_path: Path) -> None:
    motd = tmp_path / "motd.txt"
    write(motd, "Be kind at the table.\n")
    server = await make_server(motd_path=motd)
    c = PtyClient(100, 30)
    await c.connect(server.port, "cal", new_key(), command="lobby --plain")
    try:
        await c.wait_for("Be kind at the table.")
    finally:
        await c.close()


# --- the allow list over SSH -----------------------------------------------------------------
class BannerClient(LoginClient):
    """A client that keeps the login's banners, as OpenSSH prints them."""

    def __init__(self) -> None:
        super().__init__()
        self.banners: list[str] = []

    def auth_banner_received(self, msg: str, lang: str) -> None:
        self.banners.append(msg)


async def refused(port: int, key: asyncssh.SSHKey | None) -> str:
    """What a login with ``key`` (or none) is refused with: the banner, then the reason,
    keyboard-interactive tried after the key as OpenSSH does."""
    client = BannerClient()
    with pytest.raises(asyncssh.PermissionDenied) as exc:
        async with asyncssh.connect(
                "127.0.0.1", port, username="eve", known_hosts=None, agent_path=None,
                client_keys=[key] if key is not None else None, kbdint_auth=True,
                client_factory=lambda: client, password_auth=False):
            pass
    return "".join(client.banners) + exc.value.reason


async def test_allow_list_admits_its_keys_only(make_server: MakeServer, tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    amy, bob, cal, eve = new_key(), new_key(), new_key(), new_key()
    allow = tmp_path / "allow"
    cal_from = public_line(cal, 'from="127.0.0.2"')
    write(allow, f"{public_line(amy)}\n{cal_from}\n")
    server = await make_server(allow_path=allow)  # keyless logins allowed, but not here
    r = await run_command(server.port, "amy", "help", key=amy)
    assert r.exit_status == 0
    # the line in both languages (OpenSSH prints a banner as it is), then the reason
    line = f"{tr('en', 'allow_only')} {tr('zh', 'allow_only')}\r\n{tr('en', 'allow_only')}"
    assert await refused(server.port, eve) == line  # another key
    assert await refused(server.port, None) == line  # no key
    assert await refused(server.port, cal) == line  # its line's from= is another address
    r = await run_command(server.port, "cal", "help", key=cal, address="127.0.0.2")
    assert r.exit_status == 0
    # an edit adds bob; a damaged one later is logged and the list read before kept
    caplog.set_level(logging.INFO, logger="net.front.server")
    write(allow, f"{public_line(amy)}\n{public_line(bob)}\n")
    await eventually(lambda: server.allow is not None and server.allow.value.count == 2
                     and "--allow" in caplog.text)
    r = await run_command(server.port, "bob", "help", key=bob)
    assert r.exit_status == 0
    write(allow, f"{public_line(amy)}\nssh-rsa garbage\n")
    await eventually(lambda: "line 2: not a public key" in caplog.text)
    r = await run_command(server.port, "bob", "help", key=bob)
    assert r.exit_status == 0
    allow.unlink()  # gone: said, the list kept
    await eventually(lambda: "No such file" in caplog.text)
    assert await refused(server.port, eve) == line


async def test_allow_list_with_keys_only(make_server: MakeServer, tmp_path: Path) -> None:
    amy = new_key()
    allow = tmp_path / "allow"
    write(allow, public_line(amy) + "\n")
    server = await make_server(allow_path=allow, allow_anonymous=False)
    assert await refused(server.port, new_key()) == (
        f"{tr('en', 'allow_only')} {tr('zh', 'allow_only')}\r\n{tr('en', 'allow_only')}")
    r = await run_command(server.port, "amy", "help", key=amy)
    assert r.exit_status == 0


async def test_openssh_shows_the_line(make_server: MakeServer, tmp_path: Path) -> None:
    """OpenSSH, as players run it: the banner in both languages as it is, and the reason (a
    client with no method left stops reading: the reason must come before the failure)."""
    ssh = shutil.which("ssh")
    if ssh is None:
        pytest.skip("no OpenSSH client (ssh) here: the asyncssh clients above check the line")
    allow, key_file = tmp_path / "allow", tmp_path / "id_ed25519"
    write(allow, public_line(new_key()) + "\n")
    key_file.write_bytes(new_key().export_private_key())
    key_file.chmod(0o600)
    server = await make_server(allow_path=allow)
    out = await asyncio.to_thread(
        subprocess.run,
        [ssh, "-p", str(server.port), "-i", str(key_file), "-o", "IdentitiesOnly=yes",
         "-o", "IdentityAgent=none", "-o", "StrictHostKeyChecking=no",
         "-o", "UserKnownHostsFile=/dev/null", "-o", "PasswordAuthentication=no",
         "-F", "/dev/null", "eve@127.0.0.1", "help"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30,
        env={**os.environ, "LC_ALL": "C.UTF-8"})
    assert out.returncode == 255
    assert f"{tr('en', 'allow_only')} {tr('zh', 'allow_only')}" in out.stderr, out.stderr
    assert f"Received disconnect from 127.0.0.1 port {server.port}:14: " \
           f"{tr('en', 'allow_only')}" in out.stderr, out.stderr


# --- serve itself: SIGHUP --------------------------------------------------------------------
async def test_sighup_reads_the_files_again(tmp_path: Path) -> None:
    motd, allow = tmp_path / "motd", tmp_path / "allow"
    amy, bob = new_key(), new_key()
    write(motd, "one\n")
    write(allow, public_line(amy) + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", "--port", "0", "--data",
         str(tmp_path / "data"), "--motd", str(motd), "--allow", str(allow)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stderr is not None
        banner = b""
        while b"connect:" not in banner:
            line = await asyncio.to_thread(proc.stdout.readline)
            assert line, "the server did not start"
            banner += line
        found = re.search(rb"serving on 127.0.0.1:(\d+)", banner)
        assert found is not None
        port = int(found.group(1))
        with pytest.raises(asyncssh.PermissionDenied):
            await run_command(port, "bob", "help", key=bob)
        # the same size, time and inode: only SIGHUP reads it
        st = allow.stat()
        allow.write_text(public_line(bob) + "\n")
        os.utime(allow, ns=(st.st_atime_ns, st.st_mtime_ns))
        proc.send_signal(signal.SIGHUP)
        end = time.monotonic() + 15
        while True:
            try:
                r = await run_command(port, "bob", "help", key=bob)
                break
            except asyncssh.PermissionDenied:
                assert time.monotonic() < end, "SIGHUP did not read the allow list again"
                await asyncio.sleep(0.2)
        assert r.exit_status == 0
        assert proc.poll() is None  # SIGHUP does not stop it
    finally:
        proc.send_signal(signal.SIGTERM)
        await asyncio.to_thread(proc.wait, 30)
