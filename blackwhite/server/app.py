"""The HTTP and WebSocket routes (FastAPI): a thin layer over :class:`MatchService`.

Every error is ``{"error": {"code", "message"}}`` with a 4xx status; a refused
request changes nothing.  Bodies over 64 KiB are refused before they are parsed, and
each token (or, without one, each client address) has a request budget.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import json
import logging
import secrets
import time
import urllib.parse
from typing import Annotated, Any, AsyncIterator, Callable, Literal, Optional, Sequence

from fastapi import FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..engine import Game, Pace, PaceError, make_game
from ..engine.pace import EXTRA_TIME_CAP, MAX_FACTOR
from ..engine.registry import game_ids
from ..tasks import stop_tasks
from .ownership import LEASE, Cluster
from .routing import Router, match_of
from . import notify_routes
from .errors import Invalid, OwnerUnavailable, Refused, Unknown, encodable, error_body
from .notify import Notifier, check_email
from .http import replaying, send_json, status_of
from .observe import REQUEST_ID, RequestContext
from .proxy import LOOPBACK, AllowedHosts, Forwarded, Network, trusted_networks
from .limits import Quotas, SocketBudget, client_key
from .players import PlayerService
from .players_api import install as install_players
from .seasons_api import install as install_seasons
from .service_hosts import PENDING_USES
from .service_seasons import SeasonService
from .service import ANONYMOUS_LIVE, KEEP_ENDED, MAX_ENDED, BoardRenderer, LiveMatch, MatchService, Role
from .store import Store, make_engine, migrate, token_hash

log = logging.getLogger("blackwhite.server")

MAX_BODY = 64 * 1024
#: the most extra time any pace allows at once (its own cap is checked by the service)
MAX_EXTRA_TIME = EXTRA_TIME_CAP * MAX_FACTOR
#: WebSocket messages a socket may send per second before it is closed (4429)
WS_FLOOD = 20

_STATUS_CODES = {404: "not_found", 405: "method_not_allowed", 413: "too_large", 429: "too_many_requests"}


# --------------------------------------------------------------------------- request bodies


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SeatIn(_Body):
    """A person (``name``) or a bot (``bot``: a spec such as ``ismcts:budget=2``)."""

    name: Optional[str] = Field(default=None, max_length=64)
    bot: Optional[str] = Field(default=None, max_length=200)
    #: a player the host made (its id): the seat is bound to it, and it plays from its own page, with no seat link
    player: Optional[str] = Field(default=None, max_length=32)
    #: where the server's mail tells this person's seat of its turns, low time and the end
    #: (a seat not bound to a player; needs ``--smtp-url``); never shown to anyone
    email: Optional[str] = Field(default=None, max_length=254)


class QuietIn(_Body):
    """Quiet hours of a slow pace: every day from ``from`` to ``to`` (``HH:MM``) by the
    clock of the time zone ``tz`` (an IANA name), the clocks stop."""

    from_: str = Field(alias="from", max_length=5)
    to: str = Field(max_length=5)
    tz: str = Field(max_length=64)


class PaceIn(_Body):
    """The match's pace (docs/server.md, "Pace"): ``live`` (the game's clock), ``scaled``
    (``factor`` times every allowance and the reserve), or ``slow`` (``action_hours`` per
    action, ``reserve_hours``, ``match_hours`` for the whole match, ``quiet`` hours)."""

    kind: Literal["live", "scaled", "slow"] = "live"
    factor: Optional[float] = Field(default=None, allow_inf_nan=False)
    action_hours: Optional[float] = Field(default=None, allow_inf_nan=False)
    reserve_hours: Optional[float] = Field(default=None, allow_inf_nan=False)
    match_hours: Optional[float] = Field(default=None, allow_inf_nan=False)
    quiet: Optional[QuietIn] = None

    def to_pace(self) -> Pace:
        """The engine's pace; :class:`PaceError` (422 ``bad_pace``) for a field out of bounds."""
        data = self.model_dump(exclude_none=True, by_alias=True)
        return Pace.from_json(data)


