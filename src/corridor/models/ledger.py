"""The double-entry ledger: accounts, journal entries, and the postings that move balances."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class LedgerAccount(Base):
    """A balance in one currency: a customer's balance account, or one of the system's own.

    Balances are in minor units, credit-positive. posted_balance always equals the sum of
    the account's posted postings; a customer account never lets available go below zero.
    """

    __tablename__ = "ledger_accounts"
    id_prefix, resource_name = "acc", "account"
    __table_args__ = (
        UniqueConstraint("organization_id", "purpose"),
        Index("ix_ledger_accounts_organization_id_id", "organization_id", "id"),
    )

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    customer_id: Mapped[str | None] = mapped_column(ForeignKey("customers.id"), index=True)
    # CUSTOMER_BALANCE, or a system role such as SANDBOX_FUNDING.
    kind: Mapped[str] = mapped_column(String(40))
    # One account per purpose and organization, e.g. "CUSTOMER_BALANCE:cus_…:USD".
    purpose: Mapped[str] = mapped_column(String(120))
    currency: Mapped[str] = mapped_column(String(10))
    status: Mapped[str] = mapped_column(String(20), default="OPEN")
    allow_negative: Mapped[bool] = mapped_column(Boolean, default=False)
    posted_balance: Mapped[int] = mapped_column(BigInteger, default=0)
    pending_debits: Mapped[int] = mapped_column(BigInteger, default=0)
    pending_credits: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class JournalEntry(Base):
    __tablename__ = "journal_entries"

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    kind: Mapped[str] = mapped_column(String(40))
    description: Mapped[str] = mapped_column(String(500))
    transfer_id: Mapped[str | None] = mapped_column(String(40), index=True)
    created_at: Mapped[datetime]


class Posting(Base):
    """One line of a journal entry: a signed amount on one account (credit positive)."""

    __tablename__ = "postings"
    __table_args__ = (
        Index("ix_postings_account_id_id", "account_id", "id"),
        # The console's balance chart: one organization's postings of the last 30 days.
        Index("ix_postings_organization_id_created_at", "organization_id", "created_at"),
    )

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    journal_entry_id: Mapped[str] = mapped_column(ForeignKey("journal_entries.id"), index=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("ledger_accounts.id"))
    currency: Mapped[str] = mapped_column(String(10))
    amount: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(40))
    transfer_id: Mapped[str | None] = mapped_column(String(40))
    created_at: Mapped[datetime]
