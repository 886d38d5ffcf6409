"""The server at a match's pace (#41 items 1, 4): the create-match request's ``pace``, what
every payload, summary and record says of it, extra time and the idle wait stretched by
it, and quiet hours and restarts charged to no one, on an injected clock."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest
from fastapi.testclient import TestClient

from blackwhite.engine.record import replay

from .fake_time import FakeTime, server, tick
from .matches import view

#: Tuesday 13 January 2026, 12:00 UTC (13:00 in Paris)
NOON = datetime(2026, 1, 13, 12, 0, tzinfo=timezone.utc).timestamp()
SLOW = {"kind": "slow", "action_hours": 2, "reserve_hours": 1,
        "quiet": {"from": "22:00", "to": "07:00", "tz": "Europe/Paris"}}


def create(client: TestClient, pace: Any = None, join: bool = True, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"game": "swapping", **extra}
    if pace is not None:
        body["pace"] = pace
    r = client.post("/api/matches", json=body)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    if join:
        for token in out["tokens"]["seats"]:
            view(client, out["id"], token)
    return out


def left(client: TestClient, m: dict[str, Any], seat: int = 0) -> float:
    c = view(client, m["id"], m["tokens"]["seats"][seat])["clocks"]["seats"][seat]
    return float(c["action_left"] + c["reserve_left"])


def test_the_pace_is_chosen_at_creation_and_said_everywhere(sqlite_url: str) -> None:
    now = FakeTime(NOON)
    with server(sqlite_url, now) as c:
        live = create(c)
        assert live["match"]["pace"] == {"kind": "live"}
        payload = view(c, live["id"], live["tokens"]["seats"][0])
        assert payload["pace"] == {"kind": "live"} and "quiet" not in payload["clocks"]
        assert payload["clocks"]["seats"][0]["action_left"] == 180.0

        scaled = create(c, {"kind": "scaled", "factor": 3})
        clocks = view(c, scaled["id"], scaled["tokens"]["seats"][0])["clocks"]
        assert clocks["seats"][0]["action_left"] == 540.0 and clocks["seats"][0]["reserve_left"] == 900.0

        slow = create(c, SLOW)
        assert slow["match"]["pace"] == SLOW
        payload = view(c, slow["id"], slow["tokens"]["seats"][1])
        assert payload["pace"] == SLOW and payload["clocks"]["quiet"] == {"now": False, "change_in": 9 * 3600.0}
        assert payload["clocks"]["seats"][1]["action_left"] == 7200.0
        listed = c.get("/api/matches", params={"token": slow["host_token"]}).json()
        assert {m["id"]: m["pace"] for m in listed}[slow["id"]] == SLOW
        # the record says it, and the referee reads it back
        c.post(f"/api/matches/{slow['id']}/actions", params={"token": slow["tokens"]["seats"][0]},
               json={"action": "resign", "version": payload["version"]}).raise_for_status()
        record = c.get(f"/api/matches/{slow['id']}/record", params={"token": slow["tokens"]["seats"][0]}).json()
        assert record["pace"] == SLOW
        assert replay(record).pace.to_json() == SLOW and replay(record).error is None
        ended = c.get(f"/api/matches/{slow['id']}", params={"token": slow["host_token"]}).json()
        assert ended["pace"] == SLOW


@pytest.mark.parametrize("pace, code, words", [
    ({"kind": "slow"}, "bad_pace", "pace.action_hours is required"),
    ({"kind": "scaled", "factor": 5000}, "bad_pace", "pace.factor must be from 0.1 to 1000"),
    ({"kind": "slow", "action_hours": 24, "quiet": {"from": "22:00", "to": "07:00", "tz": "Nowhere/Else"}},
     "bad_pace", "not a time zone"),
    ({"kind": "slow", "action_hours": 24, "quiet": {"from": "22:00", "to": "22:00", "tz": "UTC"}}, "bad_pace", "the same time"),
    ({"kind": "brisk"}, "bad_request", "kind"),
    ({"kind": "slow", "action_hours": "24"}, "bad_request", "action_hours"),
    ({"kind": "slow", "action_hours": 24, "weekends": True}, "bad_request", "weekends"),
])
def test_a_bad_pace_is_refused_and_creates_nothing(sqlite_url: str, pace: Any, code: str, words: str) -> None:
    with server(sqlite_url, FakeTime(NOON)) as c:
        host = create(c)["host_token"]
        r = c.post("/api/matches", json={"game": "swapping", "pace": pace}, params={"token": host})
        assert r.status_code == (422 if code == "bad_pace" else 400), r.text
        assert r.json()["error"]["code"] == code and words in r.json()["error"]["message"]
        assert len(c.get("/api/matches", params={"token": host}).json()) == 1


def test_extra_time_is_capped_by_the_pace_not_at_an_hour(sqlite_url: str) -> None:
    with server(sqlite_url, FakeTime(NOON)) as c:
        live = create(c)
        r = c.post(f"/api/matches/{live['id']}/time", params={"token": live["host_token"]}, json={"seat": 0, "seconds": 3601})
        assert r.status_code == 400 and "at most 3600 seconds" in r.json()["error"]["message"]
        slow = create(c, {"kind": "slow", "action_hours": 24})
        r = c.post(f"/api/matches/{slow['id']}/time", params={"token": slow["host_token"]}, json={"seat": 0, "seconds": 86400})
        assert r.status_code == 200 and r.json()["clocks"]["seats"][0]["reserve_left"] == 86400.0
        r = c.post(f"/api/matches/{slow['id']}/time", params={"token": slow["host_token"]}, json={"seat": 0, "seconds": 86401})
        assert r.status_code == 400 and "at most 86400 seconds" in r.json()["error"]["message"]


def test_a_slow_match_waits_longer_for_its_players(sqlite_url: str) -> None:
    """The idle wait (an hour by default) is one action's allowance at slow pace."""
    now = FakeTime(NOON)
    with server(sqlite_url, now) as c:
        live = create(c, join=False)
        slow = create(c, {"kind": "slow", "action_hours": 24}, join=False)
        now.t += 3601
        tick(c)
        status = {m["id"]: m["status"] for m in c.get("/api/matches", params={"token": live["host_token"]}).json()}
        assert status[live["id"]] == "cancelled"
        slow_status = c.get(f"/api/matches/{slow['id']}", params={"token": slow["host_token"]}).json()["status"]
        assert slow_status == "waiting"
        now.t = NOON + 24 * 3600 + 1
        tick(c)
        assert c.get(f"/api/matches/{slow['id']}", params={"token": slow["host_token"]}).json()["status"] == "cancelled"


