"""Write tools that wait for a person (issue 26): each key's `tool_confirmation` policy
(organization keys always, agent keys never), and the `tool_confirmations` records (tcf_…)
the MCP server and the assistant's confirmation cards share.

Revision ID: 20261127_i26_1
Revises: 20261127_0012
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

JSON_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")

revision: str = "20261127_i26_1"
down_revision: str | None = "20261127_0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as table:
        table.add_column(
            sa.Column("tool_confirmation", sa.String(20), nullable=False, server_default="always")
        )
    op.execute("UPDATE api_keys SET tool_confirmation = 'never' WHERE kind = 'AGENT'")
    op.create_table(
        "tool_confirmations",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column(
            "organization_id", sa.String(40), sa.ForeignKey("organizations.id"), nullable=False
        ),
        sa.Column("origin", sa.String(20), nullable=False),
        sa.Column("tool", sa.String(100), nullable=False),
        sa.Column("arguments", JSON_DOCUMENT, nullable=False),
        sa.Column("arguments_sha256", sa.String(64), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("effect", sa.Text(), nullable=False),
        sa.Column("credential_kind", sa.String(30), nullable=False),
        sa.Column("actor_id", sa.String(40), nullable=False),
        sa.Column("agent_id", sa.String(40), nullable=True),
        sa.Column("customer_id", sa.String(40), nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("decided_by", sa.String(40), nullable=True),
        sa.Column("decided_via", sa.String(30), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("executed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", JSON_DOCUMENT, nullable=True),
        sa.Column(
            "assistant_tool_call_id",
            sa.String(40),
            sa.ForeignKey("assistant_tool_calls.id", ondelete="CASCADE"),
            nullable=True,
            unique=True,
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_tool_confirmations_organization_id_status",
        "tool_confirmations",
        ["organization_id", "status"],
    )
    op.create_index(
        "ix_tool_confirmations_actor_id_arguments_sha256",
        "tool_confirmations",
        ["actor_id", "arguments_sha256"],
    )


def downgrade() -> None:
    op.drop_index("ix_tool_confirmations_actor_id_arguments_sha256", "tool_confirmations")
    op.drop_index("ix_tool_confirmations_organization_id_status", "tool_confirmations")
    op.drop_table("tool_confirmations")
    with op.batch_alter_table("api_keys") as table:
        table.drop_column("tool_confirmation")
