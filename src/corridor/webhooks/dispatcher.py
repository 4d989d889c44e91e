"""The delivery worker: fan outbox events out to endpoints, claim due attempts, send, record.

One run is a bounded pump. Each turn it fans out committed events (one delivery per
subscribed endpoint) and claims due deliveries in one short transaction, sends the claimed
attempts concurrently outside any transaction, and records each batch of answers in
another. A claim marks the delivery SENDING with a lease; a worker killed before recording
leaves the lease to run out, and the next claim takes the delivery over (the abandoned
attempt is recorded as failed). Delivery is therefore at least once: a receiver may see a
message twice and de-duplicates by its `webhook-id`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections import defaultdict
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm import object_session

from corridor.config import Settings, get_settings
from corridor.kit import metrics, stopping, tracing
from corridor.kit.clock import Clock
from corridor.kit.db import Database
from corridor.kit.ids import new_id
from corridor.models.event import Event
from corridor.models.webhook import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from corridor.webhooks import repository, signing
from corridor.webhooks.rules import (
    AttemptResult,
    AttemptStatus,
    DeliveryStatus,
    DisabledReason,
    Outcome,
    Trigger,
    endpoint_wants,
    next_attempt_at,
    outcome_of,
    parse_retry_after,
    payload_bytes,
    should_disable_for_failing,
)
from corridor.webhooks.sender import AttemptRequest, Sender

# Events fanned out per transaction (each makes at most one delivery per endpoint).
fan_out_events_max = 100
# A run stops claiming after this long, then finishes the attempts in flight.
dispatch_run_s_max = 5.0
# While attempts are in flight, new work is looked for this often.
in_flight_poll_s = 0.05
# After a first answer, others finishing within this long are recorded with it.
record_gather_s = 0.005
ABANDONED = "abandoned: the worker stopped before it recorded an answer; attempted again"


@dataclass(frozen=True, slots=True)
class Claimed:
    attempt_id: str
    delivery_id: str
    endpoint_id: str
    request: AttemptRequest
    # The trace of the change that wrote the event (kit/tracing.py), when traces are on.
    trace_context: str | None = None
    event_type: str = ""


# One sender per event loop, kept from run to run so its connections stay alive between runs.
_senders: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Sender] = weakref.WeakKeyDictionary()


async def dispatch_task(database: Database, clock: Clock) -> int:
    """The worker task (workers/runner.py): one run with the process's settings."""
    settings = get_settings()
    loop = asyncio.get_running_loop()
    sender = _senders.get(loop)
    if sender is None:
        sender = Sender(timeout_s=settings.webhook_timeout_s, sandbox=settings.is_sandbox)
        _senders[loop] = sender
    return await dispatch(database, clock, settings, sender=sender)


async def dispatch(
    database: Database,
    clock: Clock,
    settings: Settings,
    *,
    run_s_max: float = dispatch_run_s_max,
    sender: Sender | None = None,
) -> int:
    """Fan out, claim, send and record until nothing is due (or the run's time is up).

    Returns the number of attempts made."""
    own_sender = sender is None
    sender = sender or Sender(timeout_s=settings.webhook_timeout_s, sandbox=settings.is_sandbox)
    pump = _Pump(database, clock, settings, sender)
    try:
        return await pump.run(time.monotonic() + run_s_max)
    finally:
        await pump.stop()
        if own_sender:
            await sender.aclose()


