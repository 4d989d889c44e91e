"""Queries of quotes, filtered to what the caller may see."""

from __future__ import annotations

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit import db
from corridor.models.transfer import Quote


def visible_quotes(caller: Caller) -> Select[Quote]:
    """The organization's quotes; only its customer's when the caller is bound to one."""
    statement = select(Quote).where(Quote.organization_id == caller.organization_id)
    if caller.customer_id is not None:
        statement = statement.where(Quote.customer_id == caller.customer_id)
    return statement


async def quote_of_organization(
    session: AsyncSession, organization_id: str, quote_id: str, *, for_update: bool = False
) -> Quote | None:
    """For the transfer's own paths (its quote, whoever submits it)."""
    statement = select(Quote).where(Quote.organization_id == organization_id, Quote.id == quote_id)
    if for_update:
        statement = db.for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()
