"""Agent mandates (issue 25): the agent_mandates table, agents.require_mandate and
transfers.mandate_id.

Revision ID: 20261128_i25mandates_1
Revises: 20261128_i25receipts_1
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from corridor.models.base import UTCDateTime

revision: str = "20261128_i25mandates_1"
down_revision: str | None = "20261128_i25receipts_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "agent_mandates",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("organization_id", sa.String(40), nullable=False),
        sa.Column("agent_id", sa.String(40), nullable=False),
        sa.Column("currency", sa.String(10), nullable=False),
        sa.Column(
            "payees",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("max_per_payment", sa.BigInteger(), nullable=False),
        sa.Column("budget_amount", sa.BigInteger(), nullable=False),
        sa.Column("budget_recurrence", sa.String(10), nullable=False),
        sa.Column("max_uses", sa.Integer(), nullable=True),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("used", sa.BigInteger(), nullable=False),
        sa.Column("period_start", UTCDateTime(), nullable=False),
        sa.Column("not_before", UTCDateTime(), nullable=False),
        sa.Column("not_after", UTCDateTime(), nullable=False),
        sa.Column("purpose", sa.String(500), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("deactivated_reason", sa.String(500), nullable=True),
        sa.Column("created_by", sa.String(40), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_agent_mandates_organization_id_organizations"),
        ),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_agent_mandates_agent_id_agents")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_mandates")),
    )
    op.create_index("ix_agent_mandates_organization_id", "agent_mandates", ["organization_id"])
    op.create_index("ix_agent_mandates_agent_id_id", "agent_mandates", ["agent_id", "id"])
    with op.batch_alter_table("agents") as batch:
        batch.add_column(
            sa.Column("require_mandate", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("transfers") as batch:
        batch.add_column(sa.Column("mandate_id", sa.String(40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("transfers") as batch:
        batch.drop_column("mandate_id")
    with op.batch_alter_table("agents") as batch:
        batch.drop_column("require_mandate")
    op.drop_index("ix_agent_mandates_agent_id_id", table_name="agent_mandates")
    op.drop_index("ix_agent_mandates_organization_id", table_name="agent_mandates")
    op.drop_table("agent_mandates")