def test_quiet_hours_pauses_and_a_crash_charge_no_one(sqlite_url: str) -> None:
    now = FakeTime(NOON + 7 * 3600)  # 20:00 in Paris: two hours before the night
    with server(sqlite_url, now) as c:
        m = create(c, SLOW)
        mid, host, seats = m["id"], m["host_token"], m["tokens"]["seats"]
        now.t += 3600  # 21:00
        assert left(c, m) == 3 * 3600 - 3600
        now.t += 3 * 3600  # midnight: only 22:00 counted
        tick(c)
        assert left(c, m) == 3600 and not view(c, mid, seats[0])["view"]["finished"]
        assert view(c, mid, seats[0])["clocks"]["quiet"]["now"] is True
        c.app.state.service.heartbeat()  # type: ignore[attr-defined]
        c.app.state.service.heartbeat = lambda: None  # type: ignore[attr-defined]  # a crash at midnight
    now.t = NOON + 20 * 3600  # 09:00 in Paris: the server is back; the night and its down time charged to no one
    with server(sqlite_url, now) as c:
        assert left(c, m) == 3600
        c.post(f"/api/matches/{mid}/pause", params={"token": host}).raise_for_status()
        now.t += 5 * 3600
        tick(c)
        assert left(c, m) == 3600
        c.post(f"/api/matches/{mid}/resume", params={"token": host}).raise_for_status()
        now.t += 3599
        tick(c)
        assert not view(c, mid, seats[0])["view"]["finished"]
        now.t += 1
        tick(c)
        assert view(c, mid, seats[0])["view"]["finished"]


def test_the_whole_matchs_hours_time_out_every_awaited_seat(sqlite_url: str) -> None:
    now = FakeTime(NOON)
    with server(sqlite_url, now) as c:
        m = create(c, {"kind": "slow", "action_hours": 24, "match_hours": 1}, game="grouping")
        mid, seats = m["id"], m["tokens"]["seats"]
        assert view(c, mid, seats[0])["clocks"]["match_left"] == 3600.0
        now.t += 3599
        tick(c)
        assert view(c, mid, seats[0])["status"] == "running"
        now.t += 1
        for _ in range(100):  # a bounded number of timeouts per look: a few ticks at most
            tick(c)
            if view(c, mid, seats[0])["status"] == "finished":
                break
        assert view(c, mid, seats[0])["status"] == "finished"
        record = c.get(f"/api/matches/{mid}/record", params={"token": seats[0]}).json()
        assert record["events"][-1]["action"] == "timeout" and replay(record).error is None


def test_the_host_gives_the_whole_match_more_hours(sqlite_url: str) -> None:
    with server(sqlite_url, FakeTime(NOON)) as c:
        m = create(c, {"kind": "slow", "action_hours": 24, "match_hours": 48})
        r = c.post(f"/api/matches/{m['id']}/time", params={"token": m["host_token"]}, json={"seat": None, "seconds": 86400})
        assert r.status_code == 200 and r.json()["clocks"]["match_left"] == 72 * 3600.0
        live = create(c)
        r = c.post(f"/api/matches/{live['id']}/time", params={"token": live["host_token"]}, json={"seat": None, "seconds": 60})
        assert r.status_code == 400 and "no hours for the whole match" in r.json()["error"]["message"]


