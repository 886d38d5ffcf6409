"""The server's clocks: pure readings, then the service driven by a made-up time (no sleeping)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from blackwhite.engine import ClockRule, make_game
from blackwhite.server import clocks as clk

from .fake_time import FakeTime, server, tick
from .matches import view

RULE = ClockRule({"play": 180.0, "swap": 120.0}, reserve=300.0)


def swapping_state() -> Any:
    return make_game("swapping").new_initial_state()


# --------------------------------------------------------------------------- pure functions


def test_initial_gives_awaited_seats_their_phase_allowance_and_everyone_the_reserve() -> None:
    c = clk.initial(RULE, swapping_state())
    assert [s.awaited for s in c.seats] == [True, True]
    assert [s.action_left for s in c.seats] == [180.0, 180.0]
    assert [s.reserve_left for s in c.seats] == [300.0, 300.0]
    assert c.phase_seconds == 180.0 and not c.paused


def test_charge_spends_the_allowance_first_then_the_reserve_and_never_below_zero() -> None:
    c = clk.initial(RULE, swapping_state())
    assert clk.charge(c, 100).seats[0] == clk.SeatClock(True, 80.0, 300.0)
    assert clk.charge(c, 200).seats[0] == clk.SeatClock(True, 0.0, 280.0)
    assert clk.charge(c, 10_000).seats[0] == clk.SeatClock(True, 0.0, 0.0)
    assert clk.expired(clk.charge(c, 480)) == [0, 1]
    assert clk.expired(clk.charge(c, 479)) == []


def test_paused_or_backwards_time_charges_nothing() -> None:
    c = clk.initial(RULE, swapping_state())
    assert clk.charge(clk.set_paused(c, True), 500) == clk.set_paused(c, True)
    assert clk.charge(c, -5) == c
    assert clk.expired(clk.set_paused(clk.charge(c, 1000), True)) == []
    assert clk.next_deadline(clk.set_paused(c, True), 0.0) is None


def test_a_seat_not_awaited_is_not_charged() -> None:
    c = clk.Clocks((clk.SeatClock(True, 10.0, 0.0), clk.SeatClock(False, 0.0, 50.0)))
    assert clk.charge(c, 5).seats[1] == clk.SeatClock(False, 0.0, 50.0)
    assert clk.next_deadline(c, 100.0) == 110.0


def test_after_event_keeps_a_waiting_seats_allowance_and_restarts_the_actor() -> None:
    state = swapping_state()
    c = clk.charge(clk.initial(RULE, state), 30)
    state.apply_text(0, "place 8 0 3")  # seat 0's secret part of a simultaneous step
    after = clk.after_event(c, RULE, state, {0, 1}, {0})
    assert after.seats[0] == clk.SeatClock(False, 0.0, 300.0)  # done: stops
    assert after.seats[1] == clk.SeatClock(True, 150.0, 300.0)  # still waited on: keeps what is left
    state.apply_text(1, "place 1 2 3")
    again = clk.after_event(clk.charge(after, 10), RULE, state, {1}, {1})
    assert all(s.awaited for s in again.seats)
    assert [s.action_left for s in again.seats] == [180.0, 180.0]  # a new step: fresh allowances


def test_add_time_goes_to_the_reserve_within_bounds() -> None:
    c = clk.initial(RULE, swapping_state())
    assert clk.add_time(c, 1, 60).seats[1].reserve_left == 360.0
    for seat, seconds in [(2, 10), (-1, 10), (0, 0), (0, 3601), (0, -3)]:
        with pytest.raises(ValueError):
            clk.add_time(c, seat, seconds)


def test_readings_round_trip_through_json() -> None:
    c = clk.charge(clk.initial(RULE, swapping_state()), 12.5)
    assert clk.Clocks.from_json(c.to_json()) == c
    with pytest.raises(ValueError, match="malformed clock readings"):
        clk.Clocks.from_json({"seats": [{"awaited": True}]})


# --------------------------------------------------------------------------- the service on a fake clock


def create(client: TestClient, game: str = "swapping", join: bool = True, **extra: Any) -> dict[str, Any]:
    """Create a match; ``join``: every seat opens its link at once, so the clocks start now."""
    r = client.post("/api/matches", json={"game": game, **extra})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    if join:
        for token in out["tokens"]["seats"]:
            if token:
                view(client, out["id"], token)
    return out


def test_a_seat_that_runs_out_loses_by_the_servers_timeout(sqlite_url: str) -> None:
    now = FakeTime()
    with server(sqlite_url, now) as c:
        m = create(c)
        mid, seats = m["id"], m["tokens"]["seats"]
        v = view(c, mid, seats[1])
        c.post(f"/api/matches/{mid}/actions", json={"action": "place 1 2 3", "version": v["version"]},
               params={"token": seats[1]}).raise_for_status()
        now.t += 479.0
        tick(c)
        left = view(c, mid, seats[0])["clocks"]["seats"][0]
        assert left["awaited"] and left["action_left"] == 0 and left["reserve_left"] == pytest.approx(1.0)
        now.t += 1.0
        tick(c)
        v0 = view(c, mid, seats[0])
        assert v0["view"]["finished"] and v0["view"]["winner"] == 1 and v0["status"] == "finished"
        record = c.get(f"/api/matches/{mid}/record", params={"token": seats[0]}).json()
        assert record["events"][-1] == {"seat": 0, "action": "timeout"}


def test_a_timeout_that_plays_for_the_seat_keeps_the_match_going(sqlite_url: str) -> None:
    now = FakeTime()
    with server(sqlite_url, now) as c:
        m = create(c, "grouping")
        mid, seats = m["id"], m["tokens"]["seats"]
        before = view(c, mid, seats[0])
        waiting = before["view"]["to_move"]
        assert waiting
        now.t += 121.0  # longer than any grouping step allows; no reserve in grouping
        tick(c)
        after = view(c, mid, seats[0])
        assert not after["view"]["finished"] and after["version"] > before["version"]
        assert after["status"] == "running"


def test_pause_stops_the_clock_and_extra_time_extends_it(sqlite_url: str) -> None:
    now = FakeTime()
    with server(sqlite_url, now) as c:
        m = create(c)
        mid, host, seat0, seat1 = m["id"], m["host_token"], m["tokens"]["seats"][0], m["tokens"]["seats"][1]
        c.post(f"/api/matches/{mid}/actions", json={"action": "place 1 2 3", "version": m["match"]["version"]},
               params={"token": seat1}).raise_for_status()
        now.t += 100
        assert c.post(f"/api/matches/{mid}/pause", params={"token": host}).json()["status"] == "paused"
        now.t += 10_000
        tick(c)
        v = view(c, mid, seat0)
        assert v["clocks"]["paused"] and v["clocks"]["seats"][0]["action_left"] == pytest.approx(80.0)
        assert not v["view"]["finished"]
        c.post(f"/api/matches/{mid}/resume", params={"token": host}).raise_for_status()
        r = c.post(f"/api/matches/{mid}/time", params={"token": host}, json={"seat": 0, "seconds": 60})
        assert r.status_code == 200 and r.json()["clocks"]["seats"][0]["reserve_left"] == pytest.approx(360.0)
        now.t += 80 + 359
        tick(c)
        assert not view(c, mid, seat0)["view"]["finished"]
        now.t += 1
        tick(c)
        assert view(c, mid, seat0)["view"]["finished"]


def test_a_match_created_paused_runs_no_clock_until_resumed(sqlite_url: str) -> None:
    now = FakeTime()
    with server(sqlite_url, now) as c:
        m = create(c, paused=True)
        assert m["match"]["status"] == "paused"
        mid, host, seat0 = m["id"], m["host_token"], m["tokens"]["seats"][0]
        now.t += 5000
        tick(c)
        assert view(c, mid, seat0)["clocks"]["seats"][0]["action_left"] == 180.0
        c.post(f"/api/matches/{mid}/resume", params={"token": host}).raise_for_status()
        now.t += 5
        assert view(c, mid, seat0)["clocks"]["seats"][0]["action_left"] == pytest.approx(175.0)


def test_after_a_restart_the_time_the_server_was_down_is_charged_to_no_one(sqlite_url: str) -> None:
    now = FakeTime()
    with server(sqlite_url, now) as c:
        m = create(c)
        mid, seats = m["id"], m["tokens"]["seats"]
        now.t += 30
        v = view(c, mid, seats[1])
        c.post(f"/api/matches/{mid}/actions", json={"action": "place 1 2 3", "version": v["version"]},
               params={"token": seats[1]}).raise_for_status()
        before = view(c, mid, seats[0])["clocks"]
    now.t += 7 * 24 * 3600  # a week down
    with server(sqlite_url, now) as c:
        after = view(c, mid, seats[0])["clocks"]
        assert after == before
        assert after["seats"][0]["action_left"] == pytest.approx(150.0)
        now.t += 20
        assert view(c, mid, seats[0])["clocks"]["seats"][0]["action_left"] == pytest.approx(130.0)


def test_after_a_crash_the_time_up_to_the_last_heartbeat_is_charged_and_no_more(sqlite_url: str) -> None:
    now = FakeTime()
    with server(sqlite_url, now) as c:
        m = create(c)
        mid, seats = m["id"], m["tokens"]["seats"]
        c.post(f"/api/matches/{mid}/actions", json={"action": "place 1 2 3", "version": m["match"]["version"]},
               params={"token": seats[1]}).raise_for_status()
        now.t += 20
        c.app.state.service.heartbeat()  # type: ignore[attr-defined]
        # a crash: no clean stop, so the heartbeat 20 s in is the last sign of life
        c.app.state.service.heartbeat = lambda: None  # type: ignore[attr-defined]
        now.t += 5
    now.t += 3600
    with server(sqlite_url, now) as c:
        left = view(c, mid, seats[0])["clocks"]["seats"][0]
        assert left["action_left"] == pytest.approx(160.0)  # 180 - the 20 s the server was up
    now.t += 3600
    with server(sqlite_url, now) as c:  # and a second restart charges nothing more
        assert view(c, mid, seats[0])["clocks"]["seats"][0]["action_left"] == pytest.approx(160.0)


def test_a_bot_thinks_within_the_limit_the_server_gives_not_its_spec_s_budget() -> None:
    """A 30 s spec in joust (30 s per action, no reserve) would lose every move on time;
    the server hands the worker half the seat's time left and the bot keeps to it."""
    import time as _time

    from blackwhite.engine import make_game
    from blackwhite.server.bots import decide

    state = make_game("swapping").new_initial_state()
    started = _time.monotonic()
    text = decide(state, 0, "ismcts:budget=30", "seed", out_of_time=started + 0.4)
    assert _time.monotonic() - started < 10  # loose: far below the 30 s the spec asks
    assert state.parse(0, text) in state.legal_actions(0)


