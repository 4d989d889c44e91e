"""quotes, fixed routes and agents; transfers.fixed_route_id

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import corridor.models.base

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "agents",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("customer_id", sa.String(length=40), nullable=False),
        sa.Column("source_account_id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("description", sa.String(length=1000), nullable=True),
        sa.Column("currency", sa.String(length=10), nullable=False),
        sa.Column("per_transfer_limit", sa.BigInteger(), nullable=True),
        sa.Column("daily_limit", sa.BigInteger(), nullable=True),
        sa.Column("monthly_limit", sa.BigInteger(), nullable=True),
        sa.Column(
            "destination_allowlist",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("over_limit_action", sa.String(length=30), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("created_by", sa.String(length=40), nullable=False),
        sa.Column("created_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["customers.id"], name=op.f("fk_agents_customer_id_customers")
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_agents_organization_id_organizations"),
        ),
        sa.ForeignKeyConstraint(
            ["source_account_id"],
            ["ledger_accounts.id"],
            name=op.f("fk_agents_source_account_id_ledger_accounts"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agents")),
    )
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agents_customer_id"), ["customer_id"], unique=False)
        batch_op.create_index(
            "ix_agents_organization_id_id", ["organization_id", "id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_agents_status"), ["status"], unique=False)

    op.create_table(
        "quotes",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("customer_id", sa.String(length=40), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("source_currency", sa.String(length=10), nullable=False),
        sa.Column("destination_currency", sa.String(length=10), nullable=False),
        sa.Column("source_amount", sa.BigInteger(), nullable=False),
        sa.Column("destination_amount", sa.BigInteger(), nullable=False),
        sa.Column("fee_amount", sa.BigInteger(), nullable=False),
        sa.Column("exchange_rate", sa.String(length=64), nullable=True),
        sa.Column("locked_rate", sa.String(length=200), nullable=True),
        sa.Column("reference_rate", sa.String(length=64), nullable=True),
        sa.Column(
            "reference_rate_as_of", corridor.models.base.UTCDateTime(timezone=True), nullable=True
        ),
        sa.Column("reference_provider", sa.String(length=60), nullable=True),
        sa.Column(
            "request",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("transfer_id", sa.String(length=40), nullable=True),
        sa.Column("expires_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("used_at", corridor.models.base.UTCDateTime(timezone=True), nullable=True),
        sa.Column("created_by", sa.String(length=40), nullable=False),
        sa.Column("created_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["customers.id"], name=op.f("fk_quotes_customer_id_customers")
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_quotes_organization_id_organizations"),
        ),
        sa.ForeignKeyConstraint(
            ["transfer_id"], ["transfers.id"], name=op.f("fk_quotes_transfer_id_transfers")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_quotes")),
    )
    with op.batch_alter_table("quotes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_quotes_customer_id"), ["customer_id"], unique=False)
        batch_op.create_index(
            "ix_quotes_organization_id_id", ["organization_id", "id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_quotes_transfer_id"), ["transfer_id"], unique=False)

    op.create_table(
        "fixed_routes",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("organization_id", sa.String(length=40), nullable=False),
        sa.Column("customer_id", sa.String(length=40), nullable=False),
        sa.Column("type", sa.String(length=30), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("virtual_account_id", sa.String(length=40), nullable=False),
        sa.Column("source_currency", sa.String(length=10), nullable=False),
        sa.Column("source_payment_rail", sa.String(length=20), nullable=False),
        sa.Column(
            "destination_request",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "destination",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("counterparty_id", sa.String(length=40), nullable=True),
        sa.Column(
            "developer_fee_request",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("client_reference_id", sa.String(length=256), nullable=True),
        sa.Column("remarks", sa.String(length=1000), nullable=True),
        sa.Column("internal_remarks", sa.String(length=1000), nullable=True),
        sa.Column("payment_reason", sa.String(length=60), nullable=True),
        sa.Column("created_by", sa.String(length=40), nullable=False),
        sa.Column("created_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", corridor.models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["counterparty_id"],
            ["counterparties.id"],
            name=op.f("fk_fixed_routes_counterparty_id_counterparties"),
        ),
        sa.ForeignKeyConstraint(
            ["customer_id"], ["customers.id"], name=op.f("fk_fixed_routes_customer_id_customers")
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_fixed_routes_organization_id_organizations"),
        ),
        sa.ForeignKeyConstraint(
            ["virtual_account_id"],
            ["virtual_accounts.id"],
            name=op.f("fk_fixed_routes_virtual_account_id_virtual_accounts"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_fixed_routes")),
        sa.UniqueConstraint("virtual_account_id", name=op.f("uq_fixed_routes_virtual_account_id")),
    )
    with op.batch_alter_table("fixed_routes", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_fixed_routes_customer_id"), ["customer_id"], unique=False
        )
        batch_op.create_index(
            "ix_fixed_routes_organization_id_id", ["organization_id", "id"], unique=False
        )

    with op.batch_alter_table("transfers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fixed_route_id", sa.String(length=40), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_transfers_fixed_route_id"), ["fixed_route_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("transfers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_transfers_fixed_route_id"))
        batch_op.drop_column("fixed_route_id")

    with op.batch_alter_table("fixed_routes", schema=None) as batch_op:
        batch_op.drop_index("ix_fixed_routes_organization_id_id")
        batch_op.drop_index(batch_op.f("ix_fixed_routes_customer_id"))

    op.drop_table("fixed_routes")
    with op.batch_alter_table("quotes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_quotes_transfer_id"))
        batch_op.drop_index("ix_quotes_organization_id_id")
        batch_op.drop_index(batch_op.f("ix_quotes_customer_id"))

    op.drop_table("quotes")
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agents_status"))
        batch_op.drop_index("ix_agents_organization_id_id")
        batch_op.drop_index(batch_op.f("ix_agents_customer_id"))

    op.drop_table("agents")
