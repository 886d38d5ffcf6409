"""A match's pace (engine/pace.py): reading it, the clock rule it gives, and its calendar
(quiet hours over daylight-saving changes), and records that carry it or not."""

from __future__ import annotations

import json
import random
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from blackwhite.cli import app
from blackwhite.engine import LIVE, ClockRule, Pace, PaceError, make_game
from blackwhite.engine.record import RecordError, load, record_pace, replay, to_record


def ts(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


NIGHT_PARIS = {"kind": "slow", "action_hours": 2, "quiet": {"from": "22:00", "to": "07:00", "tz": "Europe/Paris"}}


def test_a_pace_reads_back_as_it_was_written() -> None:
    for data in ({"kind": "live"}, {"kind": "scaled", "factor": 2.5},
                 {"kind": "slow", "action_hours": 24, "reserve_hours": 12, "match_hours": 48,
                  "quiet": {"from": "23:30", "to": "07:00", "tz": "America/New_York"}}):
        pace = Pace.from_json(data)
        assert pace.to_json() == data
        assert Pace.from_json(json.loads(json.dumps(pace.to_json()))) == pace
    assert Pace.from_json("live") is LIVE and Pace.from_json(None) is LIVE


@pytest.mark.parametrize("data, words", [
    ("slow", "\"live\" or an object"),
    (3, "an object with \"kind\""),
    ({"kind": "fast"}, "kind must be one of live, scaled, slow"),
    ({"kind": "scaled"}, "factor is required"),
    ({"kind": "scaled", "factor": 0}, "factor must be from 0.1 to 1000"),
    ({"kind": "scaled", "factor": True}, "factor must be a number"),
    ({"kind": "scaled", "factor": "2"}, "factor must be a number"),
    ({"kind": "scaled", "factor": 2, "action_hours": 3}, "no field 'action_hours'"),
    ({"kind": ["slow"]}, "kind must be one of"),
    ({"kind": {"slow": 1}}, "kind must be one of"),
    ({"kind": "scaled", "factor": 10**400}, "factor must be from 0.1 to 1000, got 100000000000..."),
    ({"kind": "scaled", "factor": -(10**20)}, "factor must be from 0.1 to 1000"),
    ({"kind": "live", "factor": 2}, "no field 'factor'"),
    ({"kind": "slow", "action_hours": 0.1}, "action_hours must be from 0.25 to 720"),
    ({"kind": "slow", "action_hours": 1e400}, "action_hours must be a number"),
    ({"kind": "slow", "action_hours": 24, "reserve_hours": -1}, "reserve_hours must be from 0"),
    ({"kind": "slow", "action_hours": 24, "match_hours": 0}, "match_hours must be from 0.25"),
    ({"kind": "slow", "action_hours": 24, "quiet": "nights"}, "quiet must be an object"),
    ({"kind": "slow", "action_hours": 24, "quiet": {"from": "25:00", "to": "07:00", "tz": "UTC"}}, "quiet.from must be a time"),
    ({"kind": "slow", "action_hours": 24, "quiet": {"from": "7:00", "to": "07:00", "tz": "UTC"}}, "the same time"),
    ({"kind": "slow", "action_hours": 24, "quiet": {"from": "01:00", "to": "23:00", "tz": "UTC"}}, "at most 20 hours"),
    ({"kind": "slow", "action_hours": 24, "quiet": {"from": "22:00", "to": "07:00", "tz": "Mars/Olympus"}}, "not a time zone"),
    ({"kind": "slow", "action_hours": 24, "quiet": {"from": "22:00", "to": "07:00", "tz": "../../etc/passwd"}}, "not a time zone"),
    ({"kind": "slow", "action_hours": 24, "quiet": {"from": "22:00", "to": "07:00"}}, "tz must name a time zone"),
    ({"kind": "slow", "action_hours": 24, "quiet": {"from": "22:00", "to": "07:00", "tz": "UTC", "days": 5}}, "no field 'days'"),
])
def test_a_bad_pace_is_refused_naming_the_field(data: object, words: str) -> None:
    with pytest.raises(PaceError, match=words.replace("(", r"\(").replace(".", r"\.")):
        Pace.from_json(data)


def test_the_pace_turns_the_games_clock_into_the_matchs() -> None:
    live = make_game("swapping").clock_rule()
    assert LIVE.rule(live) == live
    scaled = Pace.from_json({"kind": "scaled", "factor": 3}).rule(live)
    assert dict(scaled.per_action) == {"play": 540.0, "swap": 360.0} and scaled.reserve == 900.0
    slow = Pace.from_json({"kind": "slow", "action_hours": 24, "reserve_hours": 6}).rule(live)
    assert dict(slow.per_action) == {"action": 86400.0} and slow.reserve == 21600.0
    assert slow.seconds("play") == slow.seconds("swap") == 86400.0
    assert slow.describe() == "24 h per action, 6 h reserve; on timeout: the seat loses"
    assert slow.on_timeout == live.on_timeout == "the seat loses"
    assert Pace.from_json({"kind": "slow", "action_hours": 24}).rule(live).reserve == 0.0


def test_bounds_stretch_with_the_pace() -> None:
    assert LIVE.extra_time_cap() == 3600.0
    assert Pace.from_json({"kind": "scaled", "factor": 0.5}).extra_time_cap() == 3600.0
    assert Pace.from_json({"kind": "scaled", "factor": 4}).extra_time_cap() == 4 * 3600.0
    # at slow pace an hour's bound becomes one action's allowance
    assert Pace.from_json({"kind": "slow", "action_hours": 24}).extra_time_cap() == 24 * 3600.0
    assert Pace.from_json({"kind": "slow", "action_hours": 0.5}).stretch() == 1.0


def test_low_time_is_a_quarter_and_at_slow_pace_ten_minutes() -> None:
    assert LIVE.low_marks(180.0) == (45.0,)
    assert Pace.from_json({"kind": "slow", "action_hours": 24}).low_marks(86400.0) == (21600.0, 600.0)
    assert Pace.from_json({"kind": "slow", "action_hours": 0.5}).low_marks(1800.0) == (450.0,)


def test_without_quiet_hours_the_clock_runs_all_the_time() -> None:
    pace = Pace.from_json({"kind": "slow", "action_hours": 24})
    assert pace.running(1000.0, 1000.0 + 7200) == 7200
    assert pace.advance(1000.0, 86400) == 1000.0 + 86400
    assert pace.running(2000.0, 1000.0) == -1000.0  # a clock set back: charged nothing by the caller


def test_quiet_hours_stop_the_clock_every_night() -> None:
    pace = Pace.from_json(NIGHT_PARIS)  # Paris in January is UTC+1: quiet 21:00 to 06:00 UTC
    noon = ts("2026-01-10T12:00:00+00:00")
    assert pace.running(noon, noon + 86400) == 15 * 3600
    assert pace.advance(ts("2026-01-10T20:00:00+00:00"), 7200) == ts("2026-01-11T07:00:00+00:00")
    assert pace.advance(ts("2026-01-10T23:00:00+00:00"), 60) == ts("2026-01-11T06:01:00+00:00")
    assert pace.quiet_now(ts("2026-01-10T23:00:00+00:00"))
    assert not pace.quiet_now(ts("2026-01-10T20:59:00+00:00"))
    assert pace.quiet_state(ts("2026-01-10T20:59:00+00:00")) == (False, 60.0)
    assert pace.quiet_state(ts("2026-01-10T23:00:00+00:00")) == (True, 7 * 3600.0)
    assert Pace.from_json({"kind": "slow", "action_hours": 2}).quiet_state(0.0) is None
    # an allowance spent exactly as the night begins runs out then, not in the morning
    assert pace.advance(ts("2026-01-10T19:00:00+00:00"), 7200) == ts("2026-01-10T21:00:00+00:00")


@pytest.mark.parametrize("zone, spring, autumn", [
    ("Europe/Paris", "2026-03-28T12:00:00+00:00", "2026-10-24T12:00:00+00:00"),
    ("America/New_York", "2026-03-07T17:00:00+00:00", "2026-10-31T16:00:00+00:00"),
])
def test_a_daylight_saving_night_is_an_hour_shorter_or_longer(zone: str, spring: str, autumn: str) -> None:
    """Quiet 22:00 to 07:00 local: 9 hours on a usual night, 8 when the clocks go forward,
    10 when they go back; the day's playing time is exactly the rest."""
    pace = Pace.from_json({"kind": "slow", "action_hours": 2, "quiet": {"from": "22:00", "to": "07:00", "tz": zone}})
    assert pace.running(ts(spring), ts(spring) + 86400) == 16 * 3600
    assert pace.running(ts(autumn), ts(autumn) + 86400) == 14 * 3600
    before = ts(spring) - 7 * 86400
    assert pace.running(before, before + 86400) == 15 * 3600


def test_quiet_hours_inside_the_changed_hour() -> None:
    """Paris goes from 02:00 to 03:00 on 29 March 2026 (01:00 UTC) and back from 03:00 to
    02:00 on 25 October (01:00 UTC): a moment is quiet when the local clock then reads a
    time in the window, so 02:30-02:45 does not happen in spring and happens twice in autumn."""
    pace = Pace.from_json({"kind": "slow", "action_hours": 2, "quiet": {"from": "02:30", "to": "02:45", "tz": "Europe/Paris"}})
    spring = ts("2026-03-28T12:00:00+00:00")
    assert pace.running(spring, spring + 86400) == 86400
    autumn = ts("2026-10-24T12:00:00+00:00")
    assert pace.running(autumn, autumn + 86400) == 86400 - 30 * 60
    pace = Pace.from_json({"kind": "slow", "action_hours": 2, "quiet": {"from": "01:30", "to": "02:30", "tz": "Europe/Paris"}})
    assert pace.running(spring, spring + 86400) == 86400 - 30 * 60  # 01:30-02:00, then it is 03:00
    assert pace.running(autumn, autumn + 86400) == 86400 - 90 * 60  # 01:30-02:30 CEST, 02:00-02:30 CET


def test_advance_is_the_inverse_of_running() -> None:
    rng = random.Random(41)
    for zone in ("Europe/Paris", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"):
        pace = Pace.from_json({"kind": "slow", "action_hours": 2,
                               "quiet": {"from": f"{rng.randrange(24):02d}:{rng.randrange(60):02d}",
                                         "to": f"{rng.randrange(24):02d}:30", "tz": zone}})
        for _ in range(40):
            t0 = ts("2026-01-01T00:00:00+00:00") + rng.uniform(0, 365 * 86400)
            seconds = rng.uniform(0, 4 * 86400)
            t1 = pace.advance(t0, seconds)
            assert pace.running(t0, t1) == pytest.approx(seconds, abs=1e-6)
            assert not pace.quiet_now(t1 - 1e-2) or seconds < 1e-2


def test_a_record_may_name_its_pace_or_not() -> None:
    record = {"game": "swapping", "events": [{"seat": 0, "action": "timeout"}]}
    assert replay(record).pace is LIVE and record_pace(record) is LIVE
    record["pace"] = {"kind": "slow", "action_hours": 24}
    assert replay(record).pace == Pace("slow", action_hours=24.0)
    assert load(record).is_over()
    record["pace"] = {"kind": "slow", "action_hours": "a day"}
    with pytest.raises(RecordError, match="pace.action_hours must be a number") as info:
        replay(record)
    assert info.value.event is None


def test_to_record_writes_the_pace_it_is_given() -> None:
    state = make_game("swapping").new_initial_state()
    assert "pace" not in to_record(state)
    pace = Pace.from_json(NIGHT_PARIS)
    written = to_record(state, pace=pace)
    assert written["pace"] == NIGHT_PARIS
    assert replay(written).pace == pace


def test_the_referee_rules_at_the_records_pace() -> None:
    runner = CliRunner()
    record = {"game": "swapping", "pace": NIGHT_PARIS, "events": [{"seat": 0, "action": "timeout"}]}
    out = runner.invoke(app, ["referee", "--json", "-"], input=json.dumps(record))
    assert out.exit_code == 0, out.output
    answer = json.loads(out.output)
    assert answer["winner"] == 1 and answer["pace"] == NIGHT_PARIS
    assert answer["clock"]["per_action"] == {"action": 7200.0}
    text = runner.invoke(app, ["referee", "-"], input=json.dumps(record))
    assert "Pace: slow: 2 h per action, clocks stop 22:00–07:00 Europe/Paris time" in text.output
    # without a pace, or live (as a server writes every live match's record): exactly the outcome as before
    del record["pace"]
    plain = json.loads(runner.invoke(app, ["referee", "--json", "-"], input=json.dumps(record)).output)
    assert "pace" not in plain and "clock" not in plain
    record["pace"] = {"kind": "live"}
    assert json.loads(runner.invoke(app, ["referee", "--json", "-"], input=json.dumps(record)).output) == plain
    assert "Pace:" not in runner.invoke(app, ["referee", "-"], input=json.dumps(record)).output
    record["pace"] = {"kind": "scaled", "factor": 0}
    bad = runner.invoke(app, ["referee", "--json", "-"], input=json.dumps(record))
    assert bad.exit_code == 2
    assert json.loads(bad.output) == {"error": {"event": None, "message": "pace.factor must be from 0.1 to 1000, got 0"}}


def test_a_clock_rule_at_a_pace_reads_in_words() -> None:
    live = ClockRule({"action": 30.0})
    assert Pace.from_json({"kind": "scaled", "factor": 2}).describe(live) == "scaled: the game's clock × 2 (1 min per action)"
    assert Pace.from_json({"kind": "slow", "action_hours": 0.5, "reserve_hours": 12, "match_hours": 48}).describe() == (
        "slow: 30 min per action, 12 h reserve, 48 h for the whole match")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
    | st.sampled_from(["live", "scaled", "slow", "22:00", "07:00", "UTC", "Europe/Paris", "kind", "quiet"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["kind", "factor", "action_hours", "reserve_hours", "match_hours", "quiet", "from", "to", "tz", "x"]),
        inner, max_size=5),
    max_leaves=12)


@settings(max_examples=120, deadline=None)
@given(data=st.fixed_dictionaries({"kind": st.sampled_from(["live", "scaled", "slow"])}, optional={
    "factor": _JSON, "action_hours": _JSON, "reserve_hours": _JSON, "match_hours": _JSON, "quiet": _JSON}) | _JSON)
def test_any_json_is_a_pace_or_a_refusal_naming_it(data: object) -> None:
    try:
        pace = Pace.from_json(data)
    except PaceError as exc:
        assert str(exc).startswith("pace")
        return
    assert Pace.from_json(pace.to_json()) == pace
