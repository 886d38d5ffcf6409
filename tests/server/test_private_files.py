"""Secrets at rest (#37 item 7): a SQLite database holds every running match's dealt
tiles, so it and its -wal and -shm files are readable by their owner only, from the
moment they are made, and a file an older version left open to others is closed up."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from fastapi.testclient import TestClient

from blackwhite.app import create_app

from .client import ProcessServer


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_database_and_its_wal_are_the_owners_only(tmp_path: Path) -> None:
    old = os.umask(0o022)  # the usual umask, under which files are made 0644
    try:
        db = tmp_path / "fresh.db"
        with TestClient(create_app(f"sqlite:///{db}", bot_workers=0, clock_interval=None)) as c:
            assert c.post("/api/matches", json={"game": "swapping"}).status_code == 201
            files = [p for p in tmp_path.iterdir() if p.name.startswith("fresh.db")]
            assert {p.name for p in files} >= {"fresh.db", "fresh.db-wal", "fresh.db-shm"}
            for path in files:
                assert _mode(path) == 0o600, (path.name, oct(_mode(path)))
    finally:
        os.umask(old)


def test_serve_makes_its_file_private_and_closes_up_an_old_one(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    db.touch(0o644)
    os.chmod(db, 0o644)
    server = ProcessServer(f"sqlite:///{db}", log=tmp_path / "serve.log")
    server.start()
    try:
        for path in tmp_path.iterdir():
            if path.name.startswith("old.db"):
                assert _mode(path) == 0o600, (path.name, oct(_mode(path)))
    finally:
        server.stop()


def test_a_rollback_journal_follows_the_database(tmp_path: Path) -> None:
    """SQLite makes ``-journal`` (a database not in WAL mode, or before WAL is set) with
    the database file's permissions: made 0600 by ``make_engine``, it is the owner's too."""
    import sqlite3

    from blackwhite.server.store import make_engine

    old = os.umask(0o022)
    try:
        db = tmp_path / "journal.db"
        make_engine(f"sqlite:///{db}").dispose()  # the file made, before any connection
        conn = sqlite3.connect(db, isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=DELETE")
            conn.execute("CREATE TABLE t (x)")
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO t VALUES (1)")
            conn.execute("PRAGMA cache_size=1")  # spill to the file so the journal exists mid-transaction
            conn.executemany("INSERT INTO t VALUES (?)", [(b"x" * 4000,) for _ in range(200)])
            journal = tmp_path / "journal.db-journal"
            assert journal.exists()
            assert _mode(journal) == 0o600 and _mode(db) == 0o600
            conn.execute("COMMIT")
        finally:
            conn.close()
    finally:
        os.umask(old)
