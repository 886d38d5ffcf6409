"""A game whose own code raises (its rules' apply, a view, its legal actions) never takes
the server down: that match is paused with the error shown to its host, and every other
match goes on.  The broken game is a package planted for the test (tests/plugin_games.py)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from blackwhite.app import create_app
from tests.plugin_games import installed, plant

FAULTY = """
    from blackwhite.engine import GameEntry
    from blackwhite.games.swapping import Swapping, SwappingState

    #: what the test breaks: "apply", "view", "legal", "timeout"
    BREAK = set()

    class FaultyState(SwappingState):
        def check(self, seat, action):
            if "apply" in BREAK:
                raise RuntimeError("the designer's apply has a bug")
            super().check(seat, action)

        def _view(self, seat):
            if "view" in BREAK:
                raise ZeroDivisionError("the designer's view has a bug")
            return super()._view(seat)

        def timeout_action(self, seat):
            if "timeout" in BREAK:
                raise KeyError("the designer's timeout rule has a bug")
            return super().timeout_action(seat)

        def legal_actions(self, seat):
            if "legal" in BREAK:
                raise IndexError("the designer's legal actions have a bug")
            return super().legal_actions(seat)

    class Faulty(Swapping):
        id = "faulty"
        title = "Swapping with bugs switched on by the test"

        def new_initial_state(self):
            return FaultyState(self)

    ENTRY = GameEntry(id="faulty", rules="bw_test_faulty:Faulty")

    class Unstartable(Swapping):
        id = "unstartable"
        title = "A game whose first state cannot be made"

        def new_initial_state(self):
            raise RuntimeError("the designer's set-up has a bug")

    class Undescribed(Swapping):
        id = "undescribed"
        title = "A game whose clock rule cannot be read"

        def clock_rule(self):
            raise AttributeError("the designer's clock rule has a bug")

    UNSTARTABLE = GameEntry(id="unstartable", rules="bw_test_faulty:Unstartable")
    UNDESCRIBED = GameEntry(id="undescribed", rules="bw_test_faulty:Undescribed")
"""


class Clock:
    """The server's clock, moved on by the test."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(tmp_path: Path, clock: Clock) -> Iterator[TestClient]:
    plant(tmp_path / "plugins", "bw-test-faulty", {
        "faulty": "bw_test_faulty:ENTRY", "unstartable": "bw_test_faulty:UNSTARTABLE",
        "undescribed": "bw_test_faulty:UNDESCRIBED",
    }, {"bw_test_faulty.py": FAULTY})
    with installed(tmp_path / "plugins", ["bw_test_faulty"]):
        app = create_app(f"sqlite:///{tmp_path / 'bw.db'}", bot_workers=0, now=clock, clock_interval=None,
                         rate_limit=False)
        with TestClient(app) as c:
            yield c


def _breaks() -> set[str]:
    found: set[str] = sys.modules["bw_test_faulty"].BREAK
    return found


def _create(c: TestClient, game: str) -> dict[str, Any]:
    r = c.post("/api/matches", json={"game": game})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    for seat in out["tokens"]["seats"]:
        assert c.get(f"/api/matches/{out['id']}/view", params={"token": seat}).status_code == 200
    return out


def _act(c: TestClient, made: dict[str, Any], seat: int, text: str) -> Any:
    token = made["tokens"]["seats"][seat]
    version = c.get(f"/api/matches/{made['id']}/view", params={"token": token}).json()["version"]
    return c.post(f"/api/matches/{made['id']}/actions", params={"token": token},
                  json={"action": text, "version": version})


