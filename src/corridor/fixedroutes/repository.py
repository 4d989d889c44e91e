"""Queries of fixed routes and their virtual accounts, filtered to what the caller may see."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit import db
from corridor.models.customer import Customer
from corridor.models.transfer import FixedRoute, VirtualAccount


def visible_routes(caller: Caller) -> Select[FixedRoute]:
    """The organization's routes; only its customer's when the caller is bound to one."""
    statement = select(FixedRoute).where(FixedRoute.organization_id == caller.organization_id)
    if caller.customer_id is not None:
        statement = statement.where(FixedRoute.customer_id == caller.customer_id)
    return statement


def routes_of(caller: Caller, *, customer_id: str | None) -> Select[FixedRoute]:
    statement = visible_routes(caller)
    if customer_id is not None:
        statement = statement.where(FixedRoute.customer_id == customer_id)
    return statement


async def route_of_virtual_account(
    session: AsyncSession, *, virtual_account_id: str
) -> FixedRoute | None:
    """The route whose dedicated account this is (locked: a deposit reads its status)."""
    statement = select(FixedRoute).where(FixedRoute.virtual_account_id == virtual_account_id)
    return (await session.execute(db.for_update(session, statement))).scalar_one_or_none()


async def virtual_accounts(
    session: AsyncSession, account_ids: Sequence[str]
) -> dict[str, VirtualAccount]:
    if not account_ids:
        return {}
    statement = select(VirtualAccount).where(VirtualAccount.id.in_(list(account_ids)))
    return {account.id: account for account in (await session.execute(statement)).scalars()}


async def customer(session: AsyncSession, customer_id: str) -> Customer | None:
    return await session.get(Customer, customer_id)


async def virtual_account(session: AsyncSession, account_id: str) -> VirtualAccount | None:
    return await session.get(VirtualAccount, account_id)
