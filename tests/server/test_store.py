"""The store on SQLite and a real PostgreSQL: migrations, events as a match record, replay on start-up."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, inspect, select, text

from blackwhite.app import create_app
from blackwhite.engine import replay
from blackwhite.server.service import Role
from blackwhite.server.store import EventRow, MatchRow, make_engine, migrate, normalise_url

#: the migration scripts; the newest is the head every migrated database stands at
MIGRATIONS = Path(__file__).resolve().parents[2] / "blackwhite" / "server" / "migrations" / "versions"


def migrated_to(url: str, revision: str) -> Engine:
    """An engine on ``url`` with its schema at the migration ``revision`` (an older
    database, for the tests that an upgrade keeps what it stored)."""
    from alembic import command
    from alembic.config import Config

    from blackwhite.server.store import MIGRATIONS

    engine = make_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)
    return engine


def make_client(url: str) -> TestClient:
    return TestClient(create_app(url, bot_workers=0, clock_interval=None, rate_limit=False))


def play_some(c: TestClient, mid: str, tokens: list[str], moves: int, rng: random.Random) -> int:
    """Play ``moves`` random legal actions through the API (what a seat's view lists as legal)."""
    from blackwhite.server.service import MatchService

    service: MatchService = c.app.state.service  # type: ignore[attr-defined]
    done = 0
    while done < moves:
        match = service.get(mid)
        state = match.state
        if state.is_over():
            break
        seat = state.to_move()[0]
        action = rng.choice(state.legal_actions(seat))
        r = c.post(f"/api/matches/{mid}/actions", params={"token": tokens[seat]},
                   json={"action": state.format_action(action), "version": match.version_for(Role("seat", seat))})
        assert r.status_code == 200, r.text
        done += 1
    return done


def test_migrations_make_the_schema_and_run_twice_harmlessly(db_url: str) -> None:
    engine = make_engine(db_url)
    migrate(engine)
    migrate(engine)
    assert {"hosts", "matches", "events", "heartbeat", "processes", "owners", "analysis_jobs", "alembic_version"} <= set(inspect(engine).get_table_names())
    with engine.connect() as conn:
        newest = max(p.name.split("_", 1)[0] for p in MIGRATIONS.glob("0*.py"))
        assert conn.execute(text("select version_num from alembic_version")).scalar() == newest
    engine.dispose()


def test_sqlite_runs_in_wal_mode_with_normal_sync(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 1  # NORMAL
    engine.dispose()


def joined(c: TestClient, made: dict[str, Any]) -> dict[str, Any]:
    """Every seat opens its link once (the clocks start when all have): ``made`` itself."""
    for token in made["tokens"]["seats"]:
        if token:
            assert c.get(f"/api/matches/{made['id']}/view", params={"token": token}).status_code == 200
    return made


def test_postgres_urls_mean_psycopg3() -> None:
    assert normalise_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalise_url("sqlite:///x.db") == "sqlite:///x.db"


@pytest.mark.parametrize("game", ["grouping", "domino"])
def test_events_are_the_match_record_and_a_restart_rebuilds_the_same_match(db_url: str, game: str) -> None:
    rng = random.Random(5)
    with make_client(db_url) as c:
        made = joined(c, c.post("/api/matches", json={"game": game, "seats": [{"name": "Sally"}, {"name": "Maddie"}],
                                            "host_sees_all": True}).json())
        mid, tokens, host = made["id"], made["tokens"]["seats"], made["host_token"]
        play_some(c, mid, tokens, 12, rng)
        before_views = [c.get(f"/api/matches/{mid}/view", params={"token": t}).json() for t in tokens]
        record = c.get(f"/api/matches/{mid}/record", params={"token": host}).json()
    # the stored events, replayed by the referee's own code, are the same match
    rep = replay(record)
    assert rep.error is None and record["seats"] == ["Sally", "Maddie"]
    if game == "grouping":  # dealt by the server: the deals are written as chance events
        assert any(e.get("chance") == "deal" for e in record["events"])
    assert "seed" not in record
    with make_client(db_url) as c:
        after_views = [c.get(f"/api/matches/{mid}/view", params={"token": t}).json() for t in tokens]
        assert [v["view"] for v in after_views] == [v["view"] for v in before_views]
        assert [v["version"] for v in after_views] == [v["version"] for v in before_views]
        assert c.get(f"/api/matches/{mid}/record", params={"token": host}).json() == record
        # and play goes on where it stopped
        assert play_some(c, mid, tokens, 3, rng) >= 0


def test_each_event_row_has_its_arrival_and_every_seats_clock(db_url: str) -> None:
    with make_client(db_url) as c:
        made = joined(c, c.post("/api/matches", json={"game": "swapping"}).json())
        mid, tokens = made["id"], made["tokens"]["seats"]
        c.post(f"/api/matches/{mid}/actions", params={"token": tokens[0]},
               json={"action": "place 8 0 3", "version": 0}).raise_for_status()
    engine = make_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(select(EventRow.__table__).where(EventRow.__table__.c.match_id == mid)).mappings().all()
        match = conn.execute(select(MatchRow.__table__).where(MatchRow.__table__.c.id == mid)).mappings().one()
    engine.dispose()
    assert len(rows) == 1 and rows[0]["seat"] == 0 and rows[0]["action"] == "place 8 0 3"
    assert rows[0]["idx"] == 0 and rows[0]["arrived_at"] > 0
    assert len(rows[0]["clocks"]["seats"]) == 2 and match["version"] == 1


def test_tokens_are_stored_only_as_hashes(db_url: str) -> None:
    with make_client(db_url) as c:
        made = joined(c, c.post("/api/matches", json={"game": "swapping", "seats": [{"name": "A"}, {"bot": "random"}]}).json())
    secrets_given = [made["host_token"], made["tokens"]["spectator"], *(t for t in made["tokens"]["seats"] if t)]
    engine = make_engine(db_url)
    dump: list[Any] = []
    with engine.connect() as conn:
        for table in ("hosts", "matches", "events"):
            dump.extend(conn.execute(text(f"select * from {table}")).all())
    engine.dispose()
    blob = repr(dump)
    for token in secrets_given:
        assert token not in blob


def test_a_refused_action_writes_nothing(db_url: str) -> None:
    with make_client(db_url) as c:
        made = joined(c, c.post("/api/matches", json={"game": "swapping"}).json())
        mid, tokens = made["id"], made["tokens"]["seats"]
        for body in ({"action": "place 8 8 8", "version": 0}, {"action": "gibberish", "version": 0},
                     {"action": "place 8 0 3", "version": 7}):
            assert c.post(f"/api/matches/{mid}/actions", params={"token": tokens[0]}, json=body).status_code >= 400
    engine = make_engine(db_url)
    with engine.connect() as conn:
        assert conn.execute(text("select count(*) from events")).scalar() == 0
        assert conn.execute(text("select version from matches")).scalar() == 0
    engine.dispose()


def test_the_heartbeat_is_one_row_moved_on(db_url: str) -> None:
    from blackwhite.server.store import Store

    engine = make_engine(db_url)
    migrate(engine)
    store = Store(engine)
    assert store.last_beat() is None
    store.beat(100.0)
    store.beat(101.5)
    assert store.last_beat() == 101.5
    with engine.connect() as conn:
        assert conn.execute(text("select count(*) from heartbeat")).scalar() == 1
    engine.dispose()


def test_processes_starting_at_once_both_make_the_heartbeat(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes over one database may both find the heartbeat row missing and both
    insert it: the second must move the row on, not fail its start on the primary key.
    Forced here by an update that finds no row while the row is there."""
    from blackwhite.server import store as store_module

    engine = make_engine(db_url)
    migrate(engine)
    store = store_module.Store(engine)
    store.beat(100.0)
    table = store_module.HeartbeatRow
    monkeypatch.setattr(store_module, "_BEAT", store_module._BEAT.where(table.id != 1))  # what the other process saw
    store.beat(101.5)
    store.settle([], 102.0)
    assert store.last_beat() == 102.0
    with engine.connect() as conn:
        assert conn.execute(text("select count(*) from heartbeat")).scalar() == 1
    store.close()
    engine.dispose()


def test_a_write_survives_the_kept_connection_dying(db_url: str) -> None:
    from blackwhite.server.store import Store

    engine = make_engine(db_url)
    migrate(engine)
    store = Store(engine)
    store.beat(1.0)
    kept = store._local.conn  # this thread's kept connection
    assert kept is not None
    kept.connection.dbapi_connection.close()  # as a database restart would
    store.beat(2.0)
    assert store.last_beat() == 2.0
    store.close()
    engine.dispose()


def test_the_head_read_from_the_migration_files_is_alembic_s_head() -> None:
    """Start-up skips loading Alembic when the database is at the head read from the files:
    that reading must agree with Alembic's own."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from blackwhite.server.store import MIGRATIONS, _head_revision

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    assert _head_revision() == ScriptDirectory.from_config(config).get_current_head()


def test_a_stored_status_is_one_of_the_three() -> None:
    from blackwhite.server.store import MATCH_STATUSES, match_status

    assert [match_status(s) for s in MATCH_STATUSES] == ["running", "finished", "cancelled"]
    with pytest.raises(ValueError, match="unknown match status 'paused'"):
        match_status("paused")
