"""The replay page's analysis jobs, in the database: any server process answers for any job.

A job runs in the process that started it (in its analysis worker); that process writes
the job's state, progress and, once done, its chart here.  Another process serves a job
from this table when the one that ran it is gone, and marks a job that was queued or
running then as failed (docs/server.md, "Several processes").

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analysis_jobs",
        sa.Column("id", sa.String(100), primary_key=True),
        sa.Column("process_id", sa.String(32), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("chart", sa.JSON, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("updated", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("analysis_jobs")
