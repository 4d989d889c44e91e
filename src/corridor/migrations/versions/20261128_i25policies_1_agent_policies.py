"""Agent policies (issue 25): `dailyPaymentCount` (agents.daily_payment_count, counted in
agent_spend_windows.payments in the same guarded write as the spend) and `newPayeeAction`
(agents.new_payee_action; transfers.agent_payee_id names the payee an agent's transfer
pays, indexed with its agent, so "has this agent paid this payee" is one index probe).
Existing agent transfers get their payee from what they name.

Revision ID: 20261128_i25policies_1
Revises: 20261128_i25mandates_1
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "20261128_i25policies_1"
down_revision: str | None = "20261128_i25mandates_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PRESENT = sa.text("agent_payee_id IS NOT NULL")
_BATCH = 500


def upgrade() -> None:
    op.add_column("agents", sa.Column("daily_payment_count", sa.Integer(), nullable=True))
    op.add_column(
        "agents",
        sa.Column("new_payee_action", sa.String(30), nullable=False, server_default="ALLOW"),
    )
    op.add_column(
        "agent_spend_windows",
        sa.Column("payments", sa.Integer(), nullable=False, server_default="0"),
    )
    op.add_column("transfers", sa.Column("agent_payee_id", sa.String(40), nullable=True))
    op.create_index(
        "ix_transfers_agent_id_agent_payee_id",
        "transfers",
        ["agent_id", "agent_payee_id"],
        postgresql_where=_PRESENT,
        sqlite_where=_PRESENT,
    )
    _backfill_payees()


def _backfill_payees() -> None:
    """Each existing agent transfer's payee: the external account or wallet it names, else
    its counterparty (agents/enforcement.py `payee_of`)."""
    transfers = sa.table(
        "transfers",
        sa.column("id", sa.String),
        sa.column("agent_id", sa.String),
        sa.column("counterparty_id", sa.String),
        sa.column("destination_request", sa.JSON),
        sa.column("agent_payee_id", sa.String),
    )
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(transfers.c.id, transfers.c.destination_request, transfers.c.counterparty_id)
        .where(transfers.c.agent_id.is_not(None))
        .order_by(transfers.c.id)
    ).all()
    updates = []
    for transfer_id, destination, counterparty_id in rows:
        named = destination.get("externalAccountId") if isinstance(destination, dict) else None
        payee = named or counterparty_id
        if payee:
            updates.append({"tid": transfer_id, "payee": payee})
    statement = (
        sa.update(transfers)
        .where(transfers.c.id == sa.bindparam("tid"))
        .values(agent_payee_id=sa.bindparam("payee"))
    )
    for start in range(0, len(updates), _BATCH):
        connection.execute(statement, updates[start : start + _BATCH])


def downgrade() -> None:
    op.drop_index("ix_transfers_agent_id_agent_payee_id", table_name="transfers")
    op.drop_column("transfers", "agent_payee_id")
    op.drop_column("agent_spend_windows", "payments")
    op.drop_column("agents", "new_payee_action")
    op.drop_column("agents", "daily_payment_count")
