"""Accounts: users, api_tokens, sessions, login_attempts and audit_records (tools/accounts.py).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("password_hash", sa.Text()),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.Column("password_changed_at", TS),
        sa.Column("disabled_at", TS),
    )
    op.create_index("ix_users_name", "users", ["name"], unique=True)

    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("note", sa.String(200)),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS),
        sa.Column("revoked_at", TS),
        sa.Column("last_used_at", TS),
    )
    op.create_index("ix_api_tokens_user_id", "api_tokens", ["user_id"])
    op.create_index("ix_api_tokens_token_hash", "api_tokens", ["token_hash"], unique=True)

    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("csrf_secret", sa.String(64), nullable=False),
        sa.Column("address", sa.String(64)),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        sa.Column("last_seen_at", TS, nullable=False),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_index("ix_sessions_expires_at", "sessions", ["expires_at"])

    op.create_table(
        "login_attempts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("account", sa.String(64), nullable=False),
        sa.Column("address", sa.String(64)),
        sa.Column("succeeded", sa.Boolean(), nullable=False),
        sa.Column("at", TS, nullable=False),
    )
    op.create_index("ix_login_attempts_at", "login_attempts", ["at"])
    op.create_index("ix_login_attempts_account_at", "login_attempts", ["account", "at"])
    op.create_index("ix_login_attempts_address_at", "login_attempts", ["address", "at"])

    op.create_table(
        "audit_records",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("at", TS, nullable=False),
        sa.Column("actor", sa.String(128), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL")),
        sa.Column("action", sa.String(48), nullable=False),
        sa.Column("thread_id", sa.String(128)),
        sa.Column("creative_id", sa.Integer(), sa.ForeignKey("creatives.id", ondelete="SET NULL")),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("address", sa.String(64)),
    )
    op.create_index("ix_audit_records_at", "audit_records", ["at"])
    op.create_index("ix_audit_records_user_id", "audit_records", ["user_id"])
    op.create_index("ix_audit_records_action", "audit_records", ["action"])
    op.create_index("ix_audit_records_thread_id", "audit_records", ["thread_id"])
    op.create_index("ix_audit_records_creative_id", "audit_records", ["creative_id"])


def downgrade() -> None:
    for index in ("creative_id", "thread_id", "action", "user_id", "at"):
        op.drop_index(f"ix_audit_records_{index}", table_name="audit_records")
    op.drop_table("audit_records")
    for index in ("address_at", "account_at", "at"):
        op.drop_index(f"ix_login_attempts_{index}", table_name="login_attempts")
    op.drop_table("login_attempts")
    op.drop_index("ix_sessions_expires_at", table_name="sessions")
    op.drop_index("ix_sessions_user_id", table_name="sessions")
    op.drop_table("sessions")
    op.drop_index("ix_api_tokens_token_hash", table_name="api_tokens")
    op.drop_index("ix_api_tokens_user_id", table_name="api_tokens")
    op.drop_table("api_tokens")
    op.drop_index("ix_users_name", table_name="users")
    op.drop_table("users")
