"""Queries of the webhooks domain: endpoints, fan-out and claims, message history, retention.

Claims take rows with FOR UPDATE SKIP LOCKED on PostgreSQL, so any number of workers share
the work and none takes a row another holds. On SQLite the claiming transaction holds the
database's write lock (BEGIN IMMEDIATE), which serialises claims just the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    Select,
    Table,
    and_,
    bindparam,
    delete,
    exists,
    func,
    insert,
    literal,
    select,
    type_coerce,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import flag_modified, set_committed_value

from corridor.kit import db
from corridor.models.event import Event
from corridor.models.organization import Organization
from corridor.models.webhook import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from corridor.webhooks.rules import AttemptStatus, DeliveryStatus

# The tables themselves, for batch statements that carry one row of parameters per item.
_ATTEMPTS = cast("Table", WebhookAttempt.__table__)
_DELIVERIES = cast("Table", WebhookDelivery.__table__)
_ACTIVE = (DeliveryStatus.PENDING.value, DeliveryStatus.SENDING.value)
_REPLAYABLE = (DeliveryStatus.FAIL.value, DeliveryStatus.CANCELED.value)


# --- Endpoints ----------------------------------------------------------------------------


def endpoints_of(organization_id: str) -> Select[WebhookEndpoint]:
    return select(WebhookEndpoint).where(
        WebhookEndpoint.organization_id == organization_id, WebhookEndpoint.deleted_at.is_(None)
    )


async def count_all_endpoints(session: AsyncSession) -> int:
    """Every organization's endpoints, deleted ones too: what `reencrypt_secrets` goes over."""
    return (await session.execute(select(func.count()).select_from(WebhookEndpoint))).scalar_one()


async def reencrypt_secrets(
    session: AsyncSession, *, after_id: str | None, endpoints_max: int
) -> list[str]:
    """Write the signing secrets of up to `endpoints_max` endpoints (by id, after
    `after_id`) again, so they are encrypted under the current server key (after a key
    rotation); deleted endpoints too. Their ids; none once every endpoint is done."""
    statement = select(WebhookEndpoint).order_by(WebhookEndpoint.id).limit(endpoints_max)
    if after_id is not None:
        statement = statement.where(WebhookEndpoint.id > after_id)
    endpoints = list((await session.execute(db.for_update(session, statement))).scalars())
    for endpoint in endpoints:
        flag_modified(endpoint, "secret")
        flag_modified(endpoint, "previous_secrets")
    await session.flush()
    return [endpoint.id for endpoint in endpoints]


async def lock_organization(session: AsyncSession, organization_id: str) -> None:
    await db.lock_rows(session, Organization, [organization_id])


async def count_endpoints(session: AsyncSession, organization_id: str) -> int:
    statement = select(func.count()).select_from(endpoints_of(organization_id).subquery())
    return (await session.execute(statement)).scalar_one()


async def cancel_pending_deliveries(session: AsyncSession, endpoint_id: str, now: datetime) -> int:
    """PENDING deliveries of an endpoint that was disabled or deleted become CANCELED.

    A delivery SENDING right now finishes its attempt; a failure is then CANCELED too."""
    statement = (
        update(WebhookDelivery)
        .where(
            WebhookDelivery.endpoint_id == endpoint_id,
            WebhookDelivery.status == DeliveryStatus.PENDING.value,
        )
        .values(status=DeliveryStatus.CANCELED.value, due_at=None, updated_at=now)
    )
    return await db.affected_rows(session, statement)


# --- Fan-out and claims -------------------------------------------------------------------


async def has_due_work(session: AsyncSession, now: datetime) -> bool:
    """Whether anything waits: an event not yet fanned out, or a delivery due."""
    undispatched = exists().where(Event.dispatched_at.is_(None))
    due = exists().where(WebhookDelivery.due_at <= now)
    return bool((await session.execute(select(undispatched | due))).scalar_one())


async def claim_undispatched_events(session: AsyncSession, limit: int) -> list[Event]:
    statement = select(Event).where(Event.dispatched_at.is_(None)).order_by(Event.id).limit(limit)
    return list(
        (await session.execute(db.for_update(session, statement, skip_locked=True))).scalars()
    )


async def live_endpoints_of(
    session: AsyncSession, organization_ids: Sequence[str]
) -> list[WebhookEndpoint]:
    statement = (
        select(WebhookEndpoint)
        .where(
            WebhookEndpoint.organization_id.in_(sorted(set(organization_ids))),
            WebhookEndpoint.deleted_at.is_(None),
        )
        .order_by(WebhookEndpoint.id)
    )
    return list((await session.execute(statement)).scalars())