class _HeldConnection:
    """A connection kept for a whole run: each transaction runs on it in a session of its
    own (fresh rows every time), with no pool check-out and liveness ping per transaction.
    Not on SQLite: its writing engine has one connection that every writer of the process
    queues for (kit/db.py), so holding it would stall the API's writes and the run's other
    holder; there each transaction takes the connection and gives it back."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._connection: AsyncConnection | None = None

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        if self._database.is_sqlite:
            async with self._database.session() as session, session.begin():
                yield session
            return
        if self._connection is None:
            self._connection = await self._database.engine.connect()
        async with AsyncSession(bind=self._connection, expire_on_commit=False) as session:
            async with session.begin():
                yield session

    async def close(self) -> None:
        if self._connection is not None:
            await self._connection.close()
            self._connection = None


class _Pump:
    """One run's claims, sends and records. Claiming and recording go on side by side (each
    in its own transactions), so sending never waits for the other's round trips. An attempt
    holds one of `webhook_concurrent_attempts_max` slots from its claim until its answer is
    recorded; claims take free slots in batches."""

    def __init__(self, database: Database, clock: Clock, settings: Settings, sender: Sender):
        self._database = database
        self._clock = clock
        self._settings = settings
        self._sender = sender
        self._slots = settings.webhook_concurrent_attempts_max
        self._sends: set[asyncio.Task[None]] = set()
        self._answers: list[tuple[Claimed, AttemptResult]] = []
        self._answered = asyncio.Event()
        self._recorded = asyncio.Event()
        self._unrecorded = 0
        self._attempts = 0
        self._recorder: asyncio.Task[None] | None = None
        self._claims = _HeldConnection(database)
        self._records = _HeldConnection(database)

    async def run(self, deadline: float) -> int:
        self._recorder = asyncio.create_task(self._record_answers())
        more_due = False
        while True:
            free = self._slots - self._unrecorded
            if (
                time.monotonic() < deadline
                and not stopping.stopping()
                and free >= self._batch_min()
                and (more_due or await _work_waiting(self._database, self._clock.now()))
            ):
                async with self._claims.transaction() as session:
                    claimed = await _fan_out_and_claim(
                        session, self._clock.now(), free, self._settings
                    )
                self._start(claimed)
                # A full batch says more is probably due: claim again without a look first.
                more_due = len(claimed) == free
                if more_due:
                    continue
            if self._unrecorded == 0:
                return self._attempts
            await self._wait_for_records(in_flight_poll_s)

    def _batch_min(self) -> int:
        # While attempts are in flight, wait for a quarter of the slots to claim together.
        return 1 if self._unrecorded == 0 else max(1, self._slots // 4)

    def _start(self, claimed: list[Claimed]) -> None:
        self._unrecorded += len(claimed)
        for item in claimed:
            task = asyncio.create_task(self._send(item))
            self._sends.add(task)
            task.add_done_callback(self._sends.discard)

    async def _send(self, claimed: Claimed) -> None:
        # The trace of the change that wrote the event goes on here (kit/tracing.py).
        with tracing.continued(
            claimed.trace_context,
            "webhook.deliver",
            attributes={"corridor.event_type": claimed.event_type},
        ):
            result = await self._sender.send(claimed.request, at=self._clock.now())
        self._answers.append((claimed, result))
        self._answered.set()

    async def _wait_for_records(self, timeout_s: float) -> None:
        assert self._recorder is not None
        self._recorded.clear()
        waiting = asyncio.create_task(self._recorded.wait())
        try:
            await asyncio.wait(
                {waiting, self._recorder}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            waiting.cancel()
        if self._recorder.done():
            self._recorder.result()  # a failed recording ends the run with its error
            raise RuntimeError("the webhook recorder stopped early")

    async def _record_answers(self) -> None:
        while True:
            await self._answered.wait()
            self._answered.clear()
            if not self._answers:
                continue
            # Answers arriving together are recorded in one transaction.
            await asyncio.sleep(record_gather_s)
            answers, self._answers = self._answers, []
            async with self._records.transaction() as session:
                await record(session, self._clock.now(), answers, self._settings)
            self._unrecorded -= len(answers)
            self._attempts += len(answers)
            self._recorded.set()

    async def stop(self) -> None:
        """Abandon sends still in flight (their leases run out) and end the recorder."""
        for task in list(self._sends):
            task.cancel()
        if self._recorder is not None:
            self._recorder.cancel()
            await asyncio.gather(self._recorder, return_exceptions=True)
        await self._claims.close()
        await self._records.close()


async def _work_waiting(database: Database, now: datetime) -> bool:
    # A read first, so an idle worker never takes SQLite's write lock.
    async with database.session(write=False) as session:
        return await repository.has_due_work(session, now)


async def _fan_out_and_claim(
    session: AsyncSession, now: datetime, limit: int, settings: Settings
) -> list[Claimed]:
    await fan_out(session, now=now)
    return await claim(session, now=now, limit=limit, lease_s=settings.webhook_claim_lease_s)


# --- Fan-out ------------------------------------------------------------------------------


async def fan_out(session: AsyncSession, *, now: datetime) -> int:
    """Give committed events one delivery per subscribed endpoint; returns events fanned out.

    An endpoint receives messages created after it was; a disabled endpoint's delivery is
    CANCELED at once, so a replay can send it later."""
    events = await repository.claim_undispatched_events(session, fan_out_events_max)
    if not events:
        return 0
    endpoints_by_organization: dict[str, list[WebhookEndpoint]] = defaultdict(list)
    for endpoint in await repository.live_endpoints_of(
        session, [event.organization_id for event in events]
    ):
        endpoints_by_organization[endpoint.organization_id].append(endpoint)
    for event in events:
        for endpoint in endpoints_by_organization[event.organization_id]:
            if endpoint.created_at <= event.created_at and endpoint_wants(
                endpoint.event_types, event.type
            ):
                session.add(_new_delivery(event, endpoint, now))
        event.dispatched_at = now
    _count_fanned_out(session, events, now)
    return len(events)


def _count_fanned_out(session: AsyncSession, events: Sequence[Event], now: datetime) -> None:
    """Every committed event passes here once: the transfers it says were created,
    submitted, completed… are counted here (kit/metrics.py), once the fan-out commits."""
    fanned_out = [(event.type, event.data) for event in events]
    delays = [max(0.0, (now - event.created_at).total_seconds()) for event in events]

    def count() -> None:
        metrics.count_outbox_events(fanned_out)
        outbox = metrics.WORKER_CLAIM_DELAY.labels("outbox")
        for delay in delays:
            outbox.observe(delay)

    metrics.after_commit(session, count)


def _new_delivery(event: Event, endpoint: WebhookEndpoint, now: datetime) -> WebhookDelivery:
    return WebhookDelivery(
        id=new_id("dlv"),
        organization_id=event.organization_id,
        event_id=event.id,
        endpoint_id=endpoint.id,
        status=(DeliveryStatus.CANCELED if endpoint.disabled else DeliveryStatus.PENDING).value,
        attempt_count=0,
        due_at=None if endpoint.disabled else now,
        current_attempt_id=None,
        trigger=Trigger.SCHEDULED.value,
        created_at=now,
        updated_at=now,
    )


# --- Claims -------------------------------------------------------------------------------


async def claim(
    session: AsyncSession, *, now: datetime, limit: int, lease_s: float
) -> list[Claimed]:
    """Take up to `limit` due deliveries: each gets a SENDING attempt and a lease."""
    if limit <= 0:
        return []
    deliveries = await repository.claim_due_deliveries(session, now, limit)
    if not deliveries:
        return []
    endpoints = await repository.by_ids(
        session, WebhookEndpoint, [d.endpoint_id for d in deliveries]
    )
    events = await repository.by_ids(session, Event, [d.event_id for d in deliveries])
    abandoned = await repository.by_ids(
        session,
        WebhookAttempt,
        [d.current_attempt_id for d in deliveries if d.current_attempt_id is not None],
    )
    signing_secrets: dict[str, list[str]] = {}  # per endpoint, decoded once per batch
    claimed: list[Claimed] = []
    attempts: list[dict[str, Any]] = []
    delays = [
        max(0.0, (now - delivery.due_at).total_seconds())
        for delivery in deliveries
        if delivery.due_at is not None
    ]
    metrics.after_commit(session, lambda: _observe_claim_delays(delays))
    for delivery in deliveries:
        taken_over = delivery.status == DeliveryStatus.SENDING.value
        if taken_over and delivery.current_attempt_id in abandoned:
            _finish(abandoned[delivery.current_attempt_id], None, now, error=ABANDONED)
        endpoint = endpoints[delivery.endpoint_id]
        if endpoint.disabled or endpoint.deleted_at is not None:
            _settle_as(delivery, DeliveryStatus.CANCELED, now)
            continue
        attempt = _new_attempt(delivery, endpoint, now, taken_over=taken_over)
        attempt["lease_until"] = now + timedelta(seconds=lease_s)
        attempts.append(attempt)
        event = events[delivery.event_id]
        if endpoint.id not in signing_secrets:
            previous = [
                signing.PreviousSecret.from_document(item) for item in endpoint.previous_secrets
            ]
            signing_secrets[endpoint.id] = signing.secrets_in_use(
                endpoint.secret, previous, now=now
            )
        request = AttemptRequest(
            message_id=event.id,
            url=endpoint.url,
            secrets=signing_secrets[endpoint.id],
            body=payload_bytes(event.type, event.created_at, event.data),
        )
        claimed.append(
            Claimed(
                attempt["id"],
                delivery.id,
                endpoint.id,
                request,
                trace_context=event.trace_context,
                event_type=event.type,
            )
        )
    # The ORM's changes (abandoned attempts, canceled deliveries) first, then the new
    # attempts and the claimed deliveries in one statement each.
    await session.flush()
    await repository.insert_attempts(
        session, [{key: row[key] for key in _ATTEMPT_COLUMNS} for row in attempts]
    )
    await repository.start_attempts(
        session, [{key: row[key] for key in _START_KEYS} for row in attempts]
    )
    return claimed


def _observe_claim_delays(delays: list[float]) -> None:
    webhook = metrics.WORKER_CLAIM_DELAY.labels("webhook")
    for delay in delays:
        webhook.observe(delay)


_START_KEYS = ("delivery_id", "attempt_id", "attempt_number", "lease_until", "now")
_ATTEMPT_COLUMNS = (
    "id",
    "organization_id",
    "delivery_id",
    "event_id",
    "endpoint_id",
    "url",
    "status",
    "attempt_number",
    "trigger",
    "response_status_code",
    "response_body",
    "error",
    "duration_ms",
    "started_at",
    "finished_at",
)


def _new_attempt(
    delivery: WebhookDelivery, endpoint: WebhookEndpoint, now: datetime, *, taken_over: bool
) -> dict[str, Any]:
    """The row of a delivery's next attempt (with the keys start_attempts needs)."""
    # An attempt taken over from a dead worker keeps its place in the schedule.
    number = delivery.attempt_count if taken_over and delivery.attempt_count else None
    number = number or delivery.attempt_count + 1
    attempt_id = new_id("atmpt")
    return {
        "id": attempt_id,
        "attempt_id": attempt_id,
        "organization_id": delivery.organization_id,
        "delivery_id": delivery.id,
        "event_id": delivery.event_id,
        "endpoint_id": endpoint.id,
        "url": endpoint.url,
        "status": AttemptStatus.SENDING.value,
        "attempt_number": number,
        "trigger": delivery.trigger,
        "response_status_code": None,
        "response_body": None,
        "error": None,
        "duration_ms": None,
        "started_at": now,
        "finished_at": None,
        "now": now,
    }


