"""Processes started at the same moment never race (docs/server.md, "Several processes"):
three ``blackwhite serve`` started together on one PostgreSQL database, empty or at an
older schema, all come up (the migrations run once, under one advisory lock, while the
others wait), and exactly one of them makes the server's own host."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from blackwhite.server.store import make_engine

from .client import ProcessServer
from .test_migrations import alembic, revisions


@pytest.mark.parametrize("schema", ["empty", "older"])
def test_three_processes_started_together_all_come_up(tmp_path: Path, postgres_url: str, schema: str) -> None:
    engine = make_engine(postgres_url)
    if schema == "older":  # before host identities and the cluster's tables
        alembic(engine, "upgrade", "0004")
    servers = [ProcessServer(postgres_url, log=tmp_path / f"{i}.log", args=("--rate", "0", "--bot-workers", "0"))
               for i in range(3)]
    try:
        for server in servers:  # at the same moment: none waits for another to answer
            server.launch()
        for server in servers:
            server.wait_ready(timeout=120)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == revisions()[-1]
            owners = conn.execute(text("SELECT count(*) FROM host_ids WHERE owner")).scalar()
            assert owners == 1, f"{owners} hosts are the server's own"
            # each printed a login link of that one host
            links = conn.execute(text("SELECT count(*) FROM hosts h JOIN host_ids i ON i.id = h.host_id"
                                      " WHERE i.owner")).scalar()
            assert links == 3
            assert conn.execute(text("SELECT count(*) FROM processes")).scalar() == 3
    finally:
        codes = [server.stop(timeout=20) for server in servers]
        engine.dispose()
    assert codes == [0, 0, 0], [s.log_text() for s in servers]
