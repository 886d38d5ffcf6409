"""Player identities that last: a player, its login links, and the seats bound to it.

``players`` holds a player's id (16 hex digits, not a secret), display name, optional
Discord user id (unique: the bridge maps a Discord user to one player) and email, the
host that made it (null: the operator, ``blackwhite players new``), the client address
an anonymous host made it from (the quota counts it), and when it was first logged in
as (``claimed``: from then on only the player, or the operator, manages its links).
``player_links`` are its login links, as ``hosts`` are a host's: a token's SHA-256, a
label, when made and revoked, an expiry (``until_used``: only until first used), and
who made it.  ``player_seats`` binds a match's seat to a player, who then plays it with
its own login instead of a seat link.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("discord_id", sa.String(32), nullable=True, unique=True),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("host_id", sa.String(32), nullable=True, index=True),
        sa.Column("creator", sa.String(64), nullable=True, index=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("claimed", sa.Float, nullable=True),
    )
    op.create_table(
        "player_links",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False, index=True),
        sa.Column("label", sa.String(64), nullable=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("revoked", sa.Float, nullable=True),
        sa.Column("expires", sa.Float, nullable=True),
        sa.Column("until_used", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("made_by", sa.String(40), nullable=False, server_default="player"),
    )
    op.create_table(
        "player_seats",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False, index=True),
        sa.Column("bound", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("player_seats")
    op.drop_table("player_links")
    op.drop_table("players")
