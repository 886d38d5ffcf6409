"""Clock readings at a pace (server/clocks.py over engine/pace.py): pure functions on made-up times."""

from __future__ import annotations

from datetime import datetime

import pytest

from blackwhite.engine import ClockRule, Pace, make_game
from blackwhite.server import clocks as clk

LIVE_RULE = ClockRule({"play": 180.0, "swap": 120.0}, reserve=300.0)
NIGHTS = Pace.from_json({"kind": "slow", "action_hours": 2, "reserve_hours": 1,
                         "quiet": {"from": "22:00", "to": "07:00", "tz": "Europe/Paris"}})


def ts(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def slow_clocks(pace: Pace = NIGHTS) -> clk.Clocks:
    state = make_game("swapping").new_initial_state()
    return clk.initial(pace.rule(state.game.clock_rule()), state, pace.match_seconds)


def test_a_slow_pace_gives_hours_per_action_and_its_reserve() -> None:
    c = slow_clocks()
    assert [(s.action_left, s.reserve_left) for s in c.seats] == [(7200.0, 3600.0)] * 2
    assert c.match_left is None and "match_left" not in c.to_json()


def test_quiet_hours_are_charged_to_no_one() -> None:
    c = slow_clocks()
    evening = ts("2026-01-10T20:00:00+00:00")  # 21:00 in Paris: an hour before the night
    morning = ts("2026-01-11T07:00:00+00:00")  # 08:00 in Paris: an hour after it
    charged = clk.charge_between(c, evening, morning, NIGHTS)
    assert charged.seats[0].action_left == pytest.approx(7200.0 - 2 * 3600)
    assert clk.charge_between(c, evening, morning, Pace()).seats[0].action_left == 0.0


def test_the_deadline_skips_the_night() -> None:
    c = slow_clocks()
    evening = ts("2026-01-10T20:00:00+00:00")
    # 3 hours of clock: one before the night, two after it (the night is 21:00-06:00 UTC)
    assert clk.next_deadline(c, evening, NIGHTS) == ts("2026-01-11T08:00:00+00:00")
    assert clk.seat_deadline(c, 1, evening, NIGHTS) == ts("2026-01-11T08:00:00+00:00")
    assert clk.next_deadline(c, evening) == evening + 3 * 3600  # live calendar: no night
    # the seat is out exactly then, and not a second before
    out = clk.charge_between(c, evening, ts("2026-01-11T08:00:00+00:00"), NIGHTS)
    assert clk.expired(out) == [0, 1]
    assert clk.expired(clk.charge_between(c, evening, ts("2026-01-11T07:59:59+00:00"), NIGHTS)) == []


def test_the_whole_matchs_time_runs_out_for_every_awaited_seat() -> None:
    pace = Pace.from_json({"kind": "slow", "action_hours": 2, "match_hours": 1})
    c = slow_clocks(pace)
    assert c.match_left == 3600.0 and c.to_json()["match_left"] == 3600.0
    assert clk.Clocks.from_json(c.to_json()) == c
    assert clk.next_deadline(c, 0.0, pace) == 3600.0
    half = clk.charge(c, 1800)
    assert half.match_left == 1800.0 and clk.expired(half) == []
    assert clk.expired(clk.charge(c, 3600)) == [0, 1]
    assert clk.charge(clk.set_paused(c, True), 3600).match_left == 3600.0  # a pause stops it too
    # a seat not awaited is not timed out by it
    idle = clk.Clocks((clk.SeatClock(True, 10.0, 0.0), clk.SeatClock(False, 0.0, 0.0)), match_left=0.0)
    assert clk.expired(idle) == [0]


def test_low_time_marks_for_notifications() -> None:
    c = slow_clocks(Pace.from_json({"kind": "slow", "action_hours": 2}))
    marks = clk.low_time_at(c, 0, 1000.0, 7200.0, Pace.from_json({"kind": "slow", "action_hours": 2}))
    assert marks == [(1800.0, 1000.0 + 5400.0), (600.0, 1000.0 + 6600.0)]
    spent = clk.charge(c, 6000)
    assert clk.low_time_at(spent, 0, 0.0, 7200.0, Pace.from_json({"kind": "slow", "action_hours": 2})) == [(600.0, 600.0)]
    live = clk.initial(LIVE_RULE, make_game("swapping").new_initial_state())
    assert clk.low_time_at(live, 0, 0.0, 480.0) == [(120.0, 360.0)]


def test_extra_time_is_capped_by_the_pace() -> None:
    c = slow_clocks()
    assert clk.add_time(c, 0, 86400, cap=NIGHTS.extra_time_cap() * 12).seats[0].reserve_left == 3600.0 + 86400
    with pytest.raises(ValueError, match="at most 3600 seconds"):
        clk.add_time(c, 0, 3601)
    assert clk.add_time(c, 0, 7200, cap=NIGHTS.extra_time_cap()).seats[0].reserve_left == 3600.0 + 7200


def test_the_host_may_give_the_whole_match_more_hours() -> None:
    pace = Pace.from_json({"kind": "slow", "action_hours": 2, "match_hours": 10})
    c = slow_clocks(pace)
    assert clk.add_time(c, None, 7200, cap=pace.extra_time_cap()).match_left == 12 * 3600
    with pytest.raises(ValueError, match="no hours for the whole match"):
        clk.add_time(slow_clocks(), None, 60, cap=7200)
