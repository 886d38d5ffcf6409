"""What an operator sees (#37 item 12): readiness beside liveness, Prometheus metrics,
structured log lines naming their request and match, and ``blackwhite cluster status``."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from blackwhite.app import create_app
from blackwhite.server.observe import configure_logging

from .client import ROOT, ProcessServer


def _metric(text: str, name: str) -> float:
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in the metrics:\n{text[:2000]}")


def test_ready_says_which_check_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'r.db'}", bot_workers=0, clock_interval=None)) as c:
        assert c.get("/health").json() == {"ok": True}
        r = c.get("/ready")
        assert r.status_code == 200 and r.json() == {"ready": True, "checks": {
            "database": True, "migrations": True, "accepting": True}}
        store = c.app.state.service.store  # type: ignore[attr-defined]
        monkeypatch.setattr(store, "schema_state", lambda: ("0001", "0011"))
        r = c.get("/ready")
        assert r.status_code == 503 and r.json()["checks"]["migrations"] is False

        def down() -> Any:
            raise OSError("the database is gone")

        monkeypatch.setattr(store, "schema_state", down)
        r = c.get("/ready")
        assert r.status_code == 503 and r.json()["checks"]["database"] is False
        assert c.get("/health").status_code == 200  # alive all the same


def test_metrics_count_actions_pushes_and_matches(tmp_path: Path) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'm.db'}", bot_workers=0, clock_interval=None,
                               rate_limit=False), client=("127.0.0.1", 50000)) as c:
        made = c.post("/api/matches", json={"game": "swapping", "start": "now"}).json()
        mid, seat = made["id"], made["tokens"]["seats"][0]
        with c.websocket_connect(f"/ws/matches/{mid}?token={made['tokens']['spectator']}") as ws:
            ws.receive_json()
            view = c.get(f"/api/matches/{mid}/view", params={"token": seat, "render": 1}).json()
            legal = view["legal"][0]
            text = legal["text"] if isinstance(legal, dict) else legal
            r = c.post(f"/api/matches/{mid}/actions", params={"token": seat}, json={"action": text, "version": view["version"]})
            assert r.status_code == 200, r.text
            ws.receive_json()
            page = c.get("/metrics")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/plain")
        metrics = page.text
        assert _metric(metrics, "blackwhite_actions_total") >= 1
        assert _metric(metrics, "blackwhite_matches_running") == 1
        assert _metric(metrics, "blackwhite_push_seconds_count") >= 2  # the opening view and the push after the action
        assert _metric(metrics, "blackwhite_store_errors_total") == 0


def test_metrics_on_the_main_port_answer_this_machine_only(tmp_path: Path) -> None:
    """Behind nginx the main port is the public one: /metrics there was anyone's to read."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'p.db'}", bot_workers=0, clock_interval=None),
                    client=("203.0.113.9", 1)) as c:
        assert c.get("/metrics").status_code == 404
    with TestClient(create_app(f"sqlite:///{tmp_path / 'q.db'}", bot_workers=0, clock_interval=None),
                    client=("127.0.0.1", 1)) as c:
        assert c.get("/metrics").status_code == 200
        # through the proxy on this machine the client is the player, not the proxy
        assert c.get("/metrics", headers={"X-Forwarded-For": "198.51.100.4"}).status_code == 404
        assert c.get("/metrics", headers={"X-Forwarded-For": "::1"}).status_code == 200


