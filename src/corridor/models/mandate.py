"""Agent mandates (`mdt_`, issue 25): what an owner authorised one agent to pay, to whom,
how much per payment and per budget period, how often and when."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from corridor.models.base import Base, id_column


class AgentMandate(Base):
    """Amounts are minor units of `currency` (the agent's). `payees` is a list of
    `{"type": counterparty|external_account|external_wallet, "id"}` or
    `{"type": "address", "address"}`. `used` is what was consumed in the budget period
    that starts at `period_start` (for NONE, the whole life of the mandate); `uses` counts
    every consumption. status: ACTIVE | EXHAUSTED | EXPIRED | REVOKED (the last three
    final). A consumption is one guarded UPDATE (agents/mandates/repository.py)."""

    __tablename__ = "agent_mandates"
    id_prefix, resource_name = "mdt", "mandate"
    __table_args__ = (Index("ix_agent_mandates_agent_id_id", "agent_id", "id"),)

    id: Mapped[str] = id_column()
    organization_id: Mapped[str] = mapped_column(ForeignKey("organizations.id"), index=True)
    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id"))
    currency: Mapped[str] = mapped_column(String(10))
    payees: Mapped[list[Any]] = mapped_column(default=list)
    max_per_payment: Mapped[int] = mapped_column(BigInteger)
    budget_amount: Mapped[int] = mapped_column(BigInteger)
    budget_recurrence: Mapped[str] = mapped_column(String(10))
    max_uses: Mapped[int | None] = mapped_column(Integer)
    uses: Mapped[int] = mapped_column(Integer, default=0)
    used: Mapped[int] = mapped_column(BigInteger, default=0)
    period_start: Mapped[datetime]
    not_before: Mapped[datetime]
    not_after: Mapped[datetime]
    purpose: Mapped[str] = mapped_column(String(500))
    status: Mapped[str] = mapped_column(String(12))
    deactivated_reason: Mapped[str | None] = mapped_column(String(500))
    created_by: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    version: Mapped[int] = mapped_column(Integer, default=1)
