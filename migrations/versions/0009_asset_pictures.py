"""An image model's bare picture: `image_assets.picture_path` (the picture as the model drew it, before the
card overlay, relative to the assets dir), so new parameters can be drawn on it again without the model.
Existing rows keep null: their pictures were not kept.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("image_assets") as batch:
        batch.add_column(sa.Column("picture_path", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("image_assets") as batch:
        batch.drop_column("picture_path")
