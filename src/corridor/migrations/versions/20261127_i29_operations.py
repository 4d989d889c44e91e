"""Operations (issue 29): the workers' heartbeats (readiness), and the trace context of
an outbox event and of an assistant run, which the worker carrying them on continues.

Revision ID: 20261127_i29_1
Revises: 20261127_0012
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from corridor.models.base import UTCDateTime

revision: str = "20261127_i29_1"
down_revision: str | None = "20261127_i26_2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "worker_heartbeats",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", UTCDateTime(), nullable=False),
        sa.Column("beat_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_worker_heartbeats")),
    )
    op.create_index(op.f("ix_worker_heartbeats_beat_at"), "worker_heartbeats", ["beat_at"])
    op.add_column("events", sa.Column("trace_context", sa.String(55), nullable=True))
    op.add_column("assistant_runs", sa.Column("trace_context", sa.String(55), nullable=True))


def downgrade() -> None:
    op.drop_column("assistant_runs", "trace_context")
    op.drop_column("events", "trace_context")
    op.drop_index(op.f("ix_worker_heartbeats_beat_at"), table_name="worker_heartbeats")
    op.drop_table("worker_heartbeats")
