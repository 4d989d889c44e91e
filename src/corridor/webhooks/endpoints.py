"""HTTP endpoints of webhooks: endpoints and their secrets, message history, recovery."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated

from fastapi import APIRouter, Body, Depends, Query, Response

from corridor.kit.ids import id_pattern
from corridor.kit.pagination import ListResponse, PageRequest, page_size_max
from corridor.web.authentication import SandboxOnlyRoute
from corridor.web.context import Context, Reading
from corridor.web.openapi import ERROR_RESPONSES
from corridor.web.pagination import page_request
from corridor.webhooks import history, service, testing
from corridor.webhooks.repository import MessageFilter
from corridor.webhooks.rules import DeliveryStatus
from corridor.webhooks.schemas import (
    AttemptRead,
    DeliveryRead,
    EndpointCreate,
    EndpointRead,
    EndpointTestAccepted,
    EndpointTestRequest,
    EndpointUpdate,
    MessageDetail,
    MessageList,
    MessageRead,
    ReplayAccepted,
    ReplayRequest,
    ResendAccepted,
    ResendRequest,
    SecretRead,
    SecretRotate,
    SecretRotated,
    event_type_chars_max,
    event_types_per_endpoint_max,
)

router = APIRouter(prefix="/v1/webhooks", responses=ERROR_RESPONSES)
ENDPOINTS: list[str | Enum] = ["Webhook endpoints"]
MESSAGES: list[str | Enum] = ["Webhook messages"]
id_chars_max = 64
message_page_size_default = 50
# What a list of event types is made of: their characters, commas, and spaces around them.
_EVENT_TYPES_PATTERN = r"^[a-z0-9_.,\s]*$"

Page = Annotated[PageRequest, Depends(page_request)]


# --- Endpoints ----------------------------------------------------------------------------


@router.post(
    "/endpoints",
    status_code=201,
    response_model=EndpointRead,
    tags=ENDPOINTS,
    summary="Create a webhook endpoint",
)
async def create_endpoint(body: EndpointCreate, context: Context) -> Response:
    """Messages created from now on whose type the endpoint subscribes to are delivered to
    it, signed with its secret (`GET …/secret`)."""
    endpoint = await service.create_endpoint(
        context.session,
        caller=context.caller,
        url=body.url,
        description=body.description,
        event_types=body.event_types,
        disabled=body.disabled,
        secret=body.secret,
        sandbox=context.settings.is_sandbox,
        now=context.now(),
    )
    return await context.respond(EndpointRead.of(endpoint), status=201)


@router.get(
    "/endpoints",
    response_model=ListResponse[EndpointRead],
    tags=ENDPOINTS,
    summary="List webhook endpoints",
)
async def list_endpoints(context: Context, page: Page) -> ListResponse[EndpointRead]:
    """The organization's webhook endpoints, newest first, without their signing secrets."""
    found = await service.list_endpoints(context.session, caller=context.caller, page=page)
    return ListResponse[EndpointRead].of(found, EndpointRead.of)


@router.get(
    "/endpoints/{endpoint_id}",
    response_model=EndpointRead,
    tags=ENDPOINTS,
    summary="Get a webhook endpoint",
)
async def get_endpoint(endpoint_id: str, context: Context) -> EndpointRead:
    """One endpoint: its URL, the event types it receives, and whether it is disabled (and
    why)."""
    endpoint = await service.get_endpoint(
        context.session, caller=context.caller, endpoint_id=endpoint_id
    )
    return EndpointRead.of(endpoint)


@router.patch(
    "/endpoints/{endpoint_id}",
    response_model=EndpointRead,
    tags=ENDPOINTS,
    summary="Update a webhook endpoint",
)
async def update_endpoint(endpoint_id: str, body: EndpointUpdate, context: Context) -> Response:
    """Only the fields sent change. `disabled: true` cancels the endpoint's waiting
    deliveries; `disabled: false` enables it again (a replay sends what it missed)."""
    endpoint = await service.update_endpoint(
        context.session,
        caller=context.caller,
        endpoint_id=endpoint_id,
        changes={name: getattr(body, name) for name in body.model_fields_set},
        sandbox=context.settings.is_sandbox,
        now=context.now(),
    )
    return await context.respond(EndpointRead.of(endpoint))


