"""Agents' request-signing keys (RFC 9421, API.md 9): an owner binds public keys to an
agent; from then on every request of its agent keys must be signed (auth/signatures.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.agents import repository
from corridor.agents.service import get_agent
from corridor.auth.callers import Caller
from corridor.auth.signatures import public_key_of
from corridor.kit.db import get_visible
from corridor.kit.errors import Conflict
from corridor.kit.ids import new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.signing import AgentSigningKey

signing_keys_per_agent_max = 10


async def add_signing_key(
    session: AsyncSession, *, caller: Caller, agent_id: str, jwk: Any, now: datetime
) -> AgentSigningKey:
    """POST /v1/agents/{agentId}/signing-keys (owner only: console session or unrestricted
    key). An Ed25519 or P-256 public JWK; its RFC 7638 thumbprint is the `keyid`."""
    caller.require_unrestricted("bind signing keys to an agent")
    agent = await get_agent(session, caller=caller, agent_id=agent_id)
    public = public_key_of(jwk)
    if await repository.signing_key_with_id(session, public.key_id) is not None:
        raise Conflict(f"The key {public.key_id} is bound already")
    held = await fetch_page(
        session,
        repository.live_signing_keys_of(agent.id),
        AgentSigningKey.id,
        PageRequest.checked(limit=signing_keys_per_agent_max, cursor=None),
    )
    if len(held.items) >= signing_keys_per_agent_max:
        raise Conflict(f"An agent holds at most {signing_keys_per_agent_max} signing keys")
    row = AgentSigningKey(
        id=new_id("sgk"),
        organization_id=agent.organization_id,
        agent_id=agent.id,
        key_id=public.key_id,
        algorithm=public.algorithm,
        public_key_jwk=public.jwk,
        created_at=now,
        revoked_at=None,
    )
    session.add(row)
    await session.flush()
    return row


async def list_signing_keys(
    session: AsyncSession, *, caller: Caller, agent_id: str, page: PageRequest
) -> Page[AgentSigningKey]:
    agent = await get_agent(session, caller=caller, agent_id=agent_id)
    return await fetch_page(session, repository.signing_keys_of(agent.id), AgentSigningKey.id, page)


async def revoke_signing_key(
    session: AsyncSession, *, caller: Caller, agent_id: str, signing_key_id: str, now: datetime
) -> AgentSigningKey:
    """Its signatures are refused from now on; with no key left, the agent's requests need
    no signature again."""
    caller.require_unrestricted("revoke an agent's signing keys")
    agent = await get_agent(session, caller=caller, agent_id=agent_id)
    row = await get_visible(
        session, repository.signing_keys_of(agent.id), signing_key_id, locked=True
    )
    if row.revoked_at is None:
        row.revoked_at = now
    return row
