"""Sandbox test events: a message of a type of the catalog sent to one endpoint (or to every
enabled endpoint that subscribes to the type), as Stripe's `trigger` and Svix's "Send
example". The message is written already fanned out (`dispatched_at` set), with one
MANUAL delivery per chosen endpoint, so no other endpoint receives it; it shows in the
message history like any other, its data saying it is a test."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit.errors import SandboxOnly, ValidationFailed
from corridor.kit.ids import new_id
from corridor.kit.pagination import PageRequest, fetch_page
from corridor.models.event import Event, emit
from corridor.models.webhook import WebhookDelivery, WebhookEndpoint
from corridor.webhooks import repository
from corridor.webhooks.catalog import EVENT_TYPES
from corridor.webhooks.errors import EndpointDisabled, NotSubscribed
from corridor.webhooks.rules import DeliveryStatus, Trigger, endpoint_wants
from corridor.webhooks.service import endpoint_of, endpoints_per_organization_max, organization_of

TEST_TAG = "test"


@dataclass(frozen=True, slots=True)
class SentTestEvent:
    message: Event
    endpoint_ids: list[str]


def sample_event_data(event_type: str) -> dict[str, Any]:
    return {
        "object": "test_event",
        "test": True,
        "type": event_type,
        "description": "A test event sent from the sandbox: no resource changed.",
    }


async def _chosen(
    session: AsyncSession, organization_id: str, endpoint_id: str | None, event_type: str
) -> list[WebhookEndpoint]:
    if endpoint_id is not None:
        endpoint = await endpoint_of(session, organization_id, endpoint_id)
        if endpoint.disabled:
            raise EndpointDisabled("send it a test event")
        if not endpoint_wants(endpoint.event_types, event_type):
            raise NotSubscribed(event_type)
        return [endpoint]
    found = await fetch_page(
        session,
        repository.endpoints_of(organization_id),
        WebhookEndpoint.id,
        PageRequest(limit=endpoints_per_organization_max, cursor=None),
    )
    return [
        endpoint
        for endpoint in found.items
        if not endpoint.disabled and endpoint_wants(endpoint.event_types, event_type)
    ]


async def send_test_event(
    session: AsyncSession,
    *,
    caller: Caller,
    event_type: str,
    endpoint_id: str | None,
    sandbox: bool,
    now: datetime,
) -> SentTestEvent:
    """Sandbox only (403 `sandbox_only`); webhooks:manage, organization-wide callers. An
    event type outside the catalog is a 422; a disabled endpoint a 409, one that does not
    subscribe to the type a 409."""
    if not sandbox:
        raise SandboxOnly()
    organization_id = organization_of(caller)
    if event_type not in EVENT_TYPES:
        raise ValidationFailed("type", "must be an event type of the catalog (API.md 7)")
    endpoints = await _chosen(session, organization_id, endpoint_id, event_type)
    message = emit(
        session,
        organization_id=organization_id,
        event_type=event_type,
        data=sample_event_data(event_type),
        tags=[TEST_TAG],
        at=now,
    )
    message.dispatched_at = now  # fanned out here, to the chosen endpoints only
    for endpoint in endpoints:
        session.add(
            WebhookDelivery(
                id=new_id("dlv"),
                organization_id=organization_id,
                event_id=message.id,
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
    return SentTestEvent(message=message, endpoint_ids=[endpoint.id for endpoint in endpoints])
