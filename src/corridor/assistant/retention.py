"""The retention worker: threads expire 90 days after their last message (a setting)."""

from __future__ import annotations

from corridor.assistant import repository
from corridor.kit.clock import Clock
from corridor.kit.db import Database

threads_deleted_per_pass_max = 500


async def purge_expired_threads(database: Database, clock: Clock) -> int:
    async with database.session() as session, session.begin():
        return await repository.delete_expired_threads(
            session, now=clock.now(), limit=threads_deleted_per_pass_max
        )
