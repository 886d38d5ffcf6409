"""Faults that are not ``kill -9``, on three processes behind nginx over PostgreSQL
(docs/server.md, "Several processes"; #38).

Players act on matches of two people each, through nginx, all along.  Then:

- **a stuck owner**: the process owning the most matches is stopped (SIGSTOP) for 15 s
  with a request of its own queued on it, then woken (SIGCONT).  Its matches are served
  by another process within 5 s of its lease's expiry; once it is awake every process
  answers the same version and state for every match; what was queued on it is applied
  only by the new owner, through the same checks as any request, or not at all; and a
  seat's clock never rises across the takeover.
- **a cut connection**: the owner's PostgreSQL lock connection is ended
  (``pg_terminate_backend``) while the process lives: the same checks.

At the end every acknowledged action is in its match's record exactly once, in order.
The servers run with a 3 s lease, so the run stays short.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from blackwhite.server.cluster import Cluster

from .test_cluster import Fleet, running_fleet
from .test_nginx import NGINX

pytestmark = pytest.mark.skipif(not Path(NGINX).exists(), reason=f"{NGINX} is missing (apt-get install nginx)")

LEASE = 3.0  # short, so the run is; not so short that a loaded machine's stall costs a lease
MATCHES = 6
STOPPED = 15.0


@dataclass
class Table:
    """One match of two people, and what its players sent and were told."""

    id: str
    seats: list[str]
    spectator: str
    host: str
    #: (seat, action) acknowledged (200), in order
    acked: list[tuple[int, str]] = field(default_factory=list)
    #: (seat, action) whose answer was lost (it may or may not have been applied)
    unsure: list[tuple[int, str]] = field(default_factory=list)
    #: actions answered 503 without X-Blackwhite-Unsure: refused, nothing changed
    refused: int = 0
    #: (version, seconds left of each seat) read by the spectator, in order
    readings: list[tuple[int, list[float]]] = field(default_factory=list)


@pytest.fixture
def chaos_fleet(tmp_path: Path, postgres_url: str) -> Iterator[Fleet]:
    with running_fleet(tmp_path, postgres_url, ("--lease", str(LEASE))) as found:
        yield found


def _left(view: dict[str, Any]) -> list[float]:
    return [float(s["action_left"]) + float(s["reserve_left"]) for s in view["clocks"]["seats"]]


async def _play(client: httpx.AsyncClient, table: Table, rng: random.Random, stop: asyncio.Event) -> None:
    """Both seats of ``table`` act in turn (random legal actions, never a resignation), through nginx."""
    while not stop.is_set():
        await asyncio.sleep(0.25)
        for seat, token in enumerate(table.seats):
            try:
                view = await client.get(f"/api/matches/{table.id}/view", params={"token": token, "render": 1})
            except httpx.HTTPError:
                continue
            if view.status_code != 200:
                assert view.status_code == 503, view.text  # never a false "no such match"
                continue
            data = view.json()
            if data["status"] != "running":
                return
            legal = [a for a in data.get("legal") or [] if a != "resign"]
            if not legal:
                continue
            action = rng.choice(legal)
            try:
                answer = await client.post(f"/api/matches/{table.id}/actions", params={"token": token},
                                           json={"action": action, "version": data["version"]})
            except httpx.HTTPError:
                table.unsure.append((seat, action))
                continue
            if answer.status_code == 200:
                table.acked.append((seat, action))
            elif answer.status_code == 503:
                code = answer.json()["error"]["code"]
                assert code in ("owner_unavailable", "store_unavailable"), answer.text
                assert answer.headers.get("retry-after") == "1", answer.headers
                if answer.headers.get("x-blackwhite-unsure") == "1":
                    table.unsure.append((seat, action))  # the owner stopped while answering: maybe applied
                else:
                    table.refused += 1  # changed nothing: not counted among those that may be in the record
            else:
                assert answer.json()["error"]["code"] in ("stale_version", "not_your_turn"), answer.text


async def _watch(client: httpx.AsyncClient, table: Table, stop: asyncio.Event) -> None:
    """The spectator's readings of the clocks, all along."""
    while not stop.is_set():
        await asyncio.sleep(0.2)
        with contextlib.suppress(httpx.HTTPError):
            view = await client.get(f"/api/matches/{table.id}/view", params={"token": table.spectator})
            if view.status_code == 200 and view.json()["status"] == "running":
                table.readings.append((view.json()["version"], _left(view.json())))


