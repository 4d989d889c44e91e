"""Use cases of message history: list, read one, its attempts, and resend.

A message is an outbox event; its status is the status of its delivery to one endpoint
(with `endpointId`), or across all of them (without).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.config import Settings
from corridor.kit.db import get_visible
from corridor.kit.errors import ValidationFailed
from corridor.kit.ids import new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.event import Event
from corridor.models.webhook import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from corridor.organizations import configuration as organization_configuration
from corridor.organizations import repository as organizations
from corridor.webhooks import repository
from corridor.webhooks.errors import EndpointDisabled, MessageNotSentYet, NotSubscribed
from corridor.webhooks.repository import MessageFilter
from corridor.webhooks.rules import (
    AttemptStatus,
    DeliveryStatus,
    Trigger,
    endpoint_wants,
    overall_status,
    payload,
)
from corridor.webhooks.schemas import (
    EVENT_TYPE_PATTERN,
    event_type_chars_max,
    event_types_per_endpoint_max,
)
from corridor.webhooks.service import endpoint_of, organization_of, utc


@dataclass(frozen=True, slots=True)
class MessageView:
    event: Event
    status: DeliveryStatus
    next_attempt: datetime | None


@dataclass(frozen=True, slots=True)
class MessagePage:
    available: bool
    items: list[MessageView]
    iterator: str | None
    done: bool


async def history_available(
    session: AsyncSession, *, organization_id: str, settings: Settings
) -> bool:
    """History is kept unless the environment or the organization switched it off."""
    if not settings.webhook_history_enabled:
        return False
    organization = await organizations.organization_by_id(session, organization_id)
    assert organization is not None
    return organization_configuration.from_document(
        organization.configuration
    ).webhook_history_enabled


async def list_messages(
    session: AsyncSession, *, caller: Caller, query: MessageFilter, settings: Settings
) -> MessagePage:
    """The organization's messages newest first (`query.organization_id` is the caller's)."""
    query = replace(query, organization_id=organization_of(caller))
    if not await history_available(
        session, organization_id=query.organization_id, settings=settings
    ):
        return MessagePage(available=False, items=[], iterator=None, done=True)
    if query.endpoint_id is not None:
        await endpoint_of(session, query.organization_id, query.endpoint_id)
    rows, more = await repository.message_page(session, query)
    overall = await _overall_statuses(session, [event for event, delivery in rows if not delivery])
    items = [
        _view_at(event, delivery) if delivery is not None else overall[event.id]
        for event, delivery in rows
    ]
    return MessagePage(
        available=True,
        items=items,
        iterator=rows[-1][0].id if more else None,
        done=not more,
    )


def _view_at(event: Event, delivery: WebhookDelivery) -> MessageView:
    status = DeliveryStatus(delivery.status)
    next_attempt = delivery.due_at if status is DeliveryStatus.PENDING else None
    return MessageView(event=event, status=status, next_attempt=next_attempt)


async def _overall_statuses(session: AsyncSession, events: list[Event]) -> dict[str, MessageView]:
    statuses: dict[str, set[str]] = defaultdict(set)
    next_attempts: dict[str, datetime] = {}
    for count in await repository.delivery_status_counts(session, [event.id for event in events]):
        statuses[count.event_id].add(count.status)
        if count.status == DeliveryStatus.PENDING.value and count.next_due_at is not None:
            next_attempts[count.event_id] = count.next_due_at
    return {
        event.id: MessageView(
            event=event,
            status=overall_status(statuses[event.id], dispatched=event.dispatched_at is not None),
            next_attempt=next_attempts.get(event.id),
        )
        for event in events
    }


def payload_of(event: Event) -> dict[str, Any]:
    """The body the message's deliveries carry."""
    return payload(event.type, event.created_at, event.data)


@dataclass(frozen=True, slots=True)
class MessageDetail:
    view: MessageView
    deliveries: list[WebhookDelivery]


async def get_message(session: AsyncSession, *, caller: Caller, message_id: str) -> MessageDetail:
    event = await _message(session, organization_of(caller), message_id)
    deliveries = await repository.deliveries_of_message(session, event.id)
    view = (await _overall_statuses(session, [event]))[event.id]
    return MessageDetail(view=view, deliveries=deliveries)


async def list_attempts(
    session: AsyncSession,
    *,
    caller: Caller,
    message_id: str,
    endpoint_id: str | None,
    page: PageRequest,
) -> Page[WebhookAttempt]:
    organization_id = organization_of(caller)
    await _message(session, organization_id, message_id)
    statement = repository.attempts_of_message(organization_id, message_id, endpoint_id)
    return await fetch_page(session, statement, WebhookAttempt.id, page)


@dataclass(frozen=True, slots=True)
class EndpointHealth:
    """An endpoint's finished delivery attempts in a window (the console's chart)."""

    endpoint_id: str
    url: str
    succeeded: int
    failed: int

    @property
    def attempts(self) -> int:
        return self.succeeded + self.failed

    @property
    def success_percent(self) -> int | None:
        """Rounded down, so 99.9 % never reads as 100; None without attempts."""
        return self.succeeded * 100 // self.attempts if self.attempts else None


