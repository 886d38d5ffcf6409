"""A match's pace: live (the game's clock), scaled, or slow (hours per action, quiet hours).

``matches.pace`` is the pace as JSON (``blackwhite.engine.Pace.to_json``); null is live,
the pace of every match stored before this revision.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("pace", sa.JSON, nullable=True))


def downgrade() -> None:
    op.drop_column("matches", "pace")