@router.delete(
    "/endpoints/{endpoint_id}",
    status_code=204,
    tags=ENDPOINTS,
    summary="Delete a webhook endpoint",
)
async def delete_endpoint(endpoint_id: str, context: Context) -> Response:
    """Its waiting deliveries are CANCELED; the messages stay in the history."""
    await service.delete_endpoint(
        context.session,
        caller=context.caller,
        endpoint_id=endpoint_id,
        now=context.now(),
    )
    return Response(status_code=204)


@router.get(
    "/endpoints/{endpoint_id}/secret",
    response_model=SecretRead,
    tags=ENDPOINTS,
    summary="Get an endpoint's signing secret",
)
async def get_secret(endpoint_id: str, context: Context) -> SecretRead:
    """The `whsec_…` secret that signs this endpoint's deliveries (Standard Webhooks). Keep it
    on the receiving server only."""
    endpoint = await service.get_endpoint(
        context.session, caller=context.caller, endpoint_id=endpoint_id
    )
    return SecretRead(key=endpoint.secret)


@router.post(
    "/endpoints/{endpoint_id}/secret/rotate",
    response_model=SecretRotated,
    tags=ENDPOINTS,
    summary="Rotate an endpoint's signing secret",
)
async def rotate_secret(
    endpoint_id: str,
    context: Context,
    body: Annotated[SecretRotate | None, Body()] = None,
) -> Response:
    """Answers the new secret. For 24 hours deliveries carry a signature with the previous
    secret too, so receivers can switch without losing a message. An idempotent replay
    answers `key: null` (the secret is never kept in a stored answer): read it with
    `GET …/secret`."""
    key = await service.rotate_secret(
        context.session,
        caller=context.caller,
        endpoint_id=endpoint_id,
        key=body.key if body is not None else None,
        now=context.now(),
    )
    return await context.respond(SecretRotated(key=key))


@router.post(
    "/endpoints/{endpoint_id}/replay",
    status_code=202,
    response_model=ReplayAccepted,
    tags=ENDPOINTS,
    summary="Replay an endpoint's failed deliveries",
)
async def replay(endpoint_id: str, body: ReplayRequest, context: Context) -> Response:
    """Queues the FAIL and CANCELED deliveries of messages created since `since` for new
    attempts, sent in the background. At most 10,000 per call: `complete: false` says to
    call again for the rest."""
    replayed = await service.replay_failed(
        context.session,
        caller=context.caller,
        endpoint_id=endpoint_id,
        since=body.since,
        until=body.until,
        now=context.now(),
    )
    accepted = ReplayAccepted(
        endpoint_id=replayed.endpoint_id,
        since=replayed.since,
        until=replayed.until,
        queued=replayed.queued,
        complete=replayed.complete,
    )
    return await context.respond(accepted, status=202)


@router.post(
    "/endpoints/{endpoint_id}/test",
    status_code=202,
    response_model=EndpointTestAccepted,
    tags=ENDPOINTS,
    summary="Send a test event to an endpoint (sandbox)",
    dependencies=[SandboxOnlyRoute],
)
async def send_test_event(
    endpoint_id: str, body: EndpointTestRequest, context: Context
) -> Response:
    """Sandbox only (403 `sandbox_only` in production), as Svix's "Send example" and
    Stripe's `trigger`: a message of `type` is queued for this endpoint alone and sent in
    the background, signed like any other; its data is a sample marked `"test": true`, and
    it shows in the message history tagged `test`. A type outside the catalog is a 422
    that names the catalog's types; an endpoint that is disabled or does not subscribe to
    the type a 409."""
    sent = await testing.send_test_event(
        context.session,
        caller=context.caller,
        event_type=body.type,
        endpoint_id=endpoint_id,
        sandbox=context.settings.is_sandbox,
        now=context.now(),
    )
    accepted = EndpointTestAccepted(
        message_id=sent.message.id, type=body.type, endpoint_id=endpoint_id
    )
    return await context.respond(accepted, status=202)


# --- Messages -----------------------------------------------------------------------------


