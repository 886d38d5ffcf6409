"""Bounds that hold across tokens, addresses and restarts (issue 37 items 2, 5, 8): running
matches per host, per client address (IPv6 by /64) and overall, counted in the database;
idle never-started matches expire; the clock looks only at matches that are due; WebSocket
handshakes and open sockets are budgeted before any token is looked up."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from blackwhite.app import create_app
from blackwhite.server.limits import Quotas, SocketBudget, client_key
from blackwhite.server.service import LiveMatch, MatchService

SETTINGS: dict[str, Any] = {"bot_workers": 0, "clock_interval": None, "rate_limit": False}


def make(url: str, address: str = "203.0.113.5", **options: Any) -> TestClient:
    return TestClient(create_app(url, **{**SETTINGS, **options}), client=(address, 50000))


def service(c: TestClient) -> MatchService:
    svc: MatchService = c.app.state.service  # type: ignore[attr-defined]
    return svc


def post(c: TestClient, token: str | None = None, **extra: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return c.post("/api/matches", json={"game": "swapping", **extra}, headers=headers)


def refused(r: Any) -> bool:
    return bool(r.status_code == 429 and r.json()["error"]["code"] == "too_many_matches")


def test_client_key_reads_ipv6_by_its_64_and_ipv4_by_address() -> None:
    assert client_key("2001:db8::1") == client_key("2001:0db8:0000:0000:ffff::7") == "2001:db8::/64"
    assert client_key("2001:db8:0:1::1") != client_key("2001:db8::1")
    assert client_key("::ffff:192.0.2.1") == client_key("192.0.2.1") == "192.0.2.1"
    assert client_key("192.0.2.1") != client_key("192.0.2.2")
    assert client_key(None) == "?"


def test_the_first_matchs_own_host_token_does_not_bypass_the_anonymous_quota(db_url: str) -> None:
    with make(db_url, quotas=Quotas(anonymous=3)) as c:
        first = post(c).json()
        for _ in range(2):
            assert post(c, first["host_token"]).status_code == 201
        assert refused(post(c, first["host_token"]))
        assert refused(post(c))
    # from another address, the same anonymous host is still at its limit
    with make(db_url, address="198.51.100.9", quotas=Quotas(anonymous=3)) as c:
        assert refused(post(c, first["host_token"]))
        assert post(c).status_code == 201  # a new anonymous host of that address


def test_many_anonymous_hosts_of_one_address_share_its_quota(db_url: str) -> None:
    with make(db_url, quotas=Quotas(anonymous=4)) as c:
        tokens = [post(c).json()["host_token"] for _ in range(2)]
        assert post(c, tokens[0]).status_code == 201
        assert post(c, tokens[1]).status_code == 201
        assert refused(post(c, tokens[0])) and refused(post(c, tokens[1])) and refused(post(c))


def test_ipv6_addresses_are_counted_by_their_64(db_url: str) -> None:
    with make(db_url, address="2001:db8::1", quotas=Quotas(anonymous=2)) as c:
        assert post(c).status_code == 201
    with make(db_url, address="2001:0db8:0:0:ffff::7", quotas=Quotas(anonymous=2)) as c:
        assert post(c).status_code == 201
        assert refused(post(c))
    with make(db_url, address="2001:db8:0:1::1", quotas=Quotas(anonymous=2)) as c:
        assert post(c).status_code == 201  # another /64


def test_the_quota_holds_across_a_restart(db_url: str) -> None:
    with make(db_url, quotas=Quotas(anonymous=2)) as c:
        made = [post(c).json() for _ in range(2)]
    with make(db_url, quotas=Quotas(anonymous=2)) as c:
        assert refused(post(c))
        c.post(f"/api/matches/{made[0]['id']}/cancel", params={"token": made[0]["host_token"]}).raise_for_status()
        assert post(c).status_code == 201  # one ended: room for one more


def test_a_linked_host_has_its_own_larger_bound_and_the_server_an_overall_one(db_url: str) -> None:
    with make(db_url, quotas=Quotas(anonymous=1, host=3, total=5)) as c:
        owner = service(c).owner_login("test")
        for _ in range(3):
            assert post(c, owner).status_code == 201
        r = post(c, owner)
        assert refused(r) and "this host has 3" in r.json()["error"]["message"]
        assert post(c).status_code == 201
    with make(db_url, address="192.0.2.77", quotas=Quotas(anonymous=1, host=3, total=5)) as c:
        assert post(c).status_code == 201  # the fifth
    with make(db_url, address="192.0.2.78", quotas=Quotas(anonymous=1, host=3, total=5)) as c:
        r = post(c)
        assert refused(r) and "the server has 5" in r.json()["error"]["message"]


def test_bot_only_matches_per_host_are_bounded(db_url: str) -> None:
    bots = {"seats": [{"bot": "random"}, {"bot": "random"}], "paused": True}
    with make(db_url, quotas=Quotas(bot_matches=1)) as c:
        owner = service(c).owner_login("test")
        assert post(c, owner, **bots).status_code == 201
        r = post(c, owner, **bots)
        assert refused(r) and "bots only" in r.json()["error"]["message"]
        assert post(c, owner).status_code == 201  # a match with people is not a bot-only one


def test_a_match_nobody_joins_is_cancelled_after_the_idle_wait(db_url: str) -> None:
    clock = [1_000_000.0]
    with make(db_url, now=lambda: clock[0], quotas=Quotas(anonymous=1, idle=100.0)) as c:
        idle = post(c).json()
        svc = service(c)
        clock[0] += 99.0
        c.portal.call(svc.tick)  # type: ignore[union-attr]
        assert svc.matches[idle["id"]].status == "running"
        clock[0] += 2.0
        c.portal.call(svc.tick)  # type: ignore[union-attr]
        assert svc.matches[idle["id"]].status == "cancelled"
        assert c.get(f"/api/matches/{idle['id']}", params={"token": idle["host_token"]}).json()["status"] == "cancelled"
        assert post(c).status_code == 201  # the quota has room again


def test_a_started_match_is_not_cancelled_as_idle(db_url: str) -> None:
    clock = [1_000_000.0]
    with make(db_url, now=lambda: clock[0], quotas=Quotas(idle=100.0)) as c:
        made = post(c, start="now", paused=True).json()
        clock[0] += 500.0
        c.portal.call(service(c).tick)  # type: ignore[union-attr]
        assert service(c).matches[made["id"]].status == "running"


def test_the_clock_looks_only_at_matches_that_are_due(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1_000_000.0]
    with make(db_url, now=lambda: clock[0], quotas=Quotas(anonymous=0)) as c:
        made = [post(c, start="now").json() for _ in range(20)]
        looked: list[str] = []
        original = LiveMatch.deadline

        def counting(self: LiveMatch) -> float | None:
            looked.append(self.id)
            return original(self)

        monkeypatch.setattr(LiveMatch, "deadline", counting)
        clock[0] += 1.0
        for _ in range(10):
            c.portal.call(service(c).tick)  # type: ignore[union-attr]
        assert looked == []  # nobody's time is near: no match was looked at
        clock[0] += 10_000.0  # every seat has run out: every match is looked at and times out
        c.portal.call(service(c).tick)  # type: ignore[union-attr]
        assert all(service(c).matches[m["id"]].status != "running" for m in made)


def test_bogus_token_handshakes_are_budgeted_before_any_lookup(db_url: str) -> None:
    with make(db_url, sockets=SocketBudget(rate=0.001, burst=3)) as c:
        made = post(c).json()
        svc = service(c)
        lookups: list[str] = []

        def counting(original: Any) -> Any:
            def lookup(digest: str, *args: Any) -> Any:
                lookups.append(digest)
                return original(digest, *args)
            return lookup

        for name in ("host_of", "host_rights"):  # however a token's host is looked up
            if hasattr(svc.store, name):
                setattr(svc.store, name, counting(getattr(svc.store, name)))
        codes = []
        for i in range(10):
            with c.websocket_connect(f"/ws/matches/{made['id']}?token=bogus{i}") as ws:
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_text()
                codes.append(closed.value.code)
        assert codes == [4403] * 3 + [4429] * 7
        assert len(lookups) == 3


def test_open_sockets_per_address_and_spectators_per_match_are_bounded(db_url: str) -> None:
    with make(db_url, sockets=SocketBudget(per_address=3, spectators=2)) as c:
        made = post(c).json()
        watch = f"/ws/matches/{made['id']}?token={made['tokens']['spectator']}"
        with c.websocket_connect(watch) as a, c.websocket_connect(watch) as b:
            a.receive_json(), b.receive_json()
            with c.websocket_connect(watch) as third:
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_text()
                assert closed.value.code == 4429
            host = f"/ws/matches/{made['id']}?token={made['host_token']}"
            with c.websocket_connect(host) as h:
                h.receive_json()
                with c.websocket_connect(host) as fourth:
                    with pytest.raises(WebSocketDisconnect) as closed:
                        fourth.receive_text()
                    assert closed.value.code == 4429
        with c.websocket_connect(watch) as again:  # closed sockets no longer count
            assert again.receive_json()["type"] == "view"


def test_a_refused_creator_is_refused_again_without_a_transaction_until_a_match_ends(db_url: str) -> None:
    with make(db_url, quotas=Quotas(anonymous=1)) as c:
        made = post(c).json()
        svc = service(c)
        inserts: list[str] = []
        original = svc.store.create_match

        def counting(match: dict[str, Any], *args: Any) -> None:
            inserts.append(match["id"])
            original(match, *args)

        svc.store.create_match = counting  # type: ignore[method-assign]
        assert all(refused(post(c)) for _ in range(5))
        assert len(inserts) == 1  # the first refusal was counted in the database; the others not
        c.post(f"/api/matches/{made['id']}/cancel", params={"token": made["host_token"]}).raise_for_status()
        assert post(c).status_code == 201


def test_the_request_budget_counts_an_ipv6_client_by_its_64(db_url: str) -> None:
    with make(db_url, address="2001:db8::1", rate_limit=True, rate=0.001, burst=2) as a:
        b = TestClient(a.app, client=("2001:db8::ffff:2", 1))  # the same /64 (the app's lifespan is a's)
        other = TestClient(a.app, client=("2001:db8:0:1::1", 1))  # another /64
        assert a.get("/api/games").status_code == 200 and b.get("/api/games").status_code == 200
        assert b.get("/api/games").status_code == 429 and a.get("/api/games").status_code == 429
        assert other.get("/api/games").status_code == 200
