"""Values every server process over the database shares: ``settings`` (name, value).

The first is ``relay``, the secret with which one process tells another which client a
relayed request is from (blackwhite/server/proxy.py): a request that names a client
without it is a plain client's, so nobody can choose their address by relaying.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "settings",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(200), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("settings")
