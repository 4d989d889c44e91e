"""EVM deposits (issue 27): deposit addresses derived from an HD seed, the token Transfer
logs credited, and each chain's scan cursor.

Revision ID: 20261127_i27evm_2
Revises: 20261127_i27evm_1
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from corridor.models.base import UTCDateTime

revision: str = "20261127_i27evm_2"
down_revision: str | None = "20261127_i27evm_1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _number(name: str) -> sa.Column:
    return sa.Column(
        name,
        sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
        autoincrement=True,
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "evm_deposit_addresses",
        _number("hd_index"),
        sa.Column("address", sa.String(42), nullable=True),
        sa.Column("virtual_account_id", sa.String(40), nullable=False),
        sa.Column("organization_id", sa.String(40), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("hd_index", name=op.f("pk_evm_deposit_addresses")),
        sa.UniqueConstraint("address", name="uq_evm_deposit_addresses_address"),
        sa.UniqueConstraint(
            "virtual_account_id", name="uq_evm_deposit_addresses_virtual_account_id"
        ),
    )
    op.create_table(
        "evm_deposit_logs",
        _number("id"),
        sa.Column("chain", sa.String(20), nullable=False),
        sa.Column("tx_hash", sa.String(66), nullable=False),
        sa.Column("log_index", sa.Integer(), nullable=False),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        sa.Column("block_hash", sa.String(66), nullable=False),
        sa.Column("token_address", sa.String(42), nullable=False),
        sa.Column("from_address", sa.String(42), nullable=False),
        sa.Column("to_address", sa.String(42), nullable=False),
        sa.Column("token_units", sa.String(78), nullable=False),
        sa.Column("deposit_id", sa.String(40), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_evm_deposit_logs")),
        sa.UniqueConstraint("chain", "tx_hash", "log_index", name="uq_evm_deposit_logs_log"),
    )
    op.create_table(
        "evm_scan_cursors",
        sa.Column("chain", sa.String(20), nullable=False),
        sa.Column("token_address", sa.String(42), nullable=False),
        sa.Column("next_block", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("chain", "token_address", name=op.f("pk_evm_scan_cursors")),
    )


def downgrade() -> None:
    op.drop_table("evm_scan_cursors")
    op.drop_table("evm_deposit_logs")
    op.drop_table("evm_deposit_addresses")
