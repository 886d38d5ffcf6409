"""Probes of the bounds as a hostile client would try them (#37 items 2, 5, 8): many
requests with one token at once, over PostgreSQL; a link an anonymous host makes for
itself; a match that asks to start at a far moment."""

from __future__ import annotations

import concurrent.futures
from typing import Any

import httpx

from blackwhite.server.limits import Quotas

from .client import ThreadServer
from .test_bounds import make, post, refused


def test_simultaneous_creations_with_one_token_cannot_all_pass(postgres_url: str) -> None:
    n = 12
    with ThreadServer(postgres_url, bot_workers=0, rate_limit=False, quotas=Quotas(anonymous=3)) as server:
        with httpx.Client(base_url=server.base_url, timeout=30) as http:
            token = http.post("/api/matches", json={"game": "swapping"}).json()["host_token"]

        def create(_: int) -> int:
            with httpx.Client(base_url=server.base_url, timeout=30) as http:
                return http.post("/api/matches", json={"game": "swapping"},
                                 headers={"Authorization": f"Bearer {token}"}).status_code

        with concurrent.futures.ThreadPoolExecutor(n) as pool:
            codes = list(pool.map(create, range(n)))
    assert sorted(codes) == [201] * 2 + [429] * (n - 2), codes


def test_a_link_an_anonymous_host_makes_for_itself_is_still_anonymous(db_url: str) -> None:
    with make(db_url, quotas=Quotas(anonymous=2)) as c:
        token = post(c).json()["host_token"]
        r = c.post("/api/host/links", json={"label": "another"}, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 201, r.text
        link: Any = r.json()["token"]
        assert post(c, link).status_code == 201
        assert refused(post(c, link)) and refused(post(c, token))


def test_handshakes_are_budgeted_before_the_router_looks_up_an_owner(postgres_url: str) -> None:
    """Several processes: a socket for a match this process does not hold makes the router
    ask the database who owns it; made-up match ids must not each cost that lookup."""
    from starlette.websockets import WebSocketDisconnect

    from blackwhite.server.limits import SocketBudget

    with make(postgres_url, sockets=SocketBudget(rate=0.001, burst=5)) as c:
        svc = c.app.state.service  # type: ignore[attr-defined]
        assert svc.cluster is not None  # the router is in front of the app
        lookups: list[str] = []
        real = svc.owner_of

        async def counted(match_id: str) -> Any:
            lookups.append(match_id)
            return await real(match_id)

        svc.owner_of = counted
        codes = []
        for i in range(30):
            try:
                with c.websocket_connect(f"/ws/matches/made-up-{i}?token=bogus") as ws:
                    ws.receive_text()
            except WebSocketDisconnect as exc:
                codes.append(exc.code)
        assert len(lookups) <= 5, len(lookups)
        assert codes.count(4429) >= 25, codes
