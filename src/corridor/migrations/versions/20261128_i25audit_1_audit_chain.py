"""The tamper-evident audit chain (issue 25): audit_events and their per-organization head.

Revision ID: 20261128_i25audit_1
Revises: 20261128_i25policies_1
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from corridor.models.base import UTCDateTime

revision: str = "20261128_i25audit_1"
down_revision: str | None = "20261128_i25policies_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    op.create_table(
        "audit_events",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("organization_id", sa.String(40), nullable=False),
        sa.Column("sequence", sa.BigInteger(), nullable=True),
        sa.Column("kind", sa.String(60), nullable=False),
        sa.Column("agent_id", sa.String(40), nullable=True),
        sa.Column("transfer_id", sa.String(40), nullable=True),
        sa.Column("mandate_id", sa.String(40), nullable=True),
        sa.Column("actor", _JSON, nullable=False),
        sa.Column("outcome", sa.String(40), nullable=False),
        sa.Column("detail", _JSON, nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("previous_hash", sa.String(80), nullable=True),
        sa.Column("hash", sa.String(80), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_events")),
        sa.UniqueConstraint("organization_id", "sequence", name="uq_audit_events_sequence"),
    )
    op.create_index(
        "ix_audit_events_agent_id", "audit_events", ["organization_id", "agent_id", "sequence"]
    )
    op.create_index(
        "ix_audit_events_transfer_id",
        "audit_events",
        ["organization_id", "transfer_id", "sequence"],
    )
    op.create_index(
        "ix_audit_events_unlinked",
        "audit_events",
        ["organization_id"],
        postgresql_where=sa.text("sequence IS NULL"),
        sqlite_where=sa.text("sequence IS NULL"),
    )
    op.create_table(
        "audit_heads",
        sa.Column("organization_id", sa.String(40), nullable=False),
        sa.Column("sequence", sa.BigInteger(), nullable=False),
        sa.Column("hash", sa.String(80), nullable=False),
        sa.PrimaryKeyConstraint("organization_id", name=op.f("pk_audit_heads")),
    )


def downgrade() -> None:
    op.drop_table("audit_heads")
    op.drop_index("ix_audit_events_unlinked", table_name="audit_events")
    op.drop_index("ix_audit_events_transfer_id", table_name="audit_events")
    op.drop_index("ix_audit_events_agent_id", table_name="audit_events")
    op.drop_table("audit_events")
