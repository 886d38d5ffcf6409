"""Fixtures of the bridge's tests: a real ``blackwhite serve`` in a child process (the
launcher the server and pages' tests share, through tests/web/conftest.py's ``running``)
and a bridge over it on a fake Discord."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("discord")

from tests.web.conftest import LiveServer, running  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with running(tmp_path_factory.mktemp("discord-server")) as live:
        yield live


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "bridge.db"
