"""The EVM stablecoin rail (issue 27): nonces per chain and sending address, and the
token transfers the rail signed.

Revision ID: 20261127_i27evm_1
Revises: 20261127_i26_3
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from corridor.models.base import UTCDateTime

JSON_DOCUMENT = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")

revision: str = "20261127_i27evm_1"
down_revision: str | None = "20261127_i26_3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "evm_nonces",
        sa.Column("chain", sa.String(20), nullable=False),
        sa.Column("address", sa.String(42), nullable=False),
        sa.Column("next_nonce", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("chain", "address", name=op.f("pk_evm_nonces")),
    )
    op.create_table(
        "evm_transactions",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("chain", sa.String(20), nullable=False),
        sa.Column("chain_id", sa.BigInteger(), nullable=False),
        sa.Column("organization_id", sa.String(40), nullable=False),
        sa.Column("transfer_id", sa.String(40), nullable=False),
        sa.Column("leg_id", sa.String(40), nullable=False),
        sa.Column("currency", sa.String(10), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("token_address", sa.String(42), nullable=False),
        sa.Column("token_units", sa.String(78), nullable=False),
        sa.Column("from_address", sa.String(42), nullable=False),
        sa.Column("to_address", sa.String(42), nullable=False),
        sa.Column("nonce", sa.BigInteger(), nullable=False),
        sa.Column("gas_limit", sa.BigInteger(), nullable=False),
        sa.Column("max_fee_per_gas", sa.String(78), nullable=False),
        sa.Column("max_priority_fee_per_gas", sa.String(78), nullable=False),
        sa.Column("tx_hash", sa.String(66), nullable=False),
        sa.Column("raw_transaction", sa.Text(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("confirmations_required", sa.Integer(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=True),
        sa.Column("block_hash", sa.String(66), nullable=True),
        sa.Column("broadcasts", sa.Integer(), nullable=False),
        sa.Column("last_sent_at", UTCDateTime(), nullable=True),
        sa.Column("replacements", sa.Integer(), nullable=False),
        sa.Column("replaced_hashes", JSON_DOCUMENT, nullable=True),
        sa.Column("reorgs", sa.Integer(), nullable=False),
        sa.Column("failure_reason", sa.String(500), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_evm_transactions")),
        sa.UniqueConstraint("leg_id", name="uq_evm_transactions_leg_id"),
        sa.UniqueConstraint("chain", "from_address", "nonce", name="uq_evm_transactions_nonce"),
        sa.UniqueConstraint("tx_hash", name="uq_evm_transactions_tx_hash"),
    )


def downgrade() -> None:
    op.drop_table("evm_transactions")
    op.drop_table("evm_nonces")
