"""Queries of the request path: Idempotency-Key records (idempotency.py) and an
organization's own request limit (ratelimits.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, and_, bindparam, delete, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.db import affected_rows, is_sqlite
from corridor.kit.prepared import PreparedRead
from corridor.models.idempotency import IdempotencyRecord
from corridor.models.organization import Organization

# The table, not the mapped class: a statement the ORM's bulk UPDATE need not wrap (the
# claimed row is never held by the session that completes it).
_RECORDS = cast("Table", IdempotencyRecord.__table__)


def _claim(dialect: Any) -> PreparedRead:
    """A key claimed in one statement: its row made IN_PROGRESS, or an existing row taken
    over when it expired or its first request abandoned it (IN_PROGRESS past its lease),
    answering the row's id; nothing when the row stands (its answer is read next). A
    concurrent claim of the same key waits on the unique index for this one's transaction."""
    table = _RECORDS.c
    columns = (
        "id",
        "organization_id",
        "key",
        "request_fingerprint",
        "created_at",
        "locked_until",
        "expires_at",
    )
    statement = dialect.insert(_RECORDS).values(
        {name: bindparam(name, type_=table[name].type) for name in columns}
        | {"state": "IN_PROGRESS", "response_status": None, "response_body": None}
    )
    now = bindparam("now", type_=table.created_at.type)
    taken = {
        name: statement.excluded[name]
        for name in ("request_fingerprint", "created_at", "locked_until", "expires_at")
    }
    return PreparedRead(
        statement.on_conflict_do_update(
            index_elements=[table.organization_id, table.key],
            set_=taken | {"state": "IN_PROGRESS", "response_status": None, "response_body": None},
            where=or_(
                table.expires_at <= now,
                and_(table.state == "IN_PROGRESS", table.locked_until <= now),
            ),
        ).returning(table.id)
    )


_CLAIM = {"postgresql": _claim(postgresql), "sqlite": _claim(sqlite)}


async def claim_idempotency_record(
    session: AsyncSession, values: dict[str, Any], *, now: datetime
) -> str | None:
    """Claim the key of `values` (a new IN_PROGRESS row's columns) unless a live row holds
    it: the id of the row claimed (an expired or abandoned one keeps its id), or None."""
    dialect = "sqlite" if is_sqlite(session) else "postgresql"
    rows = await _CLAIM[dialect].rows(session, values | {"now": now})
    return rows[0][0] if rows else None


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
