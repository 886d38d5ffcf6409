"""The server's heartbeat: the last moment a server process was known to be running.

On start-up a running clock is charged up to the last heartbeat (time the server was
up) and not beyond it (time it was down).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "heartbeat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("alive_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("heartbeat")
