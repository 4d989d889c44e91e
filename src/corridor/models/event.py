"""The outbox: every state change writes its event here (`emit`), in the change's own
transaction; the webhook dispatcher fans it out after the commit."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from corridor.kit import tracing
from corridor.kit.ids import new_id
from corridor.models.base import Base, id_column


class Event(Base):
    __tablename__ = "events"
    id_prefix, resource_name = "msg", "webhook message"
    __table_args__ = (Index("ix_events_organization_id_id", "organization_id", "id"),)

    # msg_…: the webhook message id, equal to the webhook-id header of every delivery.
    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    type: Mapped[str] = mapped_column(String(80), index=True)
    data: Mapped[dict[str, Any]]
    tags: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(index=True)
    # Set once the dispatcher has fanned the event out to the endpoints' deliveries.
    dispatched_at: Mapped[datetime | None] = mapped_column(index=True)
    # The trace of the change that wrote it (W3C traceparent), when traces are on: the
    # worker delivering its webhooks continues that trace (kit/tracing.py).
    trace_context: Mapped[str | None] = mapped_column(String(55))


event_type_chars_max = 80


def event_row(
    *,
    organization_id: str,
    event_type: str,
    data: dict[str, Any],
    tags: Iterable[str],
    at: datetime,
    make: Callable[..., Event] = Event,
) -> Event:
    """The outbox row of an event, not yet added anywhere (`emit` adds it to a session; the
    express create+submit writes a plain row, `make`, in its own statement)."""
    assert len(event_type) <= event_type_chars_max
    return make(
        id=new_id("msg"),
        organization_id=organization_id,
        type=event_type,
        data=data,
        tags=sorted({tag for tag in tags if tag}),
        created_at=at,
        dispatched_at=None,
        trace_context=tracing.current_traceparent(),
    )


def emit(
    session: AsyncSession,
    *,
    organization_id: str,
    event_type: str,
    data: dict[str, Any],
    tags: Iterable[str],
    at: datetime,
) -> Event:
    """Add an event to the session; it commits, or rolls back, with the change itself."""
    event = event_row(
        organization_id=organization_id, event_type=event_type, data=data, tags=tags, at=at
    )
    session.add(event)
    return event
