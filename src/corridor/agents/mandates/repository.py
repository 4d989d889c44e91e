"""Queries of agent mandates: what a caller sees, an agent's mandates, and the one guarded
UPDATE a consumption is."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Select, and_, case, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.agents.mandates.rules import MandateStatus, Recurrence
from corridor.agents.repository import visible_agents
from corridor.auth.callers import Caller
from corridor.kit.clock import Moments
from corridor.kit.db import due, for_update, known_absent
from corridor.models.mandate import AgentMandate
from corridor.models.transfer import Agent


def visible_mandates(caller: Caller, *, agent_id: str | None = None) -> Select[AgentMandate]:
    """The mandates of the agents the caller sees (an agent key: its own agent's)."""
    agents = visible_agents(caller).with_only_columns(Agent.id).scalar_subquery()
    statement = select(AgentMandate).where(
        AgentMandate.organization_id == caller.organization_id,
        AgentMandate.agent_id.in_(agents),
    )
    if agent_id is not None:
        statement = statement.where(AgentMandate.agent_id == agent_id)
    return statement


async def mandates_of(session: AsyncSession, agent_id: str) -> list[AgentMandate]:
    """Every mandate of the agent not final for good (ACTIVE or EXHAUSTED-by-row, EXPIRED
    and REVOKED included: a payment they would have admitted is told why), by id. None,
    without a query, when this unit of work's key read found the agent had none."""
    if known_absent(session, AgentMandate.__tablename__, agent_id):
        return []
    statement = (
        select(AgentMandate)
        .where(AgentMandate.agent_id == agent_id)
        .order_by(AgentMandate.id)
        .execution_options(populate_existing=True)
    )
    return list((await session.execute(statement)).scalars())


async def mandate_by_id(session: AsyncSession, mandate_id: str) -> AgentMandate | None:
    statement = (
        select(AgentMandate)
        .where(AgentMandate.id == mandate_id)
        .execution_options(populate_existing=True)
    )
    return (await session.execute(statement)).scalar_one_or_none()


async def consume(
    session: AsyncSession,
    *,
    mandate_id: str,
    amount: int,
    period_start: datetime,
    now: datetime,
) -> tuple[int, int, str] | None:
    """Add one use of `amount` to the mandate, all in the statement's own guard: ACTIVE, in
    its window, within the per-payment maximum, a use left, and the budget of the period
    that starts at `period_start` (a later period than the row's starts again from 0).
    EXHAUSTED in the same write when its uses or its non-recurring budget run out.
    (used, uses, status) after, or None when the guard refused (nothing written).
    PostgreSQL re-reads the guard on the row a concurrent consumption committed, so any
    number of processes never consume past the budget or the uses together."""
    table = AgentMandate
    new_period = table.period_start < period_start
    used_before = case((new_period, 0), else_=table.used)
    used_after = used_before + amount
    uses_after = table.uses + 1
    exhausted = or_(
        and_(table.max_uses.is_not(None), uses_after >= table.max_uses),
        and_(table.budget_recurrence == Recurrence.NONE.value, used_after >= table.budget_amount),
    )
    values: dict[str, Any] = {
        "used": used_after,
        "uses": uses_after,
        "period_start": case((new_period, period_start), else_=table.period_start),
        "status": case(
            (exhausted, MandateStatus.EXHAUSTED.value), else_=MandateStatus.ACTIVE.value
        ),
        "version": table.version + 1,
        "updated_at": now,
    }
    statement = (
        update(table)
        .where(
            table.id == mandate_id,
            table.status == MandateStatus.ACTIVE.value,
            table.not_before <= now,
            table.not_after > now,
            table.max_per_payment >= amount,
            or_(table.max_uses.is_(None), table.uses < table.max_uses),
            used_before + amount <= table.budget_amount,
        )
        .values(values)
        .returning(table.used, table.uses, table.status)
        .execution_options(synchronize_session=False)
    )
    row = (await session.execute(statement)).first()
    return None if row is None else (row[0], row[1], row[2])


def _past_their_window(now: Moments) -> Select[AgentMandate]:
    return select(AgentMandate).where(
        AgentMandate.status == MandateStatus.ACTIVE.value,
        due(AgentMandate.not_after, AgentMandate.organization_id, now),
    )


async def any_past_their_window(session: AsyncSession, *, now: Moments) -> bool:
    """Whether an ACTIVE mandate's notAfter passed (each organization's moment)."""
    statement = _past_their_window(now).with_only_columns(AgentMandate.id).limit(1)
    return (await session.execute(statement)).first() is not None


async def claim_past_their_window(
    session: AsyncSession, *, now: Moments, limit: int
) -> list[AgentMandate]:
    """Up to `limit` ACTIVE mandates past notAfter, locked (skipping the ones another
    worker holds) until the transaction ends."""
    statement = _past_their_window(now).order_by(AgentMandate.not_after, AgentMandate.id)
    statement = for_update(session, statement.limit(limit), skip_locked=True)
    return list((await session.execute(statement)).scalars())


async def expire(session: AsyncSession, *, mandate_id: str, now: datetime) -> bool:
    """ACTIVE or EXHAUSTED past notAfter → EXPIRED, once (whether this call did it)."""
    statement = (
        update(AgentMandate)
        .where(
            AgentMandate.id == mandate_id,
            AgentMandate.status == MandateStatus.ACTIVE.value,
            AgentMandate.not_after <= now,
        )
        .values(
            status=MandateStatus.EXPIRED.value,
            deactivated_reason="notAfter passed",
            version=AgentMandate.version + 1,
            updated_at=now,
        )
        .returning(AgentMandate.id)
        .execution_options(synchronize_session=False)
    )
    return (await session.execute(statement)).first() is not None


async def due_to_expire(session: AsyncSession, *, now: datetime, limit: int) -> list[AgentMandate]:
    statement = (
        select(AgentMandate)
        .where(AgentMandate.status == MandateStatus.ACTIVE.value, AgentMandate.not_after <= now)
        .order_by(AgentMandate.id)
        .limit(limit)
    )
    return list((await session.execute(statement)).scalars())
