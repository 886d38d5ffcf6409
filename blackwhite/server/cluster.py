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
internal URL by :class:`Router` (HTTP through :mod:`h11`, sockets through
:mod:`websockets`, both already under uvicorn), so one process builds every view of a
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
import urllib.parse
from dataclasses import dataclass
from typing import TYPE_CHECKING

import h11
from sqlalchemy import Connection, Engine, text
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import Refused
from .http import prepending, replaying, send_json, status_of

if TYPE_CHECKING:
    from .service import MatchService

log = logging.getLogger("blackwhite.server")

#: the header a relayed request carries (the relaying process's id): it is never relayed again
HOP = b"x-blackwhite-hop"
#: the header of a 503 that means "not mine (any more): look the owner up again"
MOVED = b"x-blackwhite-moved"
#: processes whose heartbeat is older than this (seconds) are forgotten at a registration
FORGET_AFTER = 3600.0

_KEY = "hashtextextended(:id, 0)"
_OWNER = text(
    "SELECT p.id, p.url FROM pg_locks l JOIN processes p ON p.backend_pid = l.pid"
    " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    f" AND l.classid::bigint = (({_KEY} >> 32) & 4294967295) AND l.objid::bigint = ({_KEY} & 4294967295)"
    " ORDER BY p.beat DESC LIMIT 1"
)
_ORPHANS = text(
    "SELECT m.id FROM matches m WHERE m.status = 'running' AND NOT EXISTS ("
    " SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND l.classid::bigint = ((hashtextextended(m.id, 0) >> 32) & 4294967295)"
    " AND l.objid::bigint = (hashtextextended(m.id, 0) & 4294967295))"
    " ORDER BY m.created"
)


@dataclass(frozen=True)
class Owner:
    """The process holding a match's lock."""

    id: str
    url: str | None


