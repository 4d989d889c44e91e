"""platform sessions: REST sessions of platform organizations bound to a customer

Revision ID: 0008b
Revises: 0008
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import corridor.models.base

revision: str = "0008b"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "platform_sessions",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("api_key_id", sa.String(length=40), nullable=False),
        sa.Column("customer_id", sa.String(length=40), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["api_key_id"], ["api_keys.id"], name=op.f("fk_platform_sessions_api_key_id_api_keys")
        ),
        sa.ForeignKeyConstraint(
            ["customer_id"],
            ["customers.id"],
            name=op.f("fk_platform_sessions_customer_id_customers"),
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_platform_sessions_organization_id_organizations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_platform_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_platform_sessions_token_hash")),
    )
    with op.batch_alter_table("platform_sessions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_platform_sessions_api_key_id"), ["api_key_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_platform_sessions_customer_id"), ["customer_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_platform_sessions_organization_id"), ["organization_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("platform_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_platform_sessions_organization_id"))
        batch_op.drop_index(batch_op.f("ix_platform_sessions_customer_id"))
        batch_op.drop_index(batch_op.f("ix_platform_sessions_api_key_id"))

    op.drop_table("platform_sessions")