# --- Recording answers --------------------------------------------------------------------


async def record(
    session: AsyncSession,
    now: datetime,
    answers: Sequence[tuple[Claimed, AttemptResult]],
    settings: Settings,
) -> None:
    """Record a batch of answers in the session's transaction and move each delivery on.

    Every attempt's answer is written in one statement; successes settle their deliveries in
    one more (a stale attempt's delivery is left alone) and end their endpoints' runs of
    failures. Failures go one by one: each may schedule a retry or disable its endpoint."""
    await repository.finish_attempts(
        session, [_answer_row(claimed, result, now) for claimed, result in answers]
    )
    succeeded = [
        claimed for claimed, result in answers if outcome_of(result.status_code) is Outcome.SUCCESS
    ]
    failed = [
        (claimed, result)
        for claimed, result in answers
        if outcome_of(result.status_code) is not Outcome.SUCCESS
    ]
    if failed:
        await _record_failures(session, now, failed, settings)
    await repository.settle_succeeded(
        session,
        [{"delivery_id": item.delivery_id, "attempt_id": item.attempt_id} for item in succeeded],
        now,
    )
    await repository.end_failing_runs(session, [item.endpoint_id for item in succeeded])
    results = [result for _, result in answers]
    metrics.after_commit(session, lambda: _count_attempts(results, delivered=len(succeeded)))


