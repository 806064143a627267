"""Fixtures shared by the test modules (helpers that are not fixtures are in ``tests/support``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from net.server import MahjongServer
from testkit.ssh import MakeServer, fast_config, start_server
from tui import compat_textual


@pytest.fixture(scope="session", autouse=True)
def _textual_fixed() -> Iterator[None]:
    """Textual patched as ``serve`` and ``play`` patch it, once for the whole session: a TUI
    test then runs the same alone as in the suite, whichever module comes first."""
    compat_textual.apply()
    yield


@pytest.fixture
async def make_server(tmp_path: Path) -> AsyncIterator[MakeServer]:
    """Start servers on port 0 with ``fast_config(tmp_path, **config)``; all closed at the end."""
    started: list[MahjongServer] = []

    async def make(**config: Any) -> MahjongServer:
        srv = await start_server(fast_config(tmp_path, **config))
        started.append(srv)
        return srv

    yield make
    for srv in reversed(started):
        await srv.close()


@pytest.fixture
async def server(make_server: MakeServer) -> MahjongServer:
    """A fast server of the default limits on port 0, with a temporary data folder."""
    return await make_server()
