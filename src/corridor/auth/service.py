"""Authentication and access: who a credential is, keys, console users and sessions."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth import repository
from corridor.auth.callers import Caller, CallerKind, ToolConfirmation
from corridor.auth.scopes import AGENT_KEY_SCOPES, KNOWN_SCOPES, UNRESTRICTED, Scope, implies
from corridor.auth.secrets import (
    OAUTH_ACCESS_TOKEN_PREFIX,
    console_session_token,
    hash_password,
    hash_secret,
    organization_key_secret,
    random_token,
    same_hash,
    verify_password,
    visible_prefix,
)
from corridor.kit.db import get_visible
from corridor.kit.emails import email_problem
from corridor.kit.errors import (
    Conflict,
    CorridorError,
    Forbidden,
    NotFound,
    Unauthorized,
    ValidationFailed,
)
from corridor.kit.ids import new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.access import ApiKey, ConsoleSession, ConsoleUser, PlatformSession

KEYS_SCOPE = Scope.API_KEYS_MANAGE
ORGANIZATION_KEY_PREFIXES = ("sk_sandbox_", "sk_live_")
PLATFORM_SESSION_PREFIX = "ps_"
credential_chars_max = 200
# A platform session token (spec 5.7, REST) lasts as long as a console session.
platform_session_lifetime_s = 12 * 60 * 60
# Levels below a root organization (organizations/repository.organization_depth_max).
organization_depth_max = 8
# A console password a person chooses (`corridor users add --password-stdin`).
console_password_chars_min = 12


async def authenticate(
    session: AsyncSession, *, credential: str, key_environment: str, now: datetime
) -> Caller:
    """The caller behind a bearer credential, or Unauthorized (never says which part was wrong)."""
    if len(credential) > credential_chars_max:
        raise Unauthorized()
    if credential.startswith("cs_"):
        return await _console_caller(session, credential, now)
    if credential.startswith(PLATFORM_SESSION_PREFIX):
        return await _platform_session_caller(session, credential, now)
    if credential.startswith(OAUTH_ACCESS_TOKEN_PREFIX):
        raise Unauthorized("An OAuth access token is good for the MCP endpoint (/mcp) only")
    check_key_environment(credential, key_environment)
    secret_hash = hash_secret(credential)
    key = await repository.key_by_secret_hash(session, secret_hash)
    if key is None or not is_live_key(key.secret_hash, key.revoked_at, secret_hash):
        raise Unauthorized()
    if key.kind == "AGENT":
        return await agent_key_caller(session, key)
    organization = await repository.organization_by_id(session, key.organization_id)
    assert organization is not None
    return organization_key_caller(
        key_id=key.id,
        organization_id=key.organization_id,
        organization_kind=organization.kind,
        scopes=key.scopes,
        tool_confirmation=ToolConfirmation(key.tool_confirmation),
    )


def check_key_environment(credential: str, key_environment: str) -> None:
    """An API key of this server's environment (a credential of no known kind, or a key
    of the other environment: Unauthorized)."""
    if not credential.startswith(ORGANIZATION_KEY_PREFIXES):
        raise Unauthorized()
    if not credential.startswith(f"sk_{key_environment}_"):
        other = "live" if key_environment == "sandbox" else "sandbox"
        raise Unauthorized(
            f"This is a {other} key; this server runs the {key_environment} environment"
        )


def is_live_key(stored_hash: str, revoked_at: datetime | None, secret_hash: str) -> bool:
    return revoked_at is None and same_hash(stored_hash, secret_hash)


def organization_key_caller(
    *,
    key_id: str,
    organization_id: str,
    organization_kind: str,
    scopes: list[str],
    tool_confirmation: ToolConfirmation = ToolConfirmation.ALWAYS,
) -> Caller:
    """The caller of an organization's own key: a platform's key opens platform sessions."""
    kind = (
        CallerKind.PLATFORM_SESSION
        if organization_kind == "PLATFORM"
        else CallerKind.ORGANIZATION_KEY
    )
    return Caller(
        kind=kind,
        organization_id=organization_id,
        actor_id=key_id,
        scopes=frozenset(scopes),
        tool_confirmation=tool_confirmation,
    )


async def bind_to_customer(session: AsyncSession, *, caller: Caller, customer_id: str) -> Caller:
    """The caller acting for one customer of its organization (X-Corridor-On-Behalf-Of,
    spec 5.7); a caller already bound to another customer cannot switch."""
    if caller.customer_id is not None and caller.customer_id != customer_id:
        raise NotFound("customer", customer_id)
    await get_visible(session, repository.customers_of(caller.organization_id), customer_id)
    return caller.bound_to(customer_id)


async def enter_organization(
    session: AsyncSession, *, caller: Caller, organization_id: str
) -> Caller:
    """The caller acting inside an organization below its own (X-Corridor-Organization): a
    console session or an unrestricted key of a parent reaches its children and their
    children; any other organization is unknown (404)."""
    if organization_id == caller.organization_id:
        return caller
    if not caller.is_unrestricted or caller.customer_id is not None:
        raise Forbidden(
            "Only a console session or an unrestricted organization key may act inside a "
            "child organization"
        )
    if not await repository.is_below(
        session,
        organization_id=organization_id,
        ancestor_id=caller.organization_id,
        depth_max=organization_depth_max,
    ):
        raise NotFound("organization", organization_id)
    return replace(caller, organization_id=organization_id)


async def start_platform_session(
    session: AsyncSession, *, caller: Caller, customer_id: str, now: datetime
) -> tuple[PlatformSession, str]:
    """A `ps_…` token acting as the caller's platform key, bound to the customer (spec 5.7:
    creating a business customer binds the session). The token is returned here only."""
    assert caller.kind is CallerKind.PLATFORM_SESSION and caller.customer_id is None
    token = f"{PLATFORM_SESSION_PREFIX}{random_token()}"
    platform_session = PlatformSession(
        id=new_id("pss"),
        organization_id=caller.organization_id,
        api_key_id=caller.actor_id,
        customer_id=customer_id,
        token_hash=hash_secret(token),
        created_at=now,
        expires_at=now + timedelta(seconds=platform_session_lifetime_s),
        revoked_at=None,
    )
    session.add(platform_session)
    await session.flush()
    return platform_session, token


async def _platform_session_caller(session: AsyncSession, token: str, now: datetime) -> Caller:
    """The platform key behind the session, bound to the session's customer; the session
    ends with the key (revoked) or at its expiry."""
    found = await repository.platform_session_by_token_hash(session, hash_secret(token))
    if found is None or found.revoked_at is not None or found.expires_at <= now:
        raise Unauthorized("Platform session missing, expired or ended")
    key = await repository.key_by_id(session, found.api_key_id)
    if key is None or key.revoked_at is not None:
        raise Unauthorized("Platform session missing, expired or ended")
    return Caller(
        kind=CallerKind.PLATFORM_SESSION,
        organization_id=found.organization_id,
        actor_id=key.id,
        scopes=frozenset(key.scopes),
        customer_id=found.customer_id,
        tool_confirmation=ToolConfirmation(key.tool_confirmation),
    )


async def _console_caller(session: AsyncSession, token: str, now: datetime) -> Caller:
    console_session = await repository.session_by_token_hash(session, hash_secret(token))
    if (
        console_session is None
        or console_session.revoked_at is not None
        or console_session.expires_at <= now
    ):
        raise Unauthorized("Console session missing, expired or signed out")
    return Caller(
        kind=CallerKind.CONSOLE_USER,
        organization_id=console_session.organization_id,
        actor_id=console_session.user_id,
        scopes=frozenset({UNRESTRICTED}),
    )


async def agent_key_caller(session: AsyncSession, key: ApiKey) -> Caller:
    """Spec 5.4: fixed scopes, confined to the agent's customer and funding account (what
    the key authenticates as; `agents.service.sandbox_agent_caller` for the console's test
    payments)."""
    agent = await repository.live_agent_of_key(session, key)
    if agent is None:
        raise Unauthorized()
    return Caller(
        kind=CallerKind.AGENT_KEY,
        organization_id=key.organization_id,
        actor_id=key.id,
        scopes=AGENT_KEY_SCOPES,
        agent_id=agent.id,
        customer_id=agent.customer_id,
        account_ids=frozenset({agent.source_account_id}),
        tool_confirmation=ToolConfirmation(key.tool_confirmation),
    )


# --- API keys -----------------------------------------------------------------------------


def check_requested_scopes(caller: Caller, scopes: list[str]) -> frozenset[str]:
    requested = frozenset(scopes)
    if not requested:
        raise ValidationFailed(
            "scopes", 'name at least one scope, or ["*"] for an unrestricted key'
        )
    unknown = sorted(requested - KNOWN_SCOPES - {UNRESTRICTED})
    if unknown:
        raise ValidationFailed("scopes", f"unknown scopes: {', '.join(unknown)}")
    if UNRESTRICTED in requested and len(requested) > 1:
        raise ValidationFailed("scopes", '"*" already grants everything; send it alone')
    if not caller.is_unrestricted and not all(implies(caller.scopes, scope) for scope in requested):
        raise Forbidden("A key cannot grant scopes its creator does not have")
    return requested


async def create_organization_key(
    session: AsyncSession,
    *,
    organization_id: str,
    name: str,
    scopes: frozenset[str],
    key_environment: str,
    created_by: str | None,
    now: datetime,
    tool_confirmation: ToolConfirmation = ToolConfirmation.ALWAYS,
) -> tuple[ApiKey, str]:
    secret = organization_key_secret(key_environment)
    key = ApiKey(
        id=new_id("key"),
        organization_id=organization_id,
        kind="ORGANIZATION",
        agent_id=None,
        name=name,
        scopes=sorted(scopes),
        environment=key_environment,
        prefix=visible_prefix(secret),
        secret_hash=hash_secret(secret),
        created_by=created_by,
        created_at=now,
        revoked_at=None,
        last_used_at=None,
        tool_confirmation=tool_confirmation.value,
    )
    session.add(key)
    await session.flush()
    return key, secret


async def create_api_key(
    session: AsyncSession,
    *,
    caller: Caller,
    name: str,
    scopes: list[str],
    key_environment: str,
    now: datetime,
    tool_confirmation: ToolConfirmation | None = None,
) -> tuple[ApiKey, str]:
    """POST /v1/api-keys: a key of the caller's organization with at most the caller's
    scopes; its secret is returned here only. Its write tools wait for a person unless an
    owner says otherwise (`toolConfirmation`)."""
    caller.require_scope(KEYS_SCOPE)
    granted = check_requested_scopes(caller, scopes)
    if tool_confirmation not in (None, ToolConfirmation.ALWAYS):
        caller.require_unrestricted("relax a key's tool confirmation policy")
    return await create_organization_key(
        session,
        organization_id=caller.organization_id,
        name=name,
        scopes=granted,
        key_environment=key_environment,
        created_by=caller.actor_id,
        now=now,
        tool_confirmation=tool_confirmation or ToolConfirmation.ALWAYS,
    )


async def set_tool_confirmation(
    session: AsyncSession, *, caller: Caller, key_id: str, policy: ToolConfirmation
) -> ApiKey:
    """PATCH /v1/api-keys/{id}: an owner (console session or unrestricted key) sets when a
    key's write tool calls wait for a person; organization and agent keys alike."""
    caller.require_unrestricted("change a key's tool confirmation policy")
    visible = repository.keys_of(caller.organization_id)
    key = await get_visible(session, visible, key_id, locked=True)
    if key.revoked_at is not None:
        raise Conflict(f"Key {key.id} is revoked")
    key.tool_confirmation = policy.value
    return key


