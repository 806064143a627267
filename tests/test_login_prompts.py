"""What the keyboard-interactive login says (issue 53, first contact): a new name's passphrase
is chosen and then typed again to confirm, each prompt saying which in both languages; a
mismatch, a short one and a wrong passphrase are said in the next prompt, the wrong one with
the tries the connection has left (net/front/login.py). Whatever the prompts say, issue 51's
guards hold: tests/test_names.py."""

from __future__ import annotations

import asyncio

import asyncssh

from net.front.server import MahjongServer
from net.limits import Limits
from testkit.ssh import LoginClient, MakeServer


async def login(port: int, username: str, client: LoginClient) -> int | None:
    """A keyless login answering with ``client``: ``help``'s exit status, None if refused."""
    try:
        async with asyncssh.connect(
                "127.0.0.1", port, username=username, known_hosts=None, client_keys=None,
                agent_path=None, client_factory=lambda: client,
                preferred_auth="keyboard-interactive") as conn:
            return (await asyncio.wait_for(conn.run("help", check=False), 20)).exit_status
    except (asyncssh.PermissionDenied, asyncssh.DisconnectError):
        return None


async def test_a_new_passphrase_is_chosen_then_confirmed_each_prompt_saying_so(
        server: MahjongServer) -> None:
    client = LoginClient(answers=["short", "plum-blossom", "plum-blosom", "plum-blossom",
                                  "plum-blossom"])
    assert await login(server.port, "mei", client) == 0
    first, short, confirm, mismatch, confirm_again = client.shown
    assert "Choose a passphrase for mei" in first and "为 mei 设口令" in first
    assert "you type it twice" in first and "Too short" not in first
    assert "Too short: 8 characters or more." in short and "口令太短，至少 8 个字符。" in short
    assert "Choose a passphrase for mei" in short
    assert "again to confirm" in confirm and "再输一次口令以确认" in confirm
    assert "Choose a passphrase" not in confirm
    assert "did not match" in mismatch and "两次输入的口令不一致" in mismatch
    assert "Choose a passphrase for mei" in mismatch
    assert "again to confirm" in confirm_again
    assert server.gate.keyless.lookup("mei").state.value == "protected"


async def test_a_wrong_passphrase_is_said_with_the_tries_left(server: MahjongServer) -> None:
    assert await login(server.port, "lin", LoginClient("jade-rabbit")) == 0
    client = LoginClient("jade-rabbit", answers=["guess-one", "guess-two"])
    assert await login(server.port, "lin", client) == 0
    first, second, third = client.shown
    assert "Passphrase for lin" in first and "口令" in first and "Wrong" not in first
    tries = server.limits.max_auth_tries
    assert f"Wrong passphrase ({tries} tries left on this connection)." in second
    assert f"口令错误（本次连接还可试 {tries} 次）。" in second
    assert "Passphrase for lin" in second
    assert f"Wrong passphrase ({tries - 1} tries left" in third


async def test_the_last_try_is_said_and_past_it_the_connection_ends(
        make_server: MakeServer) -> None:
    srv = await make_server(limits=Limits(max_auth_tries=2))
    assert await login(srv.port, "ada", LoginClient("lovelace-1")) == 0
    client = LoginClient("wrong-one", give_up=10)
    assert await login(srv.port, "ada", client) is None
    assert any("(1 try left on this connection)" in shown for shown in client.shown)
    assert client.challenges <= srv.limits.max_auth_tries + 2
