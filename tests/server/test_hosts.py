"""Host identity that lasts: matches belong to a host, whatever link it logs in with.

The first test runs ``blackwhite serve`` as a real process, stops it cleanly once and
kills it (-9) once, and after each start logs in with the link that start printed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from blackwhite.app import create_app

from .client import ROOT, ProcessServer
from .test_store import migrated_to


def printed_token(server: ProcessServer) -> str:
    """The token of the host link the latest start printed."""
    found = server.printed_token()
    assert found, server.log_text()
    return found


def call(server: ProcessServer, method: str, path: str, token: str | None, body: Any = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.request(method, server.base_url + path, headers=headers, json=body, timeout=30)


def ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, r.text
    return r.json()


def refused(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.json()["error"]["code"] == code, r.text


def hosts_cli(db_url: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "blackwhite.cli", "hosts", *args, "--db", db_url],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def controls_work(server: ProcessServer, mid: str, token: str) -> None:
    """Pause, resume and give time to a running match, and open its host page, with ``token``."""
    assert ok(call(server, "POST", f"/api/matches/{mid}/pause", token))["status"] == "paused"
    assert ok(call(server, "POST", f"/api/matches/{mid}/resume", token))["status"] in ("running", "waiting")
    clocks = ok(call(server, "POST", f"/api/matches/{mid}/time", token, {"seat": 0, "seconds": 5}))["clocks"]
    assert clocks["seats"][0]["reserve_left"] > 300
    page = httpx.get(f"{server.base_url}/host/{mid}", params={"token": token}, timeout=30)
    assert page.status_code == 200 and 'id="pause"' in page.text


def test_every_start_logs_in_as_the_same_host_and_revoked_links_are_refused(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'hosts.db'}"
    server = ProcessServer(db_url, log=tmp_path / "serve.log")
    server.start()
    try:
        first = printed_token(server)
        a = ok(call(server, "POST", "/api/matches", first, {"game": "swapping"}), 201)
        b = ok(call(server, "POST", "/api/matches", first,
                    {"game": "domino", "seats": [{"name": "Ann"}, {"name": "Bo"}], "start": "now"}), 201)
        assert a["host_token"] is None  # filed under the printed host, not a new one
        server.stop()

        server.start()  # a clean restart: a new link, the same host
        second = printed_token(server)
        assert second != first
        listed = ok(call(server, "GET", "/api/matches", second))
        assert [m["id"] for m in listed] == [a["id"], b["id"]]
        host = ok(call(server, "GET", "/api/host", second))
        assert listed[0]["host"] == host["id"] and listed[0]["cohosts"] == []
        assert [link["this"] for link in host["links"]] == [False, True]
        for mid in (a["id"], b["id"]):
            controls_work(server, mid, second)
        c = ok(call(server, "POST", "/api/matches", second, {"game": "swapping"}), 201)
        assert [m["id"] for m in ok(call(server, "GET", "/api/matches", first))] == [a["id"], b["id"], c["id"]]
        # another link for a phone; then the first link is revoked: refused at once, as JSON
        phone = ok(call(server, "POST", "/api/host/links", second, {"label": "my phone"}), 201)
        assert phone["link"].endswith("/?token=" + phone["token"]) and phone["label"] == "my phone"
        first_id = host["links"][0]["id"]
        assert ok(call(server, "POST", f"/api/host/links/{first_id}/revoke", second))["revoked"]
        refused(call(server, "GET", "/api/matches", first), 403, "revoked")
        refused(call(server, "POST", f"/api/matches/{a['id']}/pause", first), 403, "revoked")
        refused(call(server, "POST", "/api/matches", first, {"game": "swapping"}), 403, "revoked")
        assert httpx.get(f"{server.base_url}/host/{a['id']}", params={"token": first}, timeout=30).status_code == 403
        refused(call(server, "POST", "/api/host/links/0123456789abcdef/revoke", second), 404, "unknown_link")
        refused(call(server, "GET", "/api/matches", None), 401, "missing_token")
        server.kill()  # a crash this time

        server.start()
        third = printed_token(server)
        assert len({first, second, third, phone["token"]}) == 4
        for token in (third, phone["token"], second):
            assert [m["id"] for m in ok(call(server, "GET", "/api/matches", token))] == [a["id"], b["id"], c["id"]]
        refused(call(server, "GET", "/api/matches", first), 403, "revoked")
        for mid in (a["id"], b["id"], c["id"]):
            controls_work(server, mid, third)
        assert ok(call(server, "POST", f"/api/matches/{b['id']}/cancel", phone["token"]))["status"] == "cancelled"
        # the same host's page opens without ?token= in a browser that holds one of its
        # tokens (the bw_host cookie host.js keeps); a seat's page still wants its own
        page = httpx.get(f"{server.base_url}/host/{c['id']}", cookies={"bw_host": third}, timeout=30)
        assert page.status_code == 200 and 'id="pause"' in page.text
        assert httpx.get(f"{server.base_url}/host/{c['id']}", timeout=30).status_code == 401
        assert c["id"] in httpx.get(server.base_url + "/", cookies={"bw_host": third}, timeout=30).text

        # revoking with the command line reaches the running server at once
        phone_token = phone["token"]
        links = hosts_cli(db_url, "links")
        (line,) = [ln for ln in links.splitlines() if "my phone" in ln]
        hosts_cli(db_url, "revoke", line.split()[0])
        refused(call(server, "GET", "/api/matches", phone_token), 403, "revoked")
        assert "revoked" in [ln for ln in hosts_cli(db_url, "links").splitlines() if "my phone" in ln][0]
        minted = hosts_cli(db_url, "new-link", "--url", server.base_url, "--label", "from the shell").strip()
        token = minted.rsplit("=", 1)[1]
        assert len(ok(call(server, "GET", "/api/matches", token))) == 3
        assert "(this server's host): 3 matches" in hosts_cli(db_url, "list")
    finally:
        server.stop()


def test_co_hosts_control_a_match_only_while_named(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'co.db'}", bot_workers=0, clock_interval=None, rate_limit=False)
    with TestClient(app) as c:
        made = c.post("/api/matches", json={"game": "swapping"}).json()
        owner, mid = made["host_token"], made["id"]
        other = c.post("/api/matches", json={"game": "swapping"}).json()["host_token"]
        other_id = c.get("/api/host", params={"token": other}).json()["id"]

        def pause(token: str) -> Any:
            return c.post(f"/api/matches/{mid}/pause", params={"token": token})

        assert pause(other).json()["error"]["code"] == "wrong_token"
        assert mid not in [m["id"] for m in c.get("/api/matches", params={"token": other}).json()]
        named = c.post(f"/api/matches/{mid}/cohosts", params={"token": owner}, json={"host": other_id})
        assert named.status_code == 200 and named.json()["cohosts"] == [other_id]
        assert pause(other).json()["status"] == "paused"
        assert mid in [m["id"] for m in c.get("/api/matches", params={"token": other}).json()]
        # a co-host controls the match but does not name co-hosts
        r = c.post(f"/api/matches/{mid}/cohosts", params={"token": other}, json={"host": other_id})
        assert r.status_code == 403 and r.json()["error"]["code"] == "wrong_token"
        for body, status, code in [({"host": "nobody"}, 404, "unknown_host"), ({"host": 7}, 400, "bad_request")]:
            r = c.post(f"/api/matches/{mid}/cohosts", params={"token": owner}, json=body)
            assert r.status_code == status and r.json()["error"]["code"] == code
        dropped = c.delete(f"/api/matches/{mid}/cohosts/{other_id}", params={"token": owner})
        assert dropped.status_code == 200 and dropped.json()["cohosts"] == []
        assert c.post(f"/api/matches/{mid}/resume", params={"token": other}).json()["error"]["code"] == "wrong_token"
    with TestClient(create_app(f"sqlite:///{tmp_path / 'co.db'}", bot_workers=0, clock_interval=None)) as c:
        named = c.post(f"/api/matches/{mid}/cohosts", params={"token": owner}, json={"host": other_id})
        assert named.status_code == 200
    with TestClient(create_app(f"sqlite:///{tmp_path / 'co.db'}", bot_workers=0, clock_interval=None)) as c:
        # co-hosts are stored: after a restart the co-host still controls the match
        assert c.post(f"/api/matches/{mid}/resume", params={"token": other}).json()["status"] != "paused"


def test_an_upgraded_database_keeps_each_earlier_token_and_its_matches(sqlite_url: str, tmp_path: Path) -> None:
    """A database of revision 0004 (a host was one token) is upgraded in place by 0005."""
    from blackwhite.server.store import token_hash

    engine = migrated_to(sqlite_url, "0004")
    readings = {"paused": False, "started": True, "phase_seconds": 180.0,
                "seats": [{"awaited": True, "action_left": 180.0, "reserve_left": 300.0}] * 2}
    with engine.begin() as conn:
        for n, token in enumerate(("old-one", "old-two")):
            conn.execute(text("insert into hosts values (:h, 1)"), {"h": token_hash(token)})
            conn.execute(text(
                "insert into matches (id, game, options, seats, host_hash, seat_hashes, spectator_hash, host_sees_all,"
                " status, paused, seed, created, version, clocks, clock_at, start) values (:id, 'swapping', '{}',"
                " '[{\"name\": \"A\"}, {\"name\": \"B\"}]', :h, '[\"a\", \"b\"]', 's', 0, 'running', 0, 7, :n, 0,"
                " :clocks, 1, 'now')"), {"id": f"m{n}", "h": token_hash(token), "n": n, "clocks": json.dumps(readings)})
    engine.dispose()
    with TestClient(create_app(sqlite_url, bot_workers=0, clock_interval=None)) as c:
        for n, token in enumerate(("old-one", "old-two")):
            assert [m["id"] for m in c.get("/api/matches", params={"token": token}).json()] == [f"m{n}"]
            assert c.post(f"/api/matches/m{n}/pause", params={"token": token}).json()["status"] == "paused"
        one = c.get("/api/host", params={"token": "old-one"}).json()["id"]
        two = c.get("/api/host", params={"token": "old-two"}).json()["id"]
        assert one != two
    # merged under one host (the server stopped), either old token lists both matches
    out = hosts_cli(sqlite_url, "merge", two, one)
    assert "1 match" in out
    with TestClient(create_app(sqlite_url, bot_workers=0, clock_interval=None)) as c:
        for token in ("old-one", "old-two"):
            assert [m["id"] for m in c.get("/api/matches", params={"token": token}).json()] == ["m0", "m1"]


@pytest.mark.parametrize("label", [None, "x" * 64])
def test_a_host_mints_links_that_log_in_as_itself(sqlite_url: str, label: str | None) -> None:
    with TestClient(create_app(sqlite_url, bot_workers=0, clock_interval=None)) as c:
        host = c.post("/api/matches", json={"game": "swapping"}).json()["host_token"]
        r = c.post("/api/host/links", params={"token": host}, json={"label": label} if label else None)
        assert r.status_code == 201, r.text
        fresh = r.json()["token"]
        assert c.get("/api/host", params={"token": fresh}).json()["id"] == c.get("/api/host", params={"token": host}).json()["id"]
        too_long = c.post("/api/host/links", params={"token": host}, json={"label": "x" * 65})
        assert too_long.status_code == 400 and too_long.json()["error"]["code"] == "bad_request"


def test_a_co_host_lists_a_match_that_ended_and_left_memory(db_url: str) -> None:
    """An ended match leaves memory; a host's listing reads its row, the co-hosts' too."""
    app = create_app(db_url, bot_workers=0, clock_interval=None, rate_limit=False, keep_ended=0.0)
    with TestClient(app) as c:
        made = c.post("/api/matches", json={"game": "swapping"}).json()
        owner, mid = made["host_token"], made["id"]
        other = c.post("/api/matches", json={"game": "swapping"}).json()["host_token"]
        other_id = c.get("/api/host", params={"token": other}).json()["id"]
        c.post(f"/api/matches/{mid}/cohosts", params={"token": owner}, json={"host": other_id}).raise_for_status()
        c.post(f"/api/matches/{mid}/cancel", params={"token": other}).raise_for_status()
        service = c.app.state.service  # type: ignore[attr-defined]
        assert service.sweep() >= 1 and mid not in service.matches
        for token in (owner, other):
            (listed,) = [m for m in c.get("/api/matches", params={"token": token}).json() if m["id"] == mid]
            assert listed["status"] == "cancelled" and listed["cohosts"] == [other_id]
        third = c.post("/api/matches", json={"game": "swapping"}).json()["host_token"]
        assert mid not in [m["id"] for m in c.get("/api/matches", params={"token": third}).json()]
        # read back on demand, the co-host still controls (and sees) it
        assert c.get(f"/api/matches/{mid}", params={"token": other}).json()["cohosts"] == [other_id]
