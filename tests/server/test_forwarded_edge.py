"""Forwarded headers fail closed (#37 item 3): an untrusted client's ``X-Forwarded-*`` (and
the cluster's own ``x-blackwhite-*`` headers) are removed at the edge, so nothing behind
it, another process's relay included, believes them; a relayed request names its client
only with the cluster's shared secret."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import Request

from blackwhite.server.proxy import RELAY_CLIENT, RELAY_SCHEME, RELAY_SECRET, Forwarded, relay_headers, trusted_networks
from blackwhite.server.store import make_engine, migrate, shared_secret


def _seen(middleware_args: dict[str, Any], client: str, headers: list[tuple[bytes, bytes]],
          kind: str = "http") -> dict[str, Any]:
    """The scope the app behind :class:`Forwarded` is given."""
    got: dict[str, Any] = {}

    async def app(scope: Any, _receive: Any, _send: Any) -> None:
        got.update(scope)

    scope = {"type": kind, "client": (client, 5000), "scheme": "http" if kind == "http" else "ws", "headers": headers,
             "path": "/", "query_string": b""}
    asyncio.run(Forwarded(app, **middleware_args)(scope, None, None))  # type: ignore[arg-type]
    return got


FORGED = [(b"x-forwarded-for", b"6.6.6.6"), (b"x-forwarded-proto", b"https"), (b"x-forwarded-host", b"evil.example"),
          (b"forwarded", b"for=6.6.6.6"), (b"x-blackwhite-hop", b"abc"), (RELAY_CLIENT, b"7.7.7.7"),
          (RELAY_SCHEME, b"https"), (b"host", b"bw.example")]


def test_an_untrusted_clients_forwarded_headers_are_removed_at_the_edge() -> None:
    for kind in ("http", "websocket"):
        seen = _seen({"trusted": trusted_networks("127.0.0.1"), "secret": "s3cret"}, "203.0.113.9", FORGED, kind)
        assert seen["client"][0] == "203.0.113.9" and seen["scheme"] in ("http", "ws")
        names = {k for k, _ in seen["headers"]}
        assert names == {b"host"}, names  # nothing forwarded, nothing of ours, passes on


def test_a_trusted_proxy_is_believed_and_its_headers_consumed() -> None:
    seen = _seen({"trusted": trusted_networks("127.0.0.1")}, "127.0.0.1",
                 [(b"x-forwarded-for", b"198.51.100.4"), (b"x-forwarded-proto", b"https"), (b"host", b"bw.example")])
    assert seen["client"][0] == "198.51.100.4" and seen["scheme"] == "https"
    assert {k for k, _ in seen["headers"]} == {b"host"}  # consumed: a relay cannot pass them on


def test_a_relay_names_its_client_only_with_the_shared_secret() -> None:
    resolved = {"type": "http", "client": ("198.51.100.4", 1), "scheme": "https"}
    extra = relay_headers(resolved, "s3cret")
    hop = [(b"x-blackwhite-hop", b"p1")]
    # from any address (the relaying process need not be a trusted proxy), with the secret: believed
    seen = _seen({"trusted": [], "secret": "s3cret"}, "10.0.0.7", extra + hop + [(b"x-forwarded-for", b"6.6.6.6")])
    assert seen["client"][0] == "198.51.100.4" and seen["scheme"] == "https"
    names = {k for k, _ in seen["headers"]}
    assert b"x-blackwhite-hop" in names and RELAY_SECRET not in names and b"x-forwarded-for" not in names
    # a wrong secret, or none, or a server with no cluster: a plain client, the headers removed
    for args, given in (({"trusted": [], "secret": "s3cret"}, relay_headers(resolved, "guess")),
                        ({"trusted": [], "secret": "s3cret"}, [h for h in extra if h[0] != RELAY_SECRET]),
                        ({"trusted": [], "secret": None}, extra)):
        seen = _seen(args, "10.0.0.7", given + hop)
        assert seen["client"][0] == "10.0.0.7" and seen["scheme"] == "http"
        assert not any(k.startswith(b"x-blackwhite-") for k, _ in seen["headers"])


def test_the_relay_secret_is_made_once_and_shared(tmp_path: Any) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'secret.db'}")
    migrate(engine)
    first = shared_secret(engine, "relay")
    assert len(first) >= 40 and shared_secret(engine, "relay") == first
    engine.dispose()


def test_a_forged_host_is_refused_and_never_reaches_a_link(tmp_path: Any) -> None:
    """#37 item 6: with no --public-url the links were built from the request's Host."""
    import httpx

    from .client import ProcessServer

    server = ProcessServer(f"sqlite:///{tmp_path / 'hosts.db'}", log=tmp_path / "serve.log",
                           args=("--allowed-hosts", "bw.example.org"))
    server.start()
    try:
        token = server.printed_token()
        for forged in ("evil.example:666", "evil.example", "127.0.0.1.evil.example"):
            r = httpx.post(server.base_url + "/api/matches", json={"game": "swapping"}, timeout=30,
                           headers={"Host": forged, "Authorization": f"Bearer {token}"})
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_host", r.text
            r = httpx.post(server.base_url + "/api/host/links", json={}, timeout=30,
                           headers={"Host": forged, "Authorization": f"Bearer {token}"})
            assert r.status_code == 400
            assert httpx.get(server.base_url + "/", headers={"Host": forged}, timeout=30).status_code == 400
        # a trusted-looking X-Forwarded-Host from a client is no way round it either
        r = httpx.post(server.base_url + "/api/matches", json={"game": "swapping"}, timeout=30,
                       headers={"X-Forwarded-Host": "evil.example", "Authorization": f"Bearer {token}"})
        assert r.status_code in (201, 400)
        if r.status_code == 201:
            assert "evil.example" not in r.text
        for good in ("bw.example.org", "127.0.0.1", f"127.0.0.1:{server.port}", "localhost:1"):
            r = httpx.post(server.base_url + "/api/matches", json={"game": "swapping"}, timeout=30,
                           headers={"Host": good, "Authorization": f"Bearer {token}"})
            assert r.status_code == 201, (good, r.text)
            assert all(link.startswith(f"http://{good}/") for link in r.json()["pages"]["seats"])
    finally:
        server.stop()


