"""The first schema: hosts, matches, and the append-only events of each match.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hosts",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("host_hash", sa.String(64), sa.ForeignKey("hosts.token_hash"), nullable=False),
        sa.Column("seat_hashes", sa.JSON, nullable=False),
        sa.Column("spectator_hash", sa.String(64), nullable=False),
        sa.Column("host_sees_all", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("paused", sa.Boolean, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("clocks", sa.JSON, nullable=False),
        sa.Column("clock_at", sa.Float, nullable=False),
    )
    op.create_index("ix_matches_host_hash", "matches", ["host_hash"])
    op.create_index("ix_matches_status", "matches", ["status"])
    op.create_table(
        "events",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("action", sa.String(4096), nullable=True),
        sa.Column("chance", sa.JSON, nullable=True),
        sa.Column("arrived_at", sa.Float, nullable=False),
        sa.Column("clocks", sa.JSON, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("events")
    op.drop_index("ix_matches_status", "matches")
    op.drop_index("ix_matches_host_hash", "matches")
    op.drop_table("matches")
    op.drop_table("hosts")
