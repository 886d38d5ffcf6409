"""Quotas counted in the database: who made a match, and which hosts are anonymous.

``matches.creator``: the client address (by :func:`blackwhite.server.limits.client_key`)
an anonymous host created the match from; ``matches.bot_only``: every seat is a bot;
``host_ids.anonymous``: the host was made with its first match (no operator made it).
A new match is counted against these in the transaction that inserts it, so a quota
holds across tokens, processes and restarts.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("creator", sa.String(64), nullable=True))
    op.add_column("matches", sa.Column("bot_only", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_index("ix_matches_creator", "matches", ["creator"])
    op.add_column("host_ids", sa.Column("anonymous", sa.Boolean, nullable=False, server_default=sa.false()))
    # hosts made by their first match: their first link says so
    op.execute("UPDATE host_ids SET anonymous = TRUE WHERE owner = FALSE AND id IN "
               "(SELECT host_id FROM hosts WHERE label = 'made with its first match')")


def downgrade() -> None:
    op.drop_column("host_ids", "anonymous")
    op.drop_index("ix_matches_creator", "matches")
    op.drop_column("matches", "bot_only")
    op.drop_column("matches", "creator")
