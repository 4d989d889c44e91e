"""Every query of the assistant: what a caller may see, runs to claim, events to stream."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.assistant.rules import ACTIVE_RUN_STATUSES, Role, RunStatus, ThreadStatus, Visibility
from corridor.auth.callers import Caller
from corridor.kit.db import affected_rows, for_update
from corridor.models.access import ApiKey, ConsoleUser
from corridor.models.assistant import (
    AssistantMessage,
    AssistantRun,
    AssistantRunEvent,
    AssistantThread,
    AssistantToolCall,
)
from corridor.models.mcp import McpSession


def visible_threads(caller: Caller) -> Select[AssistantThread]:
    """The caller's own threads and the organization's shared ones."""
    return select(AssistantThread).where(
        AssistantThread.organization_id == caller.organization_id,
        or_(
            AssistantThread.user_id == caller.actor_id,
            AssistantThread.visibility == Visibility.ORGANIZATION.value,
        ),
    )


def listed_threads(caller: Caller, status: ThreadStatus | None) -> Select[AssistantThread]:
    """The threads the caller may see, in `status` when given (the list's filter)."""
    statement = visible_threads(caller)
    if status is not None:
        statement = statement.where(AssistantThread.status == status.value)
    return statement


def visible_runs(caller: Caller) -> Select[AssistantRun]:
    threads = visible_threads(caller).with_only_columns(AssistantThread.id)
    return select(AssistantRun).where(
        AssistantRun.organization_id == caller.organization_id,
        AssistantRun.thread_id.in_(threads.scalar_subquery()),
    )


def messages_of(thread_id: str) -> Select[AssistantMessage]:
    return select(AssistantMessage).where(AssistantMessage.thread_id == thread_id)


async def latest_run_statuses(session: AsyncSession, thread_ids: Sequence[str]) -> dict[str, str]:
    if not thread_ids:
        return {}
    latest = (
        select(AssistantRun.thread_id, func.max(AssistantRun.id).label("run_id"))
        .where(AssistantRun.thread_id.in_(thread_ids))
        .group_by(AssistantRun.thread_id)
        .subquery()
    )
    rows = await session.execute(
        select(AssistantRun.thread_id, AssistantRun.status).join(
            latest, AssistantRun.id == latest.c.run_id
        )
    )
    return {thread_id: status for thread_id, status in rows.all()}


async def latest_assistant_messages(
    session: AsyncSession, thread_ids: Sequence[str]
) -> dict[str, str]:
    if not thread_ids:
        return {}
    rows = await session.execute(
        select(AssistantMessage.thread_id, func.max(AssistantMessage.id))
        .where(
            AssistantMessage.thread_id.in_(thread_ids),
            AssistantMessage.role == Role.ASSISTANT.value,
        )
        .group_by(AssistantMessage.thread_id)
    )
    return {thread_id: message_id for thread_id, message_id in rows.all()}


async def active_run_of(session: AsyncSession, thread_id: str) -> AssistantRun | None:
    statement = select(AssistantRun).where(
        AssistantRun.thread_id == thread_id,
        AssistantRun.status.in_([status.value for status in ACTIVE_RUN_STATUSES]),
    )
    return (await session.execute(statement.limit(1))).scalar_one_or_none()


async def earlier_runs(
    session: AsyncSession, thread_id: str, *, before_run_id: str, limit: int
) -> list[AssistantRun]:
    """The thread's latest runs before a run, newest first."""
    statement = (
        select(AssistantRun)
        .where(AssistantRun.thread_id == thread_id, AssistantRun.id < before_run_id)
        .order_by(AssistantRun.id.desc())
        .limit(limit)
    )
    return list((await session.execute(statement)).scalars())


async def user_message_of_run(session: AsyncSession, run_id: str) -> AssistantMessage | None:
    statement = select(AssistantMessage).where(
        AssistantMessage.run_id == run_id, AssistantMessage.role == Role.USER.value
    )
    return (await session.execute(statement.limit(1))).scalar_one_or_none()


async def lock_run(session: AsyncSession, run_id: str) -> AssistantRun | None:
    statement = select(AssistantRun).where(AssistantRun.id == run_id)
    return (await session.execute(for_update(session, statement))).scalar_one_or_none()


def _claimable(now: datetime) -> Any:
    return or_(
        AssistantRun.status == RunStatus.QUEUED.value,
        (AssistantRun.status == RunStatus.RUNNING.value) & (AssistantRun.lease_expires_at < now),
    )


async def any_run_to_claim(session: AsyncSession, *, now: datetime) -> bool:
    statement = select(AssistantRun.id).where(_claimable(now)).limit(1)
    return (await session.execute(statement)).first() is not None


async def runs_to_claim(session: AsyncSession, *, now: datetime, limit: int) -> list[AssistantRun]:
    """Queued runs, and running ones whose worker stopped renewing its lease (it died)."""
    statement = select(AssistantRun).where(_claimable(now)).order_by(AssistantRun.id).limit(limit)
    return list((await session.execute(for_update(session, statement, skip_locked=True))).scalars())


async def tool_calls_of_run(
    session: AsyncSession, run_id: str, *, locked: bool = False
) -> list[AssistantToolCall]:
    statement = (
        select(AssistantToolCall)
        .where(AssistantToolCall.run_id == run_id)
        .order_by(AssistantToolCall.id)
    )
    if locked:
        statement = for_update(session, statement)
    return list((await session.execute(statement)).scalars())


async def events_after(
    session: AsyncSession, run_id: str, sequence: int, *, limit: int
) -> list[AssistantRunEvent]:
    statement = (
        select(AssistantRunEvent)
        .where(AssistantRunEvent.run_id == run_id, AssistantRunEvent.sequence > sequence)
        .order_by(AssistantRunEvent.sequence)
        .limit(limit)
    )
    return list((await session.execute(statement)).scalars())


async def live_key(session: AsyncSession, organization_id: str, key_id: str) -> ApiKey | None:
    statement = select(ApiKey).where(
        ApiKey.id == key_id,
        ApiKey.organization_id == organization_id,
        ApiKey.revoked_at.is_(None),
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def delete_expired_threads(session: AsyncSession, *, now: datetime, limit: int) -> int:
    """Threads past their retention, with everything in them (the foreign keys cascade)."""
    expired = (
        select(AssistantThread.id)
        .where(AssistantThread.retention_expires_at < now)
        .order_by(AssistantThread.id)
        .limit(limit)
    )
    ids = list((await session.execute(expired)).scalars())
    if not ids:
        return 0
    run_ids = select(AssistantRun.id).where(AssistantRun.thread_id.in_(ids)).scalar_subquery()
    await session.execute(delete(AssistantRunEvent).where(AssistantRunEvent.run_id.in_(run_ids)))
    await session.execute(delete(AssistantToolCall).where(AssistantToolCall.run_id.in_(run_ids)))
    await session.execute(delete(AssistantMessage).where(AssistantMessage.thread_id.in_(ids)))
    await session.execute(delete(AssistantRun).where(AssistantRun.thread_id.in_(ids)))
    await session.execute(delete(McpSession).where(McpSession.thread_id.in_(ids)))
    return await affected_rows(session, delete(AssistantThread).where(AssistantThread.id.in_(ids)))


async def get_run_row(session: AsyncSession, run_id: str) -> AssistantRun | None:
    return await session.get(AssistantRun, run_id)


async def tool_call(session: AsyncSession, tool_call_id: str) -> AssistantToolCall | None:
    return await session.get(AssistantToolCall, tool_call_id)


async def thread(session: AsyncSession, thread_id: str) -> AssistantThread | None:
    return await session.get(AssistantThread, thread_id)


async def message(session: AsyncSession, message_id: str) -> AssistantMessage | None:
    return await session.get(AssistantMessage, message_id)


async def console_user(session: AsyncSession, user_id: str) -> ConsoleUser | None:
    return await session.get(ConsoleUser, user_id)
