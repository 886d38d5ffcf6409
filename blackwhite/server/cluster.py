"""Several ``blackwhite serve`` processes over one PostgreSQL (docs/server.md, "Several processes").

Each running match is *owned* by exactly one process: the one holding the session-level
PostgreSQL advisory lock ``pg_try_advisory_lock(hashtextextended(match id, 0))`` on its
lock connection.  Only the owner keeps the match in memory, applies its actions, runs
its clock and bots and pushes its views.  The lock belongs to the connection, so it
vanishes the moment the process dies (PostgreSQL sees its socket close); every process
looks for running matches nobody holds once a second and takes them over (reloads
them from their events, charges their clocks up to the dead owner's last heartbeat and
no further, and runs their bots and timeouts).

A request or socket for a match owned by another process is relayed to the owner's
internal URL by :class:`Router` (HTTP through :mod:`httpx`, sockets through
:mod:`websockets`), so one process builds every view of a
match: per-audience versions, "commit, then broadcast" and the secrecy filter stay the
code of a single process.  Who owns a match is read from PostgreSQL's own lock table
(``pg_locks``) joined with ``processes`` (each process's id, internal URL, the backend
pid of its lock connection and its heartbeat): it cannot name a dead owner.

The lock is not the last line: a stored action is fenced by the match row's version
(``Store.append`` moves a row on only from the version the process had), so a process
that lost its lock without noticing yet cannot apply a second action at a version
another process already used.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import threading
from dataclasses import dataclass
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import time

import httpx
from sqlalchemy import Connection, Engine, event, text
from sqlalchemy.exc import SQLAlchemyError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import Refused
from .http import prepending, replaying, send_json, status_of
from .proxy import relay_headers
from .store import shared_secret

if TYPE_CHECKING:
    from .service import MatchService

log = logging.getLogger("blackwhite.server")

#: the header a relayed request carries (the relaying process's id): it is never relayed again
HOP = b"x-blackwhite-hop"
#: the header of a 503 that means "not mine (any more): look the owner up again"
MOVED = b"x-blackwhite-moved"
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


# --------------------------------------------------------------------------- routing

#: a replay analysis job's state: its id starts with the id of the process running it
_JOB_PATH = re.compile(r"^/replay/analysis/([0-9a-f]{16})\.[0-9a-f]{1,64}$")
#: seconds without a heartbeat after which a process is taken for dead (it beats every second)
STALE = 5.0
#: the longest a relayed request waits for its answer, however alive its owner looks
RELAY_READ = 30.0
#: how often a relayed request or socket looks whether its owner's lease still holds
WATCH_EVERY = 0.25
_MATCH_PATH = re.compile(r"^/(?:api/matches|ws/matches|play|watch|host|replay)/([A-Za-z0-9_-]{1,64})(?:/|$)")


def match_of(path: str) -> str | None:
    """The match a path is about (``/api/matches/ID/...``, ``/ws/matches/ID``, a page), or None."""
    found = _MATCH_PATH.match(path)
    if found is None or found.group(1) in ("outline", "step", "analysis"):
        return None
    return found.group(1)


class OwnerGone(ConnectionError):
    """The owner could not be reached before anything was sent to it."""


class OwnerStuck(ConnectionError):
    """The owner's lease ran out while a relayed request waited for its answer."""


_DROP = {b"connection", b"keep-alive", b"transfer-encoding", b"upgrade", b"te", b"trailer", b"content-length",
         b"proxy-connection"}