def test_a_bots_limit_counts_from_when_it_starts_thinking_not_when_it_was_queued(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A decision queued behind other matches' bots thinks at most half of what its
    clock has left when it starts, and never more than the server's cap (#37 item 9)."""
    import time as _time

    import blackwhite.bots as bots_module
    from blackwhite.engine import make_game
    from blackwhite.server.bots import decide

    budgets: list[float] = []
    real = bots_module.decision_for

    def recording(state: Any, seat: int, rng: Any, budget: float) -> Any:
        budgets.append(budget)
        return real(state, seat, rng, 0.01)

    monkeypatch.setattr(bots_module, "decision_for", recording)
    state = make_game("swapping").new_initial_state()
    queued = _time.monotonic()
    out_of_time = queued + 2.0  # the seat had 2 s left when its decision was queued
    _time.sleep(1.0)  # ... and waited 1 s for a worker
    decide(state, 0, "ismcts:budget=30", "seed", out_of_time=out_of_time)
    assert budgets[-1] <= 0.51  # half of the 1 s left at the start, not half of the 2 s
    decide(state, 0, "ismcts:budget=30", "seed", out_of_time=_time.monotonic() + 100.0, cap=3.0)
    assert budgets[-1] == 3.0  # the server's cap, under the spec's 30 s


def test_after_a_stall_the_seat_that_ran_out_first_is_the_one_timed_out(sqlite_url: str) -> None:
    """Readings clamp at zero; when the server looks late, both seats read empty, and the
    one with less time at the last reading ran out first (it used to be seat 0)."""
    now = FakeTime()
    with server(sqlite_url, now) as c:
        m = create(c)
        mid, host = m["id"], m["host_token"]
        r = c.post(f"/api/matches/{mid}/time", params={"token": host}, json={"seat": 0, "seconds": 5})
        assert r.status_code == 200, r.text
        now.t += 495.0  # past P2's 480 s and P1's 485 s, with no look in between
        tick(c)
        v = view(c, mid, m["tokens"]["seats"][0])
        assert v["view"]["finished"] and v["view"]["winner"] == 0, v["view"]["log"][-2:]
