"""Every query of tool confirmations."""

from __future__ import annotations

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.db import for_update
from corridor.models.confirmation import ToolConfirmationRecord


def visible_confirmations(organization_id: str) -> Select[ToolConfirmationRecord]:
    return select(ToolConfirmationRecord).where(
        ToolConfirmationRecord.organization_id == organization_id
    )


def listed_confirmations(
    organization_id: str, status: str | None
) -> Select[ToolConfirmationRecord]:
    """The organization's confirmations, in `status` when given (the list's filter)."""
    statement = visible_confirmations(organization_id)
    if status is not None:
        statement = statement.where(ToolConfirmationRecord.status == status)
    return statement


async def latest_for_call(
    session: AsyncSession, *, actor_id: str, tool: str, arguments_sha256: str, status: str
) -> ToolConfirmationRecord | None:
    """The newest confirmation of this credential's exact call in `status`, locked."""
    statement = (
        select(ToolConfirmationRecord)
        .where(
            ToolConfirmationRecord.actor_id == actor_id,
            ToolConfirmationRecord.arguments_sha256 == arguments_sha256,
            ToolConfirmationRecord.tool == tool,
            ToolConfirmationRecord.status == status,
            ToolConfirmationRecord.executed_at.is_(None),
        )
        .order_by(ToolConfirmationRecord.id.desc())
        .limit(1)
    )
    return (await session.execute(for_update(session, statement))).scalars().first()


async def locked(session: AsyncSession, confirmation_id: str) -> ToolConfirmationRecord | None:
    statement = select(ToolConfirmationRecord).where(ToolConfirmationRecord.id == confirmation_id)
    return (await session.execute(for_update(session, statement))).scalar_one_or_none()


async def of_assistant_call(
    session: AsyncSession, tool_call_id: str
) -> ToolConfirmationRecord | None:
    statement = select(ToolConfirmationRecord).where(
        ToolConfirmationRecord.assistant_tool_call_id == tool_call_id
    )
    return (await session.execute(for_update(session, statement))).scalar_one_or_none()