async def list_api_keys(
    session: AsyncSession, *, caller: Caller, page: PageRequest
) -> Page[ApiKey]:
    caller.require_scope(KEYS_SCOPE)
    statement = repository.organization_keys(caller.organization_id)
    return await fetch_page(session, statement, ApiKey.id, page)


async def revoke_api_key(
    session: AsyncSession, *, caller: Caller, key_id: str, now: datetime
) -> ApiKey:
    """Immediate and final; revoking a revoked key changes nothing."""
    caller.require_scope(KEYS_SCOPE)
    visible = repository.organization_keys(caller.organization_id)
    key = await get_visible(session, visible, key_id, locked=True)
    if key.revoked_at is None:
        key.revoked_at = now
    return key


# --- Console users and sessions -----------------------------------------------------------


async def add_console_user(
    session: AsyncSession,
    *,
    caller: Caller,
    email: str,
    password: str,
    sandbox: bool,
    now: datetime,
) -> ConsoleUser:
    """Another person who signs in to the caller's organization's console (`corridor users
    add`, as `Caller.operator`): a valid email no console user has yet, and a password of
    `console_password_chars_min`. Only a console user (a person) adds another."""
    caller.require_console("add console users")
    problem = email_problem(email, sandbox=sandbox)
    if problem:
        raise ValidationFailed("email", problem)
    if len(password) < console_password_chars_min:
        raise ValidationFailed(
            "password", f"at least {console_password_chars_min} characters are required"
        )
    if await repository.user_by_email(session, email.lower()) is not None:
        raise Conflict(f"A console user with the email {email.lower()} already exists")
    return await create_console_user(
        session, organization_id=caller.organization_id, email=email, password=password, now=now
    )


