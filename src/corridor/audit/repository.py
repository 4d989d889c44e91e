"""Every query of the audit chain."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from sqlalchemy import Select, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.audit.rules import GENESIS_HASH, AuditFilters
from corridor.kit.db import for_update, get_visible, is_sqlite
from corridor.models.audit import AuditEvent, AuditHead


async def create_head(session: AsyncSession, organization_id: str) -> None:
    """The head of a chain with no record yet, unless it exists (another transaction's,
    if it made it first: then this waits for it to end)."""
    values = {"organization_id": organization_id, "sequence": 0, "hash": GENESIS_HASH}
    insert = sqlite_insert if is_sqlite(session) else postgresql_insert
    await session.execute(
        insert(AuditHead)
        .values(**values)
        .on_conflict_do_nothing(index_elements=["organization_id"])
    )


async def lock_head(session: AsyncSession, organization_id: str) -> tuple[int, str]:
    """The organization's head, locked until the transaction ends (PostgreSQL; SQLite's
    write transaction serialises linkers itself): one linker at a time per chain."""
    await create_head(session, organization_id)
    statement = for_update(
        session, select(AuditHead).where(AuditHead.organization_id == organization_id)
    )
    head = (await session.execute(statement)).scalar_one()
    return int(head.sequence), str(head.hash)


async def unlinked_events(
    session: AsyncSession, organization_id: str, *, limit: int
) -> list[AuditEvent]:
    """The organization's records not linked into its chain yet, oldest first."""
    found = await session.execute(
        select(AuditEvent)
        .where(AuditEvent.organization_id == organization_id, AuditEvent.sequence.is_(None))
        .order_by(AuditEvent.created_at, AuditEvent.id)
        .limit(limit)
    )
    return list(found.scalars())


async def organizations_with_unlinked(session: AsyncSession) -> list[str]:
    found = await session.execute(
        select(AuditEvent.organization_id)
        .where(AuditEvent.sequence.is_(None))
        .distinct()
        .order_by(AuditEvent.organization_id)
    )
    return list(found.scalars())


async def set_head(session: AsyncSession, organization_id: str, sequence: int, hash_: str) -> None:
    await session.execute(
        update(AuditHead)
        .where(AuditHead.organization_id == organization_id)
        .values(sequence=sequence, hash=hash_)
    )


async def head_of(session: AsyncSession, organization_id: str) -> tuple[int, str] | None:
    row = (
        await session.execute(
            select(AuditHead.sequence, AuditHead.hash).where(
                AuditHead.organization_id == organization_id
            )
        )
    ).one_or_none()
    return None if row is None else (int(row[0]), str(row[1]))


async def organizations_with_chains(session: AsyncSession) -> list[str]:
    found = await session.execute(
        select(AuditHead.organization_id).order_by(AuditHead.organization_id)
    )
    return list(found.scalars())


def visible_events(organization_id: str, agent_id: str | None) -> Select[Any]:
    """The organization's linked records (one committed between a link and a read waits
    for the next link)."""
    statement = select(AuditEvent).where(
        AuditEvent.organization_id == organization_id, AuditEvent.sequence.is_not(None)
    )
    if agent_id is not None:
        statement = statement.where(AuditEvent.agent_id == agent_id)
    return statement


def filtered_events(
    organization_id: str, agent_id: str | None, filters: AuditFilters
) -> Select[Any]:
    statement = visible_events(organization_id, agent_id)
    if filters.agent_id is not None:
        statement = statement.where(AuditEvent.agent_id == filters.agent_id)
    if filters.transfer_id is not None:
        statement = statement.where(AuditEvent.transfer_id == filters.transfer_id)
    if filters.kind is not None:
        statement = statement.where(AuditEvent.kind == filters.kind)
    if filters.created_after is not None:
        statement = statement.where(AuditEvent.created_at >= filters.created_after)
    if filters.created_before is not None:
        statement = statement.where(AuditEvent.created_at < filters.created_before)
    return statement


async def get_event(
    session: AsyncSession, organization_id: str, agent_id: str | None, event_id: str
) -> AuditEvent:
    return await get_visible(session, visible_events(organization_id, agent_id), event_id)


async def events_in_order(
    session: AsyncSession, statement: Select[Any], *, batch: int = 500
) -> AsyncIterator[list[AuditEvent]]:
    """The records `statement` selects in sequence order, `batch` at a time (keyset pages:
    memory stays bounded however long the chain)."""
    after = 0
    while True:
        rows = list(
            (
                await session.execute(
                    statement.where(AuditEvent.sequence > after)
                    .order_by(AuditEvent.sequence)
                    .limit(batch)
                )
            ).scalars()
        )
        if not rows:
            return
        yield rows
        for row in rows:
            session.expunge(row)
        if len(rows) < batch:
            return
        after = int(rows[-1].sequence or 0)