async def claim_due_deliveries(
    session: AsyncSession, now: datetime, limit: int
) -> list[WebhookDelivery]:
    """Deliveries whose attempt is due, or whose claim's lease ran out (a worker died)."""
    statement = (
        select(WebhookDelivery)
        .where(WebhookDelivery.due_at <= now)
        .order_by(WebhookDelivery.due_at, WebhookDelivery.id)
        .limit(limit)
    )
    statement = db.for_update(session, statement, skip_locked=True)
    return list((await session.execute(statement)).scalars())


async def by_ids(session: AsyncSession, model: Any, ids: Sequence[str]) -> dict[str, Any]:
    if not ids:
        return {}
    statement = select(model).where(model.id.in_(sorted(set(ids))))
    return {row.id: row for row in (await session.execute(statement)).scalars()}


async def lock_deliveries(session: AsyncSession, ids: Sequence[str]) -> dict[str, WebhookDelivery]:
    return {row.id: row for row in await db.lock_rows(session, WebhookDelivery, ids)}


async def insert_attempts(session: AsyncSession, rows: Sequence[dict[str, Any]]) -> None:
    """New attempts in one statement (rows of WebhookAttempt's columns)."""
    if rows:
        await session.execute(insert(_ATTEMPTS), list(rows))


async def start_attempts(session: AsyncSession, rows: Sequence[dict[str, Any]]) -> None:
    """Claimed deliveries become SENDING under their new attempt, leased until `due_at`
    (rows of delivery_id, attempt_id, attempt_number, lease_until, now)."""
    if not rows:
        return
    table = _DELIVERIES
    statement = (
        update(table)
        .where(table.c.id == bindparam("delivery_id"))
        .values(
            status=DeliveryStatus.SENDING.value,
            attempt_count=bindparam("attempt_number"),
            due_at=bindparam("lease_until"),
            current_attempt_id=bindparam("attempt_id"),
            trigger="SCHEDULED",
            updated_at=bindparam("now"),
        )
    )
    await session.execute(statement, list(rows))


async def finish_attempts(session: AsyncSession, rows: Sequence[dict[str, Any]]) -> None:
    """Write answers into their attempts (rows of attempt_id, attempt_status, status_code,
    response_body, error, duration_ms, finished_at)."""
    if not rows:
        return
    table = _ATTEMPTS
    statement = (
        update(table)
        .where(table.c.id == bindparam("attempt_id"))
        .values(
            status=bindparam("attempt_status"),
            response_status_code=bindparam("status_code"),
            response_body=bindparam("response_body"),
            error=bindparam("answer_error"),
            duration_ms=bindparam("elapsed_ms"),
            finished_at=bindparam("finished"),
        )
    )
    await session.execute(statement, list(rows))


async def settle_succeeded(
    session: AsyncSession, rows: Sequence[dict[str, Any]], now: datetime
) -> None:
    """Deliveries whose attempt succeeded are over, unless the attempt became stale
    (another worker took the delivery over, or a resend restarted it): rows of
    delivery_id, attempt_id."""
    if not rows:
        return
    table = _DELIVERIES
    statement = (
        update(table)
        .where(
            table.c.id == bindparam("delivery_id"),
            table.c.current_attempt_id == bindparam("attempt_id"),
        )
        .values(
            status=DeliveryStatus.SUCCESS.value,
            due_at=None,
            current_attempt_id=None,
            updated_at=now,
        )
    )
    await session.execute(statement, list(rows))


async def end_failing_runs(session: AsyncSession, endpoint_ids: Sequence[str]) -> None:
    """A success ends each endpoint's run of failures (rows already clear are left alone)."""
    if not endpoint_ids:
        return
    await session.execute(
        update(WebhookEndpoint)
        .where(
            WebhookEndpoint.id.in_(sorted(set(endpoint_ids))),
            WebhookEndpoint.failing_since.is_not(None),
        )
        .values(failing_since=None)
        .execution_options(synchronize_session=False)
    )


async def mark_failing_since(
    session: AsyncSession, endpoint: WebhookEndpoint, now: datetime
) -> None:
    """Start the endpoint's run of failures, unless one is already running."""
    if endpoint.failing_since is not None:
        return
    await session.execute(
        update(WebhookEndpoint)
        .where(WebhookEndpoint.id == endpoint.id, WebhookEndpoint.failing_since.is_(None))
        .values(failing_since=now)
        .execution_options(synchronize_session=False)
    )
    set_committed_value(endpoint, "failing_since", now)


