"""parties: counterparties, external bank accounts and external wallets

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import corridor.models.base

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ONE_OWNER = "(customer_id IS NULL) <> (counterparty_id IS NULL)"


def _json() -> sa.types.TypeEngine:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def _timestamp(name: str, *, nullable: bool = False) -> sa.Column:
    return sa.Column(name, corridor.models.base.UTCDateTime(timezone=True), nullable=nullable)


def _owner_columns() -> list[sa.Column]:
    return [
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("customer_id", sa.String(length=40), nullable=True),
        sa.Column("counterparty_id", sa.String(length=40), nullable=True),
    ]


def _owner_constraints(table: str) -> list[sa.schema.SchemaItem]:
    return [
        sa.CheckConstraint(ONE_OWNER, name=op.f(f"ck_{table}_one_owner")),
        sa.ForeignKeyConstraint(
            ["counterparty_id"],
            ["counterparties.id"],
            name=op.f(f"fk_{table}_counterparty_id_counterparties"),
        ),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["customers.id"], name=op.f(f"fk_{table}_customer_id_customers")
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f(f"fk_{table}_organization_id_organizations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{table}")),
    ]


def _owner_indexes(table: str) -> None:
    with op.batch_alter_table(table, schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f(f"ix_{table}_counterparty_id"), ["counterparty_id"], unique=False
        )
        batch_op.create_index(batch_op.f(f"ix_{table}_customer_id"), ["customer_id"], unique=False)
        batch_op.create_index(
            f"ix_{table}_organization_id_id", ["organization_id", "id"], unique=False
        )


def upgrade() -> None:
    op.create_table(
        "counterparties",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("customer_id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("beneficiary_type", sa.String(length=20), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=True),
        sa.Column("address", _json(), nullable=False),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        _timestamp("deleted_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["customers.id"], name=op.f("fk_counterparties_customer_id_customers")
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_counterparties_organization_id_organizations"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_counterparties")),
    )
    with op.batch_alter_table("counterparties", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_counterparties_customer_id"), ["customer_id"], unique=False
        )
        batch_op.create_index(
            "ix_counterparties_organization_id_id", ["organization_id", "id"], unique=False
        )

    op.create_table(
        "external_accounts",
        *_owner_columns(),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("currency", sa.String(length=10), nullable=False),
        sa.Column("country", sa.String(length=2), nullable=False),
        sa.Column("account_holder_name", sa.String(length=200), nullable=False),
        sa.Column("bank_name", sa.String(length=200), nullable=True),
        sa.Column("account_number", sa.String(length=34), nullable=True),
        sa.Column("account_number_last4", sa.String(length=4), nullable=True),
        sa.Column("routing_number", sa.String(length=9), nullable=True),
        sa.Column("iban", sa.String(length=34), nullable=True),
        sa.Column("bic", sa.String(length=11), nullable=True),
        sa.Column("sort_code", sa.String(length=6), nullable=True),
        sa.Column("account_type", sa.String(length=20), nullable=True),
        sa.Column("supported_rails", _json(), nullable=False),
        sa.Column("label", sa.String(length=100), nullable=True),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        _timestamp("closed_at", nullable=True),
        *_owner_constraints("external_accounts"),
    )
    _owner_indexes("external_accounts")

    op.create_table(
        "external_wallets",
        *_owner_columns(),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("chain", sa.String(length=20), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=100), nullable=True),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        _timestamp("closed_at", nullable=True),
        *_owner_constraints("external_wallets"),
    )
    _owner_indexes("external_wallets")


def downgrade() -> None:
    for table in ("external_wallets", "external_accounts"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(f"ix_{table}_organization_id_id")
            batch_op.drop_index(batch_op.f(f"ix_{table}_customer_id"))
            batch_op.drop_index(batch_op.f(f"ix_{table}_counterparty_id"))
        op.drop_table(table)
    with op.batch_alter_table("counterparties", schema=None) as batch_op:
        batch_op.drop_index("ix_counterparties_organization_id_id")
        batch_op.drop_index(batch_op.f("ix_counterparties_customer_id"))
    op.drop_table("counterparties")