def _owners(fleet: Fleet, tables: list[Table]) -> dict[str, str | None]:
    engine = create_engine(fleet.db_url)
    try:
        probe = Cluster(engine, None)
        found = {t.id: probe.owner(t.id) for t in tables}
    finally:
        engine.dispose()
    return {mid: (o.url if o is not None else None) for mid, o in found.items()}


def _db(fleet: Fleet, sql: str, **params: Any) -> Any:
    engine = create_engine(fleet.db_url)
    try:
        with engine.begin() as conn:
            return conn.execute(text(sql), params).all()
    finally:
        engine.dispose()


def _served_elsewhere(fleet: Fleet, tables: list[Table], victim_url: str, since: float) -> dict[str, float]:
    """When each match was first answered by a process other than ``victim_url`` that owns it."""
    served: dict[str, float] = {}
    others = [f"http://127.0.0.1:{p}" for p in fleet.ports if f"http://127.0.0.1:{p}" != victim_url]
    with httpx.Client(timeout=1.0, trust_env=False) as client:
        while len(served) < len(tables):
            assert time.time() - since < 30, f"not served elsewhere 30 s on: {[t.id for t in tables if t.id not in served]}"
            for table in tables:
                if table.id in served:
                    continue
                base = others[len(served) % len(others)]
                with contextlib.suppress(httpx.HTTPError):
                    answer = client.get(f"{base}/api/matches/{table.id}/view", params={"token": table.spectator})
                    if answer.status_code == 200 and _owners(fleet, [table])[table.id] not in (victim_url, None):
                        served[table.id] = time.time()
                    else:
                        assert answer.status_code in (200, 503), answer.text
            time.sleep(0.05)
    return served


def _agree(fleet: Fleet, tables: list[Table]) -> None:
    """Every process answers the same version, view and status for every match."""
    with httpx.Client(timeout=10.0, trust_env=False) as client:
        for table in tables:
            for _attempt in range(50):
                seen = []
                for port in fleet.ports:
                    answer = client.get(f"http://127.0.0.1:{port}/api/matches/{table.id}/view",
                                        params={"token": table.spectator})
                    assert answer.status_code in (200, 503), answer.text
                    seen.append(answer.json() if answer.status_code == 200 else None)
                shown = {(s["version"], repr(s["view"]), s["status"]) if s else None for s in seen}
                if len(shown) == 1 and None not in shown:
                    break
                time.sleep(0.1)  # a move between the three reads: look again
            else:
                raise AssertionError(f"the processes disagree on match {table.id}: {shown}")


def _monotonic(table: Table) -> None:
    """A seat's time never rises while the version stands (no extra time is given here)."""
    for (v0, left0), (v1, left1) in zip(table.readings, table.readings[1:]):
        if v0 == v1:
            for seat, (a, b) in enumerate(zip(left0, left1)):
                assert b <= a + 0.02, f"match {table.id} seat {seat}: {a:.2f} s left, then {b:.2f} s at version {v0}"


def _prepare(url: str, table: Table) -> tuple[int, int, str]:
    """A seat of ``table`` that may act now, its version and a legal action, asked of ``url``."""
    with httpx.Client(timeout=10.0, trust_env=False) as client:
        for seat, token in enumerate(table.seats):
            view = client.get(f"{url}/api/matches/{table.id}/view", params={"token": token, "render": 1}).json()
            legal = [a for a in view.get("legal") or [] if a != "resign"]
            if legal:
                return seat, view["version"], legal[0]
    return 0, 0, "pass"


