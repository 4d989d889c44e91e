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
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.config import Settings, get_settings
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
    request: AttemptRequest


async def dispatch_task(database: Database, clock: Clock) -> int:
    """The worker task (workers/runner.py): one run with the process's settings."""
    return await dispatch(database, clock, get_settings())


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
    in_flight: dict[asyncio.Task[AttemptResult], Claimed] = {}
    attempts = 0
    deadline = time.monotonic() + run_s_max
    try:
        while True:
            if time.monotonic() < deadline and await _work_waiting(database, clock.now()):
                free = settings.webhook_concurrent_attempts_max - len(in_flight)
                for claimed in await _fan_out_and_claim(database, clock.now(), free, settings):
                    send = sender.send(claimed.request, at=clock.now())
                    in_flight[asyncio.create_task(send)] = claimed
            if not in_flight:
                return attempts
            done, _ = await asyncio.wait(
                set(in_flight), timeout=in_flight_poll_s, return_when=asyncio.FIRST_COMPLETED
            )
            if done:
                # Answers arriving together are recorded in one transaction.
                await asyncio.sleep(record_gather_s)
                done = {task for task in in_flight if task.done()}
                answers = [(in_flight.pop(task), task.result()) for task in done]
                await record(database, clock.now(), answers, settings)
                attempts += len(answers)
    finally:
        for task in in_flight:
            task.cancel()
        if own_sender:
            await sender.aclose()


async def _work_waiting(database: Database, now: datetime) -> bool:
    # A read first, so an idle worker never takes SQLite's write lock.
    async with database.session(write=False) as session:
        return await repository.has_due_work(session, now)


async def _fan_out_and_claim(
    database: Database, now: datetime, limit: int, settings: Settings
) -> list[Claimed]:
    async with database.session() as session, session.begin():
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
    return len(events)


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
    claimed: list[Claimed] = []
    for delivery in deliveries:
        taken_over = delivery.status == DeliveryStatus.SENDING.value
        if taken_over and delivery.current_attempt_id in abandoned:
            _finish(abandoned[delivery.current_attempt_id], None, now, error=ABANDONED)
        endpoint = endpoints[delivery.endpoint_id]
        if endpoint.disabled or endpoint.deleted_at is not None:
            _settle_as(delivery, DeliveryStatus.CANCELED, now)
            continue
        attempt = _start_attempt(session, delivery, endpoint, now, taken_over=taken_over)
        delivery.due_at = now + timedelta(seconds=lease_s)
        event = events[delivery.event_id]
        previous = [
            signing.PreviousSecret.from_document(item) for item in endpoint.previous_secrets
        ]
        request = AttemptRequest(
            message_id=event.id,
            url=endpoint.url,
            secrets=signing.secrets_in_use(endpoint.secret, previous, now=now),
            body=payload_bytes(event.type, event.created_at, event.data),
        )
        claimed.append(Claimed(attempt.id, delivery.id, request))
    return claimed


def _start_attempt(
    session: AsyncSession,
    delivery: WebhookDelivery,
    endpoint: WebhookEndpoint,
    now: datetime,
    *,
    taken_over: bool,
) -> WebhookAttempt:
    # An attempt taken over from a dead worker keeps its place in the schedule.
    number = delivery.attempt_count if taken_over and delivery.attempt_count else None
    number = number or delivery.attempt_count + 1
    attempt = WebhookAttempt(
        id=new_id("atmpt"),
        organization_id=delivery.organization_id,
        delivery_id=delivery.id,
        event_id=delivery.event_id,
        endpoint_id=endpoint.id,
        url=endpoint.url,
        status=AttemptStatus.SENDING.value,
        attempt_number=number,
        trigger=delivery.trigger,
        response_status_code=None,
        response_body=None,
        error=None,
        duration_ms=None,
        started_at=now,
        finished_at=None,
    )
    session.add(attempt)
    delivery.status = DeliveryStatus.SENDING.value
    delivery.attempt_count = number
    delivery.current_attempt_id = attempt.id
    delivery.trigger = Trigger.SCHEDULED.value
    delivery.updated_at = now
    return attempt


# --- Recording answers --------------------------------------------------------------------


async def record(
    database: Database,
    now: datetime,
    answers: Sequence[tuple[Claimed, AttemptResult]],
    settings: Settings,
) -> None:
    """Record a batch of answers in one transaction and move each delivery on."""
    async with database.session() as session, session.begin():
        deliveries = await repository.lock_deliveries(
            session, [claimed.delivery_id for claimed, _ in answers]
        )
        attempts = await repository.by_ids(
            session, WebhookAttempt, [claimed.attempt_id for claimed, _ in answers]
        )
        endpoints = await repository.by_ids(
            session, WebhookEndpoint, [delivery.endpoint_id for delivery in deliveries.values()]
        )
        for claimed, result in answers:
            attempt = attempts.get(claimed.attempt_id)
            if attempt is not None:
                _finish(attempt, result, now)
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
    if outcome is Outcome.SUCCESS:
        _settle_as(delivery, DeliveryStatus.SUCCESS, now)
        await repository.clear_failing_since(session, endpoint)
        return
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
    delivery.status = status.value
    delivery.due_at = None
    delivery.current_attempt_id = None
    delivery.updated_at = now


async def _disable(
    session: AsyncSession, endpoint: WebhookEndpoint, reason: DisabledReason, now: datetime
) -> None:
    if await repository.disable_endpoint(session, endpoint.id, reason=reason.value, now=now):
        await repository.cancel_pending_deliveries(session, endpoint.id, now)
