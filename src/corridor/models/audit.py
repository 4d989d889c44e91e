"""The tamper-evident audit chain (API.md 9, issue 25): one row per agent decision, owner
decision, agent key issued or revoked and write-tool confirmation, per organization in a
chain: `sequence` counts from 1 with no gaps, each row holds the hash of the one before
(`previous_hash`) and its own (`hash`, audit/rules.py). `audit_heads` is the chain's head
per organization. A decision's transaction inserts its record unlinked (`sequence`,
`previous_hash`, `hash` NULL); audit.service.link_pending links them in order, holding the
head's row locked only for its own short transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column, unset_index


class AuditEvent(Base):
    __tablename__ = "audit_events"
    # No foreign keys: a record outlives what it names (mandates live in another table,
    # agents and transfers are never deleted, but the chain must not depend on them).
    __table_args__ = (
        UniqueConstraint("organization_id", "sequence", name="uq_audit_events_sequence"),
        Index("ix_audit_events_agent_id", "organization_id", "agent_id", "sequence"),
        Index("ix_audit_events_transfer_id", "organization_id", "transfer_id", "sequence"),
        # The records still to link, per organization.
        unset_index("ix_audit_events_unlinked", "organization_id", unset="sequence"),
    )
    id_prefix = "aud"
    resource_name = "audit event"

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(String(40))
    sequence: Mapped[int | None] = mapped_column(BigInteger)
    kind: Mapped[str] = mapped_column(String(60))
    agent_id: Mapped[str | None] = mapped_column(String(40))
    transfer_id: Mapped[str | None] = mapped_column(String(40))
    mandate_id: Mapped[str | None] = mapped_column(String(40))
    # Who: {"type": "agent_key" | "organization_key" | "console_user" | "oauth_grant" | …, "id"}.
    actor: Mapped[dict[str, Any]]
    outcome: Mapped[str] = mapped_column(String(40))
    detail: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]
    previous_hash: Mapped[str | None] = mapped_column(String(80))
    hash: Mapped[str | None] = mapped_column(String(80))


class AuditHead(Base):
    """The last record of an organization's chain: its sequence and hash."""

    __tablename__ = "audit_heads"

    organization_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    sequence: Mapped[int] = mapped_column(BigInteger)
    hash: Mapped[str] = mapped_column(String(80))
