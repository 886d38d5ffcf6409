"""Storage: SQLAlchemy tables, Alembic migrations, and the few statements the server runs.

The database is the single source of truth.  A match row holds the game, options,
seats, token hashes (never tokens), status and the clock readings with the moment
they were taken; the append-only ``events`` table holds every engine event in order
(a seat's action as notation with the time it arrived, or a chance event as its
JSON) with every seat's clock reading after it.  Replaying the events through the
engine rebuilds the match, so a stored match *is* a match record.

SQLite (the default) runs in WAL mode with ``synchronous=NORMAL``: a commit is in
the write-ahead log before ``commit()`` returns, so it survives the server process
being killed (only a power cut or OS crash can lose the last commits).  PostgreSQL
works by URL (``postgresql://`` is read as the psycopg 3 driver).

Every method blocks; the service calls them in its store threads, never on the event
loop.  A statement waits at most :data:`STORE_WAIT` seconds for a lock another process
holds (SQLite's busy timeout) and a connection at most that long to open (PostgreSQL),
then fails: the service answers 503 ``store_unavailable`` rather than stall.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Integer,
    Select,
    String,
    Text,
    bindparam,
    cast,
    create_engine,
    delete,
    event,
    false,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from .limits import QuotaExceeded, Quotas
from .notify_store import seat_emails as SEAT_EMAILS

MIGRATIONS = Path(__file__).with_name("migrations")
#: hex digits of a token's hash that name its link (:attr:`HostRow.link_id`)
LINK_ID = 16
#: seconds a statement waits for another process's lock (SQLite) or for a connection to
#: open (PostgreSQL) before it fails, and the request with it (503 ``store_unavailable``)
STORE_WAIT = 2.0
T = TypeVar("T")
R = TypeVar("R")


#: what a stored match is: under way, ended by its rules, or ended by its host
MatchStatus = Literal["running", "finished", "cancelled"]
MATCH_STATUSES: tuple[MatchStatus, ...] = get_args(MatchStatus)


def match_status(text: str) -> MatchStatus:
    """A status read from the database, checked (a row written by hand must not pass)."""
    for status in MATCH_STATUSES:
        if status == text:
            return status
    raise ValueError(f"unknown match status {text!r}; statuses: {', '.join(MATCH_STATUSES)}")


class StoreTimeout(Exception):
    """A write's wait (``STORE_WAIT`` from its request) ran out before it could start."""


class Base(DeclarativeBase):
    pass


class HostIdRow(Base):
    """A host: the identity its matches belong to, whichever of its links it logs in with."""

    __tablename__ = "host_ids"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created: Mapped[float] = mapped_column(Float)
    #: the server's own host: ``blackwhite serve`` prints a login link of it at each start
    owner: Mapped[bool] = mapped_column(Boolean, server_default=false())
    #: made with its first match (no operator made it): the anonymous quota applies
    anonymous: Mapped[bool] = mapped_column(Boolean, server_default=false())


#: what a host link may do (``hosts.scope``, a plain string: no constraint to migrate):
#: ``owner`` everything (links, co-hosts, matches); ``matches`` create and run matches only
#: (the link of a bot or a co-organiser); ``discord`` what a ``matches`` link may, and (a
#: link of the server's own host) read and mark the Discord bridge's notices, which carry
#: the Discord players' fresh login links: the bridge's link
LINK_SCOPES = ("owner", "matches", "discord")


class HostRow(Base):
    """A login link of a host: its token (hashed), which host it logs in as, and whether
    it was revoked.  (The table's name is from when a host *was* one token.)"""

    __tablename__ = "hosts"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    created: Mapped[float] = mapped_column(Float)
    host_id: Mapped[str | None] = mapped_column(String(32), index=True, nullable=True)
    label: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: when the link was revoked (null: it logs in)
    revoked: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: what the link may do: ``owner`` (everything, links and co-hosts included) or
    #: ``matches`` (create and run matches only: a bot's or a co-organiser's link)
    scope: Mapped[str] = mapped_column(String(16), server_default="owner")
    #: when the link stops logging in (null: never)
    expires: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: the expiry holds only until the link is first used (the link each start prints)
    until_used: Mapped[bool] = mapped_column(Boolean, server_default=false())

    @property
    def link_id(self) -> str:
        """How a link is named in lists and to revoke it: the start of its token's hash."""
        return self.token_hash[:LINK_ID]


