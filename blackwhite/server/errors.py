"""The one error every route raises: an HTTP status, a snake_case code and a message.

Messages name the input and the rule; they are built only from what the caller sent
and from public facts, never from another seat's secrets.  What the caller sent may hold
text that UTF-8 cannot encode (a lone surrogate such as ``"\udc80"`` in JSON), so every
message is made encodable here, once, with such characters written as ``\udc80``.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A refused request: ``{"error": {"code": code, "message": message}}`` with ``status``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        message = encodable(message)
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


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
