"""A fair clock start: a match's clocks start when it is ready, not when it is created.

The service runs on a made-up wall clock (no sleeping): ``now.t += 100`` is a hundred
seconds in which nobody opened a link.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from blackwhite.server import clocks as clk

from .test_clocks import FakeTime, server, tick
from .test_clocks import view as look  # the view a token sees (a seat's token opens its link)
from .test_store import migrated_to

FULL = 180.0  # swapping's allowance for a placement; its reserve is 300 s


def make(c: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    r = c.post("/api/matches", json={"game": "swapping", **body})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def left(payload: dict[str, Any]) -> list[float]:
    return [s["action_left"] + s["reserve_left"] for s in payload["clocks"]["seats"]]


def act(c: TestClient, mid: str, token: str, action: str) -> Any:
    version = look(c, mid, token)["version"]
    return c.post(f"/api/matches/{mid}/actions", params={"token": token}, json={"action": action, "version": version})


def test_no_time_is_charged_until_every_person_has_opened_their_link(sqlite_url: str) -> None:
    now = FakeTime()
    with server(sqlite_url, now) as c:
        made = make(c, {"seats": [{"name": "Sally"}, {"name": "Maddie"}]})
        mid, host, (s0, s1) = made["id"], made["host_token"], made["tokens"]["seats"]
        spectator = made["tokens"]["spectator"]
        assert made["match"]["status"] == "waiting"
        now.t += 100
        tick(c)
        v = look(c, mid, host)  # neither the host's nor a spectator's look is a seat's
        assert v["status"] == "waiting" and v["waiting"] == "waiting for Sally and Maddie to join"
        assert v["start"] == {"policy": "when_joined", "at": None, "started": False, "waiting_for": [0, 1]}
        assert not v["clocks"]["started"] and left(v) == [FULL + 300, FULL + 300]
        assert look(c, mid, spectator)["waiting"] == "waiting for Sally and Maddie to join"
        now.t += 1000
        sally = look(c, mid, s0)  # Sally opens her link: Maddie is still awaited
        assert sally["waiting"] == "waiting for Maddie to join" and sally["start"]["waiting_for"] == [1]
        # nobody may act yet (a seat thinking while the other has not come is time off the clock)
        r = c.post(f"/api/matches/{mid}/actions", params={"token": s0},
                   json={"action": "place 8 0 3", "version": sally["version"]})
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_started"
        assert "waiting for Maddie to join" in r.json()["error"]["message"]
        now.t += 2000  # (all told under serve's --max-idle-wait of an hour, after which it is cancelled)
        tick(c)
        assert left(look(c, mid, host)) == [FULL + 300, FULL + 300]
        assert not look(c, mid, host)["view"]["finished"]
        # Maddie opens hers: the clocks start now, and run exactly as before
        maddie = look(c, mid, s1)
        assert maddie["status"] == "running" and maddie["waiting"] is None and maddie["clocks"]["started"]
        assert left(maddie) == [FULL + 300, FULL + 300]
        now.t += 30
        assert left(look(c, mid, s0)) == [pytest.approx(FULL + 270), pytest.approx(FULL + 270)]
        assert act(c, mid, s1, "place 1 2 3").status_code == 200
        now.t += 10
        v = look(c, mid, host)
        assert v["clocks"]["seats"][0]["action_left"] == pytest.approx(FULL - 40)
        assert not v["clocks"]["seats"][1]["awaited"]
        now.t += FULL - 40 + 300
        tick(c)
        done = look(c, mid, s0)
        assert done["status"] == "finished" and done["view"]["winner"] == 1  # timed out, as any match


def test_a_restart_before_everyone_joined_still_charges_nothing(sqlite_url: str) -> None:
    now = FakeTime()
    with server(sqlite_url, now) as c:
        made = make(c, {"seats": [{"name": "Sally"}, {"name": "Maddie"}]})
        mid, host, (s0, s1) = made["id"], made["host_token"], made["tokens"]["seats"]
        now.t += 60
        look(c, mid, s0)
        now.t += 60
        c.app.state.service.heartbeat()  # type: ignore[attr-defined]
        c.app.state.service.heartbeat = lambda: None  # type: ignore[attr-defined]  # then a crash
    now.t += 1200  # (all told under serve's --max-idle-wait of an hour, after which it is cancelled)
    with server(sqlite_url, now) as c:
        v = look(c, mid, host)
        assert v["status"] == "waiting" and v["waiting"] == "waiting for Maddie to join"
        assert left(v) == [FULL + 300, FULL + 300]
        now.t += 600
        tick(c)
        assert left(look(c, mid, host)) == [FULL + 300, FULL + 300]
    now.t += 1200
    with server(sqlite_url, now) as c:  # Sally's join was stored: Maddie's alone starts it
        assert left(look(c, mid, s1)) == [FULL + 300, FULL + 300]
        now.t += 12
        v = look(c, mid, host)
        assert v["status"] == "running" and left(v) == [pytest.approx(FULL + 288)] * 2


def test_a_watch_with_join_0_charges_nothing_and_a_plain_view_joins(sqlite_url: str) -> None:
    """A relay (the Discord bridge) watches each seat with ``join=0`` from the start: that
    must not count as the player coming, or the clocks would start before anyone looked."""
    now = FakeTime()
    with server(sqlite_url, now) as c:
        made = make(c, {"seats": [{"name": "Sally"}, {"name": "Maddie"}]})
        mid, host, (s0, s1) = made["id"], made["host_token"], made["tokens"]["seats"]
        with c.websocket_connect(f"/ws/matches/{mid}?token={s0}&join=0") as ws0, \
                c.websocket_connect(f"/ws/matches/{mid}?token={s1}&join=0&render=1") as ws1:
            first = ws0.receive_json()
            assert first["type"] == "view" and first["status"] == "waiting"
            assert first["start"]["waiting_for"] == [0, 1]
            assert ws1.receive_json()["legal"] == []  # the seat sees its view, and nothing to play yet
            for token in (s0, s1):
                r = c.get(f"/api/matches/{mid}/view", params={"token": token, "join": 0})
                assert r.status_code == 200 and r.json()["start"]["waiting_for"] == [0, 1]
            now.t += 1000
            tick(c)
            v = look(c, mid, host)
            assert v["status"] == "waiting" and v["waiting"] == "waiting for Sally and Maddie to join"
            assert left(v) == [FULL + 300, FULL + 300]
            look(c, mid, s0)  # Sally shows up: a plain view joins her
            pushed = ws1.receive_json()  # the watchers hear who is still awaited
            assert pushed["start"]["waiting_for"] == [1] and pushed["status"] == "waiting"
            now.t += 500
            r = c.get(f"/api/matches/{mid}/view", params={"token": s1, "join": "0"})
            assert r.json()["waiting"] == "waiting for Maddie to join"
            # an action with the seat's token joins first, as before: Maddie, the last to come,
            # starts the clocks with it, and it is played at once
            r = c.post(f"/api/matches/{mid}/actions", params={"token": s1},
                       json={"action": "place 1 2 3", "version": r.json()["version"]})
            assert r.status_code == 200, r.text
            v = look(c, mid, host)
            assert v["status"] == "running" and v["clocks"]["started"] and left(v)[0] == FULL + 300  # nothing charged
            now.t += 20
            assert left(look(c, mid, host))[0] == pytest.approx(FULL + 280)  # Sally's placement is awaited


def test_bots_are_ready_at_once_and_wait_for_the_person(sqlite_url: str) -> None:
    now = FakeTime()
    with server(sqlite_url, now) as c:
        bots = make(c, {"seats": [{"bot": "random"}, {"bot": "random"}], "paused": True})
        assert bots["match"]["start"]["started"] and bots["match"]["status"] == "paused"
        mixed = make(c, {"seats": [{"bot": "random"}, {"name": "Sally"}]})
        mid, host, sally = mixed["id"], mixed["host_token"], mixed["tokens"]["seats"][1]
        assert mixed["match"]["waiting"] == "waiting for Sally to join"
        time.sleep(0.3)  # the bot thinks in a thread: had it been asked, it would have answered
        assert look(c, mid, host)["version"] == 0
        look(c, mid, sally)
        deadline = time.monotonic() + 10
        while look(c, mid, sally)["version"] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert look(c, mid, sally)["version"] > 0  # the bot's secret placement moved her version on


def test_the_host_starts_by_hand_or_at_a_set_time(sqlite_url: str) -> None:
    now = FakeTime()
    with server(sqlite_url, now) as c:
        made = make(c, {})
        mid, host, (s0, s1) = made["id"], made["host_token"], made["tokens"]["seats"]
        for token in (s0, made["tokens"]["spectator"]):
            r = c.post(f"/api/matches/{mid}/start", params={"token": token})
            assert r.status_code == 403 and r.json()["error"]["code"] == "wrong_token"
        now.t += 50
        r = c.post(f"/api/matches/{mid}/start", params={"token": host})
        assert r.status_code == 200 and r.json()["status"] == "running"
        now.t += 20  # P1 and P2 never opened their links: a start by hand charges them anyway
        assert left(look(c, mid, host)) == [pytest.approx(FULL + 280)] * 2
        r = c.post(f"/api/matches/{mid}/start", params={"token": host})
        assert r.status_code == 409 and r.json()["error"]["code"] == "already_started"

        at = now.t + 600
        later = make(c, {"start": "at", "start_at": at})
        lid, lhost, lseat = later["id"], later["host_token"], later["tokens"]["seats"][0]
        assert later["match"]["start"] == {"policy": "at", "at": at, "started": False, "waiting_for": [0, 1]}
        assert look(c, lid, lhost)["waiting"].startswith("waiting for the start at ")
        look(c, lid, later["tokens"]["seats"][1])
        look(c, lid, lseat)  # everyone has joined, but an "at" match waits for its time
        now.t += 599
        tick(c)
        assert look(c, lid, lhost)["status"] == "waiting" and left(look(c, lid, lhost)) == [FULL + 300] * 2
        now.t += 1
        tick(c)
        now.t += 7
        v = look(c, lid, lseat)
        assert v["status"] == "running" and left(v) == [pytest.approx(FULL + 293)] * 2

        started_now = make(c, {"start": "now"})  # as matches were before: the clocks run from creation
        now.t += 5
        assert left(look(c, started_now["id"], started_now["host_token"])) == [pytest.approx(FULL + 295)] * 2


def test_start_options_are_checked(sqlite_url: str) -> None:
    now = FakeTime()
    with server(sqlite_url, now) as c:
        for body, code in [({"start": "soon"}, "bad_request"), ({"start": "at"}, "bad_start"),
                           ({"start": "now", "start_at": now.t}, "bad_start"),
                           ({"start": "at", "start_at": -1}, "bad_start"),
                           ({"start": "at", "start_at": "noon"}, "bad_request")]:
            r = c.post("/api/matches", json={"game": "swapping", **body})
            assert r.json()["error"]["code"] == code, (body, r.text)
        # a start time already past starts the match at once
        assert make(c, {"start": "at", "start_at": now.t - 1})["match"]["status"] == "running"


def test_a_database_from_before_the_fair_start_keeps_its_matches_running(sqlite_url: str) -> None:
    """Revision 0003 upgrades a stored database in place: its matches had started at creation."""
    engine = migrated_to(sqlite_url, "0002")
    readings = {"paused": False, "phase_seconds": FULL,
                "seats": [{"awaited": True, "action_left": FULL, "reserve_left": 300.0}] * 2}
    with engine.begin() as conn:
        conn.execute(text("insert into hosts values ('h', 1)"))
        conn.execute(text(
            "insert into matches (id, game, options, seats, host_hash, seat_hashes, spectator_hash, host_sees_all,"
            " status, paused, seed, created, version, clocks, clock_at) values ('old', 'swapping', '{}',"
            " '[{\"name\": \"A\"}, {\"name\": \"B\"}]', 'h', '[\"a\", \"b\"]', 's', 0, 'running', 0, 7, 1, 0,"
            " :clocks, 1)"), {"clocks": json.dumps(readings)})
    engine.dispose()
    now = FakeTime()
    with server(sqlite_url, now) as c:
        match = c.app.state.service.get("old")  # type: ignore[attr-defined]
        assert match.started and match.start == "now" and match.public_status() == "running"
        charged = clk.charge(match.clocks, 10)
        assert charged.seats[0].action_left == pytest.approx(FULL - 10)
