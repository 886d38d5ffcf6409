"""Host identity that lasts: matches belong to a host, and a host has many login links.

Before, a host *was* one token: each ``blackwhite serve`` minted a new one, and the
matches of the last were out of reach through the next.  Now ``host_ids`` holds host
identities (``owner`` marks the one ``blackwhite serve`` prints links for); the rows of
``hosts`` are its login links (a token's hash, which host it logs in as, a label, and
when it was revoked); a match belongs to ``matches.host_id`` and may name co-hosts
(``matches.cohosts``, host ids) who control it too.  ``matches.host_hash`` stays: the
link the match was created through.

An existing database is upgraded in place: each token stored so far becomes a host of
its own with that token as its one link, and keeps its matches (``blackwhite hosts
merge`` moves an old host's links and matches under another host).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "host_ids",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("owner", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    # plain ADD COLUMNs: SQLite needs no table rebuild (which the foreign keys would refuse)
    op.add_column("hosts", sa.Column("host_id", sa.String(32), nullable=True))
    op.add_column("hosts", sa.Column("label", sa.String(64), nullable=True))
    op.add_column("hosts", sa.Column("revoked", sa.Float, nullable=True))
    op.create_index("ix_hosts_host_id", "hosts", ["host_id"])
    op.add_column("matches", sa.Column("host_id", sa.String(32), nullable=True))
    op.add_column("matches", sa.Column("cohosts", sa.JSON, nullable=True))
    op.create_index("ix_matches_host_id", "matches", ["host_id"])

    bind = op.get_bind()
    hosts = sa.table("hosts", sa.column("token_hash", sa.String), sa.column("created", sa.Float),
                     sa.column("host_id", sa.String), sa.column("label", sa.String))
    ids = sa.table("host_ids", sa.column("id", sa.String), sa.column("created", sa.Float),
                   sa.column("owner", sa.Boolean))
    matches = sa.table("matches", sa.column("host_hash", sa.String), sa.column("host_id", sa.String))
    for token_hash, created in bind.execute(sa.select(hosts.c.token_hash, hosts.c.created)).all():
        host_id = secrets.token_hex(8)
        bind.execute(sa.insert(ids).values(id=host_id, created=created, owner=False))
        bind.execute(sa.update(hosts).where(hosts.c.token_hash == token_hash)
                     .values(host_id=host_id, label="a host link from before revision 0005"))
        bind.execute(sa.update(matches).where(matches.c.host_hash == token_hash).values(host_id=host_id))


def downgrade() -> None:
    op.drop_index("ix_matches_host_id", "matches")
    op.drop_index("ix_hosts_host_id", "hosts")
    # plain DROP COLUMNs (SQLite 3.35+): a table rebuild drops the table, which the foreign keys refuse
    op.drop_column("matches", "cohosts")
    op.drop_column("matches", "host_id")
    op.drop_column("hosts", "revoked")
    op.drop_column("hosts", "label")
    op.drop_column("hosts", "host_id")
    op.drop_table("host_ids")
