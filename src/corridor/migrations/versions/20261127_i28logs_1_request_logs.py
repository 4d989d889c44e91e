"""The request log (issue 28): one row per API request made with an API key or an OAuth
token, kept for the last days.

Revision ID: 20261127_i28logs_1
Revises: 20261127_i27dep_1
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from corridor.models.base import UTCDateTime

revision: str = "20261127_i28logs_1"
down_revision: str | None = "20261127_i27dep_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "request_logs",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("organization_id", sa.String(40), nullable=False),
        sa.Column("credential_id", sa.String(40), nullable=False),
        sa.Column("credential_kind", sa.String(20), nullable=False),
        sa.Column("method", sa.String(10), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("idempotency_key", sa.String(255), nullable=True),
        sa.Column("error_code", sa.String(64), nullable=True),
        sa.Column(
            "error_body",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_request_logs")),
    )
    op.create_index("ix_request_logs_organization_id", "request_logs", ["organization_id", "id"])
    op.create_index(
        "ix_request_logs_credential_id",
        "request_logs",
        ["organization_id", "credential_id", "id"],
    )
    op.create_index("ix_request_logs_created_at", "request_logs", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_request_logs_created_at", table_name="request_logs")
    op.drop_index("ix_request_logs_credential_id", table_name="request_logs")
    op.drop_index("ix_request_logs_organization_id", table_name="request_logs")
    op.drop_table("request_logs")
