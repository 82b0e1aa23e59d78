"""Versions of a creative: `creative_versions` (what each completed run or restore left: title, body, tags,
the image set, the plans, the review, what made it and who; numbered from 1 per creative, never changed)
and `creatives.current_version` (the number of the version the row shows). Every completed creative gets
its version 1 from its row and its last `workflow_complete` event (the image set and the scores).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-12
"""

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("creatives") as batch:
        batch.add_column(sa.Column("current_version", sa.Integer(), nullable=False, server_default="0"))
    versions = op.create_table(
        "creative_versions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "creative_id", sa.Integer(), sa.ForeignKey("creatives.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("title", sa.Text()),
        sa.Column("body", sa.Text()),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("asset_ids", sa.JSON(), nullable=False),
        sa.Column("image_plans", sa.JSON(), nullable=False),
        sa.Column("overlay_plan", sa.JSON(), nullable=False),
        sa.Column("review", sa.JSON()),
        sa.Column("source", sa.String(32), nullable=False),
        sa.Column("actor", sa.String(128)),
        sa.Column("based_on", sa.Integer()),
        sa.Column("restored_from", sa.Integer()),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("creative_id", "number", name="uq_creative_versions_number"),
    )
    op.create_index("ix_creative_versions_creative_id", "creative_versions", ["creative_id"])
    _backfill(versions)


def _backfill(versions: sa.Table) -> None:
    """Version 1 of every completed creative."""
    conn = op.get_bind()
    creatives = sa.table(
        "creatives",
        *(sa.column(c) for c in ("id", "thread_id", "status", "title", "body", "started_by")),
        sa.column("tags", sa.JSON()), sa.column("image_plans", sa.JSON()), sa.column("overlay_plan", sa.JSON()),
        sa.column("completed_at", TS), sa.column("updated_at", TS), sa.column("current_version", sa.Integer()),
    )
    events = sa.table(
        "run_events", sa.column("thread_id"), sa.column("seq"), sa.column("type"), sa.column("payload", sa.JSON())
    )
    rows = conn.execute(sa.select(creatives).where(creatives.c.status == "completed")).mappings().all()
    for row in rows:
        final: dict[str, Any] = conn.execute(
            sa.select(events.c.payload)
            .where(events.c.thread_id == row["thread_id"], events.c.type == "workflow_complete")
            .order_by(events.c.seq.desc())
            .limit(1)
        ).scalar() or {}
        conn.execute(versions.insert().values(
            creative_id=row["id"], number=1, title=row["title"], body=row["body"], tags=row["tags"] or [],
            asset_ids=final.get("imageAssetIds") or [], image_plans=row["image_plans"] or [],
            overlay_plan=row["overlay_plan"] or [], review=final.get("qualityScores"), source="run",
            actor=row["started_by"], created_at=row["completed_at"] or row["updated_at"] or datetime.now(UTC),
        ))
        conn.execute(creatives.update().where(creatives.c.id == row["id"]).values(current_version=1))


def downgrade() -> None:
    op.drop_index("ix_creative_versions_creative_id", table_name="creative_versions")
    op.drop_table("creative_versions")
    with op.batch_alter_table("creatives") as batch:
        batch.drop_column("current_version")
