"""Alembic migrations of the server's schema (run by ``store.migrate``)."""
