"""The outbox: every state change writes its event here, in the change's own transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from corridor.kit.db import Base, id_column


class Event(Base):
    __tablename__ = "events"
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
