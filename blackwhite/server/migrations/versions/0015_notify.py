"""Notifications (blackwhite/server/notify.py): notices, their outbox, who is told how.

``notify_notices``: one row per event and seat, keyed so that a notice found twice is
written once; ``notify_outbox``: one row per notice and destination, marked after it
was sent; ``notify_seats``: the host's ``email`` for a seat; ``notify_prefs``: channels a
recipient turned off (unsubscribe); ``notify_push``: Web Push subscriptions;
``notify_links``: single-use links in messages (hashes); ``notify_keys``: the seat keys
those links give (hashes); ``notify_lease``: which process sends.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notify_notices",
        sa.Column("key", sa.String(200), primary_key=True),
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("facts", sa.JSON, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_notify_notices_match_id", "notify_notices", ["match_id"])
    op.create_table(
        "notify_outbox",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("notice", sa.String(200), nullable=False),
        sa.Column("recipient", sa.String(64), nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("address", sa.Text, nullable=False),
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("due", sa.Float, nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("sent", sa.Float, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("error", sa.Text, nullable=True),
    )
    op.create_index("ix_notify_outbox_match_id", "notify_outbox", ["match_id"])
    op.create_index("ix_notify_outbox_state", "notify_outbox", ["state"])
    op.create_table(
        "notify_seats",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("email", sa.String(254), nullable=False),
    )
    op.create_table(
        "notify_prefs",
        sa.Column("recipient", sa.String(64), primary_key=True),
        sa.Column("channel", sa.String(16), primary_key=True),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "notify_push",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("recipient", sa.String(64), nullable=False),
        sa.Column("who", sa.String(300), nullable=False),
        sa.Column("endpoint", sa.Text, nullable=False),
        sa.Column("p256dh", sa.String(200), nullable=False),
        sa.Column("auth", sa.String(100), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_notify_push_recipient", "notify_push", ["recipient"])
    op.create_table(
        "notify_links",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("used", sa.Float, nullable=True),
    )
    op.create_table(
        "notify_keys",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_notify_keys_match_id", "notify_keys", ["match_id"])
    op.create_table(
        "notify_lease",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("until", sa.Float, nullable=False),
    )


def downgrade() -> None:
    for table in ("notify_lease", "notify_keys", "notify_links", "notify_push", "notify_prefs", "notify_seats",
                  "notify_outbox", "notify_notices"):
        op.drop_table(table)
