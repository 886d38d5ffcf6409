"""Making matches through the API in-process (a ``TestClient``), for the server and page
tests: one helper instead of a copy in each test module."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def create_match(c: TestClient, game: str = "swapping", token: str | None = None, join: bool = True,
                 **extra: Any) -> dict[str, Any]:
    """Create a match (as the host with ``token``, else with the server's open creation);
    ``join``: every seat opens its link at once, so the clocks start now."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = c.post("/api/matches", json={"game": game, **extra}, headers=headers)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    if join:
        for seat in out["tokens"]["seats"]:
            if seat:
                assert c.get(f"/api/matches/{out['id']}/view", params={"token": seat}).status_code == 200
    return out
