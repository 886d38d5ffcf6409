"""Fixtures of the bridge's tests: a real ``blackwhite serve`` in a child process (the
pages' launcher, tests/web/conftest.py) and a bridge over it on a fake Discord."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("discord")

from tests.web.conftest import LiveServer  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    base = tmp_path_factory.mktemp("discord-server")
    live = LiveServer(base / "server.db", base / "server.log")
    live.start()
    try:
        yield live
    finally:
        live.kill()


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "bridge.db"
