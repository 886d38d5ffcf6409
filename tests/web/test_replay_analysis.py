"""The replay page's background analysis: jobs, routes, event-to-step mapping, audiences.

The analysis is made cheap here (2 worlds, 3 candidates, no search) and runs on short
records; the worker is a real spawned process, as in ``blackwhite serve``.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from blackwhite.analysis import Settings
from blackwhite.app import create_app
from blackwhite.web.analysis_jobs import (
    ENV_CANDIDATES, ENV_WORLDS, AnalysisJobs, Busy, for_audience, job_key, settings_from_env, with_steps,
)
from blackwhite.web.replay import step_before, step_cuts

ROOT = Path(__file__).resolve().parents[2]
CHEAP = Settings(worlds=2, candidates=3, search=0)
#: settings at which :func:`slow_yellow`'s one decision takes minutes, whatever the machine
SLOW = Settings(worlds=40, candidates=3, search=0)


def example(game: str, events: int | None = None) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((ROOT / "examples" / f"{game}.json").read_text())
    if events is not None:
        record["events"] = record["events"][:events]
    return record


def slow_work(job: str, record: dict[str, Any], settings: Settings, max_seconds: float) -> dict[str, Any]:
    """A stand-in analysis that takes its time (to fill the queue)."""
    time.sleep(3)
    return {"seats": record.get("seats", []), "curves": [], "marks": [], "summaries": []}


def nice_work(job: str, record: dict[str, Any], settings: Settings, max_seconds: float) -> dict[str, Any]:
    """A stand-in analysis that reports how nice its worker process runs."""
    return {"seats": record.get("seats", []), "curves": [], "marks": [], "summaries": [], "nice": os.nice(0)}


def crashing_work(job: str, record: dict[str, Any], settings: Settings, max_seconds: float) -> dict[str, Any]:
    """A stand-in analysis whose worker process dies (as a killed or crashed worker does)."""
    os._exit(3)


def crash_on_crasher(job: str, record: dict[str, Any], settings: Settings, max_seconds: float) -> dict[str, Any]:
    """A stand-in analysis whose worker dies on a record whose first seat is ``crasher``
    (a hostile upload) and answers any other record quickly."""
    if record.get("seats", [None])[0] == "crasher":
        os._exit(3)
    time.sleep(0.3)
    return {"seats": record.get("seats", []), "curves": [], "marks": [], "summaries": []}


def slow_then_cheap(job: str, record: dict[str, Any], settings: Settings, max_seconds: float) -> dict[str, Any]:
    """The real analysis: at the slow settings for yellow (one decision of minutes), at
    :data:`CHEAP` ones for any other record (the job queued behind it finishes well within
    the limit on a loaded machine too, so only the slow one can run past it)."""
    from blackwhite.web.analysis_jobs import run_analysis

    return run_analysis(job, record, settings if record.get("game") == "yellow" else CHEAP, max_seconds)


def slow_yellow() -> dict[str, Any]:
    """A one-event yellow record whose single decision is slow to judge: with 45 garnets
    each, the first seat has over 20,000 legal actions and a rollout takes a long time
    (at :data:`SLOW` settings, minutes; at :data:`CHEAP` ones only about 6 s on an idle
    machine since yellow's engine got faster, too close to a 4 s limit to test it)."""
    from blackwhite.engine import load
    record: dict[str, Any] = {"format": "blackwhite-record/1", "game": "yellow", "options": {"garnets": [45, 45, 45]},
                              "seats": ["a", "b", "c"], "events": []}
    state = load(record)
    record["events"].append({"seat": 0, "action": state.format_action(state.legal_actions(0)[-1])})
    return record


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("analysis") / "web.db"
    app = create_app(f"sqlite:///{db}", bot_workers=0, clock_interval=None, rate_limit=False, analysis_settings=CHEAP)
    with TestClient(app) as test_client:
        yield test_client


def wait_done(client: TestClient, job: str, audience: str = "full", timeout: float = 180) -> list[dict[str, Any]]:
    """Poll a job until it is done or failed; every answer seen."""
    seen = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = client.get(f"/replay/analysis/{job}", params={"audience": audience})
        assert r.status_code == 200, r.text
        seen.append(r.json())
        if seen[-1]["state"] in ("done", "failed"):
            return seen
        time.sleep(0.2)
    raise AssertionError(f"job {job} did not finish in {timeout} s: {seen[-1]}")


# ---------------------------------------------------------------- the lifecycle


def test_a_job_runs_to_done_with_monotone_progress_and_a_chart(client: TestClient) -> None:
    record = example("swapping", 14)
    r = client.post("/replay/analysis", content=json.dumps(record))
    assert r.status_code == 202, r.text
    start = r.json()
    assert set(start) == {"job", "state", "done", "total"} and start["state"] in ("queued", "running")
    seen = wait_done(client, start["job"])
    final = seen[-1]
    assert final["state"] == "done", final
    dones = [s["done"] for s in seen]
    assert dones == sorted(dones)  # progress never goes back
    assert final["total"] == final["done"] == 14  # swapping: every event here is a decision
    assert all(s["done"] <= s["total"] for s in seen if s["total"] > 0)
    chart = final["chart"]
    assert chart["game"] == "swapping" and chart["finished"] is False and chart["steps"] == 15
    assert [c["seat"] for c in chart["curves"]] == [0, 1]
    for curve in chart["curves"]:
        assert len(curve["points"]) == 2 * 7  # before and after each of the seat's 7 decisions
        for point in curve["points"]:
            # no chance events in swapping: the step before event e is e, the step after it e + 1
            assert point["step"] == point["event"] + (point["kind"] == "after")
    for mark in chart["marks"]:
        assert mark["step"] == mark["event"] + 1 and mark["before_step"] == mark["event"]

    # the same record again (other key order and spacing): the same job, already done
    again = json.dumps(dict(reversed(list(record.items()))), indent=3)
    r2 = client.post("/replay/analysis", content=again)
    assert r2.status_code == 200 and r2.json()["job"] == start["job"] and r2.json()["state"] == "done"


def test_a_bad_record_is_refused_and_starts_nothing(client: TestClient) -> None:
    jobs: AnalysisJobs = client.app.state.replay_analysis  # type: ignore[attr-defined]
    before = jobs.pending(), len(jobs._jobs)
    bad = example("swapping", 6)
    bad["events"].insert(1, {"seat": 0, "action": "place 9 9 9"})
    for body in (json.dumps(bad), "not json", "[]", ""):
        r = client.post("/replay/analysis", content=body)
        assert r.status_code == 422, (body, r.text)
        assert r.json()["error"]["code"] == "bad_record"
    assert "event 1" in client.post("/replay/analysis", content=json.dumps(bad)).json()["error"]["message"]
    assert (jobs.pending(), len(jobs._jobs)) == before


def test_a_too_large_record_is_refused(client: TestClient) -> None:
    r = client.post("/replay/analysis", content=b" " * (1024 * 1024 + 1))
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"


def test_an_unknown_job_is_a_404(client: TestClient) -> None:
    r = client.get("/replay/analysis/" + "0" * 32)
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_job"
    r = client.get("/replay/analysis/" + "x" * 500)
    assert r.status_code == 404 and len(r.json()["error"]["message"]) < 200


def test_the_chart_as_a_seat_or_the_public_hides_the_other_seats_actions(client: TestClient) -> None:
    record = example("swapping", 14)
    job = client.post("/replay/analysis", content=json.dumps(record)).json()["job"]
    full = wait_done(client, job)[-1]["chart"]
    for audience, seat in (("0", 0), ("1", 1), ("public", None)):
        chart = client.get(f"/replay/analysis/{job}", params={"audience": audience}).json()["chart"]
        assert chart["curves"] == full["curves"] and chart["summaries"] == full["summaries"]
        assert len(chart["marks"]) == len(full["marks"])
        for mine, whole in zip(chart["marks"], full["marks"]):
            if whole["seat"] == seat:
                assert mine == whole
            else:
                assert mine["action"] is None and mine["best"] is None
                assert (mine["mark"], mine["loss"], mine["move"], mine["step"]) == (
                    whole["mark"], whole["loss"], whole["move"], whole["step"])
    for bad in ("2", "-1", "x", "²", "0 "):
        r = client.get(f"/replay/analysis/{job}", params={"audience": bad})
        assert r.status_code == 422 and r.json()["error"]["code"] == "bad_audience", bad


def test_for_audience_keeps_only_the_seats_own_action_texts() -> None:
    chart = {"seats": ["A", "B"], "curves": [], "summaries": [], "marks": [
        {"event": 3, "seat": 0, "move": 2, "action": "swap 3 8", "best": "swap 0 1", "mark": "mistake", "loss": 12.0},
        {"event": 4, "seat": 1, "move": 2, "action": "place 8 0 3", "best": "place 0 3 8", "mark": "blunder", "loss": 27.0},
    ]}
    as_0 = for_audience(chart, 0, full=False)
    assert as_0["marks"][0]["action"] == "swap 3 8" and as_0["marks"][1]["action"] is None
    assert "place" not in json.dumps(as_0)
    public = for_audience(chart, None, full=False)
    assert "swap" not in json.dumps(public) and "place" not in json.dumps(public)
    assert for_audience(chart, None, full=True) == chart
    assert chart["marks"][1]["action"] == "place 8 0 3"  # the stored chart is not changed


def test_a_running_stored_match_is_not_offered_for_analysis(client: TestClient) -> None:
    made = client.post("/api/matches", json={"game": "swapping", "seats": [{"name": "A"}, {"name": "B"}],
                                             "host_sees_all": True}).json()
    host = made["host_token"]
    page = client.get(f"/replay/{made['id']}", params={"token": host})
    assert page.status_code == 200 and 'id="bw-record"' in page.text  # the all-seeing host gets the record
    assert 'id="analyse"' not in page.text
    seat = made["tokens"]["seats"][0]
    client.get(f"/api/matches/{made['id']}/view", params={"token": made["tokens"]["seats"][1]})  # B joins too
    version = client.get(f"/api/matches/{made['id']}/view", params={"token": seat}).json()["version"]
    r = client.post(f"/api/matches/{made['id']}/actions", json={"action": "resign", "version": version},
                    headers={"Authorization": f"Bearer {seat}"})
    assert r.status_code < 300, r.text
    page = client.get(f"/replay/{made['id']}", params={"token": made["tokens"]["spectator"]})
    assert page.status_code == 200 and 'id="analyse"' in page.text
    assert 'id="analyse"' in client.get("/replay").text


# ---------------------------------------------------------------- the job pool


def test_the_queue_is_bounded_and_refuses_with_a_clear_error(client: TestClient) -> None:
    jobs = AnalysisJobs(CHEAP, max_pending=2, work=slow_work)
    try:
        first = jobs.submit(example("swapping", 2))
        jobs.submit(example("swapping", 3))
        assert jobs.submit(example("swapping", 2)) is first  # a repeat is no new job
        with pytest.raises(Busy, match="2 analyses are already waiting or running"):
            jobs.submit(example("swapping", 4))
        assert jobs.pending() == 2
    finally:
        jobs.close()

    # and through the route: 503 busy, with Retry-After
    app = client.app
    saved = app.state.replay_analysis  # type: ignore[attr-defined]
    app.state.replay_analysis = AnalysisJobs(CHEAP, max_pending=1, per_client=0,  # type: ignore[attr-defined]
                                             work=slow_work)
    try:
        assert client.post("/replay/analysis", content=json.dumps(example("swapping", 2))).status_code == 202
        r = client.post("/replay/analysis", content=json.dumps(example("swapping", 3)))
        assert r.status_code == 503 and r.json()["error"]["code"] == "busy" and r.headers["retry-after"]
    finally:
        app.state.replay_analysis.close()  # type: ignore[attr-defined]
        app.state.replay_analysis = saved  # type: ignore[attr-defined]


def _wait(jobs: AnalysisJobs, job_id: str, timeout: float = 120) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = jobs.get(job_id)
        assert job is not None
        if job.state in ("done", "failed"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not end")


def test_a_crashed_worker_fails_the_job_and_the_next_job_gets_a_new_worker() -> None:
    jobs = AnalysisJobs(CHEAP, work=crashing_work)
    try:
        job = _wait(jobs, jobs.submit(example("swapping", 2)).id)
        assert job.state == "failed" and "worker stopped" in job.error
        assert jobs.pending() == 0
        jobs.work = slow_work
        again = _wait(jobs, jobs.submit(example("swapping", 2)).id)  # a failed job is tried again
        assert again.state == "done"
    finally:
        jobs.close()


def test_a_job_past_its_time_limit_stops_with_a_reason() -> None:
    jobs = AnalysisJobs(CHEAP, max_seconds=1e-6, kill_grace=60)  # the worker stops itself first
    try:
        job = _wait(jobs, jobs.submit(example("swapping", 6)).id)
        assert job.state == "failed" and "took longer than" in job.error and "after 1 of 6 decisions" in job.error
    finally:
        jobs.close()


def test_finished_jobs_are_kept_up_to_the_bound() -> None:
    jobs = AnalysisJobs(CHEAP, keep=2, work=slow_work)
    try:
        ids = []
        for n in (2, 3, 4):
            ids.append(jobs.submit(example("swapping", n)).id)
            _wait(jobs, ids[-1])
        assert jobs.get(ids[0]) is None and jobs.get(ids[1]) is not None and jobs.get(ids[2]) is not None
    finally:
        jobs.close()


# ---------------------------------------------------------------- settings and keys


def test_settings_come_from_the_environment() -> None:
    assert settings_from_env({}) == Settings(worlds=8, search=0)
    assert settings_from_env({ENV_WORLDS: "2", ENV_CANDIDATES: " 3 "}) == Settings(worlds=2, candidates=3, search=0)
    with pytest.raises(ValueError, match=ENV_WORLDS):
        settings_from_env({ENV_WORLDS: "many"})
    with pytest.raises(ValueError, match="worlds must be at least 1"):
        settings_from_env({ENV_WORLDS: "0"})


def test_the_job_key_is_the_records_content_the_settings_and_the_salt() -> None:
    record = example("swapping", 6)
    salt = b"s" * 32
    shuffled = json.loads(json.dumps(dict(reversed(list(record.items())))))
    assert job_key(record, CHEAP, salt) == job_key(shuffled, CHEAP, salt)
    other = copy.deepcopy(record)
    other["events"].pop()
    assert job_key(other, CHEAP, salt) != job_key(record, CHEAP, salt)
    assert job_key(record, Settings(worlds=3, candidates=3, search=0), salt) != job_key(record, CHEAP, salt)
    assert job_key(record, CHEAP, b"t" * 32) != job_key(record, CHEAP, salt)


# ---------------------------------------------------------------- events to steps


def test_event_to_step_mapping_counted_by_hand() -> None:
    # joust's example: event 0 is the opening deal, events 1..39 seat events, 40 a deal,
    # 41..72 seat events, 73 a deal, then seat events again
    events = example("joust")["events"]
    assert [i for i, e in enumerate(events) if "chance" in e] == [0, 40, 73]
    cuts = step_cuts(events)
    assert cuts[:3] == [1, 2, 3]  # step 0 holds the deal; step 1 the first seat event
    assert cuts[39] == 41  # step 39: the 39th seat event (event 39) and the deal after it
    assert len(cuts) == 1 + len(events) - 3
    assert step_before(cuts, 1) == 0 and step_before(cuts, 39) == 38 and step_before(cuts, 41) == 39
    # seat events before 72: 39 + (41..71: 31) = 70; before 74: 71 (73 is a deal)
    assert step_before(cuts, 72) == 70 and step_before(cuts, 74) == 71
    chart = {"curves": [{"seat": 0, "name": "P1", "points": [
        {"event": 41, "win": 0.5, "kind": "before"}, {"event": 41, "win": 0.4, "kind": "after"},
        {"event": 72, "win": 0.4, "kind": "before"}, {"event": 72, "win": 0.2, "kind": "after"},
        {"event": 73, "win": 0.0, "kind": "outcome"}]}],
        "marks": [{"event": 72, "seat": 0, "move": 2, "action": "pass", "mark": "blunder", "loss": 20.5,
                   "win": 0.2, "best": "play 3", "best_win": 0.4}]}
    mapped = with_steps(chart, events)
    assert [p["step"] for p in mapped["curves"][0]["points"]] == [39, 40, 70, 71, len(cuts) - 1]
    assert mapped["marks"][0]["before_step"] == 70 and mapped["marks"][0]["step"] == 71
    assert mapped["steps"] == len(cuts)


def test_event_to_step_mapping_with_chance_between_seat_events() -> None:
    c, s = {"chance": "deal"}, {"seat": 0, "action": "x"}
    events = [c, c, s, s, c, c, s, c]
    assert step_cuts(events) == [2, 3, 6, 8]
    assert [step_before(step_cuts(events), e) for e in (2, 3, 6)] == [0, 1, 2]
    assert step_cuts([]) == [0] and step_before([0], 0) == 0


# ---------------------------------------------------------------- limits and hostile uploads


def _seen_running(jobs: AnalysisJobs, job_id: str, timeout: float = 120) -> float:
    """When ``job_id`` was first seen running (monotonic time)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = jobs.get(job_id)
        assert job is not None
        if job.state != "queued":
            return time.monotonic()
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} never started")


def test_a_single_decision_past_the_limit_is_ended_by_the_server_and_the_next_job_runs() -> None:
    # the limit must hold however long one decision takes: the worker itself checks the
    # clock only between decisions, so the server ends it
    jobs = AnalysisJobs(SLOW, max_seconds=4.0, work=slow_then_cheap)
    try:
        slow = jobs.submit(slow_yellow())
        queued = jobs.submit(example("swapping", 2))  # waits behind it, and must not pay for it
        started = _seen_running(jobs, slow.id)
        job = _wait(jobs, slow.id, timeout=40)
        took = time.monotonic() - started
        assert job.state == "failed" and "took longer than 4 s" in job.error and "stopped" in job.error, job.error
        assert took < 4.0 + 10, took  # within a few seconds of the limit
        assert jobs.pending() <= 1
        nxt = _wait(jobs, queued.id)
        assert nxt.state == "done", nxt.error
        assert jobs.submit(example("swapping", 3)).id != queued.id
    finally:
        jobs.close()


def test_a_dead_worker_fails_only_the_job_it_ran_and_the_queued_ones_run() -> None:
    jobs = AnalysisJobs(CHEAP, work=crash_on_crasher)
    try:
        hostile = example("swapping", 2)
        hostile["seats"] = ["crasher", "B"]
        first = jobs.submit(hostile)
        others = [jobs.submit(example("swapping", n)) for n in (3, 4, 5)]
        assert _wait(jobs, first.id).state == "failed" and "worker stopped" in first.error
        for job in others:
            ended = _wait(jobs, job.id)
            assert ended.state == "done", (ended.id, ended.error)
        assert jobs.pending() == 0
    finally:
        jobs.close()


def test_the_job_id_is_salted_per_server_so_a_guessed_record_cannot_be_checked() -> None:
    record = example("swapping", 6)
    canonical = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    unsalted = hashlib.sha256((canonical + "\n" + repr(CHEAP)).encode("utf-8")).hexdigest()
    one, two = AnalysisJobs(CHEAP, work=slow_work), AnalysisJobs(CHEAP, work=slow_work)
    try:
        job = one.submit(record)
        assert job.id not in unsalted and unsalted[:32] != job.id
        assert two.submit(copy.deepcopy(record)).id != job.id  # another server: another id
        assert one.submit(json.loads(json.dumps(dict(reversed(list(record.items())))))) is job  # still one job
        assert one.get(unsalted[:32]) is None
    finally:
        one.close()
        two.close()


def test_a_seat_audience_is_checked_against_the_seats_while_queued_or_running(client: TestClient) -> None:
    app = client.app
    saved = app.state.replay_analysis  # type: ignore[attr-defined]
    app.state.replay_analysis = AnalysisJobs(CHEAP, work=slow_work)  # type: ignore[attr-defined]
    try:
        job = client.post("/replay/analysis", content=json.dumps(example("swapping", 2))).json()["job"]
        for bad in ("2", "99", "999999"):
            r = client.get(f"/replay/analysis/{job}", params={"audience": bad})
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_audience", (bad, r.text)
        r = client.get(f"/replay/analysis/{job}", params={"audience": "1"})
        assert r.status_code == 200 and r.json()["state"] in ("queued", "running")
    finally:
        app.state.replay_analysis.close()  # type: ignore[attr-defined]
        app.state.replay_analysis = saved  # type: ignore[attr-defined]


def test_the_page_scales_worlds_by_game_unless_they_are_fixed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """By default the page gives swapping five times the worlds of domino (the same time
    per decision, and enough worlds for swapping's smaller losses); a fixed
    ``BLACKWHITE_REPLAY_ANALYSIS_WORLDS`` (or settings given to the app) is kept as is."""
    swapping = {"format": "blackwhite-record/1", "game": "swapping", "options": {}, "events": []}
    domino = {**swapping, "game": "domino"}
    jobs = AnalysisJobs(Settings(worlds=8, candidates=3, search=0), per_game=True)
    try:
        assert jobs.settings_for(swapping).worlds == 40
        assert jobs.settings_for(domino).worlds == 8
    finally:
        jobs.close()
    monkeypatch.delenv(ENV_WORLDS, raising=False)
    app = create_app(f"sqlite:///{tmp_path / 'a.db'}", bot_workers=0, clock_interval=None)
    assert app.state.replay_analysis.per_game is True
    assert app.state.replay_analysis.settings_for(swapping).worlds == 40
    app.state.replay_analysis.close()
    monkeypatch.setenv(ENV_WORLDS, "3")
    app = create_app(f"sqlite:///{tmp_path / 'b.db'}", bot_workers=0, clock_interval=None)
    assert app.state.replay_analysis.settings_for(swapping).worlds == 3
    app.state.replay_analysis.close()


def test_a_job_is_reported_done_only_once_its_state_is_stored() -> None:
    """Several processes: another process answers for a job from the database once the
    process that ran it is gone, so a reader may be told ``done`` only after ``done`` is
    stored.  Storing is made slow here, which holds the watchdog between reading the
    finished run and storing it: a reader polling meanwhile must wait, not be told first."""
    stored: dict[str, str] = {}

    def publish(changed: list[dict[str, Any]]) -> None:
        time.sleep(0.3)
        stored.update({job["id"]: job["state"] for job in changed})

    jobs = AnalysisJobs(CHEAP, publish=publish)
    try:
        job_id = jobs.submit(example("swapping", 2)).id
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            job = jobs.get(job_id)
            assert job is not None
            assert stored.get(job_id) == job.state, (job.state, stored.get(job_id))
            if job.state == "done":
                break
            time.sleep(0.01)
        assert stored[job_id] == "done"
    finally:
        jobs.close()


# ---------------------------------------------------------------- bounds (issue 37 item 4)


def test_one_client_may_have_only_its_few_analyses_at_once(client: TestClient) -> None:
    from blackwhite.web.analysis_jobs import TooMany

    jobs = AnalysisJobs(CHEAP, max_pending=4, per_client=1, work=slow_work)
    try:
        first = jobs.submit(example("swapping", 2), client="192.0.2.1")
        assert jobs.submit(example("swapping", 2), client="192.0.2.1") is first  # a repeat is no new job
        with pytest.raises(TooMany, match="this address has 1 analyses"):
            jobs.submit(example("swapping", 3), client="192.0.2.1")
        jobs.submit(example("swapping", 3), client="192.0.2.2")  # another client
        assert jobs.pending() == 2
    finally:
        jobs.close()

    app = client.app
    saved = app.state.replay_analysis  # type: ignore[attr-defined]
    app.state.replay_analysis = AnalysisJobs(CHEAP, max_pending=4, work=slow_work)  # type: ignore[attr-defined]
    try:
        assert client.post("/replay/analysis", content=json.dumps(example("swapping", 2))).status_code == 202
        r = client.post("/replay/analysis", content=json.dumps(example("swapping", 3)))
        assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_requests", r.text
    finally:
        app.state.replay_analysis.close()  # type: ignore[attr-defined]
        app.state.replay_analysis = saved  # type: ignore[attr-defined]


def test_analysis_takes_at_most_its_cores_and_runs_niced_below_the_bots() -> None:
    from blackwhite.web.analysis_jobs import NICE

    capped = AnalysisJobs(CHEAP, workers=4, max_cores=1)
    assert (capped.workers, capped.judges) == (1, 1)
    capped.close()
    jobs = AnalysisJobs(CHEAP, work=nice_work)
    try:
        job = _wait(jobs, jobs.submit(example("swapping", 2)).id)
        assert job.state == "done", job.error
        assert job.chart["nice"] == min(19, os.nice(0) + NICE)
    finally:
        jobs.close()
