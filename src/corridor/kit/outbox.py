"""Writing events to the outbox, inside the transaction of the change that causes them."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.ids import new_id
from corridor.models.event import Event

event_type_chars_max = 80


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
    assert len(event_type) <= event_type_chars_max
    event = Event(
        id=new_id("msg"),
        organization_id=organization_id,
        type=event_type,
        data=data,
        tags=sorted({tag for tag in tags if tag}),
        created_at=at,
        dispatched_at=None,
    )
    session.add(event)
    return event
