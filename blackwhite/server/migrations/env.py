"""Alembic environment: migrations run on the connection the server hands over."""

from __future__ import annotations

from alembic import context

from blackwhite.server.store import Base

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only the server runs these migrations
    raise RuntimeError("blackwhite's migrations run through blackwhite.server.store.migrate(engine)")
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