class CreateIn(_Body):
    game: str = Field(max_length=64)
    options: dict[str, Any] = Field(default_factory=dict)
    #: one entry per seat; left out: people named P1, P2...
    seats: Optional[list[SeatIn]] = Field(default=None, max_length=16)
    host_sees_all: bool = False
    #: create the match paused (no clock runs, bots wait) until the host resumes it
    paused: bool = False
    #: when the clocks start: once every person's seat has opened its link, at once, or at ``start_at``
    start: Literal["when_joined", "now", "at"] = "when_joined"
    #: the moment (Unix seconds) a ``start: "at"`` match starts
    start_at: Optional[float] = Field(default=None, allow_inf_nan=False)
    #: how long the clocks give (left out: live, the game's own clock)
    pace: PaceIn = Field(default_factory=PaceIn)


class ActionIn(_Body):
    action: str = Field(max_length=1000)
    version: int


class LinkIn(_Body):
    #: what the link is for, as the host's list of links shows it
    label: Optional[str] = Field(default=None, max_length=64)
    #: what it may do: ``owner`` (everything, links and co-hosts included), ``matches``
    #: (create and run matches only: for a bot or a co-organiser) or ``discord`` (the
    #: Discord bridge's: what ``matches`` may, and read and mark the Discord notices)
    scope: Literal["owner", "matches", "discord"] = "owner"
    #: seconds from now after which it logs in no more (left out: never)
    expires_in: Optional[float] = Field(default=None, gt=0, le=10 * 365 * 86400, allow_inf_nan=False)


class CohostIn(_Body):
    #: the co-host's host id (``GET /api/host`` shows a host its own)
    host: str = Field(max_length=32)


class TimeIn(_Body):
    #: the seat given time (to its reserve); null: the whole match's hours (a slow pace's ``match_hours``)
    seat: Optional[int]
    #: at most an hour at live pace; more at a slower one (``Pace.extra_time_cap``, checked by the service)
    seconds: float = Field(gt=0, le=MAX_EXTRA_TIME, allow_inf_nan=False)


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorOut(BaseModel):
    """Every refusal: ``{"error": {"code", "message"}}``."""

    error: ErrorDetail


#: the refusals any route may answer with, documented in the OpenAPI schema
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut, "description": text}
    for status, text in {
        400: "bad_json, bad_request, bad_host",
        401: "missing_token",
        403: "wrong_token, revoked, expired, scope",
        404: "unknown_match, unknown_link, unknown_host, unknown_player",
        409: "stale_version, not_your_turn, match_over, paused, not_started, already_started, not_finished, "
             "claimed, seat_taken, discord_taken",
        413: "too_large",
        422: "notation, illegal, bad_options, bad_game, bad_seats, bad_start, bad_cohost, bad_scope, "
             "bad_name, bad_email, bad_discord_id, bad_seat",
        429: "too_many_requests, too_many_players, too_many_matches",
    }.items()
}


# --------------------------------------------------------------------------- guards


class RateLimiter:
    """A token bucket per key (a token's hash, or a client address): ``rate`` per second, ``burst`` at once."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.buckets: dict[str, tuple[float, float]] = {}

    def allow(self, key: str, scale: float = 1.0) -> bool:
        """Take one request from ``key``'s bucket (``scale`` times the rate and burst), if any is left."""
        now = self.clock()
        burst = self.burst * scale
        level, last = self.buckets.get(key, (burst, now))
        level = min(burst, level + (now - last) * self.rate * scale)
        if len(self.buckets) > 50_000:  # forget idle keys rather than grow without end
            self.buckets = {k: v for k, v in self.buckets.items() if now - v[1] < 1.0}
            if len(self.buckets) > 25_000:  # a storm of fresh keys: start over rather than sweep each time
                self.buckets = {}
        if level < 1.0:
            self.buckets[key] = (level, now)
            return False
        self.buckets[key] = (level - 1.0, now)
        return True


def _token_from(headers: dict[str, str], query: str) -> str | None:
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    values = urllib.parse.parse_qs(query).get("token")
    return values[0] if values else None


def request_token(request: Request) -> str | None:
    """The token of a request: ``Authorization: Bearer`` first, else ``?token=``."""
    auth = request.headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip() or None
    return request.query_params.get("token") or None


