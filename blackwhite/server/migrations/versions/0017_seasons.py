"""Seasons: a season's row (who hosts it, who may read it) and its append-only ledger.

``seasons.seq`` is the number of entries its ledger holds: every append first moves it
on (taking the row's lock), so the appends of one season are applied one at a time, in
one order, by every process.  ``season_matches`` names the season a server match
belongs to (its result is written to the ledger when it ends).

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seasons",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("host_id", sa.String(32), nullable=False, index=True),
        sa.Column("cohosts", sa.JSON, nullable=True),
        sa.Column("visibility", sa.String(16), nullable=False, server_default="public"),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_table(
        "season_entries",
        sa.Column("season_id", sa.String(32), sa.ForeignKey("seasons.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("cause", sa.Integer, nullable=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("by", sa.String(64), nullable=True),
    )
    op.create_table(
        "season_matches",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("season_id", sa.String(32), sa.ForeignKey("seasons.id"), nullable=False, index=True),
        #: the seat of each player, as JSON {player: seat}
        sa.Column("seats", sa.JSON, nullable=False),
        #: the result has been written to the ledger (or the match was voided)
        sa.Column("settled", sa.Boolean, nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_table("season_matches")
    op.drop_table("season_entries")
    op.drop_table("seasons")
