"""Queries of agents, their keys and their spend, filtered to what the caller may see."""

from __future__ import annotations

from sqlalchemy import Select, and_, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.agents.spend import UNCOUNTED_STATUSES, Span, Usage
from corridor.auth.callers import Caller
from corridor.kit.db import lock_rows
from corridor.models.access import ApiKey
from corridor.models.signing import AgentSigningKey
from corridor.models.transfer import Agent, Transfer

AGENT_KEY_KIND = "AGENT"


def visible_agents(caller: Caller, *, customer_id: str | None = None) -> Select[Agent]:
    """The organization's agents (only `customer_id`'s when given); a caller bound to a
    customer sees that customer's; an agent key sees only its own agent."""
    statement = select(Agent).where(Agent.organization_id == caller.organization_id)
    if customer_id is not None:
        statement = statement.where(Agent.customer_id == customer_id)
    if caller.customer_id is not None:
        statement = statement.where(Agent.customer_id == caller.customer_id)
    if caller.agent_id is not None:
        statement = statement.where(Agent.id == caller.agent_id)
    return statement


async def lock_agent(session: AsyncSession, agent_id: str) -> Agent | None:
    """The agent row, locked until the transaction ends (SQLite: BEGIN IMMEDIATE already
    serialises writers), so spend checks and submits of one agent run one at a time."""
    found = await lock_rows(session, Agent, [agent_id])
    return found[0] if found else None


async def agent_by_id(session: AsyncSession, agent_id: str) -> Agent | None:
    return await session.get(Agent, agent_id)


def keys_of(agent_id: str) -> Select[ApiKey]:
    return select(ApiKey).where(ApiKey.kind == AGENT_KEY_KIND, ApiKey.agent_id == agent_id)


async def live_keys_of(session: AsyncSession, agent_id: str) -> list[ApiKey]:
    statement = keys_of(agent_id).where(ApiKey.revoked_at.is_(None))
    return list((await session.execute(statement)).scalars())


async def usage(
    session: AsyncSession, *, agent_id: str, currency: str, day: Span, month: Span
) -> Usage:
    """Sums of the agent's submitted transfers in the day and the month windows (the day
    lies inside the month), in one query."""
    assert month.start <= day.start and day.end <= month.end
    in_day = and_(Transfer.submitted_at >= day.start, Transfer.submitted_at < day.end)
    statement = select(
        func.coalesce(func.sum(case((in_day, Transfer.source_amount), else_=0)), 0),
        func.coalesce(func.sum(Transfer.source_amount), 0),
    ).where(
        Transfer.agent_id == agent_id,
        Transfer.source_currency == currency,
        Transfer.status.not_in(sorted(UNCOUNTED_STATUSES)),
        Transfer.submitted_at.is_not(None),
        Transfer.submitted_at >= month.start,
        Transfer.submitted_at < month.end,
    )
    day_minor, month_minor = (await session.execute(statement)).one()
    return Usage(day_minor=int(day_minor), month_minor=int(month_minor))


def signing_keys_of(agent_id: str) -> Select[AgentSigningKey]:
    return select(AgentSigningKey).where(AgentSigningKey.agent_id == agent_id)


async def signing_key_with_id(session: AsyncSession, key_id: str) -> AgentSigningKey | None:
    statement = select(AgentSigningKey).where(AgentSigningKey.key_id == key_id)
    return (await session.execute(statement)).scalar_one_or_none()
