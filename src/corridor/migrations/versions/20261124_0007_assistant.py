"""assistant threads, runs, messages, tool calls awaiting confirmation, run events

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import corridor.models.base

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "assistant_threads",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("user_id", sa.String(length=40), nullable=False),
        sa.Column("app", sa.String(length=20), nullable=False),
        sa.Column("env", sa.String(length=20), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("visibility", sa.String(length=20), nullable=False),
        sa.Column(
            "pinned_context",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column(
            "mcp_session_ids",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "last_message_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column("last_read_message_id", sa.String(length=40), nullable=True),
        sa.Column(
            "retention_expires_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column("created_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_assistant_threads_organization_id_organizations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assistant_threads")),
    )
    with op.batch_alter_table("assistant_threads", schema=None) as batch_op:
        batch_op.create_index(
            "ix_assistant_threads_organization_id_user_id",
            ["organization_id", "user_id"],
            unique=False,
        )
        batch_op.create_index(
            "ix_assistant_threads_retention_expires_at", ["retention_expires_at"], unique=False
        )

    op.create_table(
        "assistant_runs",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("thread_id", sa.String(length=40), nullable=False),
        sa.Column("user_id", sa.String(length=40), nullable=False),
        sa.Column("app", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=30), nullable=False),
        sa.Column("provider", sa.String(length=30), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=True),
        sa.Column(
            "history",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("tool_call_count", sa.Integer(), nullable=False),
        sa.Column("tokens_in", sa.BigInteger(), nullable=False),
        sa.Column("tokens_out", sa.BigInteger(), nullable=False),
        sa.Column("cost_usd", sa.String(length=40), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column(
            "lease_expires_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column("next_event_sequence", sa.Integer(), nullable=False),
        sa.Column(
            "cancel_requested_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column("started_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("ended_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("created_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_assistant_runs_organization_id_organizations"),
        ),
        sa.ForeignKeyConstraint(
            ["thread_id"],
            ["assistant_threads.id"],
            name=op.f("fk_assistant_runs_thread_id_assistant_threads"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assistant_runs")),
    )
    with op.batch_alter_table("assistant_runs", schema=None) as batch_op:
        batch_op.create_index(
            "ix_assistant_runs_status_lease_expires_at",
            ["status", "lease_expires_at"],
            unique=False,
        )
        batch_op.create_index("ix_assistant_runs_thread_id", ["thread_id"], unique=False)

    op.create_table(
        "assistant_messages",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("thread_id", sa.String(length=40), nullable=False),
        sa.Column("run_id", sa.String(length=40), nullable=True),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column(
            "parts",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("tokens_in", sa.BigInteger(), nullable=True),
        sa.Column("tokens_out", sa.BigInteger(), nullable=True),
        sa.Column("cost_usd", sa.String(length=40), nullable=True),
        sa.Column("created_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_assistant_messages_organization_id_organizations"),
        ),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["assistant_runs.id"],
            name=op.f("fk_assistant_messages_run_id_assistant_runs"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["thread_id"],
            ["assistant_threads.id"],
            name=op.f("fk_assistant_messages_thread_id_assistant_threads"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assistant_messages")),
    )
    with op.batch_alter_table("assistant_messages", schema=None) as batch_op:
        batch_op.create_index(
            "ix_assistant_messages_thread_id_id", ["thread_id", "id"], unique=False
        )

    op.create_table(
        "assistant_run_events",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("run_id", sa.String(length=40), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(length=40), nullable=False),
        sa.Column(
            "data",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["assistant_runs.id"],
            name=op.f("fk_assistant_run_events_run_id_assistant_runs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assistant_run_events")),
        sa.UniqueConstraint(
            "run_id", "sequence", name=op.f("uq_assistant_run_events_run_id_sequence")
        ),
    )
    op.create_table(
        "assistant_tool_calls",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("run_id", sa.String(length=40), nullable=False),
        sa.Column("message_id", sa.String(length=40), nullable=False),
        sa.Column("model_call_id", sa.String(length=200), nullable=False),
        sa.Column("tool", sa.String(length=100), nullable=False),
        sa.Column(
            "arguments",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("arguments_sha256", sa.String(length=64), nullable=False),
        sa.Column("args_summary", sa.Text(), nullable=False),
        sa.Column("preview", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=30), nullable=False),
        sa.Column(
            "outcome",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("decided_by", sa.String(length=40), nullable=True),
        sa.Column("decided_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("created_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["message_id"],
            ["assistant_messages.id"],
            name=op.f("fk_assistant_tool_calls_message_id_assistant_messages"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_assistant_tool_calls_organization_id_organizations"),
        ),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["assistant_runs.id"],
            name=op.f("fk_assistant_tool_calls_run_id_assistant_runs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_assistant_tool_calls")),
    )
    with op.batch_alter_table("assistant_tool_calls", schema=None) as batch_op:
        batch_op.create_index("ix_assistant_tool_calls_run_id", ["run_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("assistant_tool_calls", schema=None) as batch_op:
        batch_op.drop_index("ix_assistant_tool_calls_run_id")

    op.drop_table("assistant_tool_calls")
    op.drop_table("assistant_run_events")
    with op.batch_alter_table("assistant_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_assistant_messages_thread_id_id")

    op.drop_table("assistant_messages")
    with op.batch_alter_table("assistant_runs", schema=None) as batch_op:
        batch_op.drop_index("ix_assistant_runs_thread_id")
        batch_op.drop_index("ix_assistant_runs_status_lease_expires_at")

    op.drop_table("assistant_runs")
    with op.batch_alter_table("assistant_threads", schema=None) as batch_op:
        batch_op.drop_index("ix_assistant_threads_retention_expires_at")
        batch_op.drop_index("ix_assistant_threads_organization_id_user_id")

    op.drop_table("assistant_threads")
