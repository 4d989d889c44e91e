"""The queries behind readiness and the workers' gauges."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, or_, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.models.assistant import AssistantRun
from corridor.models.event import Event
from corridor.models.operations import WorkerHeartbeat
from corridor.models.transfer import Transfer
from corridor.models.webhook import WebhookDelivery

# A queue's depth is counted up to this many (a backlog past it shows as this many).
depth_counted_max = 100_000


async def database_answers(session: AsyncSession) -> None:
    await session.execute(text("SELECT 1"))


async def current_revisions(session: AsyncSession) -> frozenset[str]:
    """The migration revisions the database is at (Alembic's table)."""
    rows = await session.execute(text("SELECT version_num FROM alembic_version"))
    return frozenset(row[0] for row in rows)


async def newest_heartbeat(session: AsyncSession) -> datetime | None:
    return (await session.execute(select(func.max(WorkerHeartbeat.beat_at)))).scalar_one()


async def live_workers(session: AsyncSession, *, since: datetime) -> int:
    statement = select(func.count()).where(WorkerHeartbeat.beat_at >= since)
    return int((await session.execute(statement)).scalar_one())


async def beat(
    session: AsyncSession,
    *,
    worker_id: str,
    host: str,
    pid: int,
    started_at: datetime,
    now: datetime,
) -> None:
    """Write (or renew) a worker's heartbeat."""
    found = await session.get(WorkerHeartbeat, worker_id)
    if found is None:
        session.add(
            WorkerHeartbeat(id=worker_id, host=host, pid=pid, started_at=started_at, beat_at=now)
        )
    else:
        found.beat_at = now


async def forget(session: AsyncSession, worker_id: str) -> None:
    await session.execute(delete(WorkerHeartbeat).where(WorkerHeartbeat.id == worker_id))


async def forget_silent(session: AsyncSession, *, before: datetime) -> None:
    """Heartbeats of workers gone long ago (killed, never deleted their row)."""
    await session.execute(delete(WorkerHeartbeat).where(WorkerHeartbeat.beat_at < before))


# --- Queue depths (workers/gauges) ----------------------------------------------------------


async def _count(session: AsyncSession, statement) -> int:
    capped = statement.limit(depth_counted_max).subquery()
    return int((await session.execute(select(func.count()).select_from(capped))).scalar_one())


async def outbox_depth(session: AsyncSession) -> int:
    """Events not yet fanned out to their webhook deliveries."""
    return await _count(session, select(Event.id).where(Event.dispatched_at.is_(None)))


async def webhook_deliveries_due(session: AsyncSession, *, now: datetime) -> int:
    """Deliveries due (a SENDING one whose lease ran out included)."""
    return await _count(session, select(WebhookDelivery.id).where(WebhookDelivery.due_at <= now))


async def transfer_steps_due(session: AsyncSession, *, now: datetime) -> int:
    statement = select(Transfer.id).where(
        Transfer.next_step_at.is_not(None), Transfer.next_step_at <= now
    )
    return await _count(session, statement)


async def assistant_runs_waiting(session: AsyncSession, *, now: datetime) -> int:
    statement = select(AssistantRun.id).where(
        or_(
            AssistantRun.status == "queued",
            (AssistantRun.status == "running") & (AssistantRun.lease_expires_at < now),
        )
    )
    return await _count(session, statement)


async def oldest_undelivered(session: AsyncSession) -> datetime | None:
    """When the oldest message not yet delivered to all its endpoints was created: not yet
    fanned out, or with a delivery still to make (pending, or sending)."""
    not_fanned_out = select(func.min(Event.created_at)).where(Event.dispatched_at.is_(None))
    in_delivery = (
        select(func.min(Event.created_at))
        .select_from(WebhookDelivery)
        .join(Event, Event.id == WebhookDelivery.event_id)
        .where(WebhookDelivery.due_at.is_not(None))
    )
    found = [
        (await session.execute(not_fanned_out)).scalar_one(),
        (await session.execute(in_delivery)).scalar_one(),
    ]
    present = [moment for moment in found if moment is not None]
    return min(present) if present else None