async def disable_endpoint(
    session: AsyncSession, endpoint_id: str, *, reason: str, now: datetime
) -> bool:
    """Disable an enabled endpoint; False when it already was disabled or deleted."""
    statement = (
        update(WebhookEndpoint)
        .where(
            WebhookEndpoint.id == endpoint_id,
            WebhookEndpoint.disabled.is_(False),
            WebhookEndpoint.deleted_at.is_(None),
        )
        .values(disabled=True, disabled_reason=reason, updated_at=now)
    )
    return await db.affected_rows(session, statement) > 0


# --- Message history ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MessageFilter:
    organization_id: str
    endpoint_id: str | None
    status: str | None
    event_types: tuple[str, ...]
    after: datetime | None
    before: datetime | None
    tag: str | None
    iterator: str | None
    limit: int


def _has_tag(session: AsyncSession, tag: str) -> Any:
    if db.is_sqlite(session):
        elements = func.json_each(Event.tags).table_valued("value")
        return exists(select(literal(1)).select_from(elements).where(elements.c.value == tag))
    return type_coerce(Event.tags, JSONB).contains(type_coerce([tag], JSONB))


def _message_statement(session: AsyncSession, query: MessageFilter) -> Select[Any, Any]:
    if query.endpoint_id is None:
        statement: Select[Any, Any] = select(Event, literal(None).label("delivery"))
        order_column: Any = Event.id
    else:
        statement = select(Event, WebhookDelivery).join(
            WebhookDelivery,
            and_(
                WebhookDelivery.event_id == Event.id,
                WebhookDelivery.endpoint_id == query.endpoint_id,
            ),
        )
        order_column = WebhookDelivery.event_id
        if query.status is not None:
            statement = statement.where(WebhookDelivery.status == query.status)
    statement = statement.where(Event.organization_id == query.organization_id)
    if query.event_types:
        statement = statement.where(Event.type.in_(query.event_types))
    if query.after is not None:
        statement = statement.where(Event.created_at > query.after)
    if query.before is not None:
        statement = statement.where(Event.created_at < query.before)
    if query.tag is not None:
        statement = statement.where(_has_tag(session, query.tag))
    if query.iterator is not None:
        statement = statement.where(order_column < query.iterator)
    return statement.order_by(order_column.desc()).limit(query.limit + 1)


async def message_page(
    session: AsyncSession, query: MessageFilter
) -> tuple[list[tuple[Event, WebhookDelivery | None]], bool]:
    """One page of messages, newest first, and whether more follow."""
    rows = [(row[0], row[1]) for row in await session.execute(_message_statement(session, query))]
    return rows[: query.limit], len(rows) > query.limit


@dataclass(frozen=True, slots=True)
class StatusCount:
    event_id: str
    status: str
    count: int
    next_due_at: datetime | None


async def delivery_status_counts(
    session: AsyncSession, event_ids: Sequence[str]
) -> list[StatusCount]:
    if not event_ids:
        return []
    statement = (
        select(
            WebhookDelivery.event_id,
            WebhookDelivery.status,
            func.count(),
            func.min(WebhookDelivery.due_at),
        )
        .where(WebhookDelivery.event_id.in_(list(event_ids)))
        .group_by(WebhookDelivery.event_id, WebhookDelivery.status)
    )
    return [StatusCount(*row) for row in await session.execute(statement)]


def messages_of(organization_id: str) -> Select[Event]:
    return select(Event).where(Event.organization_id == organization_id)


async def deliveries_of_message(session: AsyncSession, message_id: str) -> list[WebhookDelivery]:
    statement = (
        select(WebhookDelivery)
        .where(WebhookDelivery.event_id == message_id)
        .order_by(WebhookDelivery.endpoint_id)
    )
    return list((await session.execute(statement)).scalars())


def attempts_of_message(
    organization_id: str, message_id: str, endpoint_id: str | None
) -> Select[WebhookAttempt]:
    statement = select(WebhookAttempt).where(
        WebhookAttempt.event_id == message_id, WebhookAttempt.organization_id == organization_id
    )
    if endpoint_id is not None:
        statement = statement.where(WebhookAttempt.endpoint_id == endpoint_id)
    return statement