class MatchRow(Base):
    """A match: what it is, who may see it (hashes), and its clocks as last stored."""

    __tablename__ = "matches"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    options: Mapped[Any] = mapped_column(JSON)
    seats: Mapped[Any] = mapped_column(JSON)  # [{"name": ...} | {"bot": spec}]
    #: the link the match was created through (its owner is ``host_id``)
    host_hash: Mapped[str] = mapped_column(String(64), ForeignKey("hosts.token_hash"), index=True)
    host_id: Mapped[str | None] = mapped_column(String(32), index=True, nullable=True)
    #: host ids who may control the match beside its owner
    cohosts: Mapped[Any] = mapped_column(JSON, nullable=True)
    seat_hashes: Mapped[Any] = mapped_column(JSON)  # [hash | null]
    spectator_hash: Mapped[str] = mapped_column(String(64))
    host_sees_all: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16), index=True)
    paused: Mapped[bool] = mapped_column(Boolean)
    seed: Mapped[int] = mapped_column(BigInteger)
    created: Mapped[float] = mapped_column(Float)
    version: Mapped[int] = mapped_column(Integer)
    clocks: Mapped[Any] = mapped_column(JSON)
    #: when ``clocks`` was read; on start-up every running clock resumes from *now*
    clock_at: Mapped[float] = mapped_column(Float)
    #: the public audience's version once the match has ended (a listing reads it: no replay)
    public_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: when the clocks start: ``when_joined`` (every person's seat opened its link), ``now``, ``at``
    start: Mapped[str] = mapped_column(String(16), server_default="now")
    #: the moment an ``at`` match starts (Unix seconds)
    start_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: per seat, whether it has opened its link (null: nobody yet)
    joined: Mapped[Any] = mapped_column(JSON, nullable=True)
    #: moves on by one at every takeover by another process: every write of a running
    #: match names the epoch its writer took it at (the fence of a woken old owner)
    epoch: Mapped[int] = mapped_column(Integer, server_default="0")
    #: the client address (:func:`~blackwhite.server.limits.client_key`) an anonymous host made it from
    creator: Mapped[str | None] = mapped_column(String(64), index=True, nullable=True)
    #: every seat is a bot (the per-host bound on bot-only matches counts these)
    bot_only: Mapped[bool] = mapped_column(Boolean, server_default=false())
    #: the match's pace (``Pace.to_json``: live, scaled or slow); null: live
    pace: Mapped[Any] = mapped_column(JSON, nullable=True)


class EventRow(Base):
    """One engine event: an action (``seat`` and ``action``) or a chance event (``chance``)."""

    __tablename__ = "events"
    match_id: Mapped[str] = mapped_column(String(32), ForeignKey("matches.id"), primary_key=True)
    index: Mapped[int] = mapped_column("idx", Integer, primary_key=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    action: Mapped[str | None] = mapped_column(String(4096), nullable=True)
    chance: Mapped[Any] = mapped_column(JSON, nullable=True)
    arrived_at: Mapped[float] = mapped_column(Float)
    clocks: Mapped[Any] = mapped_column(JSON)


class HeartbeatRow(Base):
    """One row: the last moment the server was known to be up (written every second or so)."""

    __tablename__ = "heartbeat"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    alive_at: Mapped[float] = mapped_column(Float)


class SettingRow(Base):
    """A value every server process over the database shares (the relay secret)."""

    __tablename__ = "settings"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))


def shared_secret(engine: Engine, name: str) -> str:
    """The secret named ``name`` every process over ``engine``'s database shares: made by
    whichever process asks first (processes starting together agree on one)."""
    table = Base.metadata.tables["settings"]
    fresh = secrets.token_urlsafe(32)
    insert_ = postgresql_insert if engine.dialect.name == "postgresql" else sqlite_insert
    with engine.begin() as conn:
        conn.execute(insert_(table).values(name=name, value=fresh).on_conflict_do_nothing(index_elements=["name"]))
        return str(conn.execute(select(table.c.value).where(table.c.name == name)).scalar_one())


class ProcessRow(Base):
    """A running ``blackwhite serve`` over PostgreSQL (blackwhite/server/ownership.py)."""

    __tablename__ = "processes"
    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    url: Mapped[str | None] = mapped_column(String(300), nullable=True)
    backend_pid: Mapped[int] = mapped_column(Integer)
    started: Mapped[float] = mapped_column(Float)
    beat: Mapped[float] = mapped_column(Float)
    #: when its lease runs out unless renewed (the database's clock): then it may be taken over
    expires: Mapped[float | None] = mapped_column(Float, nullable=True)


class OwnerRow(Base):
    """The process that last took a match (what a takeover reads the last heartbeat of)."""

    __tablename__ = "owners"
    match_id: Mapped[str] = mapped_column(String(32), ForeignKey("matches.id"), primary_key=True)
    process_id: Mapped[str] = mapped_column(String(32))
    since: Mapped[float] = mapped_column(Float)


class HandoverRow(Base):
    """A running match a process asked for, to even out the load (its owner lets it go)."""

    __tablename__ = "handovers"
    match_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    to_process: Mapped[str] = mapped_column(String(32))
    #: when it was asked (the database's clock); a request left unanswered expires
    asked: Mapped[float] = mapped_column(Float)


