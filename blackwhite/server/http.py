"""The HTTP edge's choices for the service's refusals, shared by the API (app.py), the
request router of several processes (routing.py) and the pages (blackwhite.web).

The service says *what* was refused (:mod:`blackwhite.server.errors`); this module says
which status tells a client so, in one table.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import Message, Receive, Send

from . import errors
from .errors import Refused

#: the HTTP status of each kind of refusal
STATUS: dict[type[Refused], int] = {
    errors.Malformed: 400,
    errors.Unauthenticated: 401,
    errors.NotPermitted: 403,
    errors.Unknown: 404,
    errors.WrongState: 409,
    errors.Invalid: 422,
    errors.OverQuota: 429,
    errors.StoreUnavailable: 503,
}


def status_of(exc: Refused) -> int:
    """The HTTP status that answers ``exc`` (its nearest kind in :data:`STATUS`)."""
    for kind in type(exc).__mro__:
        if kind in STATUS:
            return STATUS[kind]
    raise TypeError(f"{type(exc).__name__} is a refusal without an HTTP status; add its kind to STATUS")


async def send_json(send: Send, status: int, body: dict[str, Any] | bytes,
                    extra: list[tuple[bytes, bytes]] | None = None) -> None:
    """Answer a raw ASGI request with a JSON body (middleware, before any route)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                            *(extra or [])]})
    await send({"type": "http.response.body", "body": data})


def prepending(first: Message, rest: Receive) -> Receive:
    """A receive channel that gives ``first`` (a message already read), then whatever
    ``rest`` gives (the client's next message, or its disconnect)."""
    given = False

    async def receive() -> Message:
        nonlocal given
        if not given:
            given = True
            return first
        return await rest()

    return receive


def replaying(body: bytes, rest: Receive) -> Receive:
    """The request's body, already read whole, then whatever ``rest`` gives."""
    return prepending({"type": "http.request", "body": body, "more_body": False}, rest)
