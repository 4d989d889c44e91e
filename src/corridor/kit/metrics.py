"""Prometheus metrics: every family Corridor exports (`corridor_…`), and how they are read.

One process keeps its values in memory. Several processes (the API processes of
`corridor serve --processes N` and the `corridor worker`s) report one view when they
share a folder named by PROMETHEUS_MULTIPROC_DIR (prometheus-client's multiprocess mode,
chosen when prometheus_client is first imported): each process writes its values into
files there, and whichever process answers `GET /metrics` adds them all up. Counters and
histograms of a process that exited stay counted; its gauges (`live…` modes) are
dropped (`forget_dead_processes`).

No label holds an id: labels are routes as templates, methods, statuses, rails, flows,
currencies, outcomes, queue and task names, all from small fixed sets (`bounded`).
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST as CONTENT_TYPE
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from sqlalchemy import event
from sqlalchemy.orm import Session

from corridor import __version__

MULTIPROCESS_DIRECTORY_SETTING = "PROMETHEUS_MULTIPROC_DIR"
__all__ = ["CONTENT_TYPE"]

# Request and step latencies: 5 ms to 10 s.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
# Waits for a pooled connection (opening one included): most are none at all.
WAIT_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5)
# How late a worker took due work (claim delay): 10 ms to an hour.
DELAY_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600)

# --- HTTP (web/request_metrics.py) ---------------------------------------------------------

HTTP_REQUESTS = Counter(
    "corridor_http_requests",
    "HTTP requests answered, by method, route template and status code",
    ["method", "route", "status"],
)
HTTP_DURATION = Histogram(
    "corridor_http_request_duration_seconds",
    "Time from a request's arrival to the end of its answer, by method and route template",
    ["method", "route"],
    buckets=LATENCY_BUCKETS,
)
HTTP_IN_PROGRESS = Gauge(
    "corridor_http_requests_in_progress",
    "HTTP requests being answered now",
    multiprocess_mode="livesum",
)

# --- Database (kit/db.py) ------------------------------------------------------------------

DB_POOL_IN_USE = Gauge(
    "corridor_db_pool_connections_in_use",
    "Pooled connections lent out now, by database (primary, replica)",
    ["database"],
    multiprocess_mode="livesum",
)
DB_POOL_MAX = Gauge(
    "corridor_db_pool_connections_max",
    "Connections the pools may open (size + overflow), by database: the connection budget",
    ["database"],
    multiprocess_mode="livesum",
)
DB_POOL_WAIT = Histogram(
    "corridor_db_pool_wait_seconds",
    "Time a session waited for a pooled connection, by database",
    ["database"],
    buckets=WAIT_BUCKETS,
)
DB_POOL_TIMEOUTS = Counter(
    "corridor_db_pool_timeouts",
    "Check-outs that found no free connection in time (answered 503), by database",
    ["database"],
)
DB_REPLICA_LAG = Gauge(
    "corridor_db_replica_lag_seconds",
    "How far the read replica is behind the primary, as the API processes last measured "
    "it (the largest); +Inf when it does not answer. Absent without a replica",
    ["database"],
    multiprocess_mode="livemax",
)
DB_READS = Counter(
    "corridor_db_reads",
    "Units of work that only read (lists, history, statements, charts, exports), by where "
    "they ran: replica, primary (no replica configured) or fallback (the replica lagged "
    "past the bound or did not answer)",
    ["target"],
)

# --- Money: counted from the outbox as the dispatcher fans events out (workers) ----------

TRANSFERS_CREATED = Counter(
    "corridor_transfers_created", "Transfers created, by payout rail and flow", ["rail", "flow"]
)
TRANSFERS_SUBMITTED = Counter(
    "corridor_transfers_submitted",
    "Transfers submitted (out of DRAFT), by payout rail and flow",
    ["rail", "flow"],
)
TRANSFERS_COMPLETED = Counter(
    "corridor_transfers_completed", "Transfers completed, by payout rail and flow", ["rail", "flow"]
)
TRANSFERS_FAILED = Counter(
    "corridor_transfers_failed", "Transfers failed, by payout rail and flow", ["rail", "flow"]
)
TRANSFERS_CANCELLED = Counter(
    "corridor_transfers_cancelled", "Transfers cancelled, by payout rail and flow", ["rail", "flow"]
)
TRANSFERS_REVERSED = Counter(
    "corridor_transfers_reversed",
    "Transfers reversed (a returned payout, a refund), by payout rail and flow",
    ["rail", "flow"],
)
LEDGER_ENTRIES = Counter("corridor_ledger_entries", "Journal entries committed, by kind", ["kind"])
LEDGER_POSTINGS = Counter(
    "corridor_ledger_postings",
    "Ledger postings committed, by entry kind and currency",
    ["kind", "currency"],
)

# --- Agents ------------------------------------------------------------------------------

AGENT_DECISIONS = Counter(
    "corridor_agent_decisions",
    "Decisions on agents' submits: allowed, denied (with the refusal's code), parked for an "
    "owner, approved or declined by the owner",
    ["outcome", "code"],
)

# --- Webhooks (webhooks/dispatcher.py) -------------------------------------------------------

WEBHOOK_ATTEMPTS = Counter(
    "corridor_webhook_attempts",
    "Delivery attempts, by outcome (success; retry: a failure to try again; gone: 410) "
    "and answer class (2xx, 3xx, 4xx, 5xx, none: no HTTP answer)",
    ["outcome", "status_class"],
)
WEBHOOK_ATTEMPT_DURATION = Histogram(
    "corridor_webhook_attempt_duration_seconds",
    "Duration of a delivery attempt (connect, send, first bytes of the answer), by outcome",
    ["outcome"],
    buckets=LATENCY_BUCKETS,
)
WEBHOOK_DELIVERIES = Counter(
    "corridor_webhook_deliveries_finished",
    "Deliveries that ended, by status (success; fail: retries exhausted or the endpoint "
    "gone or disabled; canceled: the endpoint disabled or deleted)",
    ["status"],
)
WEBHOOK_OLDEST_UNDELIVERED = Gauge(
    "corridor_webhook_oldest_undelivered_age_seconds",
    "Age of the oldest message not yet delivered to every endpoint it is for (0: none)",
    multiprocess_mode="livemostrecent",
)

# --- Workers (workers/runner.py) -----------------------------------------------------------

WORKER_QUEUE_DEPTH = Gauge(
    "corridor_worker_queue_depth",
    "Work due now, by queue: outbox (events not yet fanned out), webhook (deliveries due), "
    "transfer_engine (transfer steps due), assistant_runs (runs waiting for a worker)",
    ["queue"],
    multiprocess_mode="livemostrecent",
)
WORKER_CLAIM_DELAY = Histogram(
    "corridor_worker_claim_delay_seconds",
    "How long due work waited before a worker claimed it, by queue",
    ["queue"],
    buckets=DELAY_BUCKETS,
)
WORKER_TASK_FAILURES = Counter(
    "corridor_worker_task_failures",
    "Worker task runs that raised (logged as worker_task_failed), by task",
    ["task"],
)
WORKER_HEARTBEAT = Gauge(
    "corridor_worker_heartbeat_timestamp_seconds",
    "When a worker last wrote its heartbeat (Unix time; the newest)",
    multiprocess_mode="livemax",
)

# --- Assistant and tools -------------------------------------------------------------------

ASSISTANT_RUNS = Counter(
    "corridor_assistant_runs",
    "Assistant runs entering a status (queued, running, awaiting_confirmation, completed, "
    "failed, cancelled)",
    ["status"],
)
ASSISTANT_TOKENS = Counter(
    "corridor_assistant_model_tokens",
    "Model tokens used by assistant runs, by direction (input, output), provider and model",
    ["direction", "provider", "model"],
)
TOOL_CALLS = Counter(
    "corridor_tool_calls",
    "Tool calls (MCP, the assistant), by tool and outcome (ok, error)",
    ["tool", "outcome"],
)

BUILD_INFO = Gauge(
    "corridor_build_info",
    "1, labelled with the running version",
    ["version"],
    multiprocess_mode="livemax",
)
BUILD_INFO.labels(__version__).set(1)


# --- Bounded labels --------------------------------------------------------------------------

_LABEL_TEXT = re.compile(r"^[A-Za-z][A-Za-z0-9_.:/-]{0,63}$")
OTHER = "other"


def bounded(value: Any, allowed: Iterable[str] | None = None) -> str:
    """A label value from a small fixed set: `allowed` when given, else a short word of
    the usual characters; anything else is `other` (never an id or free text)."""
    text = str(value) if value is not None else ""
    if not text:
        return "none"
    if allowed is not None:
        return text if text in allowed else OTHER
    return text if _LABEL_TEXT.match(text) and not _looks_like_id(text) else OTHER


_ID = re.compile(r"[a-z]+_[0-9a-hjkmnp-tv-z]{26}", re.IGNORECASE)


def _looks_like_id(text: str) -> bool:
    return _ID.search(text) is not None


# --- The outbox's events (counted by the dispatcher as it fans them out) --------------------

_TRANSFER_EVENTS = {
    "transfer.created": TRANSFERS_CREATED,
    "transfer.completed": TRANSFERS_COMPLETED,
    "transfer.failed": TRANSFERS_FAILED,
    "transfer.cancelled": TRANSFERS_CANCELLED,
    "transfer.reversed": TRANSFERS_REVERSED,
}
# A transfer leaves DRAFT for one of these; PENDING is reached again after an
# authorization or a review, which the event's transfer then carries.
_SUBMITTED_EVENTS = frozenset(
    {"transfer.pending", "transfer.in_review", "transfer.pending_authorization"}
)


def transfer_counter(event_type: str, data: Any) -> tuple[Counter, str, str] | None:
    """The transfer counter an outbox event moves, with its rail and flow labels; None
    for any other event. Every committed event is fanned out exactly once, the express
    create+submit's and the workers' alike, so counting there counts each change once."""
    counter = _TRANSFER_EVENTS.get(event_type)
    if counter is None and event_type in _SUBMITTED_EVENTS:
        if not isinstance(data, dict) or data.get("authorization") or data.get("review"):
            return None
        counter = TRANSFERS_SUBMITTED
    if counter is None or not isinstance(data, dict):
        return None
    destination = data.get("destination")
    rail = None
    if isinstance(destination, dict):
        rail = destination.get("paymentRail") or destination.get("payment_rail")
    return counter, bounded(rail), bounded(data.get("flow"))


def count_outbox_events(events: Iterable[tuple[str, Any]]) -> None:
    for event_type, data in events:
        found = transfer_counter(event_type, data)
        if found is not None:
            counter, rail, flow = found
            counter.labels(rail, flow).inc()


def observe_all(histogram: Any, values: Iterable[float]) -> Callable[[], None]:
    """What observes each of `values` in `histogram` (a child), for `after_commit`."""
    kept = list(values)

    def observe() -> None:
        for value in kept:
            histogram.observe(value)

    return observe


# --- Counting what commits ------------------------------------------------------------------

_AFTER_COMMIT = "corridor_after_commit"


def after_commit(session: Any, count: Callable[[], None]) -> None:
    """Run `count` once the session's transaction commits (never if it rolls back): a
    counter of what was written, not of what was tried. `session` is an AsyncSession or
    a Session."""
    info = session.info
    pending = info.get(_AFTER_COMMIT)
    if pending is None:
        pending = info[_AFTER_COMMIT] = []
    pending.append(count)


@event.listens_for(Session, "after_commit")
def _committed(session: Session) -> None:
    pending = session.info.pop(_AFTER_COMMIT, None)
    if pending:
        for count in pending:
            count()


@event.listens_for(Session, "after_rollback")
def _rolled_back(session: Session) -> None:
    session.info.pop(_AFTER_COMMIT, None)


# --- Reading them --------------------------------------------------------------------------


def multiprocess_directory() -> Path | None:
    value = os.environ.get(MULTIPROCESS_DIRECTORY_SETTING)
    return Path(value) if value else None


def forget_dead_processes() -> None:
    """Drop the live gauges of processes that are gone (a killed API process would
    otherwise keep its connections counted as in use)."""
    directory = multiprocess_directory()
    if directory is None or not directory.is_dir():
        return
    seen: set[int] = set()
    for path in directory.glob("gauge_live*_*.db"):
        try:
            pid = int(path.stem.rsplit("_", 1)[1])
        except ValueError:
            continue
        if pid in seen or pid == os.getpid():
            continue
        seen.add(pid)
        if not _alive(pid):
            multiprocess.mark_process_dead(pid, str(directory))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def process_exiting() -> None:
    """A process stopping on purpose takes its live gauges with it."""
    directory = multiprocess_directory()
    if directory is not None and directory.is_dir():
        multiprocess.mark_process_dead(os.getpid(), str(directory))


class _EveryProcess(multiprocess.MultiProcessCollector):
    """The values of every process sharing the folder, once the dead ones' gauges went."""

    def collect(self) -> Any:
        forget_dead_processes()
        return super().collect()


def _registry() -> CollectorRegistry:
    directory = multiprocess_directory()
    if directory is None:
        return REGISTRY
    registry = CollectorRegistry()
    _EveryProcess(registry, path=str(directory))
    return registry


def render() -> bytes:
    """The text of `GET /metrics`: this process's values, or every process's when they
    share a multiprocess folder."""
    return generate_latest(_registry())


def serve_on_port(host: str, port: int) -> bool:
    """Serve the metrics (any path) on a port of their own, from a thread of this process
    (prometheus-client's server). False when another process of this machine serves
    that port already: with a shared multiprocess folder, its answer is the same."""
    try:
        start_http_server(port, addr=host, registry=_registry())
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            return False
        raise
    return True
