"""Signed receipts of agent payments (issue 25, API.md 9): the receipts and the service's
signing keys (private keys encrypted at rest).

Revision ID: 20261128_i25receipts_1
Revises: 20261127_i28logs_1
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from corridor.models.base import UTCDateTime

revision: str = "20261128_i25receipts_1"
down_revision: str | None = "20261127_i28logs_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "receipt_signing_keys",
        sa.Column("kid", sa.String(64), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("alg", sa.String(20), nullable=False),
        sa.Column(
            "public_jwk",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("private_jwk", sa.Text(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("kid", name=op.f("pk_receipt_signing_keys")),
        sa.UniqueConstraint("generation", name=op.f("uq_receipt_signing_keys_generation")),
    )
    op.create_table(
        "transfer_receipts",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("organization_id", sa.String(40), nullable=False),
        sa.Column("transfer_id", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("kid", sa.String(64), nullable=False),
        sa.Column("jws", sa.Text(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_transfer_receipts_organization_id_organizations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_transfer_receipts")),
    )
    op.create_index("ix_transfer_receipts_transfer_id", "transfer_receipts", ["transfer_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_transfer_receipts_transfer_id", table_name="transfer_receipts")
    op.drop_table("transfer_receipts")
    op.drop_table("receipt_signing_keys")
