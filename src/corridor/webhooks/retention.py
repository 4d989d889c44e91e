"""Message history retention: the workers purge what is older than the history keeps.

Messages (outbox events) go with their deliveries and attempts once older than
`webhook_history_days` (90). Where history is switched off (the environment, or the
organization's `webhookHistoryEnabled`), a message goes as soon as every delivery is over.
Each run deletes in bounded batches.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.config import Settings, get_settings
from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.webhooks import repository

purge_batch_max = 500
purge_batches_per_run_max = 20


async def purge_task(database: Database, clock: Clock) -> int:
    """The worker task (workers/runner.py): one purge with the process's settings."""
    return await purge_history(database, clock, get_settings())


async def purge_history(database: Database, clock: Clock, settings: Settings) -> int:
    """Delete expired messages, then finished ones where history is off; returns how many."""
    cutoff = clock.now() - timedelta(days=settings.webhook_history_days)

    async def expired(session: AsyncSession) -> list[str]:
        return await repository.event_ids_created_before(session, cutoff, purge_batch_max)

    async def finished_without_history(session: AsyncSession) -> list[str]:
        return await repository.finished_event_ids(
            session,
            history_off_organizations_only=settings.webhook_history_enabled,
            limit=purge_batch_max,
        )

    return await _purge(database, expired) + await _purge(database, finished_without_history)


async def _purge(
    database: Database, select_ids: Callable[[AsyncSession], Awaitable[list[str]]]
) -> int:
    removed = 0
    for _ in range(purge_batches_per_run_max):
        async with database.session() as session, session.begin():
            ids = await select_ids(session)
            removed += await repository.delete_messages(session, ids)
        if len(ids) < purge_batch_max:
            break
    return removed