# --- Resend and replay --------------------------------------------------------------------


async def delivery_of(
    session: AsyncSession, message_id: str, endpoint_id: str
) -> WebhookDelivery | None:
    statement = select(WebhookDelivery).where(
        WebhookDelivery.event_id == message_id, WebhookDelivery.endpoint_id == endpoint_id
    )
    return (await session.execute(statement)).scalar_one_or_none()


def _requeue_values(now: datetime) -> dict[str, Any]:
    return {
        "status": DeliveryStatus.PENDING.value,
        "attempt_count": 0,
        "due_at": now,
        "trigger": "MANUAL",
        "current_attempt_id": None,
        "updated_at": now,
    }


async def requeue_deliveries(session: AsyncSession, ids: Sequence[str], now: datetime) -> int:
    """Queue deliveries for a new round of attempts, starting now; one in flight is left be."""
    if not ids:
        return 0
    statement = (
        update(WebhookDelivery)
        .where(
            WebhookDelivery.id.in_(list(ids)),
            WebhookDelivery.status != DeliveryStatus.SENDING.value,
        )
        .values(**_requeue_values(now))
    )
    return await db.affected_rows(session, statement)


async def replayable_delivery_ids(
    session: AsyncSession,
    endpoint_id: str,
    *,
    since: datetime,
    until: datetime,
    limit: int,
) -> list[str]:
    """Failed and canceled deliveries of messages created in [since, until), oldest first."""
    statement = (
        select(WebhookDelivery.id)
        .join(Event, Event.id == WebhookDelivery.event_id)
        .where(
            WebhookDelivery.endpoint_id == endpoint_id,
            WebhookDelivery.status.in_(_REPLAYABLE),
            Event.created_at >= since,
            Event.created_at < until,
        )
        .order_by(WebhookDelivery.event_id)
        .limit(limit)
    )
    return list((await session.execute(statement)).scalars())


# --- Retention ----------------------------------------------------------------------------


async def event_ids_created_before(
    session: AsyncSession, before: datetime, limit: int
) -> list[str]:
    statement = (
        select(Event.id)
        .where(Event.created_at < before, Event.dispatched_at.is_not(None))
        .order_by(Event.id)
        .limit(limit)
    )
    return list((await session.execute(statement)).scalars())


def _history_off() -> Any:
    return Organization.configuration["webhookHistoryEnabled"].as_boolean().is_(False)


async def finished_event_ids(
    session: AsyncSession, *, history_off_organizations_only: bool, limit: int
) -> list[str]:
    """Messages fanned out whose every delivery is over (SUCCESS, FAIL or CANCELED)."""
    unfinished = exists().where(
        WebhookDelivery.event_id == Event.id, WebhookDelivery.status.in_(_ACTIVE)
    )
    statement = select(Event.id).where(Event.dispatched_at.is_not(None), ~unfinished)
    if history_off_organizations_only:
        statement = statement.join(Organization, Organization.id == Event.organization_id).where(
            _history_off()
        )
    return list((await session.execute(statement.order_by(Event.id).limit(limit))).scalars())


async def delete_messages(session: AsyncSession, event_ids: Sequence[str]) -> int:
    """Delete messages with their deliveries and attempts."""
    if not event_ids:
        return 0
    ids = list(event_ids)
    await session.execute(delete(WebhookAttempt).where(WebhookAttempt.event_id.in_(ids)))
    await session.execute(delete(WebhookDelivery).where(WebhookDelivery.event_id.in_(ids)))
    return await db.affected_rows(session, delete(Event).where(Event.id.in_(ids)))


async def attempt_outcomes(
    session: AsyncSession, organization_id: str, since: datetime
) -> dict[str, dict[str, int]]:
    """Finished attempts started since `since`, counted per endpoint and status."""
    statement = (
        select(WebhookAttempt.endpoint_id, WebhookAttempt.status, func.count(WebhookAttempt.id))
        .where(
            WebhookAttempt.organization_id == organization_id,
            WebhookAttempt.started_at >= since,
            WebhookAttempt.status.in_([AttemptStatus.SUCCESS.value, AttemptStatus.FAIL.value]),
        )
        .group_by(WebhookAttempt.endpoint_id, WebhookAttempt.status)
    )
    counted: dict[str, dict[str, int]] = {}
    for endpoint_id, status, count in await session.execute(statement):
        counted.setdefault(endpoint_id, {})[status] = int(count)
    return counted
