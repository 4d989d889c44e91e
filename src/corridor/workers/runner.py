"""Background work: each task runs every few seconds until stopped.

`corridor worker` runs them alone; `corridor serve` runs them in-process on the embedded
default. Tasks claim rows with FOR UPDATE SKIP LOCKED on PostgreSQL, so any number of
workers can share one database.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from corridor.assistant import execution
from corridor.assistant import retention as assistant_retention
from corridor.assistant.execution import AssistantEnvironment
from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.logging import get_logger
from corridor.mcp import sessions as mcp_sessions
from corridor.transfers.engine import advance as transfer_engine
from corridor.web import idempotency
from corridor.webhooks import dispatcher, retention

logger = get_logger(__name__)

Task = Callable[[Database, Clock], Awaitable[int]]


@dataclass(frozen=True, slots=True)
class PeriodicTask:
    name: str
    run: Task
    interval_s: float


async def delete_expired_idempotency_keys(database: Database, clock: Clock) -> int:
    async with database.session() as session, session.begin():
        return await idempotency.delete_expired(session, now=clock.now())


TASKS: list[PeriodicTask] = [
    PeriodicTask("idempotency_retention", delete_expired_idempotency_keys, interval_s=300),
    PeriodicTask("webhook_dispatch", dispatcher.dispatch_task, interval_s=0.1),
    PeriodicTask("webhook_retention", retention.purge_task, interval_s=600),
    PeriodicTask("transfer_engine", transfer_engine.advance_transfers, interval_s=1),
]


async def run_task_forever(
    task: PeriodicTask, database: Database, clock: Clock, stop: asyncio.Event
) -> None:
    while not stop.is_set():
        try:
            done = await task.run(database, clock)
            if done:
                logger.info("worker_task_ran", task=task.name, items=done)
        except Exception:
            logger.exception("worker_task_failed", task=task.name)
        try:
            await asyncio.wait_for(stop.wait(), timeout=task.interval_s)
        except TimeoutError:
            pass


def assistant_tasks(environment: AssistantEnvironment) -> list[PeriodicTask]:
    """The assistant's runs (they need the tools' environment and the model) and retention."""

    async def assistant_runs(_database: Database, _clock: Clock) -> int:
        return await execution.process_runs(environment)

    return [
        PeriodicTask("assistant_runs", assistant_runs, interval_s=0.2),
        PeriodicTask(
            "assistant_retention", assistant_retention.purge_expired_threads, interval_s=600
        ),
        PeriodicTask("mcp_session_retention", mcp_sessions.purge_expired_sessions, interval_s=600),
    ]


async def run_workers(
    database: Database,
    clock: Clock,
    stop: asyncio.Event,
    *,
    assistant: AssistantEnvironment | None = None,
) -> None:
    tasks = [*TASKS, *(assistant_tasks(assistant) if assistant is not None else [])]
    logger.info("workers_started", tasks=[task.name for task in tasks])
    await asyncio.gather(*(run_task_forever(task, database, clock, stop) for task in tasks))