def _count_attempts(results: Sequence[AttemptResult], *, delivered: int) -> None:
    metrics.WEBHOOK_DELIVERIES.labels("success").inc(delivered)
    for result in results:
        outcome = outcome_of(result.status_code).value.lower()
        code = result.status_code
        status_class = "none" if code is None else f"{code // 100}xx"
        metrics.WEBHOOK_ATTEMPTS.labels(outcome, status_class).inc()
        metrics.WEBHOOK_ATTEMPT_DURATION.labels(outcome).observe(result.duration_ms / 1000)


def _answer_row(claimed: Claimed, result: AttemptResult, now: datetime) -> dict[str, Any]:
    succeeded = outcome_of(result.status_code) is Outcome.SUCCESS
    return {
        "attempt_id": claimed.attempt_id,
        "attempt_status": (AttemptStatus.SUCCESS if succeeded else AttemptStatus.FAIL).value,
        "status_code": result.status_code,
        "response_body": result.response_body,
        "answer_error": result.error,
        "elapsed_ms": result.duration_ms,
        "finished": now,
    }


async def _record_failures(
    session: AsyncSession,
    now: datetime,
    failed: Sequence[tuple[Claimed, AttemptResult]],
    settings: Settings,
) -> None:
    deliveries = await repository.lock_deliveries(
        session, [claimed.delivery_id for claimed, _ in failed]
    )
    endpoints = await repository.by_ids(
        session, WebhookEndpoint, [delivery.endpoint_id for delivery in deliveries.values()]
    )
    for claimed, result in failed:
        delivery = deliveries.get(claimed.delivery_id)
        # Stale when another worker took the delivery over, or a resend restarted it.
        if delivery is None or delivery.current_attempt_id != claimed.attempt_id:
            continue
        await _settle(session, delivery, endpoints[delivery.endpoint_id], result, now, settings)


