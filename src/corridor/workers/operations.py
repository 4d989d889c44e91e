"""What a worker writes for operators: its heartbeat (readiness) and the queues' depths
and the oldest undelivered message's age (gauges of GET /metrics)."""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from corridor.health import repository
from corridor.kit import metrics
from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.ids import new_id

# Heartbeats of workers silent this long are deleted (killed workers never delete theirs).
silent_heartbeat_kept = timedelta(days=1)
QUEUES = ("outbox", "webhook", "transfer_engine", "assistant_runs")


@dataclass
class Heartbeat:
    """This worker process's row in worker_heartbeats."""

    worker_id: str = field(default_factory=lambda: new_id("wrk"))
    host: str = field(default_factory=socket.gethostname)
    pid: int = field(default_factory=os.getpid)
    started_at: datetime | None = None

    async def beat(self, database: Database, clock: Clock) -> int:
        now = clock.now()
        self.started_at = self.started_at or now
        async with database.session() as session, session.begin():
            await repository.beat(
                session,
                worker_id=self.worker_id,
                host=self.host[:255],
                pid=self.pid,
                started_at=self.started_at,
                now=now,
            )
            await repository.forget_silent(session, before=now - silent_heartbeat_kept)
        metrics.WORKER_HEARTBEAT.set(time.time())
        return 0

    async def stop(self, database: Database) -> None:
        """A worker stopping on purpose says so at once (readiness need not wait)."""
        async with database.session() as session, session.begin():
            await repository.forget(session, self.worker_id)


async def sample_queues(database: Database, clock: Clock) -> int:
    """Set the queue depth and oldest-undelivered gauges (a read, on the primary)."""
    now = clock.now()
    async with database.session(write=False) as session:
        depths = {
            "outbox": await repository.outbox_depth(session),
            "webhook": await repository.webhook_deliveries_due(session, now=now),
            "transfer_engine": await repository.transfer_steps_due(session, now=now),
            "assistant_runs": await repository.assistant_runs_waiting(session, now=now),
        }
        oldest = await repository.oldest_undelivered(session)
    for queue, depth in depths.items():
        metrics.WORKER_QUEUE_DEPTH.labels(queue).set(depth)
    age = 0.0 if oldest is None else max(0.0, (now - oldest).total_seconds())
    metrics.WEBHOOK_OLDEST_UNDELIVERED.set(age)
    return 0
