"""What the match service refuses, as domain errors: a snake_case code and a message.

The service raises one of the :class:`Refused` kinds below before it changes anything;
which HTTP status (or WebSocket close code) says so is chosen at the edge, by
:mod:`blackwhite.server.http`, and the pages show the same status on an error page.

Messages name the input and the rule; they are built only from what the caller sent
and from public facts, never from another seat's secrets.  What the caller sent may hold
text that UTF-8 cannot encode (a lone surrogate such as ``"\udc80"`` in JSON), so every
message is made encodable here, once, with such characters written as ``\udc80``.
"""

from __future__ import annotations

from typing import Any


class Refused(Exception):
    """A refused request: ``{"error": {"code": code, "message": message}}``; nothing was changed."""

    def __init__(self, code: str, message: str) -> None:
        message = encodable(message)
        super().__init__(message)
        self.code = code
        self.message = message

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


class Unknown(Refused, LookupError):
    """No such match, host link or host (``unknown_match``, ``unknown_link``, ``unknown_host``)."""


class Unauthenticated(Refused):
    """The request carries no token at all (``missing_token``)."""


class NotPermitted(Refused):
    """The token is not one that may do this (``wrong_token``), or its link was revoked (``revoked``)."""


class WrongState(Refused):
    """The request is fine but the match is not in a state that allows it now: over,
    paused, not started, already started, not finished, a stale version, not your turn."""


class Invalid(Refused, ValueError):
    """What was sent breaks a rule: notation, an illegal action, a game, options, seats,
    a start or a co-host that cannot be."""


class Malformed(Refused, ValueError):
    """A value outside what the request may carry at all (``bad_request``)."""


class OverQuota(Refused):
    """An address already has as many anonymous running matches as it may (``too_many_matches``)."""


class StoreUnavailable(Refused):
    """The database cannot be reached or is locked (``store_unavailable``); nothing was
    committed, a retry may succeed."""


class OwnerUnavailable(StoreUnavailable):
    """The match exists but the server process that owns it cannot serve it now: it
    cannot be reached, is being taken over, or this process just found that another one
    took the match over (``owner_unavailable``).  Nothing was changed here; a retry
    shortly reaches whoever owns it then (HTTP 503 with Retry-After)."""


def encodable(text: str) -> str:
    """``text`` with whatever UTF-8 cannot encode (lone surrogates) written as a ``\\uXXXX`` escape."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def error_body(code: str, message: str) -> dict[str, Any]:
    """The JSON shape of every error (HTTP bodies and WebSocket ``error`` messages)."""
    return {"error": {"code": code, "message": encodable(message)}}
