"""The migrations both ways: every ``downgrade()`` leaves the schema its revision's
``upgrade()`` made, on a database holding a match (which it keeps), down to an empty
database, and upgrading again rebuilds the head (SQLite and a real PostgreSQL)."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import Engine, inspect, text

from blackwhite.server.store import MIGRATIONS, make_engine, migrate

from .test_store import joined, make_client, play_some


def alembic(engine: Engine, action: str, revision: str) -> None:
    """Alembic's ``upgrade``/``downgrade`` to ``revision``, on ``engine`` (as ``migrate`` runs it)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        getattr(command, action)(config, revision)


def revisions() -> list[str]:
    """Every revision, oldest first."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return [s.revision for s in reversed(list(ScriptDirectory.from_config(config).walk_revisions()))]


def schema(engine: Engine) -> dict[str, Any]:
    """Each table (but Alembic's own) with its columns, nullability, indexes and foreign keys."""
    seen = inspect(engine)
    out: dict[str, Any] = {}
    for table in sorted(set(seen.get_table_names()) - {"alembic_version"}):
        out[table] = {
            "columns": sorted((c["name"], c["nullable"]) for c in seen.get_columns(table)),
            "indexes": sorted((i["name"], tuple(i["column_names"])) for i in seen.get_indexes(table)),
            "foreign keys": sorted(
                (tuple(f["constrained_columns"]), f["referred_table"]) for f in seen.get_foreign_keys(table)
            ),
        }
    return out


def test_every_downgrade_undoes_its_upgrade_down_to_base_and_up_again(db_url: str) -> None:
    steps = revisions()
    assert steps[0] == "0001" and len(steps) >= 7
    engine = make_engine(db_url)
    made: dict[str, dict[str, Any]] = {}
    for revision in steps:
        alembic(engine, "upgrade", revision)
        made[revision] = schema(engine)
    head = made[steps[-1]]
    # a database in use: a host, a match with its events, a process owning it
    with make_client(db_url) as c:
        match = joined(c, c.post("/api/matches", json={"game": "swapping"}).json())
        assert play_some(c, match["id"], match["tokens"]["seats"], 6, random.Random(2)) == 6
    with engine.connect() as conn:
        assert conn.execute(text("select count(*) from events")).scalar() == 6
    for k in range(len(steps) - 1, 0, -1):
        alembic(engine, "downgrade", steps[k - 1])
        assert schema(engine) == made[steps[k - 1]], f"downgrade from {steps[k]} to {steps[k - 1]}"
        with engine.connect() as conn:  # and keeps the match
            assert conn.execute(text("select count(*) from events")).scalar() == 6
            assert conn.execute(text("select count(*) from matches")).scalar() == 1
    alembic(engine, "downgrade", "base")
    assert schema(engine) == {}
    migrate(engine)
    assert schema(engine) == head
    with engine.connect() as conn:
        assert conn.execute(text("select version_num from alembic_version")).scalar() == steps[-1]
    engine.dispose()