def test_log_lines_name_their_request_and_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    handler = configure_logging(json_lines=True)
    monkeypatch.setattr(handler, "stream", stream)
    try:
        with TestClient(create_app(f"sqlite:///{tmp_path / 'l.db'}", bot_workers=0, clock_interval=None),
                        raise_server_exceptions=False) as c:
            made = c.post("/api/matches", json={"game": "swapping"}).json()
            mid = made["id"]
            service = c.app.state.service  # type: ignore[attr-defined]

            def broken(*_a: Any, **_k: Any) -> Any:
                raise RuntimeError("a bug")

            monkeypatch.setattr(service, "summary", broken)
            r = c.get(f"/api/matches/{mid}", headers={"X-Request-ID": "req-42",
                                                      "Authorization": f"Bearer {made['host_token']}"})
            assert r.status_code == 500 and r.headers["x-request-id"] == "req-42"
            assert r.json()["error"]["request_id"] == "req-42"
        lines = [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]
        (failure,) = [line for line in lines if line["level"] == "ERROR"]
        assert failure["request_id"] == "req-42" and failure["match_id"] == mid
        assert failure["time"].endswith("Z") and "a bug" in failure["traceback"]
    finally:
        for name in ("blackwhite", "uvicorn.error"):
            logging.getLogger(name).removeHandler(handler)
            logging.getLogger(name).propagate = True


def test_serve_logs_text_lines_with_time_and_level(tmp_path: Path) -> None:
    server = ProcessServer(f"sqlite:///{tmp_path / 's.db'}", log=tmp_path / "serve.log")
    server.start()
    try:
        assert httpx.get(server.base_url + "/ready", timeout=30).status_code == 200
    finally:
        server.stop()
    line = next(ln for ln in server.log_text().splitlines() if "serving on" in ln)
    assert line[:4].isdigit() and " INFO blackwhite.server [request -, match -] serving on " in line, line


def test_cluster_status_shows_each_process_and_what_it_owns(tmp_path: Path, postgres_url: str) -> None:
    servers = []
    for i in range(2):
        server = ProcessServer(postgres_url, log=tmp_path / f"s{i}.log")
        server.args = ("--internal-url", f"http://127.0.0.1:{server.port}", "--rate", "0")
        servers.append(server)
        server.start()
    try:
        token = servers[0].printed_token()
        made = httpx.post(servers[0].base_url + "/api/matches", json={"game": "swapping", "start": "now"},
                          headers={"Authorization": f"Bearer {token}"}, timeout=30).json()
        done = subprocess.run([sys.executable, "-m", "blackwhite.cli", "cluster", "status", "--json", "--db", postgres_url],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        state = json.loads(done.stdout)
        assert len(state["processes"]) == 2 and all(p["alive"] for p in state["processes"])
        owners = [p for p in state["processes"] if made["id"] in p["matches"]]
        assert len(owners) == 1 and state["unowned"] == [] and state["running"] == 1
        text = subprocess.run([sys.executable, "-m", "blackwhite.cli", "cluster", "status", "--db", postgres_url],
                              cwd=ROOT, capture_output=True, text=True, timeout=120).stdout
        assert "owns 1 running: " + made["id"] in text and "every one owned by a live process" in text
    finally:
        for server in servers:
            server.stop()


def _answers(host: str, port: int) -> bool:
    try:
        return httpx.get(f"http://{host}:{port}/metrics", timeout=5).status_code == 200
    except httpx.TransportError:
        return False


def test_the_metrics_port_answers_this_machine_only_unless_told(tmp_path: Path) -> None:
    """A server listening on every interface once opened its metrics port there too."""
    import socket

    from .client import free_port

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:  # the address others reach this machine at
        try:
            probe.connect(("192.0.2.1", 9))
            outside = probe.getsockname()[0]
        except OSError:
            outside = "127.0.0.1"
    if outside.startswith("127."):
        pytest.skip("this machine has no address but its loopback")
    port = free_port()
    server = ProcessServer(f"sqlite:///{tmp_path / 'm.db'}", log=tmp_path / "serve.log",
                           args=("--host", "0.0.0.0", "--metrics-port", str(port), "--bot-workers", "0"))
    server.start()
    try:
        assert _answers("127.0.0.1", port)
        assert not _answers(outside, port)
        assert httpx.get(f"{server.base_url}/metrics", timeout=5).status_code == 404  # not on the main port
    finally:
        server.stop()
