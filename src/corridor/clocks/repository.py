"""Queries of sandbox clocks."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit import db
from corridor.models.clock import SandboxClock


async def clock_row(
    session: AsyncSession, organization_id: str, *, locked: bool
) -> SandboxClock | None:
    if not locked:
        return await session.get(SandboxClock, organization_id)
    statement = db.for_update(
        session, select(SandboxClock).where(SandboxClock.organization_id == organization_id)
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def delete_clock(session: AsyncSession, organization_id: str) -> None:
    await session.execute(
        delete(SandboxClock).where(SandboxClock.organization_id == organization_id)
    )