class Cluster:
    """This process's part: its row in ``processes``, its lock connection and the locks on it.

    Every method blocks (the service runs them in its store threads); the lock connection
    is used by one thread at a time."""

    def __init__(self, engine: Engine, url: str | None) -> None:
        self.engine = engine
        #: the internal URL other processes relay to (``http://10.0.0.5:8001``); None: not reachable
        self.url = url.rstrip("/") if url else None
        self.id = secrets.token_hex(8)
        self._conn: Connection | None = None
        self._mutex = threading.Lock()

    def _lock_conn(self) -> Connection:
        if self._conn is None or self._conn.closed:
            raise ConnectionError("the lock connection is gone: every lock of this process went with it")
        return self._conn

    def register(self, now: float) -> None:
        """Open the lock connection and enter this process in ``processes`` (again, after losing it)."""
        with self._mutex:
            if self._conn is not None:
                _end(self._conn)
            conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            self._conn = conn
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
            conn.execute(text("DELETE FROM processes WHERE id = :id OR beat < :old"),
                         {"id": self.id, "old": now - FORGET_AFTER})
            conn.execute(text("INSERT INTO processes (id, url, backend_pid, started, beat)"
                              " VALUES (:id, :url, :pid, :now, :now)"),
                         {"id": self.id, "url": self.url, "pid": pid, "now": now})

    def beat(self, now: float) -> None:
        """The heartbeat, on the lock connection: if it fails, the locks are gone too."""
        with self._mutex:
            done = self._lock_conn().execute(text("UPDATE processes SET beat = :now WHERE id = :id"),
                                             {"now": now, "id": self.id})
            if done.rowcount != 1:
                raise ConnectionError("this process's row in processes is gone")

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
        with self._mutex:
            got = self._lock_conn().execute(text(f"SELECT pg_try_advisory_lock({_KEY})"), {"id": match_id}).scalar()
        return bool(got)

    def unlock(self, match_id: str) -> None:
        with self._mutex:
            self._lock_conn().execute(text(f"SELECT pg_advisory_unlock({_KEY})"), {"id": match_id})

    def owner(self, match_id: str) -> Owner | None:
        """The process holding ``match_id``'s lock now, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(_OWNER, {"id": match_id}).first()
        return None if row is None else Owner(str(row[0]), row[1])

    def orphans(self) -> list[str]:
        """Running matches no process holds (their owner died, or none was ever started)."""
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(_ORPHANS)]

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
_MATCH_PATH = re.compile(r"^/(?:api/matches|ws/matches|play|watch|host|replay)/([A-Za-z0-9_-]{1,64})(?:/|$)")


def match_of(path: str) -> str | None:
    """The match a path is about (``/api/matches/ID/...``, ``/ws/matches/ID``, a page), or None."""
    found = _MATCH_PATH.match(path)
    if found is None or found.group(1) in ("outline", "step", "analysis"):
        return None
    return found.group(1)


class OwnerGone(ConnectionError):
    """The owner could not be reached before anything was sent to it."""


_DROP = {b"connection", b"keep-alive", b"transfer-encoding", b"upgrade", b"te", b"trailer", b"content-length",
         b"proxy-connection"}


class Relay:
    """HTTP/1.1 to other processes over kept connections (one idle list per owner)."""

    def __init__(self, hop: str) -> None:
        self.hop = hop.encode()
        self._idle: dict[str, list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]] = {}

    async def _open(self, base: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        parts = urllib.parse.urlsplit(base)
        try:
            return await asyncio.wait_for(asyncio.open_connection(parts.hostname, parts.port or 80), 2.0)
        except (OSError, asyncio.TimeoutError) as exc:
            raise OwnerGone(f"{base}: {exc!r}") from None

    async def request(self, base: str, method: str, target: str, headers: list[tuple[bytes, bytes]],
                      body: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """One request to ``base``; :class:`OwnerGone` if it could not be sent at all,
        ``ConnectionError`` if the owner went away after it was sent (it may have acted)."""
        parts = urllib.parse.urlsplit(base)
        out = [(k, v) for k, v in headers if k.lower() not in _DROP and k.lower() != HOP]
        out += [(HOP, self.hop), (b"content-length", str(len(body)).encode())]
        if not any(k.lower() == b"host" for k, _ in out):
            out.append((b"host", (parts.netloc or "localhost").encode()))
        for attempt in range(2):
            idle = self._idle.setdefault(base, [])
            reused = bool(idle)
            reader, writer = idle.pop() if idle else await self._open(base)
            conn = h11.Connection(h11.CLIENT)
            try:
                writer.write(conn.send(h11.Request(method=method, target=target, headers=out)) or b"")
                writer.write(conn.send(h11.Data(data=body)) or b"" if body else b"")
                writer.write(conn.send(h11.EndOfMessage()) or b"")
                await writer.drain()
                status, resp_headers, chunks = 0, [], []
                while True:
                    event = conn.next_event()
                    if event is h11.NEED_DATA:
                        data = await reader.read(65536)
                        if not data and reused and status == 0 and attempt == 0:
                            raise _Stale()
                        conn.receive_data(data)
                        continue
                    if isinstance(event, h11.Response):
                        status, resp_headers = event.status_code, list(event.headers)
                    elif isinstance(event, h11.Data):
                        chunks.append(bytes(event.data))
                    elif isinstance(event, h11.EndOfMessage):
                        break
                    elif isinstance(event, h11.ConnectionClosed):
                        raise ConnectionError("the owner closed the connection")
            except _Stale:
                writer.close()
                continue
            except (OSError, h11.RemoteProtocolError, ConnectionError) as exc:
                writer.close()
                raise ConnectionError(f"the owner at {base} went away: {exc!r}") from None
            if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
                self._idle[base].append((reader, writer))
            else:
                writer.close()
            return status, [(k, v) for k, v in resp_headers if k.lower() not in _DROP], b"".join(chunks)
        raise OwnerGone(base)

    def forget(self, base: str) -> None:
        for _reader, writer in self._idle.pop(base, []):
            writer.close()


class _Stale(Exception):
    """A kept connection the owner had closed: send again on a new one."""


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
        self.relay = Relay(cluster.id)
        #: match id -> owner URL, until a relay there fails or answers "moved"
        self._owners: dict[str, str] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        job = _JOB_PATH.match(scope.get("path", "")) if scope["type"] == "http" else None
        if job is not None and job.group(1) != self.cluster.id:
            await self._job(job.group(1), scope, receive, send)
            return
        match_id = match_of(scope.get("path", "")) if scope["type"] in ("http", "websocket") else None
        if match_id is None or self.service.owns(match_id):
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
            base = None if relayed else self._owners.get(match_id)
            if base is None:
                owner = await self.service.owner_of(match_id)
                if owner is None or owner.id == self.cluster.id:
                    await self.service.adopt(match_id)  # a running match nobody owns: this process takes it
                    break
                if relayed or owner.url is None:
                    await self._moved(scope, receive, send, match_id)
                    return
                base = owner.url
                if len(self._owners) >= 10_000:  # a cache, not a record: start over rather than grow
                    self._owners.clear()
                self._owners[match_id] = base
            try:
                if scope["type"] == "websocket":
                    await self._socket(base, scope, receive, send)
                else:
                    await self._http(base, scope, body, send)
                return
            except _Unsent as exc:
                receive = prepending(exc.first, receive)
                self._lost(match_id, base, exc)
            except OwnerGone as exc:
                self._lost(match_id, base, exc)
            except _Retry:
                self._owners.pop(match_id, None)
            await asyncio.sleep(0.1)
        await self.app(scope, receive, send)

    def _lost(self, match_id: str, base: str, exc: BaseException) -> None:
        log.info("the owner of match %s cannot be reached (%s); looking again", match_id, exc)
        self._owners.pop(match_id, None)
        self.relay.forget(base)

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
                await self._http(found[0], scope, b"", send)
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
        body = (b'{"error":{"code":"store_unavailable","message":"match ' + match_id.encode()
                + b' is moving to another server process; try again shortly"}}')
        await send_json(send, 503, body, [(MOVED, b"1"), (b"retry-after", b"1")])

    async def _http(self, base: str, scope: Scope, body: bytes, send: Send) -> None:
        target = scope.get("raw_path") or scope["path"].encode()
        if scope.get("query_string"):
            target += b"?" + scope["query_string"]
        try:
            status, headers, answer = await self.relay.request(base, scope["method"], target.decode("latin-1"),
                                                               list(scope["headers"]), body)
        except OwnerGone:
            raise
        except ConnectionError as exc:  # sent, then the owner died: it may or may not have acted
            log.warning("relaying %s %s: %s", scope["method"], scope["path"], exc)
            self.relay.forget(base)
            self._owners.pop(match_of(scope["path"]) or "", None)
            status, headers = 503, [(b"content-type", b"application/json"), (b"retry-after", b"1")]
            answer = (b'{"error":{"code":"store_unavailable","message":"the server process holding this match'
                      b' stopped while answering; reload the view and try again"}}')
        else:
            if status == 503 and any(k.lower() == MOVED for k, _ in headers):
                raise _Retry()
        headers = [(k, v) for k, v in headers if k.lower() != MOVED] + [(b"content-length", str(len(answer)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": answer})

    async def _socket(self, base: str, scope: Scope, receive: Receive, send: Send) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake

        first = await receive()  # websocket.connect
        target = scope.get("raw_path") or scope["path"].encode()
        if scope.get("query_string"):
            target += b"?" + scope["query_string"]
        url = base.replace("http://", "ws://", 1).replace("https://", "wss://", 1) + target.decode("latin-1")
        keep = {b"authorization", b"cookie", b"x-forwarded-for", b"x-forwarded-proto", b"x-forwarded-host", b"origin"}
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"] if k.lower() in keep]
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

        tasks = [asyncio.ensure_future(down()), asyncio.ensure_future(up())]
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


class _Retry(Exception):
    """The process relayed to no longer owns the match: look the owner up again."""


class _Unsent(OwnerGone):
    """A socket's owner could not be reached; the client's opening message, to hand on."""

    def __init__(self, first: Message, exc: BaseException) -> None:
        super().__init__(repr(exc))
        self.first = first


__all__ = ["Cluster", "Owner", "Router", "match_of"]
