"""OAuth 2.1 for MCP clients: Corridor is the authorization server of its own MCP endpoint.

A client registers (RFC 7591), sends its person to the authorization endpoint with a PKCE
S256 challenge, and the person, signed in to the console, consents: the scopes (from the
catalog), the agent the client acts as or the organization, the write-tool confirmation
policy. The code that gives is exchanged once, with the verifier, for a short-lived access
token bound to `<base URL>/mcp` and a refresh token that rotates on every use; a rotated
refresh token presented again revokes the grant. Secrets are kept as hashes only.

Expected failures are OAuth errors (errors.py). Where a failure must keep what it wrote (a
reused refresh token or code revokes the grant, then the request is refused) the function
returns `Refused` instead of raising, and the endpoint commits before it answers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from mcp.server.auth.provider import construct_redirect_uri
from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth.callers import Caller, CallerKind, ToolConfirmation
from corridor.auth.scopes import AGENT_KEY_SCOPES, Scope
from corridor.auth.secrets import hash_secret, random_token, same_hash
from corridor.kit.db import get_visible
from corridor.kit.errors import Conflict, NotFound, ValidationFailed
from corridor.kit.ids import new_id
from corridor.kit.pagination import Page, PageRequest, fetch_page
from corridor.models.oauth import OAuthAuthorization, OAuthClient, OAuthGrant, OAuthToken
from corridor.models.transfer import Agent
from corridor.oauth import documents, repository, rules
from corridor.oauth.errors import (
    AuthorizationClosed,
    AuthorizationRefused,
    InvalidClient,
    InvalidClientMetadata,
    InvalidGrant,
    InvalidRedirectUri,
    InvalidRequest,
    InvalidScope,
    InvalidTarget,
    InvalidToken,
    OAuthError,
    UnauthorizedClient,
    UnsupportedGrantType,
)
from corridor.oauth.rules import (
    AuthorizationStatus,
    ClientAuthentication,
    RevokedReason,
    TokenKind,
)
from corridor.oauth.schemas import ClientRegistrationRequest

GRANTS_SCOPE = Scope.API_KEYS_MANAGE
# Random characters of a token, a code or a client secret (62 symbols: 238 bits for 40).
secret_chars = 43


@dataclass(frozen=True, slots=True)
class Refused:
    """A refusal whose writes must be kept (the grant it revoked): commit, then answer."""

    error: OAuthError


@dataclass(frozen=True, slots=True)
class IssuedTokens:
    access_token: str
    refresh_token: str
    expires_in_s: int
    scopes: list[str]


@dataclass(frozen=True, slots=True)
class TokenLifetimes:
    access_s: int
    refresh_s: int


# --- Clients (RFC 7591) --------------------------------------------------------------------


def _authentication_method(requested: str | None) -> ClientAuthentication:
    # RFC 7591 section 2: omitted means client_secret_basic.
    try:
        return ClientAuthentication(requested or ClientAuthentication.SECRET_BASIC)
    except ValueError:
        supported = ", ".join(method.value for method in ClientAuthentication)
        raise InvalidClientMetadata(
            f"token_endpoint_auth_method {requested!r} is not supported: use one of {supported}"
        ) from None


def _checked_registration(request: ClientRegistrationRequest) -> tuple[list[str], str | None]:
    """The grant types and scope a registration may have, or InvalidClientMetadata."""
    for uri in request.redirect_uris:
        problem = rules.redirect_uri_problem(uri)
        if problem is not None:
            raise InvalidRedirectUri(f"redirect_uris: {uri!r} {problem}")
    grant_types = request.grant_types or ["authorization_code", "refresh_token"]
    if "authorization_code" not in grant_types:
        raise InvalidClientMetadata("grant_types must include authorization_code")
    unknown = sorted(set(grant_types) - rules.GRANT_TYPES)
    if unknown:
        raise InvalidClientMetadata(f"grant_types not supported: {', '.join(unknown)}")
    if request.response_types is not None and set(request.response_types) != {"code"}:
        raise InvalidClientMetadata('response_types must be ["code"]')
    words = rules.scope_words(request.scope)
    unknown_scopes = rules.unknown_scopes(words)
    if unknown_scopes:
        raise InvalidClientMetadata(f"scope has unknown scopes: {', '.join(unknown_scopes)}")
    return grant_types, (rules.scope_text(words) if words else None)


async def register_client(
    session: AsyncSession, *, request: ClientRegistrationRequest, now: datetime
) -> tuple[OAuthClient, str | None]:
    """A new client (`ocl_…`, its client_id) and, unless it is public (`none`), its secret,
    returned here only."""
    method = _authentication_method(request.token_endpoint_auth_method)
    grant_types, scope = _checked_registration(request)
    secret = (
        None
        if method is ClientAuthentication.NONE
        else rules.CLIENT_SECRET_PREFIX + random_token(secret_chars)
    )
    await repository.delete_unused_clients(
        session,
        now,
        unused_for_s=rules.unused_client_lifetime_s,
        batch_max=rules.expired_rows_deleted_max,
    )
    client = OAuthClient(
        id=new_id("ocl"),
        name=request.client_name,
        redirect_uris=list(request.redirect_uris),
        grant_types=grant_types,
        token_endpoint_auth_method=method.value,
        scope=scope,
        details=request.details(),
        secret_hash=None if secret is None else hash_secret(secret),
        created_at=now,
    )
    session.add(client)
    await session.flush()
    return client, secret


@dataclass(frozen=True, slots=True)
class ClientCredentials:
    """What a token or revocation request says of its client."""

    client_id: str | None
    secret: str | None
    # Which way the secret came: HTTP Basic, the form, or none at all.
    method: ClientAuthentication


async def authenticate_client(session: AsyncSession, credentials: ClientCredentials) -> OAuthClient:
    """The client, having proved itself the way it registered (RFC 6749 section 2.3)."""
    basic = credentials.method is ClientAuthentication.SECRET_BASIC
    if not credentials.client_id:
        raise InvalidClient("client_id is missing", basic=basic)
    client = await _known_client(session, credentials.client_id)
    if client is None:
        raise InvalidClient("Unknown client_id", basic=basic)
    registered = ClientAuthentication(client.token_endpoint_auth_method)
    if registered is ClientAuthentication.NONE:
        if credentials.secret is not None:
            raise InvalidClient("This client registered as public (none): send no secret")
        return client
    if credentials.method is not registered:
        raise InvalidClient(
            f"This client authenticates with {registered.value}",
            basic=basic or registered is ClientAuthentication.SECRET_BASIC,
        )
    presented = hash_secret(credentials.secret or "")
    if client.secret_hash is None or not same_hash(client.secret_hash, presented):
        raise InvalidClient("The client secret is wrong", basic=basic)
    return client


# --- Client ID metadata documents ----------------------------------------------------------


async def _known_client(session: AsyncSession, client_id: str) -> OAuthClient | None:
    """The client a client_id names: registered here (`ocl_…`), or the metadata document
    URL of a client seen before (as last fetched: the token and revocation endpoints never
    fetch)."""
    if rules.is_client_document_url(client_id):
        return await repository.client_by_metadata_url(session, client_id)
    return await repository.client_by_id(session, client_id)


def _document_registration(url: str, body: bytes) -> ClientRegistrationRequest:
    """The fetched document as the registration it stands for, or InvalidRequest."""

    def refuse(problem: str) -> InvalidRequest:
        return InvalidRequest(f"The client ID metadata document at {url} {problem}")

    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        raise refuse("is not JSON") from None
    problem = rules.client_document_problem(document, url)
    if problem is not None:
        raise refuse(problem)
    try:
        return ClientRegistrationRequest.model_validate(document)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first.get("loc", ())) or "document"
        raise refuse(f"is not valid: {field}: {first.get('msg', 'invalid value')}") from None


@dataclass(frozen=True, slots=True)
class ClientDocument:
    """A client ID metadata document as fetched and checked, to be kept."""

    url: str
    registration: ClientRegistrationRequest
    grant_types: list[str]
    scope: str | None
    expires_at: datetime


async def read_client_document(
    session: AsyncSession, client_id: str | None, *, now: datetime, fetch: documents.Fetch
) -> ClientDocument | None:
    """For a client_id that is a metadata document URL with no fresh copy kept: the
    document, fetched (SSRF-guarded and bounded: documents.py) and checked (its client_id
    is the URL, its redirect URIs and grant types as a registration's); InvalidRequest when
    it cannot be used. None when there is nothing to fetch. It only reads, so the caller
    fetches outside any write transaction (SQLite has one writer)."""
    if client_id is None or not rules.is_client_document_url(client_id):
        return None
    url = client_id
    problem = rules.client_document_url_problem(url)
    if problem is not None:
        raise InvalidRequest(f"client_id: a client ID metadata document URL {problem}")
    known = await repository.client_by_metadata_url(session, url)
    if known is not None and known.metadata_expires_at is not None:
        if known.metadata_expires_at > now:
            return None
    try:
        fetched = await fetch(url)
    except documents.DocumentUnavailable as error:
        raise InvalidRequest(
            f"The client ID metadata document at {url} cannot be used: {error}"
        ) from None
    registration = _document_registration(url, fetched.body)
    try:
        grant_types, scope = _checked_registration(registration)
    except OAuthError as error:
        raise InvalidRequest(
            f"The client ID metadata document at {url} is not valid: {error.message}"
        ) from None
    expires_at = now + timedelta(seconds=rules.client_document_cache_s(fetched.cache_control))
    return ClientDocument(url, registration, grant_types, scope, expires_at)


async def _document_client(
    session: AsyncSession, url: str, document: ClientDocument | None, *, now: datetime
) -> OAuthClient | None:
    """The client a metadata document URL names: as kept, or as just fetched (kept now)."""
    known = await repository.client_by_metadata_url(session, url, locked=document is not None)
    if document is None or document.url != url:
        return known
    if known is None:
        known = OAuthClient(
            id=new_id("ocl"),
            secret_hash=None,
            created_at=now,
            metadata_url=url,
            token_endpoint_auth_method=ClientAuthentication.NONE.value,
        )
        _describe(known, document)
        return await repository.add_client_once(session, known)
    _describe(known, document)
    await session.flush()
    return known


def _describe(client: OAuthClient, document: ClientDocument) -> None:
    client.name = document.registration.client_name
    client.redirect_uris = list(document.registration.redirect_uris)
    client.grant_types = document.grant_types
    client.scope = document.scope
    client.details = document.registration.details()
    client.metadata_expires_at = document.expires_at


# --- Authorization requests and consent ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuthorizationAsk:
    """GET /oauth/authorize's parameters, as sent (each at most once)."""

    client_id: str | None
    redirect_uri: str | None
    response_type: str | None
    code_challenge: str | None
    code_challenge_method: str | None
    scope: str | None
    state: str | None
    resource: str | None


def issuer_of(resource: str) -> str:
    """This server's issuer identifier: the base URL its MCP resource sits under."""
    return resource.removesuffix(rules.MCP_PATH)


def _redirect_uri_of(client: OAuthClient, asked: str | None) -> str:
    """The registered redirect URI the request names (compared as strings, OAuth 2.1
    section 2.3.1), or the only one registered when it names none."""
    registered = [str(uri) for uri in client.redirect_uris]
    if asked is None:
        if len(registered) != 1:
            raise InvalidRequest("redirect_uri is required: this client registered several")
        return registered[0]
    if asked not in registered:
        raise InvalidRequest("redirect_uri is not one this client registered")
    return asked


def _checked_ask(
    client: OAuthClient, ask: AuthorizationAsk, *, redirect_uri: str, resource: str
) -> list[str]:
    """The scopes asked for, once the rest of the request holds (else AuthorizationRefused,
    sent back to the client's redirect URI)."""
    state = ask.state if ask.state and len(ask.state) <= rules.state_chars_max else None

    def refuse(code: str, description: str) -> AuthorizationRefused:
        return AuthorizationRefused(
            code, description, redirect_uri=redirect_uri, state=state, issuer=issuer_of(resource)
        )

    if ask.response_type != "code":
        raise refuse("unsupported_response_type", "response_type must be code")
    if ask.state is not None and len(ask.state) > rules.state_chars_max:
        raise refuse("invalid_request", f"state is over {rules.state_chars_max} characters")
    if not ask.code_challenge:
        raise refuse("invalid_request", "code_challenge is required (PKCE with S256)")
    if ask.code_challenge_method != rules.PKCE_METHOD:
        raise refuse(
            "invalid_request",
            "code_challenge_method must be S256 (plain, or none given, is not accepted)",
        )
    if not rules.is_code_challenge(ask.code_challenge):
        raise refuse("invalid_request", "code_challenge must be 43 characters of base64url")
    words = rules.scope_words(ask.scope)
    unknown = rules.unknown_scopes(words)
    if unknown:
        raise refuse("invalid_scope", f"Unknown scopes: {', '.join(unknown)}")
    if client.scope is not None:
        outside = [word for word in words if word not in client.scope.split(" ")]
        if outside:
            raise refuse("invalid_scope", f"Not registered for: {', '.join(outside)}")
    if ask.resource is not None and rules.canonical_resource(ask.resource) != resource:
        raise refuse("invalid_target", f"resource must be this server's MCP endpoint, {resource}")
    return words


async def start_authorization(
    session: AsyncSession,
    *,
    ask: AuthorizationAsk,
    resource: str,
    now: datetime,
    document: ClientDocument | None = None,
) -> OAuthAuthorization:
    """A request waiting for an owner's consent; `document` is what read_client_document
    fetched for it, if anything. An unknown client, or a redirect URI the client did not
    register or list: InvalidRequest (answered here, never redirected); any other
    problem: AuthorizationRefused (sent back to the redirect URI)."""
    client_id = ask.client_id or ""
    if rules.is_client_document_url(client_id):
        client: OAuthClient | None = await _document_client(session, client_id, document, now=now)
    else:
        client = await repository.client_by_id(session, client_id)
    if client is None:
        raise InvalidRequest(
            "client_id is missing or unknown: register first (RFC 7591), or use the https "
            "URL of your client ID metadata document"
        )
    redirect_uri = _redirect_uri_of(client, ask.redirect_uri)
    scopes = _checked_ask(client, ask, redirect_uri=redirect_uri, resource=resource)
    await repository.delete_expired(session, now, batch_max=rules.expired_rows_deleted_max)
    authorization = OAuthAuthorization(
        id=new_id("oar"),
        client_id=client.id,
        redirect_uri=redirect_uri,
        redirect_uri_explicit=ask.redirect_uri is not None,
        requested_scopes=scopes,
        state=ask.state,
        code_challenge=ask.code_challenge,
        resource=resource,
        status=AuthorizationStatus.PENDING.value,
        organization_id=None,
        agent_id=None,
        granted_scopes=None,
        tool_confirmation=None,
        decided_by=None,
        decided_at=None,
        code_hash=None,
        code_expires_at=None,
        grant_id=None,
        created_at=now,
        expires_at=now + timedelta(seconds=rules.consent_lifetime_s),
    )
    session.add(authorization)
    await session.flush()
    return authorization


@dataclass(frozen=True, slots=True)
class AgentChoice:
    agent: Agent
    signs_requests: bool


@dataclass(frozen=True, slots=True)
class Consent:
    """What the consent page shows: the request, its client, and the agents it may act as."""

    authorization: OAuthAuthorization
    client: OAuthClient
    agents: list[AgentChoice]

    @property
    def scopes_offered(self) -> list[Scope]:
        """The scopes the owner may tick: those asked for, or the whole catalog."""
        asked = set(self.authorization.requested_scopes)
        return [scope for scope in Scope if not asked or scope.value in asked]


async def _pending(
    session: AsyncSession, authorization_id: str, now: datetime, *, locked: bool
) -> OAuthAuthorization:
    authorization = await repository.authorization_by_id(session, authorization_id, locked=locked)
    if authorization is None:
        raise NotFound("authorization request", authorization_id)
    if authorization.status != AuthorizationStatus.PENDING or authorization.expires_at <= now:
        raise AuthorizationClosed()
    return authorization


async def read_consent(
    session: AsyncSession, *, caller: Caller, authorization_id: str, now: datetime
) -> Consent:
    """The consent page of a pending request, for a signed-in console user (an owner)."""
    caller.require_console("consent to an app's access")
    authorization = await _pending(session, authorization_id, now, locked=False)
    client = await repository.client_by_id(session, authorization.client_id)
    assert client is not None, "a request's client outlives it (ON DELETE CASCADE)"
    agents = await repository.agents_offered(session, caller.organization_id)
    signing = await repository.agents_that_sign(session, [agent.id for agent in agents])
    return Consent(
        authorization, client, [AgentChoice(agent, agent.id in signing) for agent in agents]
    )


@dataclass(frozen=True, slots=True)
class ConsentAnswer:
    """The owner's choices on the consent page."""

    scopes: list[str]
    agent_id: str | None
    tool_confirmation: ToolConfirmation


async def _checked_answer(
    session: AsyncSession, caller: Caller, authorization: OAuthAuthorization, answer: ConsentAnswer
) -> list[str]:
    wanted = set(answer.scopes)
    if not wanted:
        raise ValidationFailed("scopes", "tick at least one scope")
    offered = set(authorization.requested_scopes) or {scope.value for scope in Scope}
    refused = sorted(wanted - offered)
    if refused:
        raise ValidationFailed("scopes", f"not asked for by this app: {', '.join(refused)}")
    chosen = [scope.value for scope in Scope if scope.value in wanted]  # the catalog's order
    if answer.agent_id is None:
        return chosen
    agent = await repository.agent_of(session, caller.organization_id, answer.agent_id)
    if agent is None or agent.status == repository.AGENT_REVOKED:
        raise ValidationFailed("agent", "choose one of your organization's agents")
    if agent.status != repository.AGENT_ACTIVE:
        raise ValidationFailed("agent", f"{agent.name} is {agent.status.lower()}: resume it first")
    if await repository.agents_that_sign(session, [agent.id]):
        raise ValidationFailed(
            "agent",
            f"{agent.name} signs its requests (RFC 9421), which a desktop client cannot: "
            "choose another agent, or remove its signing keys",
        )
    beyond = rules.agent_may_hold(chosen)
    if beyond:
        allowed = ", ".join(sorted(AGENT_KEY_SCOPES))
        raise ValidationFailed(
            "scopes", f"an agent holds at most {allowed}; untick {', '.join(beyond)}"
        )
    return chosen


def _redirect(authorization: OAuthAuthorization, **parameters: str | None) -> str:
    return construct_redirect_uri(
        authorization.redirect_uri,
        **parameters,
        state=authorization.state,
        iss=issuer_of(authorization.resource),
    )


async def approve(
    session: AsyncSession,
    *,
    caller: Caller,
    authorization_id: str,
    answer: ConsentAnswer,
    now: datetime,
) -> str:
    """The owner allows the app: a one-time code (kept hashed) and the URL that hands it
    to the client with its state and this server's issuer (RFC 9207)."""
    caller.require_console("consent to an app's access")
    authorization = await _pending(session, authorization_id, now, locked=True)
    scopes = await _checked_answer(session, caller, authorization, answer)
    code = rules.CODE_PREFIX + random_token(secret_chars)
    authorization.status = AuthorizationStatus.APPROVED.value
    authorization.organization_id = caller.organization_id
    authorization.agent_id = answer.agent_id
    authorization.granted_scopes = scopes
    authorization.tool_confirmation = answer.tool_confirmation.value
    authorization.decided_by, authorization.decided_at = caller.actor_id, now
    authorization.code_hash = hash_secret(code)
    authorization.code_expires_at = now + timedelta(seconds=rules.code_lifetime_s)
    # Kept while its code could be presented, so a second use is recognised.
    authorization.expires_at = authorization.code_expires_at
    return _redirect(authorization, code=code)


async def deny(
    session: AsyncSession, *, caller: Caller, authorization_id: str, now: datetime
) -> str:
    """The owner refuses: the client hears access_denied."""
    caller.require_console("refuse an app's access")
    authorization = await _pending(session, authorization_id, now, locked=True)
    authorization.status = AuthorizationStatus.DENIED.value
    authorization.decided_by, authorization.decided_at = caller.actor_id, now
    return _redirect(
        authorization, error="access_denied", error_description="The owner refused access"
    )


# --- Tokens --------------------------------------------------------------------------------


def check_grant_type(client: OAuthClient, grant_type: str) -> None:
    """A grant type this server knows, and that the client registered."""
    if grant_type not in rules.GRANT_TYPES:
        raise UnsupportedGrantType("grant_type must be authorization_code or refresh_token")
    if grant_type not in client.grant_types:
        raise UnauthorizedClient(f"This client did not register the {grant_type} grant")


def _check_resource(asked: str | None, bound: str) -> None:
    if asked is not None and rules.canonical_resource(asked) != bound:
        raise InvalidTarget(f"resource must be {bound}, the resource this grant is for")


async def _issue(
    session: AsyncSession,
    grant: OAuthGrant,
    scopes: list[str],
    now: datetime,
    lifetimes: TokenLifetimes,
) -> IssuedTokens:
    access = rules.ACCESS_TOKEN_PREFIX + random_token(secret_chars)
    refresh = rules.REFRESH_TOKEN_PREFIX + random_token(secret_chars)
    for kind, secret, lifetime_s in (
        (TokenKind.ACCESS, access, lifetimes.access_s),
        (TokenKind.REFRESH, refresh, lifetimes.refresh_s),
    ):
        session.add(
            OAuthToken(
                id=new_id("otk"),
                grant_id=grant.id,
                kind=kind.value,
                token_hash=hash_secret(secret),
                scopes=scopes,
                created_at=now,
                expires_at=now + timedelta(seconds=lifetime_s),
                used_at=None,
            )
        )
    grant.last_token_at = now
    await repository.delete_expired(session, now, batch_max=rules.expired_rows_deleted_max)
    return IssuedTokens(access, refresh, lifetimes.access_s, scopes)


def _revoke(grant: OAuthGrant, reason: RevokedReason, now: datetime) -> None:
    if grant.revoked_at is None:
        grant.revoked_at, grant.revoked_reason = now, reason.value


@dataclass(frozen=True, slots=True)
class CodeExchange:
    code: str
    code_verifier: str
    redirect_uri: str | None
    resource: str | None


async def exchange_code(
    session: AsyncSession,
    *,
    client: OAuthClient,
    exchange: CodeExchange,
    lifetimes: TokenLifetimes,
    now: datetime,
) -> IssuedTokens | Refused:
    """authorization_code (RFC 6749 section 4.1.3, RFC 7636 section 4.6): the code once,
    with the verifier of its challenge, by the client it was given to, for the same
    redirect URI and resource. A code presented again revokes what it gave."""
    check_grant_type(client, "authorization_code")
    authorization = await repository.authorization_by_code_hash(session, hash_secret(exchange.code))
    if authorization is None or authorization.client_id != client.id:
        raise InvalidGrant("Unknown authorization code")
    if authorization.status == AuthorizationStatus.USED:
        grant = await repository.grant_by_id(session, authorization.grant_id or "", locked=True)
        if grant is not None:
            _revoke(grant, RevokedReason.CODE_REUSED, now)
        return Refused(InvalidGrant("This authorization code was already used"))
    assert authorization.code_expires_at is not None
    if authorization.status != AuthorizationStatus.APPROVED or authorization.code_expires_at <= now:
        raise InvalidGrant("The authorization code has expired")
    sent = exchange.redirect_uri
    if (authorization.redirect_uri_explicit or sent is not None) and (
        sent != authorization.redirect_uri
    ):
        raise InvalidGrant("redirect_uri differs from the authorization request's")
    _check_resource(exchange.resource, authorization.resource)
    # One try: a wrong verifier spends the code (nobody guesses a verifier twice).
    authorization.status = AuthorizationStatus.USED.value
    if not rules.pkce_matches(exchange.code_verifier, authorization.code_challenge):
        return Refused(InvalidGrant("code_verifier does not match the code_challenge (S256)"))
    grant = _grant_of(authorization, now)
    session.add(grant)
    await session.flush()
    authorization.grant_id = grant.id
    return await _issue(session, grant, grant.scopes, now, lifetimes)


def _grant_of(authorization: OAuthAuthorization, now: datetime) -> OAuthGrant:
    assert authorization.organization_id is not None and authorization.decided_by is not None
    return OAuthGrant(
        id=new_id("oag"),
        organization_id=authorization.organization_id,
        client_id=authorization.client_id,
        agent_id=authorization.agent_id,
        scopes=list(authorization.granted_scopes or []),
        tool_confirmation=authorization.tool_confirmation or ToolConfirmation.ALWAYS.value,
        resource=authorization.resource,
        created_by=authorization.decided_by,
        created_at=now,
        last_token_at=now,
        revoked_at=None,
        revoked_reason=None,
    )


@dataclass(frozen=True, slots=True)
class RefreshExchange:
    refresh_token: str
    scope: str | None
    resource: str | None


async def refresh(
    session: AsyncSession,
    *,
    client: OAuthClient,
    exchange: RefreshExchange,
    lifetimes: TokenLifetimes,
    now: datetime,
) -> IssuedTokens | Refused:
    """refresh_token (RFC 6749 section 6): a new access token and a new refresh token; the
    one presented is retired. Presented again after that, it revokes the grant, the tokens
    of whoever else holds a copy with it (OAuth 2.1 section 4.3.1)."""
    check_grant_type(client, "refresh_token")
    token = await repository.token_by_hash(
        session, hash_secret(exchange.refresh_token), locked=True
    )
    if token is None or token.kind != TokenKind.REFRESH:
        raise InvalidGrant("Unknown refresh token")
    grant = await repository.grant_by_id(session, token.grant_id, locked=True)
    if grant is None or grant.client_id != client.id:
        raise InvalidGrant("Unknown refresh token")
    if grant.revoked_at is not None:
        raise InvalidGrant("This grant was revoked: authorize again")
    if token.used_at is not None:
        _revoke(grant, RevokedReason.REFRESH_TOKEN_REUSED, now)
        return Refused(InvalidGrant("This refresh token was already used: the grant is revoked"))
    if token.expires_at <= now:
        raise InvalidGrant("The refresh token has expired: authorize again")
    asked = rules.scope_words(exchange.scope)
    beyond = [scope for scope in asked if scope not in token.scopes]
    if beyond:
        raise InvalidScope(f"Not granted: {', '.join(beyond)}")
    _check_resource(exchange.resource, grant.resource)
    token.used_at = now
    return await _issue(session, grant, asked or list(token.scopes), now, lifetimes)


async def revoke_token(
    session: AsyncSession, *, client: OAuthClient, token: str, now: datetime
) -> None:
    """RFC 7009: the client revokes one of its tokens, access or refresh; either ends the
    whole grant (what a client revoking means is "disconnect me"). A token that is not the
    client's, or not a token at all, changes nothing (and the answer says so no more)."""
    found = await repository.token_by_hash(session, hash_secret(token))
    if found is None:
        return
    grant = await repository.grant_by_id(session, found.grant_id, locked=True)
    if grant is None or grant.client_id != client.id:
        return
    _revoke(grant, RevokedReason.BY_CLIENT, now)


async def authenticate_access_token(
    session: AsyncSession, *, token: str, resource: str, now: datetime
) -> Caller:
    """The caller an access token stands for at the MCP endpoint `resource`: the grant's
    organization (or its agent) with exactly the scopes granted; InvalidToken when it is
    unknown, expired, revoked or for another resource (its audience)."""
    found = await repository.access_token_with_grant(session, hash_secret(token))
    if found is None:
        raise InvalidToken("Unknown access token")
    access, grant, organization = found
    if grant.revoked_at is not None:
        raise InvalidToken("This grant was revoked")
    if access.expires_at <= now:
        raise InvalidToken("The access token has expired: refresh it")
    if grant.resource != resource:
        raise InvalidToken(f"This token is for {grant.resource}, not {resource}")
    policy = ToolConfirmation(grant.tool_confirmation)
    scopes = frozenset(access.scopes)
    if grant.agent_id is None:
        kind = (
            CallerKind.PLATFORM_SESSION
            if organization.kind == "PLATFORM"
            else CallerKind.ORGANIZATION_KEY
        )
        return Caller(
            kind,
            grant.organization_id,
            grant.id,
            scopes,
            tool_confirmation=policy,
            oauth_grant=True,
        )
    agent = await repository.agent_of(session, grant.organization_id, grant.agent_id)
    if agent is None or agent.status == repository.AGENT_REVOKED:
        raise InvalidToken("The agent this grant acts as is revoked")
    return Caller(
        kind=CallerKind.AGENT_KEY,
        organization_id=grant.organization_id,
        actor_id=grant.id,
        scopes=scopes & AGENT_KEY_SCOPES,
        agent_id=agent.id,
        customer_id=agent.customer_id,
        account_ids=frozenset({agent.source_account_id}),
        tool_confirmation=policy,
        oauth_grant=True,
    )


# --- Grants: connected apps ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GrantWithClient:
    grant: OAuthGrant
    client: OAuthClient


async def _with_clients(session: AsyncSession, grants: list[OAuthGrant]) -> list[GrantWithClient]:
    clients = await repository.clients_by_id(session, [grant.client_id for grant in grants])
    return [GrantWithClient(grant, clients[grant.client_id]) for grant in grants]


async def list_grants(
    session: AsyncSession, *, caller: Caller, page: PageRequest
) -> Page[GrantWithClient]:
    """The organization's connected apps, newest first, revoked ones included."""
    caller.require_scope(GRANTS_SCOPE)
    found = await fetch_page(
        session, repository.grants_of(caller.organization_id), OAuthGrant.id, page
    )
    items = await _with_clients(session, found.items)
    return Page(items=items, next_cursor=found.next_cursor, has_more=found.has_more)


async def read_grant(session: AsyncSession, *, caller: Caller, grant_id: str) -> GrantWithClient:
    caller.require_scope(GRANTS_SCOPE)
    grant = await get_visible(session, repository.grants_of(caller.organization_id), grant_id)
    return (await _with_clients(session, [grant]))[0]


async def revoke_grant(
    session: AsyncSession, *, caller: Caller, grant_id: str, now: datetime
) -> GrantWithClient:
    """Immediate and final: its access and refresh tokens stop working at once. Revoking a
    revoked grant changes nothing."""
    caller.require_scope(GRANTS_SCOPE)
    visible = repository.grants_of(caller.organization_id)
    grant = await get_visible(session, visible, grant_id, locked=True)
    _revoke(grant, RevokedReason.BY_OWNER, now)
    return (await _with_clients(session, [grant]))[0]


async def set_grant_tool_confirmation(
    session: AsyncSession, *, caller: Caller, grant_id: str, policy: ToolConfirmation
) -> GrantWithClient:
    """An owner (console session or unrestricted key) sets when the app's write tool calls
    wait for a person; its next tokens and those it holds follow at once."""
    caller.require_unrestricted("change an OAuth grant's tool confirmation policy")
    visible = repository.grants_of(caller.organization_id)
    grant = await get_visible(session, visible, grant_id, locked=True)
    if grant.revoked_at is not None:
        raise Conflict(f"Grant {grant.id} is revoked")
    grant.tool_confirmation = policy.value
    return (await _with_clients(session, [grant]))[0]
