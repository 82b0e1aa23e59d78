"""A creative's cost may be unknown: `creatives.cost_usd` becomes nullable (null = a model without a known
price took part; never a made-up 0).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("creatives") as batch:
        batch.alter_column("cost_usd", existing_type=sa.Float(), nullable=True)


def downgrade() -> None:
    op.execute("UPDATE creatives SET cost_usd = 0 WHERE cost_usd IS NULL")
    with op.batch_alter_table("creatives") as batch:
        batch.alter_column("cost_usd", existing_type=sa.Float(), nullable=False)