async def endpoint_health(
    session: AsyncSession, *, caller: Caller, since: datetime, endpoints_max: int
) -> list[EndpointHealth]:
    """Each live endpoint of the organization (the first `endpoints_max`, oldest first)
    with its successful and failed attempts started since `since`."""
    organization_id = organization_of(caller)
    endpoints = await fetch_page(
        session,
        repository.endpoints_of(organization_id),
        WebhookEndpoint.id,
        PageRequest(limit=endpoints_max, cursor=None),
    )
    counted = await repository.attempt_outcomes(session, organization_id, since)
    return [
        EndpointHealth(
            endpoint.id,
            endpoint.url,
            counted.get(endpoint.id, {}).get(AttemptStatus.SUCCESS.value, 0),
            counted.get(endpoint.id, {}).get(AttemptStatus.FAIL.value, 0),
        )
        for endpoint in sorted(endpoints.items, key=lambda endpoint: endpoint.created_at)
    ]


async def resend(
    session: AsyncSession,
    *,
    caller: Caller,
    message_id: str,
    endpoint_id: str | None,
    now: datetime,
) -> list[str]:
    """Queue the message again, to one endpoint or to every enabled endpoint it went to.

    Returns the endpoints it is queued for; an attempt in flight is left to finish."""
    event = await _message(session, organization_of(caller), message_id)
    if event.dispatched_at is None:
        raise MessageNotSentYet()
    if endpoint_id is not None:
        await _resend_to(session, event, endpoint_id, now)
        return [endpoint_id]
    deliveries = await repository.deliveries_of_message(session, event.id)
    endpoints = await repository.by_ids(
        session, WebhookEndpoint, [delivery.endpoint_id for delivery in deliveries]
    )
    chosen = [
        delivery
        for delivery in deliveries
        if not endpoints[delivery.endpoint_id].disabled
        and endpoints[delivery.endpoint_id].deleted_at is None
    ]
    await repository.requeue_deliveries(session, [delivery.id for delivery in chosen], now)
    return [delivery.endpoint_id for delivery in chosen]


async def _resend_to(session: AsyncSession, event: Event, endpoint_id: str, now: datetime) -> None:
    # Locked, so two resends never both create the endpoint's first delivery of the message.
    endpoint = await endpoint_of(session, event.organization_id, endpoint_id, locked=True)
    if endpoint.disabled:
        raise EndpointDisabled("resend to it")
    delivery = await repository.delivery_of(session, event.id, endpoint.id)
    if delivery is not None:
        await repository.requeue_deliveries(session, [delivery.id], now)
        return
    if not endpoint_wants(endpoint.event_types, event.type):
        raise NotSubscribed(event.type)
    session.add(
        WebhookDelivery(
            id=new_id("dlv"),
            organization_id=event.organization_id,
            event_id=event.id,
            endpoint_id=endpoint.id,
            status=DeliveryStatus.PENDING.value,
            attempt_count=0,
            due_at=now,
            current_attempt_id=None,
            trigger=Trigger.MANUAL.value,
            created_at=now,
            updated_at=now,
        )
    )
    await session.flush()


async def _message(session: AsyncSession, organization_id: str, message_id: str) -> Event:
    return await get_visible(session, repository.messages_of(organization_id), message_id)


_EVENT_TYPE = re.compile(EVENT_TYPE_PATTERN)
_ITERATOR = re.compile(r"^msg_[0-9a-z]{26}$")


def _event_types(value: str | None) -> tuple[str, ...]:
    if value is None:
        return ()
    types = tuple(dict.fromkeys(item.strip() for item in value.split(",") if item.strip()))
    if len(types) > event_types_per_endpoint_max:
        raise ValidationFailed("eventTypes", f"at most {event_types_per_endpoint_max} types")
    for event_type in types:
        if len(event_type) > event_type_chars_max or not _EVENT_TYPE.match(event_type):
            raise ValidationFailed("eventTypes", f"{event_type[:80]!r} is not an event type")
    return types


def message_query(
    *,
    endpoint_id: str | None = None,
    event_types: str | None = None,
    status: DeliveryStatus | None = None,
    after: datetime | None = None,
    before: datetime | None = None,
    tag: str | None = None,
    iterator: str | None = None,
    limit: int,
) -> MessageFilter:
    """The message list's filters, checked (the API's query string and the console's)."""
    if status is not None and endpoint_id is None:
        raise ValidationFailed("status", "filters by status only together with endpointId")
    if iterator is not None and not _ITERATOR.match(iterator):
        raise ValidationFailed("iterator", "not an iterator returned by this list")
    return MessageFilter(
        organization_id="",  # the service sets the caller's
        endpoint_id=endpoint_id,
        status=status.value if status is not None else None,
        event_types=_event_types(event_types),
        after=utc(after, field="after") if after is not None else None,
        before=utc(before, field="before") if before is not None else None,
        tag=tag,
        iterator=iterator,
        limit=limit,
    )
