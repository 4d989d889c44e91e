"""Idempotency keys: the first response to a creating POST, replayed for 24 hours."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class IdempotencyRecord(Base):
    __tablename__ = "idempotency_records"
    __table_args__ = (UniqueConstraint("organization_id", "key"),)

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"))
    key: Mapped[str] = mapped_column(String(255))
    request_fingerprint: Mapped[str] = mapped_column(String(64))
    # IN_PROGRESS while the first request runs, COMPLETED once its answer is stored.
    state: Mapped[str] = mapped_column(String(20))
    response_status: Mapped[int | None] = mapped_column(Integer)
    response_body: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]
    # An IN_PROGRESS claim older than this was abandoned (the process died) and may be taken over.
    locked_until: Mapped[datetime]
    expires_at: Mapped[datetime] = mapped_column(index=True)