class JSONOut(JSONResponse):
    """Every JSON answer: one UTF-8 cannot fail to encode.  Text a caller sent may hold a
    lone surrogate (``"\\udc80"`` is valid JSON); echoed back, it goes out as that
    escape instead of failing the response (a plain-text 500)."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.encode("utf-8", "backslashreplace")


class CatchAll:
    """ASGI middleware, outermost: a request whose handling raises gets a JSON 500,
    ``{"error": {"code": "internal", "message", "request_id"}}``, and the log line with
    the traceback names the same request id (the query string, which may carry a token,
    is not logged)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            request_id = REQUEST_ID.get() if REQUEST_ID.get() != "-" else secrets.token_hex(8)
            log.exception("internal error, request_id=%s: %s %r", request_id, scope.get("method"), scope.get("path"))
            if started:  # part of an answer is out: nothing more can be said on this connection
                return
            body = error_body("internal", f"the server failed to answer this request (request {request_id}, in its log)")
            body["error"]["request_id"] = request_id
            await send_json(send, 500, body, [(b"x-request-id", request_id.encode())])


class UsedLinks:
    """ASGI middleware, innermost: a link that expires unless used (the one a start prints)
    is used by a request only once the request is answered (a status below 400, or a
    socket's first message), before the answer goes out: a refused request changes
    nothing (:data:`~blackwhite.server.service_hosts.PENDING_USES`)."""

    def __init__(self, app: ASGIApp, service: MatchService) -> None:
        self.app = app
        self.service = service

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        pending: set[str] = set()

        async def sending(message: Message) -> None:
            kind = message["type"]
            if pending and kind in ("http.response.start", "websocket.send", "websocket.close"):
                answered = kind == "websocket.send" or (kind == "http.response.start" and message["status"] < 400)
                uses = set(pending)
                pending.clear()
                if answered:
                    try:
                        await self.service.hosts.settle_uses(uses)
                    except Exception:  # the answer is due all the same; the link may expire unused
                        log.warning("could not mark a used start link as used", exc_info=True)
            await send(message)

        reset = PENDING_USES.set(pending)
        try:
            await self.app(scope, receive, sending)
        finally:
            PENDING_USES.reset(reset)


class Guard:
    """ASGI middleware: the request budget (429) and the 64 KiB body limit (413), before any
    route; a WebSocket's handshake budget per address (4429), before the router looks up
    which process owns its match (several processes) and before any token is looked up."""

    def __init__(self, app: ASGIApp, limiter: RateLimiter | None, max_body: int = MAX_BODY,
                 large: tuple[str, int] = ("/replay/", 1024 * 1024), sockets: SocketBudget | None = None) -> None:
        self.app = app
        self.limiter = limiter
        self.sockets = sockets
        self.max_body = max_body
        #: (path prefix, limit): the replay page posts whole record files, larger than any API body
        self.large = large

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and self.sockets is not None:
            client = scope.get("client")
            if not self.sockets.handshake(client_key(client[0] if client else None)):
                if (await receive())["type"] == "websocket.connect":
                    await send({"type": "websocket.accept"})
                    await send({"type": "websocket.close", "code": 4429,
                                "reason": "too many connections from this address; wait a moment"})
                return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        token = _token_from(headers, scope.get("query_string", b"").decode("latin-1"))
        client = scope.get("client")
        address = "ip:" + client_key(client[0] if client else None)  # IPv6 by its /64
        key = "t:" + token_hash(token) if token else address
        # each token has a budget, and each address ten times one (made-up tokens are no way round it)
        if self.limiter is not None and not (self.limiter.allow(key) and self.limiter.allow("all:" + address, 10.0)):
            await send_json(send, 429, error_body(
                "too_many_requests", f"more than {self.limiter.rate:g} requests per second from this token or address; slow down"))
            return
        limit = self.large[1] if str(scope.get("path", "")).startswith(self.large[0]) else self.max_body
        declared = headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await send_json(send, 413, error_body(
                "too_large", f"the body ({declared} bytes) is over the limit of {limit} bytes"))
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await send_json(send, 413, error_body(
                    "too_large", f"the body is over the limit of {limit} bytes"))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body and "json" not in headers.get("content-type", ""):
            # the API speaks only JSON: read a body as JSON whatever it was labelled (curl -d)
            scope = dict(scope)
            scope["headers"] = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"content-type"]
            scope["headers"].append((b"content-type", b"application/json"))
        await self.app(scope, replaying(body, receive), send)


