"""Queries of treasury balances: a customer's balance accounts."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit.db import utc_day
from corridor.ledger.rules import CUSTOMER_BALANCE
from corridor.models.ledger import LedgerAccount, Posting
from corridor.models.organization import Organization
from corridor.treasury import rules


async def balance_accounts(
    session: AsyncSession, caller: Caller, customer_id: str
) -> list[LedgerAccount]:
    statement = select(LedgerAccount).where(
        LedgerAccount.organization_id == caller.organization_id,
        LedgerAccount.customer_id == customer_id,
        LedgerAccount.kind == CUSTOMER_BALANCE,
    )
    if caller.account_ids is not None:
        statement = statement.where(LedgerAccount.id.in_(sorted(caller.account_ids)))
    return list((await session.execute(statement.order_by(LedgerAccount.id))).scalars())


async def figures_per_currency(
    session: AsyncSession, caller: Caller
) -> list[rules.CurrencyFigures]:
    """Every customer balance account of the caller's organization, summed per currency
    (a caller bound to a customer: that customer's only)."""
    statement = (
        select(
            LedgerAccount.currency,
            func.sum(LedgerAccount.posted_balance),
            func.sum(LedgerAccount.pending_debits),
            func.sum(LedgerAccount.pending_credits),
            func.count(LedgerAccount.id),
        )
        .where(
            LedgerAccount.organization_id == caller.organization_id,
            LedgerAccount.kind == CUSTOMER_BALANCE,
        )
        .group_by(LedgerAccount.currency)
        .order_by(LedgerAccount.currency)
    )
    if caller.customer_id is not None:
        statement = statement.where(LedgerAccount.customer_id == caller.customer_id)
    if caller.account_ids is not None:
        statement = statement.where(LedgerAccount.id.in_(sorted(caller.account_ids)))
    return [
        rules.CurrencyFigures(currency, int(posted), int(debits), int(credits), int(count))
        for currency, posted, debits, credits, count in await session.execute(statement)
    ]


async def net_postings_per_day(
    session: AsyncSession, caller: Caller, since: datetime
) -> dict[tuple[str, date], int]:
    """The sum of the postings on the caller's customer balance accounts since `since`,
    per currency and UTC day (one grouped query)."""
    day = utc_day(Posting.created_at)
    statement = (
        select(Posting.currency, day, func.sum(Posting.amount))
        .join(LedgerAccount, LedgerAccount.id == Posting.account_id)
        .where(
            LedgerAccount.organization_id == caller.organization_id,
            LedgerAccount.kind == CUSTOMER_BALANCE,
            Posting.organization_id == caller.organization_id,
            Posting.created_at >= since,
        )
        .group_by(Posting.currency, day)
    )
    if caller.customer_id is not None:
        statement = statement.where(LedgerAccount.customer_id == caller.customer_id)
    if caller.account_ids is not None:
        statement = statement.where(LedgerAccount.id.in_(sorted(caller.account_ids)))
    return {
        (currency, date.fromisoformat(text)): int(total)
        for currency, text, total in await session.execute(statement)
    }


async def organization(session: AsyncSession, organization_id: str) -> Organization:
    found = await session.get(Organization, organization_id)
    assert found is not None
    return found
