"""A text command (``replay ID``, ``tournament``, ``stats``, ``rename``, ``report``) that meets
an error it did not expect answers one line and exit status 1, and the error is logged: the
client is not left waiting for an answer that never comes."""

from __future__ import annotations

import asyncio
import logging

import pytest

from net.front import replay
from net.front.server import MahjongServer
from testkit.ssh import new_key, run_command


async def test_an_unexpected_error_in_a_text_command_ends_it_with_a_line(
        server: MahjongServer, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    async def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr(replay, "kept_game", broken)
    with caplog.at_level(logging.ERROR):
        r = await asyncio.wait_for(run_command(server.port, "ann", "replay abcd-2345",
                                               new_key()), 20)
    assert r.exit_status == 1
    assert "could not answer this command" in str(r.stdout)
    assert any("a replay command failed" in rec.getMessage() for rec in caplog.records)