def _host_view(c: TestClient, made: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = c.get(f"/api/matches/{made['id']}/view", params={"token": made["host_token"]}).json()
    return out


def _paused(c: TestClient, made: dict[str, Any]) -> dict[str, Any]:
    for _ in range(100):
        view = _host_view(c, made)
        if view["status"] == "paused":
            return view
        time.sleep(0.02)
    raise AssertionError(f"match {made['id']} was not paused: {view}")


def test_an_apply_that_raises_pauses_its_match_tells_its_host_and_the_others_go_on(client: TestClient) -> None:
    broken, other = _create(client, "faulty"), _create(client, "swapping")
    _breaks().add("apply")
    r = _act(client, broken, 0, "place 8 0 3")
    assert r.status_code == 409 and r.json()["error"]["code"] == "game_fault", r.text
    assert "paused" in r.json()["error"]["message"] and "designer" not in r.json()["error"]["message"]
    view = _paused(client, broken)
    # the exception's message may hold secrets: only a host who sees every seat reads it
    assert view["fault"].startswith("the game's apply raised RuntimeError (its message is in the server's log")
    assert "designer" not in view["fault"]
    assert view["version"] == 0  # nothing was played
    seat_view = client.get(f"/api/matches/{broken['id']}/view", params={"token": broken["tokens"]["seats"][0]}).json()
    assert "fault" not in seat_view and seat_view["status"] == "paused"  # the details are the host's
    host_page = client.get(f"/host/{broken['id']}", params={"token": broken["host_token"]})
    assert host_page.status_code == 200 and 'id="game-fault" class="error" role="alert">The match is paused' in host_page.text
    listed = client.get("/api/matches", params={"token": broken["host_token"]})
    assert any(m.get("fault") for m in listed.json() if m["id"] == broken["id"]), listed.text
    # every other match goes on, and so does the server
    assert _act(client, other, 0, "place 8 0 3").status_code == 200
    assert client.get("/health").status_code == 200
    # fixed, the host resumes: the fault is gone and play goes on
    _breaks().clear()
    assert client.post(f"/api/matches/{broken['id']}/resume", params={"token": broken["host_token"]}).status_code == 200
    assert "fault" not in _host_view(client, broken)
    assert _act(client, broken, 0, "place 8 0 3").status_code == 200


def test_a_view_or_legal_actions_that_raise_pause_the_match_and_the_pages_still_answer(client: TestClient) -> None:
    broken, other = _create(client, "faulty"), _create(client, "swapping")
    _breaks().add("view")
    seat = client.get(f"/api/matches/{broken['id']}/view", params={"token": broken["tokens"]["seats"][0]})
    assert seat.status_code == 200
    assert seat.json()["view"]["fault"].startswith("The game failed to show this view")
    assert "my_row" not in seat.json()["view"]
    view = _paused(client, broken)
    assert view["fault"].startswith("the game's view of P1 raised ZeroDivisionError (")
    page = client.get(f"/play/{broken['id']}", params={"token": broken["tokens"]["seats"][1]})
    assert page.status_code == 200 and 'class="board generic"' in page.text
    assert _act(client, other, 0, "place 8 0 3").status_code == 200
    _breaks().clear()
    assert client.post(f"/api/matches/{broken['id']}/resume", params={"token": broken["host_token"]}).status_code == 200
    _breaks().add("legal")
    page = client.get(f"/play/{broken['id']}", params={"token": broken["tokens"]["seats"][0]})
    assert page.status_code == 200
    assert _paused(client, broken)["fault"].startswith("the game's legal actions of P1 raised IndexError")
    assert _act(client, other, 1, "place 8 0 3").status_code == 200


def test_a_timeout_rule_that_raises_pauses_the_match_once(client: TestClient, clock: Clock) -> None:
    broken, other = _create(client, "faulty"), _create(client, "swapping")
    _breaks().add("timeout")
    clock.ahead = 10_000.0  # every seat of every match is out of time
    client.portal.call(client.app.state.service.tick)  # type: ignore[attr-defined,union-attr]
    view = _paused(client, broken)
    assert view["fault"].startswith("the game's apply raised KeyError (")
    assert view["version"] == 0
    # the other match's clock applied its timeout as ever
    assert _host_view(client, other)["version"] > 0


def test_a_game_that_cannot_start_or_describe_itself_is_refused_and_left_out_not_the_rest(client: TestClient) -> None:
    r = client.post("/api/matches", json={"game": "unstartable"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "bad_game", r.text
    assert "failed to start a match (RuntimeError: the designer's set-up has a bug)" in r.json()["error"]["message"]
    listed = {g["id"] for g in client.get("/api/games").json()}
    assert "undescribed" not in listed and {"swapping", "faulty", "unstartable"} <= listed
    index = client.get("/")
    assert index.status_code == 200 and 'id="game-swapping"' in index.text and 'id="game-undescribed"' not in index.text
    _create(client, "swapping")


def test_a_host_who_sees_every_seat_reads_the_exceptions_message(client: TestClient) -> None:
    r = client.post("/api/matches", json={"game": "faulty", "host_sees_all": True})
    assert r.status_code == 201, r.text
    made = r.json()
    for seat in made["tokens"]["seats"]:
        client.get(f"/api/matches/{made['id']}/view", params={"token": seat})
    _breaks().add("apply")
    assert _act(client, made, 0, "place 8 0 3").json()["error"]["code"] == "game_fault"
    assert _paused(client, made)["fault"] == "the game's apply raised RuntimeError: the designer's apply has a bug"