async def message_filter(
    endpoint_id: Annotated[
        str | None,
        Query(
            alias="endpointId",
            max_length=id_chars_max,
            description="Only messages for this endpoint; needed to filter by `status`",
        ),
    ] = None,
    event_types: Annotated[
        str | None,
        Query(
            alias="eventTypes",
            max_length=event_types_per_endpoint_max * (event_type_chars_max + 1),
            description="Comma-separated event types",
            examples=["transfer.completed,transfer.failed"],
            # Event types are ASCII (EVENT_TYPE_PATTERN); said here, a client (or a fuzzer)
            # never sends a URL of thousands of encoded emoji, past the HTTP parser's limit.
            json_schema_extra={"pattern": _EVENT_TYPES_PATTERN},
        ),
    ] = None,
    status: Annotated[
        DeliveryStatus | None, Query(description="The status at `endpointId`")
    ] = None,
    after: Annotated[datetime | None, Query(description="Created after this time")] = None,
    before: Annotated[datetime | None, Query(description="Created before this time")] = None,
    tag: Annotated[
        str | None,
        Query(max_length=id_chars_max, description="A resource id the message concerns"),
    ] = None,
    iterator: Annotated[
        str | None,
        Query(
            max_length=id_chars_max,
            description="`iterator` of the previous page",
            json_schema_extra={"pattern": id_pattern("msg")},
        ),
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=page_size_max, description="Messages per page, 1 to 250")
    ] = message_page_size_default,
) -> MessageFilter:
    return history.message_query(
        endpoint_id=endpoint_id,
        event_types=event_types,
        status=status,
        after=after,
        before=before,
        tag=tag,
        iterator=iterator,
        limit=limit,
    )


@router.get("/messages", response_model=MessageList, tags=MESSAGES, summary="List webhook messages")
async def list_messages(
    context: Reading, query: Annotated[MessageFilter, Depends(message_filter)]
) -> MessageList:
    """Newest first. Pages stay stable while new messages arrive: pass `iterator` on until
    `done`. `available` is false when message history is switched off."""
    found = await history.list_messages(
        context.session, caller=context.caller, query=query, settings=context.settings
    )
    return MessageList(
        available=found.available,
        data=[MessageRead.of(view) for view in found.items],
        iterator=found.iterator,
        done=found.done,
    )


@router.get(
    "/messages/{message_id}",
    response_model=MessageDetail,
    tags=MESSAGES,
    summary="Get a webhook message",
)
async def get_message(message_id: str, context: Context) -> MessageDetail:
    """The message with its payload and its status at each endpoint."""
    found = await history.get_message(context.session, caller=context.caller, message_id=message_id)
    event = found.view.event
    return MessageDetail(
        **MessageRead.of(found.view).model_dump(),
        payload=history.payload_of(event),
        deliveries=[
            DeliveryRead(
                endpoint_id=delivery.endpoint_id,
                status=DeliveryStatus(delivery.status),
                attempt_count=delivery.attempt_count,
                next_attempt=(
                    delivery.due_at if delivery.status == DeliveryStatus.PENDING.value else None
                ),
            )
            for delivery in found.deliveries
        ],
    )


@router.get(
    "/messages/{message_id}/attempts",
    response_model=ListResponse[AttemptRead],
    tags=MESSAGES,
    summary="List a message's delivery attempts",
)
async def list_attempts(
    message_id: str,
    context: Reading,
    page: Page,
    endpoint_id: Annotated[
        str | None,
        Query(alias="endpointId", max_length=id_chars_max, description="Only to this endpoint"),
    ] = None,
) -> ListResponse[AttemptRead]:
    """Newest first: status code, the start of the answer, duration, and any error."""
    found = await history.list_attempts(
        context.session,
        caller=context.caller,
        message_id=message_id,
        endpoint_id=endpoint_id,
        page=page,
    )
    return ListResponse[AttemptRead].of(found, AttemptRead.of)


@router.post(
    "/messages/{message_id}/resend",
    status_code=202,
    response_model=ResendAccepted,
    tags=MESSAGES,
    summary="Resend a webhook message",
)
async def resend_message(
    message_id: str,
    context: Context,
    body: Annotated[ResendRequest | None, Body()] = None,
) -> Response:
    """Queues the message again for `endpointId`, or for every enabled endpoint it went to;
    the workers send it in the background with a new round of attempts."""
    endpoint_ids = await history.resend(
        context.session,
        caller=context.caller,
        message_id=message_id,
        endpoint_id=body.endpoint_id if body is not None else None,
        now=context.now(),
    )
    accepted = ResendAccepted(message_id=message_id, endpoint_ids=endpoint_ids)
    return await context.respond(accepted, status=202)
