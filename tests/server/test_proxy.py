"""Behind a reverse proxy: ``public_url`` builds the links, ``X-Forwarded-*`` is believed
from trusted proxies only, and the request budget keys on the real client's address.

A real uvicorn on 127.0.0.1 (:class:`ThreadServer`), so requests come from loopback,
where a proxy on the same machine would connect from.  The nginx test
(test_nginx.py) checks the same through a real nginx.
"""

from __future__ import annotations

import httpx
import pytest
from typer.testing import CliRunner

from blackwhite.server.proxy import Forwarded, public_origin, trusted_networks
from tests.server.client import ThreadServer

SEATS = {"game": "swapping", "seats": [{"name": "Ann"}, {"name": "Bob"}]}


def _statuses(base: str, forwarded_for: str | None, n: int) -> list[int]:
    headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}
    return [httpx.get(base + "/api/games", headers=headers, timeout=10).status_code for _ in range(n)]


def test_links_carry_the_public_url(sqlite_url: str) -> None:
    with ThreadServer(sqlite_url, bot_workers=0, public_url="https://BW.example.org/") as server:
        made = httpx.post(server.base_url + "/api/matches", json=SEATS, timeout=10).json()
    urls = [made["links"]["host"], made["links"]["spectator"], *made["links"]["seats"],
            made["pages"]["host"], made["pages"]["spectator"], *made["pages"]["seats"]]
    assert all(u.startswith("https://bw.example.org/") for u in urls), urls
    assert made["pages"]["seats"][0].startswith(f"https://bw.example.org/play/{made['id']}?token=")


def test_forwarded_proto_and_host_from_a_trusted_proxy_build_the_links(sqlite_url: str) -> None:
    proxy = {"X-Forwarded-For": "198.51.100.7", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "games.example.net"}
    with ThreadServer(sqlite_url, bot_workers=0) as server:
        trusted = httpx.post(server.base_url + "/api/matches", json=SEATS, headers=proxy, timeout=10).json()
    assert trusted["links"]["spectator"].startswith("https://games.example.net/api/matches/")
    with ThreadServer(sqlite_url, bot_workers=0, forwarded_allow_ips="") as server:
        ignored = httpx.post(server.base_url + "/api/matches", json=SEATS, headers=proxy, timeout=10).json()
        assert ignored["links"]["spectator"].startswith(server.base_url + "/api/matches/")


def test_the_rate_limit_keys_on_the_forwarded_client(sqlite_url: str) -> None:
    # two requests per address, no refill to speak of
    with ThreadServer(sqlite_url, bot_workers=0, rate=0.001, burst=2) as server:
        assert _statuses(server.base_url, "203.0.113.5", 3) == [200, 200, 429]
        assert _statuses(server.base_url, "203.0.113.6", 2) == [200, 200]  # another client, its own budget
        # a client cannot make up its own address: entries left of the proxy's are its own words
        assert _statuses(server.base_url, "10.9.9.9, 203.0.113.5", 1) == [429]
        assert _statuses(server.base_url, "10.9.9.8, 203.0.113.6", 1) == [429]


def test_forwarded_headers_are_ignored_from_untrusted_addresses(sqlite_url: str) -> None:
    with ThreadServer(sqlite_url, bot_workers=0, rate=0.001, burst=2, forwarded_allow_ips="192.0.2.0/24") as server:
        # 127.0.0.1 is not a trusted proxy here: every request is loopback's, whatever it says
        assert _statuses(server.base_url, "203.0.113.5", 2) == [200, 200]
        assert _statuses(server.base_url, "203.0.113.6", 1) == [429]


def test_chained_proxies_are_skipped_right_to_left() -> None:
    middleware = Forwarded(app=None, trusted=trusted_networks("127.0.0.1, 10.0.0.0/8"))  # type: ignore[arg-type]
    scope = {"type": "http", "client": ("127.0.0.1", 5000), "headers": [
        (b"x-forwarded-for", b"6.6.6.6, 203.0.113.9"), (b"x-forwarded-for", b"10.1.2.3"),
        (b"x-forwarded-proto", b"https"), (b"host", b"127.0.0.1:8000"), (b"x-forwarded-host", b"bad host/x")]}
    seen = middleware.rewrite(scope, ("127.0.0.1", 5000))
    assert seen["client"] == ("203.0.113.9", 0)
    assert seen["scheme"] == "https"
    assert (b"host", b"127.0.0.1:8000") in seen["headers"]  # a host that is not host[:port] is not taken
    socket = middleware.rewrite({**scope, "type": "websocket"}, ("127.0.0.1", 5000))
    assert socket["scheme"] == "wss"
    assert trusted_networks("*") is None and trusted_networks("") == []


@pytest.mark.parametrize("url", ["bw.example.org", "ftp://bw.example.org", "https://bw.example.org/games",
                                 "https://bw.example.org/?x=1", "https://u:p@bw.example.org", "https://bw.example.org:99999"])
def test_a_public_url_is_an_origin(url: str) -> None:
    with pytest.raises(ValueError):
        public_origin(url)


def test_serve_refuses_a_bad_public_url_or_proxy_list() -> None:
    from blackwhite.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["serve", "--public-url", "https://bw.example.org/games"])
    assert result.exit_code == 2 and "sub-path" in result.output, result.output
    result = runner.invoke(app, ["serve", "--forwarded-allow-ips", "nginx"])
    assert result.exit_code == 2 and "'nginx'" in result.output, result.output
