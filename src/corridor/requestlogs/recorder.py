"""Writing the request log off the request path: RequestMiddleware hands each finished
request of an API key or OAuth token to `RequestLogBuffer.record` (a tuple appended to a
list, no I/O), and one task of the web process (`run`, started by the app's lifespan)
writes what gathered in one multi-row INSERT every `flush_interval_s`. Reading the log
(`GET /v1/request-logs`) flushes this process's buffer first, so a client sees its own
requests at once; another process's show within the interval.

A batch the database refuses is dropped and logged, never retried; a buffer past
`buffer_rows_max` (the database away for long) drops new rows and counts them: the request
log is a developer's aid, never a reason to slow or fail a request."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime, timedelta
from typing import Any

from corridor.auth.callers import Caller
from corridor.config import Settings, get_settings
from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.logging import get_logger
from corridor.requestlogs import repository, rules

logger = get_logger(__name__)

flush_interval_s = 1.0
buffer_rows_max = 50_000
prune_batch_max = 5_000
prune_batches_per_run_max = 20

# (request id, caller, method, path, status, latency ms, Idempotency-Key, error body, at)
Entry = tuple[str, Caller, str, str, int, float, bytes | None, bytes, datetime]


class RequestLogBuffer:
    def __init__(self, database: Database, clock: Clock) -> None:
        self.database = database
        self.clock = clock
        self.entries: list[Entry] = []
        self.dropped = 0
        self._flushing = asyncio.Lock()

    def record(
        self,
        request_id: str,
        caller: Caller,
        method: str,
        path: str,
        status: int,
        latency_ms: float,
        idempotency_key: bytes | None,
        error_body: bytes,
    ) -> None:
        """On the request path: remember, nothing more."""
        if len(self.entries) >= buffer_rows_max:
            self.dropped += 1
            return
        self.entries.append(
            (
                request_id,
                caller,
                method,
                path,
                status,
                latency_ms,
                idempotency_key,
                error_body,
                self.clock.now(),
            )
        )

    async def flush(self) -> int:
        """Write what gathered; returns how many rows."""
        async with self._flushing:
            entries, self.entries = self.entries, []
            if not entries:
                return 0
            rows = [_row(entry) for entry in entries]
            try:
                async with self.database.session() as session, session.begin():
                    await repository.insert_request_logs(session, rows)
            except Exception:
                logger.exception("request_log_flush_failed", rows=len(rows))
                return 0
            return len(rows)

    async def run(self, stop: asyncio.Event) -> None:
        """Flush every `flush_interval_s` until `stop`, then once more."""
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=flush_interval_s)
            await self.flush()


def _row(entry: Entry) -> dict[str, Any]:
    request_id, caller, method, path, status, latency_ms, key, body, at = entry
    error = rules.error_body(status, body)
    return {
        "id": request_id,
        "organization_id": caller.organization_id,
        "credential_id": caller.actor_id,
        "credential_kind": caller.credential_kind,
        "method": method[:10],
        "path": path,
        "status": status,
        "latency_ms": round(latency_ms, 2),
        "idempotency_key": (
            key.decode("latin-1")[: rules.idempotency_key_chars_max] if key else None
        ),
        "error_code": rules.error_code(error),
        "error_body": error,
        "created_at": at,
    }


async def prune_task(database: Database, clock: Clock) -> int:
    """The worker task (workers/runner.py): prune with the process's settings."""
    return await prune(database, clock, get_settings())


async def prune(database: Database, clock: Clock, settings: Settings) -> int:
    """Delete rows older than `request_log_retention_days`, in bounded batches."""
    cutoff = clock.now() - timedelta(days=settings.request_log_retention_days)
    removed = 0
    for _ in range(prune_batches_per_run_max):
        async with database.session() as session, session.begin():
            done = await repository.delete_request_logs_before(session, cutoff, prune_batch_max)
        removed += done
        if done < prune_batch_max:
            break
    return removed
