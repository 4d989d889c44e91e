"""FastAPI dependencies that turn request credentials into a Caller."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer

from corridor.auth import service
from corridor.auth.callers import Caller
from corridor.kit.errors import SandboxOnly, Unauthorized, ValidationFailed
from corridor.kit.ids import looks_like_id

CONSOLE_SESSION_COOKIE = "corridor_session"
ON_BEHALF_OF_HEADER = "X-Corridor-On-Behalf-Of"

# Declared for OpenAPI's security schemes; read by hand below so every failure is our 401.
_bearer = HTTPBearer(
    auto_error=False, description="An API key (sk_…) or a console session token (cs_…)"
)
_api_key_header = APIKeyHeader(name="X-API-Key", auto_error=False, description="Sandbox only")


def _credential_of(
    request: Request, bearer: HTTPAuthorizationCredentials | None, api_key: str | None
) -> str:
    settings = request.app.state.settings
    if bearer is not None:
        return bearer.credentials
    if request.headers.get("authorization"):
        raise Unauthorized("Authorization header must be 'Bearer <API key or session token>'")
    if api_key is not None:
        if not settings.is_sandbox:
            raise Unauthorized("X-API-Key is accepted only in sandbox; send Authorization: Bearer")
        return api_key
    cookie = request.cookies.get(CONSOLE_SESSION_COOKIE)
    if cookie:
        return cookie
    raise Unauthorized()


async def current_caller(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    api_key: Annotated[str | None, Depends(_api_key_header)],
) -> Caller:
    credential = _credential_of(request, bearer, api_key)
    state = request.app.state
    async with state.database.session(write=False) as session:
        caller = await service.authenticate(
            session,
            credential=credential,
            key_environment=state.settings.key_environment,
            now=state.clock.now(),
        )
        on_behalf_of = request.headers.get(ON_BEHALF_OF_HEADER)
        if on_behalf_of is not None:
            if not looks_like_id(on_behalf_of, "cus"):
                raise ValidationFailed(ON_BEHALF_OF_HEADER, "must be a customer id (cus_…)")
            caller = await service.bind_to_customer(
                session, caller=caller, customer_id=on_behalf_of
            )
    request.state.caller = caller
    return caller


CurrentCaller = Annotated[Caller, Depends(current_caller)]


async def _sandbox_only(request: Request, caller: CurrentCaller) -> None:
    """Refused in production before the body is even validated (after authentication)."""
    if not request.app.state.settings.is_sandbox:
        raise SandboxOnly()


# A route of the sandbox only: `dependencies=[SandboxOnlyRoute]`.
SandboxOnlyRoute = Depends(_sandbox_only)
