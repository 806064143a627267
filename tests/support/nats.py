"""The NATS fixture: import it into a test module (``from tests.support.nats import
nats_server  # noqa: F401``) to get a fresh local server per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from net.cluster.natsd import NatsServer
from testkit.nats import local_nats


@pytest.fixture
def nats_server(tmp_path: Path) -> Iterator[NatsServer]:
    """A NATS server with JetStream on a free port of 127.0.0.1, its store and log in the
    test's temporary folder; stopped after the test."""
    with local_nats(tmp_path / "nats") as server:
        yield server