class AnalysisJobRow(Base):
    """A replay analysis job as the process running it last wrote it (blackwhite/web/analysis_jobs.py)."""

    __tablename__ = "analysis_jobs"
    id: Mapped[str] = mapped_column(String(100), primary_key=True)
    process_id: Mapped[str] = mapped_column(String(32))
    state: Mapped[str] = mapped_column(String(16))
    done: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    seats: Mapped[int] = mapped_column(Integer)
    chart: Mapped[Any] = mapped_column(JSON, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    updated: Mapped[float] = mapped_column(Float)


class StaleWrite(Exception):
    """The match row had moved on from the version or the ownership epoch this process
    had: another process took the match over (and may have written to it); nothing was
    written."""


def token_hash(token: str) -> str:
    """How a token is stored and looked up: its SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def normalise_url(url: str) -> str:
    """``postgresql://`` and ``postgres://`` mean the psycopg 3 driver (the one we ship)."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://"):]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    return url


def private_file(path: str) -> None:
    """Make ``path`` readable and writable by its owner only (0600), creating it empty if
    missing: a SQLite database holds every running match's dealt tiles, and SQLite gives
    its ``-wal`` and ``-shm`` files the database file's permissions.  A file an older
    version left readable by others is closed up here too."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return  # a missing folder or no permission: SQLite says what is wrong when it connects
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_IMODE(mode) & 0o077:
            os.fchmod(fd, stat.S_IMODE(mode) & 0o700)
    except OSError:
        pass  # not ours to change (another user's file): left as it is
    finally:
        os.close(fd)
    for suffix in ("-wal", "-shm", "-journal"):
        try:
            os.chmod(path + suffix, 0o600)
        except OSError:
            pass  # not there yet (SQLite then makes it with the database file's permissions)


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite files get WAL, ``synchronous=NORMAL`` and a busy timeout."""
    url = normalise_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:" and not parsed.database.startswith("file:"):
            private_file(parsed.database)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": STORE_WAIT})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    connect = {"connect_timeout": max(1, round(STORE_WAIT))} if parsed.get_backend_name() == "postgresql" else {}
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10, pool_timeout=STORE_WAIT,
                         connect_args=connect)


def _head_revision() -> str | None:
    """The newest revision of the package's migrations, read from their files without
    loading Alembic; None unless there is exactly one head (then Alembic decides)."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        found = re.search(r"^revision\s*=\s*[\"']([^\"']+)[\"']", source, re.M)
        if found is None:
            return None
        revisions.add(found.group(1))
        down = re.search(r"^down_revision\s*=\s*(.+)$", source, re.M)
        if down is not None:
            parents.update(re.findall(r"[\"']([^\"']+)[\"']", down.group(1)))
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def _current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None (a new database, or not one revision)."""
    try:
        with engine.connect() as conn:
            found = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    except DBAPIError:
        return None
    return str(found[0]) if len(found) == 1 else None


#: the PostgreSQL advisory lock (a transaction's) that start-up's migrations and the
#: making of the server's own host run under: processes starting together take turns
_START_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended('blackwhite start-up', 0))")


def _one_at_a_time(conn: Connection) -> None:
    """Over PostgreSQL, wait for (and take, until this transaction ends) the start-up lock."""
    if conn.dialect.name == "postgresql":
        conn.execute(_START_LOCK)


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest Alembic revision (the package carries its migrations).
    A database already there is left as it is without loading Alembic, a good part of
    start-up time.  Over PostgreSQL the migrations run under one advisory lock: processes
    started together on a new or older database wait for the first, and then find the
    schema migrated (Alembic reads the revision after the wait), instead of each creating
    the same tables and types and all but one failing."""
    head = _head_revision()
    if head is not None and _current_revision(engine) == head:
        return
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        _one_at_a_time(conn)
        config.attributes["connection"] = conn
        command.upgrade(config, "head")


@dataclass
class StoredMatch:
    """A match row with its events, in order: what replay needs."""

    row: MatchRow
    events: list[EventRow]


_BEAT = update(HeartbeatRow).where(HeartbeatRow.id == 1).values(alive_at=bindparam("t"))


def _write_beat(conn: Connection, now: float) -> None:
    """The heartbeat row at ``now``, made if missing.  Several processes starting at once
    over one PostgreSQL may all find it missing: the insert then yields to the one that
    made it (ON CONFLICT) instead of failing that process's start on the primary key."""
    if conn.execute(_BEAT, {"t": now}).rowcount:
        return
    if conn.dialect.name in ("postgresql", "sqlite"):
        dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
        upsert = dialect_insert(HeartbeatRow).values(id=1, alive_at=now)
        conn.execute(upsert.on_conflict_do_update(index_elements=[HeartbeatRow.id], set_={"alive_at": now}))
    else:
        conn.execute(insert(HeartbeatRow).values(id=1, alive_at=now))

_MATCHES = Base.metadata.tables["matches"]
_SETTLE = (  # a Core statement: run with many rows at once
    update(_MATCHES)
    .where(_MATCHES.c.id == bindparam("m_id"))
    .values(clocks=bindparam("m_clocks", type_=JSON), clock_at=bindparam("m_clock_at"))
)
_INSERT_EVENT = insert(Base.metadata.tables["events"])
_INSERT_MATCH = insert(Base.metadata.tables["matches"])
_INSERT_HOST = insert(Base.metadata.tables["hosts"])
_LOGIN_COLUMNS = (HostRow.host_id, HostRow.revoked, HostRow.scope, HostRow.expires, HostRow.until_used, HostRow.token_hash)
_HOST_OF = select(*_LOGIN_COLUMNS).where(HostRow.token_hash == bindparam("h"))
_HOST_IDS = Base.metadata.tables["host_ids"]
_INSERT_HOST_ID = insert(_HOST_IDS)


