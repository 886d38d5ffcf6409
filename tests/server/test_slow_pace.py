"""A slow match of every installed game, played to the end over two simulated days.

The server's clock is injected (a made-up time that moves only when the test says), so
48 hours take seconds. Every game in the registry (the worked example too, when it is
installed) is played by people making random legal moves after random thinking times,
over quiet nights in Paris (22:00 to 07:00, across the night the clocks go forward), with
a restart in the middle, until the match's own hours run out and every seat still awaited
times out, by the game's rule, to the end. Where each timeout lands is worked out here
on a calendar of our own (minute by minute, by the zone's local time), not by the
server's: a seat left to think is timed out at exactly that moment and not a second
before, and every reading the server shows has been charged exactly the time its
clock ran.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient

from blackwhite.engine.registry import game_ids

from .fake_time import FakeTime, tick
from .fake_time import server as on_fake_time

PARIS = ZoneInfo("Europe/Paris")
#: Friday 27 March 2026, 09:00 in Paris; the clocks there go forward on Sunday 29 March at 02:00
START = datetime(2026, 3, 27, 8, 0, tzinfo=timezone.utc).timestamp()
PACE = {"kind": "slow", "action_hours": 2, "reserve_hours": 1, "match_hours": 28,
        "quiet": {"from": "22:00", "to": "07:00", "tz": "Europe/Paris"}}
MINUTE = 60.0


def quiet(t: float) -> bool:
    """Our own calendar: the minute starting at ``t`` is quiet when Paris's clock then reads 22:00 to 06:59."""
    local = datetime.fromtimestamp(t, PARIS)
    return local.hour >= 22 or local.hour < 7


def running(t0: float, t1: float) -> float:
    """Clock seconds from ``t0`` to ``t1`` (both on whole minutes), minute by minute."""
    assert t0 % MINUTE == 0 and t1 % MINUTE == 0
    return sum(MINUTE for t in range(int(t0), int(t1), 60) if not quiet(t))


def runs_out(t0: float, left: float) -> float:
    """The moment clocks running from ``t0`` (a whole minute) have run ``left`` seconds (whole minutes)."""
    assert left % MINUTE == 0, left
    t = t0
    while left > 0:
        if not quiet(t):
            left -= MINUTE
        t += MINUTE
    return t


