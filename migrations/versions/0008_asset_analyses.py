"""Image analyses: `asset_analyses` (one row per asset: its recognised text and element boxes as JSON, and
when they were computed). Nothing to backfill: analyses are computed on first request.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-20
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "asset_analyses",
        sa.Column(
            "asset_id",
            sa.Integer(),
            sa.ForeignKey("image_assets.id", ondelete="CASCADE"),
            primary_key=True,
            autoincrement=False,
        ),
        sa.Column("analysis", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("asset_analyses")
