"""Every query of OAuth: clients, authorization requests, grants and tokens, by id or by the
hash of the secret that names them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import Select, delete, exists, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.db import affected_rows, for_update
from corridor.kit.ids import looks_like_id
from corridor.models.oauth import OAuthAuthorization, OAuthClient, OAuthGrant, OAuthToken
from corridor.models.organization import Organization
from corridor.models.signing import AgentSigningKey
from corridor.models.transfer import Agent

# agents/rules.py AgentStatus: the statuses a grant may act as, and the one that ends it.
AGENT_ACTIVE = "ACTIVE"
AGENT_REVOKED = "REVOKED"
agents_offered_max = 100


async def client_by_id(session: AsyncSession, client_id: str) -> OAuthClient | None:
    if not looks_like_id(client_id, "ocl"):
        return None
    return await session.get(OAuthClient, client_id)


async def client_by_metadata_url(
    session: AsyncSession, url: str, *, locked: bool = False
) -> OAuthClient | None:
    """The client whose client_id is this metadata document URL (compared as a string)."""
    statement = select(OAuthClient).where(OAuthClient.metadata_url == url)
    if locked:
        statement = for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()


async def add_client_once(session: AsyncSession, client: OAuthClient) -> OAuthClient:
    """Add a metadata document client, or, when a concurrent request added the same URL
    first, that one (the unique index decides; the loser's savepoint is rolled back)."""
    try:
        async with session.begin_nested():
            session.add(client)
            await session.flush()
        return client
    except IntegrityError:
        assert client.metadata_url is not None
        found = await client_by_metadata_url(session, client.metadata_url, locked=True)
        if found is None:
            raise
        return found


async def authorization_by_id(
    session: AsyncSession, authorization_id: str, *, locked: bool = False
) -> OAuthAuthorization | None:
    if not looks_like_id(authorization_id, "oar"):
        return None
    statement = select(OAuthAuthorization).where(OAuthAuthorization.id == authorization_id)
    if locked:
        statement = for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()


async def authorization_by_code_hash(
    session: AsyncSession, code_hash: str
) -> OAuthAuthorization | None:
    statement = select(OAuthAuthorization).where(OAuthAuthorization.code_hash == code_hash)
    return (await session.execute(for_update(session, statement))).scalar_one_or_none()


async def token_by_hash(
    session: AsyncSession, token_hash: str, *, locked: bool = False
) -> OAuthToken | None:
    statement = select(OAuthToken).where(OAuthToken.token_hash == token_hash)
    if locked:
        statement = for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()


async def access_token_with_grant(
    session: AsyncSession, token_hash: str
) -> tuple[OAuthToken, OAuthGrant, Organization] | None:
    """An access token, its grant and the grant's organization, in one statement."""
    statement = (
        select(OAuthToken, OAuthGrant, Organization)
        .join(OAuthGrant, OAuthGrant.id == OAuthToken.grant_id)
        .join(Organization, Organization.id == OAuthGrant.organization_id)
        .where(OAuthToken.token_hash == token_hash, OAuthToken.kind == "ACCESS")
    )
    found = (await session.execute(statement)).one_or_none()
    return None if found is None else (found[0], found[1], found[2])


async def grant_by_id(
    session: AsyncSession, grant_id: str, *, locked: bool = False
) -> OAuthGrant | None:
    statement = select(OAuthGrant).where(OAuthGrant.id == grant_id)
    if locked:
        statement = for_update(session, statement)
    return (await session.execute(statement)).scalar_one_or_none()


def grants_of(organization_id: str) -> Select[OAuthGrant]:
    return select(OAuthGrant).where(OAuthGrant.organization_id == organization_id)


async def clients_by_id(session: AsyncSession, ids: Sequence[str]) -> dict[str, OAuthClient]:
    if not ids:
        return {}
    statement = select(OAuthClient).where(OAuthClient.id.in_(sorted(set(ids))))
    return {client.id: client for client in (await session.execute(statement)).scalars()}


async def agents_offered(session: AsyncSession, organization_id: str) -> list[Agent]:
    """The organization's agents a grant may act as (not revoked), newest first."""
    statement = (
        select(Agent)
        .where(Agent.organization_id == organization_id, Agent.status != AGENT_REVOKED)
        .order_by(Agent.id.desc())
        .limit(agents_offered_max)
    )
    return list((await session.execute(statement)).scalars())


async def agent_of(session: AsyncSession, organization_id: str, agent_id: str) -> Agent | None:
    if not looks_like_id(agent_id, "agt"):
        return None
    statement = select(Agent).where(Agent.id == agent_id, Agent.organization_id == organization_id)
    return (await session.execute(statement)).scalar_one_or_none()


async def agents_that_sign(session: AsyncSession, agent_ids: Sequence[str]) -> set[str]:
    """Of these agents, those with a live signing key (their requests must be signed)."""
    if not agent_ids:
        return set()
    statement = (
        select(AgentSigningKey.agent_id)
        .where(
            AgentSigningKey.agent_id.in_(sorted(set(agent_ids))),
            AgentSigningKey.revoked_at.is_(None),
        )
        .distinct()
    )
    return set((await session.execute(statement)).scalars())


async def delete_expired(session: AsyncSession, now: datetime, *, batch_max: int) -> None:
    """Forget a bounded batch of what has lapsed: tokens past their expiry (a rotated
    refresh token is kept until then, so its reuse is still caught), authorization
    requests past theirs and their code's, and clients that never got a grant."""
    for model in (OAuthToken, OAuthAuthorization):
        lapsed = select(model.id).where(model.expires_at < now).limit(batch_max)
        ids = list((await session.execute(lapsed)).scalars())
        if ids:
            await affected_rows(session, delete(model).where(model.id.in_(ids)))


async def delete_unused_clients(
    session: AsyncSession, now: datetime, *, unused_for_s: int, batch_max: int
) -> None:
    """Registered clients no owner ever granted anything, older than `unused_for_s`."""
    granted = exists().where(OAuthGrant.client_id == OAuthClient.id)
    waiting = exists().where(OAuthAuthorization.client_id == OAuthClient.id)
    statement = (
        select(OAuthClient.id)
        .where(
            OAuthClient.created_at < now - timedelta(seconds=unused_for_s),
            ~granted,
            ~waiting,
        )
        .limit(batch_max)
    )
    ids = list((await session.execute(statement)).scalars())
    if ids:
        await affected_rows(session, delete(OAuthClient).where(OAuthClient.id.in_(ids)))