def test_allowed_hosts_parse_and_refuse_nonsense() -> None:
    import pytest

    from blackwhite.app import answered_hosts
    from blackwhite.server.proxy import allowed_hosts

    assert allowed_hosts("*") is None and allowed_hosts("A.example, [::1]:8000") == {"a.example", "::1"}
    with pytest.raises(ValueError):
        allowed_hosts("exa mple")
    made = answered_hosts("", "0.0.0.0", "https://bw.example.org", "http://10.0.0.5:8001")
    assert set(made.split(",")) == {"bw.example.org", "10.0.0.5", "localhost", "127.0.0.1", "::1"}


def _serve(app: Any, port: int) -> Any:
    """``app`` under uvicorn in a thread, as ``blackwhite serve`` runs it; the server (stop: should_exit)."""
    import threading
    import time

    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", proxy_headers=False))
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    return server


def test_a_client_cannot_choose_its_address_at_the_owner_through_another_process(postgres_url: str) -> None:
    """#37 item 3 end to end: the relay passed the client's own X-Forwarded-* on, and the
    owner believed them (the relay connects from a trusted loopback address)."""
    import httpx

    from blackwhite.app import create_app

    from .client import free_port

    ports = [free_port(), free_port()]
    # the owner trusts loopback proxies (the default); the other process trusts no proxy,
    # so a client reaching it directly is a plain client
    owner = create_app(postgres_url, bot_workers=0, rate_limit=False, internal_url=f"http://127.0.0.1:{ports[0]}")
    other = create_app(postgres_url, bot_workers=0, rate_limit=False, internal_url=f"http://127.0.0.1:{ports[1]}",
                       forwarded_allow_ips="")

    @owner.get("/api/matches/{match_id}/seen-as")  # the test's own route: what the owner believes of the client
    async def seen_as(match_id: str, request: Request) -> dict[str, Any]:
        return {"client": request.client.host if request.client else None, "scheme": request.url.scheme,
                "headers": sorted(k for k in request.headers if k.startswith(("x-forwarded", "forwarded")))}

    owner.router.routes.insert(0, owner.router.routes.pop())
    servers = [_serve(owner, ports[0]), _serve(other, ports[1])]
    try:
        made = httpx.post(f"http://127.0.0.1:{ports[0]}/api/matches", json={"game": "swapping"}, timeout=30)
        assert made.status_code == 201, made.text
        mid = made.json()["id"]
        forged = {"X-Forwarded-For": "6.6.6.6", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example",
                  "Forwarded": "for=6.6.6.6", "X-Blackwhite-Client": "7.7.7.7", "X-Blackwhite-Scheme": "https",
                  "X-Blackwhite-Relay-Secret": "guess"}
        seen = httpx.get(f"http://127.0.0.1:{ports[1]}/api/matches/{mid}/seen-as", headers=forged, timeout=30)
        assert seen.status_code == 200, seen.text
        assert seen.json() == {"client": "127.0.0.1", "scheme": "http", "headers": []}
        # the relay itself works: the owner believes the client the other process resolved
        assert other.state.service.metrics.relays.labels("http", "answered")._value.get() >= 1
    finally:
        for server in servers:
            server.should_exit = True


def test_a_configured_relay_secret_is_used_instead_of_the_stored_one(postgres_url: str, tmp_path: Any) -> None:
    from blackwhite.app import create_app

    from .client import ProcessServer

    given = "given-by-the-operator-0123"
    app = create_app(postgres_url, bot_workers=0, clock_interval=None, relay_secret=given)
    assert app.state.service.cluster.secret == given
    other = create_app(postgres_url, bot_workers=0, clock_interval=None)  # not configured: the stored one
    assert other.state.service.cluster.secret == shared_secret(other.state.engine, "relay") != given
    for made in (app, other):
        made.state.service.store.close()
        made.state.engine.dispose()
    # a guessable one is refused before anything starts
    server = ProcessServer(postgres_url, log=tmp_path / "serve.log", env={"BLACKWHITE_RELAY_SECRET": "short"})
    server.launch()
    assert server.proc is not None and server.proc.wait(60) == 2
    assert "--relay-secret must be at least 16 characters" in server.log_text()
