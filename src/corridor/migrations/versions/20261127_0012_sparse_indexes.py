"""Transfers' indexes on columns most transfers leave NULL (the destination balance, the
counterparty, the client reference, the deposit reference, the agent and its approval, the
parent transfer, the fixed route) hold only the rows that have a value: every query matches
a value in them, and a create+submit no longer adds an entry of NULL to eight indexes. The
legs' index on transfer_id goes: the unique (transfer_id, sequence) index serves it.

Revision ID: 20261127_0012
Revises: 20261125_0011
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "20261127_0012"
down_revision: str | None = "20261125_0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SPARSE_COLUMNS = (
    "destination_account_id",
    "counterparty_id",
    "client_reference_id",
    "deposit_reference",
    "agent_id",
    "agent_approval_status",
    "parent_transfer_id",
    "fixed_route_id",
)


def _present(column: str) -> sa.TextClause:
    return sa.text(f"{column} IS NOT NULL")


def upgrade() -> None:
    for column in SPARSE_COLUMNS:
        name = f"ix_transfers_{column}"
        op.drop_index(name, table_name="transfers")
        op.create_index(
            name,
            "transfers",
            [column],
            postgresql_where=_present(column),
            sqlite_where=_present(column),
        )
    op.drop_index("ix_transfer_legs_transfer_id", table_name="transfer_legs")


def downgrade() -> None:
    op.create_index("ix_transfer_legs_transfer_id", "transfer_legs", ["transfer_id"])
    for column in reversed(SPARSE_COLUMNS):
        name = f"ix_transfers_{column}"
        op.drop_index(name, table_name="transfers")
        op.create_index(name, "transfers", [column])
