"""The public version of an ended match, so a listing needs no replay.

A finished or cancelled match leaves the server's memory after a grace period; a host's
listing still shows its summary, whose ``version`` is the public audience's version
(docs/server.md).  It is stored when the match ends, in the transaction that ends it.
Matches that ended before this revision have none: they are replayed once when listed.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("public_version", sa.Integer, nullable=True))


def downgrade() -> None:
    # a plain DROP COLUMN (SQLite 3.35+): a table rebuild drops the table, which the foreign keys refuse
    op.drop_column("matches", "public_version")
