"""Making matches through the API in-process (a ``TestClient``) and reading its answers,
for the server and page tests, and a live match straight from a record (the secrecy
twins' tests): one helper instead of a copy in each test module."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from blackwhite.server import clocks as clk
from blackwhite.server.service import LiveMatch, MatchService
from tests.twins import ViewOnly, replayed


@contextmanager
def served(url: str, **extra: Any) -> Iterator[TestClient]:
    """The whole app in-process over ``url``: no bot workers, clock loop or rate limit, so
    a test drives every step itself; ``extra`` goes to ``create_app``."""
    from blackwhite.app import create_app

    with TestClient(create_app(url, bot_workers=0, clock_interval=None, rate_limit=False, **extra)) as c:
        yield c


def service(c: TestClient) -> MatchService:
    """The match service of the app ``c`` runs."""
    svc: MatchService = c.app.state.service  # type: ignore[attr-defined]
    return svc


def host(c: TestClient) -> str:
    """A login link of the server's own host (made by the operator)."""
    return service(c).owner_login("test")


def bearer(token: str | None) -> dict[str, str]:
    """The headers that send ``token`` (none for no token)."""
    return {"Authorization": f"Bearer {token}"} if token else {}


def ok(r: Any, status: int = 200) -> Any:
    """The JSON body of an answer that must have ``status``."""
    assert r.status_code == status, r.text
    return r.json()


def view(client: TestClient, mid: str, token: str) -> dict[str, Any]:
    """What ``token`` sees of match ``mid`` (a seat's token opens its link)."""
    r = client.get(f"/api/matches/{mid}/view", params={"token": token})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def error(r: Any, status: int, code: str) -> str:
    """The message of an API error that must have ``status`` and ``code``: the body is the
    error alone, and it says something."""
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    message: str = body["error"]["message"]
    assert message
    return message


def create_match(c: TestClient, game: str = "swapping", token: str | None = None, join: bool = True,
                 **extra: Any) -> dict[str, Any]:
    """Create a match (as the host with ``token``, else with the server's open creation);
    ``join``: every seat opens its link at once, so the clocks start now."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = c.post("/api/matches", json={"game": game, **extra}, headers=headers)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    if join:
        for seat in out["tokens"]["seats"]:
            if seat:
                assert c.get(f"/api/matches/{out['id']}/view", params={"token": seat}).status_code == 200
    return out


def live_of_record(record: dict[str, Any], reader: str, *public: str, created: float = 0.0,
                   clock_at: float = 0.0) -> tuple[LiveMatch, list[str]]:
    """Match ``M1`` at the end of ``record`` (finished or running, clocks as at its start)
    and its seats' names; its state is a :class:`~tests.twins.ViewOnly` of ``reader``, so
    what is under test can read nothing but the views (and the ``public`` attributes)."""
    state = replayed(record)
    names = list(record.get("seats") or [f"P{s + 1}" for s in range(state.num_seats)])
    rule = state.game.clock_rule()
    live = LiveMatch(id="M1", game_id=record["game"], options={}, seats=[{"name": n} for n in names], host_hash="",
                     seat_hashes=[], spectator_hash="", host_sees_all=False,
                     status="finished" if state.is_over() else "running", seed=0, created=created,
                     state=ViewOnly(state, reader, *public), version=0,  # type: ignore[arg-type]
                     clocks=clk.initial(rule, state), clock_at=clock_at)
    return live, names
