"""Ratings: each finished match's outcome, each game's OpenSkill fold and how far it went.

All three tables hold values of functions of the matches (blackwhite/server/ratings.py):
``blackwhite ratings rebuild`` empties and refills them from the stored events.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_results",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("identities", sa.JSON, nullable=True),
        sa.Column("places", sa.JSON, nullable=True),
        sa.Column("note", sa.Text, nullable=True),
    )
    op.create_index("ix_match_results_game", "match_results", ["game"])
    op.create_table(
        "ratings",
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("identity", sa.String(240), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("draws", sa.Integer, nullable=False),
        sa.Column("losses", sa.Integer, nullable=False),
        sa.Column("last_at", sa.Float, nullable=False),
    )
    op.create_table(
        "rating_games",
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("folded", sa.Integer, nullable=False),
        sa.Column("last_at", sa.Float, nullable=False),
        sa.Column("last_match", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rating_games")
    op.drop_table("ratings")
    op.drop_index("ix_match_results_game", table_name="match_results")
    op.drop_table("match_results")