def seat_emails(seats: list[dict[str, Any]]) -> dict[int, str]:
    """Take each seat's ``email`` out of the seats (they are stored apart, never shown), checked."""
    out: dict[int, str] = {}
    for i, seat in enumerate(seats):
        email = seat.pop("email", None)
        if email is None:
            continue
        if "bot" in seat:
            raise Invalid("bad_seats", f"seat {i + 1} is a bot: a bot's seat has no email")
        try:
            out[i] = check_email(email)
        except ValueError as exc:
            raise Invalid("bad_seats", f"seat {i + 1}'s email: {exc}") from None
    return out


# --------------------------------------------------------------------------- the app


def open_service(
    db_url: str,
    *,
    bot_workers: int = 1,
    now: Callable[[], float] = time.time,
    keep_ended: float = KEEP_ENDED,
    max_ended: int = MAX_ENDED,
    anonymous_live: int = ANONYMOUS_LIVE,
    internal_url: str | None = None,
    boards: BoardRenderer | None = None,
    lease: float = LEASE,
    relay_secret: str | None = None,
    quotas: Quotas | None = None,
) -> MatchService:
    """The match service over the database at ``db_url`` (migrated to the newest schema
    first), its running matches loaded.  Over PostgreSQL it is one of possibly several
    processes (:class:`~blackwhite.server.ownership.Cluster`, whose lease lasts ``lease``
    seconds without a heartbeat; ``relay_secret``: what relayed requests carry, None: the
    one kept in the database); ``boards`` draws the boards
    of ``render`` payloads (see :func:`blackwhite.app.create_app`)."""
    engine = make_engine(db_url)
    migrate(engine)
    cluster = Cluster(engine, internal_url, lease, relay_secret) if engine.dialect.name == "postgresql" else None
    service = MatchService(Store(engine), now=now, bot_workers=bot_workers, keep_ended=keep_ended,
                           max_ended=max_ended, anonymous_live=anonymous_live, cluster=cluster, boards=boards,
                           quotas=quotas)
    service.load()
    return service


#: adds routes to the app before the API's own (the pages); returns what to close when the app stops
Extension = Callable[[FastAPI], Callable[[], None]]


