"""FastAPI dependencies that turn request credentials into a Caller."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from corridor.auth import service, signatures
from corridor.auth.callers import Caller
from corridor.auth.scopes import catalog_markdown
from corridor.auth.secrets import csrf_token
from corridor.kit.errors import CsrfTokenInvalid, SandboxOnly, Unauthorized, ValidationFailed
from corridor.kit.ids import looks_like_id
from corridor.web.ratelimits import REQUEST_STATE_KEY, RateLimiter, client_address

CONSOLE_SESSION_COOKIE = "corridor_session"
CSRF_HEADER = "X-Corridor-CSRF"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
ON_BEHALF_OF_HEADER = "X-Corridor-On-Behalf-Of"
ORGANIZATION_HEADER = "X-Corridor-Organization"

# Declared for OpenAPI's security schemes; read by hand below so every failure is our 401.
bearer_scheme = HTTPBearer(
    auto_error=False,
    description="An API key (sk_…) or a console session token (cs_…). A key holds scopes "
    "(docs/scopes.md):\n\n" + catalog_markdown(),
)
api_key_scheme = APIKeyHeader(name="X-API-Key", auto_error=False, description="Sandbox only")


def _credential_of(
    request: Request, bearer: HTTPAuthorizationCredentials | None, api_key: str | None
) -> tuple[str, bool]:
    """The credential the request carries, and whether it came from the console cookie."""
    settings = request.app.state.settings
    if bearer is not None:
        return bearer.credentials, False
    if request.headers.get("authorization"):
        raise Unauthorized("Authorization header must be 'Bearer <API key or session token>'")
    if api_key is not None:
        if not settings.is_sandbox:
            raise Unauthorized("X-API-Key is accepted only in sandbox; send Authorization: Bearer")
        return api_key, False
    cookie = request.cookies.get(CONSOLE_SESSION_COOKIE)
    if cookie:
        return cookie, True
    raise Unauthorized()


def _check_csrf(request: Request, session_token: str) -> None:
    """A browser sends the cookie with any request, even one a page of another site makes;
    it never lets such a page set a custom header. So a write authenticated by the cookie
    alone must carry the session's CSRF token in X-Corridor-CSRF (double submit, tied to
    the session). Bearer and X-API-Key requests need none."""
    if request.method in SAFE_METHODS:
        return
    sent = request.headers.get(CSRF_HEADER)
    if not sent:
        raise CsrfTokenInvalid(
            f"A request authenticated by the console cookie that changes something needs the "
            f"{CSRF_HEADER} header: send the csrfToken of the sign-in answer or of "
            "GET /v1/console/sessions/current"
        )
    if not hmac.compare_digest(sent.encode(), csrf_token(session_token).encode()):
        raise CsrfTokenInvalid(
            f"The {CSRF_HEADER} header does not hold this session's CSRF token: send the "
            "csrfToken of the sign-in answer or of GET /v1/console/sessions/current"
        )


async def caller_in(
    session: AsyncSession,
    request: Request,
    bearer: HTTPAuthorizationCredentials | None,
    api_key: str | None,
) -> Caller:
    """The caller of this request, read in `session` (and kept on `request.state`)."""
    credential, from_cookie = _credential_of(request, bearer, api_key)
    state = request.app.state
    limiter: RateLimiter = state.rate_limiter
    async with limiter.authentication_attempt(address=client_address(request.client)):
        caller = await service.authenticate(
            session,
            credential=credential,
            key_environment=state.settings.key_environment,
            now=state.clock.now(),
        )
    if from_cookie:
        _check_csrf(request, credential)
    if caller.agent_id is not None:
        await _check_signature(session, request, caller.agent_id)
    organization = request.headers.get(ORGANIZATION_HEADER)
    if organization is not None:
        # A parent's console session or unrestricted key acting inside a child.
        caller = await service.enter_organization(
            session, caller=caller, organization_id=organization
        )
    on_behalf_of = request.headers.get(ON_BEHALF_OF_HEADER)
    if on_behalf_of is not None:
        if not looks_like_id(on_behalf_of, "cus"):
            raise ValidationFailed(ON_BEHALF_OF_HEADER, "must be a customer id (cus_…)")
        caller = await service.bind_to_customer(session, caller=caller, customer_id=on_behalf_of)
    # Counted once per request: the express create+submit may have counted it already
    # before handing the request on (transfers/express_endpoint.py).
    if getattr(request.state, REQUEST_STATE_KEY, None) is None:
        window = await limiter.hit_request(session, caller)
        if window is not None:
            request.state.rate_limit = window  # RequestMiddleware sends its RateLimit-* headers
    request.state.caller = caller
    return caller


async def _check_signature(session: AsyncSession, request: Request, agent_id: str) -> None:
    """An agent with signing keys signs every request (RFC 9421, auth/signatures.py)."""
    state = request.app.state
    now = state.clock.now()
    signed = signatures.SignedRequest(
        request.method, str(request.url), request.headers, await request.body()
    )
    nonce = await signatures.verify(session, agent_id=agent_id, request=signed, now=now)
    if nonce is not None:
        await signatures.keep_nonce(state.database, nonce, now)


async def current_caller(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
    api_key: Annotated[str | None, Depends(api_key_scheme)],
) -> Caller:
    """The caller, read in a read-only transaction of its own (once per request)."""
    known: Caller | None = getattr(request.state, "caller", None)
    if known is not None:
        return known
    async with request.app.state.database.session(write=False) as session:
        return await caller_in(session, request, bearer, api_key)


CurrentCaller = Annotated[Caller, Depends(current_caller)]


async def _sandbox_only(request: Request, caller: CurrentCaller) -> None:
    """Refused in production before the body is even validated (after authentication)."""
    if not request.app.state.settings.is_sandbox:
        raise SandboxOnly()


# A route of the sandbox only: `dependencies=[SandboxOnlyRoute]`.
SandboxOnlyRoute = Depends(_sandbox_only)
