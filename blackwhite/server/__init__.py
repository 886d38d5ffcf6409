"""``blackwhite serve``: live matches for remote players, durable, clocked and secret-safe.

The server is an adapter over the engine: ``app`` (HTTP and WebSocket routes),
``service`` (live matches in memory, one lock each, commit then broadcast),
``errors`` (what the service refuses) and ``http`` (the status each refusal is answered
with), ``store`` (SQLAlchemy tables and Alembic migrations; a match is its event rows),
``clocks`` (pure functions over clock readings) and ``bots`` (bot seats thinking in
worker processes).  It never imports the pages (:mod:`blackwhite.web`):
:mod:`blackwhite.app` assembles both.  Importing this package imports none of them, so
the command line stays quick to start.
"""