def _finish(
    attempt: WebhookAttempt,
    result: AttemptResult | None,
    now: datetime,
    *,
    error: str | None = None,
) -> None:
    succeeded = result is not None and outcome_of(result.status_code) is Outcome.SUCCESS
    attempt.status = (AttemptStatus.SUCCESS if succeeded else AttemptStatus.FAIL).value
    attempt.finished_at = now
    if result is None:
        attempt.error = error
        return
    attempt.response_status_code = result.status_code
    attempt.response_body = result.response_body
    attempt.error = result.error
    attempt.duration_ms = result.duration_ms


async def _settle(
    session: AsyncSession,
    delivery: WebhookDelivery,
    endpoint: WebhookEndpoint,
    result: AttemptResult,
    now: datetime,
    settings: Settings,
) -> None:
    outcome = outcome_of(result.status_code)
    failing_since = endpoint.failing_since or now
    await repository.mark_failing_since(session, endpoint, now)
    if outcome is Outcome.GONE:
        _settle_as(delivery, DeliveryStatus.FAIL, now)
        await _disable(session, endpoint, DisabledReason.GONE, now)
        return
    if endpoint.disabled or endpoint.deleted_at is not None:
        _settle_as(delivery, DeliveryStatus.CANCELED, now)
        return
    if should_disable_for_failing(failing_since, now):
        _settle_as(delivery, DeliveryStatus.FAIL, now)
        await _disable(session, endpoint, DisabledReason.FAILING, now)
        return
    _schedule_retry(delivery, result, now, settings)


def _schedule_retry(
    delivery: WebhookDelivery, result: AttemptResult, now: datetime, settings: Settings
) -> None:
    retry_at = next_attempt_at(
        attempts_made=delivery.attempt_count,
        schedule_s=settings.webhook_retry_schedule_s,
        scale=settings.webhook_retry_scale,
        now=now,
        retry_after_s=parse_retry_after(result.retry_after, now=now),
    )
    if retry_at is None:
        _settle_as(delivery, DeliveryStatus.FAIL, now)
        return
    delivery.status = DeliveryStatus.PENDING.value
    delivery.due_at = retry_at
    delivery.current_attempt_id = None
    delivery.updated_at = now


def _settle_as(delivery: WebhookDelivery, status: DeliveryStatus, now: datetime) -> None:
    finished = metrics.WEBHOOK_DELIVERIES.labels(status.value.lower())
    session = object_session(delivery)
    if session is not None:
        metrics.after_commit(session, finished.inc)
    delivery.status = status.value
    delivery.due_at = None
    delivery.current_attempt_id = None
    delivery.updated_at = now


async def _disable(
    session: AsyncSession, endpoint: WebhookEndpoint, reason: DisabledReason, now: datetime
) -> None:
    if await repository.disable_endpoint(session, endpoint.id, reason=reason.value, now=now):
        await repository.cancel_pending_deliveries(session, endpoint.id, now)
