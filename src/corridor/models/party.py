"""Parties money goes to or comes from: counterparties, external bank accounts, external wallets."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column

# An external account or wallet belongs to exactly one of a customer or a counterparty.
ONE_OWNER = "(customer_id IS NULL) <> (counterparty_id IS NULL)"


class Counterparty(Base):
    """Someone a customer pays (a third party); soft-deleted so transfers can still read it."""

    __tablename__ = "counterparties"
    id_prefix, resource_name = "cp", "counterparty"
    __table_args__ = (Index("ix_counterparties_organization_id_id", "organization_id", "id"),)

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    # The customer who pays this counterparty.
    customer_id: Mapped[str] = mapped_column(ForeignKey("customers.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    beneficiary_type: Mapped[str] = mapped_column(String(20))  # INDIVIDUAL, BUSINESS
    email: Mapped[str | None] = mapped_column(String(320))
    # The address as sent, plus `transliterated` (ASCII) computed when it was written.
    address: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    deleted_at: Mapped[datetime | None]


class ExternalAccount(Base):
    """A bank account outside Corridor, of a customer (first party) or a counterparty."""

    __tablename__ = "external_accounts"
    id_prefix, resource_name = "ext", "external account"
    __table_args__ = (
        CheckConstraint(ONE_OWNER, name="one_owner"),
        Index("ix_external_accounts_organization_id_id", "organization_id", "id"),
    )

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str | None] = mapped_column(ForeignKey("customers.id"), index=True)
    counterparty_id: Mapped[str | None] = mapped_column(ForeignKey("counterparties.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))  # ACTIVE, CLOSED
    currency: Mapped[str] = mapped_column(String(10))
    country: Mapped[str] = mapped_column(String(2))
    account_holder_name: Mapped[str] = mapped_column(String(200))
    bank_name: Mapped[str | None] = mapped_column(String(200))
    # The full number: read by the rails, never returned by the API.
    account_number: Mapped[str | None] = mapped_column(String(34))
    account_number_last4: Mapped[str | None] = mapped_column(String(4))
    routing_number: Mapped[str | None] = mapped_column(String(9))
    # The full IBAN, compact and upper case: read by the rails, never returned by the API.
    iban: Mapped[str | None] = mapped_column(String(34))
    bic: Mapped[str | None] = mapped_column(String(11))
    sort_code: Mapped[str | None] = mapped_column(String(6))
    account_type: Mapped[str | None] = mapped_column(String(20))  # CHECKING, SAVINGS
    # Rail names (corridor.rails.base.RailName values) this account can be paid over.
    supported_rails: Mapped[list[Any]] = mapped_column(default=list)
    label: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    closed_at: Mapped[datetime | None]


class ExternalWallet(Base):
    """A blockchain address outside Corridor, of a customer (first party) or a counterparty."""

    __tablename__ = "external_wallets"
    id_prefix, resource_name = "ewa", "external wallet"
    __table_args__ = (
        CheckConstraint(ONE_OWNER, name="one_owner"),
        Index("ix_external_wallets_organization_id_id", "organization_id", "id"),
    )

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str | None] = mapped_column(ForeignKey("customers.id"), index=True)
    counterparty_id: Mapped[str | None] = mapped_column(ForeignKey("counterparties.id"), index=True)
    status: Mapped[str] = mapped_column(String(20))  # ACTIVE, CLOSED
    chain: Mapped[str] = mapped_column(String(20))  # a chain rail name: ETHEREUM, SOLANA, …
    address: Mapped[str] = mapped_column(String(64))
    label: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    closed_at: Mapped[datetime | None]
