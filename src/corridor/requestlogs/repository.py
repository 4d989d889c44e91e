"""Every query of the request log."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Select, Table, delete, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit.db import affected_rows, get_visible
from corridor.models.request_log import RequestLog
from corridor.requestlogs.rules import RequestLogFilters


def _like_escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


_REQUEST_LOGS = cast("Table", RequestLog.__table__)


def visible_request_logs(caller: Caller) -> Select[Any]:
    return select(RequestLog).where(RequestLog.organization_id == caller.organization_id)


def filtered_request_logs(caller: Caller, filters: RequestLogFilters) -> Select[Any]:
    statement = visible_request_logs(caller)
    if filters.credential_id is not None:
        statement = statement.where(RequestLog.credential_id == filters.credential_id)
    if filters.status is not None:
        statement = statement.where(
            RequestLog.status >= filters.status.low, RequestLog.status <= filters.status.high
        )
    if filters.method is not None:
        statement = statement.where(RequestLog.method == filters.method)
    if filters.path_prefix is not None:
        statement = statement.where(
            RequestLog.path.startswith(filters.path_prefix, autoescape=True)
        )
    if filters.query is not None:
        pattern = f"%{_like_escaped(filters.query)}%"
        statement = statement.where(
            or_(
                RequestLog.path.like(pattern, escape="\\"),
                RequestLog.error_code.like(pattern, escape="\\"),
                RequestLog.idempotency_key.like(pattern, escape="\\"),
                RequestLog.id == filters.query,
            )
        )
    if filters.after_id is not None:
        statement = statement.where(RequestLog.id > filters.after_id)
    if filters.created_after is not None:
        statement = statement.where(RequestLog.created_at >= filters.created_after)
    if filters.created_before is not None:
        statement = statement.where(RequestLog.created_at < filters.created_before)
    return statement


async def get_request_log(session: AsyncSession, caller: Caller, request_id: str) -> RequestLog:
    return await get_visible(session, visible_request_logs(caller), request_id)


async def insert_request_logs(session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    """A batch (the recorder's) in multi-row INSERTs: the table's, not the ORM's bulk
    insert, which sends one statement per row on aiosqlite."""
    await session.execute(insert(_REQUEST_LOGS), rows)


async def delete_request_logs_before(session: AsyncSession, cutoff: datetime, limit: int) -> int:
    """Delete up to `limit` rows created before `cutoff`; returns how many."""
    ids = select(RequestLog.id).where(RequestLog.created_at < cutoff).limit(limit)
    return await affected_rows(
        session, delete(RequestLog).where(RequestLog.id.in_(ids.scalar_subquery()))
    )
