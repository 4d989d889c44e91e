"""Reconciliation matches deposits (issue 27 item 5): a statement line names the deposit
it matched (`deposit_id`), and deposits are found by their reference.

Revision ID: 20261127_i27dep_1
Revises: 20261127_i24core_1
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "20261127_i27dep_1"
down_revision: str | None = "20261127_i24core_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("statement_lines") as table:
        table.add_column(sa.Column("deposit_id", sa.String(40), nullable=True))
    op.create_index(
        "ix_statement_lines_deposit_id", "statement_lines", ["organization_id", "deposit_id"]
    )
    op.create_index("ix_deposits_reference", "deposits", ["organization_id", "reference"])


def downgrade() -> None:
    op.drop_index("ix_deposits_reference", table_name="deposits")
    op.drop_index("ix_statement_lines_deposit_id", table_name="statement_lines")
    with op.batch_alter_table("statement_lines") as table:
        table.drop_column("deposit_id")
