"""Ownership that follows liveness: a lease per process and an ownership epoch per match.

``processes.expires`` is the moment (the database's clock, Unix seconds) a process's
lease runs out unless its heartbeat renews it; another process may then take its
matches over even while its session still holds their advisory locks.
``matches.epoch`` moves on by one at every takeover, and every write of a running match
(an action, pause, resume, extra time, a join, the start, co-hosts, cancel) is fenced by
it, so an owner that was stopped and woke up cannot write behind its successor's back
(docs/server.md, "Several processes").

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs: SQLite needs no table rebuild (which the events' foreign key would refuse)
    op.add_column("matches", sa.Column("epoch", sa.Integer, nullable=False, server_default="0"))
    op.add_column("processes", sa.Column("expires", sa.Float, nullable=True))


def downgrade() -> None:
    # plain DROP COLUMNs (SQLite 3.35+): a table rebuild drops the table, which the foreign keys refuse
    op.drop_column("processes", "expires")
    op.drop_column("matches", "epoch")
