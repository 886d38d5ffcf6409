"""Bounded memory: ended matches leave memory and are read back on demand; start-up
loads only running matches; an address has a quota of anonymous running matches."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from blackwhite.engine import replay
from blackwhite.app import create_app
from blackwhite.server.service import MatchService


def make(url: str, **options: Any) -> TestClient:
    settings: dict[str, Any] = {"bot_workers": 0, "clock_interval": None, "rate_limit": False, "keep_ended": 0.0}
    return TestClient(create_app(url, **{**settings, **options}))


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with make(db_url) as c:
        yield c


def service(c: TestClient) -> MatchService:
    svc: MatchService = c.app.state.service  # type: ignore[attr-defined]
    return svc


def create(c: TestClient, token: str | None = None, **extra: Any) -> dict[str, Any]:
    """Create a match, and every seat opens its link at once, so the clocks start now."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = c.post("/api/matches", json={"game": "swapping", **extra}, headers=headers)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    for seat in out["tokens"]["seats"]:
        if seat:
            assert c.get(f"/api/matches/{out['id']}/view", params={"token": seat}).status_code == 200
    return out


def ended_pair(c: TestClient) -> tuple[dict[str, Any], dict[str, Any]]:
    """A match finished by a resignation after one move, and one cancelled after one move."""
    finished, cancelled = create(c), create(c)
    for made in (finished, cancelled):
        r = c.post(f"/api/matches/{made['id']}/actions", params={"token": made["tokens"]["seats"][0]},
                   json={"action": "place 8 0 3", "version": 0})
        assert r.status_code == 200, r.text
    r = c.post(f"/api/matches/{finished['id']}/actions", params={"token": finished["tokens"]["seats"][1]},
               json={"action": "resign", "version": r.json()["version"]})
    assert r.status_code == 200 and r.json()["view"]["finished"], r.text
    assert c.post(f"/api/matches/{cancelled['id']}/cancel",
                  params={"token": cancelled["host_token"]}).json()["status"] == "cancelled"
    return finished, cancelled


def everything(c: TestClient, made: dict[str, Any]) -> dict[str, Any]:
    """What every token of a match is served: summaries, views, the record, the listing, pages."""
    mid, tokens = made["id"], [made["host_token"], made["tokens"]["spectator"], *made["tokens"]["seats"]]
    out: dict[str, Any] = {}
    for t in tokens:
        for what in ("", "/view", "/record"):
            r = c.get(f"/api/matches/{mid}{what}", params={"token": t})
            assert r.status_code == 200, r.text
            out[f"{t}{what}"] = r.json()
    r = c.get(f"/api/matches/{mid}/view", params={"token": made["tokens"]["seats"][0], "render": 1})
    out["board"] = r.json()["board"]
    listing = c.get("/api/matches", params={"token": made["host_token"]}).json()
    out["listing"] = [m for m in listing if m["id"] == mid]
    assert len(out["listing"]) == 1
    for page, t in (("play", made["tokens"]["seats"][1]), ("watch", made["tokens"]["spectator"]),
                    ("host", made["host_token"]), ("replay", made["tokens"]["seats"][0])):
        r = c.get(f"/{page}/{mid}", params={"token": t})
        assert r.status_code == 200 and mid in r.text, (page, r.text[:500])
    return out


def test_an_ended_match_leaves_memory_and_is_served_as_before(client: TestClient) -> None:
    finished, cancelled = ended_pair(client)
    running = create(client)
    before = {m["id"]: everything(client, m) for m in (finished, cancelled)}
    assert service(client).sweep() == 2
    assert set(service(client).matches) == {running["id"]}
    for made in (finished, cancelled):
        after = everything(client, made)  # read back from the database, rebuilt by replay
        assert after == before[made["id"]]
        assert replay(after[made["host_token"] + "/record"]).error is None
        with client.websocket_connect(f"/ws/matches/{made['id']}?token={made['tokens']['spectator']}") as ws:
            first = ws.receive_json()
            assert first["type"] == "view" and first["status"] in ("finished", "cancelled")
            service(client).sweep()
            assert made["id"] in service(client).matches  # a listener keeps it in memory
    service(client).sweep()
    assert set(service(client).matches) == {running["id"]}
    r = client.get("/api/matches/no-such-match/view", params={"token": finished["host_token"]})
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_match"


def test_start_up_loads_only_running_matches(db_url: str) -> None:
    with make(db_url) as c:
        finished, cancelled = ended_pair(c)
        running = create(c)
        before = {m["id"]: everything(c, m) for m in (finished, cancelled)}
    with make(db_url) as c:
        assert set(service(c).matches) == {running["id"]}
        for made in (finished, cancelled):
            assert everything(c, made) == before[made["id"]]


def test_the_least_recently_used_ended_matches_leave_first_beyond_the_cap(sqlite_url: str) -> None:
    with make(sqlite_url, keep_ended=3600.0, max_ended=2) as c:
        host = create(c)["host_token"]
        ids = []
        for _ in range(5):
            made = create(c, host)
            c.post(f"/api/matches/{made['id']}/cancel", params={"token": host}).raise_for_status()
            ids.append(made["id"])
        c.get(f"/api/matches/{ids[0]}", params={"token": host}).raise_for_status()  # used again: kept
        assert service(c).sweep() == 3
        assert set(ids) & set(service(c).matches) == {ids[0], ids[4]}
        assert len(c.get("/api/matches", params={"token": host}).json()) == 6


def test_an_address_may_have_only_a_few_anonymous_running_matches(sqlite_url: str) -> None:
    with make(sqlite_url, anonymous_live=3) as c:
        made = [create(c) for _ in range(3)]
        r = c.post("/api/matches", json={"game": "swapping"})
        assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_matches", r.text
        assert len(service(c).matches) == 3
        # the first match's own host token is that anonymous host's: no way round the quota
        assert c.post("/api/matches", json={"game": "swapping"},
                      headers={"Authorization": f"Bearer {made[0]['host_token']}"}).status_code == 429
        c.post(f"/api/matches/{made[1]['id']}/cancel", params={"token": made[1]["host_token"]}).raise_for_status()
        create(c)  # one ended: room for one more
        assert c.post("/api/matches", json={"game": "swapping"}).status_code == 429


def test_simultaneous_anonymous_creations_cannot_all_pass_the_quota(sqlite_url: str) -> None:
    import concurrent.futures

    import httpx

    from .client import ThreadServer

    with ThreadServer(sqlite_url, bot_workers=0, rate_limit=False, anonymous_live=3) as server:
        def post(_: int) -> int:
            with httpx.Client(base_url=server.base_url, timeout=30) as http:
                return http.post("/api/matches", json={"game": "swapping"}).status_code

        with concurrent.futures.ThreadPoolExecutor(12) as pool:
            codes = list(pool.map(post, range(12)))
    assert sorted(codes) == [201] * 3 + [429] * 9, codes
