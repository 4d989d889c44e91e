"""Queries of statements: an account's postings in a month, the balance before it, and the
month's deposits that passed through the account's virtual accounts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.models.customer import Customer
from corridor.models.ledger import JournalEntry, Posting
from corridor.models.organization import Organization
from corridor.models.transfer import Deposit, Transfer, VirtualAccount


async def balance_before(session: AsyncSession, account_id: str, moment: datetime) -> int:
    statement = select(func.coalesce(func.sum(Posting.amount), 0)).where(
        Posting.account_id == account_id, Posting.created_at < moment
    )
    return int((await session.execute(statement)).scalar_one())


async def postings_between(
    session: AsyncSession, account_id: str, start: datetime, end: datetime, *, limit: int
) -> list[tuple[Posting, str]]:
    """The account's postings in [start, end), oldest first, each with its entry's
    description; at most `limit` + 1 (so the caller sees when there are too many)."""
    statement = (
        select(Posting, JournalEntry.description)
        .join(JournalEntry, JournalEntry.id == Posting.journal_entry_id)
        .where(
            Posting.account_id == account_id,
            Posting.created_at >= start,
            Posting.created_at < end,
        )
        .order_by(Posting.created_at, Posting.id)
        .limit(limit + 1)
    )
    return [(row[0], row[1]) for row in await session.execute(statement)]


async def names(
    session: AsyncSession, organization_id: str, customer_id: str
) -> tuple[Organization, Customer]:
    organization = await session.get(Organization, organization_id)
    customer = await session.get(Customer, customer_id)
    assert organization is not None and customer is not None
    return organization, customer


@dataclass(frozen=True, slots=True)
class PassedThrough:
    deposit: Deposit
    virtual_account: VirtualAccount
    transfer: Transfer


async def deposits_passed_through(
    session: AsyncSession,
    account_id: str,
    start: datetime,
    end: datetime,
    *,
    limit: int,
) -> list[PassedThrough]:
    """Deposits received in [start, end) at a virtual account of this balance account and
    matched to a transfer that never posted to the account: the money went on elsewhere."""
    touched = select(Posting.id).where(
        Posting.account_id == account_id, Posting.transfer_id == Deposit.transfer_id
    )
    statement = (
        select(Deposit, VirtualAccount, Transfer)
        .join(VirtualAccount, VirtualAccount.id == Deposit.virtual_account_id)
        .join(Transfer, Transfer.id == Deposit.transfer_id)
        .where(
            VirtualAccount.balance_account_id == account_id,
            Deposit.received_at >= start,
            Deposit.received_at < end,
            ~touched.exists(),
        )
        .order_by(Deposit.received_at, Deposit.id)
        .limit(limit + 1)
    )
    return [PassedThrough(*row) for row in await session.execute(statement)]