@dataclass(frozen=True)
class HostLogin:
    """What a host token logs in as: its host, whether the link was revoked, what it may
    do (``scope``) and until when."""

    host_id: str
    revoked: bool
    scope: str = "owner"
    expires: float | None = None
    until_used: bool = False

    def expired(self, now: float) -> bool:
        """Whether the link has stopped logging in by ``now``."""
        return self.expires is not None and now >= self.expires

    def valid(self, now: float) -> bool:
        """Whether the link logs in at ``now``: not revoked, not expired."""
        return not self.revoked and not self.expired(now)

    @classmethod
    def of(cls, row: Any) -> "HostLogin":
        return cls(str(row[0]), row[1] is not None, str(row[2] or "owner"), row[3], bool(row[4]))

_MATCH_HOSTS = (MatchRow.id, MatchRow.host_id, MatchRow.cohosts)


@dataclass(frozen=True)
class MatchHosts:
    """Who controls a match, as stored: its owning host and its co-hosts."""

    host_id: str
    cohosts: tuple[str, ...]

    @classmethod
    def of(cls, row: Any) -> "MatchHosts":
        cohosts = row[2] if isinstance(row[2], list) else []
        return cls(str(row[1] or ""), tuple(str(h) for h in cohosts))

    def include(self, host_id: str) -> bool:
        """Whether ``host_id`` controls the match: its owner or a co-host."""
        return bool(host_id) and (host_id == self.host_id or host_id in self.cohosts)


_ADVANCE = (
    update(MatchRow)
    .where(MatchRow.id == bindparam("m_id"), MatchRow.version == bindparam("m_from"), MatchRow.status == "running")
    .values(
        version=bindparam("m_version"), status=bindparam("m_status"),
        clocks=bindparam("m_clocks", type_=JSON), clock_at=bindparam("m_clock_at"),
        public_version=bindparam("m_public_version"),
    )
)
#: the same, fenced by the ownership epoch as well (what a running server always sends)
_ADVANCE_EPOCH = _ADVANCE.where(MatchRow.epoch == bindparam("m_epoch"))


#: over PostgreSQL, creations are counted against the quotas one at a time (a transaction's lock)
_QUOTA_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended('blackwhite quotas', 0))")


def _running(conn: Connection, *where: Any) -> int:
    return int(conn.execute(select(func.count()).select_from(MatchRow)
                            .where(MatchRow.status == "running", *where)).scalar() or 0)


def _check_quotas(conn: Connection, quotas: Quotas, row: dict[str, Any], anonymous: bool) -> None:
    """Raise :class:`QuotaExceeded` if the running matches, the just-inserted ``row``
    counted, go over a bound (0: no bound of that kind)."""
    if row["status"] != "running":
        return
    checks: list[tuple[str, int, Any]] = [("total", quotas.total, None)]
    checks.append(("host", quotas.anonymous if anonymous else quotas.host, MatchRow.host_id == row["host_id"]))
    if anonymous and row.get("creator"):
        checks.append(("address", quotas.anonymous, MatchRow.creator == row["creator"]))
    if row.get("bot_only"):
        checks.append(("bots", quotas.bot_matches, (MatchRow.host_id == row["host_id"]) & MatchRow.bot_only.is_(True)))
    for kind, limit, where in checks:
        if limit <= 0:
            continue
        count = _running(conn, *(() if where is None else (where,)))
        if count > limit:
            raise QuotaExceeded(kind, count - 1, limit)


