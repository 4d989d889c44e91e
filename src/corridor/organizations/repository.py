"""Queries for organizations."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.models.organization import Organization


async def count_organizations(session: AsyncSession) -> int:
    return (await session.execute(select(func.count()).select_from(Organization))).scalar_one()


async def only_organization_id(session: AsyncSession) -> str | None:
    """The organization's id when the database holds exactly one (CLI convenience)."""
    ids = list((await session.execute(select(Organization.id).limit(2))).scalars())
    return ids[0] if len(ids) == 1 else None
