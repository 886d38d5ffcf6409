"""Players over several processes (PostgreSQL): a player's page read through a process
that does not own the player's match is built from the seat's view asked of the owner;
the player acts through any process; a link revoked through one process closes the
player's socket on the owner within a second."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx
import pytest

from .client import Retrying, ws_url
from .test_ownership import two_processes

websockets = pytest.importorskip("websockets")


def test_a_players_page_and_rights_across_processes(tmp_path: Path, postgres_url: str) -> None:
    with two_processes(postgres_url, tmp_path) as both:
        a, b = (httpx.Client(base_url=u, timeout=30, trust_env=False, transport=Retrying()) for u in both.urls)
        with a, b:
            first = a.post("/api/matches", json={"game": "swapping"})
            assert first.status_code == 201, first.text
            host = {"Authorization": f"Bearer {first.json()['host_token']}"}
            made = b.post("/api/players", json={"name": "Sally"}, headers=host)
            assert made.status_code == 201, made.text
            player, token = made.json()["player"]["id"], made.json()["token"]
            me = {"Authorization": f"Bearer {token}"}
            spare = b.post("/api/player/links", json={"label": "socket"}, headers=me).json()["token"]
            match = a.post("/api/matches", json={"game": "swapping", "seats": [{"player": player}, {"name": "B"}],
                                                 "start": "now"}, headers=host)
            assert match.status_code == 201, match.text
            mid = match.json()["id"]
            # read through the other process: the seat's view comes from the owner
            page = b.get("/api/player/matches", headers=me)
            assert page.status_code == 200, page.text
            entry = page.json()["matches"][0]
            assert entry["id"] == mid and entry["your_move"] and entry["deadline"] is not None
            view = b.get(f"/api/matches/{mid}/view", params={"render": 1}, headers=me).json()
            assert view["seat"] == 0
            acted = b.post(f"/api/matches/{mid}/actions", json={"action": view["legal"][0], "version": view["version"]},
                           headers=me)
            assert acted.status_code == 200, acted.text

            async def watch() -> tuple[int | None, float]:
                """Follow the player's socket (a 1012, the match moving to the other process as
                the two even out, is followed by a reconnect, as the pages do); revoke its link
                once it has its first view; the close code that ends it and how long after."""
                at: float | None = None
                while True:
                    async with websockets.connect(ws_url(both.urls[0], mid, spare), open_timeout=30) as ws:
                        try:
                            while True:
                                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                                if at is None and message.get("type") == "view":
                                    assert message["seat"] == 0
                                    links = (await asyncio.to_thread(b.get, "/api/player", headers=me)).json()["links"]
                                    link = [entry for entry in links if entry["label"] == "socket"][0]["id"]
                                    revoked = await asyncio.to_thread(b.post, f"/api/player/links/{link}/revoke",
                                                                      headers=me)
                                    assert revoked.status_code == 200, revoked.text
                                    at = time.monotonic()
                        except websockets.ConnectionClosed:
                            if ws.close_code != 1012:
                                return ws.close_code, time.monotonic() - (at or 0.0)

            code, after = asyncio.run(watch())
            assert code == 4403 and after < 1.5, (code, after)
            refused = a.get(f"/api/matches/{mid}/view", params={"token": spare})
            assert refused.status_code == 403 and refused.json()["error"]["code"] == "revoked"
