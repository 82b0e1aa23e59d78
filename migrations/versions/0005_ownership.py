"""Ownership and one-time login links: `creatives.owner_id` (the user who started the run; null for runs
started before accounts existed or from the local CLI) and `creatives.started_by` (the actor:
`user:<name>`, `cli:<os user>`), and `login_links` (the one-time login URL a first start prints).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("creatives") as batch:
        batch.add_column(sa.Column("owner_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("started_by", sa.String(128), nullable=True))
        batch.create_foreign_key("fk_creatives_owner_id", "users", ["owner_id"], ["id"], ondelete="SET NULL")
        batch.create_index("ix_creatives_owner_id", ["owner_id"])

    op.create_table(
        "login_links",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("used_at", TS),
    )
    op.create_index("ix_login_links_user_id", "login_links", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_login_links_user_id", table_name="login_links")
    op.drop_table("login_links")
    with op.batch_alter_table("creatives") as batch:
        batch.drop_index("ix_creatives_owner_id")
        batch.drop_constraint("fk_creatives_owner_id", type_="foreignkey")
        batch.drop_column("started_by")
        batch.drop_column("owner_id")