class Relay:
    """HTTP/1.1 to other processes over kept connections (httpx's pool)."""

    def __init__(self, hop: str) -> None:
        self.hop = hop.encode()
        # an idle connection is let go before uvicorn's keep-alive (5 s) would close it under
        # a request being sent; reads wait at most RELAY_READ (a stuck owner is watched for
        # by its lease: Router._watched)
        self._client = httpx.AsyncClient(
            timeout=httpx.Timeout(RELAY_READ, connect=2.0, pool=2.0), trust_env=False, follow_redirects=False,
            limits=httpx.Limits(max_connections=256, max_keepalive_connections=64, keepalive_expiry=4.0))

    async def request(self, base: str, method: str, target: str, headers: list[tuple[bytes, bytes]],
                      body: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """One request to ``base``; :class:`OwnerGone` if it could not be sent at all,
        ``ConnectionError`` if the owner went away after it was sent (it may have acted)."""
        out = [(k, v) for k, v in headers if k.lower() not in _DROP and k.lower() != HOP]
        out.append((HOP, self.hop))
        try:
            response = await self._client.request(method, base + target, headers=out, content=body)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            raise OwnerGone(f"{base}: {exc!r}") from None
        except httpx.HTTPError as exc:  # sent (or partly): it may have acted
            raise ConnectionError(f"the owner at {base} went away: {exc!r}") from None
        return (response.status_code, [(k, v) for k, v in response.headers.raw if k.lower() not in _DROP],
                response.content)

    async def close(self) -> None:
        await self._client.aclose()


class Router:
    """ASGI middleware (inside the request guard): a request or socket about a match
    owned by another process is relayed there; one about a running match nobody owns
    makes this process take it over; anything else is served here."""

    def __init__(self, app: ASGIApp, service: MatchService) -> None:
        self.app = app
        self.service = service
        cluster = service.cluster
        assert cluster is not None
        self.cluster = cluster
        relay = service.relay  # one pool of kept connections per process
        assert relay is not None
        self.relay: Relay = relay
        #: match id -> its owner, until a relay there fails or answers "moved"
        self._owners: dict[str, Owner] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        job = _JOB_PATH.match(scope.get("path", "")) if scope["type"] == "http" else None
        if job is not None and job.group(1) != self.cluster.id:
            await self._job(job.group(1), scope, receive, send)
            return
        match_id = match_of(scope.get("path", "")) if scope["type"] in ("http", "websocket") else None
        if match_id is None:
            await self.app(scope, receive, send)
            return
        if self.service.owns(match_id):
            # this process's lease may have run out (it was stopped): then another may own
            # the match now; find out before answering from memory
            with contextlib.suppress(Refused):  # the database is down: nobody could take it
                await self.service.confirm()
            if self.service.owns(match_id):
                await self.app(scope, receive, send)
                return
        try:
            await self._route(match_id, scope, receive, send)
        except Refused as exc:  # the database is down: the owner cannot be looked up
            if scope["type"] == "websocket":  # refused before it was accepted (its opening may be read already)
                await send({"type": "websocket.close", "code": 1013, "reason": exc.code})
                return
            await send_json(send, status_of(exc), exc.body())

    async def _route(self, match_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        body = b""
        if scope["type"] == "http":  # the guard has read it already: read once, replay to whoever serves it
            chunks = []
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client went away
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    break
            body = b"".join(chunks)
            receive = replaying(body, receive)
        relayed = any(k == HOP for k, _ in scope.get("headers", []))
        for _attempt in range(3):
            owner = None if relayed else self._owners.get(match_id)
            if owner is None:
                owner = await self.service.owner_of(match_id)
                if owner is None or owner.id == self.cluster.id:
                    await self.service.adopt(match_id)  # a running match nobody owns: this process takes it
                    break
                if not self.service.peer_alive(owner.id):  # stuck: its lease ran out, its locks did not
                    await self.service.take_over(match_id)
                    continue
                if relayed or owner.url is None:
                    await self._moved(scope, receive, send, match_id)
                    return
                if len(self._owners) >= 10_000:  # a cache, not a record: start over rather than grow
                    self._owners.clear()
                self._owners[match_id] = owner
            elif not self.service.peer_alive(owner.id):
                self._owners.pop(match_id, None)
                continue
            base = owner.url
            assert base is not None
            try:
                if scope["type"] == "websocket":
                    await self._socket(owner, scope, receive, send)
                else:
                    await self._http(owner, scope, body, send)
                return
            except _Unsent as exc:
                receive = prepending(exc.first, receive)
                self._lost(match_id, base, exc)
            except OwnerGone as exc:
                self._lost(match_id, base, exc)
            except _Retry:
                self._owners.pop(match_id, None)
            await asyncio.sleep(0.1)
        if self.service.owns(match_id) or scope["type"] == "http" and not await self.service.running(match_id):
            await self.app(scope, receive, send)  # this process's now, or no running match: answered here
            return
        # it runs, and its owner cannot be reached: not "no such match"
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1012, "reason": "the match's server is unavailable; reconnect"})
            return
        await send_json(send, 503, _UNAVAILABLE % match_id.encode(), [(b"retry-after", b"1")])

    def _lost(self, match_id: str, base: str, exc: BaseException) -> None:
        log.info("the owner of match %s at %s cannot be reached (%s); looking again", match_id, base, exc)
        self._owners.pop(match_id, None)

    async def _job(self, process_id: str, scope: Scope, receive: Receive, send: Send) -> None:
        """A replay analysis job runs in the process that started it (its id starts with
        that process's id): relayed there; a job whose process is gone has failed."""
        try:
            found = await self.service.process(process_id)
        except Refused as exc:
            found, body, status = None, json.dumps(exc.body()).encode(), status_of(exc)
        else:
            status, body = 200, b""
        now = self.service.now()
        if found is not None and found[0] and now - found[1] < STALE:
            try:
                await self._http(Owner(process_id, found[0]), scope, b"", send)
                return
            except (OwnerGone, _Retry):
                pass
        if status == 200:  # its process is gone: the job as it stored it (failed, if it was not done)
            try:
                await self.service.job_gone(scope["path"].rsplit("/", 1)[1])
            except Refused as exc:
                body, status = json.dumps(exc.body()).encode(), status_of(exc)
            else:
                await self.app(scope, receive, send)
                return
        await send_json(send, status, body)

    async def _moved(self, scope: Scope, receive: Receive, send: Send, match_id: str) -> None:
        """A relayed request for a match this process does not own (any more)."""
        if scope["type"] == "websocket":  # refused before it was accepted: the relaying process looks again
            await send({"type": "websocket.close", "code": 1012, "reason": "moved; reconnect"})
            return
        body = (b'{"error":{"code":"owner_unavailable","message":"match ' + match_id.encode()
                + b' is moving to another server process; try again shortly"}}')
        await send_json(send, 503, body, [(MOVED, b"1"), (b"retry-after", b"1")])

    async def _watched(self, owner: Owner, work: Any) -> Any:
        """Await ``work`` (a relayed request) while ``owner``'s lease holds, at most
        :data:`RELAY_READ` seconds; :class:`OwnerStuck` once it has run out."""
        task = asyncio.ensure_future(work)
        started = time.monotonic()
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=WATCH_EVERY)
                if done:
                    return task.result()
                if not self.service.peer_alive(owner.id):
                    raise OwnerStuck(f"the lease of server process {owner.id} ran out")
                if time.monotonic() - started > RELAY_READ:
                    raise OwnerStuck(f"server process {owner.id} did not answer within {RELAY_READ:g} s")
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def _http(self, owner: Owner, scope: Scope, body: bytes, send: Send) -> None:
        base = owner.url
        assert base is not None
        target = scope.get("raw_path") or scope["path"].encode()
        if scope.get("query_string"):
            target += b"?" + scope["query_string"]
        try:
            status, headers, answer = await self._watched(owner, self.relay.request(
                base, scope["method"], target.decode("latin-1"),
                list(scope["headers"]) + relay_headers(scope, self.cluster.secret), body))
        except OwnerGone:
            raise
        except ConnectionError as exc:  # sent, then the owner died or got stuck: it may or may not have acted
            log.warning("relaying %s %s: %s", scope["method"], scope["path"], exc)
            self._owners.pop(match_of(scope["path"]) or "", None)
            status, headers = 503, [(b"content-type", b"application/json"), (b"retry-after", b"1")]
            answer = (b'{"error":{"code":"owner_unavailable","message":"the server process holding this match'
                      b' stopped while answering; reload the view and try again"}}')
        else:
            if status == 503 and any(k.lower() == MOVED for k, _ in headers):
                raise _Retry()
        headers = [(k, v) for k, v in headers if k.lower() != MOVED] + [(b"content-length", str(len(answer)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    async def _socket(self, owner: Owner, scope: Scope, receive: Receive, send: Send) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake

        base = owner.url
        assert base is not None
        first = await receive()  # websocket.connect
        target = scope.get("raw_path") or scope["path"].encode()
        if scope.get("query_string"):
            target += b"?" + scope["query_string"]
        url = base.replace("http://", "ws://", 1).replace("https://", "wss://", 1) + target.decode("latin-1")
        # the client's own X-Forwarded-* never pass (the edge removed them): the client as this
        # process resolved it goes in headers the owner believes only with the shared secret
        keep = {b"authorization", b"cookie", b"origin"}
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"] if k.lower() in keep]
        headers += [(k.decode(), v.decode("latin-1")) for k, v in relay_headers(scope, self.cluster.secret)]
        headers.append((HOP.decode(), self.cluster.id))
        try:
            upstream = await asyncio.wait_for(connect(url, additional_headers=headers, max_size=None,
                                                      compression=None, open_timeout=2.0, proxy=None), 3.0)
        except (OSError, InvalidHandshake, asyncio.TimeoutError) as exc:
            raise _Unsent(first, exc) from None
        await send({"type": "websocket.accept"})
        code, reason = 1012, "the server process holding this match stopped; reconnect"

        async def down() -> None:
            nonlocal code, reason
            try:
                async for message in upstream:
                    if isinstance(message, str):
                        await send({"type": "websocket.send", "text": message})
                    else:
                        await send({"type": "websocket.send", "bytes": message})
            except ConnectionClosed:
                pass
            if upstream.close_code is not None and upstream.close_code not in (1005, 1006):
                code, reason = upstream.close_code, upstream.close_reason or ""

        async def up() -> None:
            while True:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    return
                data = message.get("text")
                try:
                    await upstream.send(data if data is not None else message.get("bytes") or b"")
                except ConnectionClosed:
                    return

        async def watch() -> None:
            nonlocal code, reason
            while self.service.peer_alive(owner.id):
                await asyncio.sleep(WATCH_EVERY)
            code, reason = 1012, "the server process holding this match stopped answering; reconnect"

        tasks = [asyncio.ensure_future(down()), asyncio.ensure_future(up()), asyncio.ensure_future(watch())]
        try:
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            client_left = tasks[1] in done
            for task in pending:
                task.cancel()
            if client_left:
                await upstream.close()
            else:
                with contextlib.suppress(Exception):
                    await send({"type": "websocket.close", "code": code, "reason": reason[:120]})
        finally:
            for task in tasks:
                task.cancel()
            with contextlib.suppress(Exception):
                await upstream.close()


_UNAVAILABLE = (b'{"error":{"code":"owner_unavailable","message":"match %s is held by a server process that cannot'
                b' be reached now; try again shortly"}}')


class _Retry(Exception):
    """The process relayed to no longer owns the match: look the owner up again."""


class _Unsent(OwnerGone):
    """A socket's owner could not be reached; the client's opening message, to hand on."""

    def __init__(self, first: Message, exc: BaseException) -> None:
        super().__init__(repr(exc))
        self.first = first


__all__ = ["Cluster", "Owner", "Router", "match_of"]
