"""Bank files (issue 27 items 2-4): payments queued for a file rail's window, the files
written for the bank and those it sent back.

Revision ID: 20261127_i27_2
Revises: 20261127_i27_1
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from corridor.models.base import UTCDateTime

JSON_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")

revision: str = "20261127_i27_2"
down_revision: str | None = "20261127_i27_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "bank_file_entries",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("organization_id", sa.String(40), nullable=False),
        sa.Column("transfer_id", sa.String(40), nullable=False),
        sa.Column("leg_id", sa.String(40), nullable=False),
        sa.Column("rail", sa.String(20), nullable=False),
        sa.Column("direction", sa.String(10), nullable=False),
        sa.Column("currency", sa.String(10), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("reference", sa.String(64), nullable=False),
        sa.Column("window_cutoff_at", UTCDateTime(), nullable=False),
        sa.Column("effective_date", sa.String(10), nullable=False),
        sa.Column("settles_at", UTCDateTime(), nullable=False),
        sa.Column("beneficiary", JSON_DOCUMENT, nullable=False),
        sa.Column("details", JSON_DOCUMENT, nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("bank_file_id", sa.String(40), nullable=True),
        sa.Column("reason_code", sa.String(10), nullable=True),
        sa.Column("reason", sa.String(500), nullable=True),
        sa.Column("changes", JSON_DOCUMENT, nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_bank_file_entries_organization_id_organizations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bank_file_entries")),
        sa.UniqueConstraint("leg_id", name="uq_bank_file_entries_leg_id"),
    )
    op.create_index(
        "ix_bank_file_entries_window",
        "bank_file_entries",
        ["organization_id", "rail", "status", "window_cutoff_at"],
    )
    op.create_index("ix_bank_file_entries_reference", "bank_file_entries", ["reference"])
    op.create_index("ix_bank_file_entries_bank_file_id", "bank_file_entries", ["bank_file_id"])
    op.create_table(
        "bank_files",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("organization_id", sa.String(40), nullable=False),
        sa.Column("direction", sa.String(10), nullable=False),
        sa.Column("format", sa.String(20), nullable=False),
        sa.Column("rail", sa.String(20), nullable=True),
        sa.Column("window_cutoff_at", UTCDateTime(), nullable=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("entry_count", sa.Integer(), nullable=False),
        sa.Column("credit_total", sa.BigInteger(), nullable=False),
        sa.Column("debit_total", sa.BigInteger(), nullable=False),
        sa.Column("currency", sa.String(10), nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("upload_attempts", sa.Integer(), nullable=False),
        sa.Column("next_upload_at", UTCDateTime(), nullable=True),
        sa.Column("uploaded_at", UTCDateTime(), nullable=True),
        sa.Column("last_error", sa.String(500), nullable=True),
        sa.Column("summary", JSON_DOCUMENT, nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_bank_files_organization_id_organizations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bank_files")),
        sa.UniqueConstraint(
            "organization_id", "rail", "window_cutoff_at", name="uq_bank_files_window"
        ),
        sa.UniqueConstraint("organization_id", "direction", "sha256", name="uq_bank_files_sha256"),
    )
    op.create_index("ix_bank_files_organization_id", "bank_files", ["organization_id", "id"])
    op.create_index("ix_bank_files_upload", "bank_files", ["direction", "status", "next_upload_at"])


def downgrade() -> None:
    op.drop_table("bank_files")
    op.drop_table("bank_file_entries")
