"""Queries of treasury balances: a customer's balance accounts."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.ledger.rules import CUSTOMER_BALANCE
from corridor.models.ledger import LedgerAccount
from corridor.models.organization import Organization


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


async def organization(session: AsyncSession, organization_id: str) -> Organization:
    found = await session.get(Organization, organization_id)
    assert found is not None
    return found
