"""``blackwhite serve``: live matches for remote players, durable, clocked and secret-safe.

The server is an adapter over the engine: ``app`` (HTTP and WebSocket routes),
``service`` (live matches in memory, one lock each, commit then broadcast),
``store`` (SQLAlchemy tables and Alembic migrations; a match is its event rows),
``clocks`` (pure functions over clock readings) and ``bots`` (bot seats thinking in
worker processes).  Importing this package imports none of them, so the command
line stays quick to start.
"""
