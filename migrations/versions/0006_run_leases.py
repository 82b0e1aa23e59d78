"""Runs across processes: `creatives.last_seq` (the thread's event counter, so the database allocates
every event's `seq`, safe under concurrent writers), `run_leases` (which worker runs a thread, until
when; a cancel asked from another process) and `run_workers` (the processes that take runs, so a stopping
one knows whether a peer will continue its runs).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-10
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("creatives") as batch:
        batch.add_column(sa.Column("last_seq", sa.Integer(), nullable=False, server_default="0"))
    op.execute(
        "UPDATE creatives SET last_seq = (SELECT COALESCE(MAX(seq), 0) FROM run_events"
        " WHERE run_events.thread_id = creatives.thread_id)"
    )
    op.create_table(
        "run_leases",
        sa.Column("thread_id", sa.String(128), primary_key=True),
        sa.Column("owner", sa.String(200), nullable=False),
        sa.Column("acquired_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("cancel_requested_at", TS),
    )
    op.create_index("ix_run_leases_owner", "run_leases", ["owner"])
    op.create_table(
        "run_workers",
        sa.Column("id", sa.String(200), primary_key=True),
        sa.Column("host", sa.String(200), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("takes_runs", sa.Boolean(), nullable=False),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("seen_at", TS, nullable=False),
        sa.Column("stopping_at", TS),
    )


def downgrade() -> None:
    op.drop_table("run_workers")
    op.drop_index("ix_run_leases_owner", table_name="run_leases")
    op.drop_table("run_leases")
    with op.batch_alter_table("creatives") as batch:
        batch.drop_column("last_seq")
