"""Rebalancing: a process that has fewer matches than its fair share asks for some.

A row of ``handovers`` names a running match and the process that asked for it; the
match's owner lets it go (between two of its writes, its sockets closed with 1012 so
they reconnect), and the asking process takes it over.  Other processes leave such a
match to the asker for a few seconds (docs/server.md, "Several processes").

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "handovers",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("to_process", sa.String(32), nullable=False),
        sa.Column("asked", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("handovers")
