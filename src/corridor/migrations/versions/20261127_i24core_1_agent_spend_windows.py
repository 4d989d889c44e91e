"""Agent spend counters (issue 24): what each agent spent per UTC day and month, per
currency, kept by the submits and transitions themselves instead of summed over its
transfers on every submit. Filled from the transfers that count today.

Revision ID: 20261127_i24core_1
Revises: 20261127_i27evm_2
Create Date: 2026-11-27
"""

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

from corridor.models.base import UTCDateTime

revision: str = "20261127_i24core_1"
down_revision: str | None = "20261127_i27evm_2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As transfers/rules/states.py says today (a migration keeps its own copy).
UNCOUNTED = ("DRAFT", "FAILED", "CANCELLED", "REVERSED")


def upgrade() -> None:
    windows = op.create_table(
        "agent_spend_windows",
        sa.Column("id", sa.String(80), nullable=False),
        sa.Column("agent_id", sa.String(40), nullable=False),
        sa.Column("currency", sa.String(10), nullable=False),
        sa.Column("period", sa.String(5), nullable=False),
        sa.Column("starts_at", UTCDateTime(), nullable=False),
        sa.Column("spent", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_agent_spend_windows_agent_id_agents")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_spend_windows")),
    )
    op.create_index(op.f("ix_agent_spend_windows_agent_id"), "agent_spend_windows", ["agent_id"])
    transfers = sa.table(
        "transfers",
        sa.column("agent_id", sa.String),
        sa.column("source_currency", sa.String),
        sa.column("source_amount", sa.BigInteger),
        sa.column("status", sa.String),
        sa.column("submitted_at", UTCDateTime()),
    )
    found = op.get_bind().execute(
        sa.select(
            transfers.c.agent_id,
            transfers.c.source_currency,
            transfers.c.source_amount,
            transfers.c.submitted_at,
        ).where(
            transfers.c.agent_id.is_not(None),
            transfers.c.submitted_at.is_not(None),
            transfers.c.status.not_in(UNCOUNTED),
        )
    )
    spent: dict[tuple[str, str, str, datetime], int] = defaultdict(int)
    for agent_id, currency, amount, submitted_at in found:
        at = submitted_at.astimezone(UTC)
        day = at.replace(hour=0, minute=0, second=0, microsecond=0)
        spent[(agent_id, currency, "DAY", day)] += amount
        spent[(agent_id, currency, "MONTH", day.replace(day=1))] += amount
    now = datetime.now(UTC)
    rows = [
        {
            "id": f"{agent_id} {currency} {period} {starts_at.date().isoformat()}",
            "agent_id": agent_id,
            "currency": currency,
            "period": period,
            "starts_at": starts_at,
            "spent": amount,
            "updated_at": now,
        }
        for (agent_id, currency, period, starts_at), amount in spent.items()
    ]
    if rows:
        op.bulk_insert(windows, rows)


def downgrade() -> None:
    op.drop_index(op.f("ix_agent_spend_windows_agent_id"), table_name="agent_spend_windows")
    op.drop_table("agent_spend_windows")
