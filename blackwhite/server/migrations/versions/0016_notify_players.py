"""Notifications for players (blackwhite/server/notify.py): the Discord bridge's DMs
(``notify_dm``: a digest handed to the bridge, marked when it was delivered), and which
player a single-use link and the seat key it gives were made for (``player``: a key stops
when its seat is bound to someone else).

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notify_dm",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("discord_id", sa.String(32), nullable=False),
        sa.Column("message", sa.JSON, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("delivered", sa.Float, nullable=True),
    )
    op.create_index("ix_notify_dm_delivered", "notify_dm", ["delivered"])
    with op.batch_alter_table("notify_links") as batch:
        batch.add_column(sa.Column("player", sa.String(32), nullable=True))
    with op.batch_alter_table("notify_keys") as batch:
        batch.add_column(sa.Column("player", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("notify_keys") as batch:
        batch.drop_column("player")
    with op.batch_alter_table("notify_links") as batch:
        batch.drop_column("player")
    op.drop_index("ix_notify_dm_delivered", "notify_dm")
    op.drop_table("notify_dm")
