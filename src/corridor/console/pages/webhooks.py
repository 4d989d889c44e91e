"""Webhooks: endpoints (list, create, detail, disable and enable, delete, rotate the signing
secret and show it, replay failed deliveries since a time), and the message history with
the API's filters (endpoint, status at that endpoint, event types, time, tag), each
message's deliveries and attempts, and resend. Every action calls the service the REST
endpoint calls (`webhooks.service`, `webhooks.history`)."""

from __future__ import annotations

import json
from datetime import datetime

from fastapi import Response

from corridor.console.forms import parse_form
from corridor.console.layout import notice, page
from corridor.console.listing import Listing, listing_of
from corridor.console.routing import console_router, redirect
from corridor.console.session import Console, ConsolePage
from corridor.kit.errors import ValidationFailed
from corridor.kit.pagination import PageRequest, page_size_max
from corridor.webhooks import history, service
from corridor.webhooks.rules import DeliveryStatus
from corridor.webhooks.schemas import (
    AttemptRead,
    EndpointCreate,
    EndpointRead,
    MessageRead,
    ReplayRequest,
    ResendRequest,
)

router = console_router()

MESSAGE_FILTERS = ("endpointId", "status", "eventTypes", "after", "before", "tag")
# An endpoint's page shows its latest messages; the history page has the rest.
endpoint_messages_shown_max = 10
# A message's page shows its newest attempts (a round has at most a few dozen).
message_attempts_shown_max = 50

CREATED = notice("endpoint-created", "Endpoint created: new messages of its types go to it.")
DISABLED = notice("endpoint-disabled", "Disabled: its waiting deliveries were cancelled.")
ENABLED = notice("endpoint-enabled", "Enabled: replay what it missed while it was disabled.")
DELETED = notice("endpoint-deleted", "Endpoint deleted; its messages stay in the history.")
REPLAYED = notice("replayed", "Replay queued: the failed deliveries are being sent again.")
REPLAYED_PART = notice(
    "replayed-part", "Replay queued the first 10,000 failed deliveries: replay again for the rest."
)
REPLAYED_NONE = notice("replayed-none", "Nothing to replay: no failed delivery in that time.")
RESENT = notice("resent", "Resend queued: the workers send the message again.")


def _event_types_of(text: str | None) -> list[str]:
    """Event types typed by a person: separated by commas, spaces or new lines."""
    return [item for item in (text or "").replace(",", " ").split() if item]


# --- Endpoints ------------------------------------------------------------------------------


@router.get("/webhooks")
async def endpoint_list(console: ConsolePage) -> Response:
    listing = listing_of(console.request)
    found = await service.list_endpoints(console.session, caller=console.caller, page=listing.page)
    rows = [EndpointRead.of(endpoint) for endpoint in found.items]
    return page(console, "webhooks/list.html", listing=listing, found=found, rows=rows)


@router.post("/webhooks")
async def create_endpoint(console: ConsolePage) -> Response:
    form = console.form
    body = parse_form(
        EndpointCreate,
        {
            "url": form.get("url"),
            "description": form.get("description"),
            "eventTypes": _event_types_of(form.get("eventTypes")),
        },
    )
    endpoint = await service.create_endpoint(
        console.session,
        caller=console.caller,
        url=body.url,
        description=body.description,
        event_types=body.event_types,
        disabled=False,
        secret=None,
        sandbox=console.settings.is_sandbox,
        now=console.now(),
    )
    await console.commit()
    return redirect(console.request, f"/console/webhooks/{endpoint.id}?done={CREATED}")


async def _endpoint_page(
    console: Console, endpoint_id: str, *, shown_secret: tuple[str, str] | None = None
) -> Response:
    endpoint = await service.get_endpoint(
        console.session, caller=console.caller, endpoint_id=endpoint_id
    )
    messages = await history.list_messages(
        console.session,
        caller=console.caller,
        query=history.message_query(endpoint_id=endpoint.id, limit=endpoint_messages_shown_max),
        settings=console.settings,
    )
    return page(
        console,
        "webhooks/detail.html",
        endpoint=EndpointRead.of(endpoint),
        messages=[MessageRead.of(view) for view in messages.items],
        history_available=messages.available,
        more_messages=not messages.done,
        shown_secret=shown_secret,
        now=console.now(),
    )


@router.get("/webhooks/messages")
async def message_list(console: ConsolePage) -> Response:
    listing = listing_of(console.request, filters=MESSAGE_FILTERS)
    found = await history.list_messages(
        console.session,
        caller=console.caller,
        query=_message_query(listing),
        settings=console.settings,
    )
    endpoints = await service.list_endpoints(
        console.session, caller=console.caller, page=PageRequest(limit=page_size_max, cursor=None)
    )
    return page(
        console,
        "webhooks/messages.html",
        listing=listing,
        rows=[MessageRead.of(view) for view in found.items],
        available=found.available,
        next_url=None if found.done or not found.iterator else listing.url(cursor=found.iterator),
        endpoints=[EndpointRead.of(endpoint) for endpoint in endpoints.items],
        statuses=[status.value for status in DeliveryStatus],
    )


def _moment(listing: Listing, name: str) -> datetime | None:
    value = listing.get(name)
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValidationFailed(name, "must be a time, YYYY-MM-DDTHH:MM (UTC)") from None


