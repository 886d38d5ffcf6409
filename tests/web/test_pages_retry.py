"""The pages ride out a takeover (#38): a 503 (``owner_unavailable``: nothing was
changed) is asked again after its Retry-After, and a socket closed with 1012 (the match
moved to another server process) reconnects; an action refused or lost with it is sent
again only when the seat's view shows it was not taken, so it is never taken twice.
The unavailable owner is played by Playwright's route interception in chromium."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer, wait_connected

UNAVAILABLE = json.dumps({"error": {"code": "owner_unavailable",
                                    "message": "match M is held by another server process; try again shortly"}})
SOCKET = re.compile(r".*/ws/matches/.*")


def _mover(live_server: LiveServer) -> tuple[dict[str, Any], int]:
    """A running swapping match and a seat that may act now."""
    made = live_server.create("swapping", [{"name": "Ann"}, {"name": "Bob"}], start="now")
    view = live_server.view(made["id"], made["tokens"]["seats"][0])
    return made, view["view"]["to_move"][0]


def _connected(ws: Any, sockets: list[Any]) -> tuple[Any, int]:
    """A page's socket routed by the test: the server's end of it (connected now), and
    its number among the match's sockets (0: the first)."""
    server = ws.connect_to_server()
    sockets.append(ws)
    return server, len(sockets) - 1


def _act_through(live_server: LiveServer, page: Any, route: Any) -> tuple[int, Any]:
    """Open the page of a seat that may act now, its sockets routed through ``route``, and
    send its first legal action: the view's version before it, and the action."""
    made, seat = _mover(live_server)
    page.route_web_socket(SOCKET, route)
    page.goto(made["pages"]["seats"][seat])
    wait_connected(page)
    before = page.evaluate("() => BW.payload().version")
    action = page.evaluate("() => BW.payload().legal[0]")
    page.evaluate("(a) => BW.send(a)", action)
    return before, action