def _queue_on(url: str, table: Table, prepared: tuple[int, int, str], outcome: list[Any]) -> threading.Thread:
    """The action ``prepared`` sent straight to ``url`` (a stopped process): it waits in its socket."""
    seat, version, action = prepared

    def run() -> None:
        with httpx.Client(timeout=120.0, trust_env=False) as client:
            try:
                answer = client.post(f"{url}/api/matches/{table.id}/actions", params={"token": table.seats[seat]},
                                     json={"action": action, "version": version})
                outcome.append((seat, action, answer.status_code, answer.text))
            except httpx.HTTPError as exc:
                outcome.append((seat, action, None, repr(exc)))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


async def scenario(fleet: Fleet, lease: float = LEASE, stopped_for: float = STOPPED,
                   matches: int = MATCHES) -> dict[str, Any]:
    """The two faults on ``fleet`` (whose processes run with ``lease``); the figures:
    seconds from the stuck owner's lease expiry (and from its stop) until its last match
    was served elsewhere, from the cut until the last match was served again, the answer
    to the request queued on the stuck owner, and the acknowledged actions (every one
    checked in its record: none lost)."""
    host = fleet.host_token()
    tables: list[Table] = []
    async with httpx.AsyncClient(base_url=fleet.public, verify=fleet.ssl, timeout=1.5, trust_env=False) as client:
        for _ in range(matches):
            made = await client.post("/api/matches", headers={"Authorization": f"Bearer {host}"}, timeout=30,
                                     json={"game": "joust", "seats": [{"name": "Ann"}, {"name": "Bob"}], "start": "now"})
            assert made.status_code == 201, made.text
            data = made.json()
            tables.append(Table(data["id"], data["tokens"]["seats"], data["tokens"]["spectator"], host))
        stop = asyncio.Event()
        tasks = [asyncio.create_task(_play(client, t, random.Random(n), stop)) for n, t in enumerate(tables)]
        tasks += [asyncio.create_task(_watch(client, t, stop)) for t in tables]
        report: dict[str, Any] = {"lease": lease, "stopped": stopped_for}
        try:
            await asyncio.sleep(3.0)

            # --- a stuck owner
            owners = await asyncio.to_thread(_owners, fleet, tables)
            urls = [u for u in owners.values() if u]
            victim_url = max(set(urls), key=urls.count)
            victim = fleet.procs[[f"http://127.0.0.1:{p}" for p in fleet.ports].index(victim_url)]
            affected = [t for t in tables if owners[t.id] == victim_url]
            queued_on = affected[0]
            prepared = await asyncio.to_thread(_prepare, victim_url, queued_on)
            os.killpg(victim.pid, signal.SIGSTOP)
            stopped = time.time()
            queued: list[Any] = []
            await asyncio.sleep(0.3)
            thread = _queue_on(victim_url, queued_on, prepared, queued)
            expires = (await asyncio.to_thread(_db, fleet, "SELECT expires FROM processes WHERE url = :u",
                                               u=victim_url))[0][0]
            served = await asyncio.to_thread(_served_elsewhere, fleet, affected, victim_url, stopped)
            late = max(served.values()) - float(expires)
            assert late < 5.0, f"served elsewhere only {late:.1f} s after the lease's expiry"
            report.update(stuck_matches=len(affected), after_expiry=late, after_stop=max(served.values()) - stopped)
            await asyncio.sleep(max(0.0, stopped + stopped_for - time.time()))
            os.killpg(victim.pid, signal.SIGCONT)
            await asyncio.to_thread(thread.join, 30)
            assert queued, "the queued request got no answer"
            await asyncio.sleep(1.0)
            await asyncio.to_thread(_agree, fleet, tables)
            assert victim.poll() is None, fleet.text()

            # --- a cut connection
            owners = await asyncio.to_thread(_owners, fleet, tables)
            running = [t for t in tables if owners[t.id]]
            urls = [u for u in owners.values() if u]
            victim_url = max(set(urls), key=urls.count)
            affected = [t for t in running if owners[t.id] == victim_url]
            cut = time.time()
            await asyncio.to_thread(_db, fleet, "SELECT pg_terminate_backend(backend_pid) FROM processes WHERE url = :u",
                                    u=victim_url)
            with httpx.Client(timeout=2.0, trust_env=False) as probe:
                back: dict[str, float] = {}
                while len(back) < len(affected):
                    assert time.time() - cut < 10, "not served again 10 s after the cut"
                    for table in affected:
                        if table.id not in back:
                            with contextlib.suppress(httpx.HTTPError):
                                port = fleet.ports[len(back) % len(fleet.ports)]
                                answer = await asyncio.to_thread(
                                    probe.get, f"http://127.0.0.1:{port}/api/matches/{table.id}/view",
                                    params={"token": table.spectator})
                                if answer.status_code == 200 and (await asyncio.to_thread(_owners, fleet, [table]))[table.id]:
                                    back[table.id] = time.time()
                    await asyncio.sleep(0.05)
            assert max(back.values()) - cut < 5.0
            report.update(cut_matches=len(affected), after_cut=max(back.values()) - cut)
            await asyncio.sleep(2.0)
            await asyncio.to_thread(_agree, fleet, tables)
        finally:
            stop.set()
            done, _ = await asyncio.wait(tasks, timeout=30)
            for task in done:
                task.result()

        # the end: every acknowledged action in the record once, in order
        async with httpx.AsyncClient(base_url=fleet.public, verify=fleet.ssl, timeout=30, trust_env=False) as slow:
            for table in tables:
                cancel = await slow.post(f"/api/matches/{table.id}/cancel", headers={"Authorization": f"Bearer {host}"})
                assert cancel.status_code in (200, 409), cancel.text
                record = await slow.get(f"/api/matches/{table.id}/record", params={"token": table.spectator})
                assert record.status_code == 200, record.text
                events = [(e["seat"], e["action"]) for e in record.json()["events"] if "action" in e]
                # the answer of the one queued on the stuck owner was read by its own thread
                extra = list(table.unsure) + ([(q[0], q[1]) for q in queued] if table is queued_on else [])
                it = iter(events)
                assert all(any(a == e for e in it) for a in table.acked), (
                    f"match {table.id}: an acknowledged action is missing or out of order: {table.acked} / {events}")
                assert len(events) <= len(table.acked) + len(extra), (table.id, events, table.acked, extra)
                assert len(events) >= len(table.acked)
                _monotonic(table)
        seat, action, status, said = queued[0]
        assert status in (200, 409, 503), said  # through the new owner's checks (legal when sent), or refused
    report.update(queued_answer=status, acknowledged=sum(len(t.acked) for t in tables), lost=0)
    return report


def describe(report: dict[str, Any]) -> str:
    return (f"stuck owner ({report['stuck_matches']} matches, lease {report['lease']:g} s): served elsewhere "
            f"{report['after_expiry']:.2f} s after its lease ran out ({report['after_stop']:.2f} s after the stop); "
            f"cut connection ({report['cut_matches']} matches): served again {report['after_cut']:.2f} s after; "
            f"the request queued on the stuck owner answered {report['queued_answer']}; "
            f"acknowledged actions: {report['acknowledged']}, lost: {report['lost']}")


def test_a_stuck_owner_and_a_cut_connection(chaos_fleet: Fleet) -> None:
    print(describe(asyncio.run(scenario(chaos_fleet))))
    log = "\n".join(p.read_text(errors="replace") for p in chaos_fleet.logs)
    assert "Traceback" not in log, chaos_fleet.text()
