"""Crash test: ``blackwhite serve`` as a real process, ``kill -9`` in the middle of a
match, started again on the same database, the match finished.

The match is grouping (chance deals drawn by the server, secret simultaneous
groupings, turns), played over HTTP by a script that reads the unfinished record as a
host who sees all (so it can pick legal actions) and submits them with seat tokens.
The server is killed right after an acknowledgement.  Afterwards:

- every acknowledged action is in the exported record, in order, and nothing else is;
- the record read before the kill is a prefix of the final one (chance events were
  stored, not drawn again after the restart);
- the final record is a valid ``blackwhite referee`` input with the same outcome as
  the engine's replay;
- the clock of the awaited seat was not charged for the seconds the server was down.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from blackwhite.engine import load, outcome_json

from .client import ROOT, Api, Created, ProcessServer

GAME = "grouping"
DOWN_SECONDS = 3.0


def _left(view: dict[str, Any], seat: int) -> float:
    """Seconds ``seat`` has left (this action's time plus its reserve)."""
    reading = view["clocks"]["seats"][seat]
    return float(reading["action_left"]) + float(reading["reserve_left"])


def _step(api: Api, match: Created, rng: random.Random, acked: list[tuple[int, str]]) -> bool:
    """Play one random legal action; False once the match is over."""
    record = api.record(match.id, match.host_token)
    state = load(record)
    if state.is_over():
        return False
    seat = state.to_move()[0]
    token = match.seat_tokens[seat]
    assert token is not None
    version = api.view(match.id, token)["version"]
    text = state.format_action(rng.choice(state.legal_actions(seat)))
    response = api.act(match.id, token, text, version)
    assert response.status_code == 200, f"{text!r} by seat {seat}: {response.status_code} {response.text[:300]}"
    assert response.json()["version"] > version
    acked.append((seat, text))
    return True


def _awaited(view: dict[str, Any]) -> list[int]:
    return [i for i, c in enumerate(view["clocks"]["seats"]) if c["awaited"]]


@pytest.mark.parametrize("steps_before_kill", [9])
def test_kill_9_loses_nothing_and_charges_no_one_for_the_down_time(
    db_url: str, tmp_path: Path, steps_before_kill: int
) -> None:
    server = ProcessServer(db_url, log=tmp_path / "serve.log")
    server.start()
    rng = random.Random(13)
    acked: list[tuple[int, str]] = []
    try:
        with httpx.Client(base_url=server.base_url, timeout=30) as http:
            api = Api(http)
            match = api.create(GAME, [{"name": "Sally"}, {"name": "Maddie"}], host_sees_all=True)
            for _ in range(steps_before_kill):
                assert _step(api, match, rng, acked), "the match ended before the kill; play fewer steps"
            # Views are read through the seats' tokens (each seat's own view and the clocks).
            seat_tokens = [t for t in match.seat_tokens if t]
            before_record = api.record(match.id, match.host_token)
            befores = [api.view(match.id, t) for t in seat_tokens]
            before = befores[0]
            read_at = time.monotonic()
            server.kill()  # SIGKILL right after the last acknowledgement
            time.sleep(DOWN_SECONDS)
            server.start()
            after = api.view(match.id, seat_tokens[0])
            span = time.monotonic() - read_at
            afters = [after, *(api.view(match.id, t) for t in seat_tokens[1:])]

            assert after["version"] == before["version"], "the version moved across the crash"
            for seat, (old, new) in enumerate(zip(befores, afters)):
                assert new["view"] == old["view"], f"seat {seat}'s view is not the same after the restart"
            after_record = api.record(match.id, match.host_token)
            assert after_record["events"] == before_record["events"], "events changed across the crash"
            waiting = _awaited(before)
            assert waiting and waiting == _awaited(after), "the awaited seats changed across the crash"
            for seat in waiting:
                charged = _left(before, seat) - _left(after, seat)
                # Between the two readings `span` seconds passed, DOWN_SECONDS of them with
                # no server: those must not be charged (allow 0.5 s of slack for rounding).
                assert charged <= span - DOWN_SECONDS + 0.5, (
                    f"seat {seat} was charged {charged:.2f} s over a {span:.2f} s span of which "
                    f"{DOWN_SECONDS} s the server was down"
                )
                assert charged >= -0.01, f"seat {seat} gained {-charged:.2f} s across the crash"

            while _step(api, match, rng, acked):
                pass
            final = api.record(match.id, match.spectator_token)
    finally:
        server.stop()

    events = final["events"]
    assert events[: len(before_record["events"])] == before_record["events"], (
        "the record read before the kill is not a prefix of the final record"
    )
    actions = [(e["seat"], e["action"]) for e in events if "action" in e]
    assert actions == acked, "the record's actions are not exactly the acknowledged ones, in order"
    assert all("chance" in e or "action" in e for e in events)
    assert any("chance" in e for e in events), "the server's deals must be stored as explicit chance events"

    state = load(final)
    assert state.is_over()
    path = tmp_path / "record.json"
    path.write_text(json.dumps(final))
    referee = subprocess.run(
        [sys.executable, "-m", "blackwhite.cli", "referee", str(path), "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert referee.returncode == 0, referee.stdout + referee.stderr
    assert json.loads(referee.stdout) == outcome_json(state)


def test_kill_9_mid_stream_keeps_every_acknowledged_action(sqlite_url: str, tmp_path: Path) -> None:
    """The kill lands while actions are being sent back to back: every acknowledged
    action survives, in order; the one in flight may or may not have been committed,
    but then it is whole (the record still replays) and nothing else is there."""
    import threading

    server = ProcessServer(sqlite_url, log=tmp_path / "serve.log")
    server.start()
    rng = random.Random(29)
    acked: list[tuple[int, str]] = []
    stop = threading.Event()
    try:
        with httpx.Client(base_url=server.base_url, timeout=30) as http:
            api = Api(http)
            match = api.create(GAME, [{"name": "Sally"}, {"name": "Maddie"}], host_sees_all=True)

            def stream() -> None:
                with httpx.Client(base_url=server.base_url, timeout=30) as own:
                    mine = Api(own)
                    try:
                        while not stop.is_set() and _step(mine, match, rng, acked):
                            pass
                    except (httpx.HTTPError, AssertionError, ValueError):
                        pass  # the server died under us: expected

            worker = threading.Thread(target=stream)
            worker.start()
            deadline = time.monotonic() + 30
            while len(acked) < 6 and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(random.Random(7).uniform(0.0, 0.08))  # somewhere inside the next step
            server.kill()
            stop.set()
            worker.join(timeout=60)
            assert len(acked) >= 6, "too few actions before the kill to test anything"
            server.start()
            record = api.record(match.id, match.host_token)
            actions = [(e["seat"], e["action"]) for e in record["events"] if "action" in e]
            assert actions[: len(acked)] == acked, "an acknowledged action was lost or reordered"
            assert len(actions) <= len(acked) + 1, f"{len(actions) - len(acked)} unacknowledged actions appeared"
            acked[:] = actions
            load(record)  # a committed in-flight action left the record whole
            while _step(api, match, rng, acked):
                pass
            final = api.record(match.id, match.spectator_token)
    finally:
        stop.set()
        server.stop()
    assert [(e["seat"], e["action"]) for e in final["events"] if "action" in e] == acked
    assert load(final).is_over()
