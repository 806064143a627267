"""Fixtures shared by the test modules (helpers that are not fixtures are in ``tests/support``)."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from net.front.server import MahjongServer
from net.store import Store, open_store
from testkit.pg import PgServer, start_postgres
from testkit.ssh import MakeServer, fast_config, start_server
from tui.compat import compat_textual


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


@contextlib.contextmanager
def _pg_folder() -> Iterator[Path]:
    """A folder for a PostgreSQL server's data, outside pytest's own temporary folders: a
    pytest started meanwhile takes the others' rights away from those (``chmod 700``), and
    the server runs as another user when the tests run as root."""
    folder = Path(tempfile.mkdtemp(prefix="mahjong-pg-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One real PostgreSQL per test process (each xdist worker its own), started on first
    use in a temporary folder on a free port, stopped at the end of the session."""
    with _pg_folder() as folder:
        server = start_postgres(folder)
        yield server
        server.stop()


@pytest.fixture
def pg_folder() -> Iterator[Path]:
    """A temporary folder a test can start its own PostgreSQL in (see :func:`_pg_folder`)."""
    with _pg_folder() as folder:
        yield folder


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """The URL of a fresh, empty database on :func:`pg_server`, dropped after the test."""
    import psycopg

    name = f"test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(pg_server.url, autocommit=True) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    yield pg_server.url_of(name)
    if pg_server.process is not None:  # a test may have stopped the server
        with psycopg.connect(pg_server.url, autocommit=True) as db:
            db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _open(kind: str, request: pytest.FixtureRequest, folder: Path) -> Store:
    if kind == "sqlite":
        return open_store(folder / "mahjong.sqlite3")
    return open_store(request.getfixturevalue("pg_url"))


@pytest.fixture(params=["sqlite", "postgres"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """The store on each backend: a SQLite file, and a fresh PostgreSQL database."""
    store = _open(request.param, request, tmp_path)
    yield store
    store.close()


@pytest.fixture(params=["sqlite", "postgres"])
def two_stores(request: pytest.FixtureRequest,
               tmp_path: Path) -> Iterator[tuple[Store, Store]]:
    """Two stores on one database, as two worker processes have them: two SQLite
    connections to one file, or two PostgreSQL stores on one database."""
    first = _open(request.param, request, tmp_path)
    second = _open(request.param, request, tmp_path)
    yield first, second
    second.close()
    first.close()
