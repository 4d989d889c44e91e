"""documents: files of customers and transfers, uploaded to object storage

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import corridor.models.base

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "documents",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("customer_id", sa.String(length=40), nullable=False),
        sa.Column("transfer_id", sa.String(length=40), nullable=True),
        sa.Column("verification_session_id", sa.String(length=40), nullable=True),
        sa.Column("purpose", sa.String(length=40), nullable=False),
        sa.Column("file_name", sa.String(length=255), nullable=False),
        sa.Column("content_type", sa.String(length=100), nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("rejection_reason", sa.String(length=500), nullable=True),
        sa.Column("sha256", sa.String(length=64), nullable=True),
        sa.Column("upload_key", sa.String(length=300), nullable=False),
        sa.Column("storage_key", sa.String(length=300), nullable=False),
        sa.Column(
            "upload_expires_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False
        ),
        sa.Column(
            "upload_started_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column(
            "upload_received_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column("created_by", sa.String(length=40), nullable=False),
        sa.Column("created_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("uploaded_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("archived_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["customers.id"], name=op.f("fk_documents_customer_id_customers")
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_documents_organization_id_organizations"),
        ),
        sa.ForeignKeyConstraint(
            ["transfer_id"], ["transfers.id"], name=op.f("fk_documents_transfer_id_transfers")
        ),
        sa.ForeignKeyConstraint(
            ["verification_session_id"],
            ["verification_sessions.id"],
            name=op.f("fk_documents_verification_session_id_verification_sessions"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_documents")),
    )
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.create_index(
            "ix_documents_organization_id_customer_id",
            ["organization_id", "customer_id"],
            unique=False,
        )
        batch_op.create_index(
            "ix_documents_organization_id_id", ["organization_id", "id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_documents_status"), ["status"], unique=False)
        batch_op.create_index(batch_op.f("ix_documents_transfer_id"), ["transfer_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("documents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_documents_transfer_id"))
        batch_op.drop_index(batch_op.f("ix_documents_status"))
        batch_op.drop_index("ix_documents_organization_id_id")
        batch_op.drop_index("ix_documents_organization_id_customer_id")

    op.drop_table("documents")
