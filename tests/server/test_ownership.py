"""Two server processes never both apply an action to one match (docs/server.md,
"Several processes").

Over a throwaway PostgreSQL: identical submissions sent at once through two real
``blackwhite serve`` processes (one owns the match, the other relays) are accepted
exactly once; and two services that *both* hold a match in memory (the first lost its
lock connection, the second took the match over before the first noticed) cannot both
store an action at one version: the row's version fences the write, and the loser
drops the match.  Then a second process on one SQLite file is refused.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from blackwhite.server.cluster import Cluster
from blackwhite.server.errors import Refused
from blackwhite.server.players import PlayerService
from blackwhite.server.players_store import PlayerStore
from blackwhite.server.service import MatchService
from blackwhite.server.store import StaleWrite, Store, make_engine, migrate

from .client import ROOT, ProcessServer, Retrying, free_port


def _server(db_url: str, log: Path, port: int | None = None) -> ProcessServer:
    return ProcessServer(db_url, port, log=log, args=("--rate", "0", "--bot-workers", "0"))


@dataclass
class Processes:
    """Two ``blackwhite serve`` processes over one database, each with its log."""

    servers: list[ProcessServer]
    procs: list[subprocess.Popen[bytes]]

    @property
    def urls(self) -> list[str]:
        return [s.base_url for s in self.servers]

    @property
    def logs(self) -> list[Path]:
        return [s.log for s in self.servers if s.log is not None]


@contextlib.contextmanager
def two_processes(db_url: str, tmp_path: Path) -> Iterator[Processes]:
    """Start two processes one after the other (each answering before the next starts);
    at the end, SIGTERM whichever still runs and reap both (one that lingers 20 s fails)."""
    servers = [_server(db_url, tmp_path / "a.log"), _server(db_url, tmp_path / "b.log")]
    started: list[ProcessServer] = []
    try:
        for server in servers:
            started.append(server)
            server.start()
        yield Processes(servers, [s.proc for s in servers if s.proc is not None])
    finally:
        lingered = [s.base_url for s in started if s.stop(timeout=20) is None]
        assert not lingered, f"did not stop within 20 s of SIGTERM: {lingered}"


@pytest.fixture
def two(tmp_path: Path, postgres_url: str) -> Iterator[list[str]]:
    with two_processes(postgres_url, tmp_path) as both:
        yield both.urls
    assert all(s.returncode == 0 for s in both.servers), [log.read_text(errors="replace") for log in both.logs]


def test_identical_submissions_through_two_processes_are_taken_once(two: list[str]) -> None:
    a, b = (httpx.Client(base_url=u, timeout=30, trust_env=False, transport=Retrying()) for u in two)
    with a, b:
        made = a.post("/api/matches", json={"game": "swapping", "seats": [{"name": "Ann"}, {"name": "Bob"}]})
        assert made.status_code == 201, made.text
        mid, tokens = made.json()["id"], made.json()["tokens"]["seats"]
        # the match is the first process's: the second relays to it
        assert b.get(f"/api/matches/{mid}", params={"token": tokens[0]}).status_code == 200
        accepted_total = 0
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            for _step in range(6):
                views = [a.get(f"/api/matches/{mid}/view", params={"token": t, "render": 1}).json() for t in tokens]
                if views[0]["status"] != "running":
                    break
                for seat, view in enumerate(views):
                    if not view["legal"]:
                        continue
                    body = {"action": view["legal"][0], "version": view["version"]}
                    clients = [a, b] * 4
                    answers = list(pool.map(lambda c: c.post(f"/api/matches/{mid}/actions", json=body,  # noqa: B023
                                                              params={"token": tokens[seat]}), clients))
                    codes = sorted(r.status_code for r in answers)
                    assert codes.count(200) == 1, [(r.status_code, r.text[:200]) for r in answers]
                    refused = {r.json()["error"]["code"] for r in answers if r.status_code != 200}
                    assert refused <= {"stale_version", "not_your_turn"}, refused
                    accepted_total += 1
        record = b.get(f"/api/matches/{mid}/view", params={"token": tokens[0]}).json()
        assert record["version"] >= accepted_total
        # the stored events: each accepted action once
        cancel = a.post(f"/api/matches/{mid}/cancel", params={"token": made.json()["host_token"]})
        assert cancel.status_code == 200, cancel.text
        events = b.get(f"/api/matches/{mid}/record", params={"token": tokens[0]}).json()["events"]
        assert len([e for e in events if "action" in e]) == accepted_total


def test_a_process_that_lost_its_lock_cannot_store_at_a_taken_version(postgres_url: str) -> None:
    engine = make_engine(postgres_url)
    migrate(engine)

    async def run() -> None:
        first = MatchService(Store(engine), bot_workers=0, cluster=Cluster(engine, None))
        second = MatchService(Store(engine), bot_workers=0, cluster=Cluster(engine, None))
        first.load()
        second.load()
        made = await first.create(None, "swapping", {}, [{"name": "Ann"}, {"name": "Bob"}], False, start="now")
        mid, tokens = made.id, made.seat_tokens
        await second.adopt(mid)
        assert not second.owns(mid), "the second took a match the first holds"
        # the first's lock connection dies (a network cut): its locks go at once, but it
        # learns of it only at its next heartbeat
        assert first.cluster is not None and first.cluster._conn is not None
        pid = first.cluster._conn.execute(text("SELECT pg_backend_pid()")).scalar()
        with engine.connect() as conn:
            conn.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid})
        # the termination is a signal: the backend (and its advisory locks) goes a moment
        # later; asked each time in a new transaction (a transaction sees one snapshot)
        deadline = time.monotonic() + 10
        while True:
            with engine.connect() as conn:
                if not conn.execute(text("SELECT count(*) FROM pg_stat_activity WHERE pid = :p"), {"p": pid}).scalar():
                    break
            assert time.monotonic() < deadline, "the terminated backend did not go"
            await asyncio.sleep(0.05)
        await second.adopt(mid)
        assert second.owns(mid) and first.owns(mid), "both should hold the match in memory now"
        match = first.get(mid)
        text_ = first.legal_texts(match, 0)[0]
        version = first.view_payload(match, await first.role_for(match, tokens[0]))["version"]
        results = await asyncio.gather(first.submit(mid, tokens[0], text_, version),
                                       second.submit(mid, tokens[0], text_, version), return_exceptions=True)
        taken = [r for r in results if isinstance(r, dict)]
        refused = [r for r in results if isinstance(r, Refused)]
        assert len(taken) == 1 and len(refused) == 1, results
        assert refused[0].code in ("owner_unavailable", "stale_version"), refused[0].body()
        stored = first.store.load_match(mid)
        assert stored is not None
        assert [e.action for e in stored.events if e.action is not None] == [text_]
        if isinstance(results[0], Refused):  # the first lost: it no longer serves the match
            assert not first.owns(mid)
        # changes without an event (pause, time, cancel, a join) are fenced the same way, and
        # no action is stored on a row another process ended
        winner = second if isinstance(results[0], Refused) else first
        stale = winner.get(mid).version - 1
        with pytest.raises(StaleWrite):
            winner.store.update(mid, {"status": "cancelled"}, stale)
        assert winner.store.status_of(mid) == "running"
        await winner.cancel(mid, made.host_token)
        assert winner.store.status_of(mid) == "cancelled"
        with pytest.raises(StaleWrite):
            winner.store.append(mid, [], {"version": stale + 2, "status": "running", "clocks": {}, "clock_at": 0.0,
                                          "public_version": None}, stale + 1)
        for service in (first, second):
            await service.close()

    try:
        asyncio.run(run())
    finally:
        engine.dispose()


def test_a_second_process_on_one_sqlite_file_is_refused(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'blackwhite.db'}"
    port = free_port()
    first = _server(db, tmp_path / "first.log", port)
    try:
        first.start()
        second = subprocess.run(
            [sys.executable, "-m", "blackwhite.cli", "serve", "--db", db, "--port", str(free_port())],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
            env={**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")},
        )
        assert second.returncode == 2, second.stdout + second.stderr
        assert "another blackwhite serve is already serving" in second.stderr, second.stderr
        assert "use PostgreSQL" in second.stderr, second.stderr
        assert first.proc is not None and first.proc.poll() is None
    finally:
        assert first.stop(timeout=20) is not None
    # once the first has stopped, the file serves again
    again = _server(db, tmp_path / "again.log", port)
    try:
        again.start()
    finally:
        assert again.stop(timeout=20) is not None


def test_an_analysis_job_is_followed_through_another_process_and_fails_with_it(
        tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.web.test_replay_analysis import example

    monkeypatch.setenv("BLACKWHITE_REPLAY_ANALYSIS_WORLDS", "2")  # quick jobs (the servers inherit it)
    with two_processes(postgres_url, tmp_path) as both:
        procs = both.procs
        a, b = (httpx.Client(base_url=u, timeout=30, trust_env=False, transport=Retrying()) for u in both.urls)
        with a, b:
            started = a.post("/replay/analysis", content=json.dumps(example("swapping", 4)))
            assert started.status_code == 202, started.text
            job = started.json()["job"]
            deadline = time.monotonic() + 120
            while True:  # followed through the other process
                seen = b.get(f"/replay/analysis/{job}")
                assert seen.status_code == 200, seen.text
                assert seen.json()["job"] == job
                if seen.json()["state"] == "done":
                    break
                assert seen.json()["state"] in ("queued", "running"), seen.json()
                assert time.monotonic() < deadline, seen.json()
                time.sleep(0.2)
            assert seen.json()["chart"]["game"] == "swapping"
            chart = seen.json()["chart"]
            # a job whose process dies is failed, not lost; a done one is still served, from
            # the database, for each audience as before
            second = a.post("/replay/analysis", content=json.dumps(example("swapping", 8)))
            assert second.status_code == 202, second.text
            os.killpg(procs[0].pid, signal.SIGKILL)
            procs[0].wait(timeout=10)
            gone = b.get(f"/replay/analysis/{second.json()['job']}")
            assert gone.status_code == 200, gone.text
            assert gone.json()["state"] == "failed" and "stopped" in gone.json()["error"], gone.json()
            kept = b.get(f"/replay/analysis/{job}")
            assert kept.status_code == 200 and kept.json()["state"] == "done", kept.text
            assert kept.json()["chart"] == chart
            public = b.get(f"/replay/analysis/{job}", params={"audience": "public"}).json()
            assert public["state"] == "done" and "chart" in public
            # an id no process ever had is still unknown
            unknown = b.get(f"/replay/analysis/{'0' * 16}.{'1' * 32}")
            assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "unknown_job", unknown.text


def test_a_clean_stop_hands_its_matches_over(tmp_path: Path, postgres_url: str) -> None:
    """SIGTERM to the owner: it exits 0 and its locks go with it; the other process
    serves the match at once, nothing acknowledged is missing."""
    with two_processes(postgres_url, tmp_path) as both:
        procs, logs = both.procs, both.logs
        a, b = (httpx.Client(base_url=u, timeout=30, trust_env=False, transport=Retrying()) for u in both.urls)
        with a, b:
            made = a.post("/api/matches", json={"game": "swapping", "seats": [{"name": "Ann"}, {"name": "Bob"}],
                                                "start": "now"})
            assert made.status_code == 201, made.text
            mid, tokens = made.json()["id"], made.json()["tokens"]["seats"]
            acked = []
            for _ in range(2):
                for seat, token in enumerate(tokens):
                    view = b.get(f"/api/matches/{mid}/view", params={"token": token, "render": 1}).json()
                    if view["legal"]:
                        r = b.post(f"/api/matches/{mid}/actions", params={"token": token},
                                   json={"action": view["legal"][0], "version": view["version"]})
                        assert r.status_code == 200, r.text
                        acked.append((seat, view["legal"][0]))
            os.killpg(procs[0].pid, signal.SIGTERM)
            assert procs[0].wait(timeout=20) == 0, logs[0].read_text(errors="replace")
            stopped = time.monotonic()
            view = b.get(f"/api/matches/{mid}/view", params={"token": tokens[0], "render": 1})
            assert view.status_code == 200, view.text
            assert time.monotonic() - stopped < 3.0
            r = b.post(f"/api/matches/{mid}/actions", params={"token": tokens[0]},
                       json={"action": view.json()["legal"][0], "version": view.json()["version"]})
            assert r.status_code == 200, r.text
            acked.append((0, view.json()["legal"][0]))
            assert b.post(f"/api/matches/{mid}/cancel", params={"token": made.json()["host_token"]}).status_code == 200
            events = b.get(f"/api/matches/{mid}/record", params={"token": tokens[0]}).json()["events"]
            assert [(e["seat"], e["action"]) for e in events if "action" in e] == acked


WRITES = ["action", "pause", "resume", "time", "join", "start", "cohost", "cancel", "bind"]


def test_a_taken_over_owner_cannot_write_at_the_same_version(postgres_url: str) -> None:
    """Every kind of write of an owner whose lease ran out and whose matches were taken
    over is refused at the very version the new owner took the match at (the takeover
    adds no event: only the ownership epoch tells them apart); the old owner drops the
    match and its lock at once, and the database keeps what the new owner holds."""
    engine = make_engine(postgres_url)
    migrate(engine)
    store = Store(engine)
    store_players = PlayerStore(store)
    store.new_host("c0ffee00c0ffee00", "0" * 64, 1.0, "another host")

    async def one(kind: str) -> None:
        # two processes: each its own engine (its sessions carry its name)
        engines = [make_engine(postgres_url), make_engine(postgres_url)]
        first, second = (MatchService(Store(e), bot_workers=0, cluster=Cluster(e, None)) for e in engines)
        first.load()
        second.load()
        try:
            start = "when_joined" if kind in ("join", "start", "bind") else "now"
            made = await first.create(None, "swapping", {}, [{"name": "Ann"}, {"name": "Bob"}], False,
                                      paused=kind == "resume", start=start)
            mid, host = made.id, made.host_token
            # a player of the host, for a seat bound while the match waits (players.py)
            player = (await PlayerService(first).create(host, "Cy")).player["id"] if kind == "bind" else ""
            assert first.cluster is not None and second.cluster is not None
            # the first is stuck: its lease runs out (as if it had not renewed it for long)
            with engine.begin() as conn:
                conn.execute(text("UPDATE processes SET expires = 0 WHERE id = :id"), {"id": first.cluster.id})
            await second.owning._cluster_tick()  # reaps the first (its sessions end, locks with them), takes the match
            assert second.owns(mid), f"{kind}: the match was not taken over"
            old, new = first.get(mid), second.get(mid)
            assert old.version == new.version and new.epoch == old.epoch + 1, (old.version, new.version, new.epoch)
            before = store.load_match(mid)
            assert before is not None
            write: Awaitable[Any]
            match kind:
                case "action":
                    legal = first.legal_texts(old, 0)[0]
                    write = first.submit(mid, made.seat_tokens[0], legal, old.version_for(await first.role_for(old, made.seat_tokens[0])))
                case "pause":
                    write = first.pause(mid, host, True)
                case "resume":
                    write = first.pause(mid, host, False)
                case "time":
                    write = first.add_time(mid, host, 0, 60.0)
                case "join":
                    write = first.join(old, await first.role_for(old, made.seat_tokens[0]))
                case "start":
                    write = first.start_now(mid, host)
                case "cohost":
                    write = first.set_cohost(mid, host, "c0ffee00c0ffee00", True)
                case "cancel":
                    write = first.cancel(mid, host)
                case "bind":
                    write = first.bind_seat(old, 0, player)
            with pytest.raises(Refused) as refused:
                await write
            assert refused.value.code == "owner_unavailable", (kind, refused.value.body())
            assert not first.owns(mid) and mid not in first.owning._held, f"{kind}: the fenced owner kept the match"
            after = store.load_match(mid)
            assert after is not None
            assert store_players.seats_of_match(mid) == {}, kind  # no seat bound behind the new owner's back
            for column in ("version", "status", "paused", "clocks", "clock_at", "joined", "cohosts", "epoch",
                           "seat_hashes"):
                assert getattr(after.row, column) == getattr(before.row, column), (kind, column)
            assert len(after.events) == len(before.events)
            # the lock went at once: nothing of the first's holds it
            await asyncio.sleep(0.2)
            with engine.connect() as conn:
                holders = conn.execute(text(
                    "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                    " WHERE l.locktype = 'advisory' AND a.application_name = :name"),
                    {"name": f"blackwhite {first.cluster.id}"}).scalar()
            assert holders == 0, kind
            # the new owner goes on writing
            await second.pause(mid, host, kind != "resume")
        finally:
            for service in (first, second):
                await service.close()
            for e in engines:
                e.dispose()

    async def run() -> None:
        for kind in WRITES:
            await one(kind)

    try:
        asyncio.run(run())
    finally:
        engine.dispose()


def test_a_process_that_joins_takes_its_share_and_no_action_is_lost(postgres_url: str) -> None:
    """Rebalancing: six running matches on one process; a second joins and asks for its
    fair share; the first lets three go between two writes (their sockets are told to
    reconnect), the second takes them over.  Actions sent to the first meanwhile are
    either acknowledged and stored, or refused 503 having changed nothing."""
    engines = [make_engine(postgres_url), make_engine(postgres_url)]
    migrate(engines[0])

    async def run() -> None:
        first = MatchService(Store(engines[0]), bot_workers=0, cluster=Cluster(engines[0], None))
        first.load()
        second = MatchService(Store(engines[1]), bot_workers=0, cluster=Cluster(engines[1], None))
        try:
            made = [await first.create(None, "swapping", {}, [{"name": "Ann"}, {"name": "Bob"}], False, start="now")
                    for _ in range(6)]
            subs = {m.id: first.subscribe(first.get(m.id), await first.role_for(first.get(m.id), m.spectator_token))
                    for m in made}
            second.load()  # it joins: nothing is free to take
            assert not second.matches
            await second.owning._cluster_tick()  # it sees it has none of six, and asks for three

            async def act(m: Any) -> tuple[str, str, int, Any]:
                match = first.matches.get(m.id)
                if match is None:
                    return m.id, "", -1, None
                text_ = first.legal_texts(match, 0)[0]
                version = match.version_for(await first.role_for(match, m.seat_tokens[0]))
                try:
                    return m.id, text_, version, await first.submit(m.id, m.seat_tokens[0], text_, version)
                except Refused as exc:
                    return m.id, text_, version, exc

            # actions race with the handover: one is under way when the first lets its match
            # go (it is committed first), one arrives while it does (it is refused)
            raced = first.get(made[5].id)  # the newest: what the second asked for
            await raced.lock.acquire()
            before = asyncio.create_task(act(made[5]))
            await asyncio.sleep(0.05)
            tick = asyncio.create_task(first.owning._cluster_tick())
            deadline = time.monotonic() + 10
            while len(getattr(raced.lock, "_waiters", None) or ()) < 2:  # the action, then the handover
                assert time.monotonic() < deadline, "the handover did not wait for the match's lock"
                await asyncio.sleep(0.02)
            after = asyncio.create_task(act(made[5]))
            await asyncio.sleep(0.05)
            raced.lock.release()
            outcomes = [await before, await after]
            await tick
            assert isinstance(outcomes[0][3], dict), outcomes[0]
            assert isinstance(outcomes[1][3], Refused) and outcomes[1][3].code == "owner_unavailable", outcomes[1]
            for _ in range(5):
                await second.owning._cluster_tick()
                await first.owning._cluster_tick()
                if len(second.matches) == 3:
                    break
                await asyncio.sleep(0.3)
            assert len(first.matches) == 3 and len(second.matches) == 3, (len(first.matches), len(second.matches))
            moved = set(second.matches)
            for mid in moved:  # the first's sockets of a moved match are closed (1012: reconnect)
                assert subs[mid].outbox.get_nowait() is not None  # the view it had
                leftover = [subs[mid].outbox.get_nowait() for _ in range(subs[mid].outbox.qsize())]
                assert leftover[-1] is None, leftover
            stored = first.store.load_match(made[5].id)
            assert stored is not None  # the acknowledged action once, the refused one not at all
            assert [e.action for e in stored.events if e.action is not None] == [outcomes[0][1]]
            # the new owner goes on
            for m in made:
                if m.id in moved:
                    match = second.get(m.id)
                    seat = next(s for s in range(2) if second.legal_texts(match, s))
                    token = m.seat_tokens[seat]
                    version = match.version_for(await second.role_for(match, token))
                    await second.submit(m.id, token, second.legal_texts(match, seat)[0], version)
            # balanced: nothing moves any more
            await second.owning._cluster_tick()
            await first.owning._cluster_tick()
            assert len(first.matches) == 3 and len(second.matches) == 3
        finally:
            for service in (first, second):
                await service.close()

    try:
        asyncio.run(run())
    finally:
        for e in engines:
            e.dispose()
