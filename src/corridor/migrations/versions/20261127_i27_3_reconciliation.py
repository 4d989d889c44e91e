"""Reconciliation (issue 27 item 5): imported bank statements and their lines.

Revision ID: 20261127_i27_3
Revises: 20261127_i26oauth_1
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from corridor.models.base import UTCDateTime

revision: str = "20261127_i27_3"
down_revision: str | None = "20261127_i26oauth_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "bank_statements",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("organization_id", sa.String(40), nullable=False),
        sa.Column("format", sa.String(20), nullable=False),
        sa.Column("statement_id", sa.String(64), nullable=True),
        sa.Column("account", sa.String(64), nullable=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("line_count", sa.Integer(), nullable=False),
        sa.Column("matched_count", sa.Integer(), nullable=False),
        sa.Column("exception_count", sa.Integer(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_bank_statements_organization_id_organizations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bank_statements")),
    )
    op.create_index(
        "ix_bank_statements_organization_id", "bank_statements", ["organization_id", "sha256"]
    )
    op.create_table(
        "statement_lines",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("organization_id", sa.String(40), nullable=False),
        sa.Column("statement_id", sa.String(40), nullable=False),
        sa.Column("line_number", sa.Integer(), nullable=False),
        sa.Column("direction", sa.String(10), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("currency", sa.String(10), nullable=False),
        sa.Column("booked_on", sa.String(10), nullable=True),
        sa.Column("reference", sa.String(64), nullable=True),
        sa.Column("description", sa.String(500), nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("transfer_id", sa.String(40), nullable=True),
        sa.Column("exception_reason", sa.String(30), nullable=True),
        sa.Column("resolution", sa.String(500), nullable=True),
        sa.Column("resolved_by", sa.String(40), nullable=True),
        sa.Column("resolved_at", UTCDateTime(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_statement_lines_organization_id_organizations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_statement_lines")),
    )
    op.create_index("ix_statement_lines_statement_id", "statement_lines", ["statement_id"])
    op.create_index(
        "ix_statement_lines_exceptions", "statement_lines", ["organization_id", "status", "id"]
    )
    op.create_index(
        "ix_statement_lines_reference", "statement_lines", ["organization_id", "reference"]
    )


def downgrade() -> None:
    op.drop_table("statement_lines")
    op.drop_table("bank_statements")