@pytest.mark.parametrize("given, words", [
    ('{"kind": "slow", "action_hours": 24}', "This match runs at its host's pace, <b>slow: 24 h per action</b>"),
    ('{"kind": "slow"}', "pace.action_hours is required"),
    ("[" * 1999, "it is not a pace"),
    ("not json", "it is not a pace"),
])
def test_the_rules_page_says_a_matchs_pace_and_survives_a_bad_one(sqlite_url: str, given: str, words: str) -> None:
    with server(sqlite_url, FakeTime(NOON)) as c:
        page = c.get("/rules/swapping", params={"pace": given})
        assert page.status_code == 200 and words in page.text, page.text[:2000]


def test_the_replay_page_says_the_pace_a_record_was_played_at(sqlite_url: str) -> None:
    record = {"game": "swapping", "events": [{"seat": 0, "action": "timeout"}]}
    with server(sqlite_url, FakeTime(NOON)) as c:
        assert c.post("/replay/outline", json=record).json()["pace"] == "live: the game's own clock"
        record["pace"] = SLOW
        assert c.post("/replay/outline", json=record).json()["pace"] == (
            "slow: 2 h per action, 1 h reserve, clocks stop 22:00–07:00 Europe/Paris time")
        record["pace"] = {"kind": "slow"}
        bad = c.post("/replay/outline", json=record)
        assert bad.status_code == 422 and "pace.action_hours is required" in bad.json()["error"]["message"]


def test_a_look_of_the_clock_applies_a_bounded_number_of_timeouts(sqlite_url: str) -> None:
    """Once a slow match's own hours are spent every awaited seat is out at once, for ever:
    a yellow match of fifty rounds takes about a hundred and fifty timeouts to end, and one
    tick applies at most 64 of them, so the server's event loop runs between ticks."""
    now = FakeTime(NOON)
    with server(sqlite_url, now) as c:
        m = create(c, {"kind": "slow", "action_hours": 1, "match_hours": 0.25}, game="yellow")
        seat = m["tokens"]["seats"][0]
        now.t += 900
        ticks = 0
        while view(c, m["id"], seat)["status"] == "running":
            record_before = len(c.app.state.service.get(m["id"]).state.history)  # type: ignore[attr-defined]
            tick(c)
            ticks += 1
            played = len(c.app.state.service.get(m["id"]).state.history) - record_before  # type: ignore[attr-defined]
            timeouts = sum(1 for e in c.app.state.service.get(m["id"]).state.history[-played:]  # type: ignore[attr-defined]
                           if not hasattr(e, "kind")) if played else 0
            assert timeouts <= 64
            assert ticks < 20
        assert ticks >= 3


def test_a_players_waiting_list_gives_deadlines_on_the_matchs_calendar(sqlite_url: str) -> None:
    """Created at 20:30 in Paris with two hours to move and quiet nights from 22:00: at 21:00
    the move is due at 07:30 tomorrow, not at 22:30; a slow match not yet joined waits a
    day for its player."""
    now = FakeTime(NOON + 7.5 * 3600)  # 20:30 in Paris
    with server(sqlite_url, now) as c:
        h = c.app.state.service.owner_login("test")  # type: ignore[attr-defined]
        made = c.post("/api/players", json={"name": "Sally"}, headers={"Authorization": f"Bearer {h}"}).json()
        sally, token = made["player"]["id"], made["token"]
        pace = {"kind": "slow", "action_hours": 2, "quiet": {"from": "22:00", "to": "07:00", "tz": "Europe/Paris"}}
        playing = c.post("/api/matches", headers={"Authorization": f"Bearer {h}"}, json={
            "game": "swapping", "seats": [{"name": "A"}, {"player": sally}], "start": "now", "pace": pace}).json()["id"]
        invited = c.post("/api/matches", headers={"Authorization": f"Bearer {h}"}, json={
            "game": "swapping", "seats": [{"player": sally}, {"name": "B"}], "pace": {"kind": "slow", "action_hours": 24}}
        ).json()["id"]
        now.t += 1800  # 21:00 in Paris
        waiting = {w["id"]: w for w in c.get("/api/player/waiting", headers={"Authorization": f"Bearer {token}"}).json()}
        due = datetime(2026, 1, 14, 6, 30, tzinfo=timezone.utc).timestamp()  # 07:30 in Paris
        assert waiting[playing]["deadline"] == pytest.approx(due)
        assert waiting[invited]["deadline"] == pytest.approx(NOON + 7.5 * 3600 + 24 * 3600)
