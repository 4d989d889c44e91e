"""Queries of agents, their keys and their spend, filtered to what the caller may see."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller
from corridor.kit.db import is_sqlite
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
    serialises writers), so an owner's decisions on one agent run one at a time. FOR NO
    KEY UPDATE: a submit adding a new spend window (whose foreign key takes a KEY SHARE
    lock on this row) while it holds another window never waits on it, so a decision and
    the agent's own submits cannot deadlock."""
    statement = select(Agent).where(Agent.id == agent_id)
    if not is_sqlite(session):
        statement = statement.with_for_update(key_share=True)
    statement = statement.execution_options(populate_existing=True)
    return (await session.execute(statement)).scalar_one_or_none()


async def agent_by_id(session: AsyncSession, agent_id: str) -> Agent | None:
    return await session.get(Agent, agent_id)


def keys_of(agent_id: str) -> Select[ApiKey]:
    return select(ApiKey).where(ApiKey.kind == AGENT_KEY_KIND, ApiKey.agent_id == agent_id)


async def agent_key_names(
    session: AsyncSession, caller: Caller, *, limit: int
) -> list[tuple[str, str, str, str]]:
    """(key id, key name, key prefix, agent name) of the keys of the agents the caller
    sees, revoked ones too (they still name who did something), the first `limit` by id."""
    agents = visible_agents(caller).subquery()
    statement = (
        select(ApiKey.id, ApiKey.name, ApiKey.prefix, agents.c.name)
        .join(agents, agents.c.id == ApiKey.agent_id)
        .where(ApiKey.kind == AGENT_KEY_KIND, ApiKey.organization_id == caller.organization_id)
        .order_by(ApiKey.id)
        .limit(limit)
    )
    return [(row[0], row[1], row[2], row[3]) for row in await session.execute(statement)]


async def live_keys_of(session: AsyncSession, agent_id: str) -> list[ApiKey]:
    statement = keys_of(agent_id).where(ApiKey.revoked_at.is_(None))
    return list((await session.execute(statement)).scalars())


def signing_keys_of(agent_id: str) -> Select[AgentSigningKey]:
    return select(AgentSigningKey).where(AgentSigningKey.agent_id == agent_id)


def live_signing_keys_of(agent_id: str) -> Select[AgentSigningKey]:
    """The agent's signing keys not revoked."""
    return signing_keys_of(agent_id).where(AgentSigningKey.revoked_at.is_(None))


async def signing_key_with_id(session: AsyncSession, key_id: str) -> AgentSigningKey | None:
    statement = select(AgentSigningKey).where(AgentSigningKey.key_id == key_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def agent_paid_payee(
    session: AsyncSession,
    *,
    agent_id: str,
    payee_id: str,
    uncounted_statuses: Sequence[str],
    other_than: str,
) -> bool:
    """Whether another transfer of the agent to the payee was submitted and is not in one
    of `uncounted_statuses` (one probe of ix_transfers_agent_id_agent_payee_id)."""
    statement = (
        select(Transfer.id)
        .where(
            Transfer.agent_id == agent_id,
            Transfer.agent_payee_id == payee_id,
            Transfer.submitted_at.is_not(None),
            Transfer.status.not_in(list(uncounted_statuses)),
            Transfer.id != other_than,
        )
        .limit(1)
    )
    return (await session.execute(statement)).first() is not None
