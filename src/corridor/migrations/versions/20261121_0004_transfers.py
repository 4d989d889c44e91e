"""transfers: transfers, legs, quotes, deposits, virtual accounts and fixed routes

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import corridor.models.base

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def _timestamp(name: str, *, nullable: bool = True) -> sa.Column:
    return sa.Column(name, corridor.models.base.UTCDateTime(timezone=True), nullable=nullable)


def _text(name: str, length: int, *, nullable: bool = True) -> sa.Column:
    return sa.Column(name, sa.String(length=length), nullable=nullable)


def _minor_units(name: str, *, nullable: bool = True) -> sa.Column:
    return sa.Column(name, sa.BigInteger(), nullable=nullable)


def _foreign_key(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], [f"{target}.id"], name=op.f(f"fk_{table}_{column}_{target}")
    )


def _indexes(table: str, columns: Sequence[str]) -> None:
    with op.batch_alter_table(table, schema=None) as batch_op:
        for column in columns:
            batch_op.create_index(batch_op.f(f"ix_{table}_{column}"), [column], unique=False)
        batch_op.create_index(
            f"ix_{table}_organization_id_id", ["organization_id", "id"], unique=False
        )


def _create_transfers() -> None:
    op.create_table(
        "transfers",
        _text("id", 40, nullable=False),
        _text("organization_id", 40, nullable=False),
        _text("customer_id", 40, nullable=False),
        _text("flow", 40, nullable=False),
        _text("status", 30, nullable=False),
        sa.Column("source_request", _json(), nullable=False),
        sa.Column("destination_request", _json(), nullable=False),
        sa.Column("source", _json(), nullable=False),
        sa.Column("destination", _json(), nullable=False),
        _text("source_account_id", 40),
        _text("destination_account_id", 40),
        _text("source_currency", 10, nullable=False),
        _minor_units("source_amount", nullable=False),
        _text("destination_currency", 10, nullable=False),
        _minor_units("destination_amount", nullable=False),
        _text("counterparty_id", 40),
        sa.Column("is_third_party", sa.Boolean(), nullable=False),
        _text("quote_id", 40),
        _text("client_reference_id", 256),
        _text("remarks", 1000),
        _text("internal_remarks", 1000),
        _text("payment_reason", 60),
        sa.Column("document_ids", _json(), nullable=False),
        sa.Column("developer_fee_request", _json(), nullable=True),
        _minor_units("developer_fee_fixed"),
        _text("developer_fee_percent", 40),
        _minor_units("developer_fee_amount"),
        _text("developer_fee_tx_hash", 128),
        _text("exchange_rate", 64),
        _text("reference_rate", 64),
        _timestamp("reference_rate_as_of"),
        _text("reference_provider", 60),
        sa.Column("funding_needed", sa.Boolean(), nullable=False),
        _timestamp("funds_received_at"),
        sa.Column("deposit_instructions", _json(), nullable=True),
        _text("deposit_reference", 40),
        _text("hold_account_id", 40),
        _minor_units("hold_amount"),
        sa.Column("current_leg_index", sa.Integer(), nullable=True),
        sa.Column("refund", _json(), nullable=True),
        _text("returned_to_account_id", 40),
        _timestamp("returned_at"),
        _text("uetr", 36),
        _text("imad", 64),
        _text("omad", 64),
        _text("ach_trace_number", 32),
        _text("tx_hash", 128),
        sa.Column("originating_account", _json(), nullable=True),
        _text("system_remark", 500),
        sa.Column("metadata", _json(), nullable=False),
        _timestamp("estimated_settlement_at"),
        _timestamp("next_cutoff_at"),
        _text("cutoff_timezone", 64),
        _text("agent_id", 40),
        _text("agent_approval_status", 20),
        sa.Column("cancellation", _json(), nullable=True),
        sa.Column("review", _json(), nullable=True),
        sa.Column("authorization", _json(), nullable=True),
        _text("created_by", 40, nullable=False),
        _text("submitted_by", 40),
        _timestamp("submitted_at"),
        _text("parent_transfer_id", 40),
        _timestamp("next_step_at"),
        _timestamp("created_at", nullable=False),
        _timestamp("updated_at", nullable=False),
        _foreign_key("transfers", "counterparty_id", "counterparties"),
        _foreign_key("transfers", "customer_id", "customers"),
        _foreign_key("transfers", "organization_id", "organizations"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_transfers")),
    )
    _indexes(
        "transfers",
        [
            "agent_approval_status",
            "agent_id",
            "client_reference_id",
            "counterparty_id",
            "created_at",
            "deposit_reference",
            "destination_account_id",
            "next_step_at",
            "parent_transfer_id",
            "source_account_id",
            "status",
        ],
    )
    with op.batch_alter_table("transfers", schema=None) as batch_op:
        batch_op.create_index(
            "ix_transfers_organization_id_customer_id",
            ["organization_id", "customer_id"],
            unique=False,
        )


def _create_transfer_legs() -> None:
    op.create_table(
        "transfer_legs",
        _text("id", 40, nullable=False),
        _text("organization_id", 40, nullable=False),
        _text("transfer_id", 40, nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        _text("type", 30, nullable=False),
        _text("status", 20, nullable=False),
        _text("input_currency", 10, nullable=False),
        _text("output_currency", 10, nullable=False),
        _text("input_rail", 20),
        _text("output_rail", 20),
        _minor_units("input_amount", nullable=False),
        _minor_units("output_amount", nullable=False),
        _minor_units("developer_fee_amount"),
        _timestamp("started_at"),
        _timestamp("completed_at"),
        _text("uetr", 36),
        _text("imad", 64),
        _text("omad", 64),
        _text("ach_trace_number", 32),
        _text("tx_hash", 128),
        _text("fee_tx_hash", 128),
        _text("rail_reference", 128),
        sa.Column("submission", _json(), nullable=True),
        _text("failure_reason", 500),
        sa.Column("rail_attempts", sa.Integer(), nullable=False),
        _timestamp("created_at", nullable=False),
        _timestamp("updated_at", nullable=False),
        _foreign_key("transfer_legs", "organization_id", "organizations"),
        _foreign_key("transfer_legs", "transfer_id", "transfers"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_transfer_legs")),
        sa.UniqueConstraint(
            "transfer_id", "sequence", name=op.f("uq_transfer_legs_transfer_id_sequence")
        ),
    )
    with op.batch_alter_table("transfer_legs", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_transfer_legs_transfer_id"), ["transfer_id"], unique=False
        )


def _create_virtual_accounts() -> None:
    op.create_table(
        "virtual_accounts",
        _text("id", 40, nullable=False),
        _text("organization_id", 40, nullable=False),
        _text("customer_id", 40, nullable=False),
        _text("balance_account_id", 40),
        _text("transfer_id", 40),
        _text("type", 20, nullable=False),
        _text("status", 20, nullable=False),
        _text("currency", 10, nullable=False),
        _text("payment_rail", 20),
        _text("bank_name", 200),
        _text("account_holder_name", 200),
        _text("account_number", 34),
        _text("routing_number", 9),
        _text("iban", 34),
        _text("bic", 11),
        _text("address", 128),
        _text("blockchain_memo", 64),
        _timestamp("created_at", nullable=False),
        _timestamp("updated_at", nullable=False),
        _foreign_key("virtual_accounts", "balance_account_id", "ledger_accounts"),
        _foreign_key("virtual_accounts", "customer_id", "customers"),
        _foreign_key("virtual_accounts", "organization_id", "organizations"),
        _foreign_key("virtual_accounts", "transfer_id", "transfers"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_virtual_accounts")),
        sa.UniqueConstraint("account_number", name=op.f("uq_virtual_accounts_account_number")),
        sa.UniqueConstraint("address", name=op.f("uq_virtual_accounts_address")),
        sa.UniqueConstraint("iban", name=op.f("uq_virtual_accounts_iban")),
    )
    _indexes("virtual_accounts", ["balance_account_id", "customer_id", "transfer_id"])


def _create_deposits() -> None:
    op.create_table(
        "deposits",
        _text("id", 40, nullable=False),
        _text("organization_id", 40, nullable=False),
        _text("customer_id", 40, nullable=False),
        _text("virtual_account_id", 40),
        _text("transfer_id", 40),
        _text("status", 20, nullable=False),
        _text("payment_rail", 20, nullable=False),
        _text("currency", 10, nullable=False),
        _minor_units("amount", nullable=False),
        _text("to_address", 128),
        _text("from_address", 128),
        _text("reference", 140),
        _text("unmatched_reason", 200),
        _timestamp("received_at", nullable=False),
        _timestamp("created_at", nullable=False),
        _foreign_key("deposits", "customer_id", "customers"),
        _foreign_key("deposits", "organization_id", "organizations"),
        _foreign_key("deposits", "transfer_id", "transfers"),
        _foreign_key("deposits", "virtual_account_id", "virtual_accounts"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deposits")),
    )
    _indexes("deposits", ["customer_id", "status", "transfer_id", "virtual_account_id"])


def upgrade() -> None:
    _create_transfers()
    _create_transfer_legs()
    _create_virtual_accounts()
    _create_deposits()


def downgrade() -> None:
    op.drop_table("deposits")
    op.drop_table("virtual_accounts")
    op.drop_table("transfer_legs")
    op.drop_table("transfers")
