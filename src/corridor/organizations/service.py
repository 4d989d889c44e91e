"""Organizations: create, read and configure; the first organization with its owner."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth import service as auth_service
from corridor.auth.scopes import UNRESTRICTED
from corridor.auth.secrets import random_token
from corridor.kit.ids import new_id
from corridor.kit.outbox import emit
from corridor.models.access import ApiKey, ConsoleUser
from corridor.models.organization import Organization
from corridor.organizations import repository

DEFAULT_CONFIGURATION: dict[str, Any] = {"accountCurrencies": ["USD", "USDC"]}


async def create_organization(
    session: AsyncSession,
    *,
    name: str,
    kind: str = "STANDARD",
    parent_id: str | None = None,
    now: datetime,
) -> Organization:
    organization = Organization(
        id=new_id("org"),
        name=name,
        kind=kind,
        parent_id=parent_id,
        configuration=dict(DEFAULT_CONFIGURATION),
        created_at=now,
        updated_at=now,
    )
    session.add(organization)
    await session.flush()
    return organization


@dataclass(frozen=True, slots=True)
class Bootstrapped:
    organization: Organization
    user: ConsoleUser
    console_password: str
    key: ApiKey
    secret: str


async def bootstrap_organization(
    session: AsyncSession,
    *,
    name: str,
    key_environment: str,
    now: datetime,
    email: str | None = None,
) -> Bootstrapped:
    """A new organization with a console user and an unrestricted key (`corridor init`)."""
    organization = await create_organization(session, name=name, now=now)
    password = random_token(20)
    user = await auth_service.create_console_user(
        session,
        organization_id=organization.id,
        email=email or f"owner+{organization.id.removeprefix('org_')[-8:]}@sandbox.corridor.dev",
        password=password,
        now=now,
    )
    key, secret = await auth_service.create_organization_key(
        session,
        organization_id=organization.id,
        name="Default sandbox key" if key_environment == "sandbox" else "Default live key",
        scopes=frozenset({UNRESTRICTED}),
        key_environment=key_environment,
        created_by=user.id,
        now=now,
    )
    emit(
        session,
        organization_id=organization.id,
        event_type="organization.created",
        data={"id": organization.id, "name": organization.name},
        tags=[organization.id],
        at=now,
    )
    return Bootstrapped(
        organization=organization, user=user, console_password=password, key=key, secret=secret
    )


async def any_organization_exists(session: AsyncSession) -> bool:
    return await repository.count_organizations(session) > 0
