"""A creative's current images: `image_assets.superseded_at` (null while the row is in its creative's
current set; the time a redone picture replaced it, which keeps it as history).

Existing rows: a completed creative's current pictures are those its last `workflow_complete` named; any
other task index keeps its newest row; the rest are marked superseded when their task's next row was made.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("image_assets") as batch:
        batch.add_column(sa.Column("superseded_at", sa.DateTime(timezone=True), nullable=True))
    _backfill(op.get_bind())


def downgrade() -> None:
    with op.batch_alter_table("image_assets") as batch:
        batch.drop_column("superseded_at")


def _payload(value: Any) -> dict[str, Any]:
    if isinstance(value, str | bytes):
        value = json.loads(value)
    return value if isinstance(value, dict) else {}


def _backfill(conn: sa.Connection) -> None:
    when = sa.DateTime(timezone=True)
    rows = conn.execute(
        sa.text(
            "SELECT a.id, a.creative_id, a.task_index, a.created_at, c.thread_id FROM image_assets a "
            "JOIN creatives c ON c.id = a.creative_id WHERE a.task_index IS NOT NULL ORDER BY a.id"
        ).columns(created_at=when)
    ).all()
    by_task: dict[tuple[int, int], list[Any]] = {}
    creative_of: dict[str, int] = {}
    for row in rows:
        by_task.setdefault((row.creative_id, row.task_index), []).append(row)
        creative_of[row.thread_id] = row.creative_id
    delivered: dict[int, set[int]] = {}  # creative id → the asset ids of its last workflow_complete
    for thread_id, payload in conn.execute(
        sa.text("SELECT thread_id, payload FROM run_events WHERE type = 'workflow_complete' ORDER BY seq")
    ).all():
        if thread_id in creative_of:
            ids = _payload(payload).get("imageAssetIds") or []
            delivered[creative_of[thread_id]] = {i for i in ids if isinstance(i, int)}
    superseded: list[dict[str, Any]] = []
    for (creative_id, _), group in by_task.items():
        named = [row for row in group if row.id in delivered.get(creative_id, set())]
        keep = named[-1] if named else group[-1]
        for position, row in enumerate(group):
            if row is not keep:  # left the set when its task's next row was made
                later = group[position + 1] if position + 1 < len(group) else row  # after the kept one
                superseded.append({"id": row.id, "at": later.created_at or datetime.now(UTC)})
    if superseded:
        update = sa.text("UPDATE image_assets SET superseded_at = :at WHERE id = :id").bindparams(
            sa.bindparam("at", type_=when)
        )
        conn.execute(update, superseded)
