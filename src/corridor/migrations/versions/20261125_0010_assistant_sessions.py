"""MCP sessions in the database: any API process continues one, and a platform session's
customer binding made in it (spec 5.7) outlives a restart; assistant threads' sessions

Revision ID: 20261125_0010
Revises: 0008b
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import corridor.models.base

revision: str = "20261125_0010"
down_revision: str | None = "0008b"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mcp_sessions",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("actor_id", sa.String(length=40), nullable=False),
        sa.Column("customer_id", sa.String(length=40), nullable=True),
        sa.Column("thread_id", sa.String(length=40), nullable=True),
        sa.Column("created_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["customers.id"], name=op.f("fk_mcp_sessions_customer_id_customers")
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_mcp_sessions_organization_id_organizations"),
        ),
        sa.ForeignKeyConstraint(
            ["thread_id"],
            ["assistant_threads.id"],
            name=op.f("fk_mcp_sessions_thread_id_assistant_threads"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mcp_sessions")),
    )
    with op.batch_alter_table("mcp_sessions", schema=None) as batch_op:
        batch_op.create_index(
            "ix_mcp_sessions_actor_id_last_used_at", ["actor_id", "last_used_at"], unique=False
        )
        batch_op.create_index("ix_mcp_sessions_expires_at", ["expires_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_mcp_sessions_thread_id"), ["thread_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("mcp_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mcp_sessions_thread_id"))
        batch_op.drop_index("ix_mcp_sessions_expires_at")
        batch_op.drop_index("ix_mcp_sessions_actor_id_last_used_at")

    op.drop_table("mcp_sessions")
