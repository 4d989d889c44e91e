"""Queries for balance accounts: only customers' accounts, never the system's own."""

from __future__ import annotations

from sqlalchemy import BindParameter, Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit.db import get_kept
from corridor.kit.prepared import among
from corridor.ledger.rules import CUSTOMER_BALANCE
from corridor.models.customer import Customer
from corridor.models.ledger import LedgerAccount
from corridor.models.organization import Organization


def visible_accounts(
    caller: Caller, *, customer_id: str | None = None, currency: str | None = None
) -> Select[LedgerAccount]:
    """Balance accounts of the caller's organization that the caller may see."""
    statement = select(LedgerAccount).where(
        LedgerAccount.organization_id == caller.organization_id,
        LedgerAccount.kind == CUSTOMER_BALANCE,
    )
    if caller.customer_id is not None:
        statement = statement.where(LedgerAccount.customer_id == caller.customer_id)
    account_ids: object = caller.account_ids
    if isinstance(account_ids, BindParameter):  # a statement built once for many callers
        statement = statement.where(among(LedgerAccount.id, account_ids))
    elif caller.account_ids is not None:
        statement = statement.where(LedgerAccount.id.in_(sorted(caller.account_ids)))
    if customer_id is not None:
        statement = statement.where(LedgerAccount.customer_id == customer_id)
    if currency is not None:
        statement = statement.where(LedgerAccount.currency == currency)
    return statement


def visible_customers(caller: Caller) -> Select[Customer]:
    """The customers whose accounts the caller may list: its organization's, or the one it
    is bound to."""
    statement = select(Customer).where(Customer.organization_id == caller.organization_id)
    if caller.customer_id is not None:
        statement = statement.where(Customer.id == caller.customer_id)
    return statement


async def organization(session: AsyncSession, organization_id: str) -> Organization | None:
    return await get_kept(session, Organization, organization_id)


async def currencies_of_customer(
    session: AsyncSession, *, organization_id: str, customer_id: str
) -> set[str]:
    statement = select(LedgerAccount.currency).where(
        LedgerAccount.organization_id == organization_id,
        LedgerAccount.customer_id == customer_id,
        LedgerAccount.kind == CUSTOMER_BALANCE,
    )
    return set((await session.execute(statement)).scalars())


async def customer(session: AsyncSession, customer_id: str) -> Customer | None:
    return await session.get(Customer, customer_id)
