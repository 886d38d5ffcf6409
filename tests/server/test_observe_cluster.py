"""An operator's view over several processes (#37 item 12): takeovers and a process
rejoining the cluster are logged with the match they are about, readiness does not flap
between heartbeats, and the database password is in no log line."""

from __future__ import annotations

import io
import json
import logging
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from blackwhite.app import create_app
from blackwhite.server.observe import configure_logging

from .client import ProcessServer


def test_a_takeover_and_a_rejoin_are_logged_with_their_match(postgres_url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="blackwhite")
    first = create_app(postgres_url, bot_workers=0, clock_interval=None, rate_limit=False)
    second = create_app(postgres_url, bot_workers=0, clock_interval=None, rate_limit=False)
    with TestClient(first) as a, TestClient(second) as b:
        made = a.post("/api/matches", json={"game": "swapping"}).json()
        mid = made["id"]
        a.app.state.service.cluster.leave()  # type: ignore[attr-defined]  # its locks go, as when it dies
        assert b.get(f"/api/matches/{mid}", params={"token": made["host_token"]}).status_code == 200
        took = [r for r in caplog.records if "took match" in r.getMessage()]
        assert took and getattr(took[-1], "match_id", None) == mid, [r.__dict__ for r in took]
        # the first process finds its lock connection gone: it rejoins, and says so
        service = a.app.state.service  # type: ignore[attr-defined]
        service.owning._relock_needed = True
        a.portal.call(service.renew)  # type: ignore[union-attr]
        rejoined = [r for r in caplog.records if "rejoined the cluster" in r.getMessage()]
        assert rejoined and rejoined[-1].levelname == "WARNING", [r.getMessage() for r in caplog.records]
        assert "0 running matches kept" in rejoined[-1].getMessage()  # the match is the other's now


def test_readiness_holds_between_heartbeats_of_a_short_lease(postgres_url: str) -> None:
    app = create_app(postgres_url, bot_workers=0, clock_interval=None, lease=1.0)
    with TestClient(app) as c:
        cluster = app.state.service.cluster
        cluster.renewed = time.monotonic() - 1.5  # one heartbeat (every second) late: still ready
        assert c.get("/ready").json()["checks"]["accepting"] is True
        cluster.renewed = time.monotonic() - 2.5  # two late: its lease may be gone
        r = c.get("/ready")
        assert r.status_code == 503 and r.json()["checks"]["accepting"] is False


def test_the_database_password_is_in_no_log_line(tmp_path: Path) -> None:
    stream = io.StringIO()
    handler = configure_logging(json_lines=True, hidden=["pa55w0rd", "pa55w0rd%21"])
    handler.setStream(stream)  # type: ignore[attr-defined]
    try:
        log = logging.getLogger("blackwhite.server")
        log.warning("cannot reach postgresql://bw:%s@db/bw", "pa55w0rd")
        try:
            raise ConnectionError("password pa55w0rd%21 refused")
        except ConnectionError:
            log.exception("the store failed")
    finally:
        for name in ("blackwhite", "uvicorn.error"):
            logging.getLogger(name).removeHandler(handler)
    text = stream.getvalue()
    assert "pa55w0rd" not in text and text.count("***") >= 2, text
    assert all(json.loads(line)["level"] for line in text.splitlines())


def test_serve_keeps_the_password_out_of_its_log(postgres_url: str, tmp_path: Path) -> None:
    """A URL with a password (PostgreSQL with trust ignores it): nothing it writes shows it."""
    url = postgres_url.replace("postgres@", "postgres:Zq9secretpw@", 1)
    assert "Zq9secretpw" in url, url
    log = tmp_path / "serve.log"
    server = ProcessServer(url, log=log, args=("--log-level", "debug"))
    server.start()
    try:
        assert httpx.get(server.base_url + "/ready", timeout=10).status_code == 200
    finally:
        server.stop()
    assert "Zq9secretpw" not in log.read_text() and "***" in log.read_text()


def test_cluster_status_reads_without_migrating(tmp_path: Path) -> None:
    """A read-only look: run beside servers of the older version after the package was
    upgraded, it must not move their schema on (it used to migrate the database first)."""
    import sqlite3
    import subprocess
    import sys

    from blackwhite.server.store import make_engine, migrate

    from .client import ROOT

    db = tmp_path / "old.db"
    engine = make_engine(f"sqlite:///{db}")
    migrate(engine)
    engine.dispose()
    with sqlite3.connect(db) as conn:
        newest = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        conn.execute("UPDATE alembic_version SET version_num = '0009'")  # as an older server left it
    done = subprocess.run([sys.executable, "-m", "blackwhite.cli", "cluster", "status", "--json", "--db",
                           f"sqlite:///{db}"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["processes"] == []
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone()[0] == "0009" != newest
    # a SQLite file that is not there (a typo): one line, and no empty database left behind
    done = subprocess.run([sys.executable, "-m", "blackwhite.cli", "cluster", "status", "--db",
                           f"sqlite:///{tmp_path / 'typo.db'}"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "there is no file" in done.stderr and not (tmp_path / "typo.db").exists()
    # a database it cannot reach: one line, without the password
    done = subprocess.run([sys.executable, "-m", "blackwhite.cli", "cluster", "status", "--db",
                           "postgresql+psycopg://bw:Zq9pw@127.0.0.1:1/bw?connect_timeout=2"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Zq9pw" not in done.stderr


def test_readiness_probes_a_hung_database_once_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each /ready used to start another thread on a hung database (each stuck until it
    answered): a load balancer's checks every second would tie up every thread."""
    import threading

    release = threading.Event()
    calls = []

    def hung() -> tuple[str, str]:
        calls.append(1)
        release.wait(30)
        raise OSError("the database never answered")

    app = create_app(f"sqlite:///{tmp_path / 'h.db'}", bot_workers=0, clock_interval=None)
    with TestClient(app) as c:
        monkeypatch.setattr(app.state.service.store, "schema_state", hung)
        try:
            for _ in range(3):
                r = c.get("/ready")
                assert r.status_code == 503 and r.json()["checks"]["database"] is False
            assert len(calls) == 1
        finally:
            release.set()


def test_a_seat_joining_and_rejoining_is_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="blackwhite")
    app = create_app(f"sqlite:///{tmp_path / 'j.db'}", bot_workers=0, clock_interval=None)
    with TestClient(app) as c:
        made = c.post("/api/matches", json={"game": "swapping"}).json()
        mid, seat = made["id"], made["tokens"]["seats"][1]
        for _ in range(2):
            with c.websocket_connect(f"/ws/matches/{mid}?token={seat}") as ws:
                ws.receive_json()
    said = [(r.getMessage(), getattr(r, "match_id", None)) for r in caplog.records if "(socket)" in r.getMessage()]
    assert said == [(f"seat 1 joined match {mid} (socket)", mid), (f"seat 1 rejoined match {mid} (socket)", mid)]
    assert all(seat not in r.getMessage() for r in caplog.records)  # never a token