def _message_query(listing: Listing) -> history.MessageFilter:
    """The history page's query string as the list API's filters (the same checks)."""
    status = listing.get("status")
    if status is not None and status not in DeliveryStatus.__members__:
        raise ValidationFailed("status", f"must be one of {', '.join(DeliveryStatus)}")
    return history.message_query(
        endpoint_id=listing.get("endpointId"),
        event_types=",".join(_event_types_of(listing.get("eventTypes"))) or None,
        status=DeliveryStatus(status) if status is not None else None,
        after=_moment(listing, "after"),
        before=_moment(listing, "before"),
        tag=listing.get("tag"),
        iterator=listing.page.cursor,
        limit=listing.page.limit,
    )


@router.get("/webhooks/messages/{message_id}")
async def message_detail(message_id: str, console: ConsolePage) -> Response:
    found = await history.get_message(console.session, caller=console.caller, message_id=message_id)
    attempts = await history.list_attempts(
        console.session,
        caller=console.caller,
        message_id=message_id,
        endpoint_id=None,
        page=PageRequest(limit=message_attempts_shown_max, cursor=None),
    )
    return page(
        console,
        "webhooks/message.html",
        message=MessageRead.of(found.view),
        payload=json.dumps(history.payload_of(found.view.event), indent=2, ensure_ascii=False),
        deliveries=found.deliveries,
        attempts=[AttemptRead.of(attempt) for attempt in attempts.items],
        more_attempts=attempts.has_more,
    )


@router.post("/webhooks/messages/{message_id}/resend")
async def resend_message(message_id: str, console: ConsolePage) -> Response:
    body = parse_form(ResendRequest, {"endpointId": console.form.get("endpointId")})
    await history.resend(
        console.session,
        caller=console.caller,
        message_id=message_id,
        endpoint_id=body.endpoint_id,
        now=console.now(),
    )
    await console.commit()
    return redirect(console.request, f"/console/webhooks/messages/{message_id}?done={RESENT}")


@router.get("/webhooks/{endpoint_id}")
async def endpoint_detail(endpoint_id: str, console: ConsolePage) -> Response:
    return await _endpoint_page(console, endpoint_id)


async def _set_disabled(console: Console, endpoint_id: str, *, disabled: bool) -> Response:
    await service.update_endpoint(
        console.session,
        caller=console.caller,
        endpoint_id=endpoint_id,
        changes={"disabled": disabled},
        sandbox=console.settings.is_sandbox,
        now=console.now(),
    )
    await console.commit()
    done = DISABLED if disabled else ENABLED
    return redirect(console.request, f"/console/webhooks/{endpoint_id}?done={done}")


@router.post("/webhooks/{endpoint_id}/disable")
async def disable_endpoint(endpoint_id: str, console: ConsolePage) -> Response:
    return await _set_disabled(console, endpoint_id, disabled=True)


@router.post("/webhooks/{endpoint_id}/enable")
async def enable_endpoint(endpoint_id: str, console: ConsolePage) -> Response:
    return await _set_disabled(console, endpoint_id, disabled=False)


@router.post("/webhooks/{endpoint_id}/delete")
async def delete_endpoint(endpoint_id: str, console: ConsolePage) -> Response:
    if console.form.get("confirm") != "yes":
        raise ValidationFailed("confirm", "tick the box to confirm: deleting cannot be undone")
    await service.delete_endpoint(
        console.session, caller=console.caller, endpoint_id=endpoint_id, now=console.now()
    )
    await console.commit()
    return redirect(console.request, f"/console/webhooks?done={DELETED}")


@router.post("/webhooks/{endpoint_id}/secret/rotate")
async def rotate_secret(endpoint_id: str, console: ConsolePage) -> Response:
    """The new secret is shown in this answer (no-store), never in a URL or a redirect."""
    key = await service.rotate_secret(
        console.session, caller=console.caller, endpoint_id=endpoint_id, key=None, now=console.now()
    )
    await console.commit()
    return await _endpoint_page(console, endpoint_id, shown_secret=("rotated", key))


@router.post("/webhooks/{endpoint_id}/secret")
async def reveal_secret(endpoint_id: str, console: ConsolePage) -> Response:
    """The current secret, as `GET /v1/webhooks/endpoints/{id}/secret` answers it; a POST so
    it is shown only when asked for, in a page no cache keeps."""
    key = await service.endpoint_secret(
        console.session, caller=console.caller, endpoint_id=endpoint_id
    )
    return await _endpoint_page(console, endpoint_id, shown_secret=("current", key))


@router.post("/webhooks/{endpoint_id}/replay")
async def replay(endpoint_id: str, console: ConsolePage) -> Response:
    body = parse_form(
        ReplayRequest, {"since": console.form.get("since"), "until": console.form.get("until")}
    )
    replayed = await service.replay_failed(
        console.session,
        caller=console.caller,
        endpoint_id=endpoint_id,
        since=body.since,
        until=body.until,
        now=console.now(),
    )
    await console.commit()
    done = REPLAYED if replayed.complete else REPLAYED_PART
    if replayed.queued == 0:
        done = REPLAYED_NONE
    return redirect(console.request, f"/console/webhooks/{endpoint_id}?done={done}")
