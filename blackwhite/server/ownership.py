"""Which process owns which match (docs/server.md, "Several processes"): the lease, the
lock connection and the advisory locks on it, reaping, who owns what, and handovers.

Each running match is *owned* by exactly one process: the one holding the session-level
PostgreSQL advisory lock ``pg_try_advisory_lock(hashtextextended(match id, 0))`` on its
lock connection.  Only the owner keeps the match in memory, applies its actions, runs
its clock and bots and pushes its views.  The lock belongs to the connection, so it
vanishes the moment the process dies; and since a process that is stopped or hung keeps
its connection, ownership also follows a *lease*: each heartbeat renews
``processes.expires`` (on the database's clock), and a process whose lease ran out is
*reaped* (its sessions ended, its locks with them) so that the others take its matches
over (they reload them from their events, move the ownership epoch on, charge the clocks
up to the previous owner's last heartbeat and no further, and run their bots and
timeouts).  Who owns a match is read from PostgreSQL's own lock table (``pg_locks``)
joined with ``processes``: it cannot name a dead owner.

The lock is not the last line: every write of a running match is fenced by the match
row's version and ownership epoch (``Store.append``, ``Store.update``), so a process that
lost its lock without noticing yet writes nothing behind its successor's back.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from sqlalchemy import Connection, Engine, event, text
from sqlalchemy.exc import SQLAlchemyError

from .store import shared_secret


#: processes whose heartbeat is older than this (seconds) are forgotten at a registration
FORGET_AFTER = 3600.0
#: seconds a process's lease lasts unless its heartbeat (every second) renews it; once it
#: has run out, another process takes the process's matches over, locks or no locks
LEASE = 5.0
#: the database's clock, in Unix seconds: leases are read against one clock, whatever the
#: processes' own clocks say
_DB_NOW = "extract(epoch from clock_timestamp())"
#: the prefix of the ``application_name`` of every connection of a process (then its id):
#: how a takeover finds every session of a process whose lease ran out
APP_NAME = "blackwhite "
_PEERS = text(f"SELECT id, url, expires - {_DB_NOW} FROM processes")
_EXPIRED = text(
    f"SELECT p.id, array_agg(a.pid) FROM processes p JOIN pg_stat_activity a"
    f" ON a.application_name = '{APP_NAME}' || p.id"
    f" WHERE p.id <> :me AND p.expires < {_DB_NOW} AND a.pid <> pg_backend_pid()"
    f" AND a.datname = current_database() GROUP BY p.id"
)

_KEY = "hashtextextended(:id, 0)"
_OWNER = text(
    "SELECT p.id, p.url FROM pg_locks l JOIN processes p ON p.backend_pid = l.pid"
    " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    f" AND l.classid::bigint = (({_KEY} >> 32) & 4294967295) AND l.objid::bigint = ({_KEY} & 4294967295)"
    " ORDER BY p.beat DESC LIMIT 1"
)
#: seconds a handover asked for (rebalancing) stands: the match is left to the asker meanwhile
HANDOVER_TTL = 5.0
_ORPHANS = text(
    "SELECT m.id FROM matches m WHERE m.status = 'running'"
    " AND NOT EXISTS (SELECT 1 FROM handovers h WHERE h.match_id = m.id AND h.to_process <> :me"
    f" AND h.asked > {_DB_NOW} - {HANDOVER_TTL})"
    " AND NOT EXISTS ("
    " SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND l.classid::bigint = ((hashtextextended(m.id, 0) >> 32) & 4294967295)"
    " AND l.objid::bigint = (hashtextextended(m.id, 0) & 4294967295))"
    " ORDER BY m.created"
)


_OWNERSHIP = text(
    "SELECT m.id, p.id FROM matches m LEFT JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted"
    " AND l.objsubid = 1 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND l.classid::bigint = ((hashtextextended(m.id, 0) >> 32) & 4294967295)"
    " AND l.objid::bigint = (hashtextextended(m.id, 0) & 4294967295)"
    " LEFT JOIN processes p ON p.backend_pid = l.pid WHERE m.status = 'running' ORDER BY m.created"
)


@dataclass(frozen=True)
class Owner:
    """The process holding a match's lock."""

    id: str
    url: str | None


@dataclass(frozen=True)
class Peer:
    """A process as the last look at ``processes`` saw it: its URL and how long its lease had left."""

    id: str
    url: str | None
    #: ``time.monotonic()`` at which its lease runs out, as far as this process knows
    until: float


