"""What the router answers when a match's owner cannot answer (#38, "No false 404"):
the API a JSON 503 ``owner_unavailable`` with Retry-After, marked ``x-blackwhite-unsure``
only when the request reached the owner and its answer was lost (it may have been
applied; every other 503 changed nothing); a match's page a 503 page that reloads itself
rather than JSON shown to a person.  The owner is a stand-in (no PostgreSQL needed)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from blackwhite.server.ownership import Owner
from blackwhite.server.relay import OwnerGone
from blackwhite.server.routing import UNSURE, Router


class _Relay:
    """Sends nothing (``unreachable``: OwnerGone) or loses the answer (ConnectionError)."""

    def __init__(self, lost: bool) -> None:
        self.lost = lost
        self.sent = 0

    async def request(self, *_args: Any) -> Any:
        self.sent += 1
        raise ConnectionError("the owner stopped while answering") if self.lost else OwnerGone("refused")


class _Service:
    """The few service calls the router makes: another live process owns every match."""

    def __init__(self, relay: _Relay) -> None:
        self.cluster = SimpleNamespace(id="me", secret="s" * 32)
        self.relay = relay
        self.metrics = SimpleNamespace(relays=SimpleNamespace(labels=lambda *_a: SimpleNamespace(inc=lambda: None)))

    def owns(self, _match_id: str) -> bool:
        return False

    async def owner_of(self, _match_id: str) -> Owner:
        return Owner("other", "http://127.0.0.1:9")

    def peer_alive(self, _process_id: str) -> bool:
        return True

    async def running(self, _match_id: str) -> bool:
        return True


async def _ask(router: Router, method: str, path: str) -> tuple[int, dict[bytes, bytes], bytes]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}" if method == "POST" else b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(b"host", b"test")], "client": ("127.0.0.1", 1)}
    await router(scope, receive, send)
    start = sent[0]
    return start["status"], {k.lower(): v for k, v in start["headers"]}, b"".join(m.get("body", b"") for m in sent[1:])


async def _app(_scope: Any, _receive: Any, _send: Any) -> None:
    raise AssertionError("answered locally: the match is another process's")


@pytest.mark.parametrize("lost", [False, True])
def test_the_api_gets_json_503_and_unsure_only_when_the_answer_was_lost(lost: bool) -> None:
    relay = _Relay(lost)
    router = Router(_app, _Service(relay))  # type: ignore[arg-type]
    status, headers, body = asyncio.run(_ask(router, "POST", "/api/matches/m1/actions"))
    assert status == 503 and headers[b"retry-after"] == b"1"
    assert b'"owner_unavailable"' in body and headers[b"content-type"] == b"application/json"
    assert (UNSURE in headers) == lost, headers
    assert relay.sent == (1 if lost else 3)  # an answer lost is not sent again by the router


@pytest.mark.parametrize("lost", [False, True])
@pytest.mark.parametrize("page", ["/play/m1", "/host/m1", "/watch/m1"])
def test_a_matchs_page_gets_a_page_that_reloads_itself(page: str, lost: bool) -> None:
    router = Router(_app, _Service(_Relay(lost)))  # type: ignore[arg-type]
    status, headers, body = asyncio.run(_ask(router, "GET", page))
    assert status == 503 and headers[b"content-type"].startswith(b"text/html")
    assert headers[b"refresh"] == b"2" and headers[b"retry-after"] == b"1"
    assert b"reloads by itself" in body and b"owner_unavailable" not in body
