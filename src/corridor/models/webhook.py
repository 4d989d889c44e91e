"""Webhook endpoints, and the deliveries and attempts of each outbox event to them.

A message is an outbox event (`events`, id `msg_…`). Fan-out makes one delivery per
message and subscribed endpoint; each try at sending a delivery is an attempt.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, EncryptedKeys, EncryptedText, id_column


class WebhookEndpoint(Base):
    __tablename__ = "webhook_endpoints"
    id_prefix, resource_name = "ep", "webhook endpoint"
    __table_args__ = (Index("ix_webhook_endpoints_organization_id_id", "organization_id", "id"),)

    id: Mapped[str] = id_column()  # ep_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    url: Mapped[str] = mapped_column(String(2048))
    description: Mapped[str | None] = mapped_column(String(500))
    # Event types the endpoint subscribes to; empty means every type.
    event_types: Mapped[list[Any]] = mapped_column(default=list)
    disabled: Mapped[bool] = mapped_column(default=False)
    # MANUAL, GONE (the endpoint answered 410) or FAILING (failing for 5 days); None if enabled.
    disabled_reason: Mapped[str | None] = mapped_column(String(20))
    # whsec_…: the signing secret deliveries are signed with; encrypted at rest.
    secret: Mapped[str] = mapped_column(EncryptedText())
    # Secrets replaced by a rotation, newest first: [{"key": "whsec_…", "expiresAt": iso}];
    # each key encrypted at rest.
    previous_secrets: Mapped[list[Any]] = mapped_column(EncryptedKeys(), default=list)
    # Start of the current run of failed attempts; None after a success.
    failing_since: Mapped[datetime | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    # Deleted endpoints stay as rows so their deliveries keep a history; the API hides them.
    deleted_at: Mapped[datetime | None]


class WebhookDelivery(Base):
    """One message to one endpoint: its status and when it is next due."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        UniqueConstraint("event_id", "endpoint_id"),
        Index("ix_webhook_deliveries_endpoint_id_event_id", "endpoint_id", "event_id"),
    )

    id: Mapped[str] = id_column()  # dlv_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    event_id: Mapped[str] = mapped_column(ForeignKey("events.id"))
    endpoint_id: Mapped[str] = mapped_column(ForeignKey("webhook_endpoints.id"))
    # PENDING, SENDING, SUCCESS, FAIL or CANCELED.
    status: Mapped[str] = mapped_column(String(20))
    # Attempts made in the current round (a resend or replay starts a new round).
    attempt_count: Mapped[int] = mapped_column(default=0)
    # PENDING: when the next attempt is due. SENDING: when the claim's lease runs out and
    # another worker may take the attempt over. None once SUCCESS, FAIL or CANCELED.
    due_at: Mapped[datetime | None] = mapped_column(index=True)
    # The attempt in flight (SENDING); a result for any other attempt is stale.
    current_attempt_id: Mapped[str | None] = mapped_column(String(40))
    # SCHEDULED, or MANUAL when the next attempt was asked for by a resend or replay.
    trigger: Mapped[str] = mapped_column(String(20), default="SCHEDULED")
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class WebhookAttempt(Base):
    """One HTTP request of a delivery, with what the endpoint answered."""

    __tablename__ = "webhook_attempts"
    __table_args__ = (
        Index("ix_webhook_attempts_event_id_id", "event_id", "id"),
        # The console's webhooks health: one organization's attempts of the last 30 days.
        Index("ix_webhook_attempts_organization_id_started_at", "organization_id", "started_at"),
    )

    id: Mapped[str] = id_column()  # atmpt_…
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    delivery_id: Mapped[str] = mapped_column(ForeignKey("webhook_deliveries.id"), index=True)
    event_id: Mapped[str] = mapped_column(ForeignKey("events.id"))
    endpoint_id: Mapped[str] = mapped_column(ForeignKey("webhook_endpoints.id"))
    url: Mapped[str] = mapped_column(String(2048))
    # SENDING, SUCCESS or FAIL.
    status: Mapped[str] = mapped_column(String(20))
    attempt_number: Mapped[int]
    trigger: Mapped[str] = mapped_column(String(20))
    response_status_code: Mapped[int | None]
    response_body: Mapped[str | None] = mapped_column(Text)
    error: Mapped[str | None] = mapped_column(String(500))
    duration_ms: Mapped[int | None]
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