class Cluster:
    """This process's part: its row in ``processes``, its lock connection and the locks on it.

    Every method blocks (the service runs them in its store threads); the lock connection
    is used by one thread at a time."""

    def __init__(self, engine: Engine, url: str | None, lease: float = LEASE, secret: str | None = None) -> None:
        self.engine = engine
        #: the secret that makes another process believe the client a relayed request names
        #: (given, or made once and kept in the database for every process)
        self.secret = secret or shared_secret(engine, "relay")
        #: the internal URL other processes relay to (``http://10.0.0.5:8001``); None: not reachable
        self.url = url.rstrip("/") if url else None
        self.id = secrets.token_hex(8)
        self.lease = lease
        #: ``time.monotonic()`` when the last renewal that succeeded was sent: the lease
        #: holds (as others read it, on the database's clock) at least ``lease`` after it
        self.renewed = float("-inf")
        #: the heartbeat (this process's clock) last stored; None before the first
        self.beaten: float | None = None
        self._conn: Connection | None = None
        self._mutex = threading.Lock()
        name = APP_NAME + self.id

        @event.listens_for(engine, "do_connect")
        def _named(_dialect: object, _record: object, _args: object, params: dict[str, object]) -> None:
            params["application_name"] = name  # every session of this process: a takeover ends them all

        engine.dispose()  # connections opened before (the migrations') carry no name

    def fresh(self) -> bool:
        """Whether this process's lease surely still holds: past it another process may
        have taken its matches over, so it must renew (and find out) before it serves them."""
        return time.monotonic() - self.renewed < self.lease

    def _lock_conn(self) -> Connection:
        if self._conn is None or self._conn.closed:
            raise ConnectionError("the lock connection is gone: every lock of this process went with it")
        return self._conn

    @contextlib.contextmanager
    def _locking(self) -> Iterator[Connection]:
        """The lock connection, for one statement (under the mutex): any failure of it (its
        session ended, the network cut) is the loss of every lock on it, a ConnectionError,
        and the connection is closed for good (the next registration opens another)."""
        with self._mutex:
            conn = self._lock_conn()
            try:
                yield conn
            except SQLAlchemyError as exc:
                _end(conn)
                self._conn = None
                raise ConnectionError(f"the lock connection failed: {exc!r}"[:500]) from None

    def register(self, now: float, renewed: bool = True) -> float:
        """Open the lock connection and enter this process in ``processes`` (again, after
        losing it); returns ``time.monotonic()`` before the lease was written.  With
        ``renewed=False`` the process does not count its lease as renewed yet (after a
        loss, not before it knows which of its matches are still its own)."""
        with self._mutex:
            if self._conn is not None:
                _end(self._conn)
            conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            self._conn = conn
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
            conn.execute(text("DELETE FROM processes WHERE id = :id OR beat < :old"),
                         {"id": self.id, "old": now - FORGET_AFTER})
            sent = time.monotonic()
            conn.execute(text("INSERT INTO processes (id, url, backend_pid, started, beat, expires)"
                              f" VALUES (:id, :url, :pid, :now, :now, {_DB_NOW} + :lease)"),
                         {"id": self.id, "url": self.url, "pid": pid, "now": now, "lease": self.lease})
            if renewed:
                self.renewed, self.beaten = sent, now
            return sent

    def beat(self, now: float) -> None:
        """The heartbeat, on the lock connection, renews the lease: if it fails, the locks
        are gone too (or soon may be taken: the lease is not renewed)."""
        with self._locking() as conn:
            sent = time.monotonic()
            done = conn.execute(
                text(f"UPDATE processes SET beat = :now, expires = {_DB_NOW} + :lease WHERE id = :id"),
                {"now": now, "id": self.id, "lease": self.lease})
            if done.rowcount != 1:
                raise ConnectionError("this process's row in processes is gone")
            self.renewed, self.beaten = sent, now

    def peers(self) -> list[Peer]:
        """Every registered process with what its lease has left (none: it has none, an older server)."""
        with self.engine.connect() as conn:
            rows = conn.execute(_PEERS).all()
        now = time.monotonic()
        return [Peer(str(r[0]), r[1], now + (float(r[2]) if r[2] is not None else FORGET_AFTER)) for r in rows]

    def reap(self) -> list[str]:
        """End every session of each other process whose lease has run out (stopped,
        deadlocked, its event loop blocked, or cut off from the database): its advisory
        locks go with its lock connection, so its matches become free to take over, and a
        transaction it left open holds no row.  Returns the processes reaped; waits (2 s
        at most) until their sessions are gone."""
        with self.engine.connect() as conn:
            found = conn.execute(_EXPIRED, {"me": self.id}).all()
            pids = [int(p) for row in found for p in row[1]]
            if not pids:
                return []
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = ANY(:pids)"),
                         {"pids": pids})
            conn.commit()
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline:
                left = conn.execute(text("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(:pids)"),
                                    {"pids": pids}).scalar()
                conn.commit()  # a new snapshot for the next look
                if not left:
                    break
                time.sleep(0.02)
        return [str(row[0]) for row in found]

    def leave(self) -> None:
        """A clean stop: out of ``processes``, and every lock released with the connection."""
        with self._mutex:
            if self._conn is None:
                return
            with contextlib.suppress(Exception):
                self._conn.execute(text("DELETE FROM processes WHERE id = :id"), {"id": self.id})
            _end(self._conn)
            self._conn = None

    def try_lock(self, match_id: str) -> bool:
        with self._locking() as conn:
            got = conn.execute(text(f"SELECT pg_try_advisory_lock({_KEY})"), {"id": match_id}).scalar()
        return bool(got)

    def unlock(self, match_id: str) -> None:
        with self._locking() as conn:
            conn.execute(text(f"SELECT pg_advisory_unlock({_KEY})"), {"id": match_id})

    def owner(self, match_id: str) -> Owner | None:
        """The process holding ``match_id``'s lock now, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(_OWNER, {"id": match_id}).first()
        return None if row is None else Owner(str(row[0]), row[1])

    def orphans(self) -> list[str]:
        """Running matches no process holds (their owner died, or none was ever started),
        but those another process asked for a moment ago (rebalancing: they are its)."""
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(_ORPHANS, {"me": self.id})]

    def ownership(self) -> dict[str, str | None]:
        """Who owns what: every running match with the id of the process holding its lock
        now (None: nobody, until a process takes it over).  What ``blackwhite cluster
        status`` and rebalancing read."""
        with self.engine.connect() as conn:
            return {str(r[0]): (None if r[1] is None else str(r[1])) for r in conn.execute(_OWNERSHIP)}

    def ask(self, match_ids: list[str]) -> None:
        """Ask the owners of ``match_ids`` to hand them over to this process (rebalancing)."""
        if not match_ids:
            return
        with self.engine.begin() as conn:
            conn.execute(text("DELETE FROM handovers WHERE match_id = ANY(:ids)"), {"ids": match_ids})
            conn.execute(text(f"INSERT INTO handovers (match_id, to_process, asked) SELECT m, :me, {_DB_NOW}"
                              " FROM unnest(CAST(:ids AS text[])) AS m"), {"ids": match_ids, "me": self.id})

    def handovers(self) -> list[tuple[str, str]]:
        """The handovers asked for and standing: (match id, the asking process); those
        expired are forgotten."""
        with self.engine.begin() as conn:
            conn.execute(text(f"DELETE FROM handovers WHERE asked <= {_DB_NOW} - {HANDOVER_TTL}"))
            return [(str(r[0]), str(r[1])) for r in conn.execute(text("SELECT match_id, to_process FROM handovers"))]

    def handed(self, match_id: str) -> None:
        """A handover is done (the asker holds the match): its row goes."""
        with self.engine.begin() as conn:
            conn.execute(text("DELETE FROM handovers WHERE match_id = :id"), {"id": match_id})

    def process(self, process_id: str) -> tuple[str | None, float] | None:
        """Another process's internal URL and last heartbeat (None: not registered)."""
        with self.engine.connect() as conn:
            row = conn.execute(text("SELECT url, beat FROM processes WHERE id = :id"), {"id": process_id}).first()
        return None if row is None else (row[0], float(row[1]))

    def last_owner_beat(self, match_id: str) -> float | None:
        """The last heartbeat of the process that owned ``match_id`` before (None: unknown)."""
        with self.engine.connect() as conn:
            value = conn.execute(text("SELECT p.beat FROM owners o JOIN processes p ON p.id = o.process_id"
                                      " WHERE o.match_id = :id"), {"id": match_id}).scalar()
        return None if value is None else float(value)

    def owned(self, match_id: str, now: float) -> None:
        """Write down that this process owns ``match_id`` (what a takeover reads the last beat from)."""
        with self.engine.begin() as conn:
            conn.execute(text("INSERT INTO owners (match_id, process_id, since) VALUES (:m, :p, :now)"
                              " ON CONFLICT (match_id) DO UPDATE SET process_id = :p, since = :now"),
                         {"m": match_id, "p": self.id, "now": now})


def _end(conn: Connection) -> None:
    """Close the lock connection for real (back in the pool it would keep its locks)."""
    with contextlib.suppress(Exception):
        conn.invalidate()
    with contextlib.suppress(Exception):
        conn.close()


__all__ = ["APP_NAME", "HANDOVER_TTL", "LEASE", "Cluster", "Owner", "Peer"]
