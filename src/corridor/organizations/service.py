"""Organizations: create, read and configure; the first organization with its owner."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth import service as auth_service
from corridor.auth.callers import Caller
from corridor.auth.scopes import UNRESTRICTED, Scope
from corridor.auth.secrets import random_token
from corridor.kit.db import get_visible
from corridor.kit.errors import NotFound
from corridor.kit.ids import new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.access import ApiKey, ConsoleUser
from corridor.models.event import emit
from corridor.models.organization import Organization
from corridor.organizations import configuration as rules
from corridor.organizations import repository
from corridor.organizations.configuration import Configuration
from corridor.organizations.errors import OrganizationsTooDeep
from corridor.organizations.schemas import ConfigurationRead, OrganizationRead

READ_SCOPE = Scope.ORGANIZATIONS_READ
WRITE_SCOPE = Scope.ORGANIZATIONS_WRITE

DEFAULT_CONFIGURATION: Mapping[str, Any] = rules.DEFAULT_DOCUMENT


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
        configuration=rules.to_document(Configuration()),
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
        data=_organization_data(organization),
        tags=[organization.id],
        at=now,
    )
    return Bootstrapped(
        organization=organization, user=user, console_password=password, key=key, secret=secret
    )


async def all_organizations(session: AsyncSession, *, limit: int) -> list[Organization]:
    """Every organization the database holds, oldest first: for whoever runs the server
    (`corridor orgs list`), never for an API caller, who sees its own tree only."""
    return await repository.organizations_listed(session, limit=limit)


async def any_organization_exists(session: AsyncSession) -> bool:
    return await repository.count_organizations(session) > 0


# --- Reading and changing organizations ---------------------------------------------------


def _organization_data(organization: Organization) -> dict[str, Any]:
    return OrganizationRead.model_validate(organization).to_json_dict()


def configuration_of(organization: Organization) -> Configuration:
    return rules.from_document(organization.configuration)


async def get_organization(session: AsyncSession, *, organization_id: str) -> Organization:
    organization = await repository.organization_by_id(session, organization_id)
    if organization is None:
        raise NotFound("organization", organization_id)
    return organization


async def current_organization(session: AsyncSession, *, caller: Caller) -> Organization:
    caller.require_scope(READ_SCOPE)
    return await get_organization(session, organization_id=caller.organization_id)


async def current_configuration(session: AsyncSession, *, caller: Caller) -> Configuration:
    return configuration_of(await current_organization(session, caller=caller))


async def _locked_organization(session: AsyncSession, organization_id: str) -> Organization:
    organization = await repository.lock_organization(session, organization_id)
    if organization is None:
        raise NotFound("organization", organization_id)
    return organization


async def update_organization(
    session: AsyncSession, *, caller: Caller, name: str | None, now: datetime
) -> Organization:
    """Rename the caller's organization; an update that changes nothing emits no event."""
    caller.require_scope(WRITE_SCOPE)
    organization = await _locked_organization(session, caller.organization_id)
    if name is None or name == organization.name:
        return organization
    organization.name = name
    organization.updated_at = now
    await session.flush()
    emit(
        session,
        organization_id=organization.id,
        event_type="organization.updated",
        data=_organization_data(organization),
        tags=[organization.id],
        at=now,
    )
    return organization


async def update_configuration(
    session: AsyncSession,
    *,
    caller: Caller,
    changes: Mapping[str, Any],
    now: datetime,
) -> Configuration:
    """Merge `changes` (fields of `Configuration`) into the caller's organization's."""
    caller.require_scope(WRITE_SCOPE)
    organization = await _locked_organization(session, caller.organization_id)
    current = configuration_of(organization)
    updated = replace(current, **changes)
    if updated == current:
        return current
    if updated.transfer_authorization_threshold != current.transfer_authorization_threshold:
        # The threshold decides which transfers need a second person: a restricted key
        # (one leaked service credential) must not be able to lift it.
        caller.require_unrestricted("change the transfer authorization threshold")
    if updated.requests_per_second_per_key != current.requests_per_second_per_key:
        # The rate limit guards against a runaway or stolen key: only an owner moves it.
        caller.require_unrestricted("change the requests per second per key")
    # A new dict, not a mutation: the JSON column only notices reassignment.
    organization.configuration = rules.to_document(updated)
    organization.updated_at = now
    await session.flush()
    emit(
        session,
        organization_id=organization.id,
        event_type="organization.configuration_updated",
        data=ConfigurationRead.of(updated).to_json_dict(),
        tags=[organization.id],
        at=now,
    )
    return updated


@dataclass(frozen=True, slots=True)
class ChildCreated:
    organization: Organization
    # The child's first unrestricted key and its secret, when asked for.
    key: ApiKey | None = None
    secret: str | None = None


async def create_child_organization(
    session: AsyncSession,
    *,
    caller: Caller,
    name: str,
    kind: str,
    create_api_key: bool = False,
    key_environment: str,
    now: datetime,
) -> ChildCreated:
    """A new organization below the caller's, with the default configuration, and its
    first unrestricted key when asked (so the child can be used at once)."""
    caller.require_unrestricted("create organizations")
    parent_id = caller.organization_id
    if await repository.depth_of(session, parent_id) >= repository.organization_depth_max:
        raise OrganizationsTooDeep(repository.organization_depth_max)
    child = await create_organization(session, name=name, kind=kind, parent_id=parent_id, now=now)
    emit(
        session,
        organization_id=parent_id,
        event_type="organization.created",
        data=_organization_data(child),
        tags=[child.id, parent_id],
        at=now,
    )
    if not create_api_key:
        return ChildCreated(child)
    key, secret = await auth_service.create_organization_key(
        session,
        organization_id=child.id,
        name="First key",
        scopes=frozenset({UNRESTRICTED}),
        key_environment=key_environment,
        created_by=caller.actor_id,
        now=now,
    )
    return ChildCreated(child, key, secret)


async def list_organizations_in_scope(
    session: AsyncSession, *, caller: Caller, page: PageRequest
) -> Page[Organization]:
    """The caller's organization and its descendants, newest first."""
    caller.require_scope(READ_SCOPE)
    statement = repository.organizations_in_scope(caller.organization_id)
    return await fetch_page(session, statement, Organization.id, page)


async def get_organization_in_scope(
    session: AsyncSession, *, caller: Caller, organization_id: str
) -> Organization:
    """The caller's organization or a descendant; any other id is not found."""
    caller.require_scope(READ_SCOPE)
    visible = repository.organizations_in_scope(caller.organization_id)
    return await get_visible(session, visible, organization_id)
