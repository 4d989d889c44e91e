"""Queries of the request path: Idempotency-Key records (idempotency.py) and an
organization's own request limit (ratelimits.py)."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import Table, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.db import affected_rows
from corridor.models.idempotency import IdempotencyRecord
from corridor.models.organization import Organization

# The table, not the mapped class: a statement the ORM's bulk UPDATE need not wrap (the
# claimed row is never held by the session that completes it).
_RECORDS = cast("Table", IdempotencyRecord.__table__)


async def idempotency_record(
    session: AsyncSession, organization_id: str, key: str
) -> IdempotencyRecord | None:
    statement = select(IdempotencyRecord).where(
        IdempotencyRecord.organization_id == organization_id, IdempotencyRecord.key == key
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def complete_idempotency_record(
    session: AsyncSession, record_id: str, *, status: int, body: str
) -> None:
    await session.execute(
        update(_RECORDS)
        .where(_RECORDS.c.id == record_id)
        .values(state="COMPLETED", response_status=status, response_body=body)
    )


async def delete_idempotency_record(session: AsyncSession, record_id: str) -> None:
    await session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.id == record_id))


async def delete_expired_idempotency_records(session: AsyncSession, *, now: datetime) -> int:
    statement = delete(IdempotencyRecord).where(IdempotencyRecord.expires_at <= now)
    return await affected_rows(session, statement)


async def organization(session: AsyncSession, organization_id: str) -> Organization | None:
    return await session.get(Organization, organization_id)
