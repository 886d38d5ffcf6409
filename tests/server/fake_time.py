"""The server on an injected clock, for the clock, pace and notification tests: a wall
clock that moves only when a test says so, the app running on it with no clock loop (the
test ticks it), and one tick: one copy instead of one in each test module."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from .matches import served


class FakeTime:
    """A wall clock that moves only when a test says so (``now.t += 60``)."""

    def __init__(self, start: float = 1_000_000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t


@contextmanager
def server(url: str, now: FakeTime, **extra: Any) -> Iterator[TestClient]:
    """The app over ``url`` on the clock ``now``: no bot workers, no clock loop, no rate
    limit; ``extra`` goes to ``create_app``."""
    with served(url, now=now, **extra) as client:
        yield client


def tick(client: TestClient) -> None:
    """One round of the server's clocks, as its clock loop would run it."""
    client.portal.call(client.app.state.service.tick)  # type: ignore[attr-defined,union-attr]