def test_the_host_page_creates_a_match_through_a_503(live_server: LiveServer, page: Any) -> None:
    tried: list[str] = []

    def first_unavailable(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        tried.append(route.request.post_data or "")
        if len(tried) == 1:
            route.fulfill(status=503, headers={"Retry-After": "1", "Content-Type": "application/json"},
                          body=UNAVAILABLE)
        else:
            route.continue_()

    page.route(re.compile(r".*/api/matches$"), first_unavailable)
    page.goto(live_server.base_url + "/?token=" + live_server.host_token)
    page.check("#game-swapping")
    page.click("#create-button")
    page.wait_for_url(re.compile(r"/host/[^/?]+\?token="), timeout=15_000)
    assert len(tried) == 2 and tried[0] == tried[1]  # the same request, asked again
    wait_connected(page)


def test_an_action_refused_by_a_moving_owner_goes_again_after_the_1012(live_server: LiveServer, page: Any) -> None:
    """The owner lets the match go while a seat's action waits: the action is refused
    (owner_unavailable) and the socket closed with 1012.  The page reconnects and sends
    the action again; the player sees no error and the action is taken once."""
    sockets: list[Any] = []
    sent: list[tuple[int, dict[str, Any]]] = []

    def owner_moves_once(ws: Any) -> None:
        server, n = _connected(ws, sockets)

        def from_page(message: str | bytes) -> None:
            data = json.loads(message)
            if n == 0 and data.get("type") == "action":
                ws.send(json.dumps({"type": "error", **json.loads(UNAVAILABLE)}))
                ws.close(code=1012, reason="the match moved; reconnect")
                return
            sent.append((n, data))
            server.send(message)

        ws.on_message(from_page)

    before, action = _act_through(live_server, page, owner_moves_once)
    page.wait_for_function(f"() => BW.payload().version > {before}", timeout=15_000)
    assert len(sockets) == 2
    assert sent == [(1, {"type": "action", "action": action, "version": before})]
    assert page.inner_text("#action-error") == ""


def test_an_action_taken_before_the_1012_is_not_sent_twice(live_server: LiveServer, page: Any) -> None:
    """The socket closes (1012) after the owner took the action but before its ack came
    back: the reconnected page sees its view moved on and does not send it again."""
    sockets: list[Any] = []
    sent: list[tuple[int, dict[str, Any]]] = []

    def ack_lost_once(ws: Any) -> None:
        server, n = _connected(ws, sockets)

        def from_server(message: str | bytes) -> None:
            if n == 0 and json.loads(message).get("type") == "ack":
                ws.close(code=1012, reason="the match moved; reconnect")  # the ack never arrives
                return
            ws.send(message)

        def from_page(message: str | bytes) -> None:
            sent.append((n, json.loads(message)))
            server.send(message)

        server.on_message(from_server)
        ws.on_message(from_page)

    before, action = _act_through(live_server, page, ack_lost_once)
    page.wait_for_function("() => Number(document.body.dataset.drops || 0) > 0", timeout=15_000)
    wait_connected(page)
    page.wait_for_function(f"() => BW.payload().version > {before}", timeout=15_000)
    page.wait_for_timeout(2_500)  # a resend would have gone by now
    assert [s for s in sent if s[1].get("type") == "action"] == [(0, {"type": "action", "action": action,
                                                                      "version": before})]
    assert page.inner_text("#action-error") == ""


def _unsure_once(url: str, taken: bool, page: Any) -> list[str]:
    """Route the match's actions: the first answered 503 x-blackwhite-unsure (the owner
    stopped while answering), after handing it to the server when ``taken``; the rest
    pass.  The socket never opens, so the page acts through the REST endpoint."""
    seen: list[str] = []

    def unsure_once(route: Any) -> None:
        seen.append(route.request.post_data or "")
        if len(seen) > 1:
            route.continue_()
            return
        if taken:
            route.fetch()  # the owner took it; its answer is lost
        route.fulfill(status=503, headers={"Retry-After": "1", "Content-Type": "application/json",
                                           "X-Blackwhite-Unsure": "1"}, body=UNAVAILABLE)

    page.route_web_socket(SOCKET, lambda ws: ws.close(code=1012, reason="the match moved; reconnect"))
    page.route(re.compile(r".*/api/matches/[^/]+/actions$"), unsure_once)
    page.goto(url)
    return seen


@pytest.mark.parametrize("taken", [False, True])
def test_an_action_whose_answer_was_lost_goes_again_only_if_not_taken(live_server: LiveServer, page: Any,
                                                                      taken: bool) -> None:
    made, seat = _mover(live_server)
    seen = _unsure_once(made["pages"]["seats"][seat], taken, page)
    page.wait_for_function("() => BW.payload() && BW.payload().legal.length > 0")
    before = page.evaluate("() => BW.payload().version")
    action = page.evaluate("() => BW.payload().legal[0]")
    page.evaluate("(a) => BW.send(a)", action)
    token = made["tokens"]["seats"][seat]
    deadline = time.monotonic() + 15
    while live_server.view(made["id"], token)["version"] == before and time.monotonic() < deadline:
        time.sleep(0.2)
    page.wait_for_timeout(2_500)  # a second send, if any, has gone by now
    after = live_server.view(made["id"], token)["version"]
    assert after > before, "the action was lost"
    assert len(seen) == (1 if taken else 2), seen  # sent again only when the view showed it was not taken
    assert page.inner_text("#action-error") == ""


def test_a_page_whose_match_cannot_be_served_now_reloads_itself(tmp_path: Path) -> None:
    """A match page the server cannot serve now (503: its owner is being taken over, or
    the database is busy) says so and reloads itself; a wrong link is final."""
    from fastapi.testclient import TestClient

    from blackwhite.app import create_app
    from blackwhite.server.errors import OwnerUnavailable

    with TestClient(create_app(f"sqlite:///{tmp_path / 'bw.db'}", bot_workers=0, clock_interval=None,
                                       rate_limit=False)) as c:
        service = c.app.state.service  # type: ignore[attr-defined]

        async def unavailable(match_id: str) -> Any:
            raise OwnerUnavailable("owner_unavailable", f"match {match_id} is held by another server process")

        found, service.find = service.find, unavailable
        page = c.get("/play/m1", params={"token": "t"})
        assert page.status_code == 503 and page.headers["refresh"] == "2" and page.headers["retry-after"] == "1"
        assert "reloads by itself" in page.text
        service.find = found
        missing = c.get("/play/nope", params={"token": "t"})
        assert missing.status_code == 404 and "refresh" not in missing.headers
