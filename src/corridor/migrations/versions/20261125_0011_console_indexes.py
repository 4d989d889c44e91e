"""The console home page's charts read a 30-day window of one organization's rows: postings
(balance over time), transfers (volume per day) and webhook attempts (success per
endpoint). An index on (organization_id, time) each, so the window is read, not the
organization's whole history (postings) or every organization's attempts (webhook_attempts
had no organization index at all).

Revision ID: 20261125_0011
Revises: 20261125_0010
Create Date: 2026-11-25
"""

from collections.abc import Sequence

from alembic import op

revision: str = "20261125_0011"
down_revision: str | None = "20261125_0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = (
    ("postings", "ix_postings_organization_id_created_at", ["organization_id", "created_at"]),
    ("transfers", "ix_transfers_organization_id_created_at", ["organization_id", "created_at"]),
    (
        "webhook_attempts",
        "ix_webhook_attempts_organization_id_started_at",
        ["organization_id", "started_at"],
    ),
)


def upgrade() -> None:
    for table, name, columns in INDEXES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.create_index(name, columns, unique=False)


def downgrade() -> None:
    for table, name, _ in reversed(INDEXES):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(name)
