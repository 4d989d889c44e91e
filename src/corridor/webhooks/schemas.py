"""Wire shapes of webhook endpoints, secrets, messages and attempts (spec 2.13, API.md §8)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StrictBool, StrictStr

from corridor.kit.schemas import (
    InSchema,
    MultiLineText,
    Omittable,
    RequestModel,
    ResponseModel,
    ShownOnce,
    Timestamp,
    web_address_pattern,
)
from corridor.kit.urls import url_chars_max
from corridor.models.webhook import WebhookAttempt, WebhookEndpoint
from corridor.webhooks.rules import AttemptStatus, DeliveryStatus, DisabledReason, Trigger

description_chars_max = 500
event_types_per_endpoint_max = 100
event_type_chars_max = 80
secret_chars_max = 120
EVENT_TYPE_PATTERN = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$"

ENDPOINT_ID_EXAMPLE = "ep_01jd3x0p6x9e3k2v1m8q4r7s5t"
MESSAGE_ID_EXAMPLE = "msg_01jd3x0p6x9e3k2v1m8q4r7s5t"
SECRET_EXAMPLE = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4bS1LkV6sTI="


def _distinct(values: list[str]) -> list[str]:
    return list(dict.fromkeys(values))


EventType = Annotated[
    StrictStr,
    Field(
        min_length=3,
        max_length=event_type_chars_max,
        pattern=EVENT_TYPE_PATTERN,
        examples=["transfer.completed"],
    ),
]
EventTypes = Annotated[
    list[EventType],
    Field(
        max_length=event_types_per_endpoint_max,
        description="Event types to receive; empty means every type",
        examples=[["transfer.completed", "transfer.failed"]],
    ),
    AfterValidator(_distinct),
]
EndpointUrl = Annotated[
    StrictStr,
    Field(
        min_length=1,
        max_length=url_chars_max,
        description="https in production; must reach a public address",
        examples=["https://example.com/webhooks/corridor"],
    ),
    InSchema(pattern=web_address_pattern),
]
Description = Annotated[
    MultiLineText,
    Field(max_length=description_chars_max, examples=["Ledger sync"]),
]
SigningSecret = Annotated[
    StrictStr,
    Field(
        min_length=1,
        max_length=secret_chars_max,
        description="whsec_ followed by base64 of 24 to 64 random bytes",
        examples=[SECRET_EXAMPLE],
    ),
]


class EndpointCreate(RequestModel):
    model_config = {
        "json_schema_extra": {
            "examples": [
                {
                    "url": "https://example.com/webhooks/corridor",
                    "description": "Ledger sync",
                    "eventTypes": ["transfer.completed", "transfer.failed"],
                }
            ]
        }
    }

    url: EndpointUrl
    description: Description | None = None
    event_types: EventTypes = Field(default_factory=list)
    disabled: StrictBool = False
    secret: SigningSecret | None = Field(
        default=None, description="Bring your own signing secret; one is made when omitted"
    )


class EndpointUpdate(RequestModel):
    """Only the fields sent change; `description: null` clears the description."""

    model_config = {"json_schema_extra": {"examples": [{"eventTypes": [], "disabled": False}]}}

    url: EndpointUrl = Omittable
    description: Description | None = None
    event_types: EventTypes = Omittable
    disabled: StrictBool = Omittable


class EndpointRead(ResponseModel):
    id: str = Field(examples=[ENDPOINT_ID_EXAMPLE])
    url: str = Field(examples=["https://example.com/webhooks/corridor"])
    description: str | None = Field(examples=["Ledger sync"])
    event_types: list[str] = Field(
        description="Event types the endpoint receives; empty means every type"
    )
    disabled: bool
    disabled_reason: DisabledReason | None = Field(
        description="MANUAL (by a client), GONE (answered 410) or FAILING (failed for 5 days)"
    )
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, endpoint: WebhookEndpoint) -> EndpointRead:
        return cls.model_validate(endpoint)


class SecretRead(ResponseModel):
    key: str = Field(examples=[SECRET_EXAMPLE])


class SecretRotated(ShownOnce):
    secret_fields = ("key",)
    replay_note = (
        "The new secret is shown in the first answer to this request and is never kept in an "
        "idempotent answer, so this replay cannot show it; read it with "
        "GET /v1/webhooks/endpoints/{id}/secret."
    )

    key: str | None = Field(
        examples=[SECRET_EXAMPLE],
        description="The new signing secret. null in an idempotent replay of this request "
        "(`secretNote` says where to read it).",
    )


class SecretRotate(RequestModel):
    model_config = {"json_schema_extra": {"examples": [{}, {"key": SECRET_EXAMPLE}]}}

    key: SigningSecret | None = Field(
        default=None, description="The new secret; a random one is made when omitted"
    )


class ReplayRequest(RequestModel):
    model_config = {"json_schema_extra": {"examples": [{"since": "2026-11-20T00:00:00Z"}]}}

    since: datetime = Field(description="Replay failed deliveries of messages created since")
    until: datetime | None = Field(default=None, description="…and before this time (now)")


class ReplayAccepted(ResponseModel):
    endpoint_id: str = Field(examples=[ENDPOINT_ID_EXAMPLE])
    since: Timestamp
    until: Timestamp
    queued: int = Field(description="Deliveries queued for a new attempt", examples=[12])
    complete: bool = Field(
        description="False when more failed deliveries remain than one replay queues; "
        "call again to queue the next ones"
    )


class ResendRequest(RequestModel):
    model_config = {"json_schema_extra": {"examples": [{}, {"endpointId": ENDPOINT_ID_EXAMPLE}]}}

    endpoint_id: StrictStr | None = Field(
        default=None,
        max_length=64,
        description="Only to this endpoint; every endpoint of the message when omitted",
    )


class ResendAccepted(ResponseModel):
    message_id: str = Field(examples=[MESSAGE_ID_EXAMPLE])
    endpoint_ids: list[str] = Field(description="Endpoints the message is queued for")


class MessageRead(ResponseModel):
    """Spec 2.13."""

    id: str = Field(examples=[MESSAGE_ID_EXAMPLE], description="Equal to the webhook-id header")
    event_type: str = Field(examples=["transfer.completed"])
    timestamp: Timestamp
    tags: list[str] = Field(examples=[["tfr_01jd3x0p6x9e3k2v1m8q4r7s5t"]])
    status: DeliveryStatus
    next_attempt: Timestamp | None

    @classmethod
    def of(cls, view: Any) -> MessageRead:
        """A message (its event) with its status overall or at one endpoint."""
        return cls(
            id=view.event.id,
            event_type=view.event.type,
            timestamp=view.event.created_at,
            tags=list(view.event.tags),
            status=view.status,
            next_attempt=view.next_attempt,
        )


class MessageList(ResponseModel):
    available: bool = Field(description="False when message history is switched off")
    data: list[MessageRead]
    iterator: str | None = Field(description="Pass as `iterator` for the next page")
    done: bool = Field(description="True on the last page")


class DeliveryRead(ResponseModel):
    endpoint_id: str = Field(examples=[ENDPOINT_ID_EXAMPLE])
    status: DeliveryStatus
    attempt_count: int = Field(description="Attempts in the current round")
    next_attempt: Timestamp | None


class MessageDetail(MessageRead):
    payload: dict[str, Any] = Field(description="The body delivered: type, timestamp and data")
    deliveries: list[DeliveryRead] = Field(description="The message at each endpoint")


class AttemptRead(ResponseModel):
    id: str = Field(examples=["atmpt_01jd3x0p6x9e3k2v1m8q4r7s5t"])
    message_id: str = Field(examples=[MESSAGE_ID_EXAMPLE])
    endpoint_id: str = Field(examples=[ENDPOINT_ID_EXAMPLE])
    url: str
    status: AttemptStatus
    attempt_number: int = Field(description="1 for the first attempt of a round")
    trigger: Trigger
    response_status_code: int | None = Field(examples=[200])
    response_body: str | None = Field(description="The start of the endpoint's answer")
    duration_ms: int | None
    error: str | None = Field(
        description="Why no answer was had (timeout, refused address, …)", examples=[None]
    )
    timestamp: Timestamp = Field(description="When the attempt started")
    finished_at: Timestamp | None

    @classmethod
    def of(cls, attempt: WebhookAttempt) -> AttemptRead:
        return cls(
            id=attempt.id,
            message_id=attempt.event_id,
            endpoint_id=attempt.endpoint_id,
            url=attempt.url,
            status=AttemptStatus(attempt.status),
            attempt_number=attempt.attempt_number,
            trigger=Trigger(attempt.trigger),
            response_status_code=attempt.response_status_code,
            response_body=attempt.response_body,
            duration_ms=attempt.duration_ms,
            error=attempt.error,
            timestamp=attempt.started_at,
            finished_at=attempt.finished_at,
        )


class EndpointTestRequest(RequestModel):
    model_config = {"json_schema_extra": {"examples": [{"type": "transfer.completed"}]}}

    type: StrictStr = Field(
        max_length=event_type_chars_max,
        pattern=EVENT_TYPE_PATTERN,
        description="An event type of the catalog (docs/reference/events.md); the endpoint "
        "must subscribe to it",
    )


class EndpointTestAccepted(ResponseModel):
    message_id: str = Field(examples=[MESSAGE_ID_EXAMPLE], description="The test message")
    type: str = Field(examples=["transfer.completed"])
    endpoint_id: str = Field(examples=[ENDPOINT_ID_EXAMPLE])