@dataclass(frozen=True, slots=True)
class PasswordReset:
    user: ConsoleUser
    sessions_ended: int


async def reset_console_password(
    session: AsyncSession, *, email: str, password: str, now: datetime
) -> PasswordReset:
    """A console user's new password (`corridor users reset-password`, run by whoever holds
    the server): the same rule as a new user's, and every session signed in with the old
    one ends."""
    user = await repository.user_by_email(session, email)
    if user is None:
        raise CorridorError(
            f"No console user with the email {email.lower()}", status=404, code="not_found"
        )
    if len(password) < console_password_chars_min:
        raise ValidationFailed(
            "password", f"at least {console_password_chars_min} characters are required"
        )
    user.password_hash = hash_password(password)
    ended = await repository.end_sessions_of(session, user.id, now=now)
    await session.flush()
    return PasswordReset(user=user, sessions_ended=ended)


async def console_users_of(session: AsyncSession, *, caller: Caller) -> list[ConsoleUser]:
    """The console users of the caller's organization (`corridor users list`)."""
    caller.require_console("list console users")
    return await repository.console_users_of(session, caller.organization_id)


async def create_console_user(
    session: AsyncSession, *, organization_id: str, email: str, password: str, now: datetime
) -> ConsoleUser:
    user = ConsoleUser(
        id=new_id("usr"),
        organization_id=organization_id,
        email=email.lower(),
        password_hash=hash_password(password),
        created_at=now,
    )
    session.add(user)
    await session.flush()
    return user


