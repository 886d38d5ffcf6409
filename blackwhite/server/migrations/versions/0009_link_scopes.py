"""Host links with a scope and an expiry.

``hosts.scope`` is what a link may do: ``owner`` (everything: links, co-hosts, matches;
every link made before this revision) or ``matches`` (create and run matches only, the
link of a bot or a co-organiser).  ``hosts.expires`` is when the link stops logging in
(null: never); with ``hosts.until_used`` the expiry holds only until the link is first
used, so the link each start prints does not pile up as a live link when nobody opens it.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs: SQLite needs no table rebuild
    op.add_column("hosts", sa.Column("scope", sa.String(16), nullable=False, server_default="owner"))
    op.add_column("hosts", sa.Column("expires", sa.Float, nullable=True))
    op.add_column("hosts", sa.Column("until_used", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("hosts", "until_used")
    op.drop_column("hosts", "expires")
    op.drop_column("hosts", "scope")
