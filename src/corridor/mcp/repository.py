"""Every query of MCP sessions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit.db import affected_rows
from corridor.models.mcp import McpSession


async def live_session(
    session: AsyncSession, session_id: str, *, caller: Caller, now: datetime
) -> McpSession | None:
    """The session, if the same credential opened it and it has not lapsed."""
    statement = select(McpSession).where(
        McpSession.id == session_id,
        McpSession.organization_id == caller.organization_id,
        McpSession.actor_id == caller.actor_id,
        McpSession.expires_at > now,
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def trim_sessions_of(session: AsyncSession, *, actor_id: str, keep: int) -> int:
    """Delete a credential's least recently used sessions beyond `keep` (thread sessions
    go with their threads)."""
    kept = (
        select(McpSession.id)
        .where(McpSession.actor_id == actor_id, McpSession.thread_id.is_(None))
        .order_by(McpSession.last_used_at.desc(), McpSession.id.desc())
        .limit(keep)
    )
    statement = delete(McpSession).where(
        McpSession.actor_id == actor_id,
        McpSession.thread_id.is_(None),
        McpSession.id.not_in(kept.scalar_subquery()),
    )
    return await affected_rows(session, statement)


async def set_customer(session: AsyncSession, *, session_id: str, customer_id: str) -> int:
    """Bind once: a session already bound keeps its customer."""
    statement = (
        update(McpSession)
        .where(McpSession.id == session_id, McpSession.customer_id.is_(None))
        .values(customer_id=customer_id)
    )
    return await affected_rows(session, statement)


async def renew(
    session: AsyncSession, *, session_id: str, now: datetime, expires_at: datetime
) -> None:
    statement = (
        update(McpSession)
        .where(McpSession.id == session_id)
        .values(last_used_at=now, expires_at=expires_at)
    )
    await session.execute(statement)


async def delete_session(session: AsyncSession, *, session_id: str) -> int:
    return await affected_rows(session, delete(McpSession).where(McpSession.id == session_id))


async def delete_expired(session: AsyncSession, *, now: datetime, limit: int) -> int:
    expired = (
        select(McpSession.id)
        .where(McpSession.expires_at <= now)
        .order_by(McpSession.id)
        .limit(limit)
    )
    ids = list((await session.execute(expired)).scalars())
    if not ids:
        return 0
    return await affected_rows(session, delete(McpSession).where(McpSession.id.in_(ids)))


async def delete_sessions_of_threads(session: AsyncSession, thread_ids: list[str]) -> None:
    await session.execute(delete(McpSession).where(McpSession.thread_id.in_(thread_ids)))