class Table:
    """One match on the server, driven by the test: the server, its time, the tokens."""

    def __init__(self, url: str, game: str, rng: random.Random) -> None:
        self.url, self.game, self.rng = url, game, rng
        self.now = FakeTime(START)
        self.client: TestClient | None = None
        self.timeouts = 0

    @contextmanager
    def serving(self) -> Iterator[TestClient]:
        with on_fake_time(self.url, self.now) as client:
            self.client = client
            yield client
        self.client = None

    def tick(self) -> None:
        assert self.client is not None
        tick(self.client)

    def create(self) -> None:
        assert self.client is not None
        r = self.client.post("/api/matches", json={"game": self.game, "pace": PACE})
        assert r.status_code == 201, r.text
        made = r.json()
        assert made["match"]["pace"] == PACE
        self.mid, self.host, self.seats = made["id"], made["host_token"], made["tokens"]["seats"]
        for token in self.seats:  # every player opens their link: the clocks start now
            self.view(token)

    def view(self, token: str, render: bool = False) -> dict[str, Any]:
        assert self.client is not None
        r = self.client.get(f"/api/matches/{self.mid}/view",
                            params={"token": token, **({"render": "1"} if render else {})})
        assert r.status_code == 200, r.text
        out: dict[str, Any] = r.json()
        return out

    def host_view(self) -> dict[str, Any]:
        return self.view(self.host)

    def awaited(self, payload: dict[str, Any]) -> list[tuple[int, float]]:
        """(seat, clock seconds until it runs out) of every awaited seat."""
        clocks = payload["clocks"]
        whole = clocks.get("match_left")
        out = []
        for seat, c in enumerate(clocks["seats"]):
            if c["awaited"]:
                left = c["action_left"] + c["reserve_left"]
                out.append((seat, left if whole is None else min(left, whole)))
        return out

    def move(self, seat: int) -> None:
        assert self.client is not None
        mine = self.view(self.seats[seat])
        # the seat's legal notations as its page gets them (?render=1), without drawing the board
        service = self.client.app.state.service  # type: ignore[attr-defined]
        legal = [a for a in service.legal_texts(service.get(self.mid), seat) if a.split()[0] not in ("resign", "timeout")]
        assert legal, f"{self.game}: seat {seat} is awaited but may play nothing"
        r = self.client.post(f"/api/matches/{self.mid}/actions", params={"token": self.seats[seat]},
                             json={"action": self.rng.choice(legal), "version": mine["version"]})
        assert r.status_code == 200, r.text

    def finished(self, payload: dict[str, Any]) -> bool:
        return payload["status"] == "finished"

    def wait_for_timeout(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Nobody moves: the first seat to run out is timed out at exactly the moment our
        calendar says, and nothing happens a second before."""
        first = min(left for _, left in self.awaited(payload))
        due = runs_out(self.now.t, first)
        if first > 0:  # (none left: the match's hours are spent, every awaited seat is out now)
            self.now.t = due - 1
            self.tick()
            before = self.host_view()
            assert before["version"] == payload["version"], f"{self.game}: timed out before {due}"
        self.now.t = due
        self.tick()
        after = self.host_view()
        assert after["version"] > payload["version"], f"{self.game}: not timed out at {due}"
        self.timeouts += 1
        return after

    def think_and_move(self, payload: dict[str, Any], until: float | None = None) -> dict[str, Any]:
        """An awaited seat thinks a while (less than its time, and not past ``until``) and
        moves; every awaited seat's reading is then charged exactly the clock time that passed."""
        waiting = self.awaited(payload)
        seat, _ = self.rng.choice(waiting)
        first = min(left for _, left in waiting)
        wall = self.rng.choice([5, 10, 20, 40, 90, 180, 600]) * MINUTE  # 600 min: through a night
        if until is not None:
            wall = max(0.0, min(wall, until - self.now.t))
        while running(self.now.t, self.now.t + wall) >= first:
            wall //= 2
            wall -= wall % MINUTE
        spent = running(self.now.t, self.now.t + wall)
        self.now.t += wall
        self.tick()
        seen = self.host_view()
        assert seen["version"] == payload["version"], f"{self.game}: something happened while a seat thought"
        for (s, left), (s2, left2) in zip(waiting, self.awaited(seen)):
            assert s == s2 and left2 == pytest.approx(left - spent, abs=1e-6), (self.game, s, left, left2, spent)
        self.move(seat)
        return self.host_view()

    def record(self) -> dict[str, Any]:
        assert self.client is not None
        out: dict[str, Any] = self.client.get(f"/api/matches/{self.mid}/record", params={"token": self.seats[0]}).json()
        return out


@pytest.mark.parametrize("game", game_ids())
def test_a_slow_match_over_two_days_with_quiet_nights_and_a_restart(game: str, sqlite_url: str) -> None:
    table = Table(sqlite_url, game, random.Random(f"slow {game}"))
    stop = START + 9 * 3600  # Friday 18:00 in Paris
    with table.serving():
        table.create()
        payload = table.host_view()
        assert payload["clocks"]["seats"][0]["reserve_left"] == 3600.0
        assert payload["clocks"]["match_left"] == PACE["match_hours"] * 3600  # type: ignore[operator]
        while table.now.t < stop and not table.finished(payload):  # Friday: people move
            payload = table.think_and_move(payload, until=stop)
        stopped = table.now.t
        if table.finished(payload):  # an installed game short enough to end in an afternoon
            pytest.skip(f"{game}: the match ended on Friday afternoon, before any night or restart")
        before = [left for _, left in table.awaited(payload)]
    # a restart (a clean stop) in the evening: two hours down, charged to no one
    table.now.t += 2 * 3600
    restarted = table.now.t
    with table.serving():
        payload = table.host_view()
        assert [left for _, left in table.awaited(payload)] == before
        # Friday night and Saturday: moves; then one seat is left to run out (a loss in some
        # games); then the others move again until the match's own hours run out, and every
        # seat still awaited times out, by the game's rule, to the end
        for step in range(1000):
            if table.finished(payload):
                break
            whole = payload["clocks"]["match_left"]
            if min(left for _, left in table.awaited(payload)) >= whole:
                if whole > 0:  # the match's hours run out exactly where our calendar says
                    due = runs_out(table.now.t, whole)
                    assert running(START, stopped) + running(restarted, due) == PACE["match_hours"] * 3600  # type: ignore[operator]
                payload = table.wait_for_timeout(payload)
            elif step == 0:  # right after the restart: through the night
                payload = table.wait_for_timeout(payload)
            else:
                payload = table.think_and_move(payload)
        else:
            pytest.fail(f"{game}: the match did not end")
        record = table.record()
    assert table.now.t <= START + 48 * 3600, f"{game}: the match took more than two days"
    assert record["pace"] == PACE
    assert sum(1 for e in record["events"] if e.get("action") == "timeout") >= table.timeouts >= 1
