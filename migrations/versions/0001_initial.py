"""Initial schema: creatives, image_assets, run_events.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "creatives",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("thread_id", sa.String(128), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("request", sa.Text(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("title", sa.Text()),
        sa.Column("body", sa.Text()),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("brief", sa.JSON()),
        sa.Column("evidence", sa.JSON()),
        sa.Column("reference_analyses", sa.JSON(), nullable=False),
        sa.Column("layout_spec", sa.JSON()),
        sa.Column("image_plans", sa.JSON(), nullable=False),
        sa.Column("bindings", sa.JSON(), nullable=False),
        sa.Column("overlay_plan", sa.JSON(), nullable=False),
        sa.Column("review_rounds", sa.JSON(), nullable=False),
        sa.Column("score", sa.Float()),
        sa.Column("model", sa.String(200)),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=False),
        sa.Column("usage", sa.JSON(), nullable=False),
        sa.Column("timings", sa.JSON(), nullable=False),
        sa.Column("error", sa.JSON()),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.Column("completed_at", TS),
    )
    op.create_index("ix_creatives_thread_id", "creatives", ["thread_id"], unique=True)
    op.create_index("ix_creatives_status", "creatives", ["status"])
    op.create_index("ix_creatives_score", "creatives", ["score"])
    op.create_index("ix_creatives_created_at", "creatives", ["created_at"])

    op.create_table(
        "image_assets",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("creative_id", sa.Integer(), sa.ForeignKey("creatives.id", ondelete="SET NULL")),
        sa.Column("task_index", sa.Integer()),
        sa.Column("role", sa.String(32), nullable=False),
        sa.Column("prompt", sa.Text()),
        sa.Column("provider", sa.String(200), nullable=False),
        sa.Column("file_path", sa.Text(), nullable=False),
        sa.Column("mime", sa.String(64), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("error", sa.Text()),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_image_assets_creative_id", "image_assets", ["creative_id"])
    op.create_index("ix_image_assets_sha256", "image_assets", ["sha256"])

    op.create_table(
        "run_events",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("thread_id", sa.String(128), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(48), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("thread_id", "seq", name="uq_run_events_thread_seq"),
    )
    op.create_index("ix_run_events_thread_type", "run_events", ["thread_id", "type"])


def downgrade() -> None:
    op.drop_index("ix_run_events_thread_type", table_name="run_events")
    op.drop_table("run_events")
    op.drop_index("ix_image_assets_sha256", table_name="image_assets")
    op.drop_index("ix_image_assets_creative_id", table_name="image_assets")
    op.drop_table("image_assets")
    op.drop_index("ix_creatives_created_at", table_name="creatives")
    op.drop_index("ix_creatives_score", table_name="creatives")
    op.drop_index("ix_creatives_status", table_name="creatives")
    op.drop_index("ix_creatives_thread_id", table_name="creatives")
    op.drop_table("creatives")
