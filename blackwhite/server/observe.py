"""What an operator sees of a running server: structured logs, Prometheus metrics, and
the request and match each log line is about.

- Logs: every line has a timestamp (UTC), a level, the logger, and the request id and
  match id of the request it was written for (``-`` outside one); ``--log-json`` writes
  one JSON object a line instead, for a log collector.  A request's id is also its
  answer's ``x-request-id`` header, and an error body's ``request_id``.
- Metrics: one registry per server process (tests run several apps in one process),
  served at ``/metrics`` or on a port of its own (``--metrics-port``).
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import secrets
import sys
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from .service import MatchService

#: the request (and its match) the code now running serves; "-" outside one
REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")
MATCH_ID: contextvars.ContextVar[str] = contextvars.ContextVar("match_id", default="-")

#: a request id a client or proxy may hand in (``X-Request-ID``): short and plain, or a new one is made
_GIVEN_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class _Context(logging.Filter):
    """Adds the request and match ids to every record (a filter on the handler), and takes
    the ``hidden`` texts (the database password) out of its message and traceback."""

    def __init__(self, hidden: Iterable[str] = ()) -> None:
        super().__init__()
        self.hidden = sorted({h for h in hidden if h}, key=len, reverse=True)

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get()
        if not hasattr(record, "match_id"):
            record.match_id = MATCH_ID.get()
        if self.hidden:
            message = record.getMessage()
            if record.exc_info and not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            for secret in self.hidden:
                message = message.replace(secret, "***")
                if record.exc_text:
                    record.exc_text = record.exc_text.replace(secret, "***")
            record.msg, record.args = message, None
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, request_id, match_id (and the traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", "-"),
            "match_id": getattr(record, "match_id", "-"),
        }
        if record.exc_text:  # already written out (and any hidden text taken out of it)
            out["traceback"] = record.exc_text
        elif record.exc_info:
            out["traceback"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [request %(request_id)s, match %(match_id)s] %(message)s"


def configure_logging(json_lines: bool = False, level: str = "INFO", hidden: Iterable[str] = ()) -> logging.Handler:
    """Send blackwhite's log (and uvicorn's errors) to standard error, structured; the
    handler installed (replacing one installed before, so a second call does not double lines).
    ``hidden``: texts never written (the database password, the relay secret)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_Context(hidden))
    if json_lines:
        handler.setFormatter(JsonFormatter())
    else:
        formatter = logging.Formatter(TEXT_FORMAT, datefmt="%Y-%m-%dT%H:%M:%SZ")
        formatter.converter = time.gmtime
        handler.setFormatter(formatter)
    handler.set_name("blackwhite")
    for name in ("blackwhite", "uvicorn.error"):
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if h.get_name() == "blackwhite"]:
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.setLevel(level.upper())
        logger.propagate = False
    return handler


class RequestContext:
    """ASGI middleware, outermost: each request and socket gets a request id (its
    ``X-Request-ID`` if plain, else a fresh one) and its match id, for every log line
    written while it is served; the answer carries ``x-request-id``."""

    def __init__(self, app: ASGIApp, match_of: Callable[[str], str | None]) -> None:
        self.app = app
        self.match_of = match_of

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"x-request-id"), "")
        request_id = given if _GIVEN_ID.fullmatch(given) else secrets.token_hex(8)
        rid = REQUEST_ID.set(request_id)
        mid = MATCH_ID.set(self.match_of(str(scope.get("path", ""))) or "-")
        scope.setdefault("state", {})["request_id"] = request_id

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"x-request-id"]
                message = {**message, "headers": headers + [(b"x-request-id", request_id.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            REQUEST_ID.reset(rid)
            MATCH_ID.reset(mid)


class Metrics:
    """The server process's metrics, in a registry of its own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.matches_running = Gauge("blackwhite_matches_running", "Running matches this process holds in memory", registry=r)
        self.matches_owned = Gauge("blackwhite_matches_owned",
                                   "Matches this process owns (over PostgreSQL: holds the lock of)", registry=r)
        self.sockets = Gauge("blackwhite_sockets_open", "WebSockets this process pushes views to", registry=r)
        self.bot_queue = Gauge("blackwhite_bot_queue", "Bot decisions thinking or waiting for a worker", registry=r)
        self.actions = Counter("blackwhite_actions", "Seat actions committed (people, bots and timeouts)", registry=r)
        self.push_seconds = Histogram(
            "blackwhite_push_seconds", "From a view being queued for a socket to its being sent",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0), registry=r)
        self.relays = Counter("blackwhite_relays", "Requests and sockets relayed to the process owning their match",
                              ["kind", "outcome"], registry=r)
        self.store_errors = Counter("blackwhite_store_errors", "Database calls that failed (503 store_unavailable)",
                                    registry=r)
        self.takeovers = Counter("blackwhite_takeovers", "Matches this process took over from another", registry=r)

    def watch(self, service: MatchService) -> None:
        """Read the gauges from ``service`` whenever metrics are collected."""
        self.matches_running.set_function(lambda: sum(1 for m in service.matches.values() if m.status == "running"))
        self.matches_owned.set_function(lambda: sum(1 for mid in service.matches if service.owns(mid)))
        self.sockets.set_function(lambda: sum(len(m.subscribers) for m in service.matches.values()))
        self.bot_queue.set_function(lambda: sum(len(m.thinking) for m in service.matches.values()))
