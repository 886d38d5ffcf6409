"""Fixtures for the server's tests: the database URL, over SQLite and a real PostgreSQL.

``db_url`` is parametrized over ``sqlite`` (a file in the test's tmp_path) and
``postgresql`` (a fresh database in one throwaway PostgreSQL server per test session,
started from Debian's binaries in a temporary directory and stopped at the end).

PostgreSQL refuses to run as root, and CI runs as root: then the server runs as the
``postgres`` user (or ``nobody``) through ``runuser``, in a directory that user owns.
Without the binaries the PostgreSQL cases are skipped, except under ``CI=true``, where
they fail: CI must not pass by silently testing one database.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, NoReturn
from dataclasses import dataclass
from pathlib import Path

import pytest

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

from .client import free_port

_DB_COUNTER = itertools.count()


def _pg_bin_dir() -> Path | None:
    """The directory of initdb/pg_ctl: on PATH, else Debian's /usr/lib/postgresql/N/bin."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0,
    )
    return Path(candidates[-1]).parent if candidates else None


def _run_as() -> str | None:
    """The user to run postgres as when we are root (it refuses root), else None."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root and neither a 'postgres' nor a 'nobody' user exists to run PostgreSQL")


@dataclass
class PostgresServer:
    """One throwaway PostgreSQL server: trust auth on 127.0.0.1, superuser ``postgres``."""

    bin_dir: Path
    base: Path
    port: int
    user: str | None
    #: commit as a production server does (the session's server skips fsync and waits for
    #: no WAL flush, for speed; an outage test that stops it at once needs commits to hold)
    durable: bool = False

    @property
    def data(self) -> Path:
        return self.base / "data"

    def _cmd(self, *args: str) -> list[str]:
        return ["runuser", "-u", self.user, "--", *args] if self.user else list(args)

    def start(self) -> None:
        if self.user:
            entry = pwd.getpwnam(self.user)
            os.chown(self.base, entry.pw_uid, entry.pw_gid)
        subprocess.run(
            self._cmd(
                str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", "postgres",
                "--auth=trust", "--encoding=UTF8", "--no-sync",
            ),
            check=True, capture_output=True, cwd=self.base,
        )
        self.resume()

    def resume(self) -> None:
        """Start the server on its existing data (after :meth:`stop`: a database coming back)."""
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.base}"
            " -c max_connections=200"
        )
        if not self.durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        subprocess.run(
            self._cmd(
                str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-o", options,
                "-l", str(self.base / "log"), "-w", "-t", "60", "start",
            ),
            check=True, capture_output=True, cwd=self.base,
        )

    def stop(self) -> None:
        subprocess.run(
            self._cmd(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"),
            capture_output=True, cwd=self.base,
        )

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A new empty database; its SQLAlchemy URL."""
        import psycopg

        name = f"bw_{os.getpid()}_{next(_DB_COUNTER)}"
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get("CI") == "true":
        pytest.fail(f"PostgreSQL tests cannot run in CI: {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL tests skipped: {reason}")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for the whole session (skipped without binaries, failed in CI)."""
    bin_dir = _pg_bin_dir()
    if bin_dir is None:
        _unavailable("no initdb/pg_ctl found (apt-get install postgresql)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("the psycopg driver is not installed (pip install -e '.[test]')")
    assert bin_dir is not None
    base = Path(tempfile.mkdtemp(prefix="bw-pg-"))
    os.chmod(base, 0o755)
    server = PostgresServer(bin_dir=bin_dir, base=base, port=free_port(), user=_run_as())
    try:
        server.start()
    except subprocess.CalledProcessError as exc:
        log = base / "log"
        detail = (exc.stderr or b"").decode(errors="replace")
        if log.exists():
            detail += log.read_text(errors="replace")
        shutil.rmtree(base, ignore_errors=True)
        _unavailable(f"the server did not start: {detail.strip()[-2000:]}")
    try:
        yield server
    finally:
        server.stop()
        time.sleep(0.1)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A SQLAlchemy URL of an empty database: a SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'blackwhite.db'}"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.create_database()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite file URL only, for tests that are too slow to run twice."""
    return f"sqlite:///{tmp_path / 'blackwhite.db'}"


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A fresh PostgreSQL database only."""
    return postgres_server.create_database()


@pytest.fixture
def client(sqlite_url: str) -> Iterator[TestClient]:
    """The whole app in-process over a fresh SQLite file: no bot workers, clock loop or rate
    limit, so a test drives every step itself (a module needing more defines its own)."""
    from .matches import served

    with served(sqlite_url) as c:
        yield c
