"""Queries for users, sessions and keys."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Select, bindparam, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.kit.db import get_kept, keep, known_absent, note_absent
from corridor.kit.prepared import PreparedRead, RowShape
from corridor.models.access import ApiKey, ConsoleSession, ConsoleUser, PlatformSession
from corridor.models.clock import SandboxClock, note_shift
from corridor.models.customer import Customer
from corridor.models.mandate import AgentMandate
from corridor.models.organization import Organization
from corridor.models.signing import AgentSigningKey, SignatureNonce
from corridor.models.transfer import Agent

# What the key's read found an agent without, noted for the rest of the unit of work by
# table (kit.db.note_absent): live signing keys (its requests are not signed, so no second
# read asks) and mandates (agents.mandates.repository.mandates_of needs no query).
SIGNING_KEYS = AgentSigningKey.__tablename__
MANDATES = AgentMandate.__tablename__

# The one agent status that ends authentication (agents/rules.py AgentStatus.REVOKED).
AGENT_REVOKED = "REVOKED"


_KEY_ROW = RowShape(ApiKey)
_ORGANIZATION_ROW = RowShape(Organization)
_AGENT_ROW = RowShape(Agent)
_CLOCK_ROW = RowShape(SandboxClock)
_ROWS = (_KEY_ROW, _ORGANIZATION_ROW, _AGENT_ROW, _CLOCK_ROW)


def _key_read() -> PreparedRead:
    """The statement of `key_by_secret_hash`, built once (a bound `secret_hash`)."""
    signs = (
        select(AgentSigningKey.id)
        .where(AgentSigningKey.agent_id == ApiKey.agent_id, AgentSigningKey.revoked_at.is_(None))
        .exists()
    )
    mandated = select(AgentMandate.id).where(AgentMandate.agent_id == ApiKey.agent_id).exists()
    statement = (
        select(*(column for shape in _ROWS for column in shape.columns), signs, mandated)
        .select_from(ApiKey)
        .join(Organization, Organization.id == ApiKey.organization_id)
        .outerjoin(
            Agent,
            (Agent.id == ApiKey.agent_id)
            & (Agent.organization_id == ApiKey.organization_id)
            & (Agent.status != AGENT_REVOKED),
        )
        .outerjoin(SandboxClock, SandboxClock.organization_id == ApiKey.organization_id)
        .where(ApiKey.secret_hash == bindparam("secret_hash"))
    )
    return PreparedRead(statement)


_KEY_READ = _key_read()


async def key_by_secret_hash(session: AsyncSession, secret_hash: str) -> ApiKey | None:
    """The key with what authenticating it and the request's context read next, in one
    round trip (on the driver, `kit.prepared`): its organization, the live agent an agent
    key speaks for, and the organization's sandbox clock (`models.clock.note_shift`;
    absent when never moved), and whether that agent has a live signing key and any
    mandate (what it lacks is noted for the unit of work: SIGNING_KEYS, MANDATES). The
    rows are the unit of work's own; the organization and the agent are kept for the rest
    of it (`get_kept`), so the later reads of them (the caller's configuration, the
    agent's spend guard) are free."""
    rows = await _KEY_READ.rows(session, {"secret_hash": secret_hash})
    if not rows:
        return None
    row = rows[0]
    start = 0
    found: list[Any] = []
    for shape in _ROWS:
        found.append(shape.load(session, row, start))
        start += shape.width
    key, organization, agent, clock = found
    agent_signs, agent_mandated = row[start], row[start + 1]
    keep(session, organization)
    if agent is not None:
        keep(session, agent)
        if not agent_signs:
            note_absent(session, SIGNING_KEYS, agent.id)
        if not agent_mandated:
            note_absent(session, MANDATES, agent.id)
    note_shift(session, key.organization_id, clock)
    return cast(ApiKey, key)


async def session_by_token_hash(session: AsyncSession, token_hash: str) -> ConsoleSession | None:
    statement = select(ConsoleSession).where(ConsoleSession.token_hash == token_hash)
    return (await session.execute(statement)).scalar_one_or_none()


async def user_by_email(session: AsyncSession, email: str) -> ConsoleUser | None:
    statement = select(ConsoleUser).where(ConsoleUser.email == email.lower())
    return (await session.execute(statement)).scalar_one_or_none()


async def console_users_of(session: AsyncSession, organization_id: str) -> list[ConsoleUser]:
    statement = (
        select(ConsoleUser)
        .where(ConsoleUser.organization_id == organization_id)
        .order_by(ConsoleUser.id)
    )
    return list((await session.execute(statement)).scalars())


async def end_sessions_of(session: AsyncSession, user_id: str, *, now: datetime) -> int:
    """Revoke the user's console sessions still open; how many were."""
    statement = (
        update(ConsoleSession)
        .where(
            ConsoleSession.user_id == user_id,
            ConsoleSession.revoked_at.is_(None),
            ConsoleSession.expires_at > now,
        )
        .values(revoked_at=now)
    )
    result = await session.execute(statement)
    return int(getattr(result, "rowcount", 0) or 0)


async def user_by_id(session: AsyncSession, user_id: str) -> ConsoleUser | None:
    return await session.get(ConsoleUser, user_id)


async def organization_by_id(session: AsyncSession, organization_id: str) -> Organization | None:
    return await get_kept(session, Organization, organization_id)


def keys_of(organization_id: str) -> Select[ApiKey]:
    """Every key of the organization, its own and its agents'."""
    return select(ApiKey).where(ApiKey.organization_id == organization_id)


def organization_keys(organization_id: str) -> Select[ApiKey]:
    return select(ApiKey).where(
        ApiKey.organization_id == organization_id, ApiKey.kind == "ORGANIZATION"
    )


async def organization_keys_newest_first(
    session: AsyncSession, organization_id: str
) -> list[ApiKey]:
    """Every organization key, revoked ones too (`corridor keys list`)."""
    statement = organization_keys(organization_id).order_by(ApiKey.id.desc())
    return list((await session.execute(statement)).scalars())


async def live_agent_of_key(session: AsyncSession, key: ApiKey) -> Agent | None:
    """The agent an agent key speaks for, unless it is revoked or of another organization
    (read with the key by `key_by_secret_hash`, so no round trip of its own)."""
    if key.agent_id is None:
        return None
    agent = await get_kept(session, Agent, key.agent_id)
    if agent is None or agent.organization_id != key.organization_id:
        return None
    return None if agent.status == AGENT_REVOKED else agent


def customers_of(organization_id: str) -> Select[Customer]:
    return select(Customer).where(Customer.organization_id == organization_id)


async def platform_session_by_token_hash(
    session: AsyncSession, token_hash: str
) -> PlatformSession | None:
    statement = select(PlatformSession).where(PlatformSession.token_hash == token_hash)
    return (await session.execute(statement)).scalar_one_or_none()


async def key_by_id(session: AsyncSession, key_id: str) -> ApiKey | None:
    return await session.get(ApiKey, key_id)


async def is_below(
    session: AsyncSession, *, organization_id: str, ancestor_id: str, depth_max: int
) -> bool:
    """Whether `ancestor_id` is a parent, grandparent, … of `organization_id` (at most
    `depth_max` levels up)."""
    current = await session.get(Organization, organization_id)
    for _ in range(depth_max):
        if current is None or current.parent_id is None:
            return False
        if current.parent_id == ancestor_id:
            return True
        current = await session.get(Organization, current.parent_id)
    return False


async def live_signing_keys(session: AsyncSession, agent_id: str) -> list[AgentSigningKey]:
    """The agent's live signing keys; none, without a query, for an agent its key's read
    (`key_by_secret_hash`, in this unit of work) found without any."""
    if known_absent(session, SIGNING_KEYS, agent_id):
        return []
    statement = select(AgentSigningKey).where(
        AgentSigningKey.agent_id == agent_id, AgentSigningKey.revoked_at.is_(None)
    )
    return list((await session.execute(statement)).scalars())


async def prune_nonces(session: AsyncSession, *, lapsed_before: datetime, limit: int) -> None:
    """Delete up to `limit` signature nonces that lapsed before `lapsed_before`."""
    lapsed = select(SignatureNonce.id).where(SignatureNonce.expires_at < lapsed_before).limit(limit)
    ids = list((await session.execute(lapsed)).scalars())
    if ids:
        await session.execute(delete(SignatureNonce).where(SignatureNonce.id.in_(ids)))