@dataclass(frozen=True, slots=True)
class SignedIn:
    token: str
    console_session: ConsoleSession
    user: ConsoleUser


async def sign_in(
    session: AsyncSession, *, email: str, password: str, now: datetime, lifetime_s: int
) -> SignedIn:
    user = await repository.user_by_email(session, email)
    if not verify_password(user.password_hash if user else None, password) or user is None:
        raise Unauthorized("Wrong email or password")
    token = console_session_token()
    console_session = ConsoleSession(
        id=new_id("cs"),
        organization_id=user.organization_id,
        user_id=user.id,
        token_hash=hash_secret(token),
        created_at=now,
        expires_at=now + timedelta(seconds=lifetime_s),
        revoked_at=None,
    )
    session.add(console_session)
    await session.flush()
    return SignedIn(token=token, console_session=console_session, user=user)


@dataclass(frozen=True, slots=True)
class CurrentSession:
    console_session: ConsoleSession
    user: ConsoleUser


async def current_session(session: AsyncSession, *, caller: Caller, token: str) -> CurrentSession:
    """The console session the caller signed in with (its token, by bearer or cookie)."""
    caller.require_console("read the current console session")
    console_session = await repository.session_by_token_hash(session, hash_secret(token))
    user = await repository.user_by_id(session, caller.actor_id)
    if console_session is None or user is None or console_session.user_id != user.id:
        raise Unauthorized("Console session missing, expired or signed out")
    return CurrentSession(console_session=console_session, user=user)


async def sign_out(session: AsyncSession, *, caller: Caller, token: str, now: datetime) -> None:
    caller.require_console("sign out of a console session")
    console_session = await repository.session_by_token_hash(session, hash_secret(token))
    if console_session is not None and console_session.revoked_at is None:
        console_session.revoked_at = now
