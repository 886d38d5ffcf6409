"""Several server processes over one PostgreSQL: who is up, and who owned which match.

``processes`` has a row per running ``blackwhite serve`` (its id, the internal URL other
processes relay requests to, the backend pid of its lock connection, its heartbeat);
``owners`` says which process last took each match, so a process taking a match over
charges its clocks up to that owner's last heartbeat and no further (docs/server.md,
"Several processes").  Who owns a match *now* is PostgreSQL's advisory lock, not a row.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "processes",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("url", sa.String(300), nullable=True),
        sa.Column("backend_pid", sa.Integer, nullable=False),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("beat", sa.Float, nullable=False),
    )
    op.create_table(
        "owners",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("process_id", sa.String(32), nullable=False),
        sa.Column("since", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("owners")
    op.drop_table("processes")