class Store:
    """The statements the server runs; each method is one transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._local = threading.local()
        self._kept: set[Connection] = set()
        self._kept_lock = threading.Lock()

    @contextlib.contextmanager
    def _tx(self) -> Iterator[Connection]:
        """One transaction on the calling thread's own connection, kept open between calls.

        Writes run in the service's few store threads; each keeps one connection, so no
        pool checkout (nor its rollback on return) is paid per action.  A failed
        transaction drops the connection; the next one opens a fresh one.
        """
        conn: Connection | None = getattr(self._local, "conn", None)
        if conn is None or conn.closed:
            conn = self.engine.connect()
            self._local.conn = conn
            with self._kept_lock:
                self._kept.add(conn)
        try:
            self._set_wait(conn)
            with conn.begin():
                yield conn
        except BaseException:
            self._local.conn = None
            with self._kept_lock:
                self._kept.discard(conn)
            with contextlib.suppress(Exception):
                conn.close()
            raise

    def bounded(self, deadline: float, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in this thread, its writes waiting for another process's SQLite
        lock only until ``deadline`` (``time.monotonic()``): a request queued behind others
        for a store thread has that much less left, so every request's wait is bounded."""
        left = deadline - time.monotonic()
        if left <= 0.0:
            raise StoreTimeout(f"no store thread was free within {STORE_WAIT:g} s")
        self._local.wait = left
        try:
            return work(*args)
        finally:
            self._local.wait = None

    def _set_wait(self, conn: Connection) -> None:
        """Give a SQLite connection the busy timeout the current request has left; a
        PostgreSQL one a ``lock_timeout`` of ``STORE_WAIT`` (set once per kept connection),
        so a lock another session holds (a row locked at a ``psql`` prompt, a ``LOCK
        TABLE``) makes a write fail after that long, a 503, rather than wait for ever
        holding its match."""
        if self.engine.dialect.name == "postgresql":
            if getattr(self._local, "busy", None) != id(conn):
                conn.exec_driver_sql(f"SET lock_timeout = {int(STORE_WAIT * 1000)}")
                conn.commit()
                self._local.busy = id(conn)
            return
        if self.engine.dialect.name != "sqlite":
            return
        left = getattr(self._local, "wait", None)
        ms = max(1, int((STORE_WAIT if left is None else left) * 1000))
        if getattr(self._local, "busy", None) != (id(conn), ms):
            driver = conn.connection.driver_connection
            assert driver is not None
            driver.execute(f"PRAGMA busy_timeout = {ms}").close()
            self._local.busy = (id(conn), ms)

    def _write(self, work: Callable[[Connection], object]) -> None:
        """Run ``work`` in one transaction; if the kept connection turns out dead (a
        database restart), run it once more on a fresh one: nothing was committed."""
        try:
            with self._tx() as conn:
                work(conn)
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
            with self._tx() as conn:
                work(conn)

    def close(self) -> None:
        """Close every kept connection (at shutdown, once the store threads are idle)."""
        with self._kept_lock:
            kept, self._kept = self._kept, set()
        for conn in kept:
            with contextlib.suppress(Exception):
                conn.close()

    def host_of(self, token_hash_: str) -> HostLogin | None:
        """The host a token logs in as (None: no host's token)."""
        with self.engine.connect() as conn:
            row = conn.execute(_HOST_OF, {"h": token_hash_}).first()
        if row is None or row[0] is None:
            return None
        return HostLogin.of(row)

    def logins_of(self, digests: list[str]) -> dict[str, HostLogin]:
        """What each of these token hashes logs in as (absent: no host's token), in one query."""
        out: dict[str, HostLogin] = {}
        with self.engine.connect() as conn:
            for start in range(0, len(digests), 500):
                chunk = digests[start:start + 500]
                for row in conn.execute(select(*_LOGIN_COLUMNS).where(HostRow.token_hash.in_(chunk))):
                    if row[0] is not None:
                        out[str(row[5])] = HostLogin.of(row)
        return out

    def match_hosts(self, match_ids: list[str]) -> dict[str, MatchHosts]:
        """Who controls each match, as stored (the owner and its co-hosts): the database is
        what every process and ``blackwhite hosts`` change, so it is what rights are read from."""
        out: dict[str, MatchHosts] = {}
        with self.engine.connect() as conn:
            for start in range(0, len(match_ids), 500):
                chunk = match_ids[start:start + 500]
                for row in conn.execute(select(*_MATCH_HOSTS).where(MatchRow.id.in_(chunk))):
                    out[str(row[0])] = MatchHosts.of(row)
        return out

    def host_rights(self, token_hash_: str, match_id: str) -> tuple[HostLogin | None, MatchHosts | None]:
        """What a token logs in as and who controls ``match_id`` now, read together: a
        host's right to a match is decided on what is stored, not on what a process
        remembers (a merge or another process may have changed it)."""
        with self.engine.connect() as conn:
            row = conn.execute(_HOST_OF, {"h": token_hash_}).first()
            login = None if row is None or row[0] is None else HostLogin.of(row)
            hosts = conn.execute(select(*_MATCH_HOSTS).where(MatchRow.id == match_id)).first() if login else None
        return login, None if hosts is None else MatchHosts.of(hosts)

    def mark_used(self, token_hash_: str) -> None:
        """A link that expires unless used has been used: it expires no more."""
        self._write(lambda conn: conn.execute(
            update(HostRow).where(HostRow.token_hash == token_hash_, HostRow.until_used.is_(True))
            .values(until_used=False, expires=None)))

    def new_host(self, host_id: str, token_hash_: str, now: float, label: str | None, owner: bool = False) -> None:
        """A host with its first login link."""

        def work(conn: Connection) -> None:
            conn.execute(_INSERT_HOST_ID, {"id": host_id, "created": now, "owner": owner})
            conn.execute(_INSERT_HOST, {"token_hash": token_hash_, "created": now, "host_id": host_id, "label": label})

        self._write(work)

    def host_known(self, host_id: str) -> bool:
        """Whether ``host_id`` is a host of this server."""
        with self.engine.connect() as conn:
            return conn.execute(select(HostIdRow.id).where(HostIdRow.id == host_id)).first() is not None

    def owner_link(self, host_id: str, token_hash_: str, now: float, label: str | None,
                   expires: float | None = None) -> str:
        """A new login link of the server's own host, made first (as ``host_id``) if there
        is none yet; the host's id.  One transaction, under the start-up lock over
        PostgreSQL: processes starting together make exactly one."""
        found: list[str] = []

        def work(conn: Connection) -> None:
            _one_at_a_time(conn)
            value = conn.execute(select(HostIdRow.id).where(HostIdRow.owner.is_(True))
                                 .order_by(HostIdRow.created)).first()
            owner = host_id if value is None else str(value[0])
            if value is None:
                conn.execute(_INSERT_HOST_ID, {"id": owner, "created": now, "owner": True})
            # the links earlier starts printed that expired with nobody using them log in no
            # more and were never held by anyone: they go, so the host's list does not grow
            # by one dead link per restart
            conn.execute(delete(HostRow).where(HostRow.host_id == owner, HostRow.until_used.is_(True),
                                               HostRow.expires <= now))
            conn.execute(_INSERT_HOST, {"token_hash": token_hash_, "created": now, "host_id": owner, "label": label,
                                        "scope": "owner", "expires": expires, "until_used": expires is not None})
            found.append(owner)

        self._write(work)
        return found[-1]

    def owner_host(self) -> str | None:
        """The server's own host, if it has been made."""
        with self.engine.connect() as conn:
            value = conn.execute(select(HostIdRow.id).where(HostIdRow.owner.is_(True)).order_by(HostIdRow.created)).first()
        return None if value is None else str(value[0])

    def add_link(self, host_id: str, token_hash_: str, now: float, label: str | None, scope: str = "owner",
                 expires: float | None = None) -> None:
        """Another login link of ``host_id`` with what it may do and until when."""
        self._write(lambda conn: conn.execute(
            _INSERT_HOST, {"token_hash": token_hash_, "created": now, "host_id": host_id, "label": label,
                           "scope": scope, "expires": expires, "until_used": False}))

    def detached(self, query: Select[R]) -> list[R]:
        """The rows ``query`` selects, detached from their session: a listing hands them
        out after it closes, with nothing left to load lazily."""
        from sqlalchemy.orm import Session

        with Session(self.engine) as session:
            out = list(session.scalars(query))
            session.expunge_all()
        return out

    def links(self, host_id: str | None = None) -> list[HostRow]:
        """A host's login links (every host's: ``None``), oldest first."""
        query = select(HostRow).order_by(HostRow.created)
        if host_id is not None:
            query = query.where(HostRow.host_id == host_id)
        return self.detached(query)

    def hosts(self) -> list[tuple[HostIdRow, int]]:
        """Every host with how many matches it owns, oldest first."""
        from sqlalchemy.orm import Session

        counts = (select(MatchRow.host_id, func.count().label("n")).group_by(MatchRow.host_id)).subquery()
        with Session(self.engine) as session:
            rows = session.execute(
                select(HostIdRow, func.coalesce(counts.c.n, 0))
                .outerjoin(counts, counts.c.host_id == HostIdRow.id).order_by(HostIdRow.created)
            ).all()
            session.expunge_all()
        return [(row[0], int(row[1])) for row in rows]

    def revoke(self, host_id: str | None, link_id: str, now: float) -> HostRow | None:
        """Revoke the link named ``link_id`` (of ``host_id``, unless None: any host's);
        the link as it is now, or None if there is no such link."""
        rows = [r for r in self.links(host_id) if r.link_id == link_id]
        if not rows:
            return None
        row = rows[0]
        if row.revoked is None:
            self._write(lambda conn: conn.execute(
                update(HostRow).where(HostRow.token_hash == row.token_hash).values(revoked=now)))
            row.revoked = now
        return row

    def merge(self, source: str, target: str) -> tuple[int, int]:
        """Move every link, match and player of host ``source`` to host ``target``, in one
        transaction: the matches moved, and the co-hostings of ``source`` dropped.

        ``source`` stops existing, so it is dropped from every match's co-hosts: a host
        that named it co-host gave that to it, not to ``target`` (whose other links would
        otherwise gain the match); ``target`` is dropped from the co-hosts of the matches
        it now owns.  Running servers follow within a second (they read who controls a
        match from here)."""

        def work(conn: Connection) -> tuple[int, int]:
            conn.execute(update(HostRow).where(HostRow.host_id == source).values(host_id=target))
            moved = conn.execute(update(MatchRow).where(MatchRow.host_id == source).values(host_id=target)).rowcount
            # the players the source made are the target's now (it seats them, and revokes the links it made)
            conn.execute(text("UPDATE players SET host_id = :t WHERE host_id = :s"), {"t": target, "s": source})
            conn.execute(text("UPDATE player_links SET made_by = :t WHERE made_by = :s"),
                         {"t": f"host:{target}", "s": f"host:{source}"})
            conn.execute(_HOST_IDS.delete().where(_HOST_IDS.c.id == source))
            dropped = 0
            # co-hosts are a JSON list of hex ids: its text holds '"<id>"' exactly when it lists the host
            named = or_(*(cast(MatchRow.cohosts, String).like(f'%"{h}"%') for h in (source, target)))
            for match_id, owner, cohosts in conn.execute(select(*_MATCH_HOSTS).where(named)).all():
                listed = [str(h) for h in cohosts] if isinstance(cohosts, list) else []
                kept = [h for h in listed if h != source and h != owner]
                if kept != listed:
                    dropped += source in listed
                    conn.execute(update(MatchRow).where(MatchRow.id == match_id).values(cohosts=kept))
            return int(moved or 0), dropped

        result: list[tuple[int, int]] = []
        self._write(lambda conn: result.append(work(conn)))
        return result[-1]

    def create_match(self, match: dict[str, Any], events: list[dict[str, Any]], new_host: float | None,
                     quotas: Quotas | None = None, address: str | None = None,
                     also: Callable[[Connection], object] | None = None,
                     seat_emails: list[dict[str, Any]] | None = None) -> None:
        """Insert a match with its opening events (the first deal), and its host if new
        (``new_host``: when; the host is ``match["host_id"]``, its link ``match["host_hash"]``),
        and the host's ``seat_emails`` (rows of ``notify_seats``).

        With ``quotas``, the running matches are counted in the same transaction, the new
        one included (under one lock over PostgreSQL, so simultaneous creations on several
        processes are counted one after the other): over a bound, :class:`QuotaExceeded`
        and nothing is written.  An anonymous host's match is counted under the client
        ``address`` (a :func:`~blackwhite.server.limits.client_key`) as well.  ``also``
        writes what belongs with the match in the same transaction (its seats' players)."""

        def work(conn: Connection) -> None:
            if quotas is not None and conn.dialect.name == "postgresql":
                conn.execute(_QUOTA_LOCK)
            if new_host is not None:
                conn.execute(_INSERT_HOST_ID, {"id": match["host_id"], "created": new_host, "owner": False,
                                               "anonymous": True})
                conn.execute(_INSERT_HOST, {"token_hash": match["host_hash"], "created": new_host,
                                            "host_id": match["host_id"], "label": "made with its first match"})
            anonymous = new_host is not None or bool(conn.execute(
                select(HostIdRow.anonymous).where(HostIdRow.id == match["host_id"])).scalar())
            row = {**match, "creator": address if anonymous else None}
            conn.execute(_INSERT_MATCH, row)
            if quotas is not None:
                _check_quotas(conn, quotas, row, anonymous)
            if events:
                conn.execute(_INSERT_EVENT, [{**e, "match_id": match["id"]} for e in events])
            if also is not None:
                also(conn)
            if seat_emails:  # the host's addresses for the seats (notify.py): with the match or not at all
                conn.execute(insert(SEAT_EMAILS), seat_emails)

        self._write(work)

    def append(self, match_id: str, events: list[dict[str, Any]], changes: dict[str, Any], version_from: int,
               epoch: int | None = None) -> None:
        """Append events and move the match row on, in one transaction (commit before telling anyone).

        The row moves on only from ``version_from``, the version this process had, and
        (given ``epoch``) only while the row's ownership epoch is still the one this
        process took the match at: if another process took the match over since, nothing
        is written and :class:`StaleWrite` is raised, so one version is never applied
        twice and a woken old owner writes nothing.

        The statements are built once and take their values as parameters, so SQLAlchemy
        compiles them once: this runs for every action and must stay cheap.
        """
        rows = [{**e, "match_id": match_id} for e in events]
        params = {"m_id": match_id, "m_from": version_from, **{f"m_{k}": v for k, v in changes.items()}}
        statement = _ADVANCE
        if epoch is not None:
            statement, params["m_epoch"] = _ADVANCE_EPOCH, epoch

        def work(conn: Connection) -> None:
            if conn.execute(statement, params).rowcount != 1:
                raise StaleWrite(match_id)
            if rows:
                conn.execute(_INSERT_EVENT, rows)

        self._write(work)

    def save_jobs(self, process_id: str, jobs: list[dict[str, Any]], now: float) -> None:
        """Write analysis jobs' states (each ``{"id", "state", "done", "total", "seats", "chart", "error"}``)."""
        table = Base.metadata.tables["analysis_jobs"]

        def work(conn: Connection) -> None:
            for job in jobs:
                values = {**job, "process_id": process_id, "updated": now}
                changed = conn.execute(update(table).where(table.c.id == job["id"]).values(**values)).rowcount
                if changed == 0:
                    conn.execute(insert(table).values(**values))

        self._write(work)

    def load_job(self, job_id: str) -> AnalysisJobRow | None:
        from sqlalchemy.orm import Session

        with Session(self.engine) as session:
            row = session.get(AnalysisJobRow, job_id)
            session.expunge_all()
        return row

    def fail_job(self, job_id: str, error: str, now: float) -> None:
        """Mark a job that was queued or running as failed (its process is gone)."""
        statement = (update(AnalysisJobRow).where(AnalysisJobRow.id == job_id,
                                                  AnalysisJobRow.state.in_(("queued", "running")))
                     .values(state="failed", error=error, updated=now))
        self._write(lambda conn: conn.execute(statement))

    def status_of(self, match_id: str) -> MatchStatus | None:
        """A match's stored status (None: no such match)."""
        with self.engine.connect() as conn:
            value = conn.execute(select(MatchRow.status).where(MatchRow.id == match_id)).scalar()
        return None if value is None else match_status(str(value))

    def fence_of(self, match_id: str) -> tuple[int, int] | None:
        """A match's stored version and ownership epoch (None: no such match)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(MatchRow.version, MatchRow.epoch).where(MatchRow.id == match_id)).first()
        return None if row is None else (int(row[0]), int(row[1] or 0))

    def version_of(self, match_id: str) -> int | None:
        """A match's stored version (None: no such match)."""
        with self.engine.connect() as conn:
            value = conn.execute(select(MatchRow.version).where(MatchRow.id == match_id)).scalar()
        return None if value is None else int(value)

    def update(self, match_id: str, changes: dict[str, Any], version_from: int | None = None,
               epoch: int | None = None, also: Callable[[Connection], object] | None = None) -> None:
        """Change a match row (pause, resume, cancel, extra time, a seat joining, co-hosts).
        With ``version_from`` and ``epoch``, only a running row still at that version and
        ownership epoch is changed, else :class:`StaleWrite` (another process took the
        match over: it may be at the same version, so the epoch is what tells).  ``also``
        writes what belongs with the change in the same transaction (a seat's player)."""
        statement = update(MatchRow).where(MatchRow.id == match_id)
        fenced = version_from is not None or epoch is not None
        if version_from is not None:
            statement = statement.where(MatchRow.version == version_from)
        if epoch is not None:
            statement = statement.where(MatchRow.epoch == epoch)
        if fenced:
            statement = statement.where(MatchRow.status == "running")
        statement = statement.values(**changes)

        def work(conn: Connection) -> None:
            if conn.execute(statement).rowcount != 1 and fenced:
                raise StaleWrite(match_id)
            if also is not None:
                also(conn)

        self._write(work)

    def take_epoch(self, match_id: str) -> int | None:
        """A takeover: move a running match's ownership epoch on by one and return it
        (None: the match is not running).  From now on a write that names an older
        epoch, the previous owner's, changes nothing."""
        statement = (update(MatchRow).where(MatchRow.id == match_id, MatchRow.status == "running")
                     .values(epoch=MatchRow.epoch + 1).returning(MatchRow.epoch))
        found: list[int | None] = []

        def work(conn: Connection) -> None:
            value = conn.execute(statement).scalar()
            found.append(None if value is None else int(value))

        self._write(work)
        return found[-1]

    def settle(self, readings: list[tuple[str, Any]], now: float) -> None:
        """At start-up, in one transaction: each running match's settled readings as of
        ``now``, and the heartbeat at ``now``."""

        def work(conn: Connection) -> None:
            if readings:
                conn.execute(_SETTLE, [{"m_id": mid, "m_clocks": clocks, "m_clock_at": now} for mid, clocks in readings])
            _write_beat(conn, now)

        self._write(work)

    def schema_state(self) -> tuple[str | None, str | None]:
        """(the revision the database is at, the newest the package has): equal when
        migrated; raises if the database cannot be reached."""
        with self.engine.connect() as conn:
            found = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        return (str(found[0]) if len(found) == 1 else None), _head_revision()

    def beat(self, now: float) -> None:
        """Record that the server is up at ``now``."""

        def work(conn: Connection) -> None:
            _write_beat(conn, now)

        self._write(work)

    def last_beat(self) -> float | None:
        with self.engine.connect() as conn:
            value = conn.execute(select(HeartbeatRow.alive_at).where(HeartbeatRow.id == 1)).scalar()
        return None if value is None else float(value)

    def load_live(self) -> list[StoredMatch]:
        """Every running match with its events (the service replays them on start-up; an
        ended match is read back only when asked for, by :meth:`load_match`)."""
        return self._load(MatchRow.status == "running")

    def load_match(self, match_id: str) -> StoredMatch | None:
        """One match with its events, or None."""
        found = self._load(MatchRow.id == match_id)
        return found[0] if found else None

    def _load(self, where: Any) -> list[StoredMatch]:
        from sqlalchemy.orm import Session

        with Session(self.engine) as session:
            rows = list(session.scalars(select(MatchRow).where(where).order_by(MatchRow.created)))
            events: dict[str, list[EventRow]] = {r.id: [] for r in rows}
            if rows:
                of = (select(EventRow).where(EventRow.match_id.in_(select(MatchRow.id).where(where)))
                      .order_by(EventRow.match_id, EventRow.index))
                for ev in session.scalars(of):
                    events.setdefault(ev.match_id, []).append(ev)
            session.expunge_all()
        return [StoredMatch(r, events[r.id]) for r in rows]

    def host_rows(self, host_id: str) -> list[MatchRow]:
        """Every match row a host owns or co-hosts, oldest first, without events (a listing)."""
        # co-hosts are a JSON list of hex ids: its text holds '"<id>"' exactly when it lists the host
        cohosted = cast(MatchRow.cohosts, String).like(f'%"{host_id}"%')
        return self.detached(select(MatchRow).where(or_(MatchRow.host_id == host_id, cohosted))
                             .order_by(MatchRow.created))

    def events(self, match_id: str) -> list[EventRow]:
        return self.detached(select(EventRow).where(EventRow.match_id == match_id).order_by(EventRow.index))
