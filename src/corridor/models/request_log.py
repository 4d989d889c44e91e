"""The request log (issue 28): one row per API request made with an API key or an OAuth
token, kept `request_log_retention_days` (7) for the organization's developers, as Stripe's
Logs. Written in batches after the answer (requestlogs/recorder.py), never the request's
body or headers: the method, the path without its query, the status, the latency, the
Idempotency-Key and, for an error, the house error JSON the client got."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class RequestLog(Base):
    __tablename__ = "request_logs"
    # No foreign key: rows are written in bulk off the request path and pruned by age.
    __table_args__ = (
        Index("ix_request_logs_organization_id", "organization_id", "id"),
        Index("ix_request_logs_credential_id", "organization_id", "credential_id", "id"),
    )
    id_prefix = "req"
    resource_name = "request log"

    # The request's own id: its X-Request-Id and its error body's requestId.
    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(String(40))
    # key_… (an organization's or an agent's key), oag_… (an OAuth grant), pss_… (a
    # platform session), as the Caller's actor_id.
    credential_id: Mapped[str] = mapped_column(String(40))
    credential_kind: Mapped[str] = mapped_column(String(20))
    method: Mapped[str] = mapped_column(String(10))
    path: Mapped[str] = mapped_column(Text)
    status: Mapped[int] = mapped_column(Integer)
    latency_ms: Mapped[float] = mapped_column(Float)
    idempotency_key: Mapped[str | None] = mapped_column(String(255))
    error_code: Mapped[str | None] = mapped_column(String(64))
    error_body: Mapped[dict[str, Any] | None]
    created_at: Mapped[datetime] = mapped_column(index=True)
