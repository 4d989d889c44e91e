"""Background work: each task runs every few seconds until stopped.

`corridor worker` runs them alone; `corridor serve` runs them in-process on the embedded
default. Tasks claim rows with FOR UPDATE SKIP LOCKED on PostgreSQL, so any number of
workers can share one database.

Stopping (SIGTERM, or the server shutting down): every task finishes the run it is in
and starts no other; a run claims nothing more once `kit.stopping.stopping()` is true
and finishes, or releases, what it holds (webhook attempts in flight are sent and
recorded; an assistant run between steps gives its lease back). What is still running
after `shutdown_grace_s` is cancelled: its claims' leases run out and another worker
takes them over. Then the worker deletes its heartbeat.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from corridor.agents.mandates import service as mandates
from corridor.assistant import execution
from corridor.assistant import retention as assistant_retention
from corridor.assistant.execution import AssistantEnvironment
from corridor.audit import service as audit
from corridor.bankfiles import tasks as bank_file_tasks
from corridor.config import Settings, get_settings
from corridor.kit import metrics, stopping
from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.logging import get_logger
from corridor.mcp import sessions as mcp_sessions
from corridor.requestlogs import recorder as request_log
from corridor.transfers.engine import advance as transfer_engine
from corridor.web import idempotency
from corridor.webhooks import dispatcher, retention
from corridor.workers.operations import Heartbeat, sample_queues

logger = get_logger(__name__)

Task = Callable[[Database, Clock], Awaitable[int]]
queue_sample_s = 5
chain_scan_s = 5


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
    PeriodicTask("request_log_retention", request_log.prune_task, interval_s=600),
    PeriodicTask("audit_link", audit.link_task, interval_s=1),
    PeriodicTask("mandate_expiry", mandates.expire_task, interval_s=1),
    PeriodicTask("transfer_engine", transfer_engine.advance_transfers, interval_s=1),
    PeriodicTask("bank_files", bank_file_tasks.write_and_upload, interval_s=1),
    PeriodicTask("bank_file_inbox", bank_file_tasks.read_inbox, interval_s=30),
    PeriodicTask("queue_gauges", sample_queues, interval_s=queue_sample_s),
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
            metrics.WORKER_TASK_FAILURES.labels(task.name).inc()
            logger.exception("worker_task_failed", task=task.name)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=task.interval_s)


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


def chain_deposit_tasks() -> list[PeriodicTask]:
    """The deposit scan of the chains paid on a real node (web3 is imported only then)."""
    from corridor.fixedroutes.routing import FixedRouteDeposits
    from corridor.transfers.deposits.chain import scan_chain_deposits

    router = FixedRouteDeposits()

    async def chain_deposits(database: Database, clock: Clock) -> int:
        return await scan_chain_deposits(database, clock, router=router)

    return [PeriodicTask("chain_deposits", chain_deposits, interval_s=chain_scan_s)]


async def run_workers(
    database: Database,
    clock: Clock,
    stop: asyncio.Event,
    *,
    assistant: AssistantEnvironment | None = None,
    settings: Settings | None = None,
) -> None:
    """Run every task until `stop` is set, then give them `shutdown_grace_s` to finish."""
    settings = settings or get_settings()
    heartbeat = Heartbeat()
    tasks = [
        *TASKS,
        PeriodicTask("heartbeat", heartbeat.beat, interval_s=settings.worker_heartbeat_s),
        *(assistant_tasks(assistant) if assistant is not None else []),
        *(chain_deposit_tasks() if settings.evm_chains else []),
    ]
    logger.info("workers_started", tasks=[task.name for task in tasks])
    token = stopping.watch(stop)
    try:
        running = [
            asyncio.create_task(run_task_forever(task, database, clock, stop), name=task.name)
            for task in tasks
        ]
    finally:
        stopping.unwatch(token)
    try:
        await stop.wait()
    finally:
        stop.set()
        await _finish(running, settings.shutdown_grace_s)
        with contextlib.suppress(Exception):
            await heartbeat.stop(database)
        logger.info("workers_stopped")


async def _finish(running: list[asyncio.Task[None]], grace_s: float) -> None:
    """Wait up to `grace_s` for the tasks to end by themselves, then cancel the rest."""
    _, late = await asyncio.wait(running, timeout=grace_s) if running else (set(), set())
    for task in late:
        logger.warning("worker_task_cancelled", task=task.get_name(), grace_s=grace_s)
        task.cancel()
    if late:
        await asyncio.gather(*late, return_exceptions=True)
