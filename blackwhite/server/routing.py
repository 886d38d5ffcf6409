"""The ASGI router of several processes (docs/server.md, "Several processes"): a request
or socket about a match owned by another process is relayed there (HTTP through
:mod:`.relay`, sockets through :mod:`websockets`), so one process builds every view of a
match: per-audience versions, "commit, then broadcast" and the secrecy filter stay the
code of a single process.  A relay waits only while the owner's lease holds; a running
match whose owner cannot be reached is 503 ``owner_unavailable`` (a socket: 1012), never
"no such match"."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from typing import TYPE_CHECKING, Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import Refused
from .http import prepending, replaying, send_json, status_of
from .ownership import Owner
from .proxy import relay_headers
from .relay import HOP, RELAY_READ, OwnerGone, OwnerStuck, Relay

if TYPE_CHECKING:
    from .service import MatchService

log = logging.getLogger("blackwhite.server")

#: the header of a 503 that means "not mine (any more): look the owner up again"
MOVED = b"x-blackwhite-moved"
#: the header of a 503 whose request reached the owner, which stopped before answering: it
#: may or may not have been applied (every other 503 changed nothing).  A client repeats a
#: read at once and a write only after looking (the pages: a seat's view, static/bw.js)
UNSURE = b"x-blackwhite-unsure"
#: what a person's browser is told when a match's page cannot be served now: the page
#: reloads by itself (Refresh) once the match has an owner again
UNAVAILABLE_PAGE = (b"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                    b"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                    b"<title>One moment - blackwhite</title></head><body><main><h1>One moment</h1>"
                    b"<p role=\"status\">The server process holding this match cannot answer now (it is being"
                    b" taken over by another). This page reloads by itself in a moment.</p></main></body></html>")
#: a replay analysis job's state: its id starts with the id of the process running it
_JOB_PATH = re.compile(r"^/replay/analysis/([0-9a-f]{16})\.[0-9a-f]{1,64}$")
#: seconds without a heartbeat after which a process is taken for dead (it beats every second)
STALE = 5.0
#: how often a relayed request or socket looks whether its owner's lease still holds
WATCH_EVERY = 0.25
_MATCH_PATH = re.compile(r"^/(?:api/matches|ws/matches|play|watch|host|replay)/([A-Za-z0-9_-]{1,64})(?:/|$)")


def match_of(path: str) -> str | None:
    """The match a path is about (``/api/matches/ID/...``, ``/ws/matches/ID``, a page), or None."""
    found = _MATCH_PATH.match(path)
    if found is None or found.group(1) in ("outline", "step", "analysis"):
        return None
    return found.group(1)


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
            status = status_of(exc)
            if status == 503 and is_page(scope):
                await send_unavailable_page(send)
                return
            await send_json(send, status, exc.body(), [(b"retry-after", b"1")] if status == 503 else None)

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
        if is_page(scope):
            await send_unavailable_page(send)
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
            self.service.metrics.relays.labels("http", "unreachable").inc()
            raise
        except ConnectionError as exc:  # sent, then the owner died or got stuck: it may or may not have acted
            self.service.metrics.relays.labels("http", "lost").inc()
            log.warning("relaying %s %s: %s", scope["method"], scope["path"], exc)
            self._owners.pop(match_of(scope["path"]) or "", None)
            if is_page(scope):  # a page is a read: its browser reloads it
                await send_unavailable_page(send)
                return
            status, headers = 503, [(b"content-type", b"application/json"), (b"retry-after", b"1"), (UNSURE, b"1")]
            answer = (b'{"error":{"code":"owner_unavailable","message":"the server process holding this match'
                      b' stopped while answering; reload the view and try again"}}')
        else:
            moved = status == 503 and any(k.lower() == MOVED for k, _ in headers)
            self.service.metrics.relays.labels("http", "moved" if moved else "answered").inc()
            if moved:
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
            self.service.metrics.relays.labels("socket", "unreachable").inc()
            raise _Unsent(first, exc) from None
        self.service.metrics.relays.labels("socket", "opened").inc()
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


def is_page(scope: Scope) -> bool:
    """Whether a request is for a page a person's browser shows (``/play/ID``, ``/host/ID``...),
    not the API: a 503 is then a page that reloads itself, not JSON."""
    return scope["type"] == "http" and not str(scope.get("path", "")).startswith(("/api/", "/ws/"))


async def send_unavailable_page(send: Send) -> None:
    """503 for a match's page whose owner cannot answer now: a page that reloads itself."""
    await send({"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(UNAVAILABLE_PAGE)).encode()),
        (b"retry-after", b"1"), (b"refresh", b"2"), (b"cache-control", b"no-store"),
        (b"content-security-policy", b"default-src 'none'; base-uri 'none'; frame-ancestors 'none'"),
    ]})
    await send({"type": "http.response.body", "body": UNAVAILABLE_PAGE})


class _Retry(Exception):
    """The process relayed to no longer owns the match: look the owner up again."""


class _Unsent(OwnerGone):
    """A socket's owner could not be reached; the client's opening message, to hand on."""

    def __init__(self, first: Message, exc: BaseException) -> None:
        super().__init__(repr(exc))
        self.first = first


__all__ = ["MOVED", "UNSURE", "Router", "is_page", "match_of", "send_unavailable_page"]