def create_api(
    service: MatchService,
    *,
    rate: float = 50.0,
    burst: int = 200,
    rate_limit: bool = True,
    ws_flood: int = WS_FLOOD,
    clock_interval: float | None = 0.1,
    public: str | None = None,
    trusted: list[Network] | None = trusted_networks(LOOPBACK),
    hosts: frozenset[str] | None = None,
    metrics: bool = True,
    sockets: SocketBudget | None = None,
    extensions: Sequence[Extension] = (),
    notifier: Notifier | None = None,
) -> FastAPI:
    """The HTTP and WebSocket API over ``service`` (see :func:`blackwhite.app.create_app`,
    which assembles it with the pages, for what the options mean; ``public`` is the
    checked origin of ``public_url``, ``trusted`` the proxies of ``forwarded_allow_ips``,
    see :mod:`blackwhite.server.proxy`).  The app owns the
    service from then on: its lifespan sets the bots thinking and the clock ticking, and
    closes the service, its store and database engine at the end."""
    cluster = service.cluster
    engine = service.store.engine
    budget = sockets if sockets is not None else SocketBudget()
    #: seasons over the same matches (a season match's end writes its result to the ledger)
    seasons = SeasonService(service)
    closers: list[Callable[[], None]] = []

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        service.wake_bots()
        # what start-up built (modules, replayed matches) lives as long as the server: keep it
        # out of the collector's full sweeps, which otherwise pause every socket now and then
        gc.freeze()
        clock_task = asyncio.create_task(service.run_clock(clock_interval)) if clock_interval else None
        notify_task = asyncio.create_task(notifier.run()) if notifier is not None and clock_interval else None
        season_task = asyncio.create_task(seasons.run()) if clock_interval else None
        try:
            yield
        finally:
            # bounded: a loop that will not end is logged, and the server stops all the same
            await stop_tasks([clock_task, season_task, notify_task, *seasons.tasks()])
            if notifier is not None:
                notifier.close()
            for close in closers:
                close()
            await service.close()
            service.store.close()
            engine.dispose()

    app = FastAPI(
        title="blackwhite",
        summary="Live Black & White matches: secret-safe, clocked, durable.",
        lifespan=lifespan,
        responses=ERROR_RESPONSES,
        default_response_class=JSONOut,
        # /docs is the pages' own (blackwhite/web/routes.py): Swagger UI from the vendored
        # copy, not FastAPI's page, which loads it from a CDN and has no CSP; no ReDoc
        docs_url=None,
        redoc_url=None,
    )
    def openapi() -> dict[str, Any]:
        """FastAPI's schema plus how tokens are sent (so /docs has an Authorize button)."""
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
            schema.setdefault("components", {})["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer", "description": "a host, seat or spectator token"},
                "query": {"type": "apiKey", "in": "query", "name": "token", "description": "the same, as links carry it"},
            }
            schema["security"] = [{}, {"bearer": []}, {"query": []}]
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.state.service = service
    app.state.engine = engine
    app.state.public_url = public
    app.add_middleware(UsedLinks, service=service)  # innermost: it sees the answer the routes give
    if cluster is not None:  # inside the guard: a request is limited where it arrives, then relayed
        app.add_middleware(Router, service=service)
    app.add_middleware(Guard, limiter=RateLimiter(rate, burst) if rate_limit else None, sockets=budget)
    app.add_middleware(AllowedHosts, hosts=hosts)  # inside Forwarded: a trusted proxy's host is the one checked
    # outside the guard: it limits the real client; relayed requests name theirs with the cluster's secret
    app.add_middleware(Forwarded, trusted=trusted, secret=cluster.secret if cluster is not None else None)
    app.add_middleware(CatchAll)  # so it also catches what the guard raises
    app.add_middleware(RequestContext, match_of=match_of)  # outermost: every log line names its request and match

    # ----------------------------------------------------------- errors

    @app.exception_handler(Refused)
    async def _refused(_request: Request, exc: Refused) -> JSONOut:
        status = status_of(exc)  # a 503 changed nothing and may be repeated as it was, shortly
        return JSONOut(exc.body(), status_code=status, headers={"Retry-After": "1"} if status == 503 else None)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONOut:
        errors = exc.errors()
        raw = await request.body()
        if raw.strip():
            try:
                json.loads(raw)
            except ValueError as err:
                return JSONOut(error_body("bad_json", f"the body is not JSON: {err}"), 400)
        if any(e.get("type") == "json_invalid" for e in errors):
            detail = next(e for e in errors if e.get("type") == "json_invalid")
            ctx = detail.get("ctx") or {}
            return JSONOut(error_body("bad_json", f"the body is not JSON: {ctx.get('error', 'unreadable')}"), 400)
        parts = []
        for e in errors[:5]:
            where = ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body"
            parts.append(f"{where}: {e.get('msg', 'invalid')}")
        return JSONOut(error_body("bad_request", "; ".join(parts)), 400)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONOut:
        if exc.status_code == 400:  # FastAPI could not parse the body at all (nested too deep...)
            return JSONOut(error_body("bad_json", f"the body cannot be read as JSON: {exc.detail}"), 400)
        code = _STATUS_CODES.get(exc.status_code, "bad_request")
        return JSONOut(error_body(code, str(exc.detail)), exc.status_code, headers=exc.headers)

    # ----------------------------------------------------------- pages (blackwhite.app adds them)

    for extend in extensions:
        closers.append(extend(app))
    if notifier is not None:
        notify_routes.install(app, notifier)
    app.state.notifier = notifier

    @app.get("/health")
    async def health() -> dict[str, bool]:
        """Liveness: the process answers (restart it if not)."""
        return {"ok": True}

    @app.get("/ready")
    async def ready() -> JSONOut:
        """Readiness: the database answers, its schema is the newest, and this process
        accepts matches; 503 with the failing checks otherwise (take it out of rotation)."""
        checks = await service.readiness()
        ok = all(checks.values())
        return JSONOut({"ready": ok, "checks": checks}, status_code=200 if ok else 503)

    if metrics:
        @app.get("/metrics", include_in_schema=False)
        async def metrics_page(request: Request) -> Response:
            """This process's metrics in Prometheus's text format, to this machine only (the
            client as :class:`Forwarded` resolved it: through nginx, the player's address):
            a Prometheus elsewhere scrapes ``serve --metrics-port``."""
            if request.client is None or not _loopback(request.client.host):
                return JSONOut(error_body("not_found", "Not Found"), 404)
            return Response(generate_latest(service.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    # ----------------------------------------------------------- REST

    @app.get("/api/games")
    async def games() -> list[dict[str, Any]]:
        return _games()

    @app.post("/api/matches", status_code=201)
    async def create(body: CreateIn, request: Request) -> dict[str, Any]:
        try:
            pace = body.pace.to_pace()
        except PaceError as exc:
            raise Invalid("bad_pace", str(exc)) from None
        seats = [s.model_dump(exclude_none=True) for s in body.seats] if body.seats is not None else None
        if seats is None:
            seats = service.default_seats(body.game, body.options)
        emails = seat_emails(seats)
        made = await service.create(request_token(request), body.game, body.options, seats, body.host_sees_all,
                                    body.paused, body.start, body.start_at,
                                    address=request.client.host if request.client else "?", emails=emails,
                                    pace=pace)
        base = public or str(request.base_url).rstrip("/")
        mid = made.id

        def link(token: str | None) -> str:  # a person's seat always has a token
            return f"{base}/api/matches/{mid}/view?token={token}"

        def page(kind: str, token: str) -> str:
            return f"{base}/{kind}/{mid}?token={token}"

        seat_rows = list(zip(made.summary["seats"], made.seat_tokens))
        return {
            "id": mid,
            "host_token": made.host_token if made.new_host else None,
            "links": {
                "host": link(made.host_token),
                "spectator": link(made.spectator_token),
                "seats": [None if "bot" in seat or t is None else link(t) for seat, t in seat_rows],
            },
            # the browser pages of the same tokens (a bot's watch token opens its seat's page read-only)
            "pages": {
                "host": page("host", made.host_token),
                "spectator": page("watch", made.spectator_token),
                "seats": [None if t is None else page("play", t) for seat, t in seat_rows],
            },
            "tokens": {"spectator": made.spectator_token, "seats": made.seat_tokens},
            # per seat, the player bound to it (it plays from its own page: /me), or null
            "players": made.players,
            "match": made.summary,
        }

    @app.get("/api/matches")
    async def list_matches(request: Request) -> list[dict[str, Any]]:
        return await service.host_matches(request_token(request))

    @app.get("/api/matches/{match_id}")
    async def get_match(match_id: str, request: Request) -> dict[str, Any]:
        match = await service.find(match_id)
        return service.summary(match, await service.role_for(match, request_token(request)))

    @app.get("/api/matches/{match_id}/view")
    async def get_view(match_id: str, request: Request, render: bool = False, join: bool = True) -> dict[str, Any]:
        """The view payload; ``?render=1`` adds the board as HTML and a seat's legal actions (the pages);
        ``?join=0`` looks without joining (a relay watching for a player who has not come yet)."""
        match = await service.find(match_id)
        role = await service.role_for(match, request_token(request))
        if join:
            await service.join(match, role)
        return service.view_payload(match, role, render)

    @app.post("/api/matches/{match_id}/actions")
    async def post_action(match_id: str, body: ActionIn, request: Request) -> dict[str, Any]:
        return await service.submit(match_id, request_token(request), body.action, body.version)

    @app.post("/api/matches/{match_id}/cancel")
    async def cancel(match_id: str, request: Request) -> dict[str, Any]:
        return await service.cancel(match_id, request_token(request))

    @app.post("/api/matches/{match_id}/pause")
    async def pause(match_id: str, request: Request) -> dict[str, Any]:
        return await service.pause(match_id, request_token(request), True)

    @app.post("/api/matches/{match_id}/resume")
    async def resume(match_id: str, request: Request) -> dict[str, Any]:
        return await service.pause(match_id, request_token(request), False)

    @app.get("/api/host")
    async def host_info(request: Request) -> dict[str, Any]:
        """The token's host: its id (co-hosts are named by it) and its login links."""
        return await service.host_info(request_token(request))

    @app.post("/api/host/links", status_code=201)
    async def new_link(request: Request, body: Optional[LinkIn] = None) -> dict[str, Any]:
        """Another login link of the token's host; its token is shown only in this answer."""
        made = await service.new_link(request_token(request), body.label if body else None,
                                      body.scope if body else "owner", body.expires_in if body else None)
        made["link"] = (public or str(request.base_url).rstrip("/")) + "/?token=" + made["token"]
        return made

    @app.post("/api/host/links/{link_id}/revoke")
    async def revoke_link(link_id: str, request: Request) -> dict[str, Any]:
        """Revoke a login link of the token's host: it logs in no more (403 ``revoked``)."""
        return await service.revoke_link(request_token(request), link_id)

    @app.post("/api/matches/{match_id}/cohosts")
    async def add_cohost(match_id: str, body: CohostIn, request: Request) -> dict[str, Any]:
        """The match's owner names a co-host (by host id), who may then control the match."""
        return await service.set_cohost(match_id, request_token(request), body.host, True)

    @app.delete("/api/matches/{match_id}/cohosts/{host_id}")
    async def drop_cohost(match_id: str, host_id: str, request: Request) -> dict[str, Any]:
        return await service.set_cohost(match_id, request_token(request), host_id, False)

    @app.post("/api/matches/{match_id}/start")
    async def start(match_id: str, request: Request) -> dict[str, Any]:
        """The host starts the clocks of a match still waiting for its players (or its start time)."""
        return await service.start_now(match_id, request_token(request))

    @app.post("/api/matches/{match_id}/time")
    async def add_time(match_id: str, body: TimeIn, request: Request) -> dict[str, Any]:
        clocks = await service.add_time(match_id, request_token(request), body.seat, body.seconds)
        return {"clocks": clocks}

    @app.get("/api/matches/{match_id}/record")
    async def record(match_id: str, request: Request) -> dict[str, Any]:
        match = await service.find(match_id)
        return service.record(match, await service.role_for(match, request_token(request)))

    install_players(app, PlayerService(service), public)
    install_seasons(app, seasons)

    # ----------------------------------------------------------- WebSocket

    @app.websocket("/ws/matches/{match_id}")
    async def socket(websocket: WebSocket, match_id: str, token: Annotated[Optional[str], Query()] = None,
                     render: Annotated[bool, Query()] = False, join: Annotated[bool, Query()] = True) -> None:
        await websocket.accept()
        # the handshake budget was taken by the guard, before anything was looked up (the
        # router's owner lookup included): made-up tokens and match ids cost nothing beyond it
        address = client_key(websocket.client.host if websocket.client else None)
        if not budget.enter(address):
            await websocket.close(4429, f"this address has {budget.per_address} sockets open, the most it may")
            return
        try:
            await _serve_socket(websocket, match_id, token, render, join)
        finally:
            budget.leave(address)

    async def _serve_socket(websocket: WebSocket, match_id: str, token: str | None, render: bool, join: bool) -> None:
        if not token:  # browsers cannot set headers on a socket, other clients may
            auth = websocket.headers.get("authorization", "")
            token = auth[7:].strip() if auth[:7].lower() == "bearer " else None
        try:
            match = await service.find(match_id)
        except Refused as exc:
            unknown = isinstance(exc, Unknown)
            # 4404 only for a match that does not exist; a match whose server process cannot
            # be reached now is 1012, after which clients reconnect (docs/server.md)
            code = 4404 if unknown else 1012 if isinstance(exc, OwnerUnavailable) else 1013
            await websocket.close(code, "unknown match" if unknown else exc.code)
            return
        try:
            role = await service.role_for(match, token)
        except Refused:
            await websocket.close(4403, "token not valid for this match")
            return
        if role.kind == "spectator" and not budget.watch(match.id):
            await websocket.close(4429, f"match {match.id} has {budget.spectators} spectators' sockets open, "
                                        "the most it may; watch it later")
            return
        try:
            await _follow(websocket, match, role, token, render, join)
        finally:
            if role.kind == "spectator":
                budget.unwatch(match.id)

    async def _follow(websocket: WebSocket, match: LiveMatch, role: Role, token: str | None, render: bool,
                      join: bool) -> None:
        match_id = match.id
        rejoined = role.kind == "seat" and role.seat is not None and match.joined_seat(role.seat)
        if join:  # ?join=0: a relay watching for its player must not start the player's clock
            await service.join(match, role)
        sub = service.subscribe(match, role, render, token)
        if role.kind == "seat" and join:  # who comes and goes, for an operator (never a token)
            log.info("seat %s %s match %s (socket)", role.seat, "rejoined" if rejoined else "joined", match_id,
                     extra={"match_id": match_id})

        async def pump() -> None:
            while True:
                message = await sub.outbox.get()
                if message is None:
                    if sub.revoked:  # the token lost its rights to this match: nothing more for it
                        await websocket.close(4403, "this link no longer gives access to the match")
                    elif sub.lagging:
                        await websocket.close(1008, "too far behind; reconnect for the current view")
                    else:  # the match moved to another server process (docs/server.md)
                        await websocket.close(1012, "the match moved; reconnect")
                    return
                await websocket.send_text(message)
                waited = sub.waited()
                if waited is not None:
                    service.metrics.push_seconds.observe(waited)

        sender = asyncio.create_task(pump())
        arrivals: collections.deque[float] = collections.deque()
        try:
            while True:
                text = await _receive(websocket, sender)
                if text is None:
                    return
                moment = time.monotonic()
                arrivals.append(moment)
                while arrivals and moment - arrivals[0] > 1.0:
                    arrivals.popleft()
                if len(arrivals) > ws_flood:
                    await websocket.close(4429, f"more than {ws_flood} messages per second")
                    return
                sub.put(await _ws_message(service, match_id, token, role.kind, text))
        except WebSocketDisconnect:
            return
        finally:
            service.unsubscribe(match, sub)
            sender.cancel()
            if sender.done() and not sender.cancelled() and sender.exception() is not None:
                log.debug("socket of match %s closed: %r", match_id, sender.exception())

    return app


async def _receive(websocket: WebSocket, sender: asyncio.Task[None]) -> str | None:
    """The next text message, or None once the socket is closed (either side)."""
    receiving = asyncio.ensure_future(websocket.receive())
    done, _ = await asyncio.wait({receiving, sender}, return_when=asyncio.FIRST_COMPLETED)
    if receiving not in done:
        receiving.cancel()
        return None
    message = receiving.result()
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    if text is None:
        raw = message.get("bytes") or b""
        text = raw.decode("utf-8", "replace")
    return str(text)


async def _ws_message(service: MatchService, match_id: str, token: str | None, kind: str, text: str) -> dict[str, Any]:
    """The answer to one client message: an ``ack`` or an ``error`` (never a closed socket)."""
    if len(text) > MAX_BODY:
        return {"type": "error", **error_body("too_large", f"a message is at most {MAX_BODY} bytes")}
    try:
        msg = json.loads(text)
    except json.JSONDecodeError as exc:
        return {"type": "error", **error_body("bad_json", f"the message is not JSON: {exc.msg}")}
    except (ValueError, RecursionError):  # nested too deep for the parser, odd numbers...
        return {"type": "error", **error_body("bad_json", "the message cannot be read as JSON")}
    if not isinstance(msg, dict) or msg.get("type") != "action":
        return {"type": "error", **error_body("bad_request", 'a message is {"type": "action", "action": "...", "version": n}')}
    action, version = msg.get("action"), msg.get("version")
    if not isinstance(action, str) or len(action) > 1000 or not isinstance(version, int) or isinstance(version, bool):
        return {"type": "error", **error_body("bad_request", "'action' must be notation text and 'version' a whole number")}
    try:
        result = await service.submit(match_id, token, action, version, answer_view=False)
    except Refused as exc:
        return {"type": "error", **exc.body()}
    return {"type": "ack", "version": result["version"]}


def game_entry(game_id: str) -> tuple[Game, dict[str, Any]]:
    """A game, and how ``GET /api/games`` lists it: id, title, seats, options' defaults, clock."""
    game = make_game(game_id)
    rule = game.clock_rule()
    return game, {
        "id": game_id,
        "title": game.title,
        "num_seats": game.num_seats,
        "options": dict(game.options),
        "clock": {"per_action": dict(rule.per_action), "reserve": rule.reserve, "on_timeout": rule.on_timeout},
    }


def _games() -> list[dict[str, Any]]:
    """Every installed game as ``GET /api/games`` lists it; a game whose own code fails
    to describe itself is left out (logged), never the list."""
    out = []
    for gid in game_ids():
        try:
            out.append(game_entry(gid)[1])
        except Exception:
            log.exception("game %s cannot describe itself; it is not listed", gid)
    return out


def _loopback(address: str) -> bool:
    """Whether a (resolved) client address is this machine's own."""
    import ipaddress

    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False
