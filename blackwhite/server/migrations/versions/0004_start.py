"""A fair clock start: a match's clocks start when it is ready, not when it is created.

``start`` is the match's policy (``when_joined``: once every person's seat has opened
its link; ``now``; ``at``: at ``start_at``); ``joined`` lists, per seat, whether that
seat has opened its link.  Whether the clocks have started is part of the stored clock
readings (``"started"``), so a restart before the start still charges no one.  Matches
stored before this revision had started at creation: they read as ``start = "now"``.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs: SQLite needs no table rebuild (which the events' foreign key would refuse)
    op.add_column("matches", sa.Column("start", sa.String(16), nullable=False, server_default="now"))
    op.add_column("matches", sa.Column("start_at", sa.Float, nullable=True))
    op.add_column("matches", sa.Column("joined", sa.JSON, nullable=True))


def downgrade() -> None:
    # plain DROP COLUMNs (SQLite 3.35+): a table rebuild drops the table, which the foreign keys refuse
    op.drop_column("matches", "joined")
    op.drop_column("matches", "start_at")
    op.drop_column("matches", "start")
